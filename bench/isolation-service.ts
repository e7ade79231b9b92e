/**
 * What bench/isolation.ts needs of a service: seeding an organisation
 * through the store, starting the built service on the server's core and
 * reading its log for slow steps, calling the API with a key or a signed-in
 * session. Kept apart from the test helpers, which load tap.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { createApiKey, ensureOrgAndUser } from '../src/accounts/credentials.js'
import { newId, newPublicKey } from '../src/accounts/secrets.js'
import { openStore } from '../src/store/open.js'
import type { ProjectRecord, Store } from '../src/store/store.js'
import { childrenOf } from './proc.js'
import { serverCommand } from './pin.js'

/** The service's build, beside this bundle's directory (dist/bench-isolation/): dist/main.js. */
const MAIN = fileURLToPath(new URL('../main.js', import.meta.url))
/** The bystander organisation's owner. */
export const OWNER = { orgName: 'Bystander', email: 'owner@bystander.test', password: 'correct horse battery' }

export const storeAt = (dataDir: string): Store => openStore({ dataDir, mapSizeBytes: 32 * 1024 ** 3, durability: 'commit' })

/** An organisation with an owner, an API key and a project, written through the store as a test's seed is. */
export async function seedProject(dataDir: string, orgName: string, email: string): Promise<{ apiKey: string; project: ProjectRecord }> {
  const store = storeAt(dataDir)
  try {
    const { org, user } = await ensureOrgAndUser(store, orgName, email)
    const { apiKey } = await createApiKey(store, org.id, user.id, 'bench')
    const id = newId('prj')
    await store.createProject({ id, orgId: org.id, name: `${orgName} site`, domain: null, pathRules: [], publicKey: newPublicKey(), createdAt: Date.now() })
    return { apiKey, project: store.getProject(id)! }
  } finally {
    await store.close()
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export interface Service {
  url: string
  /** The service's log lines about steps that held the control worker's turns over 100 ms: operation → [count, worst ms]. */
  slowSteps(): Map<string, [number, number]>
  controlPid(): number | undefined
  stop(): Promise<void>
}

export async function startService(dataDir: string): Promise<Service> {
  const port = await freePort()
  const [command, args] = serverCommand([MAIN])
  const child: ChildProcess = spawn(command, args, { env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LMDB_MAP_SIZE: String(32 * 1024 ** 3) }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const slow = new Map<string, [number, number]>()
  const noteSlow = (text: string) => {
    for (const match of text.matchAll(/"msg":"a step held the control worker's turns","operation":"([^"]+)","ms":(\d+)/g)) {
      const [count, worst] = slow.get(match[1]) ?? [0, 0]
      slow.set(match[1], [count + 1, Math.max(worst, Number(match[2]))])
    }
  }
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 60_000)
    child.stdout!.on('data', (data: Buffer) => {
      output = (output + data.toString()).slice(-20_000)
      if (/"msg":"listening"/.test(output)) (clearTimeout(timer), resolve())
    })
    child.stderr!.on('data', (data: Buffer) => {
      noteSlow(data.toString())
      if (process.env.ISOLATION_DEBUG) process.stderr.write(data)
      output = (output + data.toString()).slice(-20_000)
    })
    child.once('exit', (code) => reject(new Error(`service exited with ${code}:\n${output}`)))
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  // taskset execs node: the primary is the child itself.
  return {
    url: `http://127.0.0.1:${port}`,
    slowSteps: () => slow,
    controlPid: () => childrenOf(child.pid!).find((c) => /control/.test(c.cmdline))?.pid,
    async stop() {
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** Calls the API with a bearer key or a signed-in session (cookie and CSRF token). */
export function client(url: string, auth: { apiKey: string } | { session: string; csrf: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...('apiKey' in auth ? { authorization: `Bearer ${auth.apiKey}` } : { cookie: `svc_session=${auth.session}`, 'x-csrf-token': auth.csrf }) }
  return async (route: string, body: unknown = {}): Promise<{ status: number; bytes: number; json?: any }> => {
    const res = await fetch(`${url}/api/v1${route}`, { method: 'POST', headers, body: JSON.stringify(body) })
    const bytes = Buffer.from(await res.arrayBuffer())
    let json: any
    try {
      json = bytes.length < 1e6 ? JSON.parse(bytes.toString()) : undefined
    } catch {
      json = undefined
    }
    return { status: res.status, bytes: bytes.length, json }
  }
}

export async function signIn(url: string): Promise<{ session: string; csrf: string; ms: number }> {
  const started = performance.now()
  const res = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: OWNER.email, password: OWNER.password }) })
  const ms = performance.now() - started
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`)
  const session = /svc_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]
  const csrf = (await (await fetch(`${url}/api/v1/auth/state`, { headers: { cookie: `svc_session=${session}` } })).json()).csrfToken
  return { session, csrf, ms }
}


/** Starts the service until its fold thread has folded every seeded batch (the search records are the fold's), then stops it. */
export async function folded(dataDir: string, progress: (message: string) => void): Promise<void> {
  const service = await startService(dataDir)
  try {
    for (;;) {
      const text = await (await fetch(`${service.url}/metrics`)).text()
      const lag = Number(/^svc_deriver_unfolded_batches(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? NaN)
      if (lag === 0) break
      progress(`folding: ${Number.isNaN(lag) ? '?' : lag} batches to go`)
      await sleep(5_000)
    }
  } finally {
    await service.stop()
  }
}

/**
 * A running service has taken ordinary traffic before a flood comes: a front
 * compiles its ingest validators at its first batch (tens of ms), which a
 * fresh service per case would otherwise charge to the case.
 */
export async function warmUp(service: Service, owner: { session: string; csrf: string }): Promise<void> {
  const made = await client(service.url, owner)('/cli/projects.create', { name: `Bystander site ${Date.now()}` })
  const body = JSON.stringify({ sk: 'warm-up', vid: 'warm-up', views: [{ url: 'https://bystander.test/', startedAt: Date.now() }], clicks: [{ url: 'https://bystander.test/', ts: Date.now(), xRatio: 0.5, yDoc: 10, selector: 'a' }] })
  const res = await fetch(`${service.url}/api/v1/signals?pk=${made.json.project.publicKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  if (res.status !== 200) throw new Error(`warm-up batch refused: ${res.status} ${await res.text()}`)
}
