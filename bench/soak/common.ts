/**
 * What every soak scenario shares: progress lines, options, the chunks it
 * sends (rebuilt from their (sk, seq) so that a ledger of hundreds of
 * thousands of acknowledgements holds keys only), loops that send them and
 * note each acknowledgement, and the check that every acknowledged chunk reads
 * back byte-identical from the store on disk.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { get as httpGet } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { childrenOf } from '../proc.js'
import { generator } from '../payloads.js'
import { startCluster, type Cluster, type ClusterOptions } from '../../test/helpers/cluster.js'
import { seedProject, storeAt, type Seeded } from '../../test/helpers/seed.js'
import type { ChunkMeta } from '../../src/store/store.js'

export const QUICK = process.argv.includes('--quick')

const began = performance.now()
export function progress(message: string): void {
  const t = ((performance.now() - began) / 1000).toFixed(0).padStart(5)
  process.stdout.write(`[soak ${t} s] ${message}\n`)
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

export const randomBetween = (low: number, high: number) => low + Math.random() * (high - low)

/**
 * The chunk a tracker would send as (sk, seq): a JSON array of one event whose
 * data is seeded from the key, 2 to 8 KB (or about `bytes`), so that a chunk
 * stored under the wrong key or half-written differs from it.
 */
export function bodyFor(sk: string, seq: number, bytes?: number): Buffer {
  let seed = seq * 2654435761
  for (let i = 0; i < sk.length; i++) seed = Math.imul(seed ^ sk.charCodeAt(i), 16777619)
  const random = generator(seed)
  const length = bytes ?? 2000 + Math.floor(random() * 6000)
  let data = ''
  while (data.length < length) data += Math.floor(random() * 2 ** 52).toString(36)
  return Buffer.from(JSON.stringify([{ type: 3, timestamp: 1_700_000_000_000 + seq, sk, seq, data: data.slice(0, length) }]))
}

export function metaFor(sk: string, seq: number, eventCount = 1): ChunkMeta {
  const ts = 1_700_000_000_000 + seq
  return { sk, vid: `v-${sk}`, seq, pageIndex: 0, url: 'https://shop.test/soak', firstTs: ts, lastTs: ts, eventCount, encoding: 'json', startedAt: 1_700_000_000_000 } as ChunkMeta
}

export interface Sent {
  sk: string
  seq: number
  /** Body size, when not bodyFor's own. */
  bytes?: number
}

/** Every chunk answered 200 {ok:true}, and what else came back. */
export class Ledger {
  acked: Sent[] = []
  sent = 0
  /** Connection errors and resets: no HTTP answer. */
  failed = 0
  /** The first failure's error, to tell a dead cluster from a client-side fault. */
  firstError?: string
  statuses = new Map<string, number>()
  /** Every sk a request was sent for, answered or not: a chunk may be stored without its answer arriving. */
  sessions = new Set<string>()

  note(status: string): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1)
  }

  statusSummary(): Record<string, number> {
    return Object.fromEntries([...this.statuses].sort())
  }
}

export interface PostResult {
  status: number
  code?: string
  ok: boolean
  retryAfter?: string
}

