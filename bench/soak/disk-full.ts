/**
 * Scenario 4: the disk fills up. DATA_DIR sits on a 64 MiB tmpfs the script
 * mounts (or, where mounting is refused, a small LMDB_MAP_SIZE on the usual
 * temporary directory); ingest runs until the service cannot write, every
 * chunk it acknowledged is read back (one acknowledged and not stored is the
 * lie this scenario exists to catch), reads are tried while it is full, then
 * space is freed and ingest must recover without a crash loop.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { tempDataDir } from '../../test/helpers/cluster.js'
import { apiCall, bodyFor, childExits, healthProbe, Ledger, postSoakChunk, progress, QUICK, seed, sendChunks, sessionsCount, start, undoOnInterrupt, verifyAcked, type Running } from './common.js'

export interface DiskFullResult {
  /** `tmpfs 64m, remounted 256m` or `LMDB_MAP_SIZE …`. */
  method: string
  chunkBytes: number
  fill: { sent: number; acked: number; statuses: Record<string, number>; failed: number; seconds: number; fsUsedPct: number }
  /** Acknowledged during the fill and not read back byte-identical: the lie. */
  fillLies: { missing: number; corrupted: number; examples: string[] }
  reads: { healthOk: boolean; countOk: boolean; chunkOk: boolean; detail: string }
  recovery: { msToFirstAck: number; sent: number; acked: number; statuses: Record<string, number> }
  /** Every acknowledged chunk (fill and recovery), read after the cluster stopped. */
  finalLies: { checked: number; missing: number; corrupted: number }
  exits: ReturnType<typeof childExits>
}

const SMALL_FS = '64m'
const FREED_FS = '256m'
/** Where mounting is refused: a map this small fills as a 64 MiB filesystem would. */
const SMALL_MAP = 64 * 1024 * 1024
/** Larger than a typical chunk so that a busy machine fills the 64 MiB in a minute or two (about 2,000 chunks). */
const CHUNK_BYTES = 32 * 1024

