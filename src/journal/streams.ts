/**
 * The replicated log of the cluster mode, as JetStream streams: recordings in
 * several partition streams (so their leaders spread over the NATS servers,
 * and each expires by age like the embedded store's retention), signals in
 * one stream without an age limit (signals outlive the recording purge), and
 * control-plane mutations in one stream kept forever (the read model of a
 * new node is rebuilt from it).
 */
import { createHash } from 'node:crypto'
import { DiscardPolicy, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream'

export interface JournalLayout {
  /** Recording partitions: one stream each (`REC_0` … `REC_{n-1}`). */
  partitions: number
  /** Copies of every stream across NATS servers; 3 survives one server lost. */
  replicas: number
  /** Recordings expire after this many days, like RETENTION_DAYS in the embedded mode. */
  retentionDays: number
  /**
   * How long JetStream remembers a message id to flag a resend as a duplicate.
   * The read model drops a repeated (sk, seq) whenever it arrives; the window
   * only spares the log the repeat.
   */
  duplicateWindowMs: number
  /** Put before every stream name and subject, so that several logs share one NATS cluster (each test its own). */
  namespace: string
  /** Bytes the recording partitions hold together at most (STORAGE_BUDGET), split evenly between them; 0: see streamBytes. */
  recordingBytes: number
  /** Bytes every other stream, and each partition when recordingBytes is 0, holds at most (NATS_STREAM_MAX_BYTES); 0: no limit. */
  streamBytes: number
}

export const DEFAULT_LAYOUT: JournalLayout = { partitions: 3, replicas: 3, retentionDays: 30, duplicateWindowMs: 10 * 60_000, namespace: '', recordingBytes: 0, streamBytes: 0 }

const NANOS_PER_MS = 1_000_000

export const signalsStream = (layout: JournalLayout) => `${layout.namespace}SIG`
export const controlStream = (layout: JournalLayout) => `${layout.namespace}CTL`
export const recordingStream = (layout: JournalLayout, partition: number) => `${layout.namespace}REC_${partition}`

/** Every stream of the layout: the control log first. */
export function streamNames(layout: JournalLayout): string[] {
  return [controlStream(layout), signalsStream(layout), ...Array.from({ length: layout.partitions }, (_, i) => recordingStream(layout, i))]
}

const subjectRoot = (layout: JournalLayout) => (layout.namespace ? `${layout.namespace}.` : '')

/**
 * The partition of a session: a hash of project and session key, so every
 * chunk of one session lands in one stream, in order, and sessions spread
 * evenly over the partitions.
 */
export function partitionOf(projectId: string, sk: string, partitions: number): number {
  const digest = createHash('sha1').update(projectId).update('\0').update(sk).digest()
  return digest.readUInt32BE(0) % partitions
}

/**
 * Subject of a chunk. Tokens are hex digests, not the client's strings: a
 * session key may hold any character, and NATS subjects may not hold `.`,
 * `*`, `>` or spaces.
 */
export function chunkSubject(layout: JournalLayout, partition: number, projectId: string, sk: string): string {
  return `${subjectRoot(layout)}rec.${partition}.${token(projectId)}.${token(sk)}`
}

export function signalsSubject(layout: JournalLayout, projectId: string): string {
  return `${subjectRoot(layout)}sig.${token(projectId)}`
}

/** Subjects of a group of items (group-commit.ts): of one partition's chunks, of signals batches and stylesheets. */
export function recordingGroupSubject(layout: JournalLayout, partition: number): string {
  return `${subjectRoot(layout)}rec.${partition}.group`
}

export function signalsGroupSubject(layout: JournalLayout): string {
  return `${subjectRoot(layout)}sig.group`
}

/** The one subject of control entries: what an entry does is sealed inside it, never in its envelope. */
export function controlSubject(layout: JournalLayout): string {
  return `${subjectRoot(layout)}ctl.entry`
}

/** The message id that makes a resent chunk a duplicate in the log: project, session and sequence. */
export function chunkMessageId(projectId: string, sk: string, seq: number): string {
  return `${token(projectId)}:${token(sk)}:${seq}`
}

function token(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 32)
}

