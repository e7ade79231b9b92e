/**
 * Chromium's share of `npm run coverage`: the tracker and the dashboard run
 * in pages, where Node's NODE_V8_COVERAGE does not reach. When the run sets
 * SVC_BROWSER_COVERAGE (a directory), every page a test opens records V8
 * JavaScript coverage, and the entries for the service's own bundles
 * (dist/public/, built with source maps for the run) are written there in
 * Node's format; browser-coverage-report.ts maps them to their sources.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ROOT } from '../helpers/cluster.js'

const PUBLIC = join(ROOT, 'dist', 'public')
let written = 0

/** The built file a page loaded from the service, if the page ran exactly its bytes. */
function builtFile(url: string, source: string | undefined): string | undefined {
  let path: string
  try {
    path = new URL(url).pathname
  } catch {
    return undefined
  }
  const name = /^\/(tracker|capture|stub)\.js$/.test(path) ? path.slice(1) : /^\/app\/[\w.-]+\.js$/.test(path) ? path.slice(1) : undefined
  if (!name) return undefined
  const file = join(PUBLIC, name)
  // A test may serve a bundle of its own under the same name (an edited rrweb): only the build's bytes map to its sources.
  return existsSync(file) && source === readFileSync(file, 'utf8') ? file : undefined
}

async function flush(dir: string, page: Page, started: Promise<unknown> | undefined): Promise<void> {
  if (!started || page.isClosed()) return
  await started
  const entries = await page.coverage.stopJSCoverage().catch(() => [])
  const result = entries.flatMap((entry) => {
    const file = builtFile(entry.url, entry.source)
    return file ? [{ scriptId: entry.scriptId, url: pathToFileURL(file).href, functions: entry.functions }] : []
  })
  if (result.length) writeFileSync(join(dir, `coverage-chromium-${process.pid}-${Date.now()}-${written++}.json`), JSON.stringify({ result }))
}

/** Records coverage in every page of `context`, written when a page or the context closes. */
function watchContext(dir: string, context: BrowserContext): void {
  const started = new Map<Page, Promise<unknown>>()
  context.on('page', (page) => {
    started.set(page, page.coverage.startJSCoverage({ resetOnNavigation: false }).catch(() => undefined))
    const close = page.close.bind(page)
    page.close = async (options) => {
      await flush(dir, page, started.get(page))
      started.delete(page)
      return close(options)
    }
  })
  const closeContext = context.close.bind(context)
  context.close = async (options) => {
    await Promise.all([...started].map(([page, promise]) => flush(dir, page, promise)))
    started.clear()
    return closeContext(options)
  }
}

/** Has every context of `browser` record coverage, when the run asks for it (SVC_BROWSER_COVERAGE). */
export function recordBrowserCoverage(browser: Browser): void {
  const dir = process.env.SVC_BROWSER_COVERAGE
  if (!dir) return
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (options) => {
    const context = await newContext(options)
    watchContext(dir, context)
    return context
  }
  // Contexts a test leaves open are written before the browser goes.
  const close = browser.close.bind(browser)
  browser.close = async (options) => {
    await Promise.all(browser.contexts().map((context) => context.close().catch(() => undefined)))
    return close(options)
  }
}
