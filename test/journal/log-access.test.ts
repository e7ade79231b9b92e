/**
 * The log is a trust boundary (issue 30): real nats-server processes run from
 * the shipped configuration (deploy/nats/) let no client in without a user
 * and TLS; the `node` user can do what a node does (make the streams, append,
 * read in order, read one entry) and not delete, purge or reconfigure the
 * log, nor read it outside JetStream; the `operator` user can. A node refuses
 * a server that lets anyone in unless NATS_TRUSTED_NETWORK=1, and takes a
 * client certificate (NATS_TLS_CERT_FILE) as a credential.
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readFileSync, rmSync } from 'node:fs'
import { createConnection } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { AckPolicy, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import { connect, errors, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node'
import t, { type Test } from 'tap'
import { loadConfig } from '../../src/config.js'
import { natsConnectOptions, openJournal, type Journal } from '../../src/journal/connect.js'
import { WATCH_SUBJECT } from '../../src/live/relay.js'
import { NatsLog } from '../../src/journal/nats-log.js'
import { NATS_DEPLOY_DIR, natsServerBinary } from '../../src/journal/nats-servers.js'
import { chunkSubject, controlStream, controlSubject, recordingStream, signalsStream, DEFAULT_LAYOUT, streamNames } from '../../src/journal/streams.js'
import { freePort, tempDataDir } from '../helpers/cluster.js'
import { until } from '../helpers/front-kill.js'
import { natsCluster } from '../helpers/nats.js'

t.setTimeout(120_000)
const layout = { ...DEFAULT_LAYOUT, partitions: 2, replicas: 1 }

/** Connects and closes; the error a refused connection ends with, or undefined when let in. */
async function refusal(options: ConnectionOptions): Promise<unknown> {
  try {
    // 2 s: a server that refuses a TLS handshake (no client certificate) leaves the client waiting for its timeout.
    const nc = await connect({ maxReconnectAttempts: 0, timeout: 2_000, ...options })
    await nc.close()
    return undefined
  } catch (error) {
    return error
  }
}

/** A client that sends CONNECT (with a made-up password) without starting TLS: the server's INFO and its answer. */
function plainConnect(port: number): Promise<{ info: { tls_required?: boolean }; answer: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    let text = ''
    let closedByServer = false
    socket.on('end', () => (closedByServer = true))
    socket.on('data', (data) => {
      text += data.toString()
      if (text.includes('\r\n') && !text.includes('CONNECT-SENT')) {
        socket.write('CONNECT {"verbose":true,"user":"node","pass":"made-up"}\r\nPING\r\n')
        text += 'CONNECT-SENT'
      }
    })
    socket.on('error', reject)
    socket.on('close', () => {
      const [infoLine, answer] = text.split('CONNECT-SENT')
      resolve({ info: JSON.parse(infoLine.slice('INFO '.length, infoLine.indexOf('\r\n'))) as { tls_required?: boolean }, answer: answer ?? '', closedByServer })
    })
    setTimeout(() => socket.destroy(), 3_000).unref()
  })
}

