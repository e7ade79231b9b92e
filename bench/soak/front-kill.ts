/**
 * Scenario 2: one front SIGKILLed under ingest load (what the OOM killer or
 * an operator does), many times. The primary must start a new one; the
 * other processes must never exit (counted from the primary's `child exited`
 * lines by child name and cause); nothing acknowledged may be lost.
 */
import { rmSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { tempDataDir } from '../../test/helpers/cluster.js'
import { childExits, frontPids, Ledger, listensOn, percentile, progress, QUICK, randomBetween, seed, sendChunks, start, verifyAcked } from './common.js'

export interface FrontKillResult {
  kills: number
  /** ms from the SIGKILL until the replacement front holds a listening socket on the port; -1 when it never did within the bound. */
  relistenMs: number[]
  relisten: { p50: number; max: number }
  /** Replacements that did not listen within the bound. */
  notRestarted: number
  sent: number
  acked: number
  /** Requests with no HTTP answer (connection reset or refused). */
  failedRequests: number
  statuses: Record<string, number>
  lost: number
  corrupted: number
  examples: string[]
  exits: ReturnType<typeof childExits>
  /** `child exited` lines not explained by one of our kills (another process died). */
  unexpectedExits: number
  seconds: number
}

const WORKERS = 2
const SENDERS = 32
/** How long a replacement front may take to listen before the kill counts as not restarted. */
const RELISTEN_BOUND_MS = 30_000

export async function frontKill(): Promise<FrontKillResult> {
  const kills = QUICK ? 3 : 20
  const began = performance.now()
  const dataDir = tempDataDir('svc-soak-front-')
  const { project } = await seed(dataDir)
  const { cluster } = await start({ workers: WORKERS, dataDir })
  const primary = cluster.child.pid!
  const ledger = new Ledger()
  let stopped = false
  const relistenMs: number[] = []
  let done = 0
  try {
    const loops = sendChunks(ledger, {
      url: () => cluster.url,
      pk: project.publicKey,
      senders: SENDERS,
      sessionKey: (i, n) => `f-s${i}-${n}`,
      perSession: 50,
      stop: () => stopped,
      maxRequests: 2_000_000,
      maxMs: (kills * 10 + 60) * 1000,
    })
    await sleep(1000)
    for (let kill = 1; kill <= kills; kill++) {
      const fronts = frontPids(primary)
      if (fronts.length === 0) break
      const victim = fronts[Math.floor(Math.random() * fronts.length)]
      const failedBefore = ledger.failed
      const killedAt = performance.now()
      process.kill(victim, 'SIGKILL')
      let ms = -1
      while (performance.now() - killedAt < RELISTEN_BOUND_MS) {
        const replacement = frontPids(primary).find((pid) => !fronts.includes(pid))
        if (replacement && listensOn(replacement, cluster.port)) {
          ms = performance.now() - killedAt
          break
        }
        await sleep(5)
      }
      relistenMs.push(ms)
      done = kill
      // Load goes on a while between kills, so that each kill lands on a front in full flow.
      await sleep(randomBetween(800, 2000))
      progress(`front kill ${kill}/${kills}: pid ${victim}, replacement listening after ${ms < 0 ? 'never' : `${Math.round(ms)} ms`}, ${ledger.failed - failedBefore} requests failed, ${ledger.acked.length} acknowledged so far`)
    }
    stopped = true
    await loops
  } finally {
    stopped = true
    await cluster.stop()
  }
  try {
    const exits = childExits(cluster.output())
    const verdict = await verifyAcked(dataDir, project.id, ledger.acked)
    const listened = relistenMs.filter((ms) => ms >= 0)
    progress(`front kill: ${verdict.missing} acknowledged lost, ${verdict.corrupted} corrupted of ${verdict.checked}${verdict.examples.length ? ` (${verdict.examples.join(', ')})` : ''}; child exits ${JSON.stringify(exits.byName)} ${JSON.stringify(exits.byCause)}`)
    return {
      kills: done,
      relistenMs,
      relisten: { p50: percentile(listened, 50), max: listened.length ? Math.max(...listened) : NaN },
      notRestarted: relistenMs.length - listened.length,
      sent: ledger.sent,
      acked: ledger.acked.length,
      failedRequests: ledger.failed,
      statuses: ledger.statusSummary(),
      lost: verdict.missing,
      corrupted: verdict.corrupted,
      examples: verdict.examples,
      exits,
      unexpectedExits: exits.total - (exits.byCause.SIGKILL ?? 0) + Math.max(0, (exits.byCause.SIGKILL ?? 0) - done),
      seconds: (performance.now() - began) / 1000,
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
