/**
 * An acknowledgement means stored, also on a full disk:
 * DATA_DIR on a small tmpfs filled up to a few MiB, then chunks of random
 * bytes until LMDB's commits fail. While they fail, /ingest and /signals
 * answer 429 overloaded with Retry-After; every chunk answered 200 reads back
 * byte-identical; once the ballast is deleted the refused chunks are sent
 * again and stored, and no process of the cluster ever restarted.
 *
 * Needs root to mount the tmpfs; skipped (saying so) where mount is refused.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { get, meta, postChunk, postSignals, type Answer } from '../helpers/http.js'
import { ingestCluster, isIngestError } from '../helpers/ingest.js'
import { mountTmpfs } from '../helpers/tmpfs.js'

const TMPFS_BYTES = 48 * 1024 * 1024
/** What the ballast leaves free: room for a few hundred 20 KB chunks, so the fill is short. */
const LEFT_FREE = 4 * 1024 * 1024
/** Bounds of the fill: stop after this many refusals, or this many chunks in all. */
const REFUSALS_WANTED = 30
const MAX_CHUNKS = 3000

/** A chunk body LMDB cannot compress away: a JSON array holding 20 KB of random hex. */
function chunkBody(seq: number): Buffer {
  return Buffer.from(JSON.stringify([{ type: 3, timestamp: 1_700_000_000_000 + seq, data: { noise: randomBytes(10_000).toString('hex') } }]))
}

/** A valid signals batch of about 100 KB: 600 clicks with random selectors. */
function bigSignals(i: number): Record<string, unknown> {
  const now = Date.now()
  const clicks = Array.from({ length: 600 }, (_, j) => ({ url: 'https://shop.test/', ts: now + j, xRatio: 0.5, yDoc: j, selector: `button.b${randomBytes(40).toString('hex')}`, kind: 'click' }))
  return { sk: `full-signals-${i}`, vid: 'v', clicks }
}

function restarts(output: string): number {
  return output.split('\n').filter((line) => line.includes('child exited; restarting')).length
}

function isOverloaded(t: Test, answer: Answer, what: string): void {
  isIngestError(t, answer, 429, 'overloaded', what)
  t.match(answer.headers['retry-after'], /^[1-9][0-9]*$/, `${what}: Retry-After in whole seconds`)
}

const mount = mountTmpfs('svc-full-', TMPFS_BYTES)

t.test('on a full disk ingest answers 429 overloaded, acknowledges only what it stored, and recovers once space is freed', { timeout: 110_000, skip: mount ? false : 'mounting a tmpfs needs root (mount -t tmpfs refused)' }, async (t) => {
  t.teardown(() => {
    execFileSync('umount', ['-l', mount!])
    rmSync(mount!, { recursive: true, force: true })
  })
  const dataDir = join(mount!, 'data')
  mkdirSync(dataDir)
  const { cluster, pk, projectId, store } = await ingestCluster(t, { dataDir, workers: 2 })
  const ballast = join(mount!, 'ballast')
  const free = statfsSync(mount!)
  writeFileSync(ballast, Buffer.alloc(Math.max(0, free.bavail * free.bsize - LEFT_FREE)))

  const bodies = new Map<number, Buffer>()
  const acked: number[] = []
  const refused: number[] = []
  let seq = 0
  // Four clients at a time, like a few busy pages; each chunk is sent once here.
  while (refused.length < REFUSALS_WANTED && seq < MAX_CHUNKS) {
    const round = Array.from({ length: 4 }, () => seq++)
    const answers = await Promise.all(
      round.map((s) => {
        bodies.set(s, chunkBody(s))
        return postChunk(cluster.url, { pk, body: bodies.get(s)!, meta: meta({ sk: 'full', seq: s }) })
      }),
    )
    answers.forEach((answer, i) => {
      if (answer.status === 200) acked.push(round[i])
      else {
        isOverloaded(t, answer, `chunk ${round[i]}`)
        refused.push(round[i])
      }
    })
  }
  t.ok(refused.length >= REFUSALS_WANTED, `commits failed once the disk filled (${acked.length} acknowledged, ${refused.length} refused of ${seq})`)
  t.ok(acked.length > 0, 'chunks were acknowledged before the disk filled')

  // A small commit can still fit in pages LMDB freed earlier; a few large batches cannot all.
  const signalAnswers: Answer[] = []
  for (let i = 0; i < 10 && !signalAnswers.some((a) => a.status === 429); i++) signalAnswers.push(await postSignals(cluster.url, pk, bigSignals(i)))
  const signalsRefused = signalAnswers.filter((a) => a.status !== 200)
  t.ok(signalsRefused.length > 0, '/signals is refused on a full disk')
  for (const answer of signalsRefused) isOverloaded(t, answer, '/signals on a full disk')

  const health = await get(cluster.url, '/health')
  t.equal(health.status, 200, '/health answers while the disk is full')

  let lost = 0
  for (const s of acked) {
    const stored = store.getChunk(projectId, 'full', s)
    if (!stored || Buffer.compare(Buffer.from(stored), bodies.get(s)!) !== 0) lost += 1
  }
  t.equal(lost, 0, `every one of the ${acked.length} acknowledged chunks reads back byte-identical`)
  t.equal(store.listChunks(projectId, 'full').length, acked.length, 'no refused chunk was stored')

  rmSync(ballast)
  // The tracker's part: send each refused chunk again after Retry-After.
  for (const s of refused) {
    const answer = await postChunk(cluster.url, { pk, body: bodies.get(s)!, meta: meta({ sk: 'full', seq: s }) })
    t.same([answer.status, answer.json], [200, { ok: true }], `chunk ${s} is stored once space is freed`)
  }
  const again = await postSignals(cluster.url, pk, { sk: 'full', vid: 'v', views: [{ url: 'https://shop.test/', startedAt: Date.now(), title: 'Home' }] })
  t.same([again.status, again.json], [200, { ok: true }], '/signals recovers too')
  let wrong = 0
  for (const s of [...acked, ...refused]) {
    const stored = store.getChunk(projectId, 'full', s)
    if (!stored || Buffer.compare(Buffer.from(stored), bodies.get(s)!) !== 0) wrong += 1
  }
  t.equal(wrong, 0, 'every chunk, acknowledged before or after, reads back byte-identical')
  t.equal(store.getSession(projectId, 'full')?.chunkCount, acked.length + refused.length, 'the session counts each chunk once')
  t.equal(restarts(cluster.output()), 0, 'no process exited (no "child exited; restarting" line)')
})
