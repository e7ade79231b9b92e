/**
 * Gone means gone in the cluster mode (issue 34): two nodes on a real NATS
 * server (the shipped users and TLS) take a session to erase and one to keep
 * at the same time, so that their chunks and signals share log messages
 * (group commit). The erasure, asked of one node, is a control entry both
 * apply: afterwards no log message holds the erased session (every message
 * opened with the cluster's secret and searched), the erased messages' bytes
 * are in no file of the NATS server's store (JetStream's erase), no file of
 * either node's DATA_DIR holds its marker (each node compacts), the kept
 * session still reads back whole through both nodes from its new place in
 * the log, and a third node rebuilt from the log never brings it back. The
 * node asked is stopped in the middle of its erasure and started again on
 * its data, and finishes it. Then an erasure by user id (issue 42): no entry
 * of the control log, opened with the secret, holds the user id (each request
 * names its subject by keyed hash), nor does any file of the rebuilt node,
 * which runs that request too. Throughout both erasures another project's
 * visitor records to the node that is not stopped: its compactions pause
 * ingest, and refuse none of it.
 */
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { openJournal } from '../../src/journal/connect.js'
import { decodeControl, decodeIngestMessage } from '../../src/journal/entries.js'
import { NatsLog } from '../../src/journal/nats-log.js'
import { logSeal, readLogSecret } from '../../src/journal/seal.js'
import { controlStream, DEFAULT_LAYOUT, recordingStream, signalsStream } from '../../src/journal/streams.js'
import { call } from '../helpers/api.js'
import { tempDataDir, type Cluster } from '../helpers/cluster.js'
import { createProject, nodeOn, ownerWithKey } from '../helpers/cluster-mode.js'
import { natsCluster } from '../helpers/nats.js'
import { postChunk, postSignals } from '../helpers/read.js'

t.setTimeout(240_000)

const NOW = Date.now()
const MARK = `MARKGONE-${randomBytes(8).toString('hex')}`
const KEPT = `MARKKEPT-${randomBytes(8).toString('hex')}`
const layout = { ...DEFAULT_LAYOUT, partitions: 2, replicas: 1 }
const streams = [recordingStream(layout, 0), recordingStream(layout, 1), signalsStream(layout)]

function filesHolding(dir: string, needle: Uint8Array): string[] {
  const bytes = Buffer.from(needle)
  return (readdirSync(dir, { recursive: true }) as string[]).filter((name) => statSync(join(dir, name)).isFile() && readFileSync(join(dir, name)).includes(bytes))
}

/** Every message of the recording and signals streams, sealed and opened. */
async function messages(log: NatsLog, seal: ReturnType<typeof logSeal>): Promise<{ sealed: Uint8Array; plain: string }[]> {
  const found = []
  const heads = await log.heads(streams)
  for (const stream of streams) {
    for (let seq = 1; seq <= heads.get(stream)!; seq++) {
      const sealed = await log.get(stream, seq)
      if (!sealed) continue
      const plain = decodeIngestMessage(seal.open('ingest', sealed))
        .map(({ item }) => JSON.stringify(item, (key, value) => (key === 'body' ? Buffer.from(value as Uint8Array).toString() : value)))
        .join('\n')
      found.push({ sealed, plain })
    }
  }
  return found
}

/** Every entry of the control log, opened with the cluster's secret. */
async function controlEntries(log: NatsLog, seal: ReturnType<typeof logSeal>): Promise<{ op: string; args: unknown[]; plain: string }[]> {
  const stream = controlStream(layout)
  const last = (await log.heads([stream])).get(stream)!
  const found = []
  for (let seq = 1; seq <= last; seq++) {
    const sealed = await log.get(stream, seq)
    if (!sealed) continue
    const plain = Buffer.from(seal.open('control', sealed)).toString()
    found.push({ ...decodeControl(Buffer.from(plain)), plain })
  }
  return found
}

