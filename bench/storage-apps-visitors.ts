/**
 * The applications bench/storage-apps.ts records, and their scripted visitors.
 * Each application ships in an npm package this project did not write:
 * swagger-ui-dist (an API reference in React, here showing this service's own
 * OpenAPI document), monaco-editor (the code editor of VS Code, here editing
 * one of this repository's source files) and tabulator-tables (a data grid
 * that renders only the rows in view, here 5,000 orders being scrolled). A visitor is a list of human-paced
 * actions drawn from a seeded generator, so two runs with one seed make the
 * same moves and an A/B compares like with like.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { extname, join, normalize } from 'node:path'
import type { Page } from 'playwright-core'
import { ROOT } from '../test/helpers/cluster.js'
import { generator } from './payloads.js'

export interface Visit {
  rand: () => number
  page: Page
  /** Human pause between actions: 1 to 4 s. */
  pause(): Promise<void>
  /** Moves the mouse to (x, y) in steps, as a hand does (about 60 ms per step). */
  moveTo(x: number, y: number): Promise<void>
  /** Types at 90 to 220 ms a key. */
  type(text: string): Promise<void>
}

export interface App {
  name: string
  /** What the application is, for the report. */
  what: string
  /** Files the static server serves under /<name>/ (URL path → file on disk). */
  root: string
  /** The page, with the tracker snippet in its head. */
  html(snippet: string): string
  /** Waits until the application has rendered. */
  ready(page: Page): Promise<void>
  /** One action of the visitor (chosen from the seeded generator). */
  act(visit: Visit): Promise<void>
}

export function visitFor(page: Page, seed: number): Visit {
  const rand = generator(seed)
  let mouse = { x: 400, y: 300 }
  const wait = (ms: number) => page.waitForTimeout(ms)
  return {
    rand,
    page,
    pause: () => wait(1000 + rand() * 3000),
    async moveTo(x, y) {
      const steps = 5 + Math.floor(rand() * 10)
      for (let i = 1; i <= steps; i++) {
        await page.mouse.move(mouse.x + ((x - mouse.x) * i) / steps, mouse.y + ((y - mouse.y) * i) / steps)
        await wait(40 + rand() * 40)
      }
      mouse = { x, y }
    },
    async type(text) {
      for (const key of text) {
        await page.keyboard.type(key)
        await wait(90 + rand() * 130)
      }
    },
  }
}

const MODULES = join(ROOT, 'node_modules')
const pick = <T>(rand: () => number, items: T[]): T => items[Math.floor(rand() * items.length) % items.length]

/** Clicks the element, moving the mouse there first; false when there is none visible. */
async function clickSome(visit: Visit, selector: string): Promise<boolean> {
  const boxes = await visit.page.$$eval(selector, (els) =>
    els
      .map((el) => el.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight)
      .map((r) => ({ x: r.left + r.width / 2, y: r.top + r.height / 2 })),
  )
  if (!boxes.length) return false
  const box = pick(visit.rand, boxes)
  await visit.moveTo(box.x, box.y)
  await visit.page.mouse.click(box.x, box.y)
  return true
}

async function scroll(visit: Visit): Promise<void> {
  const down = visit.rand() < 0.7
  for (let i = 0; i < 3 + Math.floor(visit.rand() * 5); i++) {
    await visit.page.mouse.wheel(0, (down ? 1 : -1) * (80 + visit.rand() * 120))
    await visit.page.waitForTimeout(60 + visit.rand() * 100)
  }
}

/** Swagger UI showing the service's own OpenAPI document (served at /swagger/spec.json by the bench). */
export const swagger: App = {
  name: 'swagger',
  what: 'Swagger UI (swagger-ui-dist, React, 1.7 MB of JavaScript, one 188 KB stylesheet) on this service\'s OpenAPI document',
  root: join(MODULES, 'swagger-ui-dist'),
  html: (snippet) => `<!doctype html><html><head><meta charset="utf-8"><title>API reference</title>
<link rel="stylesheet" href="/swagger/swagger-ui.css">${snippet}</head>
<body><div id="swagger-ui"></div><script src="/swagger/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/swagger/spec.json', dom_id: '#swagger-ui', deepLinking: true })</script></body></html>`,
  ready: (page) => page.waitForSelector('.opblock-summary', { timeout: 60_000 }).then(() => undefined),
  async act(visit) {
    const roll = visit.rand()
    if (roll < 0.3) await clickSome(visit, '.opblock-summary-path, .opblock-summary-description')
    else if (roll < 0.4) await clickSome(visit, '.try-out__btn')
    else if (roll < 0.55) {
      if (await clickSome(visit, '.opblock-body input[type=text], .opblock-body textarea')) await visit.type(pick(visit.rand, ['prj_8f3a2', 'svc_pk_demo', '{"limit": 20}', 'from=2026-11-01', 'checkout']))
    } else if (roll < 0.65) await clickSome(visit, '.model-box-control, .models-control, .model-toggle')
    else if (roll < 0.72) await clickSome(visit, '.opblock-tag')
    else await scroll(visit)
  },
}

