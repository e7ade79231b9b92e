/**
 * The one place that reads process.env. Every setting has a typed default with
 * its unit; `loadConfig()` validates once at start-up and throws a message that
 * names the variable, so a bad deployment fails before it serves anything.
 */
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { parseTrustedProxies, type TrustedProxies } from './front/client-address.js'

export type Durability = 'commit' | 'flush'

/** STORAGE_BUDGET as given: bytes, or a percentage of the disk DATA_DIR is on (resolved when the control worker starts). */
export type StorageBudget = { bytes: number } | { percentOfDisk: number }

export interface Config {
  /** Address the front processes listen on. */
  host: string
  /** Port shared by every front process (SO_REUSEPORT). */
  port: number
  /** LMDB environment directory. */
  dataDir: string
  /** Number of uWebSockets.js front processes. */
  workers: number
  /** Loopback port of the control worker; 0: the kernel gives it one at its first start (src/supervisor/control-port.ts). */
  controlPort: number
  /**
   * Per-start secret the fronts send to the control worker (X-Svc-Control-Secret),
   * which refuses requests without it: other local users can reach a loopback port.
   * Set by the primary for its children (SVC_CONTROL_SECRET); never configured by hand.
   */
  controlSecret: string
  /** Bearer token GET /metrics asks of every client when set; unset, /metrics answers loopback clients only. */
  metricsToken: string
  /**
   * Reverse proxies whose X-Forwarded-For / Forwarded the service believes (TRUST_PROXY, addresses and CIDR
   * ranges). The client is the right-most hop that is not one of them; empty (the default): the socket's peer.
   */
  trustProxy: TrustedProxies
  /** Branded, versioned base address, ending in /api/v1. */
  publicUrl: string
  /** Direct address of this deployment (trackers and installed CLIs use it). */
  directUrl: string
  /**
   * When an ingest request is acknowledged. `commit`: after the LMDB transaction
   * commits (survives a killed process). `flush`: after the OS reports the commit
   * synced to the disk (also survives power loss); see bench/RESULTS.md for the cost.
   */
  durability: Durability
  /** piscina threads per front process that write to LMDB; 0: the front's own thread writes. */
  writerThreads: number
  /** Batches each writer thread keeps in flight (piscina concurrentTasksPerWorker). */
  writerTasks: number
  /** Most chunks or signal batches handed to the pool in one task (one LMDB transaction). */
  writeBatchItems: number
  /** --max-semi-space-size of each front process (its writer threads included), MiB; 0 leaves V8's default. */
  frontSemiSpaceMb: number
  /** Most body bytes in one pool task. */
  writeBatchBytes: number
  /** Most requests a front holds waiting for or inside the writer pool; past it ingest answers 429 overloaded. */
  ingestQueueItems: number
  /** How often a tracker whose session is followed live sends its chunks, ms (at least 1,000; src/live/board.ts). */
  liveFlushMs: number
  /** A client that reads nothing of a streamed answer (a live feed, an export) for this long is dropped, ms. */
  stalledReaderMs: number
  /** Most body bytes a front holds waiting for or inside the writer pool; past it ingest answers 429 overloaded. */
  ingestQueueBytes: number
  /** uWebSockets.js request-header limit in bytes (UWS_HTTP_MAX_HEADERS_SIZE). */
  maxHeaderBytes: number
  /** LMDB map size in bytes; LMDB grows the file up to this. */
  mapSizeBytes: number
  /** Days recordings are kept before the retention job purges their chunks. */
  retentionDays: number
  /** How often the retention job runs, ms. */
  retentionIntervalMs: number
  /** Days audit-log entries are kept (issue 34); the credential housekeeping deletes older ones hourly. */
  auditRetentionDays: number
  /**
   * STORAGE_BUDGET: what recordings (chunk bytes) may take on this node, in bytes or as a share of DATA_DIR's
   * disk; null (unset): no budget, RETENTION_DAYS alone bounds them (src/recordings/budget.ts). In the cluster
   * mode a size only: the recording streams' `max_bytes` together (src/journal/streams.ts).
   */
  storageBudget: StorageBudget | null
  /** Sessions (or signal batches) a backfill re-keys per transaction. */
  backfillBatch: number
  /** Pause between backfill transactions, ms: leaves the write lock to ingest. */
  backfillPauseMs: number
  /**
   * How long after an erasure finishes the store is compacted, ms (0: at once; every process pauses for the copy,
   * src/supervisor/compaction-round.ts), unless the last compaction was less than compactionIntervalMs ago.
   */
  compactionDelayMs: number
  /** The least time between two compactions, ms: erasures close together share one, and nobody's erasures hold ingest more often. */
  compactionIntervalMs: number
  /**
   * Keep the heatmap, leaderboard, friction and page aggregates: ingest logs
   * each stored batch and the control worker's fold thread folds it in
   * (AGGREGATE_SIGNALS=1, the default). 0 exists only so that the benchmark
   * can measure their cost in one run: the read API then misses whatever was
   * ingested meanwhile, until a backfill rebuilds the aggregates.
   */
  aggregateSignals: boolean
  /**
   * How long the fold thread lets logged signals batches gather between folds
   * when less than a full fold is left, ms (FOLD_INTERVAL_MS). Longer folds
   * fewer, larger slices: each busy bucket is rewritten once per fold, so
   * the aggregates cost less per batch, and lag that much more (reads fold
   * what is pending first, so a client still reads its own writes).
   */
  foldIntervalMs: number
  /**
   * Batches one fold takes at most (FOLD_BATCHES). Larger folds rewrite the
   * busy buckets less often per batch; a fold runs ~0.1 ms per batch in the
   * aggregates' own environment, so it never holds up an ingest commit.
   */
  foldBatches: number
  /**
   * Threads of the control worker that run the aggregate reads (READ_THREADS;
   * src/control/read-pool.ts): one per core by default, at most 4.
   */
  readThreads: number
  /** How long one read may hold a read thread (READ_DEADLINE_MS): past it the read is stopped and answered 400. */
  readDeadlineMs: number
  /** Entries one read of the read pool may examine (READ_MAX_ENTRIES): past it the read stops and is answered 400. */
  readMaxEntries: number
  /** Bytes of values one read of the read pool may materialise (READ_MAX_BYTES): past it the read stops and is answered 400. */
  readMaxBytes: number
  /**
   * Pages a project holds at most (MAX_PAGES_PER_PROJECT): past it, signals and recordings on new pages count
   * under the project's `(other)` page. The public key sits in every recorded page, so without a cap anyone could
   * grow the page index and the aggregates by sending distinct URLs (issue 28).
   */
  maxPagesPerProject: number
  /** Serve on uWebSockets.js's pure-Node fallback even where a native build loads (UWS_USE_FALLBACK=1): to measure it, or to answer HTTP/1.0. */
  uwsFallback: boolean
  /**
   * Cluster mode: the NATS servers of the log (`nats://h1:4222,nats://h2:4222`).
   * Empty (the default): the embedded mode, LMDB alone.
   */
  natsUrl: string
  /** Cluster mode: recording partitions (streams), set when the log is first created. */
  natsPartitions: number
  /** Cluster mode: copies of each stream across NATS servers; 3 survives losing one server. */
  natsReplicas: number
  /**
   * Cluster mode: where each node keeps recording bytes. `log` (the default): only in the log's streams,
   * read back by direct get, so recordings take the NATS cluster's disks; a node's DATA_DIR keeps their
   * metadata. `lmdb`: a copy in every node's LMDB as well (reads stay local; each node's disk holds everything).
   */
  natsChunkBytes: 'log' | 'lmdb'
  /**
   * Cluster mode: `max_bytes` of each stream of the log (NATS_STREAM_MAX_BYTES), and of each recording partition
   * unless STORAGE_BUDGET sets theirs; 0: none, the NATS servers' `max_file_store` alone bounds them. A full stream
   * refuses new entries (ingest answers 429), set when a stream is first created.
   */
  natsStreamMaxBytes: number
  /** Cluster mode: how long an ingest publish or a control write may wait for the log, and a read for this node to catch up, ms. */
  natsDeadlineMs: number
  /**
   * Cluster mode, group commit (src/journal/group-commit.ts): how long the first item of a group waits for others
   * (NATS_GROUP_WINDOW_MS), a group's bytes at most (NATS_GROUP_MAX_BYTES, kept under the servers' max_payload), and
   * groups of one stream published at once (NATS_GROUP_IN_FLIGHT).
   */
  natsGroup: { windowMs: number; maxBytes: number; inFlight: number }
  /**
   * Cluster mode: the file holding the secret every node shares (NATS_LOG_SECRET_FILE, at least 32 bytes, mode 0600).
   * Every log entry is sealed with it (src/journal/seal.ts): nobody without it reads the log in clear or appends an
   * entry a node applies.
   */
  natsLogSecretFile: string
  /** Cluster mode: how this node proves who it is to NATS and checks the servers (never in NATS_URL: it is logged). */
  natsAuth: NatsAuth
  /** Projects an organisation may hold; past it projects.create answers 409 quota_exceeded. */
  maxProjectsPerOrg: number
  /** Unrevoked API keys an organisation may hold (every member's together). */
  maxApiKeysPerOrg: number
  /** Invite links an organisation may have pending (unused, unrevoked, unexpired) at once. */
  maxOpenInvitesPerOrg: number
}