async function record(node: Cluster, pk: string, sk: string, marker: string, userId = `u-${sk}`): Promise<number[]> {
  const url = `https://shop.test/account?note=${marker}`
  const chunks = Array.from({ length: 4 }, (_, seq) => {
    const events = [{ type: 3, timestamp: NOW - 50_000 + seq, data: { source: 0, texts: [{ id: 7, value: `Dear ${marker}, part ${seq}` }] } }]
    return postChunk(node.url, pk, { sk, seq, url, startedAt: NOW - 60_000, firstTs: NOW - 60_000, lastTs: NOW - 1_000, identity: { userId } }, Buffer.from(JSON.stringify(events)))
  })
  const signals = postSignals(node.url, pk, { sk, vid: `v-${sk}`, views: [{ url, startedAt: NOW - 60_000, activeMs: 5_000 }], clicks: [{ url, ts: NOW - 30_000, xRatio: 0.5, yDoc: 10, kind: 'rage', n: 3, selector: '#pay', label: `Pay ${marker}` }] })
  return Promise.all([...chunks, signals])
}

async function until<T>(what: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T | undefined> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const value = await what().catch(() => undefined)
    if (value !== undefined && done(value)) return value
    await new Promise((r) => setTimeout(r, 100))
  }
  return undefined
}

