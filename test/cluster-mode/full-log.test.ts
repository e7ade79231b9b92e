/**
 * A full log (issue 31) and the storage budget in the cluster mode (issue
 * 32), on a real NATS server run from deploy/nats/: the streams take their
 * `max_bytes` from STORAGE_BUDGET (the recording partitions together) and
 * NATS_STREAM_MAX_BYTES (the others); a full stream refuses new entries, so
 * /ingest and /signals answer 429 overloaded with Retry-After at once, every
 * acknowledged chunk still reads back, and once the operator raises the limit
 * the same node takes the refused payloads without a restart. Where a tmpfs
 * can be mounted (root), the NATS server's store is on a small one, which the
 * limits keep from filling: nats-server 2.9.10 on a disk that really fills
 * locks the stream up until it is killed (README, NATS_STREAM_MAX_BYTES).
 */
import { execFileSync } from 'node:child_process'
import { rmSync, statfsSync } from 'node:fs'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import t from 'tap'
import { natsConnectOptions, openJournal } from '../../src/journal/connect.js'
import { controlStream, DEFAULT_LAYOUT, recordingStream, signalsStream, StreamsDoNotFit } from '../../src/journal/streams.js'
import { call } from '../helpers/api.js'
import { createProject, nodeOn, ownerWithKey } from '../helpers/cluster-mode.js'
import { meta, postChunk, postSignals, type Answer } from '../helpers/http.js'
import { natsCluster } from '../helpers/nats.js'
import { parseProm } from '../helpers/prom.js'
import { callRaw } from '../helpers/read.js'
import { mountTmpfs } from '../helpers/tmpfs.js'

t.setTimeout(120_000)

const MB = 1024 * 1024
/** About 100 KB of event JSON: a budget of 2 MB over two partitions takes some 20 of them. */
const chunkOf = (sk: string, seq: number) => Buffer.from(JSON.stringify([{ type: 3, timestamp: 1_700_000_000_000 + seq, data: { sk, seq, pad: `${sk}:${seq}:`.padEnd(100_000, 'x') } }]))
/** About 150 KB of clicks: a 1 MB signals stream takes some 6 of them. */
const signalsOf = (n: number) => ({
  sk: `sig-${n}`,
  vid: `v-${n}`,
  views: [{ url: 'https://shop.test/', startedAt: Date.now() }],
  clicks: Array.from({ length: 500 }, (_, i) => ({ url: 'https://shop.test/', ts: Date.now(), xRatio: 0.5, yDoc: i, selector: `#b${n}-${i}`.padEnd(250, 'x'), tag: 'button' })),
})

/** 16 MiB: four times what the streams' limits set aside at first (2 MB of recordings, 1 MB each for signals and control). */
const TMPFS_BYTES = 16 * MB

function isRefusal(answer: Answer): boolean {
  return answer.status === 429 && answer.json?.code === 'overloaded' && Number(answer.headers['retry-after']) > 0
}

