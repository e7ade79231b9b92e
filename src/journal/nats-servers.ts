/**
 * Starts real nats-server processes (Debian's package, from PATH or
 * /usr/sbin) forming one JetStream cluster on loopback: what the tests and
 * `npm run cluster:local` run the cluster mode against. Each server gets its
 * own store directory; a killed server restarts on the same one, as a
 * rebooted machine would.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { createConnection } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export interface NatsServer {
  name: string
  clientPort: number
  clusterPort: number
  storeDir: string
  /** The running process, undefined while killed. */
  child?: ChildProcess
}

export interface NatsCluster {
  servers: NatsServer[]
  /** `nats://127.0.0.1:<port>` of every server, comma-joined: the NATS_URL a node takes. */
  url: string
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
  const binary = natsServerBinary()
  const servers: NatsServer[] = []
  for (let i = 0; i < size; i++) {
    const storeDir = join(options.dir, `nats-${i + 1}`)
    mkdirSync(storeDir, { recursive: true })
    servers.push({ name: `n${i + 1}`, clientPort: await options.freePort(), clusterPort: await options.freePort(), storeDir })
  }
  let output = ''
  const launch = (server: NatsServer) => {
    const routes = servers.filter((s) => s !== server).map((s) => `nats://127.0.0.1:${s.clusterPort}`)
    const args = ['-a', '127.0.0.1', '-p', String(server.clientPort), '-n', server.name, '-js', '-sd', server.storeDir]
    if (size > 1) args.push('--cluster_name', 'svc', '--cluster', `nats://127.0.0.1:${server.clusterPort}`, '--routes', routes.join(','))
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const collect = (data: Buffer) => {
      output += `[${server.name}] ${data.toString()}`
      if (output.length > 1_000_000) output = output.slice(-500_000)
    }
    child.stdout.on('data', collect)
    child.stderr.on('data', collect)
    server.child = child
  }
  const ready = (server: NatsServer) => waitForPort(server.clientPort, options.startTimeoutMs ?? 20_000, () => output)
  servers.forEach(launch)
  await Promise.all(servers.map(ready))

  const killed = async (server: NatsServer, signal: NodeJS.Signals) => {
    const child = server.child
    server.child = undefined
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const gone = new Promise((resolve) => child.once('exit', resolve))
    child.kill(signal)
    await gone
  }
  return {
    servers,
    url: servers.map((s) => `nats://127.0.0.1:${s.clientPort}`).join(','),
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

async function waitForPort(port: number, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' })
      socket.once('connect', () => (socket.destroy(), resolve(true)))
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await sleep(50)
  }
  throw new Error(`nats-server on port ${port} did not start in ${timeoutMs} ms:\n${output().slice(-2000)}`)
}
