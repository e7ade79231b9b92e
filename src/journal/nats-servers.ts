/**
 * Starts real nats-server processes (Debian's package, from PATH or
 * /usr/sbin) forming one JetStream cluster on loopback: what the tests and
 * `npm run cluster:local` run the cluster mode against. They run the shipped
 * configuration (deploy/nats/: users, TLS on clients and routes) with the
 * certificates and passwords deploy/nats/make-secrets.sh makes on first use;
 * only ports, addresses and store directories differ. Each server gets its
 * own store directory; a killed server restarts on the same one, as a
 * rebooted machine would.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createConnection } from 'node:net'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { loadConfig, type NatsAuth } from '../config.js'
import { openJournal, type NatsSettings } from './connect.js'
import { layoutOf } from './node.js'

/** deploy/nats/ of the repository: the nearest above this module, which runs from src/journal/ or bundled in dist/. */
export const NATS_DEPLOY_DIR = nearestDeployDir(dirname(fileURLToPath(import.meta.url)))

function nearestDeployDir(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'deploy', 'nats', 'server.conf'))) return join(dir, 'deploy', 'nats')
    if (dirname(dir) === dir) throw new Error(`deploy/nats/ not found above ${from}`)
  }
}

export interface NatsServer {
  name: string
  /** This server alone, as a NATS_URL. */
  url: string
  clientPort: number
  clusterPort: number
  storeDir: string
  /** The running process, undefined while killed. */
  child?: ChildProcess
  /** The last of what this server wrote (the cluster's `output()` interleaves all of them). */
  said?: string
}

/** The users of deploy/nats/accounts.conf. */
export type NatsUser = 'node' | 'operator' | 'eraser'

export interface NatsCluster {
  servers: NatsServer[]
  /** `nats://127.0.0.1:<port>` (`tls://` when secure) of every server, comma-joined: the NATS_URL a node takes. */
  url: string
  /**
   * What a service node is given to join the cluster's log: NATS_URL, the secret every node shares
   * (NATS_LOG_SECRET_FILE) and, when secure, its user, password file and CA.
   */
  env(user?: NatsUser): Record<string, string>
  /** The same for a connection made in this process. */
  settings(user?: NatsUser): NatsSettings
  /**
   * Creates, as the operator, the log's streams of a node started with `env` (its NATS_PARTITIONS,
   * NATS_REPLICAS, limits): the shipped `node` user may not (`npm run admin -- log-streams` on real machines).
   */
  makeStreams(env?: Record<string, string>): Promise<void>
  /** The files make-secrets.sh wrote (CA, passwords), when secure. */
  secretsDir?: string
  /** SIGKILL one server and wait for it to be gone. */
  kill(index: number): Promise<void>
  /** Starts a killed server again on its store directory and ports. */
  restart(index: number): Promise<void>
  /** SIGTERM every server and wait. */
  stop(): Promise<void>
  output(): string
}

export interface NatsClusterOptions {
  /** Servers in the cluster (3: one can fail and a replicated stream keeps its quorum). */
  size?: number
  /** Parent of the servers' store directories. */
  dir: string
  /** Picks a free loopback port. */
  freePort: () => Promise<number>
  /** How long a server may take to accept connections, ms. */
  startTimeoutMs?: number
  /**
   * Run the shipped configuration, with users and TLS (the default). false: `nats-server -js` with no
   * configuration at all, which lets anyone in: what a node must refuse without NATS_TRUSTED_NETWORK=1.
   */
  secure?: boolean
  /** Where the CA, certificate and passwords are made (and kept); `dir`/nats-secrets unless told. Several clusters may share one. */
  secretsDir?: string
}

const NO_AUTH: NatsAuth = { user: '', passwordFile: '', tokenFile: '', nkeySeedFile: '', credentialsFile: '', tlsCaFile: '', tlsCertFile: '', tlsKeyFile: '', eraserPasswordFile: '', trustedNetwork: false }

/**
 * The CA, the loopback certificate and the users' passwords, made once in
 * `dir` by the shipped script (kept for the next start) and read back.
 */
