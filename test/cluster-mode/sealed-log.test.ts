/**
 * The log is sealed with the secret every node holds (src/journal/seal.ts),
 * against real nats-server processes run from the shipped configuration: an
 * operator who may read the streams reads no recording, account or email in
 * clear, nor do the NATS servers' files; and a client holding a node's NATS
 * credentials but not the log secret appends an API key of its own making
 * that no node applies, which /metrics counts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import t from 'tap'
import { mintSecret } from '../../src/accounts/secrets.js'
import { natsConnectOptions } from '../../src/journal/connect.js'
import { encodeControl } from '../../src/journal/entries.js'
import { NatsLog } from '../../src/journal/nats-log.js'
import { publishUntil } from '../../src/journal/publish.js'
import { controlStream, controlSubject, DEFAULT_LAYOUT, recordingStream } from '../../src/journal/streams.js'
import { call } from '../helpers/api.js'
import { createProject, nodeOn, ownerWithKey } from '../helpers/cluster-mode.js'
import { natsCluster } from '../helpers/nats.js'
import { until } from '../helpers/front-kill.js'
import { postChunk } from '../helpers/read.js'

t.setTimeout(180_000)

/** Every file under `dir`, read whole (the NATS servers' stores are small here). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

t.test('the streams and the servers\' files hold no recording, account or email in clear; a forged entry changes nothing', async (t) => {
  const nats = await natsCluster(t, 1)
  const a = await nodeOn(t, nats, { env: { NATS_REPLICAS: '1' } })
  const owner = await ownerWithKey(a.url)
  const project = await createProject(a.url, owner.apiKey, 'Shop')
  const marker = `MARKER-${Date.now()}-in-a-recording`
  t.equal(await postChunk(a.url, project.publicKey, { sk: 's1', seq: 0 }, new TextEncoder().encode(JSON.stringify([{ type: 3, timestamp: 1, data: { text: marker } }]))), 200)
  const back = await call(a.url, '/cli/sessions.events', { token: owner.apiKey, body: { projectId: project.id, sessionKey: 's1' } })
  t.match(JSON.stringify(back.body), marker, 'the node reads the recording back')

  // An operator's view of the log: every entry of every stream, as its bytes.
  const nc = await connect(natsConnectOptions(nats.settings('operator'), 'svc-test-operator'))
  t.teardown(() => nc.close())
  const jsm = await jetstreamManager(nc)
  const entries: Buffer[] = []
  const envelopes: string[] = []
  for (const stream of [controlStream(DEFAULT_LAYOUT), recordingStream(DEFAULT_LAYOUT, 0), recordingStream(DEFAULT_LAYOUT, 1)]) {
    const last = (await jsm.streams.info(stream)).state.last_seq
    for (let seq = 1; seq <= last; seq++) {
      const message = (await jsm.direct.getMessage(stream, { seq }))!
      entries.push(Buffer.from(message.data))
      envelopes.push(`${message.subject} ${message.header.get('Nats-Msg-Id')}`)
    }
  }
  t.ok(entries.length >= 4, `${entries.length} entries read by the operator`)
  const operations = ['ensureOrgAndUser', 'createFirstOwner', 'createProject', 'putApiKey']
  for (const secret of [marker, 'owner@acme.test', ...operations]) {
    t.notOk(entries.some((bytes) => bytes.includes(secret)), `no entry shows ${secret}`)
  }
  // The envelope: one subject for every control entry, and message ids of 128 random bits (or a UUID's 122).
  for (const envelope of envelopes) t.match(envelope, /^(ctl\.entry ctl:[A-Za-z0-9_-]{22}|rec\.\d\.group grp:[0-9a-f-]{36})$/, 'an envelope that names nothing')
  const stored = filesUnder(nats.servers[0].storeDir)
  t.ok(stored.length > 0)
  for (const secret of [marker, ...operations]) {
    t.notOk(stored.some((file) => readFileSync(file).includes(secret)), `none of the ${stored.length} files of the NATS server's store holds ${secret}`)
  }

  // A client with a node's NATS credentials but not the log secret: the right shape, in clear, for a key it knows.
  const forged = mintSecret('sk')
  const { orgId, userId } = (await call(a.url, '/cli/whoami', { token: owner.apiKey })).body
  const key = { id: forged.id, orgId, userId, label: 'forged', digestHex: forged.digestHex, lastFour: forged.token.slice(-4), createdAt: Date.now() }
  const thief = await connect(natsConnectOptions(nats.settings('node'), 'svc-test-thief'))
  const log = new NatsLog({ nc: thief, js: jetstream(thief), jsm: await jetstreamManager(thief), close: () => thief.close() })
  t.teardown(() => log.close())
  await publishUntil(log, controlSubject(DEFAULT_LAYOUT), encodeControl({ id: 'ctl:thief:1', op: 'putApiKey', args: [key], node: 'thief', ticket: 1 }), { id: 'forged', deadline: Date.now() + 10_000 })

  // A change after it, through the node: once applied, the forged entry before it has been read too.
  await createProject(a.url, owner.apiKey, 'After')
  const refused = await call(a.url, '/cli/whoami', { token: forged.token })
  t.same([refused.status, refused.body.code], [401, 'unauthorized'], 'the forged key does not authenticate')
  const metrics = await (await fetch(`${a.url}/metrics`)).text()
  t.match(metrics, /svc_journal_entries_refused_total\{reason="unauthenticated"\} [1-9]/, '/metrics counts the refused entry')
  const refusal = /"msg":"log entry refused; skipped","reason":"unauthenticated"/
  await until(() => refusal.test(a.output()), 5_000) // the worker's log reaches the test through two pipes
  t.match(a.output(), refusal, 'the node logs the refused entry')
  t.equal((await call(a.url, '/cli/whoami', { token: owner.apiKey })).status, 200, 'the node serves on')
})
