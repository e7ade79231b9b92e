/**
 * The tracker's recorder (tracker/src/recorder.ts) over rrweb's record bundle
 * as `edit` leaves it, built into one script for a test page: it exposes
 * `recorded` (every event, copied as serialized), `guard` and `recorder` on
 * window. `recorderArgs` are the arguments after the emit callback.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'esbuild'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import type { Test } from 'tap'

export async function recorderScript(edit: (source: string) => string, recorderArgs: unknown[] = []): Promise<string> {
  const rrweb: Plugin = {
    name: 'rrweb-source',
    setup(b) {
      b.onLoad({ filter: /@rrweb[\\/]record[\\/]dist[\\/]record\.js$/ }, (args) => ({ contents: edit(readFileSync(args.path, 'utf8')), loader: 'js' }))
    },
  }
  const extra = recorderArgs.map((a) => `, ${JSON.stringify(a)}`).join('')
  return trackerScript(
    [
      "import { createRecorder, readScrollOf } from './tracker/src/recorder.js'",
      'w.recorded = []',
      // As tracker.js does with the set of a stub pasted before <body> (tracker/src/index.ts).
      'if (w.svc && w.svc.s) readScrollOf(w.svc.s)',
      `w.recorder = createRecorder(w.guard, (event) => w.recorded.push(JSON.parse(JSON.stringify(event))), undefined${extra})`,
    ],
    [rrweb],
  )
}

/** `lines` of TypeScript over the tracker's sources (paths from the repository's root), bundled for a page, with `w` (window) and `w.guard` (a guard) defined first. */
export async function trackerScript(lines: string[], plugins: Plugin[] = []): Promise<string> {
  const result = await build({
    stdin: {
      contents: ["import { createGuard } from './tracker/src/guard.js'", 'const w = window as any', 'w.guard = createGuard()', ...lines].join('\n'),
      resolveDir: fileURLToPath(new URL('../../', import.meta.url)),
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    target: 'es2020',
    write: false,
    plugins,
  })
  return result.outputFiles[0].text
}

/** A page at `url` with `script` (recorderScript's) added and the recorder started; close its context when done. */
export async function recordingPage(browser: Browser, url: string, script: string): Promise<{ context: BrowserContext; page: Page; pageErrors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 800, height: 600 } })
  const page = await context.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', (error) => pageErrors.push(String(error)))
  await page.goto(url, { waitUntil: 'load' })
  await page.addScriptTag({ content: script })
  await page.evaluate('recorder.start()')
  return { context, page, pageErrors }
}

/** Serves `page` at / and a small linked stylesheet at /linked.css on loopback, closed at the test's end; its address. */
export async function servePage(t: Test, page: string): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url === '/linked.css') res.writeHead(200, { 'content-type': 'text/css' }).end('body { margin: 4px } .x { color: #123 }')
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}
