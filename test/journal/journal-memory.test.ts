/**
 * The journal's rules on the in-memory log (journal.case.ts), plus the
 * faults only it can inject on demand: an acknowledgement lost after the entry
 * landed, readers ended by the log, storage refusing a batch mid-apply.
 */
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiError } from '../../src/errors.js'
import { Applier } from '../../src/journal/applier.js'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import { ensureOrgAndUser } from '../../src/accounts/credentials.js'
import { JournalIngestSink } from '../../src/ingest-sink/journal-sink.js'
import { MemoryLog } from '../../src/journal/memory-log.js'
import type { LogEntry } from '../../src/journal/log.js'
import { controlStream, DEFAULT_LAYOUT, recordingStream, signalsGroupSubject, signalsStream, streamConfigs, type JournalLayout } from '../../src/journal/streams.js'
import { journalChunkBytes } from '../../src/journal/chunk-bytes.js'
import { decodeIngestMessage, encodeIngest, encodeIngestGroup } from '../../src/journal/entries.js'
import { metrics } from '../../src/metrics/registry.js'
import { signals } from '../store/insights.case.js'
import { scrubLog } from '../../src/journal/log-scrub.js'
import { hashSubject } from '../../src/store/erasure-subjects.js'
import { chunkItem } from '../ingest-sink/sink.case.js'
import { BatchOutOfOrder, type Store } from '../../src/store/store.js'
import type { GroupOptions } from '../../src/journal/group-commit.js'
import { testLogSeal } from '../helpers/log-secret.js'
import { frictionBatch, journalSuite, projectOn, startNode } from './journal.case.js'
import { until } from '../helpers/until.js'

let logs = 0
function memoryLog(): { log: MemoryLog; layout: JournalLayout } {
  const layout = { ...DEFAULT_LAYOUT, partitions: 2, replicas: 1, namespace: `m${++logs}` }
  return { log: new MemoryLog(streamConfigs(layout).map((s) => ({ name: s.name, subjects: s.subjects ?? [] }))), layout }
}

/**
 * `log` as a node reads it through a replica that diverged: each batch of `stream` from `read` passes through
 * `replica` (which may also move where reading starts, `from`); everything else is the log's own.
 */
