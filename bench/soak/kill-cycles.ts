/**
 * Scenario 1: the whole cluster SIGKILLed (its process group, as a power cut
 * of the service would) at a random moment under ingest load, and started
 * again on the same DATA_DIR, many times. After each kill every chunk
 * acknowledged in that cycle must read back byte-identical; after each restart
 * sessions.count must equal the sessions the store holds, and a chunk
 * acknowledged before the kill, sent again, must be stored once.
 */
import { rmSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { tempDataDir } from '../../test/helpers/cluster.js'
import { storeAt } from '../../test/helpers/seed.js'
import { Ledger, percentile, postSoakChunk, progress, QUICK, randomBetween, seed, sendChunks, sessionsCount, start, storedSessions, verifyAcked, type Running, type Sent } from './common.js'

export interface KillCyclesResult {
  cycles: number
  acked: number
  sent: number
  lost: number
  corrupted: number
  examples: string[]
  restartMs: { p50: number; max: number; all: number[] }
  /** Starts that did not log "listening" within a minute (the cycles stop at the first). */
  startFailures: string[]
  /** Cycles where sessions.count after the restart differed from the sessions the store holds, or missed an acknowledged one. */
  countMismatches: string[]
  ackedSessions: number
  /** Sessions whose first chunk was committed but its answer never arrived (in flight at the kill): stored, not acknowledged. */
  unackedStoredSessions: number
  resends: number
  /** Resent acknowledged chunks not answered 200, or whose session then held it twice (or changed). */
  resendFailures: string[]
  finalCheck: { checked: number; missing: number; corrupted: number }
  seconds: number
}

const SENDERS = 16
const WORKERS = 2

export async function killCycles(): Promise<KillCyclesResult> {
  const cycles = QUICK ? 5 : 50
  const budgetMs = (QUICK ? 2 : 20) * 60_000
  const began = performance.now()
  const dataDir = tempDataDir('svc-soak-kill-')
  const { project, apiKey } = await seed(dataDir)
  const all: Sent[] = []
  const everSent = new Set<string>()
  const ackedSessions = new Set<string>()
  const restarts: number[] = []
  const countMismatches: string[] = []
  const resendFailures: string[] = []
  const examples: string[] = []
  const startFailures: string[] = []
  let lost = 0
  let corrupted = 0
  let sent = 0
  let resends = 0
  let done = 0
  try {
    for (let cycle = 1; cycle <= cycles && performance.now() - began < budgetMs; cycle++) {
      let running: Running
      try {
        running = await start({ workers: WORKERS, dataDir })
      } catch (error) {
        // A cluster that does not serve again on its data is this scenario's worst result: recorded, and the cycles end.
        startFailures.push(`cycle ${cycle}: ${String(error).split('\n')[0]}`)
        progress(`kill cycle ${cycle}/${cycles}: the cluster did not start again: ${startFailures.at(-1)}`)
        break
      }
      const { cluster, startMs } = running
      if (cycle > 1) restarts.push(startMs) // the first is a fresh start, not a restart
      let killed = false
      try {
        // What the store held at the kill is what the restarted service must count.
        const expected = await storedSessions(dataDir, project.id, everSent)
        const counted = await sessionsCount(cluster.url, apiKey, project.id)
        if (counted !== expected) countMismatches.push(`cycle ${cycle}: sessions.count ${counted}, store holds ${expected}, acknowledged ${ackedSessions.size}`)

        // A tracker that lost the answer sends an acknowledged chunk again: it must be stored once.
        const resent = all.length > 0 ? all[Math.floor(Math.random() * all.length)] : undefined
        const before = resent && (await sessionChunks(dataDir, project.id, resent.sk, resent.seq))
        if (resent) {
          resends += 1
          const answer = await postSoakChunk(cluster.url, project.publicKey, resent)
          if (!answer.ok) resendFailures.push(`cycle ${cycle}: ${resent.sk}/${resent.seq} answered ${answer.status} ${answer.code ?? ''}`.trim())
        }

        const ledger = new Ledger()
        const loops = sendChunks(ledger, {
          url: () => cluster.url,
          pk: project.publicKey,
          senders: SENDERS,
          sessionKey: (i) => `c${cycle}-s${i}`,
          stop: () => killed,
          maxRequests: 50_000,
          maxMs: 30_000,
          stopOnError: true,
        })
        // A random moment once writes flow (on a busy machine the first acknowledgement can take seconds), so that every kill lands with writes in flight.
        const firstAckBy = performance.now() + 15_000
        while (ledger.acked.length === 0 && ledger.failed === 0 && performance.now() < firstAckBy) await sleep(5)
        await sleep(randomBetween(0, QUICK ? 1500 : 3000))
        await cluster.kill()
        killed = true
        await loops

        for (const sk of ledger.sessions) everSent.add(sk)
        for (const a of ledger.acked) ackedSessions.add(a.sk)
        sent += ledger.sent
        all.push(...ledger.acked)
        const verdict = await verifyAcked(dataDir, project.id, ledger.acked)
        lost += verdict.missing
        corrupted += verdict.corrupted
        examples.push(...verdict.examples.slice(0, Math.max(0, 5 - examples.length)))
        if (resent && before) {
          const after = await sessionChunks(dataDir, project.id, resent.sk, resent.seq)
          const again = await verifyAcked(dataDir, project.id, [resent])
          if (after.copies !== 1 || after.chunkCount !== before.chunkCount || again.missing + again.corrupted > 0) {
            resendFailures.push(`cycle ${cycle}: ${resent.sk}/${resent.seq} stored ${after.copies}×, session chunkCount ${before.chunkCount} → ${after.chunkCount}`)
          }
        }
        done = cycle
        progress(`kill cycle ${cycle}/${cycles}: restart ${Math.round(startMs)} ms, ${ledger.acked.length} acknowledged of ${ledger.sent} sent, lost ${verdict.missing}, corrupted ${verdict.corrupted}${ledger.acked.length === 0 && ledger.firstError ? `, first error: ${ledger.firstError}` : ''}`)
      } finally {
        if (!killed) await cluster.kill()
      }
    }
    progress(`kill cycles: checking all ${all.length} acknowledged chunks once more`)
    const finalCheck = await verifyAcked(dataDir, project.id, all)
    const stored = await storedSessions(dataDir, project.id, everSent)
    const ackedStored = await storedSessions(dataDir, project.id, ackedSessions)
    if (ackedStored !== ackedSessions.size) countMismatches.push(`at the end: ${ackedSessions.size - ackedStored} acknowledged sessions have no record`)
    return {
      cycles: done,
      acked: all.length,
      sent,
      lost,
      corrupted,
      examples,
      restartMs: { p50: percentile(restarts, 50), max: Math.max(...restarts), all: restarts },
      startFailures,
      countMismatches,
      ackedSessions: ackedSessions.size,
      unackedStoredSessions: stored - ackedSessions.size,
      resends,
      resendFailures,
      finalCheck: { checked: finalCheck.checked, missing: finalCheck.missing, corrupted: finalCheck.corrupted },
      seconds: (performance.now() - began) / 1000,
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** A session's recorded chunk count and how many copies of one seq its chunk list holds. */
async function sessionChunks(dataDir: string, projectId: string, sk: string, seq: number): Promise<{ chunkCount: number; copies: number }> {
  const store = storeAt(dataDir)
  try {
    const copies = store.listChunks(projectId, sk).filter((c) => c.seq === seq).length
    return { chunkCount: store.getSession(projectId, sk)?.chunkCount ?? 0, copies }
  } finally {
    await store.close()
  }
}
