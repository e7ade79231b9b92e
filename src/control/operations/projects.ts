/** Projects through an API key (API contract, section 4.3) and the setup-token extensions. */
import { mintSetupToken, revokeSetupTokens } from '../../accounts/credentials.js'
import { ApiError } from '../../errors.js'
import {
  countAnswer,
  createProjectBody,
  projectAnswer,
  projectIdBody,
  projectCaptureBody,
  projectListAnswer,
  projectPathRulesBody,
  revokedAnswer,
  setupTokenAnswer,
} from '../../schemas/control.js'
import { apiKeyIdentitySchema } from '../../schemas/common.js'
import { newId, newPublicKey } from '../../accounts/secrets.js'
import type { Project } from '../../schemas/types.js'
import { captureOf, invalidCapturePatterns } from '../../recordings/capture.js'
import type { ProjectRecord, Store } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { operation, type Operation } from '../router.js'

/** A project as the API answers it. */
export function projectView(store: Store, project: ProjectRecord): Project {
  return {
    id: project.id,
    name: project.name,
    domain: project.domain,
    publicKey: project.publicKey,
    sessionCount: store.projectStats(project.id).sessionCount,
    createdAt: project.createdAt,
    pathRules: project.pathRules,
    capture: captureOf(project),
    retentionDays: project.retentionDays ?? null,
  }
}

/**
 * The project `projectId` if the key's organisation owns it. Another
 * organisation's project is answered exactly like one that does not exist.
 */
export function ownedProject(store: Store, auth: ApiKeyAuth, projectId: string): ProjectRecord {
  const project = store.getProject(projectId)
  if (!project || project.orgId !== auth.orgId) {
    throw new ApiError('not_found', { error: 'No such project.', hint: 'List your projects with POST /cli/projects.list.' })
  }
  return project
}

