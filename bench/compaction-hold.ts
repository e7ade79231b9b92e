/**
 * How long an online compaction holds ingest acknowledgements (issue 42): a
 * store filled to about STORE_MB MB (sessions of 20 KB chunks of random,
 * incompressible bytes, written offline through the store), the built service
 * started on it, CLIENTS trackers posting 2 KB chunks one after another, and
 * one erasure of one session, compacted at once (the default, COMPACTION_INTERVAL_MS=0). It
 * reports the primary's figures for the round (pausing, compaction, held in
 * all) and what the clients saw: answers by status, connection errors, and
 * the latency of the requests before and during the round.
 *
 * Usage: npm run build && npx tsx bench/compaction-hold.ts [storeMb=100] [clients=4]
 * Prints its lines (one run; the figures in docs/storage.md come from it).
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { createApiKey, ensureOrgAndUser } from '../src/accounts/credentials.js'
import { newId, newPublicKey } from '../src/accounts/secrets.js'
import { groupUrl } from '../src/grouping/group.js'
import { openLmdbStore } from '../src/store/lmdb/index.js'
import type { IngestItem } from '../src/store/store.js'

const STORE_MB = Number(process.argv[2] ?? 100)
const CLIENTS = Number(process.argv[3] ?? 4)
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url))
const MAP_SIZE = 8 * 1024 ** 3
const CHUNK_BYTES = 20 * 1024
const CHUNKS_PER_SESSION = 10

async function fill(dataDir: string): Promise<{ apiKey: string; projectId: string; publicKey: string }> {
  const store = openLmdbStore({ path: dataDir, mapSize: MAP_SIZE, durability: 'commit' })
  const { org, user } = await ensureOrgAndUser(store, 'Bench', 'owner@bench.test')
  const { apiKey } = await createApiKey(store, org.id, user.id, 'bench')
  const projectId = newId('prj')
  const publicKey = newPublicKey()
  await store.createProject({ id: projectId, orgId: org.id, name: 'Bench', domain: null, pathRules: [], publicKey, createdAt: Date.now() })
  const url = 'https://shop.test/p'
  const page = { ...groupUrl(url, []), firstSeenAt: Date.now() }
  const sessions = Math.ceil((STORE_MB * 1024 * 1024) / (CHUNK_BYTES * CHUNKS_PER_SESSION))
  for (let s = 0; s < sessions; s++) {
    const at = Date.now() - 3_600_000 + s
    const items: IngestItem[] = Array.from({ length: CHUNKS_PER_SESSION }, (_, seq) => ({
      kind: 'chunk',
      projectId,
      receivedAt: at + seq,
      body: randomBytes(CHUNK_BYTES),
      page,
      meta: { sk: `s${s}`, vid: `v${s}`, seq, encoding: 'json', pageIndex: 0, url, startedAt: at, firstTs: at, lastTs: at + 1_000 },
    }))
    await store.appendBatch(items)
  }
  await store.close()
  return { apiKey, projectId, publicKey }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-compaction-hold-'))
  const seeded = await fill(dataDir)
  const fileMb = statSync(join(dataDir, 'data.mdb')).size / 2 ** 20
  const port = await freePort()
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LMDB_MAP_SIZE: String(MAP_SIZE), COMPACTION_INTERVAL_MS: '0', WORKERS: '1' }
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (data: Buffer) => (output += data.toString()))
  child.stderr.on('data', (data: Buffer) => (output += data.toString()))
  while (!/"msg":"listening"/.test(output)) await sleep(50)
  const base = `http://127.0.0.1:${port}`

  const answers: { start: number; ms: number; status: number | string }[] = []
  let sending = true
  const client = async (c: number) => {
    for (let n = 0; sending; n++) {
      const meta = { sk: `live-${c}-${Math.floor(n / 50)}`, vid: `v-live-${c}`, seq: n % 50, pageIndex: 0, url: 'https://shop.test/', eventCount: 1, encoding: 'json' }
      const start = performance.now()
      try {
        const res = await fetch(`${base}/api/v1/ingest?pk=${seeded.publicKey}`, { method: 'POST', headers: { 'x-svc-meta': JSON.stringify(meta) }, body: JSON.stringify([{ type: 3, timestamp: Date.now(), data: { pad: 'x'.repeat(2_000) } }]) })
        await res.arrayBuffer()
        answers.push({ start, ms: performance.now() - start, status: res.status })
      } catch (error) {
        answers.push({ start, ms: performance.now() - start, status: String((error as { cause?: { code?: string } }).cause?.code ?? error) })
      }
    }
  }
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c))
  // A second of steady traffic before the erasure, as the baseline.
  await sleep(1_000)
  const api = (route: string, body: unknown) =>
    fetch(`${base}/api/v1${route}`, { method: 'POST', headers: { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>)
  const erasureAt = performance.now()
  const created = await api('/cli/erasures.create', { projectId: seeded.projectId, by: { sessionKey: 's1' } })
  while (!(await api('/cli/erasures.get', { erasureId: created.erasure.id })).erasure?.scrubbed) await sleep(50)
  // A second of traffic after the round, then stop.
  await sleep(1_000)
  sending = false
  await Promise.all(clients)
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))

  const round = JSON.parse(output.split('\n').find((line) => line.includes('children resumed after the compaction')) ?? '{}')
  const compacted = JSON.parse(output.split('\n').find((line) => line.includes('"store compacted"')) ?? '{}')
  const before = answers.filter((a) => a.start < erasureAt).map((a) => a.ms).sort((a, b) => a - b)
  const after = answers.filter((a) => a.start >= erasureAt).map((a) => a.ms).sort((a, b) => a - b)
  const byStatus: Record<string, number> = {}
  for (const a of answers) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1
  const pct = (list: number[], p: number) => list[Math.min(list.length - 1, Math.floor(list.length * p))]?.toFixed(1)
  console.log(`store: data.mdb ${fileMb.toFixed(0)} MB before (${STORE_MB} MB of chunks written), ${CLIENTS} clients posting 2 KB chunks one after another`)
  console.log(`round: pausing ${round.pausingMs} ms, compaction ${compacted.ms} ms (${(compacted.bytesBefore / 2 ** 20).toFixed(0)} MB → ${(compacted.bytesAfter / 2 ** 20).toFixed(0)} MB, both environments), held in all ${round.heldMs} ms`)
  console.log(`answers: ${JSON.stringify(byStatus)}`)
  console.log(`latency before the erasure: p50 ${pct(before, 0.5)} ms, max ${pct(before, 1)} ms (${before.length} requests)`)
  console.log(`latency from the erasure on: p50 ${pct(after, 0.5)} ms, p99 ${pct(after, 0.99)} ms, max ${pct(after, 1)} ms (${after.length} requests)`)
  rmSync(dataDir, { recursive: true, force: true })
}

await main()
