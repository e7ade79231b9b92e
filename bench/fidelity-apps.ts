/**
 * The applications bench/fidelity.ts records and replays, each from an npm
 * package this project did not write, run from static files with no network,
 * and each visit's script with its marked moments. A moment is taken once the
 * page has settled after an interaction (transitions and fades done), so that
 * the replay, paused a little after the same instant, has the same page to
 * show. The visits are fixed scripts: two runs make the same moves.
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { ROOT } from '../test/helpers/cluster.js'

export interface FidelityApp {
  name: string
  /** What the application is, for the report. */
  what: string
  /** The page, with the tracker snippet in its head; package files are served under /m/<package>/. */
  html(snippet: string): string
  /** Waits until the application has rendered. */
  ready(page: Page): Promise<void>
  /** The visitor's script; `mark` takes the original's screenshot of a named moment. */
  visit(page: Page, mark: (name: string) => Promise<void>): Promise<void>
  /** The project's capture settings for this application (projects.capture), when not the defaults. */
  capture?: Record<string, unknown>
}

/** The packages the pages load files from (served read-only under /m/<name>/). */
export const PACKAGES: Record<string, string> = Object.fromEntries(
  ['preact', 'todomvc-app-css', 'reveal.js', 'quill', 'flatpickr', 'uplot'].map((name) => [name, join(ROOT, 'node_modules', name)]),
)