/** A denied JetStream call; fails the test when the call goes through. */
async function denied(t: Test, what: string, call: () => Promise<unknown>): Promise<void> {
  const error = await call().then(
    () => undefined,
    (error: unknown) => error,
  )
  t.ok(error, `the node user cannot ${what}`)
  t.match(String(error), /Permissions Violation for Publish to "\$JS\.API\./, `${what}: refused by the server, not failed otherwise`)
}

t.test('the shipped configuration lets in no client without its user, its password and TLS', async (t) => {
  const nats = await natsCluster(t, 1)
  const { natsAuth } = nats.settings()
  const ca = { caFile: natsAuth.tlsCaFile }
  t.equal(await refusal(natsConnectOptions(nats.settings())), undefined, 'the node user with its password and the CA is let in')

  const anonymous = await refusal({ servers: nats.url, tls: ca })
  t.ok(anonymous instanceof errors.AuthorizationError, `no credentials: ${String(anonymous)}`)
  const wrong = await refusal({ servers: nats.url, tls: ca, user: 'node', pass: 'not-the-password' })
  t.ok(wrong instanceof errors.AuthorizationError, `a wrong password: ${String(wrong)}`)
  const inClear = await plainConnect(nats.servers[0].clientPort)
  t.equal(inClear.info.tls_required, true, 'the server asks every client for TLS before it may say who it is')
  t.ok(inClear.closedByServer, 'and hangs up on a client that sends CONNECT in clear')
  t.notMatch(inClear.answer, /\+OK|PONG/, 'without taking it')
  const password = readFileSync(natsAuth.passwordFile, 'utf8').trim()
  const unknownCa = await refusal({ servers: nats.url, user: 'node', pass: password })
  t.ok(unknownCa, `a server certificate the client's CA did not sign is refused: ${String(unknownCa)}`)
})

/** Each shipped user's connection, as a client of that user makes it. */
interface Client {
  nc: NatsConnection
  jsm: JetStreamManager
  js: JetStreamClient
}

type User = 'node' | 'eraser' | 'operator'
const USERS: User[] = ['node', 'eraser', 'operator']

/**
 * Every JetStream call a client could make, each under the row of
 * docs/security.md's table that says who may make it: the table is what this
 * test expects. A call a user may not make must be refused by the server
 * itself (a permission violation), not fail otherwise. Destructive calls run
 * as the operator on a stream of its own.
 */
const TABLE: { call: string; row: string; run(client: Client, user: User, scratch: string): Promise<unknown> }[] = [
  { call: 'append to the log (rec.>)', row: 'append to the log (`rec.>`, `sig.>`, `ctl.>`)', run: ({ js }) => js.publish(chunkSubject(layout, 0, 'p', 's'), new TextEncoder().encode('entry'), { msgID: randomUUID() }) },
  { call: 'read a stream\'s state', row: 'read a stream\'s state, list the streams', run: ({ jsm }) => jsm.streams.info(controlStream(layout)) },
  { call: 'list the streams', row: 'read a stream\'s state, list the streams', run: ({ jsm }) => jsm.streams.names().next() },
  { call: 'read an entry by direct get', row: 'read an entry by direct get, or from the stream\'s leader', run: ({ jsm }) => jsm.direct.getMessage(controlStream(layout), { seq: 1 }) },
  { call: 'read an entry from the stream\'s leader', row: 'read an entry by direct get, or from the stream\'s leader', run: ({ jsm }) => jsm.streams.getMessage(controlStream(layout), { seq: 1 }) },
  {
    call: 'read in order (an ephemeral consumer, made and removed)',
    row: 'read in order (an ephemeral consumer, made and removed)',
    run: async ({ jsm }) => {
      const consumer = await jsm.consumers.add(controlStream(layout), { ack_policy: AckPolicy.None, inactive_threshold: 10_000_000_000 })
      await jsm.consumers.delete(controlStream(layout), consumer.name)
    },
  },
  { call: 'create a stream', row: 'create a stream (one on `_INBOX.>` included)', run: ({ jsm }, user) => jsm.streams.add({ name: `MINE_${user}`, subjects: [`mine.${user}.>`] }) },
  { call: 'create a stream on _INBOX.>, with no limit', row: 'create a stream (one on `_INBOX.>` included)', run: ({ jsm }, user) => jsm.streams.add({ name: `INBOX_${user}`, subjects: user === 'operator' ? ['_INBOX.operator.>'] : ['_INBOX.>'] }) },
  { call: 'change a stream', row: 'change or purge a stream', run: ({ jsm }, user, scratch) => jsm.streams.update(user === 'operator' ? scratch : controlStream(layout), { max_age: 1_000_000_000_000 }) },
  { call: 'purge a stream', row: 'change or purge a stream', run: ({ jsm }, user, scratch) => jsm.streams.purge(user === 'operator' ? scratch : signalsStream(layout)) },
  { call: 'remove a recording entry (an erasure\'s)', row: 'remove a recording or signals entry (an erasure\'s)', run: ({ jsm }, user) => jsm.streams.deleteMessage(recordingStream(layout, 0), USERS.indexOf(user) + 1, true) },
  { call: 'remove a control entry', row: 'remove a control entry', run: ({ jsm }, user) => jsm.streams.deleteMessage(controlStream(layout), USERS.indexOf(user) + 1, true) },
  {
    call: 'publish and hear a live watch',
    row: 'tell and hear live watches (`live.>`, plain NATS, sealed)',
    run: ({ nc }) =>
      new Promise((resolve, reject) => {
        const heard = nc.subscribe(WATCH_SUBJECT, { callback: (error, message) => (heard.unsubscribe(), error ? reject(error) : resolve(message)) })
        nc.publish(WATCH_SUBJECT, new TextEncoder().encode('watch'))
      }),
  },
  { call: 'delete a stream', row: 'delete a stream', run: ({ jsm }, user, scratch) => jsm.streams.delete(user === 'operator' ? scratch : recordingStream(layout, 1)) },
]

/** docs/security.md's table of what each shipped NATS user may do: by row, the users with "yes". */
function permissionTable(): Map<string, User[]> {
  const text = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8')
  const rows = new Map<string, User[]>()
  for (const line of text.split('\n')) {
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim())
    if (cells.length !== 4 || !['yes', 'no'].includes(cells[1])) continue
    rows.set(cells[0], USERS.filter((_, i) => cells[i + 1] === 'yes'))
  }
  return rows
}

