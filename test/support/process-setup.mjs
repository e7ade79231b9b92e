/**
 * Loaded into every test process before its file (package.json, tap's
 * `node-arg`). tap's process-tracking loader (@tapjs/processinfo) puts itself
 * into every process a test spawns, through NODE_OPTIONS and a hook on every
 * spawn (process-on-spawn): each node of a service (primary, control worker,
 * fronts) then ran its module-hooks thread, which read every source map it
 * loaded, about 0.5 s of CPU per process, for process records and coverage
 * that `npm test` does not use. The hook is dropped and NODE_OPTIONS cleaned,
 * so the processes a test starts run as they do in production. `npm run
 * coverage` collects theirs through NODE_V8_COVERAGE, which V8 writes itself.
 * tap's own variables stay: without _TAPJS_PROCESSINFO_COVERAGE_=0 a tracker
 * that did load would turn coverage on.
 *
 * With SVC_TEST_PROFILE set to a directory (`npm run test:profile`), the
 * process writes there, as it exits, the CPU it and its reaped children used.
 */
import { appendFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const spawnHooks = globalThis[Symbol.for('process-on-spawn@*:singletonId')]
if (spawnHooks) spawnHooks.listeners.length = 0
const options = (process.env.NODE_OPTIONS ?? '').split(/\s+/).filter((option) => option && !option.includes('@tapjs/processinfo'))
if (options.length > 0) process.env.NODE_OPTIONS = options.join(' ')
else delete process.env.NODE_OPTIONS

const profileDir = process.env.SVC_TEST_PROFILE
if (profileDir) {
  process.once('exit', () => {
    // Fields 14-17 of /proc/self/stat: utime, stime, cutime, cstime, in clock ticks (100 a second on Linux).
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ')
    const ticks = (i) => Number(fields[i - 3]) * 10
    const file = process.env.TAP_TEST_FILE ?? process.argv[1]
    const line = { kind: 'process', file, ownMs: ticks(14) + ticks(15), childrenMs: ticks(16) + ticks(17), wallMs: Math.round(process.uptime() * 1000) }
    appendFileSync(join(profileDir, `${process.pid}.jsonl`), JSON.stringify(line) + '\n')
  })
}