function localSecrets(dir: string): { dir: string; tlsDir: string; env: Record<string, string> } {
  // localhost too: the client may name a loopback server so (nats.js does for 127.0.0.1), and checks that name.
  execFileSync('sh', [join(NATS_DEPLOY_DIR, 'make-secrets.sh'), dir, '127.0.0.1,localhost'], { stdio: ['ignore', 'ignore', 'pipe'] })
  const env: Record<string, string> = {}
  for (const line of readFileSync(join(dir, 'nats.env'), 'utf8').split('\n')) {
    const at = line.indexOf('=')
    if (at > 0) env[line.slice(0, at)] = line.slice(at + 1)
  }
  return { dir, tlsDir: join(dir, '127.0.0.1'), env }
}

export function natsServerBinary(): string {
  for (const dir of (process.env.PATH ?? '').split(':').concat('/usr/sbin', '/usr/local/sbin')) {
    const candidate = join(dir, 'nats-server')
    if (dir && existsSync(candidate)) return candidate
  }
  throw new Error('nats-server not found on PATH or in /usr/sbin: apt-get install nats-server')
}

export async function startNatsCluster(options: NatsClusterOptions): Promise<NatsCluster> {
  const size = options.size ?? 3
  const secure = options.secure ?? true
  const binary = natsServerBinary()
  const secrets = secure ? localSecrets(options.secretsDir ?? join(options.dir, 'nats-secrets')) : undefined
  mkdirSync(options.dir, { recursive: true })
  // make-secrets.sh's, as on real machines; kept across starts: the log's entries are sealed with it.
  const logSecretFile = secrets ? join(secrets.dir, 'log.secret') : join(options.dir, 'log.secret')
  if (!existsSync(logSecretFile)) writeFileSync(logSecretFile, randomBytes(32).toString('hex'), { mode: 0o600 })
  const servers: NatsServer[] = []
  // Distinct: a port picked twice would leave one server unable to listen while the other answers for it.
  const taken = new Set<number>()
  const port = async (): Promise<number> => {
    for (;;) {
      const picked = await options.freePort()
      if (!taken.has(picked)) return taken.add(picked), picked
    }
  }
  for (let i = 0; i < size; i++) {
    const storeDir = join(options.dir, `nats-${i + 1}`)
    mkdirSync(storeDir, { recursive: true })
    const clientPort = await port()
    servers.push({ name: `n${i + 1}`, url: `${secure ? 'tls' : 'nats'}://127.0.0.1:${clientPort}`, clientPort, clusterPort: await port(), storeDir })
  }
  let output = ''
  const launch = (server: NatsServer) => {
    const routes = servers.map((s) => `nats-route://127.0.0.1:${s.clusterPort}`).join(',')
    const listen = ['-a', '127.0.0.1', '-p', String(server.clientPort)]
    const cluster = ['--cluster', `nats://127.0.0.1:${server.clusterPort}`, '--routes', routes]
    // One server runs server.conf alone: a cluster block would have it wait for peers that never come.
    const args = secure
      ? ['-c', join(NATS_DEPLOY_DIR, size > 1 ? 'nats.conf' : 'server.conf'), ...listen, ...(size > 1 ? cluster : [])]
      : [...listen, '-n', server.name, '-js', '-sd', server.storeDir, ...(size > 1 ? ['--cluster_name', 'svc', ...cluster] : [])]
    const child = spawn(binary, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      // The configuration's relative paths (tls/) are the working directory's; its variables come from the environment.
      cwd: secrets?.tlsDir,
      env: secrets ? { ...process.env, ...secrets.env, NATS_SERVER_NAME: server.name, NATS_STORE_DIR: server.storeDir } : process.env,
    })
    const collect = (data: Buffer) => {
      output += `[${server.name}] ${data.toString()}`
      if (output.length > 1_000_000) output = output.slice(-500_000)
      server.said = ((server.said ?? '') + data.toString()).slice(-4_000)
    }
    child.stdout.on('data', collect)
    child.stderr.on('data', collect)
    server.child = child
  }
  const ready = (server: NatsServer) => waitForServer(server, options.startTimeoutMs ?? 20_000)
  const killed = async (server: NatsServer, signal: NodeJS.Signals) => {
    const child = server.child
    server.child = undefined
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const gone = new Promise((resolve) => child.once('exit', resolve))
    child.kill(signal)
    await gone
  }
  servers.forEach(launch)
  // A start that fails leaves no server behind: the caller has no cluster to stop.
  await Promise.all(servers.map(ready)).catch(async (error) => {
    await Promise.all(servers.map((s) => killed(s, 'SIGKILL')))
    throw error
  })
  const url = servers.map((s) => s.url).join(',')
  const settings = (user: NatsUser = 'node'): NatsSettings => ({
    natsUrl: url,
    natsAuth: secrets
      ? { ...NO_AUTH, user, passwordFile: join(secrets.dir, `${user}.password`), tlsCaFile: join(secrets.dir, 'ca.pem'), eraserPasswordFile: join(secrets.dir, 'eraser.password') }
      : NO_AUTH,
  })
  const env = (user: NatsUser = 'node'): Record<string, string> => {
    const { natsAuth } = settings(user)
    if (!secrets) return { NATS_URL: url, NATS_LOG_SECRET_FILE: logSecretFile }
    return {
      NATS_URL: url,
      NATS_LOG_SECRET_FILE: logSecretFile,
      NATS_USER: natsAuth.user,
      NATS_PASSWORD_FILE: natsAuth.passwordFile,
      NATS_TLS_CA_FILE: natsAuth.tlsCaFile,
      NATS_ERASER_PASSWORD_FILE: natsAuth.eraserPasswordFile,
    }
  }
  return {
    servers,
    url,
    settings,
    env,
    makeStreams: async (nodeEnv = {}) => {
      const operator = settings('operator')
      const layout = layoutOf(loadConfig({ ...env(), ...nodeEnv }))
      // Without users (secure: false) the operator is anyone: the trusted network such a server needs.
      const journal = await openJournal({ ...operator, natsAuth: { ...operator.natsAuth, trustedNetwork: !secrets } }, layout, 60_000).catch((error: Error) => {
        // What the servers said (routes, elections) is what tells why JetStream never became ready.
        throw new Error(`${error.message}\nnats-server output:\n${output.slice(-3000)}`)
      })
      await journal.close()
    },
    secretsDir: secrets?.dir,
    kill: (index) => killed(servers[index], 'SIGKILL'),
    restart: async (index) => {
      launch(servers[index])
      await ready(servers[index])
    },
    stop: async () => {
      await Promise.all(servers.map((s) => killed(s, 'SIGTERM')))
    },
    output: () => output,
  }
}

