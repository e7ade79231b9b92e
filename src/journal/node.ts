/**
 * Joining the cluster mode (NATS_URL set): the control worker of each node
 * opens the log, starts applying it to this node's LMDB, and serves only once
 * it has applied what the log held when it started: a node started on an
 * empty DATA_DIR rebuilds its read model from the streams first.
 */
import type { Config } from '../config.js'
import { log as logLine } from '../log.js'
import { metrics } from '../metrics/registry.js'
import type { Store } from '../store/store.js'
import { Applier, type ApplierOptions } from './applier.js'
import { openEraser, openJournal } from './connect.js'
import { NatsLog } from './nats-log.js'
import { logSeal, readLogSecret, type LogSeal } from './seal.js'
import { replicatedStore } from './replicated-store.js'
import { DEFAULT_LAYOUT, type JournalLayout } from './streams.js'

export type ClusterConfig = Pick<Config, 'natsUrl' | 'natsAuth' | 'natsPartitions' | 'natsReplicas' | 'natsDeadlineMs' | 'natsChunkBytes' | 'retentionDays' | 'natsLogSecretFile' | 'storageBudget' | 'natsStreamMaxBytes'>

/** The seal of this cluster's entries, from the secret every node holds. */
export function logSealOf(config: Pick<Config, 'natsLogSecretFile'>): LogSeal {
  return logSeal(readLogSecret(config.natsLogSecretFile))
}

export function layoutOf(config: ClusterConfig): JournalLayout {
  // In the cluster mode STORAGE_BUDGET is a size (config.ts): recordings live on the NATS servers' disks, not DATA_DIR's.
  const recordingBytes = config.storageBudget && 'bytes' in config.storageBudget ? config.storageBudget.bytes : 0
  return { ...DEFAULT_LAYOUT, partitions: config.natsPartitions, replicas: config.natsReplicas, retentionDays: config.retentionDays, recordingBytes, streamBytes: config.natsStreamMaxBytes }
}

export interface ClusterNode {
  store: Store
  applier: Applier
  log: NatsLog
  seal: LogSeal
  /** Sets svc_log_stream_bytes, svc_log_stream_max_bytes and svc_journal_behind_entries from the log, before a scrape. */
  recordLogUsage(): Promise<void>
  close(): Promise<void>
}

/** How long a scrape waits for the log to say how full its streams are, ms; past it the last values stand. */
const USAGE_TIMEOUT_MS = 2_000

async function recordLogUsage(log: NatsLog, applier: Applier): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), USAGE_TIMEOUT_MS)))
  const usage = await Promise.race([log.usage(applier.streams).catch(() => undefined), late])
  clearTimeout(timer)
  for (const [stream, { bytes, maxBytes, lastSeq }] of usage ?? []) {
    metrics.logStreamBytes.set({ stream }, bytes)
    metrics.logStreamMaxBytes.set({ stream }, maxBytes)
    // The position is read after the stream's head: an entry applied in between never shows as a negative lag.
    metrics.journalBehind.set({ stream }, Math.max(0, lastSeq - applier.position(stream)))
  }
}

/** How often a node catching up says how far it got, ms: a rebuild of millions of entries takes minutes. */
const PROGRESS_MS = 5_000

/**
 * Waits until the node has applied what the log held, logging every few
 * seconds the entries applied since it started and the rate of the last
 * period, so that an operator sees a rebuild move and when it will end.
 */
async function catchUp(applier: Applier, natsUrl: string): Promise<void> {
  // Items, not log messages: a message holds a group of chunks or signals batches.
  const applied = () => applier.itemsApplied
  const started = Date.now()
  const first = applied()
  let last = { at: started, applied: first }
  while (!(await applier.caughtUp(PROGRESS_MS))) {
    const now = { at: Date.now(), applied: applied() }
    const positions = Object.fromEntries(applier.streams.map((s) => [s, applier.position(s)]))
    const perSecond = Math.round((now.applied - last.applied) / Math.max(0.001, (now.at - last.at) / 1000))
    logLine.info('catching up with the log before serving', { seconds: Math.round((now.at - started) / 1000), applied: now.applied - first, perSecond, positions })
    last = now
  }
  const ms = Date.now() - started
  logLine.info('cluster node caught up with the log', { ms, applied: applied() - first, perSecond: Math.round((applied() - first) / Math.max(0.001, ms / 1000)), natsUrl })
}

/** How long a node waits for a NATS cluster that is still starting (its servers booting, a leader being elected), ms. */
const JOIN_TIMEOUT_MS = 120_000

export async function joinCluster(config: ClusterConfig, local: Store, onChunk?: ApplierOptions['onChunk']): Promise<ClusterNode> {
  const journal = await openJournal(config, layoutOf(config), JOIN_TIMEOUT_MS)
  for (const { stream, has, wants } of journal.limitDrift ?? []) {
    logLine.warn('a stream of the log has other limits than this node\'s configuration; left as it is (a node may not reconfigure streams)', {
      stream,
      maxBytes: has,
      configured: wants,
      fix: 'as the NATS operator user: NATS_USER=operator NATS_PASSWORD_FILE=… npm run admin -- log-streams (with this node\'s other settings)',
    })
  }
  const log = new NatsLog(journal, config.natsAuth.eraserPasswordFile ? () => openEraser(config) : undefined)
  const seal = logSealOf(config)
  const applier = new Applier(local, log, layoutOf(config), { seal, chunkBytesInLog: config.natsChunkBytes === 'log', onChunk })
  applier.start()
  await catchUp(applier, config.natsUrl)
  return {
    store: replicatedStore(local, applier, config.natsDeadlineMs),
    applier,
    log,
    seal,
    recordLogUsage: () => recordLogUsage(log, applier),
    close: async () => {
      await applier.stop()
      await log.close()
    },
  }
}
