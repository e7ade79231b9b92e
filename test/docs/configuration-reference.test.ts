/**
 * docs/configuration.md is the one reference of the service's environment
 * variables: every variable src/config.ts reads has its row there, and every
 * row names a variable it reads. Read from the source and the page, so
 * neither can drift from the other.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ROOT } from '../helpers/cluster.js'

/** Set by the primary for its own children, never by an operator (src/config.ts says so where it reads it). */
const INTERNAL = new Set(['SVC_CONTROL_SECRET'])

const source = readFileSync(join(ROOT, 'src', 'config.ts'), 'utf8')
const read = new Set([...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? m[2]))

const page = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8')
const rows = page.split('\n').filter((line) => line.startsWith('| `'))
const documented = rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]))

t.test('every variable src/config.ts reads is documented once, and every documented one is read', async (t) => {
  t.ok(read.size > 40, `the reader found the variables of src/config.ts (${read.size})`)
  const missing = [...read].filter((name) => !INTERNAL.has(name) && !documented.includes(name)).sort()
  t.same(missing, [], 'read by src/config.ts, absent from docs/configuration.md')
  const unread = documented.filter((name) => !read.has(name)).sort()
  t.same(unread, [], 'in docs/configuration.md, read nowhere in src/config.ts')
  const twice = documented.filter((name, i) => documented.indexOf(name) !== i)
  t.same(twice, [], 'documented in more than one row')
})

t.test('the served self-hosting page\'s short table names only variables of the reference', async (t) => {
  for (const file of ['src/site/pages/self-hosting.md']) {
    const text = readFileSync(join(ROOT, file), 'utf8')
    const named = [...text.matchAll(/^\| `([A-Z][A-Z0-9_]+)`(?:, `([A-Z][A-Z0-9_]+)`)*/gm)].flatMap((m) => m.slice(1).filter(Boolean))
    t.ok(named.length > 5, `${file} has its short table`)
    t.same(named.filter((name) => !documented.includes(name)), [], file)
  }
})
