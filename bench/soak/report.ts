/**
 * Turns a soak run into bench/SOAK.md: the machine, a table of figures per
 * scenario, and each of the soak's targets marked PASS or FAIL from this
 * run's figures alone.
 */
import type { DiskFullResult } from './disk-full.js'
import type { FrontKillResult } from './front-kill.js'
import type { KillCyclesResult } from './kill-cycles.js'
import type { OverloadResult } from './overload.js'

export interface Machine {
  nproc: number
  cpuModel: string
  memoryGiB: number
  kernel: string
  node: string
}

export interface SoakResults {
  quick: boolean
  date: string
  commit: string
  machine: Machine
  seconds: number
  kill?: KillCyclesResult
  front?: FrontKillResult
  overload?: OverloadResult
  disk?: DiskFullResult
  /** Scenarios that threw instead of finishing, with the error. */
  crashed: Record<string, string>
}

export interface Target {
  scenario: string
  what: string
  pass: boolean
  figure: string
}

/** Figures first measured from outside on the code before the bounded queue; the overload run must keep them or do better. */
const FIRST_OVERLOAD = { acksPerSec: 6028, ackP99Ms: 741, frontAnonMiB: 314 }

const n = (value: number, digits = 0) => (Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a')
const mib = (bytes: number) => n(bytes / 2 ** 20)
const json = (value: unknown) => `\`${JSON.stringify(value)}\``

export function targets(r: SoakResults): Target[] {
  const out: Target[] = []
  const add = (scenario: string, what: string, pass: boolean, figure: string) => out.push({ scenario, what, pass, figure })
  for (const [scenario, error] of Object.entries(r.crashed)) add(scenario, 'the scenario ran to its end', false, error.split('\n')[0].slice(0, 200))
  if (r.kill) {
    const k = r.kill
    const wanted = r.quick ? 5 : 50
    add('kill cycles', `${wanted} SIGKILL cycles of the whole cluster`, k.cycles >= wanted, `${k.cycles} cycles`)
    add('kill cycles', 'the cluster starts again on its data every time (within 60 s)', k.startFailures.length === 0, k.startFailures.length ? k.startFailures.join('; ') : `${k.restartMs.all.length} restarts, p50 ${n(k.restartMs.p50)} ms, max ${n(k.restartMs.max)} ms`)
    add('kill cycles', '0 acknowledged chunks lost', k.lost === 0 && k.finalCheck.missing === 0, `${k.lost} lost after their cycle, ${k.finalCheck.missing} at the end, of ${n(k.acked)}`)
    add('kill cycles', '0 acknowledged chunks corrupted', k.corrupted === 0 && k.finalCheck.corrupted === 0, `${k.corrupted} after their cycle, ${k.finalCheck.corrupted} at the end`)
    add('kill cycles', 'sessions.count equals the sessions stored, after every restart', k.countMismatches.length === 0, k.countMismatches.length ? k.countMismatches.slice(0, 3).join('; ') : `${k.cycles} of ${k.cycles}`)
    add('kill cycles', 'a resent acknowledged (sk, seq) is stored once', k.resendFailures.length === 0, k.resendFailures.length ? k.resendFailures.slice(0, 3).join('; ') : `${k.resends} resent, each stored once`)
  }
  if (r.front) {
    const f = r.front
    const wanted = r.quick ? 3 : 20
    add('front kill', `at least ${wanted} single-front SIGKILLs`, f.kills >= wanted, `${f.kills} kills`)
    add('front kill', 'the primary starts a new front each time', f.notRestarted === 0, `${f.kills - f.notRestarted} of ${f.kills} listening again, p50 ${n(f.relisten.p50)} ms, max ${n(f.relisten.max)} ms`)
    add('front kill', 'the surviving processes never exit', f.unexpectedExits === 0, `${f.exits.total} child exits ${json(f.exits.byCause)} by name ${json(f.exits.byName)} for ${f.kills} kills`)
    add('front kill', '0 acknowledged chunks lost or corrupted', f.lost + f.corrupted === 0, `${f.lost} lost, ${f.corrupted} corrupted of ${n(f.acked)}`)
  }
  if (r.overload) {
    const o = r.overload
    const frontPeak = Math.max(0, ...o.memory.filter((m) => m.name.startsWith('front')).map((m) => m.peak.anon))
    add('overload', 'sheds load with 429 overloaded', o.overloaded > 0, `${n(o.overloaded)} answered 429 overloaded`)
    add('overload', 'every 429 carries Retry-After', o.retryAfterMissing === 0, `${o.retryAfterMissing} without`)
    add('overload', 'no 5xx', o.serverErrors === 0, `${o.serverErrors} answered 5xx`)
    add('overload', '/health answers within 1 s throughout', o.health.failed === 0 && o.health.maxMs <= 1000, `${o.health.probes} probes, ${o.health.failed} failed, max ${n(o.health.maxMs)} ms`)
    add('overload', `front anonymous memory peak ≤ ${FIRST_OVERLOAD.frontAnonMiB} MiB (the first measurement)`, frontPeak <= FIRST_OVERLOAD.frontAnonMiB * 2 ** 20, `${mib(frontPeak)} MiB`)
    add('overload', `≥ ${n(FIRST_OVERLOAD.acksPerSec)} acks/s (the first measurement)`, o.acksPerSec >= FIRST_OVERLOAD.acksPerSec, `${n(o.acksPerSec)} acks/s (${o.pinned})`)
    add('overload', `ack p99 ≤ ${FIRST_OVERLOAD.ackP99Ms} ms (the first measurement)`, o.ackP99 <= FIRST_OVERLOAD.ackP99Ms, `${n(o.ackP99)} ms`)
    add('overload', '0 acknowledged chunks lost or corrupted', o.lost + o.corrupted === 0, `${o.lost} lost, ${o.corrupted} corrupted of ${n(o.acked)}`)
    add('overload', 'no process exits', o.exits.total === 0, `${o.exits.total} child exits`)
  }
  if (r.disk) {
    const d = r.disk
    const refused = Object.entries(d.fill.statuses).filter(([s]) => s === '429 overloaded').reduce((sum, [, c]) => sum + c, 0)
    const fiveHundreds = Object.entries({ ...d.fill.statuses }).filter(([s]) => s.startsWith('5')).reduce((sum, [, c]) => sum + c, 0)
    add('disk full', '0 chunks acknowledged without being stored', d.fillLies.missing + d.fillLies.corrupted === 0, `${d.fillLies.missing} of ${n(d.fill.acked)} acknowledged during the fill missing, ${d.fillLies.corrupted} corrupted`)
    add('disk full', 'ingest answers 429 overloaded while it cannot write', refused > 0, `${n(refused)} answered 429 overloaded; all answers ${json(d.fill.statuses)}`)
    add('disk full', 'no 5xx to the tracker', fiveHundreds === 0, `${fiveHundreds} answered 5xx`)
    add('disk full', 'reads keep working while full', d.reads.healthOk && d.reads.countOk && d.reads.chunkOk, d.reads.detail)
    add('disk full', 'ingest recovers once space is freed', d.recovery.acked >= 200, `${d.recovery.acked} acknowledged of ${d.recovery.sent} sent after freeing, first after ${n(d.recovery.msToFirstAck)} ms`)
    add('disk full', 'nothing acknowledged is lost or corrupted afterwards', d.finalLies.missing + d.finalLies.corrupted === 0, `${d.finalLies.missing} missing, ${d.finalLies.corrupted} corrupted of ${n(d.finalLies.checked)}`)
    add('disk full', 'no crash loop: no process exits', d.exits.total === 0, `${d.exits.total} child exits ${json(d.exits.byName)}`)
  }
  return out
}

function table(rows: [string, string][]): string {
  return ['| Figure | Value |', '| --- | --- |', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n')
}

export function renderSoak(r: SoakResults): string {
  const all = targets(r)
  const lines: string[] = [
    '# Soak and fault run (`npm run soak`)',
    '',
    'Written by bench/soak/run.ts; do not edit by hand. An acknowledgement always means stored, and no process exits except the one killed.',
    r.quick ? '\n**--quick run: fewer cycles, shorter loads; a check of the script, not results.**' : '',
    '',
    `- Date: ${r.date}; commit ${r.commit}; Node ${r.machine.node}`,
    `- Machine: ${r.machine.nproc} cores (${r.machine.cpuModel}), ${n(r.machine.memoryGiB, 1)} GiB memory, ${r.machine.kernel}; shared with other engineers' tests, so timings move from run to run`,
    `- Whole run: ${n(r.seconds)} s; all traffic to 127.0.0.1`,
    '',
    `## Targets: ${all.filter((t) => t.pass).length} of ${all.length} pass`,
    '',
    '| Scenario | Target | Result | Figure |',
    '| --- | --- | --- | --- |',
    ...all.map((t) => `| ${t.scenario} | ${t.what} | ${t.pass ? 'PASS' : '**FAIL**'} | ${t.figure.replace(/\|/g, '\\|')} |`),
  ]
  if (r.kill) {
    const k = r.kill
    lines.push('', '## 1. SIGKILL of the whole cluster under ingest load', '', '16 senders post 2–8 KB JSON chunks to a 2-front cluster; the process group is SIGKILLed 0–3 s after the first acknowledgement, and the cluster started again on the same DATA_DIR.', '', table([
      ['cycles', String(k.cycles)],
      ['chunks sent / acknowledged', `${n(k.sent)} / ${n(k.acked)}`],
      ['acknowledged lost / corrupted (after their cycle)', `${k.lost} / ${k.corrupted}`],
      ['all acknowledged, checked again at the end: missing / corrupted', `${k.finalCheck.missing} / ${k.finalCheck.corrupted} of ${n(k.finalCheck.checked)}`],
      ['restart (spawn to listening) p50 / max', `${n(k.restartMs.p50)} ms / ${n(k.restartMs.max)} ms`],
      ['sessions acknowledged / stored without an acknowledgement (in flight at a kill)', `${n(k.ackedSessions)} / ${k.unackedStoredSessions}`],
      ['sessions.count mismatches', k.countMismatches.length ? k.countMismatches.slice(0, 5).join('; ') : '0'],
      ['resent acknowledged chunks / stored twice or refused', `${k.resends} / ${k.resendFailures.length}`],
      ['examples of loss', k.examples.join(', ') || 'none'],
      ['duration', `${n(k.seconds)} s`],
    ]))
  }
  if (r.front) {
    const f = r.front
    lines.push('', '## 2. SIGKILL of one front under ingest load', '', '32 senders post to a 2-front cluster; one front, chosen at random, is SIGKILLed every 1–2 s. "Listening again": from the kill until the replacement holds a listening socket on the port (/proc).', '', table([
      ['kills', String(f.kills)],
      ['replacement listening again p50 / max', `${n(f.relisten.p50)} ms / ${n(f.relisten.max)} ms`],
      ['per kill, ms', f.relistenMs.map((ms) => n(ms)).join(', ')],
      ['requests sent / acknowledged', `${n(f.sent)} / ${n(f.acked)}`],
      ['requests failed without an answer', n(f.failedRequests)],
      ['answers', json(f.statuses)],
      ['`child exited` lines by name / by cause', `${json(f.exits.byName)} / ${json(f.exits.byCause)}`],
      ['exits other than the killed fronts', String(f.unexpectedExits)],
      ['acknowledged lost / corrupted', `${f.lost} / ${f.corrupted}${f.examples.length ? ` (e.g. ${f.examples.join(', ')})` : ''}`],
      ['duration', `${n(f.seconds)} s`],
    ]))
  }
  if (r.overload) {
    const o = r.overload
    lines.push('', '## 3. Overload', '', `autocannon in its own process: ${n(o.connections)} connections, ${n(o.bodyBytes)} B gzip chunks, ${o.seconds} s, a fresh (sk, seq) per request; ${o.pinned}. /health probed every 250 ms.`, '', table([
      ['requests sent / acknowledged', `${n(o.sent)} / ${n(o.acked)}`],
      ['acks/s', n(o.acksPerSec)],
      ['ack latency p50 / p99', `${n(o.ackP50)} ms / ${n(o.ackP99)} ms`],
      ['all answers p99 (autocannon)', `${n(o.latencyP99)} ms`],
      ['answers by status and code', json(o.codes)],
      ['429 overloaded / without Retry-After', `${n(o.overloaded)} / ${o.retryAfterMissing}`],
      ['5xx', String(o.serverErrors)],
      ['client errors / timeouts', `${o.errors} / ${o.timeouts}`],
      ['/health probes / failed / max latency / over 1 s', `${o.health.probes} / ${o.health.failed} / ${n(o.health.maxMs)} ms / ${o.health.over1s}`],
      ['acknowledged lost / corrupted', `${o.lost} / ${o.corrupted}`],
      ['child exits', String(o.exits.total)],
    ]))
    lines.push('', 'Memory per process, MiB (RSS includes the pages of LMDB\'s map; anonymous is smaps_rollup `Anonymous`, what buffering grows). "After" is 5 s after the load ended.', '', '| Process | RSS before / peak / after | Anonymous before / peak / after |', '| --- | --- | --- |')
    for (const m of o.memory) lines.push(`| ${m.name} | ${mib(m.before.rss)} / ${mib(m.peak.rss)} / ${mib(m.after.rss)} | ${mib(m.before.anon)} / ${mib(m.peak.anon)} / ${mib(m.after.anon)} |`)
  }
  if (r.disk) {
    const d = r.disk
    lines.push('', '## 4. Disk full', '', `DATA_DIR on a small filesystem: ${d.method}. 16 senders post ${n(d.chunkBytes / 1024)} KB JSON chunks until 200 answers in a row are refusals (or 2,000 requests after the filesystem is full, or the bounds); then reads, then space is freed and 4 senders post until 200 acknowledgements.`, '', table([
      ['fill: sent / acknowledged / no answer', `${n(d.fill.sent)} / ${n(d.fill.acked)} / ${d.fill.failed}`],
      ['fill: answers', json(d.fill.statuses)],
      ['fill: duration / filesystem used at its end', `${n(d.fill.seconds)} s / ${n(d.fill.fsUsedPct, 1)}%`],
      ['acknowledged during the fill, not stored / corrupted', `${d.fillLies.missing} / ${d.fillLies.corrupted}${d.fillLies.examples.length ? ` (e.g. ${d.fillLies.examples.join(', ')})` : ''}`],
      ['reads while full', d.reads.detail],
      ['after freeing: sent / acknowledged / first acknowledgement', `${n(d.recovery.sent)} / ${n(d.recovery.acked)} / ${n(d.recovery.msToFirstAck)} ms`],
      ['after freeing: answers', json(d.recovery.statuses)],
      ['all acknowledged, read after the cluster stopped: missing / corrupted', `${d.finalLies.missing} / ${d.finalLies.corrupted} of ${n(d.finalLies.checked)}`],
      ['`child exited` lines (restarts)', `${d.exits.total} ${json(d.exits.byName)} ${json(d.exits.byCause)}`],
    ]))
  }
  return lines.filter((line, i, all) => !(line === '' && all[i - 1] === '')).join('\n') + '\n'
}
