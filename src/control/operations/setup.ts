/** The install agent's two calls, through a setup token (API contract, section 4.4). */
import { ApiError } from '../../errors.js'
import { compileRules } from '../../grouping/rules.js'
import { setupPathRulesAnswer, setupPathRulesBody } from '../../schemas/control.js'
import { setupProjectSchema } from '../../schemas/common.js'
import type { ProjectRecord, Store } from '../../store/store.js'
import type { SetupAuth } from '../auth.js'
import { operation, type Operation } from '../router.js'
import { holdsPages } from './projects.js'

function tokenProject(store: Store, auth: SetupAuth): ProjectRecord {
  const project = store.getProject(auth.projectId)
  // The project was deleted after the token was minted: the token reaches nothing.
  if (!project) throw new ApiError('unauthorized', { error: 'The setup token\'s project no longer exists.', hint: 'Ask the project owner for a fresh install prompt.' })
  return project
}

const sameRules = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((rule, i) => rule === b[i])

export function setupOperations(store: Store): Operation<SetupAuth>[] {
  return [
    operation({
      operationId: 'getSetupTokenProject',
      method: 'POST',
      route: '/setup/whoami',
      credential: 'setupToken',
      summary: 'The project the setup token reaches.',
      response: { type: 'object', required: ['project'], properties: { project: setupProjectSchema } },
      handle({ auth }) {
        const project = tokenProject(store, auth)
        return {
          project: { name: project.name, domain: project.domain, pathRules: project.pathRules, sessionCount: store.projectStats(project.id).sessionCount },
        }
      },
    }),
    operation({
      operationId: 'setSetupPathRules',
      method: 'POST',
      writes: true,
      route: '/setup/path-rules',
      credential: 'setupToken',
      audit: ({ auth }) => ({ action: 'project.path_rules', target: auth.projectId }),
      summary: 'Sets the project\'s path rules. Refuses patterns that do not compile (listed in `invalid`) and then saves nothing.',
      body: setupPathRulesBody,
      response: setupPathRulesAnswer,
      errors: ['invalid_request'],
      async handle({ auth, body }) {
        const rules = (body as { rules: string[] }).rules
        const { invalid } = compileRules(rules)
        if (invalid.length > 0) {
          throw new ApiError('invalid_request', {
            error: `${invalid.length} pattern(s) do not compile: ${invalid.map((i) => `${i.pattern} (${i.reason})`).join('; ')}`.slice(0, 1000),
            hint: 'Patterns are paths of literal segments and {name} placeholders, optionally ending in /*. Nothing was saved.',
            invalid: invalid.map((i) => i.pattern),
          })
        }
        const previous = tokenProject(store, auth)
        // Re-keying is needed only when pages already exist under different rules.
        const backfillNeeded = holdsPages(store, previous.id) && !sameRules(previous.pathRules, rules)
        const updated = await store.updateProject(previous.id, { pathRules: rules })
        return { ok: true, project: { name: updated?.name ?? previous.name }, pathRules: rules, backfillNeeded }
      },
    }),
  ]
}
