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
 * Code that runs in Chromium (the tracker and the dashboard as pages load
 * them) is counted too: the run builds those bundles unminified with source
 * maps, and every page records V8 coverage of them (browser-coverage.ts).
 * Those are mapped by browser-coverage-report.ts, not by c8 (which cannot
 * map a many-source bundle), and for each file of tracker/ and dashboard/
 * the better of the two counts (Node's, Chromium's) is taken per measure:
 * a lower bound of their union, never more than ran.
 * A process killed with SIGKILL writes no coverage; the tests that do that
 * cover the same code in processes that exit.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromiumCoverage, type FileFigures } from './browser-coverage-report.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const OUT = join(ROOT, '.cache', 'coverage')
const RAW = join(OUT, 'raw')
const CHROMIUM = join(OUT, 'chromium')
const FOLDERS = ['src', 'tracker', 'cli', 'dashboard']

type Figures = FileFigures

type Summary = Record<string, Figures>

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: 'inherit' })
    child.once('error', reject)
    child.once('exit', (code) => resolve(code ?? 1))
  })
}

type ByFile = Record<string, Figures>

/** c8's figures by file, each measure raised to Chromium's where Chromium ran more of the file. */
function withChromium(files: ByFile, chromium: ByFile): ByFile {
  const merged: ByFile = { ...files }
  for (const [file, ran] of Object.entries(chromium)) {
    const node = merged[file]
    if (!node) merged[file] = ran
    else for (const kind of ['lines', 'branches', 'functions'] as const) if (ran[kind].covered > node[kind].covered) node[kind] = ran[kind]
  }
  return merged
}

/** Figures by file summed per top folder and for everything. */
function byFolder(files: ByFile): Summary {
  files = { ...files }
  delete files.total
  const totals: Summary = {}
  for (const [file, figures] of Object.entries(files)) {
    const folder = file.slice(ROOT.length).split('/')[0]
    if (!FOLDERS.includes(folder)) continue
    for (const key of [folder, 'all']) {
      const sum = (totals[key] ??= { lines: { total: 0, covered: 0 }, branches: { total: 0, covered: 0 }, functions: { total: 0, covered: 0 } })
      for (const kind of ['lines', 'branches', 'functions'] as const) {
        sum[kind].total += figures[kind].total
        sum[kind].covered += figures[kind].covered
      }
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
  for (const dir of [RAW, CHROMIUM]) {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
  }
  // Tap's own coverage stays off (package.json): it would instrument test processes only, not what they start.
  const status = await run(join(ROOT, 'node_modules', '.bin', 'tap'), ['--reporter=terse', '--allow-incomplete-coverage', '--coverage-report=none', ...args], { ...process.env, NODE_V8_COVERAGE: RAW, SVC_BROWSER_COVERAGE: CHROMIUM })
  // A whole run leaves a few thousand coverage files: merging them takes more than Node's default heap.
  const include = FOLDERS.flatMap((folder) => ['--include', `${folder}/**`])
  const exclude = ['--exclude', '**/*.test.ts', '--exclude', '**/tsup.config.ts', '--exclude', 'test/**', '--exclude', 'dist/**']
  const c8 = (args: string[]) => run(join(ROOT, 'node_modules', '.bin', 'c8'), ['report', '--temp-directory', RAW, '--reporter=json-summary', '--reporter=html', ...exclude, '--exclude-after-remap', ...args], { ...process.env, NODE_OPTIONS: '--max-old-space-size=12288' })
  await c8(['--report-dir', join(OUT, 'report'), '--all', ...include])
  const node = JSON.parse(readFileSync(join(OUT, 'report', 'coverage-summary.json'), 'utf8')) as ByFile
  const chromium = await chromiumCoverage(CHROMIUM, [join(ROOT, 'tracker/'), join(ROOT, 'dashboard/')])
  const summary = byFolder(withChromium(node, chromium))
  writeFileSync(join(OUT, 'summary.json'), JSON.stringify(summary, null, 2))
  const against = againstFile && existsSync(againstFile) ? (JSON.parse(readFileSync(againstFile, 'utf8')) as Summary) : undefined
  console.log(`\nCoverage (tap exited ${status}; Node's HTML report in .cache/coverage/report/):\n${report(summary, against)}\nkept in .cache/coverage/summary.json`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
