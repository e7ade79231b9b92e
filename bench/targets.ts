/**
 * The servers under load, each started fresh and stopped after use:
 * the real cluster (dist/main.js, the service's build, on a free loopback
 * port with its own temporary data directory and a project seeded through
 * the store module as the tests do), and the bare
 * uWebSockets.js ceiling (bench/bare-uws.ts) with as many processes as the
 * cluster has fronts.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../test/helpers/cluster.js'
import { seedProject, storeAt } from '../test/helpers/seed.js'
import { clientCommand, serverCommand } from './pin.js'
import { childrenOf } from './proc.js'

/** dist/, the service's build; this file is bundled into dist/bench/. */
const DIST = fileURLToPath(new URL('../', import.meta.url))


/** Starts `main.js` and resolves once the primary logs "listening" (every front and the control worker are up). */
function startMain(port: number, dataDir: string, env: Record<string, string>, nodeArgs: string[], pinned = serverCommand): Promise<ChildProcess> {
  // BENCH_MAIN (an --ab setting) runs another build's main.js: an A/B of two versions of the code.
  const { BENCH_MAIN, ...serviceEnv } = env
  const [command, args] = pinned([...nodeArgs, BENCH_MAIN ?? join(DIST, 'main.js')])
  const child = spawn(command, args, {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ...serviceEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`cluster did not start within 30 s:\n${output}`))
    }, 30_000)
    const onData = (data: Buffer) => {
      output += data.toString()
      if (output.length > 100_000) output = output.slice(-50_000)
      if (/"msg":"listening"/.test(output)) {
        clearTimeout(timer)
        child.stdout!.off('data', onData)
        child.stdout!.resume() // keep draining what it logs later
        resolve(child)
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (data: Buffer) => (output += data.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`cluster exited with ${code}:\n${output}`))
    })
  })
}

export interface Target {
  url: string
  port: number
  /** Every process of the server, for CPU accounting. */
  pids(): number[]
  /** The processes that serve HTTP (the fronts), for memory sampling. */
  frontPids(): number[]
  /**
   * Resolves once the work the answers left behind is done: the fold
   * thread's backlog of signal batches, which runs behind the acknowledgement
   * at a lower priority and is part of what each batch costs.
   */
  settle?(): Promise<void>
  stop(): Promise<void>
}

export interface ClusterTarget extends Target {
  dataDir: string
  publicKey: string
  projectId: string
  /** Chunks the store holds for the seeded project (read through the store module, as the tests do). */
  storedChunks(): Promise<number>
}

/**
 * `workers` undefined leaves WORKERS unset: the service's default for the cores it may use.
 * `nodeArgs` go to the primary's node, whose forks inherit them (e.g. --cpu-prof to profile every process).
 */
export async function startBenchCluster(workers: number | undefined, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ClusterTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'))
  const port = await freePort()
  const child = await startMain(port, dataDir, { ...(workers === undefined ? {} : { WORKERS: String(workers) }), ...env }, nodeArgs).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true }) // a cluster that did not start leaves no data directory behind
    throw error
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const { project } = await seedProject(dataDir, 'Bench', 'bench@bench.test')
  // Close at once: this process only reads the store again to count, and must not hold a reader open under load.
  await storeAt(dataDir).close()
  const primary = child.pid!
  const children = () => childrenOf(primary)
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    publicKey: project.publicKey,
    projectId: project.id,
    pids: () => [primary, ...children().map((c) => c.pid)],
    frontPids: () => children().filter((c) => c.cmdline.includes('front.js')).map((c) => c.pid),
    settle: () => foldCaughtUp(`http://127.0.0.1:${port}`),
    async storedChunks() {
      const store = storeAt(dataDir)
      const count = store.projectStats(project.id).chunkCount
      await store.close()
      return count
    },
    async stop() {
      child.kill('SIGTERM')
      await exited
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * A node that only follows the log (the cluster mode's second node), on the
 * load generator's core: it is not the server under test, and its CPU is not
 * counted in the first node's figures. No project is seeded: it learns the
 * first node's from the log.
 */
export async function startFollower(env: Record<string, string>, nodeArgs: string[] = []): Promise<{ url: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-follower-'))
  const port = await freePort()
  const child = await startMain(port, dataDir, { WORKERS: '1', ...env }, nodeArgs, clientCommand).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM')
      await exited
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Polls the fold backlog (svc_deriver_unfolded_batches on /metrics) until it is empty; a fold that never catches up fails the run. */
async function foldCaughtUp(url: string, limitMs = 300_000): Promise<void> {
  const until = performance.now() + limitMs
  for (;;) {
    const text = await (await fetch(`${url}/metrics`)).text()
    const line = text.split('\n').find((l) => l.startsWith('svc_deriver_unfolded_batches '))
    if (!line || Number(line.split(' ')[1]) === 0) return
    if (performance.now() > until) throw new Error(`the fold did not catch up within ${limitMs / 1000} s: ${line}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const BARE_ENTRY = fileURLToPath(new URL('./bare-uws.js', import.meta.url))
const PEER_ENTRY = fileURLToPath(new URL('./plain-peer.js', import.meta.url))
const FASTIFY_ENTRY = fileURLToPath(new URL('./fastify-peer.js', import.meta.url))

export function startBareUws(processes: number): Promise<Target> {
  return startPlain(processes, (port) => [BARE_ENTRY, String(port)])
}

export interface PeerTarget extends Target {
  publicKey: string
}

/** A peer (bench/plain-peer.ts, or bench/fastify-peer.ts with `fastify`), one process with its own data directory. */
export async function startPlainPeer(fastify = false, nodeArgs: string[] = []): Promise<PeerTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-peer-'))
  const publicKey = 'svc_pk_0123456789abcdef0123456789abcdef'
  const target = await startPlain(1, (port) => [...nodeArgs, fastify ? FASTIFY_ENTRY : PEER_ENTRY, String(port), dataDir, publicKey]).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  })
  return {
    ...target,
    publicKey,
    async stop() {
      await target.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** `processes` copies of a one-file server on a free port, each printing "ready" once it listens. */
async function startPlain(processes: number, argsFor: (port: number) => string[]): Promise<Target> {
  const port = await freePort()
  const children: ChildProcess[] = []
  await Promise.all(
    Array.from({ length: processes }, () => {
      const [command, args] = serverCommand(argsFor(port))
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
      children.push(child)
      return new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (data: Buffer) => data.toString().includes('ready') && resolve())
        child.once('exit', (code) => reject(new Error(`${argsFor(port)[0]} exited with ${code}`)))
      })
    }),
  )
  const pids = () => children.map((c) => c.pid!)
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pids,
    frontPids: pids,
    async stop() {
      await Promise.all(
        children.map((child) => new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve()
          child.once('exit', () => resolve())
          child.kill('SIGTERM')
        })),
      )
    },
  }
}
