/**
 * Starts the real cluster (dist/main.js: primary, control worker, uWebSockets.js
 * fronts) on a free loopback port with its own data directory, and stops it in
 * teardown. Tests talk to it over HTTP only; a test that needs a project makes
 * one through the store module (`seedProject`) before or while it runs.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '../../src/config.js'
import type { NatsSettings } from '../../src/journal/connect.js'
import { startNatsCluster, type NatsCluster } from '../../src/journal/nats-servers.js'
import { logSealOf } from '../../src/journal/node.js'
import type { LogSeal } from '../../src/journal/seal.js'
import { profiled } from '../support/profile-events.js'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
export const DIST = join(ROOT, 'dist')

export interface Cluster {
  url: string
  port: number
  dataDir: string
  child: ChildProcess
  /** Everything the cluster printed, for assertions on logs (and on secrets never being logged). */
  output: () => string
  /** SIGTERM and wait. */
  stop(): Promise<void>
  /** SIGKILL the primary and every child at once (the process group), like a power cut of the service. */
  kill(): Promise<void>
}

export interface ClusterOptions {
  /** Fronts (WORKERS): one unless told; the files about several fronts (sharing a port, one killed, limits across them) ask for two. */
  workers?: number
  dataDir?: string
  env?: Record<string, string>
  /** Another build's main.js (an A/B of two builds); dist/main.js unless told. */
  main?: string
  /** How long the cluster may take to log "listening", ms (60 s unless told: a start takes 20 s and more on a busy 2-core machine). */
  startTimeoutMs?: number
}

/**
 * A port that is free now, chosen below the kernel's ephemeral range (32768 and up
 * on Linux): ports handed out for `listen(0)` and for outgoing connections come from
 * that range, so a port picked from it can be taken by another test before the
 * cluster binds it.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    if (await canListen(port)) return port
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** A running node of the cluster mode, as the helpers that read and seed its store need it. */
export interface LogNode {
  url: string
  natsUrl: string
  /** How the node reaches its log (NATS_URL, credentials, CA), for the helpers that write and read it beside the node. */
  nats: NatsSettings
  /** The secret the node seals its log's entries with: a helper writing beside the node seals alike. */
  seal: LogSeal
  partitions: number
  replicas: number
}

/** Running cluster-mode nodes by data directory: seed.ts writes through their log and waits for their read model. */
const logNodes = new Map<string, LogNode>()

export function logNodeAt(dataDir: string): LogNode | undefined {
  return logNodes.get(dataDir)
}

export function tempDataDir(name = 'svc-test-'): string {
  return mkdtempSync(join(tmpdir(), name))
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  // Another test can still bind the chosen port first; only that failure is retried.
  const dataDir = options.dataDir ?? tempDataDir()
  for (let attempt = 1; ; attempt++) {
    try {
      return await profiled('service', () => startClusterOnce(options, dataDir))
    } catch (error) {
      if (attempt >= 3 || !/could not listen/.test(String(error))) throw error
    }
  }
}

/**
 * SVC_TEST_CLUSTER_MODE=1 runs a test file against the cluster mode: each
 * cluster it starts is a node on its own one-server NATS (test/cluster-mode/
 * api-files-*.test.ts run existing API test files this way).
 */
async function logFor(options: ClusterOptions, dataDir: string): Promise<NatsCluster | undefined> {
  if (process.env.SVC_TEST_CLUSTER_MODE !== '1' || options.env?.NATS_URL) return undefined
  return profiled('nats', () => startNatsCluster({ dir: join(dataDir, 'nats'), size: 1, freePort, secretsDir: sharedSecrets() }))
}

let secretsDir: string | undefined

/**
 * One CA, certificate and pair of passwords for every NATS server this test
 * process starts: make-secrets.sh (openssl four times) took 0.2 to 0.35 s of
 * each cluster start. Removed when the process exits.
 */
function sharedSecrets(): string {
  if (!secretsDir) {
    const dir = (secretsDir = tempDataDir('svc-nats-secrets-'))
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  }
  return secretsDir
}

async function startClusterOnce(options: ClusterOptions, dataDir: string): Promise<Cluster> {
  const port = await freePort()
  let output = ''
  const nats = await logFor(options, dataDir)
  const clusterEnv: Record<string, string> = nats ? { ...nats.env(), NATS_REPLICAS: '1', NATS_PARTITIONS: '2' } : {}
  // The operator makes the log's streams, as on real machines: the node user may not.
  if (nats) await nats.makeStreams({ ...clusterEnv, ...options.env })
  const child = spawn(process.execPath, [options.main ?? join(DIST, 'main.js')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, WORKERS: String(options.workers ?? 1), ...clusterEnv, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so kill() reaches every process of the cluster
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve())).then(() => nats?.stop())
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child)
      reject(new Error(`cluster did not start within ${options.startTimeoutMs ?? 60_000} ms:\n${output}`))
    }, options.startTimeoutMs ?? 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (/"msg":"listening"/.test(output)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`cluster exited with ${code}:\n${output}`))
    })
  })
  const url = `http://127.0.0.1:${port}`
  const env = { ...clusterEnv, ...options.env }
  if (env.NATS_URL) {
    const { natsUrl, natsAuth, natsLogSecretFile } = loadConfig(env)
    const node = { url, natsUrl, nats: { natsUrl, natsAuth }, seal: logSealOf({ natsLogSecretFile }), partitions: Number(env.NATS_PARTITIONS ?? 3), replicas: Number(env.NATS_REPLICAS ?? 3) }
    logNodes.set(dataDir, node)
    child.once('exit', () => logNodes.get(dataDir) === node && logNodes.delete(dataDir))
  }
  return {
    url,
    port,
    dataDir,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
    async kill() {
      killGroup(child)
      await exited
    },
  }
}

/** Starts a cluster for one tap test and tears it (and its data directory) down after. */
export async function clusterFor(t: { teardown(fn: () => unknown): void }, options: ClusterOptions = {}): Promise<Cluster> {
  const cluster = await startCluster(options)
  t.teardown(async () => {
    await cluster.stop()
    if (!options.dataDir) rmSync(cluster.dataDir, { recursive: true, force: true })
  })
  return cluster
}

const shared = new Map<string, Promise<Cluster>>()

/**
 * A cluster the tests of one file share: the first ask with these options
 * starts it, later asks get the same one, and it stops (its data removed)
 * when the file's tests end. For tests isolated by what they create (an
 * organisation, a project), not by the service: one that stops the service,
 * or counts what it did since it started, takes clusterFor.
 */
export function sharedCluster(options: Omit<ClusterOptions, 'dataDir'> = {}): Promise<Cluster> {
  // With the default written out, `{}` and `{ workers: 1 }` are one cluster.
  const key = JSON.stringify({ workers: 1, ...options })
  let running = shared.get(key)
  if (!running) {
    running = startCluster(options).then(async (cluster) => {
      // The file's root test: it ends after every test of the file, whichever asked first. Imported here, so that
      // the benchmarks, which bundle this module, do not load tap.
      const { default: tap } = await import('tap')
      tap.teardown(async () => {
        await cluster.stop()
        rmSync(cluster.dataDir, { recursive: true, force: true })
      })
      return cluster
    })
    shared.set(key, running)
  }
  return running
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL')
  } catch {
    // the group is already gone
  }
}

/** The HTTP engine the cluster's fronts serve with, as /health names it (`uws-native …` or `fallback`, src/front/uws.ts). */
export async function httpEngine(cluster: { url: string }): Promise<string> {
  const health = (await (await fetch(`${cluster.url}/health`)).json()) as { http: string }
  return health.http
}