/**
 * Credentials and TLS of every connection a node makes to NATS. Secrets are named by file, never given on the
 * command line or in the URL, where `ps` and logs would show them. At most one kind of credential.
 */
export interface NatsAuth {
  /** NATS_USER with NATS_PASSWORD_FILE: a user of deploy/nats/accounts.conf (`node` for service nodes). */
  user: string
  passwordFile: string
  /** NATS_TOKEN_FILE: a server-wide token, for servers configured with one. */
  tokenFile: string
  /** NATS_NKEY_SEED_FILE: an nkey seed (`SU…`) whose public key the server lists as a user. */
  nkeySeedFile: string
  /** NATS_CREDENTIALS_FILE: a `.creds` file (user JWT and seed) of a server run with an operator (decentralised auth). */
  credentialsFile: string
  /** NATS_TLS_CA_FILE: the CA that signed the servers' certificates; set, every connection is TLS and checks them. */
  tlsCaFile: string
  /** NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE: a client certificate, for servers that ask for one. */
  tlsCertFile: string
  tlsKeyFile: string
  /**
   * NATS_ERASER_PASSWORD_FILE: the password of accounts.conf's `eraser` user, with which the control worker
   * removes the log entries an erasure rewrote (the `node` user may not remove entries). Unset: removals go
   * through the node's own connection, for servers that let it (a trusted network, accounts of your own).
   */
  eraserPasswordFile: string
  /**
   * NATS_TRUSTED_NETWORK=1: start even when a NATS server lets in a client without credentials. Without it a node
   * refuses, since anyone who reaches such a server can read the log and append to it.
   */
  trustedNetwork: boolean
}

