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
import { readFileSync, rmSync } from 'node:fs'
import { createConnection } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect, errors, type ConnectionOptions } from '@nats-io/transport-node'
import t, { type Test } from 'tap'
import { loadConfig } from '../../src/config.js'
import { natsConnectOptions, openJournal, type Journal } from '../../src/journal/connect.js'
import { NatsLog } from '../../src/journal/nats-log.js'
import { NATS_DEPLOY_DIR, natsServerBinary } from '../../src/journal/nats-servers.js'
import { chunkSubject, controlStream, controlSubject, recordingStream, DEFAULT_LAYOUT, streamNames } from '../../src/journal/streams.js'
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

t.test('the node user appends to the log, reads it and removes single recording entries (erasure); it cannot delete, purge, reconfigure or tap it, nor remove a control entry; the operator can', async (t) => {
  const nats = await natsCluster(t, 1)
  const journal = await openJournal(nats.settings('node'), layout, 30_000)
  t.teardown(() => journal.close())
  const log = new NatsLog(journal)
  const data = new TextEncoder().encode('entry')
  const appended = await log.append(controlSubject(layout), data, { id: 'e1', timeoutMs: 5_000 })
  t.equal((await log.heads([controlStream(layout)])).get(controlStream(layout)), appended.seq, 'the node reads the stream heads')
  t.same(await log.get(controlStream(layout), appended.seq), data, 'reads one entry by direct get')
  const reader = log.read(controlStream(layout), 1, 10)
  for await (const batch of reader) {
    t.same(batch[0].data, data, 'and reads the stream in order, through an ordered consumer')
    break
  }
  reader.stop()
  const recording = await log.append(chunkSubject(layout, 0, 'p', 's'), data, { id: 'r1', timeoutMs: 5_000 })
  t.equal(await log.remove(recordingStream(layout, 0), recording.seq), true, 'removes (and erases) a recording entry, as an erasure does')
  t.equal(await log.get(recordingStream(layout, 0), recording.seq), undefined, 'which is gone')
  t.equal(await log.remove(recordingStream(layout, 0), recording.seq), false, 'removing it again answers false (another node was first)')
  t.notMatch(nats.output(), /Violation - User "node"/, 'nothing a node does is denied')

  const jsm = journal.jsm
  await denied(t, 'delete a stream', () => jsm.streams.delete(controlStream(layout)))
  await denied(t, 'purge a stream', () => jsm.streams.purge(controlStream(layout)))
  await denied(t, 'delete an entry', () => jsm.streams.deleteMessage(controlStream(layout), appended.seq))
  await denied(t, 'change a stream', () => jsm.streams.update(controlStream(layout), { max_age: 1_000_000_000 }))
  const tap = await new Promise<unknown>((resolve) => {
    journal.nc.subscribe('ctl.>', { callback: (error) => resolve(error ?? 'a message arrived') })
    // A bound, not a pause: the server's refusal resolves this first; 1 s passes only if it never comes.
    void journal.nc.flush().then(() => setTimeout(() => resolve(undefined), 1_000))
  })
  t.ok(tap instanceof errors.PermissionViolationError, `the node user cannot read control entries off the wire: ${String(tap)}`)
  // The server's log reaches us through a pipe, a moment after the refusal itself.
  const logged = () => nats.output().match(/Publish Violation - User "node"/g)?.length === 4 &&
    /Subscription Violation - User "node", Subject "ctl\.>"/.test(nats.output())
  await until(logged, 5_000)
  t.equal(nats.output().match(/Publish Violation - User "node"/g)?.length, 4, 'the server logs each refused call')
  t.match(nats.output(), /Subscription Violation - User "node", Subject "ctl\.>"/, 'and the refused subscription')

  const operator = await connect(natsConnectOptions(nats.settings('operator'), 'operator'))
  t.teardown(() => operator.close())
  const manager = await jetstreamManager(operator)
  const names: string[] = []
  for await (const name of manager.streams.names()) names.push(name)
  t.same(names.sort(), streamNames(layout).sort(), 'the operator lists every stream')
  t.equal((await manager.streams.info(controlStream(layout))).state.messages, 1, 'the control stream holds its one entry, nothing removed')
  t.ok(await manager.streams.delete(controlStream(layout)), 'and the operator may delete a stream')
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

t.test('npm run admin -- stream-limits: the operator sets every stream to the configuration\'s max_bytes, which the node user may not', async (t) => {
  const nats = await natsCluster(t, 1)
  // The streams as a node without NATS_STREAM_MAX_BYTES made them: no limit.
  await (await openJournal(nats.settings('node'), layout, 30_000)).close()
  const dataDir = tempDataDir('svc-admin-')
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const admin = (user: 'node' | 'operator') =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const env = { ...process.env, ...nats.env(user), NATS_PARTITIONS: '2', NATS_REPLICAS: '1', NATS_STREAM_MAX_BYTES: '2MB', DATA_DIR: dataDir }
      const child = spawn(process.execPath, [new URL('../../dist/admin.js', import.meta.url).pathname, 'stream-limits'], { env })
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