function readingReplica(log: MemoryLog, stream: string, replica: { from?: (from: number) => number; entries: (entries: LogEntry[]) => LogEntry[] }): MemoryLog {
  return new Proxy(log, {
    get(target, name) {
      if (name === 'read') {
        return (at: string, from: number, maxBytes: number) => {
          if (at !== stream) return target.read(at, from, maxBytes)
          const reader = target.read(at, replica.from?.(from) ?? from, maxBytes)
          return {
            stop: () => reader.stop(),
            async *[Symbol.asyncIterator]() {
              for await (const entries of reader) yield replica.entries(entries)
            },
          }
        }
      }
      const value = Reflect.get(target, name, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

journalSuite(t, async (t) => {
  const opened = memoryLog()
  t.teardown(() => opened.log.close())
  return opened
})

t.test('an acknowledgement lost and retried: the group lands once and every node counts its batch once', async (t) => {
  const { log, layout } = memoryLog()
  const a = await startNode(t, log, layout)
  const b = await startNode(t, log, layout)
  const project = await projectOn(a)
  log.loseAcks = 1
  const sink = new JournalIngestSink(a.local, log, { layout, seal: testLogSeal, deadlineMs: 5_000, maxQueuedItems: 100, maxQueuedBytes: 1 << 24 })
  t.equal(await sink.enqueue({ kind: 'signals-body', projectId: project.id, receivedAt: Date.now(), body: frictionBatch('s1', Date.now() - 60_000, 4) }), 'stored', 'the retry of its group finds the entry the lost acknowledgement was for')
  t.equal((await log.heads([signalsStream(layout)])).get(signalsStream(layout)), 1, 'one entry in the log')
  for (const node of [a, b]) {
    t.ok(await node.applier.caughtUp(5_000))
    await node.local.applyDerivations()
    t.equal(node.local.listFriction(project.id, { since: 0, until: Date.now() + 60_000, limit: 100 }).items.length, 4)
  }
})

t.test("a replica with a gap (every message from one on a place early): the background check applies the leader's there, and each item moves to the leader's place", async (t) => {
  const { log, layout } = memoryLog()
  const a = await startNode(t, log, layout)
  const project = await projectOn(a)
  const sink = new JournalIngestSink(a.local, log, { layout, seal: testLogSeal, deadlineMs: 5_000, maxQueuedItems: 100, maxQueuedBytes: 1 << 24 })
  const now = Date.now()
  for (const sk of ['s1', 's2', 's3']) t.equal(await sink.enqueue({ kind: 'signals-body', projectId: project.id, receivedAt: now, body: frictionBatch(sk, now - 60_000, 2) }), 'stored')
  const stream = signalsStream(layout)
  // As node3 read REC_0 in the chaos harness's bridge run: the leader's 1 is missing, its 2 is held at 1, its 3 at 2.
  const gapped = readingReplica(log, stream, { from: (from) => from + 1, entries: (entries) => entries.map((entry) => ({ ...entry, seq: entry.seq - 1 })) })
  const repairs = async () => (await metrics.journalDiverged.get()).values[0]?.value ?? 0
  const before = await repairs()
  const b = await startNode(t, gapped, layout, undefined, false, { behind: true, check: { periodMs: 20, confirmMs: 20 } })
  await until('both places checked and repaired', async () => (await repairs()) - before >= 2)
  await b.local.applyDerivations()
  const feed = b.local.listFriction(project.id, { since: 0, until: now + 60_000, limit: 100 }).items
  t.same([...new Set(feed.map((item) => item.sessionKey))].sort(), ['s1', 's2', 's3'], "the batch the replica never held is on the node: the leader's, applied at its place")
  t.equal(feed.length, 6, 'each batch counted once')
  t.equal((await repairs()) - before, 2, 'the two places the node applied were both wrong, and each was repaired once')
  t.same(b.local.takeMovedPlaces().map((moved) => moved.from.seq), [1], "s2, applied at 1 from the replica, now at the leader's 2")
})

t.test('a control entry applied from a diverged replica is not the leader\'s: counted and logged for the operator, never applied again out of order', async (t) => {
  const { log, layout } = memoryLog()
  const a = await startNode(t, log, layout)
  await projectOn(a)
  const control = controlStream(layout)
  const second = (await log.get(control, 2))!
  t.ok(second, 'the organisation and its project made two control entries')
  // The replica holds, at 1, the entry the leader keeps at 2.
  const diverged = readingReplica(log, control, { entries: (entries) => entries.map((entry) => (entry.seq === 1 ? { ...entry, data: second } : entry)) })
  const counted = async () => (await metrics.journalControlDiverged.get()).values[0]?.value ?? 0
  const before = await counted()
  await startNode(t, diverged, layout, undefined, false, { check: { periodMs: 20, confirmMs: 20 } })
  await until('the control entry found diverged', async () => (await counted()) > before)
  t.equal((await counted()) - before, 1, 'one control entry not the leader\'s, at seq 1')
})

t.test('a follower whose reader fails resumes from its position: the node lives on and skips nothing', async (t) => {
  const { log, layout } = memoryLog()
  const a = await startNode(t, log, layout)
  await ensureOrgAndUser(a.store, 'One', 'one@acme.test')
  log.failReaders()
  // Written while every reader is down: applied once the followers resume.
  const { org } = await ensureOrgAndUser(a.store, 'Two', 'two@acme.test')
  t.ok(a.local.getOrg(org.id), 'the change made after the failure is applied')
  log.failReaders()
  log.failReaders()
  const { org: third } = await ensureOrgAndUser(a.store, 'Three', 'three@acme.test')
  t.ok(a.local.getOrg(third.id))
})

type Append = Store['appendBatch']

/** A node whose store writes each batch from the log through `write` (storage faults, slow commits), and a sink onto its log. */
async function nodeWritingThrough(t: Test, write: (append: Append, ...args: Parameters<Append>) => ReturnType<Append>, group?: GroupOptions) {
  const { log, layout } = memoryLog()
  const a = await startNode(t, log, layout)
  const project = await projectOn(a)
  const append: Append = a.local.appendBatch.bind(a.local)
  a.local.appendBatch = (items, applied) => (applied ? write(append, items, applied) : append(items, applied))
  const sink = new JournalIngestSink(a.local, log, { layout, seal: testLogSeal, deadlineMs: 5_000, maxQueuedItems: 100, maxQueuedBytes: 1 << 24, group })
  return { a, project, sink }
}

t.test('storage refusing an ingest batch mid-apply commits none of it; the follower applies it again, whole', async (t) => {
  let refusals = 2
  const { a, project, sink } = await nodeWritingThrough(t, async (append, items, applied) => (refusals-- > 0 ? items.map(() => 'unavailable' as const) : append(items, applied)))
  for (let i = 0; i < 3; i++) await sink.enqueue({ kind: 'signals-body', projectId: project.id, receivedAt: Date.now(), body: frictionBatch(`s${i}`, Date.now() - 60_000, 1) })
  t.ok(await a.applier.caughtUp(5_000), 'caught up once storage takes the batch')
  t.equal(refusals, -1, 'refused twice, then applied')
  t.equal([...a.local.listSignals(project.id)].length, 3, 'nothing skipped')
})

t.test('batches applied while earlier ones commit: one failing makes those after it write nothing, and every batch lands once', async (t) => {
  let calls = 0
  let outOfOrder = 0
  const { a, project, sink } = await nodeWritingThrough(
    t,
    async (append, items, applied) => {
      const call = ++calls
      // Slow commits, so that several batches are in flight; the third fails as storage would.
      await new Promise((resolve) => setTimeout(resolve, 15))
      if (call === 3) return items.map(() => 'unavailable' as const)
      return append(items, applied).catch((error: unknown) => {
        if (error instanceof BatchOutOfOrder) outOfOrder += 1
        throw error
      })
    },
    { windowMs: 0, maxBytes: 1 << 20, inFlight: 1 },
  )
  for (let i = 0; i < 30; i++) t.equal(await sink.enqueue({ kind: 'signals-body', projectId: project.id, receivedAt: Date.now(), body: frictionBatch(`s${i}`, Date.now() - 60_000, 1) }), 'stored')
  t.ok(await a.applier.caughtUp(10_000), 'caught up')
  t.ok(outOfOrder > 0, `batches written after the failed one were refused (${outOfOrder})`)
  t.same([...a.local.listSignals(project.id)].map((s) => s.batch.sk).sort(), Array.from({ length: 30 }, (_, i) => `s${i}`).sort(), 'every batch once')
})

t.test('two nodes scrubbing one erasure from the log at once: one copy of what else the messages held, nothing of the erased session, every kept chunk readable on both', async (t) => {
  const { log, layout } = memoryLog()
  const a = await startNode(t, log, layout, undefined, true)
  const b = await startNode(t, log, layout, undefined, true)
  const project = await projectOn(a)
  const sink = new JournalIngestSink(a.local, log, { layout, seal: testLogSeal, deadlineMs: 5_000, maxQueuedItems: 100, maxQueuedBytes: 1 << 24, group: { windowMs: 20, maxBytes: 1 << 20, inFlight: 1 } })
  const items = ['gone', 'kept'].flatMap((sk) => Array.from({ length: 6 }, (_, seq) => chunkItem(project.id, sk, seq, 500)))
  t.same(new Set(await Promise.all(items.map((item) => sink.enqueue(item)))), new Set(['stored']))
  // Last, alone in its message: the tail of its stream holds only what is erased.
  t.equal(await sink.enqueue(chunkItem(project.id, 'gone', 6, 500)), 'stored')
  for (const node of [a, b]) t.ok(await node.applier.caughtUp(5_000))
  // As a request is recorded and logged: the session key by keyed hash (issue 42).
  const subjectKey = Buffer.alloc(32, 7)
  const by = hashSubject(subjectKey, project.id, { sessionKey: 'gone' })
  const requests = [a, b].map((node) => ({ projectId: project.id, by, places: node.local.erasedPlaces(project.id, by, subjectKey), subjectKey }))
  t.ok(requests[0].places.messages.length > 0, 'the read model says where the erased chunks are')
  const results = await Promise.all(requests.map((request) => scrubLog(log, testLogSeal, layout, request, 5_000)))
  t.equal(results.reduce((sum, r) => sum + r.items, 0) >= 7, true, 'every erased chunk left the log')
  const held: string[] = []
  const heads = await log.heads([recordingStream(layout, 0), recordingStream(layout, 1)])
  for (const [stream, last] of heads) {
    for (let seq = 1; seq <= last; seq++) {
      const data = await log.get(stream, seq)
      if (data) for (const { item } of decodeIngestMessage(testLogSeal.open('ingest', data))) if (item.kind === 'chunk') held.push(`${item.meta.sk}/${item.meta.seq}`)
    }
  }
  t.same(held.sort(), Array.from({ length: 6 }, (_, seq) => `kept/${seq}`), 'the log holds each kept chunk once, and nothing of the erased session')
  for (const node of [a, b]) {
    t.ok(await node.applier.caughtUp(5_000))
    const bytes = journalChunkBytes(node.local, log, testLogSeal)
    for (const info of node.local.listChunks(project.id, 'kept')) t.ok(await bytes(project.id, 'kept', info), `kept/${info.seq} reads back from its new place`)
  }
  // A node rebuilt from the log reaches the end of every stream (no removed message is a stream's last) and holds nothing erased.
  const rebuilt = await startNode(t, log, layout, undefined, true)
  t.same(rebuilt.local.listChunks(project.id, 'kept').map((c) => c.seq), [0, 1, 2, 3, 4, 5])
  t.same(rebuilt.local.listChunks(project.id, 'gone'), [])
})

t.test('a batch naming an older control position than the batch before it waits its turn: no follower starts over', async (t) => {
  const { log, layout } = memoryLog()
  const a = await startNode(t, log, layout)
  const project = await projectOn(a)
  const control = a.local.journalPosition(controlStream(layout))
  const failures = async () => (await metrics.journalFollowerFailures.get()).values.reduce((sum, v) => sum + v.value, 0)
  const before = await failures()
  const message = (sk: string, after: number) => {
    const item = signals(project.id, Date.now(), { sk, clicks: [{ url: 'https://shop.test/', ts: Date.now() - 1_000, xRatio: 0.5, yDoc: 10 }] })
    return testLogSeal.seal('ingest', encodeIngestGroup([encodeIngest({ item, after })]))
  }
  // The first names a control position no node has applied yet (its publisher was ahead); the second an older one,
  // as a message from a publisher behind it does, or one an erasure rewrote.
  await log.append(signalsGroupSubject(layout), message('ahead', control + 1), { id: 'ahead', timeoutMs: 5_000 })
  // Long enough for the follower to take the first as a batch of its own, waiting for the control log.
  await new Promise((r) => setTimeout(r, 50))
  await log.append(signalsGroupSubject(layout), message('behind', control), { id: 'behind', timeoutMs: 5_000 })
  await new Promise((r) => setTimeout(r, 50))
  t.equal(a.local.journalPosition(signalsStream(layout)), 0, 'neither is applied before the control entry the first waits for')
  await ensureOrgAndUser(a.store, 'Later', 'later@acme.test')
  t.ok(await a.applier.caughtUp(5_000))
  t.equal(a.local.journalPosition(signalsStream(layout)), 2, 'both applied, in order')
  t.same([...a.local.listSignals(project.id)].map((s) => s.batch.sk).sort(), ['ahead', 'behind'])
  t.equal(await failures(), before, 'and no follower failed on the way')
})

t.test('a change the log took but this node does not apply by the deadline is answered internal_error, not waited for', async (t) => {
  const { log, layout } = memoryLog()
  // This node's control follower never receives anything (a stalled reader): its tickets cannot resolve.
  let release: (() => void) | undefined
  const stalled = new Proxy(log, {
    get(target, name) {
      if (name !== 'read') return Reflect.get(target, name, target)
      return (stream: string, from: number, maxBytes: number) => {
        if (stream !== controlStream(layout)) return target.read(stream, from, maxBytes)
        return {
          stop: () => release?.(),
          [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<never>>((resolve) => (release = () => resolve({ done: true, value: undefined }))) }),
        }
      }
    },
  })
  const path = mkdtempSync(join(tmpdir(), 'svc-node-'))
  const local = openLmdbStore({ path, mapSize: 64 * 1024 * 1024, durability: 'commit' })
  const applier = new Applier(local, stalled, layout, { seal: testLogSeal, chunkBytesInLog: false, resumePauseMs: 20, watchdogMs: 0 })
  applier.start()
  t.teardown(async () => {
    await applier.stop()
    await local.close()
    rmSync(path, { recursive: true, force: true })
  })
  const answer = await applier.submit('putOrg', [{ id: 'org_late', name: 'Late', createdAt: Date.now() }], Date.now() + 300).then(
    () => undefined,
    (error: unknown) => error,
  )
  t.ok(answer instanceof ApiError, 'answered, at the deadline')
  t.equal((answer as ApiError).code, 'internal_error')
  t.match((answer as ApiError).message, /took this change, but this node did not apply it in time/)
  t.equal((await log.heads([controlStream(layout)])).get(controlStream(layout)), 1, 'the log holds the change: another node applies it')
})

t.test('a replica that holds another message where a chunk was applied is not believed: the leader is asked, and a chunk found nowhere is missing, never another one', async (t) => {
  const { log, layout } = memoryLog()
  const a = await startNode(t, log, layout, undefined, true)
  const project = await projectOn(a)
  const sink = new JournalIngestSink(a.local, log, { layout, seal: testLogSeal, deadlineMs: 5_000, maxQueuedItems: 100, maxQueuedBytes: 1 << 24 })
  // One session, so one partition: two chunks in two messages of one stream, one after the other.
  for (const seq of [0, 1]) t.equal(await sink.enqueue(chunkItem(project.id, 's1', seq, 100 + seq)), 'stored')
  t.ok(await a.applier.caughtUp(5_000))
  const [first, second] = a.local.listChunks(project.id, 's1')
  t.not(first.journal!.seq, second.journal!.seq, 'two messages')
  // A diverged replica: at each sequence of the stream it holds the other message.
  const swap = (seq: number) => (seq === first.journal!.seq ? second.journal!.seq : first.journal!.seq)
  const diverged = (leaderToo: boolean) =>
    new Proxy(log, {
      get(target, name) {
        if (name === 'get' || (leaderToo && name === 'getFromLeader')) return (stream: string, seq: number) => target.get(stream, swap(seq))
        const value = Reflect.get(target, name, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  const sent = (seq: number) => Buffer.from((chunkItem(project.id, 's1', seq, 100 + seq) as { body: Uint8Array }).body)
  const fromLeader = await journalChunkBytes(a.local, diverged(false), testLogSeal)(project.id, 's1', first)
  t.same(Buffer.from(fromLeader!), sent(0), 'the replica\'s message is another chunk\'s: the leader\'s copy is read')
  t.equal(await journalChunkBytes(a.local, diverged(true), testLogSeal)(project.id, 's1', first), undefined, 'with the leader wrong too, no bytes rather than another chunk\'s')
})

t.test("a replica that held another message where a batch was applied: the leader's message there is applied once the node meets that batch again", async (t) => {
  const { log, layout } = memoryLog()
  const a = await startNode(t, log, layout)
  const project = await projectOn(a)
  const sink = new JournalIngestSink(a.local, log, { layout, seal: testLogSeal, deadlineMs: 5_000, maxQueuedItems: 100, maxQueuedBytes: 1 << 24 })
  const now = Date.now()
  for (const sk of ['s1', 's2']) t.equal(await sink.enqueue({ kind: 'signals-body', projectId: project.id, receivedAt: now, body: frictionBatch(sk, now - 60_000, 2) }), 'stored')
  const stream = signalsStream(layout)
  t.equal((await log.heads([stream])).get(stream), 2, 'two messages, both acknowledged')
  // As the chaos harness found after a bridge partition: the replica a node reads holds, at 1, the message the leader keeps at 2.
  const second = (await log.get(stream, 2))!
  const diverged = readingReplica(log, stream, { entries: (entries) => entries.map((entry) => (entry.seq === 1 ? { ...entry, data: second } : entry)) })
  const repairs = async () => (await metrics.journalDiverged.get()).values[0]?.value ?? 0
  const before = await repairs()
  // The background check would find it too (the test after this one): here the repair of an item met twice, alone.
  const b = await startNode(t, diverged, layout, undefined, false, { check: false })
  t.ok(await b.applier.caughtUp(5_000))
  // The repair follows the position: caught up first, then the leader's message.
  await until("the leader's message applied", async () => (await repairs()) > before)
  await b.local.applyDerivations()
  const feed = b.local.listFriction(project.id, { since: 0, until: now + 60_000, limit: 100 }).items
  t.same([...new Set(feed.map((item) => item.sessionKey))].sort(), ["s1", "s2"], 'both batches on the node that read the diverged replica')
  t.equal(feed.length, 4, 'each counted once')
  t.equal((await repairs()) - before, 1, "one place where the leader's message was applied")
  t.same(b.local.takeMovedPlaces(), [], 'nothing left to look at')
})
