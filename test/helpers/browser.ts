/**
 * Browser tests of the tracker: Debian's Chromium driven by playwright-core,
 * fixture pages from test/fixtures/tracker/ served by a tiny node:http server
 * on loopback, and the real cluster the tracker sends to. One browser per
 * test file; each test gets its own context (its own storage and cookies).
 */
import { readFileSync, existsSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { Browser, BrowserContext, Page, Request } from 'playwright-core'
import { launchChromium } from './chromium.js'
import { snippetFor } from '../../src/install/snippet.js'
import { expandedEvents, SessionContents } from '../../src/recordings/compact-mutations.js'
import type { SignalsRecord, Store } from '../../src/store/store.js'
import { ROOT } from './cluster.js'
import { recordBrowserCoverage } from '../support/browser-coverage.js'
import { profiled } from '../support/profile-events.js'

export { until } from './until.js'

export const FIXTURES = join(ROOT, 'test', 'fixtures', 'tracker')
export const ARTIFACTS = join(ROOT, 'test', 'artifacts')

interface Teardown {
  teardown(fn: () => unknown): void
}

export async function launchBrowser(t: Teardown): Promise<Browser> {
  const browser = await profiled('browser', () =>
    launchChromium(),
  )
  t.teardown(() => browser.close())
  recordBrowserCoverage(browser)
  // Test files run under tsx, whose esbuild keeps function names by wrapping functions in `__name(fn, "name")`:
  // a function handed to page.evaluate carries that call into the page, where nothing defines it.
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (options) => {
    const context = await newContext(options)
    await context.addInitScript('globalThis.__name = (target) => target')
    return context
  }
  return browser
}

export interface FixtureOptions {
  clusterUrl: string
  publicKey: string
}

export interface FixtureServer {
  url: string
  /** Paths requested so far, in order. */
  requests: string[]
}

export const NONCE = 'svcTestNonce123'

/**
 * Serves the fixture pages. In a page, {{SNIPPET}} becomes the install snippet
 * from src/install/snippet.ts (the one the server prints), {{KEY}} the public key,
 * {{CLUSTER}} the service address and {{NONCE}} the CSP nonce. `csp-*.html`
 * pages are served with a strict CSP (nonce and strict-dynamic), `csp-nonce-*.html`
 * with a nonce-only one. Any path under /spa/ serves spa.html. Everything is
 * served `no-store` but for a path asked with `?cached`.
 */
export async function fixtureServer(t: Teardown, options: FixtureOptions): Promise<FixtureServer> {
  const requests: string[] = []
  const server = createServer((req: IncomingMessage, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    requests.push(path)
    const name = path.startsWith('/spa/') ? 'spa.html' : path.slice(1) || 'index.html'
    const file = join(FIXTURES, name)
    if (name.includes('..') || !existsSync(file)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
      return
    }
    let body = readFileSync(file, 'utf8')
    const type = name.endsWith('.js') ? 'text/javascript' : name.endsWith('.css') ? 'text/css' : 'text/html; charset=utf-8'
    // `?cached`: a file the browser keeps, as a site's stylesheets usually are (the tracker reads those from the cache).
    const cached = new URL(req.url ?? '/', 'http://x').search === '?cached'
    const headers: Record<string, string> = { 'content-type': type, 'cache-control': cached ? 'max-age=600' : 'no-store' }
    if (name.endsWith('.html')) {
      let snippet = snippetFor(options.publicKey, options.clusterUrl)
      if (name.startsWith('csp-nonce-')) {
        snippet = snippet.replace('<script ', `<script nonce="${NONCE}" `)
        // Nonce only, no 'strict-dynamic': every script the tracker adds must carry the nonce itself; no eval, no inline.
        headers['content-security-policy'] = [`script-src 'nonce-${NONCE}'`, `connect-src 'self' ${options.clusterUrl}`, `object-src 'none'`, `base-uri 'none'`].join('; ')
      } else if (name.startsWith('csp-')) {
        snippet = snippet.replace('<script ', `<script nonce="${NONCE}" `)
        // Google's "strict CSP": nonce plus strict-dynamic for scripts, nothing else loads or connects outside the list.
        headers['content-security-policy'] = [
          `script-src 'nonce-${NONCE}' 'strict-dynamic'`,
          `object-src 'none'`,
          `base-uri 'none'`,
          `default-src 'self'`,
          `connect-src 'self' ${options.clusterUrl}`,
          `worker-src 'none'`,
          `style-src 'self' 'nonce-${NONCE}'`,
        ].join('; ')
      }
      body = body.replaceAll('{{SNIPPET}}', snippet).replaceAll('{{KEY}}', options.publicKey).replaceAll('{{CLUSTER}}', options.clusterUrl).replaceAll('{{NONCE}}', NONCE)
    }
    res.writeHead(200, headers).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { url: `http://127.0.0.1:${port}`, requests }
}

export interface TrackedPage {
  page: Page
  context: BrowserContext
  /** Uncaught errors in the page (playwright's `pageerror`). */
  pageErrors: Error[]
  /** Every request the page made, as URLs. */
  requests: Request[]
  close(): Promise<void>
}

export interface PageOptions {
  /** Replace requestIdleCallback with one that never fires, so that only an interaction loads the tracker. */
  noIdle?: boolean
  viewport?: { width: number; height: number }
}

export async function openPage(browser: Browser, options: PageOptions = {}): Promise<TrackedPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1024, height: 768 } })
  const page = await context.newPage()
  const pageErrors: Error[] = []
  const requests: Request[] = []
  page.on('pageerror', (error) => pageErrors.push(error))
  page.on('request', (request) => requests.push(request))
  if (options.noIdle) await page.addInitScript('window.requestIdleCallback = function () { return 0 }')
  return { page, context, pageErrors, requests, close: () => context.close() }
}