/** `maxPerOrg`: the organisation's quota of projects (Config.maxProjectsPerOrg). */
export function projectOperations(store: Store, maxPerOrg?: number): Operation<ApiKeyAuth>[] {
  return [
    operation({
      operationId: 'getApiKeyIdentity',
      method: 'POST',
      route: '/cli/whoami',
      light: true,
      credential: 'apiKey',
      minRole: 'viewer',
      summary: 'Who the API key belongs to.',
      response: apiKeyIdentitySchema,
      handle: ({ auth }) => ({ orgId: auth.orgId, userId: auth.userId, ...(auth.label ? { label: auth.label } : {}) }),
    }),
    operation({
      operationId: 'listProjects',
      method: 'POST',
      route: '/cli/projects.list',
      credential: 'apiKey',
      minRole: 'viewer',
      summary: 'Every project in the key\'s organisation.',
      response: projectListAnswer,
      handle: ({ auth }) => ({ projects: store.listProjects(auth.orgId).map((p) => projectView(store, p)) }),
    }),
    operation({
      operationId: 'createProject',
      method: 'POST',
      writes: true,
      route: '/cli/projects.create',
      credential: 'apiKey',
      minRole: 'admin',
      audit: (_ctx, answer) => ({ action: 'project.create', target: answer.project.id }),
      summary: 'Creates a project and returns the public key its tracker sends. An organisation holds at most MAX_PROJECTS_PER_ORG projects (1,000 unless configured).',
      body: createProjectBody,
      response: projectAnswer,
      errors: ['invalid_request', 'quota_exceeded'],
      async handle({ auth, body }) {
        const { name, domain, pathRules } = body
        const project = await store.createProject({
          id: newId('prj'),
          orgId: auth.orgId,
          name: name.trim(),
          domain: domain ? domain.trim().toLowerCase() : null,
          pathRules: pathRules ?? [],
          publicKey: newPublicKey(),
          createdAt: Date.now(),
        }, maxPerOrg ?? null)
        if (!project) throw new ApiError('quota_exceeded', { error: 'The organisation already holds as many projects as its quota allows.' })
        return { project: projectView(store, project) }
      },
    }),
    operation({
      operationId: 'setProjectPathRules',
      method: 'POST',
      writes: true,
      route: '/cli/projects.path-rules',
      credential: 'apiKey',
      minRole: 'admin',
      audit: ({ body }) => ({ action: 'project.path_rules', target: body.projectId }),
      summary: 'Replaces the project\'s path rules. Patterns that do not compile are kept and ignored when read.',
      body: projectPathRulesBody,
      response: projectAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }) {
        const { projectId, rules } = body
        ownedProject(store, auth, projectId)
        const updated = await store.updateProject(projectId, { pathRules: rules })
        if (!updated) throw new ApiError('not_found')
        return { project: projectView(store, updated) }
      },
    }),
    operation({
      operationId: 'setProjectCapture',
      method: 'POST',
      writes: true,
      route: '/cli/projects.capture',
      credential: 'apiKey',
      minRole: 'admin',
      audit: ({ body }) => ({ action: 'project.capture', target: body.projectId, detail: Object.keys(body.capture).sort().join(', ') }),
      summary: 'Changes what the tracker records: sampling, minimum duration, URL triggers and exclusions, console and network capture. Fields left out keep their value; trackers learn the change within 5 minutes.',
      body: projectCaptureBody,
      response: projectAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }) {
        const { projectId, capture } = body
        const project = ownedProject(store, auth, projectId)
        const invalid = invalidCapturePatterns(capture)
        if (invalid.length) {
          throw new ApiError('invalid_request', { error: `Pattern ${JSON.stringify(invalid[0].pattern)}: ${invalid[0].reason}.`, hint: 'Write patterns as path rules: /literal/{name}/* .', invalid: invalid.map((i) => i.pattern) })
        }
        const updated = await store.updateProject(projectId, { capture: { ...captureOf(project), ...capture } })
        if (!updated) throw new ApiError('not_found')
        return { project: projectView(store, updated) }
      },
    }),
    operation({
      operationId: 'countProjectSessions',
      method: 'POST',
      route: '/cli/sessions.count',
      credential: 'apiKey',
      minRole: 'viewer',
      summary: 'Sessions recorded so far: poll it after an install and watch it move off zero.',
      body: projectIdBody,
      response: countAnswer,
      errors: ['invalid_request', 'not_found'],
      handle({ auth, body }) {
        const project = ownedProject(store, auth, body.projectId)
        return { count: store.projectStats(project.id).sessionCount }
      },
    }),
    operation({
      operationId: 'mintSetupToken',
      method: 'POST',
      writes: true,
      route: '/cli/projects.setup-token',
      credential: 'apiKey',
      minRole: 'admin',
      audit: ({ body }) => ({ action: 'setup_token.mint', target: body.projectId }),
      summary: 'Mints a setup token for an install agent (one project, path rules only, 30 days). Older tokens stay valid until they expire, or until the member who minted them is removed.',
      body: projectIdBody,
      response: setupTokenAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }) {
        const project = ownedProject(store, auth, body.projectId)
        const { token, record } = await mintSetupToken(store, project.id, undefined, Date.now(), auth.userId)
        return { token, expiresAt: record.expiresAt }
      },
    }),
    operation({
      operationId: 'revokeSetupTokens',
      method: 'POST',
      writes: true,
      route: '/cli/projects.setup-token.revoke',
      credential: 'apiKey',
      minRole: 'admin',
      audit: ({ body }) => ({ action: 'setup_token.revoke', target: body.projectId }),
      summary: 'Revokes every setup token of the project.',
      body: projectIdBody,
      response: revokedAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }) {
        const project = ownedProject(store, auth, body.projectId)
        return { ok: true, revoked: await revokeSetupTokens(store, project.id) }
      },
    }),
  ]
}

/** Whether the project already holds pages (grouped under its previous rules). */
export function holdsPages(store: Store, projectId: string): boolean {
  return store.countPages(projectId) > 0
}

