/**
 * The processes under test, each in its namespace (net.ts): three
 * nats-servers from the shipped configuration (deploy/nats/, TLS and users,
 * certificates made by make-secrets.sh for the namespaces' addresses) and
 * three service nodes (dist/main.js) joined to them as the self-hosting page
 * says, with the streams made first by the operator (`log-streams`).
 * Each runs in a process group of its own, so a pause (SIGSTOP) or a kill
 * reaches every process of a node.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs'
import { createConnection } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { loadConfig } from '../../src/config.js'
import { openJournal } from '../../src/journal/connect.js'
import { NATS_DEPLOY_DIR } from '../../src/journal/nats-servers.js'
import { layoutOf } from '../../src/journal/node.js'
import { inNamespace, NATS_HOSTS, NODE_HOSTS, type Host } from './net.js'

/** The bearer token of every node's /metrics in a chaos run (bench/chaos/check.ts reads them). */
export const CHAOS_METRICS_TOKEN = 'chaos-metrics-token-not-a-secret'

export const NODE_PORT = 8787
const DIST = new URL('../../dist/', import.meta.url).pathname

export interface Proc {
  host: Host
  child?: ChildProcess
  start(): void
}

export interface Deployment {
  /** Each server's store directory, a tmpfs of its own. */
  natsStores: string[]
  nats: Proc[]
  nodes: Proc[]
  nodeUrl(host: Host): string
  /** Kills every process; `keep` leaves the NATS stores mounted and the data in place, to look at. */
  stop(keep?: boolean): Promise<void>
}

function launcher(host: Host, dir: string, command: string[], env: NodeJS.ProcessEnv, cwd?: string): Proc {
  const log = createWriteStream(join(dir, `${host.name}.log`), { flags: 'a' })
  const proc: Proc = {
    host,
    start() {
      const [program, ...args] = inNamespace(host, command)
      const child = spawn(program, args, { env, cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
      child.stdout!.pipe(log, { end: false })
      child.stderr!.pipe(log, { end: false })
      proc.child = child
    },
  }
  return proc
}

/** Sends `signal` to the whole process group of `proc`. */
export function signalGroup(proc: Proc, signal: NodeJS.Signals): void {
  if (proc.child?.pid) {
    try {
      process.kill(-proc.child.pid, signal)
    } catch {
      // gone already
    }
  }
}

async function listening(host: string, port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host, port })
      socket.once('connect', () => (socket.destroy(), resolve(true)))
      socket.once('error', () => resolve(false))
    })
    if (open) return true
    await sleep(100)
  }
  return false
}

async function reachable(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false)
    if (ok) return true
    await sleep(250)
  }
  return false
}

/** Secrets, servers, streams, nodes: a cluster as a self-hoster builds it, in `dir`. */
export async function deploy(dir: string): Promise<Deployment> {
  const secrets = join(dir, 'secrets')
  // localhost too: the NATS client checks a server dialled by address against that name (/docs/self-hosting).
  execFileSync('sh', [join(NATS_DEPLOY_DIR, 'make-secrets.sh'), secrets, ...NATS_HOSTS.map((h) => `${h.address},localhost`)], { stdio: ['ignore', 'ignore', 'inherit'] })
  const natsEnv: Record<string, string> = {}
  for (const line of readFileSync(join(secrets, 'nats.env'), 'utf8').split('\n')) if (line.includes('=')) natsEnv[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1)
  const routes = NATS_HOSTS.map((h) => `nats-route://${h.address}:6222`).join(',')
  const nats = NATS_HOSTS.map((host) => {
    const store = join(dir, host.name)
    mkdirSync(store, { recursive: true })
    // A disk of its own that a fault can fill (run.ts, disk-full-nats): a tmpfs of 1 GiB.
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${1024 ** 3}`, 'tmpfs', store])
    const command = ['nats-server', '-c', join(NATS_DEPLOY_DIR, 'nats.conf'), '-a', host.address, '-p', '4222', '--cluster', `nats://${host.address}:6222`, '--routes', routes]
    return launcher(host, dir, command, { ...process.env, ...natsEnv, NATS_SERVER_NAME: host.name, NATS_STORE_DIR: store }, join(secrets, host.address))
  })
  nats.forEach((proc) => proc.start())
  for (const host of NATS_HOSTS) if (!(await listening(host.address, 4222, 30_000))) throw new Error(`${host.name} did not listen in 30 s (see ${dir}/${host.name}.log)`)

  const natsUrl = NATS_HOSTS.map((h) => `tls://${h.address}:4222`).join(',')
  const common = { NATS_URL: natsUrl, NATS_TLS_CA_FILE: join(secrets, 'ca.pem'), NATS_LOG_SECRET_FILE: join(secrets, 'log.secret') }
  // The operator's `npm run admin -- log-streams`, from the clients' side of the bridge.
  const operator = loadConfig({ ...common, NATS_USER: 'operator', NATS_PASSWORD_FILE: join(secrets, 'operator.password') })
  await (await openJournal(operator, layoutOf(operator), 60_000)).close()

  const nodes = NODE_HOSTS.map((host) => {
    const env = {
      ...process.env,
      ...common,
      NATS_USER: 'node',
      NATS_PASSWORD_FILE: join(secrets, 'node.password'),
      NATS_ERASER_PASSWORD_FILE: join(secrets, 'eraser.password'),
      PORT: String(NODE_PORT),
      HOST: host.address,
      DIRECT_URL: `http://${host.address}:${NODE_PORT}`,
      DATA_DIR: join(dir, `${host.name}-data`),
      WORKERS: '1',
      READ_THREADS: '1',
      // The checker reads each node's counters of its log's repairs from another namespace: not loopback.
      METRICS_TOKEN: CHAOS_METRICS_TOKEN,
    }
    return launcher(host, dir, [process.execPath, join(DIST, 'main.js')], env)
  })
  nodes.forEach((proc) => proc.start())
  const nodeUrl = (host: Host) => `http://${host.address}:${NODE_PORT}`
  for (const host of NODE_HOSTS) if (!(await reachable(nodeUrl(host), 120_000))) throw new Error(`${host.name} did not answer /health in 120 s (see ${dir}/${host.name}.log)`)
  return {
    natsStores: NATS_HOSTS.map((host) => join(dir, host.name)),
    nats,
    nodes,
    nodeUrl,
    async stop(keep = false) {
      for (const proc of [...nodes, ...nats]) {
        signalGroup(proc, 'SIGCONT')
        signalGroup(proc, 'SIGKILL')
      }
      await sleep(500)
      if (!keep) for (const host of NATS_HOSTS) execFileSync('umount', ['-l', join(dir, host.name)])
    },
  }
}

export { reachable }
