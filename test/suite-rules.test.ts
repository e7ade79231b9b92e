/**
 * Rules the suite keeps about itself, checked by reading its source.
 *
 * "Timers, retention, throttles and deadlines in tests run on an injected
 * clock; a test that sleeps more than 100 ms says why in a comment." Real
 * sleeps make the suite slow and flaky, so every one longer than 100 ms
 * carries a `//` comment on its line or the line above saying why it cannot
 * poll for what it waits for (a real clock in the browser under test, a
 * timer of the real service, a deliberately slow client...).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const TEST_DIR = fileURLToPath(new URL('.', import.meta.url))
const SELF = fileURLToPath(import.meta.url)
const LIMIT_MS = 100

interface Sleep {
  line: number
  ms: number
  commented: boolean
}

/** The text of the call's arguments from the `(` at `open` to its matching `)` (or the end of the text). */
function argumentsAt(text: string, open: number): string {
  let depth = 0
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i)
  }
  return text.slice(open + 1)
}

/** The top-level arguments of a call, split on commas outside nested brackets. */
function splitArguments(args: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < args.length; i++) {
    if ('([{'.includes(args[i])) depth++
    else if (')]}'.includes(args[i])) depth--
    else if (args[i] === ',' && depth === 0) parts.push(args.slice(start, i)), (start = i + 1)
  }
  return [...parts, args.slice(start)].map((p) => p.trim())
}

/** The leading literal of a delay (`1_000`, `200 + random() * 1000`); NaN when it starts with anything else (a variable, Math.max...). */
function leadingMs(expression: string | undefined): number {
  const literal = /^(\d[\d_]*(?:\.\d+)?)/.exec(expression ?? '')
  return literal ? Number(literal[1].replaceAll('_', '')) : NaN
}

/** Every real sleep longer than LIMIT_MS in `source`, with whether it carries a comment. */
function findSleeps(source: string): Sleep[] {
  const lines = source.split('\n')
  const lineAt = (index: number) => source.slice(0, index).split('\n').length
  // A comment at the end of the sleep's line (after whitespace: not the `//` of a URL), or a comment line just above it.
  const trailing = (n: number) => /\s\/\/\s*\S/.test(lines[n - 1])
  const above = (n: number) => /^\s*\/\/\s*\S/.test(lines[n - 2] ?? '')
  const found = new Map<number, Sleep>()
  const add = (index: number, ms: number) => {
    const line = lineAt(index)
    if (ms > LIMIT_MS && !found.has(line)) found.set(line, { line, ms, commented: trailing(line) || above(line) })
  }
  // sleep(N), delay(N), page.waitForTimeout(N): the first argument is the wait. Not t.setTimeout, tap's own time limit.
  for (const m of source.matchAll(/(?<![\w.])(?:sleep|delay)\(|\bwaitForTimeout\(/g)) add(m.index, leadingMs(splitArguments(argumentsAt(source, m.index + m[0].length - 1))[0]))
  // new Promise((resolve) => ... setTimeout(resolve, N)) or setTimeout(() => resolve(...), N): a timer that only resolves the promise.
  for (const m of source.matchAll(/new Promise\s*(?:<[^>]*>)?\(\s*\(?\s*(\w+)/g)) {
    const open = m.index + m[0].indexOf('(')
    const body = argumentsAt(source, open)
    const timer = new RegExp(`(?<![\\w.])setTimeout\\(\\s*(?:${m[1]}\\s*,|\\(\\)\\s*=>\\s*\\{?\\s*${m[1]}\\()`, 'g')
    for (const s of body.matchAll(timer)) {
      const at = open + 1 + s.index
      add(at, leadingMs(splitArguments(argumentsAt(source, at + 'setTimeout'.length))[1]))
    }
  }
  return [...found.values()].sort((a, b) => a.line - b.line)
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

t.test('the scanner finds an uncommented sleep and accepts a commented one', async (t) => {
  const source = [
    'await new Promise((r) => setTimeout(r, 1_000))',
    'await page.waitForTimeout(300) // the tracker batches for 250 ms of real time',
    '// a deliberately slow client',
    'await new Promise<void>((resolve) => { setTimeout(() => resolve(), 200 + random() * 1000) })',
    'await sleep(50)',
    't.setTimeout(60_000)',
    'await until(() => done, 5_000)',
    'await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())))',
  ].join('\n')
  t.same(findSleeps(source), [
    { line: 1, ms: 1000, commented: false },
    { line: 2, ms: 300, commented: true },
    { line: 4, ms: 200, commented: true },
  ])
})

t.test(`every sleep over ${LIMIT_MS} ms in test/ says why in a comment`, async (t) => {
  const files = testFiles(TEST_DIR).filter((file) => file !== SELF) // this file plants sleeps in its own examples
  t.ok(files.length > 100, `scanned ${files.length} files`)
  const offenders = files.flatMap((file) =>
    findSleeps(readFileSync(file, 'utf8'))
      .filter((sleep) => !sleep.commented)
      .map((sleep) => `test/${relative(TEST_DIR, file)}:${sleep.line} sleeps ${sleep.ms} ms: poll for what it waits for, or say why in a // comment`),
  )
  // One failure per sleep, named by file:line, so the report says exactly what to fix.
  for (const offender of offenders) t.fail(offender)
  if (offenders.length === 0) t.pass('no uncommented sleep')
})