t.test('a full stream answers 429 overloaded at once, keeps every acknowledged chunk readable, and takes ingest again once its limit is raised', async (t) => {
  const tmpfs = mountTmpfs('svc-nats-full-', TMPFS_BYTES)
  if (tmpfs) {
    // Registered first, so it runs after the NATS server's teardown has stopped it.
    t.teardown(() => {
      execFileSync('umount', [tmpfs])
      rmSync(tmpfs, { recursive: true, force: true })
    })
  } else t.comment('the NATS store is on the ordinary disk: mounting a tmpfs needs root (mount -t tmpfs refused)')
  const nats = await natsCluster(t, 1, { dir: tmpfs })
  const node = await nodeOn(t, nats, { env: { NATS_REPLICAS: '1', STORAGE_BUDGET: '2MB', NATS_STREAM_MAX_BYTES: '1MB' } })
  const owner = await ownerWithKey(node.url)
  const project = await createProject(node.url, owner.apiKey, 'Shop')

  const operator = await connect(natsConnectOptions(nats.settings('operator'), 'svc-test-operator'))
  t.teardown(() => operator.close())
  const jsm = await jetstreamManager(operator)
  const layout = { ...DEFAULT_LAYOUT, partitions: 2 }
  const recordings = [recordingStream(layout, 0), recordingStream(layout, 1)]
  for (const stream of recordings) t.equal((await jsm.streams.info(stream)).config.max_bytes, MB, `${stream}: STORAGE_BUDGET split over the two partitions`)
  for (const stream of [signalsStream(layout), controlStream(layout)]) t.equal((await jsm.streams.info(stream)).config.max_bytes, MB, `${stream}: NATS_STREAM_MAX_BYTES`)

  // Eight sessions in turn (both partitions), until each has been refused once.
  const acknowledged: [string, number][] = []
  const refused = new Map<string, number>()
  let slowestRefusalMs = 0
  for (let seq = 0; refused.size < 8 && seq < 40; seq++) {
    for (let s = 0; s < 8; s++) {
      const sk = `s${s}`
      if (refused.has(sk)) continue
      const started = Date.now()
      const answer = await postChunk(node.url, { pk: project.publicKey, meta: meta({ sk, seq }), body: chunkOf(sk, seq) })
      if (answer.status === 200) acknowledged.push([sk, seq])
      else {
        t.ok(isRefusal(answer), `${sk}/${seq}: refused 429 overloaded with Retry-After (${answer.status} ${answer.text})`)
        slowestRefusalMs = Math.max(slowestRefusalMs, Date.now() - started)
        refused.set(sk, seq)
      }
    }
  }
  t.equal(refused.size, 8, 'every session was refused once its partition was full')
  t.ok(acknowledged.length >= 10 && acknowledged.length <= 22, `${acknowledged.length} chunks of 100 KB acknowledged within the 2 MB budget`)
  // NATS_DEADLINE_MS is 10 s: a full stream is not retried until the deadline.
  t.ok(slowestRefusalMs < 3_000, `refused at once (slowest ${slowestRefusalMs} ms)`)
  const resent = await postChunk(node.url, { pk: project.publicKey, meta: meta({ sk: 's0', seq: 0 }), body: chunkOf('s0', 0) })
  t.same([resent.status, resent.json], [200, { ok: true }], 'an acknowledged chunk sent again is acknowledged again')

  let signalsRefusal: Answer | undefined
  for (let n = 0; !signalsRefusal && n < 20; n++) {
    const answer = await postSignals(node.url, project.publicKey, signalsOf(n))
    if (answer.status !== 200) signalsRefusal = answer
  }
  t.ok(signalsRefusal && isRefusal(signalsRefusal), `/signals on a full stream: 429 overloaded with Retry-After (${signalsRefusal?.status} ${signalsRefusal?.text})`)

  const readAll = async (chunks: [string, number][]) => {
    let unreadable = 0
    for (const [sk, seq] of chunks) {
      const raw = await callRaw(node.url, '/cli/sessions.chunk', owner.apiKey, { projectId: project.id, sessionKey: sk, seq })
      if (raw.status !== 200 || !raw.bytes.equals(chunkOf(sk, seq))) unreadable++
    }
    return unreadable
  }
  t.equal(await readAll(acknowledged), 0, `while full, all ${acknowledged.length} acknowledged chunks read back byte-identical`)
  t.equal((await call(node.url, '/cli/projects.list', { token: owner.apiKey })).status, 200, 'the node serves reads')
  const scrape = parseProm(await (await fetch(`${node.url}/metrics`)).text())
  for (const stream of [...recordings, signalsStream(layout)]) {
    t.equal(scrape.value('svc_log_stream_max_bytes', { stream }), MB, `/metrics: ${stream}'s max_bytes`)
    t.ok((scrape.value('svc_log_stream_bytes', { stream }) ?? 0) > 0.8 * MB, `/metrics: ${stream} holds ${scrape.value('svc_log_stream_bytes', { stream })} bytes, near it`)
  }
  if (tmpfs) {
    const disk = statfsSync(tmpfs)
    const used = (disk.blocks - disk.bfree) * disk.bsize
    t.ok(used < TMPFS_BYTES / 2, `the NATS store's tmpfs holds ${(used / MB).toFixed(1)} of ${TMPFS_BYTES / MB} MiB: the limits, not the disk, refused`)
  }

  // The operator raises the limits (what npm run admin -- log-streams does); the node is not restarted.
  for (const stream of [...recordings, signalsStream(layout)]) {
    const { config } = await jsm.streams.info(stream)
    await jsm.streams.update(stream, { ...config, max_bytes: 8 * MB })
  }
  for (const [sk, seq] of refused) {
    const answer = await postChunk(node.url, { pk: project.publicKey, meta: meta({ sk, seq }), body: chunkOf(sk, seq) })
    t.same([answer.status, answer.json], [200, { ok: true }], `${sk}/${seq}, refused before, is acknowledged once there is room`)
    acknowledged.push([sk, seq])
  }
  t.equal((await postSignals(node.url, project.publicKey, signalsOf(99))).status, 200, '/signals takes batches again')
  t.equal(await readAll(acknowledged), 0, `all ${acknowledged.length} acknowledged chunks read back, old and new`)
  t.equal(node.output().split('\n').filter((line) => line.includes('"msg":"child exited')).length, 0, 'no process of the node restarted')
  t.match(node.output(), /"msg":"the log has no room: ingest answered 429 overloaded until it has"/, 'the node logged the full stream')

  // What a node started now finds: the operator's limits, which it leaves as they are (and logs), as the node user may not change them.
  const nodeLayout = { ...layout, replicas: 1, recordingBytes: 2 * MB, streamBytes: MB }
  const reopened = await openJournal(nats.settings('node'), nodeLayout, 10_000)
  t.teardown(() => reopened.close())
  t.same(
    reopened.limitDrift?.map((d) => [d.stream, d.has, d.wants]).sort(),
    [...recordings, signalsStream(layout)].map((stream) => [stream, 8 * MB, MB]).sort(),
    'the streams the operator raised are reported, with what the configuration asks',
  )
  // Limits no server can set aside (max_file_store is 100GB in deploy/nats/server.conf) stop the creation of the
  // streams at once, saying why: what npm run admin -- log-streams (as the operator, who creates them) answers.
  const started = Date.now()
  const refusal = await openJournal(nats.settings('operator'), { ...nodeLayout, namespace: 'big', streamBytes: 200 * 1024 * MB }, 60_000).then(
    (journal) => journal.close(),
    (error: unknown) => error,
  )
  t.ok(refusal instanceof StreamsDoNotFit, `refused: ${String(refusal)}`)
  t.match(String(refusal), /must fit in each server's max_file_store/, 'saying which settings to change')
  t.ok(Date.now() - started < 10_000, `refused in ${Date.now() - started} ms, not after the join timeout`)
})
