/**
 * The journal's rules, run against every implementation of the log: the
 * in-memory twin (journal-memory.test.ts, milliseconds) and JetStream on a
 * real nats-server (journal-nats.test.ts). Each case is what one node, or two
 * nodes sharing one log, must do; nothing here depends on which log it is.
 * Faults a real server cannot be told to make on demand (an acknowledgement
 * lost, a reader ended) are injected only in the in-memory file.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { ensureOrgAndUser } from '../../src/accounts/credentials.js'
import { newId, newPublicKey } from '../../src/accounts/secrets.js'
import { Applier, type ApplierOptions } from '../../src/journal/applier.js'
import { journalChunkBytes } from '../../src/journal/chunk-bytes.js'
import { appendControl, newControlEntry } from '../../src/journal/control-append.js'
import { decodeControl, encodeControl } from '../../src/journal/entries.js'
import { logSeal } from '../../src/journal/seal.js'
import { JournalIngestSink } from '../../src/ingest-sink/journal-sink.js'
import type { Log } from '../../src/journal/log.js'
import { publishUntil, publishVerified } from '../../src/journal/publish.js'
import { replicatedStore } from '../../src/journal/replicated-store.js'
import { controlStream, controlSubject, recordingStream, signalsStream, type JournalLayout } from '../../src/journal/streams.js'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import type { Store } from '../../src/store/store.js'
import { testLogSeal } from '../helpers/log-secret.js'
import { chunkItem } from '../ingest-sink/sink.case.js'

export interface LogFactory {
  /** A fresh, empty log with the layout's streams, closed at the test's end. */
  (t: Test): Promise<{ log: Log; layout: JournalLayout }>
}

/** One node: its own LMDB (a real environment on disk), an applier following the log, the replicated store over it. */
export interface Node {
  local: Store
  store: Store
  applier: Applier
  path: string
  stop(): Promise<void>
}

/** `behind`: the node reads a replica that never reaches the log's head (a gap), so it is not waited for. */
export async function startNode(t: Test, log: Log, layout: JournalLayout, path = mkdtempSync(join(tmpdir(), 'svc-node-')), chunkBytesInLog = false, options: { check?: ApplierOptions['check']; behind?: boolean } = {}): Promise<Node> {
  const local = openLmdbStore({ path, mapSize: 256 * 1024 * 1024, durability: 'commit' })
  const applier = new Applier(local, log, layout, { seal: testLogSeal, chunkBytesInLog, resumePauseMs: 20, watchdogMs: 0, check: options.check ?? { periodMs: 20, confirmMs: 20 } })
  applier.start()
  if (!options.behind && !(await applier.caughtUp(30_000))) throw new Error('node did not catch up with the log')
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    await applier.stop()
    await local.close()
  }
  t.teardown(async () => {
    await stop()
    rmSync(path, { recursive: true, force: true })
  })
  return { local, store: replicatedStore(local, applier, 10_000), applier, path, stop }
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** A project created through `node`, as the API does; every node applies it. */
export async function projectOn(node: Node): Promise<{ id: string; publicKey: string }> {
  const { org } = await ensureOrgAndUser(node.store, `Org ${newId('o')}`, `${newId('u')}@acme.test`)
  const project = await node.store.createProject({ id: newId('prj'), orgId: org.id, name: 'Site', domain: null, pathRules: [], publicKey: newPublicKey(), createdAt: Date.now() })
  return project!
}

/** A signals batch with friction on it, as a tracker sends it. */
export function frictionBatch(sk: string, ts: number, clicks: number): Uint8Array {
  const batch = {
    sk,
    vid: `v-${sk}`,
    clicks: Array.from({ length: clicks }, (_, i) => ({ url: 'https://shop.test/cart', ts: ts + i, xRatio: 0.5, yDoc: 100 + i, vw: 1280, selector: `#b${i % 3}`, kind: i % 2 ? 'rage' : 'dead', n: 3 })),
  }
  return encoder.encode(JSON.stringify(batch))
}