/**
 * Waits until `server` answers on its client port as itself: NATS greets every client with an INFO line naming the
 * server (before any TLS), so another process on that port is not taken for it; a server that exits while
 * starting (a port taken after all) fails at once, with what it said.
 */
async function waitForServer(server: NatsServer, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const child = server.child
    // No child: the start failed elsewhere and stopped this server too.
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      // What it wrote last may still be in its pipes when its exit is seen.
      if (child && !child.stdout?.destroyed) await new Promise((resolve) => (child.once('close', resolve), setTimeout(resolve, 1_000)))
      throw new Error(`nats-server ${server.name} exited while starting:\n${(server.said ?? '').slice(-2000)}`)
    }
    if (/"server_name":\s*"([^"]*)"/.exec(await greeting(server.clientPort))?.[1] === server.name) return
    await sleep(50)
  }
  throw new Error(`nats-server ${server.name} on port ${server.clientPort} did not start in ${timeoutMs} ms:\n${(server.said ?? '').slice(-2000)}`)
}

/** The first line a server on `port` sends ('' when nothing listens or nothing comes within a second). */
function greeting(port: number): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    const socket = createConnection({ port, host: '127.0.0.1' })
    const done = () => (socket.destroy(), resolve(text))
    socket.setTimeout(1_000, done)
    socket.on('data', (data) => {
      text += data.toString('latin1')
      if (text.includes('\n')) done()
    })
    socket.once('error', done)
    socket.once('close', done)
  })
}
