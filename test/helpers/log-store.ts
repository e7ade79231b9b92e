/**
 * The store a test opens beside a node of the cluster mode (seed.ts storeAt),
 * used the way the same test uses it beside the embedded mode:
 * - changes are log entries, as `npm run admin` makes them (submittingStore),
 *   so what a test seeds is on the cluster's write path;
 * - reads first pass the node's read barrier (a node's LMDB applies the log
 *   moments after an acknowledgement), and a chunk's bytes, which the node
 *   keeps in the log, are read from there.
 * Store reads are synchronous: their asynchronous part runs in a worker
 * thread (log-worker.mjs) that this thread waits for, so test files read the
 * store as they always do.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads'
import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { natsConnectOptions } from '../../src/journal/connect.js'
import { appendControl, newControlEntry } from '../../src/journal/control-append.js'
import { decodeIngestMessage } from '../../src/journal/entries.js'
import { NatsLog } from '../../src/journal/nats-log.js'
import { REPLICATED_MUTATIONS } from '../../src/journal/operations.js'
import { submittingStore } from '../../src/journal/replicated-store.js'
import { controlStream, DEFAULT_LAYOUT, type JournalLayout } from '../../src/journal/streams.js'
import type { Store } from '../../src/store/store.js'
import { logNodeAt, type LogNode } from './cluster.js'

/** Longer than a node's read barrier (NATS_DEADLINE_MS, 10 s), so a slow node shows as a wrong answer, not a hang. */
const CALL_TIMEOUT_MS = 30_000

let worker: Worker | undefined

function callSync(op: 'settle' | 'logMessage', args: Record<string, unknown>): unknown {
  if (!worker) {
    worker = new Worker(new URL('./log-worker.mjs', import.meta.url), { execArgv: [] })
    worker.unref()
  }
  const signal = new Int32Array(new SharedArrayBuffer(4))
  const { port1, port2 } = new MessageChannel()
  worker.postMessage({ op, args, signal, port: port2 }, [port2])
  const waited = Atomics.wait(signal, 0, 0, CALL_TIMEOUT_MS)
  const reply = receiveMessageOnPort(port1)?.message as { value?: unknown; error?: string } | undefined
  port1.close()
  if (waited === 'timed-out' || !reply) throw new Error(`${op} did not answer within ${CALL_TIMEOUT_MS} ms`)
  if (reply.error !== undefined) throw new Error(`${op} failed: ${reply.error}`)
  return reply.value
}

/** Store methods read without the barrier: closing, and the log's own position (polled while a change is applied). */
const UNBARRIERED = new Set(['close', 'journalPosition', 'setJournalPosition'])
const MUTATIONS = new Set<string>(REPLICATED_MUTATIONS)
/** How long a change may take to reach the log and the node's LMDB, ms (a node's own deadline is 10 s). */
const CHANGE_DEADLINE_MS = 20_000
/** A connection to the log is closed once unused this long, so that no test process is kept alive by it. */
const IDLE_CLOSE_MS = 500

/**
 * `local` (the LMDB of the data directory `dataDir`, opened by the test),
 * routed through the cluster-mode node running on that directory whenever
 * one is (logNodeAt); without one, `local` itself, as in the embedded mode.
 */
export function logStore(local: Store, dataDir: string): Store {
  const reads = settledReads(local, dataDir)
  const submitting = new WeakMap<LogNode, Store>()
  const submittingFor = (node: LogNode) => {
    if (!submitting.has(node)) submitting.set(node, submittingStore(reads, controlStream(layoutOf(node)), logWriter(node), CHANGE_DEADLINE_MS))
    return submitting.get(node)!
  }
  return new Proxy(reads, {
    get(target, property, receiver) {
      const node = logNodeAt(dataDir)
      if (node && typeof property === 'string' && MUTATIONS.has(property)) return Reflect.get(submittingFor(node), property)
      return Reflect.get(target, property, receiver)
    },
  })
}

function layoutOf(node: LogNode): JournalLayout {
  return { ...DEFAULT_LAYOUT, partitions: node.partitions, replicas: node.replicas }
}

/**
 * Publishes a change to `node`'s control log the way `npm run admin` does, on
 * a connection opened when needed and closed once idle: a connection left
 * open would keep the test process alive, reconnecting to the stopped node's
 * NATS server.
 */
/** Changes this process wrote: each its own log entry id. */
let changes = 0

function logWriter(node: LogNode): (op: string, args: unknown[]) => Promise<number> {
  const layout = layoutOf(node)
  let connection: Promise<NatsConnection> | undefined
  let idle: NodeJS.Timeout | undefined
  return async (op, args) => {
    clearTimeout(idle)
    connection ??= connect(natsConnectOptions(node.nats, 'svc-test-seed'))
    const open = connection
    try {
      const nc = await open
      const log = new NatsLog({ nc, js: jetstream(nc), jsm: await jetstreamManager(nc), close: () => nc.close() })
      changes += 1
      const ack = await appendControl(log, node.seal, layout, newControlEntry(op, args, 'test', changes), Date.now() + CHANGE_DEADLINE_MS)
      return ack.seq
    } finally {
      idle = setTimeout(() => {
        if (connection === open) connection = undefined
        void open.then((nc) => nc.close()).catch(() => undefined)
      }, IDLE_CLOSE_MS)
    }
  }
}

/**
 * `local`, whose reads wait until the node running on `dataDir` has applied
 * what the log held, once per synchronous run of the test (reads in one
 * cannot be separated by a write; the next starts after an await, and may
 * follow one).
 */
function settledReads(local: Store, dataDir: string): Store {
  let settled = false
  const settle = (node: LogNode) => {
    if (settled) return
    callSync('settle', { url: node.url })
    settled = true
    queueMicrotask(() => (settled = false))
  }
  const getChunk: Store['getChunk'] = (projectId, sk, seq) => {
    const node = logNodeAt(dataDir)
    if (!node) return local.getChunk(projectId, sk, seq)
    settle(node)
    const held = local.getChunk(projectId, sk, seq)
    const where = held ? undefined : local.listChunks(projectId, sk).find((c) => c.seq === seq)?.journal
    if (!where) return held
    const data = callSync('logMessage', { options: natsConnectOptions(node.nats, 'svc-test-reads'), stream: where.stream, seq: where.seq }) as Uint8Array | undefined
    const item = data && decodeIngestMessage(node.seal.open('ingest', data))[where.part ?? 0]?.item
    return item?.kind === 'chunk' ? item.body : undefined
  }
  return new Proxy(local, {
    get(target, property, receiver) {
      if (property === 'getChunk') return getChunk
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      if (typeof property !== 'string' || UNBARRIERED.has(property)) return value.bind(target)
      return (...args: unknown[]) => {
        const node = logNodeAt(dataDir)
        if (node) settle(node)
        return value.apply(target, args)
      }
    },
  })
}
