/**
 * `npm run test:profile [files or folders]`: runs the suite (or part of it)
 * as `npm test` does, with per-file and per-test timings, and prints where
 * the time goes: the 30 slowest files (wall time, CPU of the file's process
 * and everything it started, and how many services, NATS clusters and
 * browsers it started), the 30 slowest tests, and totals by folder. The
 * figures are kept in .cache/test-profile/ (the last run as last.json), and
 * `--against=FILE` prints each folder's change from an earlier run's file.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const OUT = join(ROOT, '.cache', 'test-profile')

interface FileFigures {
  file: string
  wallMs: number
  ok: boolean
  cpuMs: number
  starts: Record<string, { count: number; ms: number }>
}

interface TestFigures {
  file: string
  name: string
  wallMs: number
}

export interface Profile {
  at: string
  wallMs: number
  summary: string
  files: FileFigures[]
  tests: TestFigures[]
}

/** Top-level and first-level results of tap's TAP stream: `ok 3 - name # time=12.3ms`, indented four spaces per level. */
export function parseTap(tap: string): { files: Omit<FileFigures, 'cpuMs' | 'starts'>[]; tests: TestFigures[]; summary: string } {
  const files: Omit<FileFigures, 'cpuMs' | 'starts'>[] = []
  const tests: TestFigures[] = []
  let pending: TestFigures[] = []
  let summary = ''
  for (const line of tap.split('\n')) {
    const result = /^( {0,4})(not )?ok \d+ - (.*?) # time=([\d.]+)ms/.exec(line)
    if (result) {
      const [, indent, failed, name, ms] = result
      if (indent === '') {
        files.push({ file: name, wallMs: Number(ms), ok: !failed })
        tests.push(...pending.map((test) => ({ ...test, file: name })))
        pending = []
      } else pending.push({ file: '', name, wallMs: Number(ms) })
    }
    if (/^# \{ total:/.test(line)) summary = line.slice(2)
  }
  return { files, tests, summary }
}

/** The lines test/support/process-setup.mjs and profile-events.ts wrote, by test file. */
function expenses(dir: string): Map<string, Pick<FileFigures, 'cpuMs' | 'starts'>> {
  const byFile = new Map<string, Pick<FileFigures, 'cpuMs' | 'starts'>>()
  for (const name of readdirSync(dir)) {
    for (const text of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (!text) continue
      const line = JSON.parse(text) as { kind: string; file: string; ms?: number; ownMs?: number; childrenMs?: number }
      const file = relative(ROOT, line.file)
      const figures = byFile.get(file) ?? { cpuMs: 0, starts: {} }
      byFile.set(file, figures)
      if (line.kind === 'process') figures.cpuMs += (line.ownMs ?? 0) + (line.childrenMs ?? 0)
      else {
        const start = (figures.starts[line.kind] ??= { count: 0, ms: 0 })
        start.count += 1
        start.ms += line.ms ?? 0
      }
    }
  }
  return byFile
}

function runTap(args: string[], eventsDir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'tap'), ['--reporter=tap', ...args], {
      cwd: ROOT,
      env: { ...process.env, SVC_TEST_PROFILE: eventsDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let output = ''
    let done = 0
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      // Progress: one line per finished file, since a whole run takes minutes.
      const finished = output.match(/^(not )?ok \d+ - .*$/gm) ?? []
      for (; done < finished.length; done++) process.stderr.write(`  ${finished[done]}\n`)
    })
    child.once('error', reject)
    child.once('exit', () => resolve(output))
  })
}

const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(7)

function folderOf(file: string): string {
  const parts = file.split('/')
  return parts.length > 2 ? parts[1] : '(top)'
}

function startsText(starts: FileFigures['starts']): string {
  return Object.entries(starts)
    .map(([kind, { count, ms }]) => `${kind} ${count}×${Math.round(ms / count)}ms`)
    .join(', ')
}

export function report(profile: Profile, against?: Profile): string {
  const lines: string[] = []
  lines.push(`npm test's tap run: ${seconds(profile.wallMs).trim()} s wall, ${seconds(profile.files.reduce((sum, f) => sum + f.cpuMs, 0)).trim()} s CPU; ${profile.summary}`)
  lines.push('', 'The 30 slowest files:      wall s   CPU s  starts (count × average)')
  for (const file of [...profile.files].sort((a, b) => b.wallMs - a.wallMs).slice(0, 30)) {
    lines.push(`${file.ok ? ' ' : '✗'} ${file.file.padEnd(52)} ${seconds(file.wallMs)} ${seconds(file.cpuMs)}  ${startsText(file.starts)}`)
  }
  lines.push('', 'The 30 slowest tests:      wall s')
  for (const test of [...profile.tests].sort((a, b) => b.wallMs - a.wallMs).slice(0, 30)) {
    lines.push(`  ${seconds(test.wallMs)}  ${test.file} › ${test.name.slice(0, 110)}`)
  }
  const folders = new Map<string, { files: number; wallMs: number; cpuMs: number }>()
  for (const file of profile.files) {
    const folder = folders.get(folderOf(file.file)) ?? { files: 0, wallMs: 0, cpuMs: 0 }
    folders.set(folderOf(file.file), { files: folder.files + 1, wallMs: folder.wallMs + file.wallMs, cpuMs: folder.cpuMs + file.cpuMs })
  }
  const earlier = new Map<string, number>()
  for (const file of against?.files ?? []) earlier.set(folderOf(file.file), (earlier.get(folderOf(file.file)) ?? 0) + file.wallMs)
  lines.push('', `By folder:           files   wall s   CPU s${against ? `   before (${against.at})` : ''}`)
  for (const [folder, figures] of [...folders].sort((a, b) => b[1].wallMs - a[1].wallMs)) {
    const before = earlier.has(folder) ? seconds(earlier.get(folder)!) : ''
    lines.push(`  ${folder.padEnd(18)} ${String(figures.files).padStart(5)} ${seconds(figures.wallMs)} ${seconds(figures.cpuMs)}   ${before}`)
  }
  return lines.join('\n')
}

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((arg) => !arg.startsWith('--against='))
  const againstFile = process.argv.find((arg) => arg.startsWith('--against='))?.slice('--against='.length)
  const eventsDir = join(OUT, 'events')
  rmSync(eventsDir, { recursive: true, force: true })
  mkdirSync(eventsDir, { recursive: true })
  const began = performance.now()
  const tap = await runTap(args, eventsDir)
  const wallMs = performance.now() - began
  const parsed = parseTap(tap)
  const costs = expenses(eventsDir)
  const profile: Profile = {
    at: new Date().toISOString(),
    wallMs,
    summary: parsed.summary,
    files: parsed.files.map((file) => ({ ...file, ...(costs.get(file.file) ?? { cpuMs: 0, starts: {} }) })),
    tests: parsed.tests,
  }
  writeFileSync(join(OUT, 'last.json'), JSON.stringify(profile, null, 1))
  writeFileSync(join(OUT, `${profile.at.replace(/[:.]/g, '-')}.json`), JSON.stringify(profile))
  const against = againstFile ? (JSON.parse(readFileSync(againstFile, 'utf8')) as Profile) : undefined
  console.log(report(profile, against))
  console.log(`\nkept in ${relative(ROOT, join(OUT, 'last.json'))}`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