const KB = 1024
const MB = 1024 * KB
const GB = 1024 * MB

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`)
  }
  return value
}

function url(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name] || fallback
  try {
    return new URL(raw).toString().replace(/\/$/, '')
  } catch {
    throw new Error(`${name} must be an absolute URL, got ${JSON.stringify(raw)}`)
  }
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!values.includes(raw as T)) throw new Error(`${name} must be one of ${values.join(', ')}, got ${JSON.stringify(raw)}`)
  return raw as T
}

function natsUrl(env: NodeJS.ProcessEnv): string {
  const raw = (env.NATS_URL ?? '').trim()
  for (const server of raw.split(',').filter(Boolean)) {
    if (!/^(nats|tls):\/\/[^\s/@]+$/.test(server.trim())) {
      // Not the value itself: it may hold a password, and this message is logged.
      throw new Error('NATS_URL must be a comma-separated list of nats://host:port or tls://host:port, without credentials (NATS_USER, NATS_PASSWORD_FILE)')
    }
  }
  return raw
}

function natsAuth(env: NodeJS.ProcessEnv): NatsAuth {
  const auth: NatsAuth = {
    user: env.NATS_USER ?? '',
    passwordFile: env.NATS_PASSWORD_FILE ?? '',
    tokenFile: env.NATS_TOKEN_FILE ?? '',
    nkeySeedFile: env.NATS_NKEY_SEED_FILE ?? '',
    credentialsFile: env.NATS_CREDENTIALS_FILE ?? '',
    tlsCaFile: env.NATS_TLS_CA_FILE ?? '',
    tlsCertFile: env.NATS_TLS_CERT_FILE ?? '',
    tlsKeyFile: env.NATS_TLS_KEY_FILE ?? '',
    eraserPasswordFile: env.NATS_ERASER_PASSWORD_FILE ?? '',
    trustedNetwork: int(env, 'NATS_TRUSTED_NETWORK', 0, 0, 1) === 1,
  }
  if (Boolean(auth.user) !== Boolean(auth.passwordFile)) throw new Error('NATS_USER and NATS_PASSWORD_FILE go together')
  const kinds = [auth.passwordFile && 'NATS_PASSWORD_FILE', auth.tokenFile && 'NATS_TOKEN_FILE', auth.nkeySeedFile && 'NATS_NKEY_SEED_FILE', auth.credentialsFile && 'NATS_CREDENTIALS_FILE'].filter(Boolean)
  if (kinds.length > 1) throw new Error(`set one NATS credential, not ${kinds.join(' and ')}`)
  if (Boolean(auth.tlsCertFile) !== Boolean(auth.tlsKeyFile)) throw new Error('NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together')
  return auth
}

function logSecretFile(env: NodeJS.ProcessEnv): string {
  const file = env.NATS_LOG_SECRET_FILE ?? ''
  if ((env.NATS_URL ?? '').trim() && !file) {
    throw new Error('NATS_LOG_SECRET_FILE must name the file with the secret every node shares (openssl rand -hex 32 > FILE; chmod 600 FILE): the cluster mode seals every log entry with it')
  }
  return file ? resolve(file) : ''
}

const SIZE_UNITS: Record<string, number> = { '': 1, k: KB, m: MB, g: GB, t: 1024 * GB }

/** `200MB`, `50GB`, `20MiB`, `1073741824`: bytes (KB, MB, GB and TB are powers of 1024, as KiB…); NaN when not a size. */
function sizeBytes(raw: string): number {
  const size = /^(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?$/i.exec(raw)
  return size ? Math.floor(Number(size[1]) * SIZE_UNITS[size[2].toLowerCase()]) : NaN
}

/** A size or `80%` of DATA_DIR's disk; in the cluster mode a size only. */
function storageBudget(env: NodeJS.ProcessEnv): StorageBudget | null {
  const raw = env.STORAGE_BUDGET?.trim()
  if (!raw) return null
  const share = /^(\d+(?:\.\d+)?)\s*%$/.exec(raw)
  const bytes = sizeBytes(raw)
  const budget = share && Number(share[1]) > 0 && Number(share[1]) < 100 ? { percentOfDisk: Number(share[1]) } : bytes >= MB ? { bytes } : undefined
  if (!budget) throw new Error(`STORAGE_BUDGET must be a size of at least 1MB (200MB, 50GB) or a share of the disk from 1% to 99% (80%), got ${JSON.stringify(raw)}`)
  // In the cluster mode recordings live on the NATS servers' disks: a share of DATA_DIR's disk would measure the wrong one.
  if (env.NATS_URL && 'percentOfDisk' in budget) throw new Error('STORAGE_BUDGET must be a size (200GB) in the cluster mode: recordings live on the NATS servers\' disks, not on the disk of DATA_DIR')
  return budget
}

/** NATS_STREAM_MAX_BYTES: a size of at least 1MB, or 0 (unset) for no limit of the streams' own. */
function streamMaxBytes(env: NodeJS.ProcessEnv): number {
  const raw = env.NATS_STREAM_MAX_BYTES?.trim()
  if (!raw || raw === '0') return 0
  const bytes = sizeBytes(raw)
  if (!(bytes >= MB)) throw new Error(`NATS_STREAM_MAX_BYTES must be a size of at least 1MB (20GB), or 0 for no limit, got ${JSON.stringify(raw)}`)
  return bytes
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1'
  const port = int(env, 'PORT', 8787, 0, 65535)
  const durability = (env.DURABILITY || 'commit') as Durability
  if (durability !== 'commit' && durability !== 'flush') {
    throw new Error(`DURABILITY must be "commit" or "flush", got ${JSON.stringify(env.DURABILITY)}`)
  }
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  const directUrl = url(env, 'DIRECT_URL', origin)
  return {
    host,
    port,
    dataDir: resolve(env.DATA_DIR || './data'),
    workers: int(env, 'WORKERS', availableParallelism(), 1, 64),
    controlPort: int(env, 'CONTROL_PORT', 0, 0, 65535),
    controlSecret: env.SVC_CONTROL_SECRET ?? '',
    metricsToken: env.METRICS_TOKEN ?? '',
    trustProxy: parseTrustedProxies(env.TRUST_PROXY ?? ''),
    publicUrl: url(env, 'PUBLIC_URL', `${directUrl}/api/v1`),
    directUrl,
    durability,
    // 0: the front writes its own batches (lmdb-js commits off its thread) and reuses each body's buffer after the
    // commit; a piscina thread per front cost more CPU per request on both ingest routes (docs/configuration.md, WRITER_THREADS).
    writerThreads: int(env, 'WRITER_THREADS', 0, 0, 16),
    // Transactions each writer thread keeps pending at once. With one, the thread sat idle while its commit ran and
    // the next batch waited for the reply; with several, lmdb-js starts the next transaction as the last one commits.
    writerTasks: int(env, 'WRITER_TASKS', 4, 1, 64),
    writeBatchItems: int(env, 'WRITE_BATCH_ITEMS', 64, 1, 4096),
    // MiB; 0: V8's default (16 MiB here). Young-generation garbage collection was a large share of a front's CPU under load.
    frontSemiSpaceMb: int(env, 'FRONT_SEMI_SPACE_MB', 32, 0, 1024),
    writeBatchBytes: int(env, 'WRITE_BATCH_BYTES', 4 * MB, 64 * KB, 256 * MB),
    // 512 requests: 8 full batches, about 130 ms of writing at the ~3.8k acks/s each of two fronts sustains
    // (bench/RESULTS.md); a tracker told to come back later loses nothing, one kept waiting longer holds a connection
    // and its body in memory (2,000 connections queued seconds deep under 2,048: bench/SOAK.md). 64 MiB: 64 chunks at the 1 MB cap.
    ingestQueueItems: int(env, 'INGEST_QUEUE_ITEMS', 512, 1, 1_000_000),
    liveFlushMs: int(env, 'LIVE_FLUSH_MS', 1_500, 1_000, 10_000),
    stalledReaderMs: int(env, 'STALLED_READER_MS', 60_000, 100, 3_600_000),
    ingestQueueBytes: int(env, 'INGEST_QUEUE_BYTES', 64 * MB, 1 * MB, 16 * GB),
    maxHeaderBytes: int(env, 'MAX_HEADER_BYTES', 16 * KB, 8 * KB, 1 * MB),
    mapSizeBytes: int(env, 'LMDB_MAP_SIZE', 64 * GB, 16 * MB, Number.MAX_SAFE_INTEGER),
    retentionDays: int(env, 'RETENTION_DAYS', 30, 1, 3650),
    retentionIntervalMs: int(env, 'RETENTION_INTERVAL_MS', 60 * 60 * 1000, 1000, 7 * 24 * 60 * 60 * 1000),
    auditRetentionDays: int(env, 'AUDIT_RETENTION_DAYS', 365, 1, 3650),
    storageBudget: storageBudget(env),
    backfillBatch: int(env, 'BACKFILL_BATCH', 500, 1, 100_000),
    backfillPauseMs: int(env, 'BACKFILL_PAUSE_MS', 5, 0, 60_000),
    compactionDelayMs: int(env, 'COMPACTION_DELAY_MS', 0, 0, 24 * 60 * 60 * 1000),
    compactionIntervalMs: int(env, 'COMPACTION_INTERVAL_MS', 60_000, 0, 24 * 60 * 60 * 1000),
    aggregateSignals: int(env, 'AGGREGATE_SIGNALS', 1, 0, 1) === 1,
    foldIntervalMs: int(env, 'FOLD_INTERVAL_MS', 500, 0, 60_000),
    foldBatches: int(env, 'FOLD_BATCHES', 2_000, 1, 100_000),
    // Every reader keeps a V8 heap and the LMDB maps: one per core, at most 4.
    readThreads: int(env, 'READ_THREADS', Math.max(1, Math.min(4, availableParallelism())), 1, 64),
    // Five times the longest read of a project at the page cap (bench/RESULTS.md, "The longest read").
    readDeadlineMs: int(env, 'READ_DEADLINE_MS', 5_000, 100, 600_000),
    // About five times what the costliest read of a project at the page cap examines (bench/RESULTS.md, "The longest read").
    readMaxEntries: int(env, 'READ_MAX_ENTRIES', 250_000, 100, 1_000_000_000),
    readMaxBytes: int(env, 'READ_MAX_BYTES', 512 * 1024 * 1024, 64 * 1024, 64 * 1024 * 1024 * 1024),
    // 10,000 pages: far above what a site's grouping rules leave, and a bound on what each of them costs the aggregates.
    maxPagesPerProject: int(env, 'MAX_PAGES_PER_PROJECT', 10_000, 1, 1_000_000),
    uwsFallback: int(env, 'UWS_USE_FALLBACK', 0, 0, 1) === 1,
    natsUrl: natsUrl(env),
    natsPartitions: int(env, 'NATS_PARTITIONS', 3, 1, 256),
    natsReplicas: int(env, 'NATS_REPLICAS', 3, 1, 5),
    natsChunkBytes: oneOf(env, 'NATS_CHUNK_BYTES', ['log', 'lmdb'] as const, 'log'),
    natsStreamMaxBytes: streamMaxBytes(env),
    // 10 s: a stream elects a new leader in about 5 s when a NATS server dies (test/journal/journal.test.ts).
    natsDeadlineMs: int(env, 'NATS_DEADLINE_MS', 10_000, 100, 600_000),
    natsGroup: {
      windowMs: int(env, 'NATS_GROUP_WINDOW_MS', 2, 0, 1_000),
      maxBytes: int(env, 'NATS_GROUP_MAX_BYTES', 512 * 1024, 0, 64 * 1024 * 1024),
      inFlight: int(env, 'NATS_GROUP_IN_FLIGHT', 4, 1, 1_024),
    },
    natsLogSecretFile: logSecretFile(env),
    natsAuth: natsAuth(env),
    // Far above what a team uses, low enough that a leaked key or a runaway script cannot grow the store without bound.
    maxProjectsPerOrg: int(env, 'MAX_PROJECTS_PER_ORG', 1_000, 1, 1_000_000),
    maxApiKeysPerOrg: int(env, 'MAX_API_KEYS_PER_ORG', 1_000, 1, 1_000_000),
    maxOpenInvitesPerOrg: int(env, 'MAX_OPEN_INVITES_PER_ORG', 100, 1, 1_000_000),
  }
}

/** Limits of the API contract (section 8). Not configurable: clients rely on them. */
export const LIMITS = {
  chunkBytes: 1_000_000,
  signalsBytes: 256_000,
  /** Body cap of control-plane JSON requests. */
  controlBodyBytes: 1_000_000,
  views: 200,
  clicks: 2000,
  errors: 100,
  /** Signals `startedAt` is clamped to [now - 24 h, now + 5 min]: a day covers a tab left open overnight, five minutes covers client clock skew. */
  clampPastMs: 24 * 60 * 60 * 1000,
  clampFutureMs: 5 * 60 * 1000,
} as const

export const SERVICE_NAME = 'svc-recorder'