/** Monaco editing a copy of one of this repository's source files (TypeScript, with its language service). */
export const monaco: App = {
  name: 'monaco',
  what: 'Monaco editor (monaco-editor, the editor of VS Code; 4 MB of JavaScript, its own CSS) editing a 180-line TypeScript file',
  root: join(MODULES, 'monaco-editor'),
  html(snippet) {
    const source = readFileSync(join(MODULES, '..', 'src', 'front', 'ingest.ts'), 'utf8')
    return `<!doctype html><html><head><meta charset="utf-8"><title>Editor</title>${snippet}
<style>html,body{margin:0;height:100%}#editor{height:100vh}</style></head>
<body><div id="editor"></div><script src="/monaco/min/vs/loader.js"></script>
<script>require.config({ paths: { vs: '/monaco/min/vs' } });
require(['vs/editor/editor.main'], function () {
  window.editor = monaco.editor.create(document.getElementById('editor'), { value: ${JSON.stringify(source).replace(/</g, '\\u003c')}, language: 'typescript', automaticLayout: true })
})</script></body></html>`
  },
  ready: (page) => page.waitForSelector('.monaco-editor .view-line', { timeout: 60_000 }).then(() => undefined),
  async act(visit) {
    const roll = visit.rand()
    const { page } = visit
    if (roll < 0.45) {
      // Click into a line, end of it, a new line of code.
      await clickSome(visit, '.view-line')
      await page.keyboard.press('End')
      await page.keyboard.press('Enter')
      await visit.type(pick(visit.rand, ['const total = items.length', 'if (!known) return', 'log.info(\'stored\', { seq })', 'await queue.flush()', '// retry later']))
    } else if (roll < 0.55) {
      await page.keyboard.press('Control+f')
      await visit.type(pick(visit.rand, ['deps', 'refuse', 'res', 'metrics']))
      await page.waitForTimeout(800)
      await page.keyboard.press('Enter')
      await page.keyboard.press('Escape')
    } else if (roll < 0.65) {
      for (let i = 0; i < 4; i++) {
        await page.keyboard.press(pick(visit.rand, ['ArrowDown', 'ArrowDown', 'ArrowUp', 'ArrowRight']))
        await page.waitForTimeout(150 + visit.rand() * 150)
      }
    } else if (roll < 0.7) {
      await page.keyboard.press('Control+z')
    } else await scroll(visit)
  },
}

/** Tabulator's virtual DOM: rows are rendered as they scroll into view and dropped as they leave, under new ids each time. */
export const grid: App = {
  name: 'grid',
  what: 'Tabulator (tabulator-tables, a virtualised data grid; 450 KB of JavaScript, its own CSS) showing 5,000 orders, scrolled, sorted and edited',
  root: join(MODULES, 'tabulator-tables', 'dist'),
  html: (snippet) => `<!doctype html><html><head><meta charset="utf-8"><title>Orders</title>
<link rel="stylesheet" href="/grid/css/tabulator.min.css">${snippet}<style>body{margin:0}</style></head>
<body><div id="grid"></div><script src="/grid/js/tabulator.min.js"></script>
<script>
  const names = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Edsger Dijkstra', 'Barbara Liskov', 'Donald Knuth', 'Margaret Hamilton', 'Ken Thompson']
  const states = ['paid', 'shipped', 'refunded', 'pending']
  const data = Array.from({ length: 5000 }, (_, i) => ({ id: 10000 + i, customer: names[i % 8], state: states[(i * 7) % 4], total: ((i * 37) % 900) + 0.99, items: (i % 9) + 1, placed: '2026-' + String((i % 12) + 1).padStart(2, '0') + '-' + String((i % 28) + 1).padStart(2, '0') }))
  window.table = new Tabulator('#grid', { data, height: '100vh', layout: 'fitColumns', columns: [
    { title: 'Order', field: 'id', width: 90 }, { title: 'Customer', field: 'customer', editor: 'input' }, { title: 'State', field: 'state', editor: 'list', editorParams: { values: states } },
    { title: 'Total', field: 'total', hozAlign: 'right', formatter: 'money' }, { title: 'Items', field: 'items', hozAlign: 'right' }, { title: 'Placed', field: 'placed' } ] })
</script></body></html>`,
  ready: (page) => page.waitForSelector('.tabulator-row', { timeout: 60_000 }).then(() => undefined),
  async act(visit) {
    const roll = visit.rand()
    if (roll < 0.6) await scroll(visit)
    else if (roll < 0.7) await clickSome(visit, '.tabulator-col-title')
    else if (roll < 0.85) {
      if (await clickSome(visit, '.tabulator-cell[tabulator-field=customer]')) {
        await visit.type(pick(visit.rand, [' Jr', ' (VIP)', 'x']))
        await visit.page.keyboard.press('Enter')
      }
    } else await visit.moveTo(100 + visit.rand() * 1000, 100 + visit.rand() * 600)
  },
}

export const APPS: App[] = [swagger, monaco, grid]

/** Answers a request for the page `pages` holds at `path`, Swagger UI's spec, or one of its own files (under /swagger/); 404 otherwise. */
export function servePages(pages: Record<string, string>, spec: string, path: string, res: ServerResponse): void {
  if (pages[path]) return void res.writeHead(200, { 'content-type': 'text/html' }).end(pages[path])
  if (path === '/swagger/spec.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(spec)
  // Swagger UI's own files, from its npm package.
  const file = normalize(join(swagger.root, path.replace(/^\/swagger\//, '')))
  if (!path.startsWith('/swagger/') || !file.startsWith(swagger.root) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end()
  res.writeHead(200, { 'content-type': extname(file) === '.css' ? 'text/css' : 'text/javascript' }).end(readFileSync(file))
}
