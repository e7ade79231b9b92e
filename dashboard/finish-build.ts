/**
 * The last step of the dashboard build (run by dashboard/tsup.config.ts once
 * esbuild has written the hashed modules): hashes the stylesheet, writes the
 * HTML shell that names the entry and preloads its static imports, writes a
 * .gz and a .br beside every file so the control worker never compresses at
 * request time, removes files of earlier builds, and prints the sizes.
 *
 * Budget (issue 8): the dashboard's JavaScript stays under 150 KB gzipped,
 * not counting the replay player and the heatmap's page rebuild (rrweb), which
 * load only on those screens. Over budget, the build fails.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const BUDGET_GZIP_BYTES = 150 * 1024
const STYLESHEET = 'dashboard/src/styles.css'
/** A chunk holding one of these is part of the replay player or the page rebuild, loaded on demand. */
const PLAYER_INPUTS = /node_modules\/(rrweb-player|@rrweb|rrweb-snapshot|rrdom)\//

interface Metafile {
  outputs: Record<string, { bytes: number; entryPoint?: string; imports: { path: string; kind: string }[]; inputs: Record<string, unknown> }>
}

export interface BuiltFile {
  name: string
  raw: number
  gzip: number
  brotli: number
  /** Loaded on demand with the player or the page rebuild: outside the budget. */
  player: boolean
  /** Loaded by the shell before the first screen renders. */
  initial: boolean
}

export async function finishDashboardBuild(outDir: string): Promise<void> {
  const metaPath = join(outDir, 'metafile-esm.json')
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Metafile
  rmSync(metaPath)
  const outputs = Object.entries(meta.outputs).filter(([path]) => path.endsWith('.js'))
  const entry = outputs.find(([, o]) => o.entryPoint)
  if (!entry) throw new Error('dashboard build: no entry point in the metafile')

  // The entry and everything it imports statically load up front; modulepreload fetches them in parallel.
  const initial = new Set<string>()
  const visit = (path: string) => {
    if (initial.has(path)) return
    initial.add(path)
    for (const imported of meta.outputs[path]?.imports ?? []) if (imported.kind === 'import-statement') visit(imported.path)
  }
  visit(entry[0])

  const css = readFileSync(STYLESHEET)
  const cssName = `app-${createHash('sha256').update(css).digest('hex').slice(0, 8).toUpperCase()}.css`
  writeFileSync(join(outDir, cssName), css)

  const preloads = [...initial].filter((p) => p !== entry[0]).map((p) => `<link rel="modulepreload" href="./${basename(p)}">`)
  const shell = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Dashboard · svc recorder</title>',
    // No favicon request: the root belongs to the website.
    '<link rel="icon" href="data:,">',
    `<link rel="stylesheet" href="./${cssName}">`,
    ...preloads,
    `<script type="module" src="./${basename(entry[0])}"></script>`,
    '</head>',
    '<body>',
    '<div id="app"><noscript>The dashboard needs JavaScript.</noscript></div>',
    '</body>',
    '</html>',
    '',
  ].join('\n')
  writeFileSync(join(outDir, 'index.html'), shell)

  const files: BuiltFile[] = []
  const keep = new Set<string>()
  const add = (name: string, player: boolean, isInitial: boolean) => {
    const bytes = readFileSync(join(outDir, name))
    const gzip = gzipSync(bytes, { level: 9 })
    const brotli = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } })
    writeFileSync(join(outDir, `${name}.gz`), gzip)
    writeFileSync(join(outDir, `${name}.br`), brotli)
    for (const n of [name, `${name}.gz`, `${name}.br`]) keep.add(n)
    files.push({ name, raw: bytes.length, gzip: gzip.length, brotli: brotli.length, player, initial: isInitial })
  }
  add('index.html', false, true)
  add(cssName, false, true)
  for (const [path, output] of outputs) {
    add(basename(path), Object.keys(output.inputs).some((input) => PLAYER_INPUTS.test(input)), initial.has(path))
  }

  // Files of earlier builds. A running control worker holds its files in memory, so removing them is safe.
  // A coverage build's source maps stay beside their files (never served: the control worker serves what it lists).
  for (const name of readdirSync(outDir)) if (!keep.has(name) && !keep.has(name.replace(/\.map$/, ''))) rmSync(join(outDir, name), { force: true })

  report(files)
  const budgeted = files.filter((f) => f.name.endsWith('.js') && !f.player).reduce((sum, f) => sum + f.gzip, 0)
  if (budgeted > BUDGET_GZIP_BYTES) {
    process.exitCode = 1
    throw new Error(`dashboard JavaScript is ${kb(budgeted)} gzipped, over the ${kb(BUDGET_GZIP_BYTES)} budget`)
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

function report(files: BuiltFile[]): void {
  const rows = [...files].sort((a, b) => Number(b.initial) - Number(a.initial) || Number(a.player) - Number(b.player) || b.raw - a.raw)
  const width = Math.max(26, ...rows.map((f) => f.name.length))
  const line = (name: string, raw: string, gzip: string, brotli: string, note: string) =>
    `  ${name.padEnd(width)}  ${raw.padStart(9)}  ${gzip.padStart(9)}  ${brotli.padStart(9)}  ${note}`
  const sum = (list: BuiltFile[], key: 'raw' | 'gzip' | 'brotli') => kb(list.reduce((s, f) => s + f[key], 0))
  const js = files.filter((f) => f.name.endsWith('.js'))
  const budgeted = js.filter((f) => !f.player)
  const first = files.filter((f) => f.initial)
  const out = [
    'dashboard build (dist/public/app):',
    line('file', 'raw', 'gzip', 'brotli', ''),
    ...rows.map((f) => line(f.name, kb(f.raw), kb(f.gzip), kb(f.brotli), f.initial ? 'first load' : f.player ? 'player, on demand' : 'on demand')),
    line('first load (html, css, JS)', sum(first, 'raw'), sum(first, 'gzip'), sum(first, 'brotli'), ''),
    line('JS but the player', sum(budgeted, 'raw'), sum(budgeted, 'gzip'), sum(budgeted, 'brotli'), `budget ${kb(BUDGET_GZIP_BYTES)} gzipped`),
    line('player JS, on demand', sum(js.filter((f) => f.player), 'raw'), sum(js.filter((f) => f.player), 'gzip'), sum(js.filter((f) => f.player), 'brotli'), ''),
  ]
  console.log(out.join('\n'))
}