export async function postSoakChunk(url: string, pk: string, sent: Sent, timeoutMs = 10_000): Promise<PostResult> {
  const res = await fetch(`${url}/api/v1/ingest?pk=${pk}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'x-svc-meta': JSON.stringify(metaFor(sent.sk, sent.seq)) },
    body: bodyFor(sent.sk, sent.seq, sent.bytes) as BodyInit,
    signal: AbortSignal.timeout(timeoutMs),
  })
  const text = await res.text()
  let json: { ok?: unknown; code?: unknown } | undefined
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined // a body that is not JSON: only the status counts
  }
  return { status: res.status, code: typeof json?.code === 'string' ? json.code : undefined, ok: res.status === 200 && json?.ok === true, retryAfter: res.headers.get('retry-after') ?? undefined }
}

export interface SenderOptions {
  url: () => string
  pk: string
  senders: number
  /** The session key of sender `i`'s `n`-th session (each session takes `perSession` chunks). */
  sessionKey: (i: number, n: number) => string
  perSession?: number
  bytes?: number
  /** Stop when this returns true (checked before every request). */
  stop: () => boolean
  /** Bounds: the loop ends after this many requests or this many ms whatever `stop` says. */
  maxRequests: number
  maxMs: number
  /** Called with every HTTP answer: whether it was an acknowledgement. */
  onAnswer?: (ok: boolean) => void
  /** Stop a sender at its first connection error (the cluster is gone). */
  stopOnError?: boolean
}

/** Runs `senders` concurrent request loops and notes every answer in `ledger`. */
export async function sendChunks(ledger: Ledger, options: SenderOptions): Promise<void> {
  const perSession = options.perSession ?? 1_000_000
  const deadline = performance.now() + options.maxMs
  const loops = Array.from({ length: options.senders }, async (_, i) => {
    for (let n = 0; !options.stop() && ledger.sent < options.maxRequests && performance.now() < deadline; n++) {
      const sent: Sent = { sk: options.sessionKey(i, Math.floor(n / perSession)), seq: n % perSession, bytes: options.bytes }
      ledger.sent += 1
      ledger.sessions.add(sent.sk)
      try {
        const answer = await postSoakChunk(options.url(), options.pk, sent)
        ledger.note(answer.code ? `${answer.status} ${answer.code}` : String(answer.status))
        options.onAnswer?.(answer.ok)
        if (answer.ok) ledger.acked.push(sent)
        // Retry-After is what a tracker waits; the soak honours it briefly so that a refusing service is not spun on.
        else if (answer.status === 429 || answer.status >= 500) await sleep(50)
      } catch (error) {
        ledger.failed += 1
        ledger.firstError ??= error instanceof Error ? `${error.message}${error.cause ? `: ${String(error.cause)}` : ''}` : String(error)
        if (options.stopOnError) return
        await sleep(20)
      }
    }
  })
  await Promise.all(loops)
}

export interface Verdict {
  checked: number
  /** Acknowledged but absent. */
  missing: number
  /** Acknowledged, present, but not the bytes sent. */
  corrupted: number
  examples: string[]
}

/** Opens the store on `dataDir` and checks every acknowledged chunk in `acked` against the bytes sent. */
export async function verifyAcked(dataDir: string, projectId: string, acked: Sent[], expected = (sent: Sent) => bodyFor(sent.sk, sent.seq, sent.bytes)): Promise<Verdict> {
  const store = storeAt(dataDir)
  const verdict: Verdict = { checked: 0, missing: 0, corrupted: 0, examples: [] }
  try {
    for (const sent of acked) {
      verdict.checked += 1
      const stored = store.getChunk(projectId, sent.sk, sent.seq)
      if (!stored) verdict.missing += 1
      else if (Buffer.compare(Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength), expected(sent)) !== 0) verdict.corrupted += 1
      else continue
      if (verdict.examples.length < 5) verdict.examples.push(`${sent.sk}/${sent.seq} ${stored ? 'corrupted' : 'missing'}`)
    }
  } finally {
    await store.close()
  }
  return verdict
}

/** A project seeded in `dataDir` before the cluster starts, its store closed again (this process only reads it later). */
export async function seed(dataDir: string): Promise<Seeded> {
  const seeded = await seedProject(dataDir, 'Soak', 'soak@soak.test')
  await storeAt(dataDir).close()
  return seeded
}

/** What to undo if the run is interrupted (Ctrl-C, SIGTERM): clusters to kill, filesystems to unmount. */
const onInterrupt = new Set<() => void>()
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const undo of onInterrupt) {
      try {
        undo()
      } catch {
        // best effort on the way out: the next undo still runs
      }
    }
    process.exit(130)
  })
}

/** Registers `undo` for an interrupted run; the returned function unregisters it once done normally. */
export function undoOnInterrupt(undo: () => void): () => void {
  onInterrupt.add(undo)
  return () => onInterrupt.delete(undo)
}

export interface Running {
  cluster: Cluster
  /** ms from spawn to the primary's "listening". */
  startMs: number
}

export async function start(options: ClusterOptions): Promise<Running> {
  const started = performance.now()
  // A busy shared machine has taken over 20 s (the tests' limit) to start a cluster; a minute still bounds it.
  const cluster = await startCluster({ startTimeoutMs: 60_000, ...options })
  const forget = undoOnInterrupt(() => process.kill(-cluster.child.pid!, 'SIGKILL'))
  void new Promise((resolve) => cluster.child.once('exit', resolve)).then(forget)
  return { cluster, startMs: performance.now() - started }
}

/** The primary's `child exited` log lines, by child name and by signal or exit code. */
export function childExits(output: string): { total: number; byName: Record<string, number>; byCause: Record<string, number> } {
  const byName: Record<string, number> = {}
  const byCause: Record<string, number> = {}
  let total = 0
  for (const line of output.split('\n')) {
    if (!line.includes('"msg":"child exited')) continue
    let entry: { name?: string; signal?: string | null; code?: number | null }
    try {
      entry = JSON.parse(line)
    } catch {
      continue // a line interleaved with another process's output: counted by the raw match below
    }
    total += 1
    byName[entry.name ?? '?'] = (byName[entry.name ?? '?'] ?? 0) + 1
    const cause = entry.signal ?? `exit ${entry.code}`
    byCause[cause] = (byCause[cause] ?? 0) + 1
  }
  return { total, byName, byCause }
}

export function frontPids(primary: number): number[] {
  return childrenOf(primary).filter((c) => c.cmdline.includes('front.js')).map((c) => c.pid)
}

export function controlPids(primary: number): number[] {
  return childrenOf(primary).filter((c) => c.cmdline.includes('control.js')).map((c) => c.pid)
}

/** Inodes of the sockets listening on `port` (IPv4 loopback, /proc/net/tcp state 0A). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>()
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let table = ''
    try {
      table = readFileSync(file, 'utf8')
    } catch {
      continue // no IPv6 table on this kernel
    }
    for (const line of table.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields.length > 9 && fields[1].endsWith(`:${hexPort}`) && fields[3] === '0A') inodes.add(fields[9])
    }
  }
  return inodes
}

/** Whether process `pid` holds a socket listening on `port`: a restarted front is serving once it does. */
export function listensOn(pid: number, port: number): boolean {
  const inodes = listeningInodes(port)
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return false
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (match && inodes.has(match[1])) return true
    } catch {
      // the descriptor closed while listed
    }
  }
  return false
}

export async function apiCall(url: string, apiKey: string, route: string, body: unknown): Promise<{ status: number; bytes: Buffer; json?: any }> {
  const res = await fetch(`${url}/api/v1${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  const bytes = Buffer.from(await res.arrayBuffer())
  let json: any
  try {
    json = JSON.parse(bytes.toString('utf8'))
  } catch {
    json = undefined // a chunk's bytes, or a body that is not JSON
  }
  return { status: res.status, bytes, json }
}

/** sessions.count through the API, as an installer polls it; undefined when it does not answer 200. */
export async function sessionsCount(url: string, apiKey: string, projectId: string): Promise<number | undefined> {
  const answer = await apiCall(url, apiKey, '/cli/sessions.count', { projectId })
  return answer.status === 200 && typeof answer.json?.count === 'number' ? answer.json.count : undefined
}

/** Distinct sessions in `sessions` that hold at least one stored chunk, read from the store. */
export async function storedSessions(dataDir: string, projectId: string, sessions: Iterable<string>): Promise<number> {
  const store = storeAt(dataDir)
  try {
    let count = 0
    for (const sk of sessions) if (store.getSession(projectId, sk)) count += 1
    return count
  } finally {
    await store.close()
  }
}

/**
 * GET /health on a connection of its own, as an outside monitor probes it: a
 * pooled keep-alive socket the server closed meanwhile would fail the probe
 * for the client's reasons, not the service's.
 */
export function healthProbe(url: string, timeoutMs = 5_000): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = httpGet(`${url}/health`, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.on('error', reject)
  })
}