t.test('an erased session leaves the log, the NATS store files and every node\'s files, across a restart in the middle; the session kept beside it stays whole', async (t) => {
  const nats = await natsCluster(t, 1)
  // A window long enough that both sessions' items share messages; a compaction as soon as an erasure is done.
  const env = { NATS_REPLICAS: '1', NATS_GROUP_WINDOW_MS: '100', COMPACTION_INTERVAL_MS: '0' }
  // Node A erases in small slow steps, so that it is still erasing when it is stopped.
  const slow = { ...env, BACKFILL_BATCH: '3', BACKFILL_PAUSE_MS: '25' }
  const aDir = tempDataDir()
  let a = await nodeOn(t, nats, { env: slow, dataDir: aDir })
  const b = await nodeOn(t, nats, { env })
  t.teardown(async () => {
    await a.stop()
    rmSync(aDir, { recursive: true, force: true })
  })
  const owner = await ownerWithKey(a.url)
  const project = await createProject(a.url, owner.apiKey, 'Shop')
  const both = await Promise.all([record(a, project.publicKey, 's-gone', MARK), record(a, project.publicKey, 's-kept', KEPT)])
  t.same(new Set(both.flat()), new Set([200]), 'both sessions acknowledged')

  const journal = await openJournal(nats.settings('operator'), layout)
  t.teardown(() => journal.close())
  const log = new NatsLog(journal)
  const seal = logSeal(readLogSecret(nats.env().NATS_LOG_SECRET_FILE))
  const before = await messages(log, seal)
  const holding = before.filter((m) => m.plain.includes(MARK))
  t.ok(holding.length > 0, `before: ${holding.length} log messages hold the erased session`)
  t.ok(holding.some((m) => m.plain.includes(KEPT)), 'and at least one of them holds the kept session too')
  // A slice of each sealed message: found in the server's files now, so that the search after can fail.
  const slices = holding.map((m) => m.sealed.subarray(40, 104))
  const storeDir = nats.servers[0].storeDir
  t.ok(slices.every((slice) => filesHolding(storeDir, slice).length > 0), 'before: the server\'s files hold each of those messages')
  for (const node of [a, b]) {
    const seen = await until(() => call(node.url, '/cli/sessions.list', { token: owner.apiKey, body: { projectId: project.id } }), (r) => r.body.sessions?.length === 2)
    t.ok(seen, 'both sessions on each node')
    t.not(filesHolding(node.dataDir, Buffer.from(MARK)).length, 0, 'before: the node\'s files hold the marker')
  }

  // Another project's visitor records to node B throughout both erasures: its compactions pause it, never refuse it.
  const steady = await createProject(b.url, owner.apiKey, 'Steady')
  const sent = { statuses: [] as number[], failures: [] as string[], on: true }
  const sending = (async () => {
    for (let seq = 0; sent.on; seq++) {
      const status = await postChunk(b.url, steady.publicKey, { sk: 's-steady', seq, startedAt: NOW - 60_000, firstTs: NOW - 60_000, lastTs: NOW }, Buffer.from('[{"type":4}]')).catch((error: unknown) => {
        sent.failures.push(String((error as Error)?.cause ?? error))
        return 0
      })
      if (status) sent.statuses.push(status)
      // One chunk every 50 ms: a steady visitor, not a load test.
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()
  const asked = await call(a.url, '/cli/erasures.create', { token: owner.apiKey, body: { projectId: project.id, by: { sessionKey: 's-gone' } } })
  t.equal(asked.status, 200)
  const underWay = await until(() => call(a.url, '/cli/erasures.get', { token: owner.apiKey, body: { erasureId: asked.body.erasure.id } }), (r) => r.body.erasure?.state === 'running' && r.body.erasure.phase !== 'sessions')
  t.ok(underWay, 'node A has rewritten the log and is erasing its own records')
  await a.stop()
  a = await nodeOn(t, nats, { env: slow, dataDir: aDir })
  for (const node of [a, b]) {
    const done = await until(() => call(node.url, '/cli/erasures.get', { token: owner.apiKey, body: { erasureId: asked.body.erasure.id } }), (r) => r.body.erasure?.state === 'done' && r.body.erasure.scrubbed === true)
    t.ok(done, 'the erasure is done on each node, and the node compacted after it')
  }

  const after = await messages(log, seal)
  t.same(after.filter((m) => m.plain.includes(MARK)).length, 0, 'no log message holds the erased session, even opened with the secret')
  t.ok(after.some((m) => m.plain.includes(KEPT)), 'the kept session is still in the log')
  t.same(slices.flatMap((slice) => filesHolding(storeDir, slice)), [], 'the erased messages\' bytes are in no file of the NATS server')
  for (const node of [a, b]) {
    t.same(filesHolding(node.dataDir, Buffer.from(MARK)), [], 'no file of the node\'s DATA_DIR holds the marker')
    const events = await until(() => call(node.url, '/cli/sessions.events', { token: owner.apiKey, body: { projectId: project.id, sessionKey: 's-kept' } }), (r) => r.status === 200)
    t.equal((events?.body as unknown[] | undefined)?.length, 4, 'the kept session reads back whole, from its new place in the log')
    t.ok(JSON.stringify(events?.body).includes(KEPT))
    const gone = await call(node.url, '/cli/sessions.events', { token: owner.apiKey, body: { projectId: project.id, sessionKey: 's-gone' } })
    t.same([gone.status, gone.body.code], [404, 'not_found'])
  }

  // Issue 42: a user id, as the site gave it to identify, is the request's subject; it goes into no control entry.
  const USER = `MARKUSER-${randomBytes(8).toString('hex')}`
  t.same(new Set(await record(b, project.publicKey, 's-user', `${USER}-page`, USER)), new Set([200]), 'the user\'s session acknowledged')
  for (const node of [a, b]) {
    const seen = await until(() => call(node.url, '/cli/sessions.list', { token: owner.apiKey, body: { projectId: project.id } }), (r) => r.body.sessions?.length === 2)
    t.ok(seen, 'the user\'s session on each node')
  }
  const byUser = await call(b.url, '/cli/erasures.create', { token: owner.apiKey, body: { projectId: project.id, by: { userId: USER } } })
  t.equal(byUser.status, 200)
  t.match(byUser.body.erasure, { subject: 'userId' })
  for (const node of [a, b]) {
    const done = await until(() => call(node.url, '/cli/erasures.get', { token: owner.apiKey, body: { erasureId: byUser.body.erasure.id } }), (r) => r.body.erasure?.state === 'done' && r.body.erasure.scrubbed === true)
    t.match(done?.body.erasure, { removed: { sessions: 1, chunks: 4, signalBatches: 1 } }, 'the user\'s erasure is done on each node, by the keyed hash alone')
  }
  // Eight more in a row, asked of each node in turn (issue 42's ten): each one's bytes leave both nodes' files.
  for (let i = 0; i < 8; i++) {
    const marker = `MARK${i}-${randomBytes(6).toString('hex')}`
    const via = i % 2 ? a : b
    t.same(new Set(await record(via, project.publicKey, `s-more-${i}`, marker)), new Set([200]), `erasure ${i + 3}: its session acknowledged`)
    for (const node of [a, b]) await until(() => call(node.url, '/cli/sessions.list', { token: owner.apiKey, body: { projectId: project.id } }), (r) => r.body.sessions?.some((s: { sessionKey: string }) => s.sessionKey === `s-more-${i}`))
    const more = await call(via.url, '/cli/erasures.create', { token: owner.apiKey, body: { projectId: project.id, by: { sessionKey: `s-more-${i}` } } })
    t.equal(more.status, 200)
    for (const node of [a, b]) {
      const done = await until(() => call(node.url, '/cli/erasures.get', { token: owner.apiKey, body: { erasureId: more.body.erasure.id } }), (r) => r.body.erasure?.state === 'done' && r.body.erasure.scrubbed === true)
      t.match(done?.body.erasure, { removed: { sessions: 1 } }, `erasure ${i + 3} done and compacted on the node`)
      t.same(filesHolding(node.dataDir, Buffer.from(marker)), [], `erasure ${i + 3}: no file of the node holds its marker`)
    }
  }
  sent.on = false
  await sending
  t.same(sent.failures, [], 'through ten erasures and node B\'s compactions, no request of another project was refused or cut')
  t.same(new Set(sent.statuses), new Set([200]), `every one of its ${sent.statuses.length} chunks acknowledged`)
  t.ok(sent.statuses.length > 5, 'sent all along: every erasure was scrubbed on node B, its compactions done, before the sender stopped')
  const control = await controlEntries(log, seal)
  const requests = control.filter((entry) => entry.op === 'startErasure')
  t.equal(requests.length, 10, `${control.length} control entries opened, ten of them erasure requests`)
  t.same(new Set(requests.map((entry) => Object.keys((entry.args[0] as { by: object }).by).sort().join())), new Set(['hash,hashOf']), 'each names its session or user by keyed hash')
  t.same(control.filter((entry) => entry.plain.includes(USER)).map((entry) => entry.op), [], 'no control entry holds the user id, even opened with the secret')
  t.same((await messages(log, seal)).filter((m) => m.plain.includes(USER)).length, 0, 'nor any recording or signals message')

  const c = await nodeOn(t, nats, { env })
  const rebuilt = await until(() => call(c.url, '/cli/sessions.list', { token: owner.apiKey, body: { projectId: project.id } }), (r) => r.status === 200 && r.body.sessions?.length >= 1)
  t.same(rebuilt?.body.sessions.map((s: { sessionKey: string }) => s.sessionKey), ['s-kept'], 'a node rebuilt from the log has only the kept session')
  t.same(filesHolding(c.dataDir, Buffer.from(MARK)), [], 'and no file of its own holds the marker')
  const replayed = await until(() => call(c.url, '/cli/erasures.get', { token: owner.apiKey, body: { erasureId: byUser.body.erasure.id } }), (r) => r.body.erasure?.state === 'done')
  t.match(replayed?.body.erasure, { subject: 'userId', state: 'done' }, 'the rebuilt node ran the request it read from the log')
  t.same(filesHolding(c.dataDir, Buffer.from(USER)), [], 'and no file of its own holds the user id')
  const scrape = await (await fetch(`${c.url}/metrics`)).text()
  t.match(scrape, /# HELP svc_journal_follower_failures_total /, 'the rebuilt node counts its followers\' failures')
  const failed = [...scrape.matchAll(/^svc_journal_follower_failures_total\{[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0)
  t.equal(failed, 0, 'and read over the messages the erasure removed and rewrote without one')
})
