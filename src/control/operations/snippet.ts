/** The install snippet of a project, through an API key (a documented extension of the API contract, section 4.3). */
import { projectIdBody } from '../../schemas/control.js'
import { snippetAnswer } from '../../schemas/snippet.js'
import { snippetFor, trackerUrlFor } from '../../install/snippet.js'
import type { Store } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { operation, type Operation } from '../router.js'
import { ownedProject } from './projects.js'

export function snippetOperations(store: Store, directUrl: string): Operation<ApiKeyAuth>[] {
  return [
    operation({
      operationId: 'getProjectSnippet',
      method: 'POST',
      route: '/cli/projects.snippet',
      credential: 'apiKey',
      minRole: 'viewer',
      summary: 'The HTML snippet that installs the tracker on a site: the loader stub with the project\'s public key and the tracker address.',
      body: projectIdBody,
      response: snippetAnswer,
      errors: ['invalid_request', 'not_found'],
      handle({ auth, body }) {
        const project = ownedProject(store, auth, (body as { projectId: string }).projectId)
        return { snippet: snippetFor(project.publicKey, directUrl), publicKey: project.publicKey, trackerUrl: trackerUrlFor(directUrl) }
      },
    }),
  ]
}