async function read(log: Log, stream: string, from: number, count: number): Promise<{ seq: number; text: string }[]> {
  const reader = log.read(stream, from, 10)
  const got: { seq: number; text: string }[] = []
  for await (const batch of reader) {
    for (const entry of batch) got.push({ seq: entry.seq, text: decoder.decode(entry.data) })
    if (got.length >= count) break
  }
  reader.stop()
  return got
}

export function journalSuite(t: Test, open: LogFactory): void {
  t.test('one order per stream; a read resumes from any sequence; an entry reads back by sequence', async (t) => {
    const { log, layout } = await open(t)
    const subject = controlSubject(layout)
    for (const n of [1, 2, 3]) t.same(await log.append(subject, encoder.encode(`entry ${n}`), { id: `e${n}`, timeoutMs: 5_000 }), { seq: n, duplicate: false })
    t.same(await read(log, controlStream(layout), 1, 3), [1, 2, 3].map((n) => ({ seq: n, text: `entry ${n}` })))
    t.same(await read(log, controlStream(layout), 2, 2), [2, 3].map((n) => ({ seq: n, text: `entry ${n}` })), 'from the second')
    t.same(decoder.decode(await log.get(controlStream(layout), 2)), 'entry 2')
    t.same((await log.heads([controlStream(layout), signalsStream(layout)])).get(controlStream(layout)), 3)
    t.same((await log.heads([signalsStream(layout)])).get(signalsStream(layout)), 0, 'an empty stream is at 0')
  })

  t.test('a retry of an append whose acknowledgement was lost is a duplicate: the log holds the entry once', async (t) => {
    const { log, layout } = await open(t)
    const subject = controlSubject(layout)
    const first = await log.append(subject, encoder.encode('once'), { id: 'same', timeoutMs: 5_000 })
    // What publishUntil does after an attempt whose acknowledgement never came: the same id again.
    const retried = await publishUntil(log, subject, encoder.encode('once'), { id: 'same', deadline: Date.now() + 5_000 })
    t.same(retried, { seq: first.seq, duplicate: true })
    t.equal((await log.heads([controlStream(layout)])).get(controlStream(layout)), 1)
  })

  t.test('a control entry whose message id another publisher took first still lands, under a new id', async (t) => {
    const { log, layout } = await open(t)
    const a = await startNode(t, log, layout)
    const entry = newControlEntry('putOrg', [{ id: newId('org'), name: 'Claimed', createdAt: Date.now() }], 'elsewhere', 1)
    t.match(entry.id, /^ctl:[A-Za-z0-9_-]{22}$/, '128 random bits, nothing derived from the node or a counter')
    t.not(newControlEntry('putOrg', [], 'elsewhere', 2).id.slice(4, 12), entry.id.slice(4, 12))
    // What a holder of the NATS password could do if it knew the id: junk under it first, which no node applies.
    const junk = await log.append(controlSubject(layout), encoder.encode('junk'), { id: entry.id, timeoutMs: 5_000 })
    const ack = await appendControl(log, testLogSeal, layout, entry, Date.now() + 5_000)
    t.equal(ack.duplicate, false, 'the duplicate answer was checked against the junk the log holds, and the entry went again')
    t.equal(ack.seq, junk.seq + 1)
    t.equal(decodeControl(testLogSeal.open('control', (await log.get(controlStream(layout), ack.seq))!)).id, entry.id, 'the log holds the entry itself')
    // A retry of the same append (its acknowledgement lost) is still the duplicate it was: the first copy is ours.
    const again = await publishVerified(log, controlSubject(layout), testLogSeal.seal('control', encodeControl(entry)), {
      id: entry.id, deadline: Date.now() + 5_000, stream: controlStream(layout), prefix: 'ctl:', isOurs: () => true,
    })
    t.equal(again.duplicate, true)
    t.equal((await log.heads([controlStream(layout)])).get(controlStream(layout)), ack.seq, 'nothing added by the junk check on a true duplicate')
    t.ok(await a.applier.caughtUp(5_000))
  })

  t.test('a signals batch published twice under one id is counted once on every node, with the same friction ids', async (t) => {
    const { log, layout } = await open(t)
    const a = await startNode(t, log, layout)
    const b = await startNode(t, log, layout)
    const project = await projectOn(a)
    const sink = new JournalIngestSink(a.local, log, { layout, seal: testLogSeal, deadlineMs: 5_000, maxQueuedItems: 100, maxQueuedBytes: 1 << 24 })
    t.equal(await sink.enqueue({ kind: 'signals-body', projectId: project.id, receivedAt: Date.now(), body: frictionBatch('s1', Date.now() - 60_000, 4) }), 'stored')
    // The same entry, resent with its id beyond the log's duplicate window (or through another path): the read model keeps it once.
    const entry = await log.get(signalsStream(layout), 1)
    await log.append(`${layout.namespace ? `${layout.namespace}.` : ''}sig.again`, entry!, { id: 'a-different-log-id', timeoutMs: 5_000 })
    for (const node of [a, b]) {
      t.ok(await node.applier.caughtUp(10_000))
      await node.local.applyDerivations()
    }
    const feed = (node: Node) => node.local.listFriction(project.id, { since: 0, until: Date.now() + 60_000, limit: 100 }).items
    t.equal(feed(a).length, 4, 'four friction items, not eight')
    t.same(feed(b).map((i) => i.id), feed(a).map((i) => i.id), 'both nodes name them alike')
    t.equal([...a.local.listSignals(project.id)].length, 1, 'one stored batch')
  })

  t.test('paging the friction feed alternately through two nodes gives one consistent list', async (t) => {
    const { log, layout } = await open(t)
    const a = await startNode(t, log, layout)
    const b = await startNode(t, log, layout)
    const project = await projectOn(a)
    const sinks = [a, b].map((node) => new JournalIngestSink(node.local, log, { layout, seal: testLogSeal, deadlineMs: 5_000, maxQueuedItems: 100, maxQueuedBytes: 1 << 24 }))
    const now = Date.now()
    // Batches received in the same millisecond by both nodes: their order can only come from the log's identities.
    for (let i = 0; i < 6; i++) {
      t.equal(await sinks[i % 2].enqueue({ kind: 'signals-body', projectId: project.id, receivedAt: now, body: frictionBatch(`s${i}`, now - 120_000, 5) }), 'stored')
    }
    for (const node of [a, b]) {
      t.ok(await node.applier.caughtUp(10_000))
      await node.local.applyDerivations()
    }
    const range = { since: 0, until: now + 60_000 }
    const whole = a.local.listFriction(project.id, { ...range, limit: 100 }).items.map((i) => i.id)
    t.equal(whole.length, 30)
    t.same(b.local.listFriction(project.id, { ...range, limit: 100 }).items.map((i) => i.id), whole, 'the same feed on both nodes')
    const paged: string[] = []
    let after
    for (let page = 0; page < 20; page++) {
      const slice: ReturnType<Store['listFriction']> = (page % 2 ? b : a).local.listFriction(project.id, { ...range, limit: 4, after })
      paged.push(...slice.items.map((i) => i.id))
      after = slice.next
      if (!after) break
    }
    t.same(paged, whole, 'pages of 4, alternating nodes, give every item once, in order')
  })

  t.test('a control entry applied twice leaves the state it left once', async (t) => {
    const { log, layout } = await open(t)
    const a = await startNode(t, log, layout)
    const { org, user } = await ensureOrgAndUser(a.store, 'Acme', 'owner@acme.test')
    const key = { id: newId('key'), orgId: org.id, userId: user.id, label: 'ci', digestHex: 'a'.repeat(64), lastFour: 'aaaa', createdAt: Date.now() }
    const entry = testLogSeal.seal('control', encodeControl({ id: 'ctl:elsewhere:1', op: 'putApiKey', args: [key], node: 'elsewhere', ticket: 1 }))
    // Two log entries with one payload (a resend beyond the duplicate window, or a replay): the second is refused.
    await publishUntil(log, controlSubject(layout), entry, { id: 'first', deadline: Date.now() + 5_000 })
    t.ok(await a.applier.caughtUp(10_000))
    const once = { keys: a.local.listApiKeys(org.id), user: a.local.getUser(user.id) }
    await publishUntil(log, controlSubject(layout), entry, { id: 'second', deadline: Date.now() + 5_000 })
    t.ok(await a.applier.caughtUp(10_000))
    t.same({ keys: a.local.listApiKeys(org.id), user: a.local.getUser(user.id) }, once)
    t.equal(a.local.listApiKeys(org.id).length, 1)
  })

  t.test('a sealed entry naming no replicated operation is skipped, counted, and the log goes on', async (t) => {
    const { log, layout } = await open(t)
    const a = await startNode(t, log, layout)
    for (const op of ['close', 'appendBatch', 'setJournalPosition', 'toString']) {
      await publishUntil(log, controlSubject(layout), testLogSeal.seal('control', encodeControl({ id: `ctl:x:${op}`, op, args: [], node: 'forger', ticket: 1 })), { id: `forged-${op}`, deadline: Date.now() + 5_000 })
    }
    const { org } = await ensureOrgAndUser(a.store, 'After', 'after@acme.test')
    t.ok(org, 'a change after them is applied: the store is open and the follower alive')
    t.equal(a.local.journalPosition(controlStream(layout)), 5, 'every entry consumed')
  })

  t.test('entries nobody sealed with the cluster\'s secret change nothing: a forged key, a forged batch, a copy moved across streams', async (t) => {
    const { log, layout } = await open(t)
    const a = await startNode(t, log, layout)
    const project = await projectOn(a)
    const { org, user } = await ensureOrgAndUser(a.store, 'Victim', 'victim@acme.test')
    const forgedKey = { id: newId('key'), orgId: org.id, userId: user.id, label: 'forged', digestHex: 'b'.repeat(64), lastFour: 'bbbb', createdAt: Date.now() }
    // The right shape, in clear, as a client that may publish to `ctl.>` would write it.
    await publishUntil(log, controlSubject(layout), encodeControl({ id: 'ctl:forger:1', op: 'putApiKey', args: [forgedKey], node: 'forger', ticket: 1 }), { id: 'forged-1', deadline: Date.now() + 5_000 })
    // Sealed with another secret.
    const other = logSeal(Buffer.alloc(32, 7))
    await publishUntil(log, controlSubject(layout), other.seal('control', encodeControl({ id: 'ctl:forger:2', op: 'putApiKey', args: [forgedKey], node: 'forger', ticket: 2 })), { id: 'forged-2', deadline: Date.now() + 5_000 })
    // A real ingest entry copied into the control stream does not open there.
    const sink = new JournalIngestSink(a.local, log, { layout, seal: testLogSeal, deadlineMs: 5_000, maxQueuedItems: 100, maxQueuedBytes: 1 << 24 })
    await sink.enqueue({ kind: 'signals-body', projectId: project.id, receivedAt: Date.now(), body: frictionBatch('real', Date.now() - 60_000, 1) })
    await publishUntil(log, controlSubject(layout), (await log.get(signalsStream(layout), 1))!, { id: 'moved', deadline: Date.now() + 5_000 })
    // A forged signals batch in clear.
    await publishUntil(log, `${layout.namespace ? `${layout.namespace}.` : ''}sig.x`, encoder.encode('{"after":0,"item":{"kind":"signals"}}'), { id: 'forged-3', deadline: Date.now() + 5_000 })
    const { org: after } = await ensureOrgAndUser(a.store, 'After', 'after@acme.test')
    t.ok(a.local.getOrg(after.id), 'the node goes on applying')
    t.ok(await a.applier.caughtUp(10_000))
    t.equal(a.local.getApiKey(forgedKey.id), undefined, 'no forged key exists')
    t.same([...a.local.listSignals(project.id)].map((s) => s.batch.sk), ['real'], 'only the real batch')
  })

  t.test('a node started on an empty store rebuilds the same state from the log, and a restarted one resumes where it stopped', async (t) => {
    const { log, layout } = await open(t)
    const a = await startNode(t, log, layout)
    const project = await projectOn(a)
    const sink = new JournalIngestSink(a.local, log, { layout, seal: testLogSeal, deadlineMs: 5_000, maxQueuedItems: 100, maxQueuedBytes: 1 << 24 })
    for (let i = 0; i < 3; i++) await sink.enqueue({ kind: 'signals-body', projectId: project.id, receivedAt: Date.now(), body: frictionBatch(`s${i}`, Date.now() - 60_000, 2) })
    t.ok(await a.applier.caughtUp(10_000))
    const path = a.path
    await a.stop()
    // Restarted on its own data: resumes from its positions, applying nothing twice.
    const again = await startNode(t, log, layout, path)
    const fresh = await startNode(t, log, layout)
    for (const node of [again, fresh]) {
      await node.local.applyDerivations()
      t.equal([...node.local.listSignals(project.id)].length, 3)
      t.equal(node.local.listFriction(project.id, { since: 0, until: Date.now() + 60_000, limit: 100 }).items.length, 6)
      t.ok(node.local.getProject(project.id))
    }
  })

  t.test('group commit: chunks taken together share log messages, and a chunk sent to two nodes is kept once by each, its bytes read back from its group', async (t) => {
    const { log, layout } = await open(t)
    // Both nodes keep chunk bytes in the log only, as the default: a read finds its chunk's part of a group.
    const a = await startNode(t, log, layout, undefined, true)
    const b = await startNode(t, log, layout, undefined, true)
    const project = await projectOn(a)
    const options = { layout, seal: testLogSeal, deadlineMs: 10_000, maxQueuedItems: 1_000, maxQueuedBytes: 1 << 26, group: { windowMs: 20, maxBytes: 64 * 1024, inFlight: 1 } }
    const sinks = [a, b].map((node) => new JournalIngestSink(node.local, log, options))
    const sessions = ['s1', 's2', 's3', 's4']
    const items = sessions.flatMap((sk) => Array.from({ length: 10 }, (_, seq) => chunkItem(project.id, sk, seq, 3_000 + seq)))
    // Every chunk through node a, and half of them again through node b at the same time (a tracker resending elsewhere).
    const outcomes = await Promise.all([...items.map((item) => sinks[0].enqueue(item)), ...items.filter((_, i) => i % 2 === 0).map((item) => sinks[1].enqueue(item))])
    t.same(new Set(outcomes), new Set(['stored']), 'every copy acknowledged')
    const heads = await log.heads(Array.from({ length: layout.partitions }, (_, p) => recordingStream(layout, p)))
    const messages = [...heads.values()].reduce((sum, n) => sum + n, 0)
    t.ok(messages < outcomes.length / 3, `${outcomes.length} chunks in ${messages} log messages`)
    for (const node of [a, b]) {
      t.ok(await node.applier.caughtUp(10_000))
      const bytes = journalChunkBytes(node.local, log, testLogSeal)
      for (const sk of sessions) {
        const held = node.local.listChunks(project.id, sk)
        t.same(held.map((c) => c.seq), [...Array(10).keys()], `${sk}: every chunk once`)
        for (const info of held) {
          const body = await bytes(project.id, sk, info)
          const sent = items.find((item) => item.kind === 'chunk' && item.meta.sk === sk && item.meta.seq === info.seq)!.body
          if (!body || Buffer.compare(Buffer.from(body), Buffer.from(sent)) !== 0) t.fail(`${sk}/${info.seq}: bytes differ`)
        }
      }
    }
    t.equal(await sinks[0].enqueue(items[3]), 'duplicate', 'a resend to the node that took it is answered as a duplicate')
  })
}