const head = (title: string, snippet: string, extra: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${extra}${snippet}</head>`

/** Moves the mouse to the centre of `selector` in a few steps, as a hand does, and clicks there. */
async function clickOn(page: Page, selector: string, options: { double?: boolean } = {}): Promise<void> {
  const box = await page.locator(selector).first().boundingBox()
  if (!box) throw new Error(`nothing to click: ${selector}`)
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 6 })
  if (options.double) await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2)
  else await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
}

/** Types at a person's pace (about 8 keys a second). */
const typeSlowly = (page: Page, text: string) => page.keyboard.type(text, { delay: 120 })

/**
 * TodoMVC in Preact 11 with the TodoMVC project's own stylesheet
 * (todomvc-app-css): the application written here as the TodoMVC
 * specification describes it (add, toggle, destroy on hover, edit on double
 * click, filters in the address's hash, clear completed).
 */
export const todomvc: FidelityApp = {
  name: 'todomvc',
  what: 'TodoMVC in Preact 11 with the TodoMVC stylesheet (todomvc-app-css): add, complete, filter by hash route, edit in place',
  html: (snippet) => `${head('Preact • TodoMVC', snippet, '<link rel="stylesheet" href="/m/todomvc-app-css/index.css">')}
<body><section class="todoapp" id="app"></section>
<footer class="info"><p>Double-click to edit a todo</p><p>Part of <a href="#">TodoMVC</a></p></footer>
<script type="importmap">{"imports":{"preact":"/m/preact/dist/preact.mjs","preact/hooks":"/m/preact/hooks/dist/hooks.mjs"}}</script>
<script type="module">
import { h, render } from 'preact'
import { useState, useEffect, useRef } from 'preact/hooks'
const route = () => (location.hash.replace('#/', '') || 'all')
function Item({ todo, update, remove }) {
  const [editing, setEditing] = useState(false)
  const field = useRef(null)
  useEffect(() => { if (editing) field.current.focus() }, [editing])
  const save = (e) => { const title = e.target.value.trim(); setEditing(false); title ? update({ ...todo, title }) : remove(todo) }
  return h('li', { class: [todo.done && 'completed', editing && 'editing'].filter(Boolean).join(' ') },
    h('div', { class: 'view' },
      h('input', { class: 'toggle', type: 'checkbox', checked: todo.done, onChange: () => update({ ...todo, done: !todo.done }) }),
      h('label', { onDblClick: () => setEditing(true) }, todo.title),
      h('button', { class: 'destroy', onClick: () => remove(todo) })),
    editing && h('input', { class: 'edit', ref: field, value: todo.title, onBlur: save, onKeyDown: (e) => e.key === 'Enter' && save(e) }))
}
function App() {
  const [todos, setTodos] = useState([])
  const [filter, setFilter] = useState(route())
  useEffect(() => { const on = () => setFilter(route()); addEventListener('hashchange', on); return () => removeEventListener('hashchange', on) }, [])
  const update = (t) => setTodos(todos.map((x) => (x.id === t.id ? t : x)))
  const remove = (t) => setTodos(todos.filter((x) => x.id !== t.id))
  const add = (e) => { if (e.key !== 'Enter' || !e.target.value.trim()) return; setTodos([...todos, { id: Date.now(), title: e.target.value.trim(), done: false }]); e.target.value = '' }
  const shown = todos.filter((t) => filter === 'all' || (filter === 'active' ? !t.done : t.done))
  const left = todos.filter((t) => !t.done).length
  const link = (name, label) => h('li', null, h('a', { href: '#/' + (name === 'all' ? '' : name), class: filter === name ? 'selected' : '' }, label))
  return [
    h('header', { class: 'header' }, h('h1', null, 'todos'), h('input', { class: 'new-todo', placeholder: 'What needs to be done?', autofocus: true, onKeyDown: add })),
    todos.length > 0 && h('main', { class: 'main' },
      h('div', { class: 'toggle-all-container' }, h('input', { id: 'toggle-all', class: 'toggle-all', type: 'checkbox', checked: left === 0, onChange: () => setTodos(todos.map((t) => ({ ...t, done: left > 0 }))) }), h('label', { class: 'toggle-all-label', for: 'toggle-all' }, 'Mark all as complete')),
      h('ul', { class: 'todo-list' }, shown.map((t) => h(Item, { key: t.id, todo: t, update, remove })))),
    todos.length > 0 && h('footer', { class: 'footer' },
      h('span', { class: 'todo-count' }, h('strong', null, left), left === 1 ? ' item left' : ' items left'),
      h('ul', { class: 'filters' }, link('all', 'All'), link('active', 'Active'), link('completed', 'Completed')),
      todos.length > left && h('button', { class: 'clear-completed', onClick: () => setTodos(todos.filter((t) => !t.done)) }, 'Clear completed')),
  ]
}
render(h(App), document.getElementById('app'))
</script></body></html>`,
  ready: (page) => page.waitForSelector('.new-todo').then(() => undefined),
  async visit(page, mark) {
    await clickOn(page, '.new-todo')
    for (const title of ['Buy oat milk', 'Book the dentist', 'Water the ferns']) {
      await typeSlowly(page, title)
      await page.keyboard.press('Enter')
    }
    await mark('three todos typed')
    await clickOn(page, '.todo-list li:nth-child(2) .toggle')
    await page.mouse.move(500, 250, { steps: 5 }) // over the first row: its destroy button shows on hover
    await mark('one done, hovering a row')
    await clickOn(page, '.filters a[href="#/active"]')
    await mark('Active filter')
    await clickOn(page, '.todo-list li:nth-child(1) label', { double: true })
    await page.keyboard.press('End')
    await typeSlowly(page, ' and oats')
    await mark('editing a todo')
    await page.keyboard.press('Enter')
    await clickOn(page, '.filters a[href="#/"]')
    await mark('back to All, edited')
  },
}

/** A reveal.js presentation (its white theme, fonts inlined in the stylesheet): slides, fragments, a vertical stack and the overview. */
export const reveal: FidelityApp = {
  name: 'reveal',
  what: 'A reveal.js 6 presentation (white theme): slide transitions, fragments, a vertical stack, the overview',
  html: (snippet) => `${head('Quarterly review', snippet, '<link rel="stylesheet" href="/m/reveal.js/dist/reset.css"><link rel="stylesheet" href="/m/reveal.js/dist/reveal.css"><link rel="stylesheet" href="/m/reveal.js/dist/theme/white.css">')}
<body><div class="reveal"><div class="slides">
<section><h2>Quarterly review</h2><p>Platform team · Q4</p><p><small>Press → to go on</small></p></section>
<section><h3>What we shipped</h3><ul><li class="fragment">Replays of canvas charts</li><li class="fragment">Cross-origin frames</li><li class="fragment">A faster tracker</li></ul></section>
<section><section><h3>Numbers</h3><table><thead><tr><th>Metric</th><th>Q3</th><th>Q4</th></tr></thead><tbody><tr><td>Sessions</td><td>1.2 M</td><td>1.9 M</td></tr><tr><td>p95 seek</td><td>640 ms</td><td>210 ms</td></tr><tr><td>Errors</td><td>0.4 %</td><td>0.1 %</td></tr></tbody></table></section>
<section><h3>In detail</h3><pre><code>npm run bench:fidelity
npm run bench:replay</code></pre><blockquote>Measure, then change one thing.</blockquote></section></section>
<section data-background-color="#2d3748"><h3 style="color:#fff">Next quarter</h3><p style="color:#e2e8f0">Fewer bytes, same pixels.</p></section>
</div></div>
<script src="/m/reveal.js/dist/reveal.js"></script>
<script>Reveal.initialize({ hash: true, controls: true, progress: true, center: true })</script></body></html>`,
  ready: (page) => page.waitForSelector('.reveal.ready').then(() => undefined),
  async visit(page, mark) {
    await mark('title slide')
    await page.keyboard.press('ArrowRight')
    await mark('second slide')
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    await mark('two fragments shown')
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    await mark('table slide')
    await page.keyboard.press('ArrowDown')
    await mark('vertical slide')
    await page.keyboard.press('Escape')
    await mark('overview')
    await page.keyboard.press('Escape')
    await page.keyboard.press('ArrowRight')
    await mark('slide with a background')
  },
}

/** Quill 2's rich text editor with its snow theme and full toolbar, as a note editor. */
export const quill: FidelityApp = {
  name: 'quill',
  what: 'Quill 2 rich text editor (snow theme, toolbar): typing, a heading from the picker, a list, the link tooltip, a scroll inside the editor',
  html: (snippet) => `${head('Notes', snippet, '<link rel="stylesheet" href="/m/quill/dist/quill.snow.css"><style>body{font-family:sans-serif;margin:24px 40px;background:#fafafa}#editor{height:480px;background:#fff}</style>')}
<body><h1 style="font-size:22px">Meeting notes</h1><div id="editor"></div>
<script src="/m/quill/dist/quill.js"></script>
<script>window.quill = new Quill('#editor', { theme: 'snow', placeholder: 'Write your notes…', modules: { toolbar: [[{ header: [1, 2, 3, false] }], ['bold', 'italic', 'underline', 'strike'], [{ color: [] }, { background: [] }], [{ list: 'ordered' }, { list: 'bullet' }], ['link', 'blockquote', 'code-block'], ['clean']] } })</script></body></html>`,
  ready: (page) => page.waitForSelector('.ql-editor').then(() => undefined),
  async visit(page, mark) {
    await clickOn(page, '.ql-editor')
    await typeSlowly(page, 'Release plan')
    await page.keyboard.press('Enter')
    await typeSlowly(page, 'We ship on Thursday after the replay checks pass.')
    await mark('two lines typed')
    await page.keyboard.press('Control+Home')
    await clickOn(page, '.ql-header .ql-picker-label')
    await mark('header picker open')
    await clickOn(page, '.ql-header .ql-picker-item[data-value="1"]')
    await page.keyboard.press('Control+End')
    await page.keyboard.press('Enter')
    await clickOn(page, 'button.ql-list[value="bullet"]')
    await typeSlowly(page, 'Check the fidelity table')
    await page.keyboard.press('Enter')
    await typeSlowly(page, 'Tell support')
    await mark('heading and a list')
    await page.keyboard.press('Shift+Home')
    await clickOn(page, 'button.ql-link')
    await typeSlowly(page, 'support.example')
    await mark('link tooltip')
    await page.keyboard.press('Enter')
    await page.keyboard.press('End')
    await clickOn(page, 'h1')
    await mark('link saved')
    // Enough lines to overflow the editor, then a scroll inside it.
    await clickOn(page, '.ql-editor li:last-child')
    await page.keyboard.press('End')
    for (let i = 1; i <= 24; i++) {
      await page.keyboard.press('Enter')
      await page.keyboard.type(`Follow-up item ${i}`, { delay: 15 })
    }
    await mark('long list, end in view')
    await page.mouse.move(640, 400, { steps: 4 })
    for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -120)
    await mark('editor scrolled up')
  },
}

/** A booking form with flatpickr's date range and time pickers (its light theme). */
export const flatpickr: FidelityApp = {
  name: 'flatpickr',
  what: 'A booking form with flatpickr 4 (date range in two months, time picker): the calendar opens, months move, a range is picked; the page scrolls to the rooms',
  html: (snippet) => `${head('Book a room', snippet, '<link rel="stylesheet" href="/m/flatpickr/dist/flatpickr.min.css"><style>body{font-family:sans-serif;margin:40px;color:#222}label{display:block;margin:14px 0 4px;font-weight:600}input,select{font:inherit;padding:8px 10px;width:320px;border:1px solid #bbb;border-radius:6px}input:focus{outline:2px solid #3b82f6;outline-offset:1px}button{margin-top:18px;padding:10px 18px;font:inherit;background:#1d4ed8;color:#fff;border:0;border-radius:6px}</style>')}
<body><h1>Book a meeting room</h1><form onsubmit="return false">
<label for="name">Your name</label><input id="name" autocomplete="off">
<label for="dates">Dates</label><input id="dates" placeholder="Pick the first and last day">
<label for="time">Arrival</label><input id="time" placeholder="Time">
<label for="room">Room</label><select id="room"><option>Ada (6 seats)</option><option>Grace (12 seats)</option></select>
<br><button type="submit">Book</button></form>
<h2>Rooms</h2><div style="display:grid;grid-template-columns:repeat(2,320px);gap:16px">${['Ada', 'Grace', 'Hedy', 'Katherine', 'Margaret', 'Radia', 'Barbara', 'Frances'].map((name, i) => `<article style="border:1px solid #ddd;border-radius:8px;padding:14px;height:130px;background:linear-gradient(135deg,hsl(${i * 40},60%,92%),#fff)"><h3 style="margin:0 0 6px">${name}</h3><p style="margin:0">${4 + i * 2} seats · screen · whiteboard</p></article>`).join('')}</div>
<script src="/m/flatpickr/dist/flatpickr.min.js"></script>
<script>
flatpickr('#dates', { mode: 'range', showMonths: 2, defaultDate: null, minDate: '2030-01-01', now: new Date(2030, 0, 10), dateFormat: 'Y-m-d' })
flatpickr('#time', { enableTime: true, noCalendar: true, dateFormat: 'H:i', time_24hr: true, defaultHour: 9 })
</script></body></html>`,
  ready: (page) => page.waitForSelector('.flatpickr-calendar', { state: 'attached' }).then(() => undefined),
  async visit(page, mark) {
    await clickOn(page, '#name')
    await typeSlowly(page, 'Grace Hopper')
    await mark('name typed')
    await clickOn(page, '#dates')
    await mark('calendar open')
    await clickOn(page, '.flatpickr-calendar.open .flatpickr-next-month')
    await clickOn(page, '.flatpickr-calendar.open .flatpickr-day[aria-label="February 12, 2030"]')
    await clickOn(page, '.flatpickr-calendar.open .flatpickr-day[aria-label="February 16, 2030"]')
    await mark('range picked')
    await clickOn(page, '#time')
    await mark('time picker open')
    await clickOn(page, 'h1')
    await mark('form filled')
    for (let i = 0; i < 5; i++) await page.mouse.wheel(0, 140)
    await mark('scrolled to the rooms')
  },
}

/**
 * A uPlot chart (canvas: series, axes and grid) with its DOM legend and
 * cursor, recorded with the project's canvas capture on (sampled frames,
 * issue 46): what the player paints on a canvas is compared too.
 */
export const uplot: FidelityApp = {
  name: 'uplot',
  what: 'A uPlot 1.6 time-series chart (canvas, with a DOM legend and cursor), canvas capture on at its defaults (2 frames a second, WebP 0.6): hover, a series hidden from the legend, a drag to zoom',
  capture: { canvas: true },
  html: (snippet) => `${head('Traffic', snippet, '<link rel="stylesheet" href="/m/uplot/dist/uPlot.min.css"><style>body{font-family:sans-serif;margin:24px 40px}</style>')}
<body><h1 style="font-size:22px">Requests per minute</h1><div id="chart"></div>
<script src="/m/uplot/dist/uPlot.iife.min.js"></script>
<script>
const xs = Array.from({ length: 240 }, (_, i) => 1893456000 + i * 60)
const wave = (k, a, b) => xs.map((_, i) => Math.round(a + b * Math.sin(i / k) + (b / 3) * Math.sin(i / (k / 5))))
new uPlot({ width: 1180, height: 440, series: [{}, { label: 'ingest', stroke: '#1570ef', width: 2 }, { label: 'reads', stroke: '#d92d20', width: 2 }, { label: 'errors', stroke: '#067647', width: 2, fill: 'rgba(6,118,71,0.1)' }], axes: [{}, {}] }, [xs, wave(18, 700, 220), wave(11, 420, 140), wave(25, 90, 60)], document.getElementById('chart'))
</script></body></html>`,
  ready: (page) => page.waitForSelector('.uplot canvas').then(() => undefined),
  async visit(page, mark) {
    await mark('chart drawn')
    const plot = await page.locator('.u-over').boundingBox()
    if (!plot) throw new Error('no plot area')
    await page.mouse.move(plot.x + plot.width * 0.4, plot.y + plot.height * 0.5, { steps: 8 })
    await mark('cursor on the chart')
    await clickOn(page, '.u-legend .u-series:nth-child(3)')
    await mark('a series hidden')
    await page.mouse.move(plot.x + plot.width * 0.3, plot.y + plot.height * 0.5, { steps: 6 })
    await page.mouse.down()
    await page.mouse.move(plot.x + plot.width * 0.6, plot.y + plot.height * 0.5, { steps: 10 })
    await page.mouse.up()
    await page.mouse.move(plot.x + plot.width + 40, plot.y - 30, { steps: 6 })
    await mark('zoomed in')
  },
}

export const APPS: FidelityApp[] = [todomvc, reveal, quill, flatpickr, uplot]
