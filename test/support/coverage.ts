/**
 * `npm run coverage [-- --against=FILE]`: runs the suite as `npm test` does
 * with Node's own coverage (NODE_V8_COVERAGE) in every process it starts:
 * test files, the services they spawn (their dist/ files mapped back to
 * src/ through the build's source maps), the CLI. Prints line, branch and
 * function coverage of src/, tracker/, cli/ and dashboard/ by folder, keeps
 * the summary in .cache/coverage/summary.json, and with `--against=FILE` (an
 * earlier summary) prints each figure's change, so a change to the suite can
 * show it lost nothing.
 *
 * Code that runs only in Chromium (the tracker and the dashboard as pages
 * load them) is counted where Node runs it: the tests import their logic
 * directly. A process killed with SIGKILL writes no coverage; the tests that
 * do that cover the same code in processes that exit.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const OUT = join(ROOT, '.cache', 'coverage')
const RAW = join(OUT, 'raw')
const FOLDERS = ['src', 'tracker', 'cli', 'dashboard']

interface Figures {
  lines: { total: number; covered: number }
  branches: { total: number; covered: number }
  functions: { total: number; covered: number }
}

type Summary = Record<string, Figures>

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: 'inherit' })
    child.once('error', reject)
    child.once('exit', (code) => resolve(code ?? 1))
  })
}

/** c8's json-summary, by file, summed into one figure per top folder and one for everything. */
function byFolder(summaryFile: string): Summary {
  const files = JSON.parse(readFileSync(summaryFile, 'utf8')) as Record<string, Record<keyof Figures, { total: number; covered: number }>>
  const totals: Summary = {}
  for (const [file, figures] of Object.entries(files)) {
    const folder = file === 'total' ? 'all' : file.slice(ROOT.length).split('/')[0]
    if (file !== 'total' && !FOLDERS.includes(folder)) continue
    const sum = (totals[folder] ??= { lines: { total: 0, covered: 0 }, branches: { total: 0, covered: 0 }, functions: { total: 0, covered: 0 } })
    for (const kind of ['lines', 'branches', 'functions'] as const) {
      sum[kind].total += figures[kind].total
      sum[kind].covered += figures[kind].covered
    }
  }
  return totals
}

const percent = (f: { total: number; covered: number }) => (f.total === 0 ? 100 : (100 * f.covered) / f.total)

export function report(summary: Summary, against?: Summary): string {
  const lines = [`            lines              branches           functions${against ? '          (change against the earlier summary)' : ''}`]
  for (const folder of [...FOLDERS, 'all']) {
    const now = summary[folder]
    if (!now) continue
    const cells = (['lines', 'branches', 'functions'] as const).map((kind) => {
      const change = against?.[folder] ? ` ${(percent(now[kind]) - percent(against[folder][kind])).toFixed(2).replace(/^(?!-)/, '+')}` : ''
      return `${percent(now[kind]).toFixed(2).padStart(6)}% ${String(now[kind].covered).padStart(5)}/${String(now[kind].total).padEnd(5)}${change}`.padEnd(19)
    })
    lines.push(`  ${folder.padEnd(10)}${cells.join('')}`)
  }
  return lines.join('\n')
}

async function main(): Promise<void> {
  const againstFile = process.argv.find((arg) => arg.startsWith('--against='))?.slice('--against='.length)
  const args = process.argv.slice(2).filter((arg) => !arg.startsWith('--against='))
  rmSync(RAW, { recursive: true, force: true })
  mkdirSync(RAW, { recursive: true })
  // Tap's own coverage stays off (package.json): it would instrument test processes only, not what they start.
  const status = await run(join(ROOT, 'node_modules', '.bin', 'tap'), ['--reporter=terse', '--allow-incomplete-coverage', '--coverage-report=none', ...args], { ...process.env, NODE_V8_COVERAGE: RAW })
  // A whole run leaves a few thousand coverage files: merging them takes more than Node's default heap.
  const include = FOLDERS.flatMap((folder) => ['--include', `${folder}/**`])
  const exclude = ['--exclude', '**/*.test.ts', '--exclude', '**/tsup.config.ts', '--exclude', 'test/**', '--exclude', 'dist/**']
  await run(join(ROOT, 'node_modules', '.bin', 'c8'), ['report', '--temp-directory', RAW, '--report-dir', join(OUT, 'report'), '--reporter=json-summary', '--reporter=html', '--all', ...include, ...exclude, '--exclude-after-remap'], { ...process.env, NODE_OPTIONS: '--max-old-space-size=12288' })
  const summary = byFolder(join(OUT, 'report', 'coverage-summary.json'))
  writeFileSync(join(OUT, 'summary.json'), JSON.stringify(summary, null, 2))
  const against = againstFile && existsSync(againstFile) ? (JSON.parse(readFileSync(againstFile, 'utf8')) as Summary) : undefined
  console.log(`\nCoverage (tap exited ${status}; the HTML report is in .cache/coverage/report/):\n${report(summary, against)}\nkept in .cache/coverage/summary.json`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