function tryMount(dir: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SMALL_FS}`, 'tmpfs', dir], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

function usedPct(dir: string): number {
  const fs = statfsSync(dir)
  return (1 - fs.bavail / fs.blocks) * 100
}

export async function diskFull(): Promise<DiskFullResult> {
  const mountPoint = mkdtempSync(join(tmpdir(), 'svc-soak-disk-'))
  const mounted = tryMount(mountPoint)
  const dataDir = mounted ? join(mountPoint, 'data') : tempDataDir('svc-soak-disk-data-')
  const method = mounted ? `tmpfs size=${SMALL_FS} mounted on DATA_DIR's parent, remounted size=${FREED_FS} to free space` : `mount refused: LMDB_MAP_SIZE=${SMALL_MAP} (${SMALL_MAP / 2 ** 20} MiB), restarted at 4× to free space`
  const forget = undoOnInterrupt(() => mounted && execFileSync('umount', ['-l', mountPoint]))
  if (mounted) mkdirSync(dataDir)
  progress(`disk full: ${method}`)
  let running: Running | undefined
  let output = ''
  try {
    const { project, apiKey } = await seed(dataDir)
    const env: Record<string, string> = mounted ? {} : { LMDB_MAP_SIZE: String(SMALL_MAP) }
    running = await start({ workers: 2, dataDir, env })
    const url = () => running!.cluster.url

    // Fill: until 200 answers in a row were refusals, or 2,000 requests after the filesystem filled up, or the bounds.
    const fill = new Ledger()
    let refusedInARow = 0
    let sentWhenFull = -1
    const fillStarted = performance.now()
    const watcher = setInterval(() => {
      if (sentWhenFull < 0 && usedPct(mountPoint) > 99.5) sentWhenFull = fill.sent
    }, 100)
    const reporter = setInterval(() => {
      progress(`  filling: ${fill.acked.length} acknowledged of ${fill.sent}, filesystem ${usedPct(mountPoint).toFixed(1)}% used, answers ${JSON.stringify(fill.statusSummary())}`)
    }, 5000)
    await sendChunks(fill, {
      url,
      pk: project.publicKey,
      senders: 16,
      sessionKey: (i, n) => `d-s${i}-${n}`,
      perSession: 100,
      bytes: CHUNK_BYTES,
      stop: () => refusedInARow >= 200 || (sentWhenFull >= 0 && fill.sent - sentWhenFull >= 2000),
      onAnswer: (ok) => (refusedInARow = ok ? 0 : refusedInARow + 1),
      maxRequests: QUICK ? 8_000 : 20_000,
      maxMs: QUICK ? 120_000 : 180_000,
    })
    clearInterval(watcher)
    clearInterval(reporter)
    const fillResult = { sent: fill.sent, acked: fill.acked.length, statuses: fill.statusSummary(), failed: fill.failed, seconds: (performance.now() - fillStarted) / 1000, fsUsedPct: usedPct(mountPoint) }
    progress(`disk full: fill ended after ${fillResult.seconds.toFixed(0)} s: ${fillResult.acked} acknowledged of ${fillResult.sent}, filesystem ${fillResult.fsUsedPct.toFixed(1)}% used, answers ${JSON.stringify(fillResult.statuses)}`)

    const verifyStarted = performance.now()
    const lies = await verifyAcked(dataDir, project.id, fill.acked)
    progress(`disk full: ${lies.missing} acknowledged chunks missing, ${lies.corrupted} corrupted, of ${lies.checked} (read in ${Math.round(performance.now() - verifyStarted)} ms)`)

    // Reads while full: the health check, the install check and one acknowledged chunk's bytes.
    const reads = { healthOk: false, countOk: false, chunkOk: false, detail: '' }
    const attempt = async (what: string, read: () => Promise<[boolean, string]>): Promise<boolean> => {
      const started = performance.now()
      try {
        const [ok, figure] = await read()
        reads.detail += `${reads.detail ? '; ' : ''}${what} ${figure} in ${Math.round(performance.now() - started)} ms`
        return ok
      } catch (error) {
        const cause = error instanceof Error && error.cause ? ` (${String(error.cause)})` : ''
        reads.detail += `${reads.detail ? '; ' : ''}${what} failed after ${Math.round(performance.now() - started)} ms: ${String(error)}${cause}`
        return false
      }
    }
    reads.healthOk = await attempt('/health', async () => {
      const { status } = await healthProbe(url())
      return [status === 200, String(status)]
    })
    reads.countOk = await attempt('sessions.count', async () => {
      const count = await sessionsCount(url(), apiKey, project.id)
      return [count !== undefined && count > 0, String(count)]
    })
    const first = fill.acked[0]
    reads.chunkOk = !!first && (await attempt('sessions.chunk', async () => {
      const chunk = await apiCall(url(), apiKey, '/cli/sessions.chunk', { projectId: project.id, sessionKey: first.sk, seq: first.seq })
      const same = chunk.status === 200 && Buffer.compare(chunk.bytes, bodyFor(first.sk, first.seq, CHUNK_BYTES)) === 0
      return [same, `${chunk.status}${same ? ', byte-identical' : ''}`]
    }))
    progress(`disk full: reads while full: ${reads.detail}`)

    // Free space, then ingest again until 200 acknowledgements or the bound.
    if (mounted) {
      execFileSync('mount', ['-o', `remount,size=${FREED_FS}`, mountPoint])
    } else {
      output += running.cluster.output()
      await running.cluster.stop()
      running = await start({ workers: 2, dataDir, env: { LMDB_MAP_SIZE: String(SMALL_MAP * 4) } })
    }
    const freedAt = performance.now()
    let msToFirstAck = -1
    const recovery = new Ledger()
    const firstAck = setInterval(() => {
      if (msToFirstAck < 0 && recovery.acked.length > 0) msToFirstAck = performance.now() - freedAt
    }, 5)
    await sendChunks(recovery, { url, pk: project.publicKey, senders: 4, sessionKey: (i, n) => `r-s${i}-${n}`, perSession: 100, bytes: CHUNK_BYTES, stop: () => recovery.acked.length >= 200, maxRequests: 5_000, maxMs: 30_000 })
    clearInterval(firstAck)
    if (msToFirstAck < 0 && recovery.acked.length > 0) msToFirstAck = performance.now() - freedAt
    // The tracker's retry: a chunk refused while full, sent again now, must be taken.
    const retried = fill.acked.length < fill.sent ? await postSoakChunk(url(), project.publicKey, { sk: 'retry-after-full', seq: 0, bytes: CHUNK_BYTES }) : undefined
    if (retried?.ok) recovery.acked.push({ sk: 'retry-after-full', seq: 0, bytes: CHUNK_BYTES })
    progress(`disk full: after freeing, first acknowledgement in ${Math.round(msToFirstAck)} ms, ${recovery.acked.length} of ${recovery.sent}, answers ${JSON.stringify(recovery.statusSummary())}`)
    await sleep(500)

    output += running.cluster.output()
    await running.cluster.stop()
    running = undefined
    const final = await verifyAcked(dataDir, project.id, [...fill.acked, ...recovery.acked])
    return {
      method,
      chunkBytes: CHUNK_BYTES,
      fill: fillResult,
      fillLies: { missing: lies.missing, corrupted: lies.corrupted, examples: lies.examples },
      reads,
      recovery: { msToFirstAck, sent: recovery.sent, acked: recovery.acked.length, statuses: recovery.statusSummary() },
      finalLies: { checked: final.checked, missing: final.missing, corrupted: final.corrupted },
      exits: childExits(output),
    }
  } finally {
    if (running) await running.cluster.kill()
    if (mounted) execFileSync('umount', [mountPoint])
    forget()
    rmSync(mountPoint, { recursive: true, force: true })
    if (!mounted) rmSync(dataDir, { recursive: true, force: true })
  }
}
