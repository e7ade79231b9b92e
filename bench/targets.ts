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
import { childrenOf } from './proc.js'

/** dist/, the service's build; this file is bundled into dist/bench/. */
const DIST = fileURLToPath(new URL('../', import.meta.url))


/** Starts `main.js` and resolves once the primary logs "listening" (every front and the control worker are up). */
function startMain(port: number, dataDir: string, env: Record<string, string>, nodeArgs: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeArgs, join(DIST, 'main.js')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ...env },
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
  stop(): Promise<void>
}

export interface ClusterTarget extends Target {
  dataDir: string
  publicKey: string
  projectId: string
  /** Chunks the store holds for the seeded project (read through the store module, as the tests do). */
  storedChunks(): Promise<number>
}

/** `nodeArgs` go to the primary's node, whose forks inherit them (e.g. --cpu-prof to profile every process). */
export async function startBenchCluster(workers: number, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ClusterTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'))
  const port = await freePort()
  const child = await startMain(port, dataDir, { WORKERS: String(workers), ...env }, nodeArgs).catch((error: unknown) => {
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

const BARE_ENTRY = fileURLToPath(new URL('./bare-uws.js', import.meta.url))

export async function startBareUws(processes: number): Promise<Target> {
  const port = await freePort()
  const children: ChildProcess[] = []
  await Promise.all(
    Array.from({ length: processes }, () => {
      const child = spawn(process.execPath, [BARE_ENTRY, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] })
      children.push(child)
      return new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (data: Buffer) => data.toString().includes('ready') && resolve())
        child.once('exit', (code) => reject(new Error(`bare-uws exited with ${code}`)))
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