t.test('every JetStream call, as each shipped user: node appends and reads, eraser removes recording entries, only the operator creates, changes, purges or deletes', async (t) => {
  const nats = await natsCluster(t, 1)
  const clients = {} as Record<User, Client>
  for (const user of USERS) {
    const nc = await connect(natsConnectOptions(nats.settings(user), `svc-test-${user}`))
    t.teardown(() => nc.close())
    clients[user] = { nc, jsm: await jetstreamManager(nc), js: jetstream(nc) }
  }
  // The operator makes the log's streams (npm run admin -- log-streams); a node's entries fill them.
  await (await openJournal(nats.settings('operator'), layout, 30_000)).close()
  for (let i = 0; i < 3; i++) {
    await clients.node.js.publish(controlSubject(layout), new TextEncoder().encode(`control ${i}`), { msgID: randomUUID() })
    await clients.node.js.publish(chunkSubject(layout, 0, 'p', 's'), new TextEncoder().encode(`chunk ${i}`), { msgID: randomUUID() })
  }
  const scratch = 'SCRATCH'
  await clients.operator.jsm.streams.add({ name: scratch, subjects: ['scratch.>'] })
  const documented = permissionTable()
  for (const { call, row, run } of TABLE) {
    const allowed = documented.get(row)
    t.ok(allowed, `docs/security.md has a row "${row}"`)
    for (const user of USERS) {
      const outcome = await run(clients[user], user, scratch).then(
        () => 'allowed',
        (error: unknown) => (/Permissions Violation/.test(String(error)) ? 'refused' : `failed otherwise: ${String(error)}`),
      )
      t.equal(outcome, allowed?.includes(user) ? 'allowed' : 'refused', `${user}: ${call}`)
    }
  }
  // Listening on the log's subjects outside JetStream: refused to the node and the eraser.
  for (const user of USERS) {
    const tap = await new Promise<unknown>((resolve) => {
      clients[user].nc.subscribe('ctl.>', { callback: (error) => resolve(error ?? 'a message arrived') })
      // A bound, not a pause: the server's refusal resolves this first; 1 s passes only if it never comes.
      void clients[user].nc.flush().then(() => setTimeout(() => resolve(undefined), 1_000))
    })
    if (user === 'operator') t.equal(tap, undefined, 'the operator may listen')
    else t.ok(tap instanceof errors.PermissionViolationError, `${user}: cannot read control entries off the wire`)
  }
  const info = await clients.operator.jsm.streams.info(recordingStream(layout, 0))
  t.equal(info.state.messages, 3, 'the recording stream: three chunks and two appends, less the eraser\'s removal and the operator\'s')
  t.equal((await clients.operator.jsm.streams.info(controlStream(layout))).state.messages, 2, 'the control stream lost only the operator\'s removal')
})

t.test('a node refuses a NATS server that lets anyone in, unless NATS_TRUSTED_NETWORK=1 says the network is trusted', async (t) => {
  const nats = await natsCluster(t, 1, { secure: false })
  const env = nats.env()
  await t.rejects(openJournal(loadConfig(env), layout, 30_000), /refusing to start: a NATS server of NATS_URL lets in clients without credentials/)
  const trusted = await openJournal(loadConfig({ ...env, NATS_TRUSTED_NETWORK: '1' }), layout, 30_000)
  t.ok(trusted.nc.getServer(), 'with NATS_TRUSTED_NETWORK=1 it opens the log')
  await trusted.close()
})

t.test('a client certificate is a credential: a server that asks for one takes the node with it, and the node starts', async (t) => {
  const dir = tempDataDir('svc-nats-mtls-')
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  execFileSync('sh', [join(NATS_DEPLOY_DIR, 'make-secrets.sh'), dir, '127.0.0.1,localhost'])
  const tls = join(dir, '127.0.0.1', 'tls')
  const port = await freePort()
  // Flags, not the shipped files: those admit by password; this server admits by certificate alone.
  const server = spawn(natsServerBinary(), ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'store'), '--tlsverify', '--tlscert', join(tls, 'server-cert.pem'), '--tlskey', join(tls, 'server-key.pem'), '--tlscacert', join(tls, 'ca.pem')], { stdio: 'ignore' })
  t.teardown(() => void server.kill('SIGKILL'))
  const env = { NATS_URL: `tls://127.0.0.1:${port}`, NATS_TLS_CA_FILE: join(tls, 'ca.pem'), NATS_LOG_SECRET_FILE: join(dir, 'nats.env') }
  const withCertificate = loadConfig({ ...env, NATS_TLS_CERT_FILE: join(tls, 'server-cert.pem'), NATS_TLS_KEY_FILE: join(tls, 'server-key.pem') })
  let journal: Journal | undefined
  for (let tries = 0; !journal && tries < 100; tries++) journal = await openJournal(withCertificate, layout, 30_000).catch(() => sleep(100).then(() => undefined))
  t.ok(journal, 'with its certificate the node opens the log, without NATS_TRUSTED_NETWORK: the server lets in no one without one')
  await journal?.close()
  t.ok(await refusal(natsConnectOptions(loadConfig(env))), 'without a certificate the server refuses the client')
})