/** JetStream's `max_bytes` of each recording partition and of the other streams; -1 is JetStream's "no limit". */
export function streamMaxBytes(layout: JournalLayout): { recording: number; other: number } {
  const other = layout.streamBytes > 0 ? layout.streamBytes : -1
  return { recording: layout.recordingBytes > 0 ? Math.floor(layout.recordingBytes / layout.partitions) : other, other }
}

export function streamConfigs(layout: JournalLayout): (Partial<StreamConfig> & { name: string })[] {
  const maxBytes = streamMaxBytes(layout)
  const common = {
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    num_replicas: layout.replicas,
    duplicate_window: layout.duplicateWindowMs * NANOS_PER_MS,
    // Bytes are read back by sequence from any replica (direct get), not through consumers.
    allow_direct: true,
    // A full stream refuses new writes (the front answers 429) rather than dropping acknowledged entries: a node
    // applying the log late, or rebuilding, would never see a dropped entry, and the nodes would disagree.
    discard: DiscardPolicy.New,
  }
  const recordings = Array.from({ length: layout.partitions }, (_, partition) => ({
    ...common,
    name: recordingStream(layout, partition),
    subjects: [`${subjectRoot(layout)}rec.${partition}.>`],
    max_age: layout.retentionDays * 86_400_000 * NANOS_PER_MS,
    max_bytes: maxBytes.recording,
  }))
  return [
    ...recordings,
    { ...common, name: signalsStream(layout), subjects: [`${subjectRoot(layout)}sig.>`], max_bytes: maxBytes.other },
    { ...common, name: controlStream(layout), subjects: [`${subjectRoot(layout)}ctl.>`], max_bytes: maxBytes.other },
  ]
}

/** An existing stream whose `max_bytes` is not what this node's configuration asks for. */
export interface LimitDrift {
  stream: string
  has: number
  wants: number
}

/**
 * The NATS servers cannot set aside the bytes the streams' `max_bytes` ask
 * for (their `max_file_store`, or the disk): waiting does not change that.
 */
export class StreamsDoNotFit extends Error {}

/**
 * Creates the streams that are missing, and answers the existing ones whose
 * `max_bytes` differs from the layout's. An existing stream is left as it is:
 * the node's NATS user may not reconfigure a stream (deploy/nats/accounts.conf),
 * since one that may can also shrink it and drop what it holds.
 */
/** A stream of the layout does not exist and this client may not create it (the shipped `node` user may not). */
export class StreamsMissing extends Error {
  constructor(readonly stream: string) {
    super(`the log's stream ${stream} does not exist, and this NATS user may not create it: the operator creates the streams with npm run admin -- log-streams (NATS_USER=operator)`)
  }
}

export async function ensureStreams(jsm: JetStreamManager, layout: JournalLayout): Promise<LimitDrift[]> {
  const existing = new Map<string, StreamConfig>()
  for await (const info of jsm.streams.list()) existing.set(info.config.name, info.config)
  const drift: LimitDrift[] = []
  for (const config of streamConfigs(layout)) {
    const found = existing.get(config.name) ?? (await createOrFind(jsm, config))
    if (found && found.max_bytes !== config.max_bytes) drift.push({ stream: config.name, has: found.max_bytes, wants: config.max_bytes! })
  }
  return drift
}

/** Creates the stream; a stream of that name made meanwhile (or left out of a short listing) is answered as found. */
async function createOrFind(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<StreamConfig | undefined> {
  try {
    await jsm.streams.add(config)
    return undefined
  } catch (error) {
    // 10058: the name is in use with another configuration (another node's limits).
    if (error instanceof JetStreamApiError && error.code === 10058) return (await jsm.streams.info(config.name)).config
    if (/Permissions Violation/.test(String(error))) throw new StreamsMissing(config.name)
    // 10047 on one server; 10005 "no suitable peers for placement, insufficient storage" in a cluster.
    if (/insufficient storage/.test(String(error))) {
      throw new StreamsDoNotFit(`the NATS servers cannot set aside max_bytes ${config.max_bytes} for stream ${config.name} (${String(error)}): the streams' limits (STORAGE_BUDGET, NATS_STREAM_MAX_BYTES) must fit in each server's max_file_store`)
    }
    throw error
  }
}
