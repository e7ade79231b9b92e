/**
 * Loaded into every test process before its file (package.json, tap's
 * `node-arg`). tap puts its process-tracking loader in NODE_OPTIONS, and every
 * process a test spawned inherited it: each node of a service (primary,
 * control worker, fronts) then ran a module-hooks thread that read every
 * source map it loaded, about 0.5 s of CPU per process for coverage that
 * `npm test` does not collect. Children get NODE_OPTIONS without it;
 * `npm run coverage` collects theirs through NODE_V8_COVERAGE instead, which
 * V8 writes itself.
 *
 * With SVC_TEST_PROFILE set to a directory (`npm run test:profile`), the
 * process writes there, as it exits, the CPU it and its reaped children used.
 */
import { appendFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const options = (process.env.NODE_OPTIONS ?? '').split(/\s+/).filter((option) => option && !option.includes('@tapjs/processinfo'))
if (options.length > 0) process.env.NODE_OPTIONS = options.join(' ')
else delete process.env.NODE_OPTIONS
for (const name of Object.keys(process.env)) if (name.startsWith('_TAPJS_PROCESSINFO_')) delete process.env[name]

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