t.test('credentials are named by file, one kind at a time, never in NATS_URL', async (t) => {
  const cluster = { NATS_URL: 'tls://n1.internal:4222', NATS_LOG_SECRET_FILE: '/etc/svc/log.secret' }
  const inUrl = t.throws(() => loadConfig({ ...cluster, NATS_URL: 'nats://node:hunter2@n1.internal:4222' }), /without credentials/)
  t.notMatch(String(inUrl), /hunter2/, 'and the refusal does not repeat the password')
  t.throws(() => loadConfig({ ...cluster, NATS_USER: 'node' }), /NATS_USER and NATS_PASSWORD_FILE go together/)
  t.throws(() => loadConfig({ ...cluster, NATS_USER: 'node', NATS_PASSWORD_FILE: '/p', NATS_TOKEN_FILE: '/t' }), /one NATS credential/)
  t.throws(() => loadConfig({ ...cluster, NATS_TLS_CERT_FILE: '/c' }), /NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together/)
  t.throws(() => loadConfig({ ...cluster, NATS_TRUSTED_NETWORK: 'yes' }), /NATS_TRUSTED_NETWORK/)
  const options = natsConnectOptions(loadConfig({ ...cluster, NATS_TLS_CA_FILE: '/ca.pem', NATS_TLS_CERT_FILE: '/c.pem', NATS_TLS_KEY_FILE: '/k.pem' }))
  t.same(options.tls, { caFile: '/ca.pem', certFile: '/c.pem', keyFile: '/k.pem' }, 'the CA and the client certificate reach the connection')
})

t.test('npm run admin -- log-streams: the operator creates the streams and sets each to the configuration\'s max_bytes, which the node user may not', async (t) => {
  const nats = await natsCluster(t, 1)
  // The streams as made for nodes without NATS_STREAM_MAX_BYTES: no limit.
  await (await openJournal(nats.settings('operator'), layout, 30_000)).close()
  const dataDir = tempDataDir('svc-admin-')
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const admin = (user: 'node' | 'operator') =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const env = { ...process.env, ...nats.env(user), NATS_PARTITIONS: '2', NATS_REPLICAS: '1', NATS_STREAM_MAX_BYTES: '2MB', DATA_DIR: dataDir }
      const child = spawn(process.execPath, [new URL('../../dist/admin.js', import.meta.url).pathname, 'log-streams'], { env })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      child.on('exit', (code) => resolve({ code, stdout, stderr }))
    })
  const refused = await admin('node')
  t.equal(refused.code, 1, 'the node user is refused')
  t.match(refused.stderr, /admin: .*(permission|authorization)/i, refused.stderr)
  const done = await admin('operator')
  t.equal(done.code, 0, done.stderr)
  const { changed } = JSON.parse(done.stdout) as { changed: { stream: string; maxBytes: number; was: number }[] }
  t.same(changed.map((c) => c.stream).sort(), streamNames(layout).sort(), 'every stream')
  t.ok(changed.every((c) => c.maxBytes === 2 * 1024 * 1024 && c.was === -1), 'from no limit to 2 MiB')
  const operator = await connect(natsConnectOptions(nats.settings('operator'), 'operator'))
  t.teardown(() => operator.close())
  const manager = await jetstreamManager(operator)
  t.equal((await manager.streams.info(controlStream(layout))).config.max_bytes, 2 * 1024 * 1024, 'as the servers hold it')
  t.same(JSON.parse((await admin('operator')).stdout), { changed: [] }, 'run again, it changes nothing')
})

t.test('a node started before the operator made the log\'s streams waits for them, then opens the log', async (t) => {
  const nats = await natsCluster(t, 1)
  let opened = false
  const node = openJournal(nats.settings('node'), layout, 60_000).then((journal) => ((opened = true), journal))
  // The node has tried to create them and been refused by now; it goes on waiting.
  t.ok(await until(() => /Publish Violation - User "node", Subject "\$JS\.API\.STREAM\.CREATE/.test(nats.output()), 10_000), 'the node tried to create them and was refused')
  t.notOk(opened, 'not open while the streams are missing')
  await (await openJournal(nats.settings('operator'), layout, 30_000)).close()
  const journal = await node
  t.teardown(() => journal.close())
  t.same(journal.limitDrift, [], 'open on the operator\'s streams')
})
