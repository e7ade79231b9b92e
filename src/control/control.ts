/** Assembles the control worker: its operations, their authentication and the router. */
import { randomBytes } from 'node:crypto'
import type { Config } from '../config.js'
import { BackfillRunner } from '../grouping/backfill.js'
import { ErasureRunner } from '../recordings/erasure-runner.js'
import type { ErasureRecord } from '../store/store.js'
import { buildOpenApi } from '../contract/openapi.js'
import type { ChunkBytes } from '../recordings/chunk-bytes.js'
import type { Store } from '../store/store.js'
import { auditRecorder } from './audit.js'
import { createAuthenticator } from './auth.js'
import { accountOperations } from './operations/accounts.js'
import { createLoginThrottle } from './login-throttle.js'
import { erasureOperations } from './operations/erasures.js'
import { projectLifecycleOperations } from './operations/project-lifecycle.js'
import { keyOperations } from './operations/keys.js'
import { governanceOperations } from './operations/governance.js'
import { memberOperations } from './operations/members.js'
import { pageOperations } from './operations/pages.js'
import { projectOperations } from './operations/projects.js'
import { setupOperations } from './operations/setup.js'
import { insightOperations } from './operations/insights.js'
import { overviewOperations } from './operations/overview.js'
import { sessionOperations } from './operations/sessions.js'
import { snippetOperations } from './operations/snippet.js'
import { storageOperations } from './operations/storage.js'
import { createRouter, type Operation } from './router.js'
import { FairTurns } from './turns.js'
import { inlineReads, type Reads } from './read-pool.js'
import { createSite, type SiteOptions } from '../site/site.js'
import { liveOperations } from './operations/live.js'
import type { LiveBoard } from '../live/board.js'
import { storedChunkBytes } from '../recordings/chunk-bytes.js'

export interface ControlDeps {
  store: Store
  /** The quotas, when left out (a document-only build of the operations), are none. */
  config: Pick<Config, 'publicUrl' | 'directUrl' | 'backfillBatch' | 'backfillPauseMs'> & Partial<Quotas>
  now?: () => number
  /** Built from the store and config when not given. */
  backfill?: BackfillRunner
  /** Built from the store and config when not given (steps of BACKFILL_BATCH entries, BACKFILL_PAUSE_MS apart). */
  erasures?: ErasureRunner
  /** Whether the files no longer hold a finished erasure's bytes; never, unless told (a document-only build). */
  scrubbed?: (erasure: ErasureRecord) => boolean
  /** Where chunk bytes are read from: the store unless told (the cluster mode reads the log too). */
  chunkBytes?: ChunkBytes
  /** Where the website's Markdown sources are; without it the root serves the API only. */
  site?: Pick<SiteOptions, 'pagesDir' | 'publicDir' | 'docsDir'>
  /** What erasure ids are made with (src/recordings/erasure-ids.ts); a random key unless given (a document-only build). */
  erasureIdKey?: Buffer
  /** Organisations' turns on this worker (src/control/turns.ts); a fresh one unless given. */
  turns?: FairTurns
  /** Sessions in progress and their watchers (src/live/board.ts); absent in the cluster mode and a document-only build. */
  live?: LiveBoard
  /** The live feed's timings (tests shorten them). */
  liveFeed?: Parameters<typeof liveOperations>[3]
  /** Where the aggregate reads run (src/control/read-pool.ts): in the store's own thread unless given. */
  reads?: Reads
}

/** Per-organisation quotas (docs/security.md), checked where the store writes what they count; and RETENTION_DAYS, which bounds a project's own. */
export type Quotas = Pick<Config, 'maxProjectsPerOrg' | 'maxApiKeysPerOrg' | 'maxOpenInvitesPerOrg' | 'retentionDays'>

/** RETENTION_DAYS's default (src/config.ts), for a document-only build of the operations. */
const DEFAULT_RETENTION_DAYS = 30

export function controlOperations(deps: ControlDeps): Operation<any>[] {
  const now = deps.now ?? Date.now
  const { maxProjectsPerOrg, maxApiKeysPerOrg, maxOpenInvitesPerOrg } = deps.config
  // One throttle for sign-in and password changes: both check a password.
  const throttle = createLoginThrottle(now)
  const backfill = deps.backfill ?? new BackfillRunner(deps.store, { batch: deps.config.backfillBatch, pauseMs: deps.config.backfillPauseMs, now: deps.now })
  const idKey = deps.erasureIdKey ?? randomBytes(32)
  const erasures = deps.erasures ?? new ErasureRunner(deps.store, { batch: deps.config.backfillBatch, pauseMs: deps.config.backfillPauseMs, subjectKey: idKey, now: deps.now })
  const operations: Operation<any>[] = [
    ...projectOperations(deps.store, maxProjectsPerOrg),
    ...storageOperations(deps.store, deps.config.retentionDays ?? DEFAULT_RETENTION_DAYS),
    ...pageOperations(deps.store, backfill),
    ...keyOperations(deps.store, maxApiKeysPerOrg),
    ...setupOperations(deps.store),
    ...sessionOperations(deps.store, deps.chunkBytes, deps.live),
    ...liveOperations(deps.store, deps.live, deps.chunkBytes ?? storedChunkBytes(deps.store), deps.liveFeed),
    ...insightOperations(deps.store, deps.now),
    ...overviewOperations(deps.store, deps.now),
    ...snippetOperations(deps.store, deps.config.directUrl),
    ...accountOperations({ store: deps.store, publicUrl: deps.config.publicUrl, directUrl: deps.config.directUrl, now, throttle, maxOpenInvites: maxOpenInvitesPerOrg }),
    ...memberOperations({ store: deps.store, publicUrl: deps.config.publicUrl, now, throttle }),
    ...governanceOperations(deps.store),
    ...erasureOperations({ store: deps.store, runner: erasures, scrubbed: deps.scrubbed ?? (() => false), idKey, now }),
    ...projectLifecycleOperations({ store: deps.store, runner: erasures, scrubbed: deps.scrubbed ?? (() => false), idKey, now }),
  ]
  let document: unknown
  operations.push({
    operationId: 'getOpenApiDocument',
    method: 'GET',
    route: '/openapi.json',
    credential: 'none',
    atRoot: true,
    summary: 'This document.',
    response: { type: 'object' },
    handle: () => (document ??= buildOpenApi(operations, deps.config)),
  })
  return operations
}

export function createControl(deps: ControlDeps) {
  const operations = controlOperations(deps)
  const site = deps.site ? createSite({ ...deps.site, directUrl: deps.config.directUrl, publicUrl: deps.config.publicUrl, operations }) : undefined
  const orgOf = (auth: unknown): string | undefined => {
    const caller = auth as { orgId?: string; projectId?: string } | undefined
    return caller?.orgId ?? (caller?.projectId === undefined ? undefined : (deps.store.getProject(caller.projectId)?.orgId ?? caller.projectId))
  }
  return createRouter(operations, createAuthenticator(deps.store, deps.now), site, auditRecorder(deps.store, deps.now), { turns: deps.turns ?? new FairTurns(), writes: new FairTurns(), reads: deps.reads ?? inlineReads(deps.store), orgOf })
}