/** Waits until the tracker runs in the page (after the interaction that starts it). */
export async function trackerStarted(page: Page): Promise<void> {
  // A function, not a string: Playwright evals a string predicate in the page, which a strict CSP (no 'unsafe-eval') refuses.
  await page.waitForFunction(
    () => {
      const svc = (window as unknown as { svc?: ((command: string) => { started?: boolean } | undefined) & { v?: string } }).svc
      return typeof svc === 'function' && !!svc.v && svc('stats')?.started === true
    },
    undefined,
    { timeout: 30_000 },
  )
}

/** Asks the tracker to send what it holds now (the `flush` command) and waits for the uploads to be answered. */
export async function flushTracker(page: Page): Promise<void> {
  await page.evaluate('window.svc("flush")')
}

export interface StoredChunk {
  sk: string
  seq: number
  pageIndex: number
  encoding: 'gzip' | 'json'
  /** The stored bytes, decompressed: what to search for leaks. */
  text: string
  events: any[]
}

/** Every stored chunk of a project, decompressed, in session and seq order. */
export function storedChunks(store: Store, projectId: string): StoredChunk[] {
  const chunks: StoredChunk[] = []
  for (const session of store.listSessions(projectId)) {
    // Added nodes name contents their page view's earlier chunks wrote: one dictionary per session, read in seq order.
    const contents = new SessionContents()
    for (const info of store.listChunks(projectId, session.sk)) {
      const bytes = store.getChunk(projectId, session.sk, info.seq)
      if (!bytes) continue
      const raw = Buffer.from(bytes)
      const text = (info.encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')
      // `text` as stored; `events` as sessions.events answers them, with the adds the tracker wrote compactly put back.
      const events = expandedEvents(JSON.parse(text) as unknown[], contents, info.pageIndex)
      chunks.push({ sk: session.sk, seq: info.seq, pageIndex: info.pageIndex, encoding: info.encoding, text, events })
    }
  }
  return chunks
}

export function storedSignals(store: Store, projectId: string): SignalsRecord[] {
  return Array.from(store.listSignals(projectId), (entry) => entry.batch)
}
