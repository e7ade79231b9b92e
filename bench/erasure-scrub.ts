/**
 * How an erasure's bytes can leave an LMDB file (issue 34), the measurement
 * behind src/store/lmdb/compaction.ts.
 *
 * One environment opened as the store opens its own (environmentOptions):
 * 2,000 values of 0 to 3,000 bytes (chunk-like, binary) and 500 msgpack
 * records, one in seven of each holding a marker, each written in its own
 * transaction; then every marked entry is erased, and the pages of the file
 * still holding a marker are counted after each way of erasing:
 *   - delete: remove the entries;
 *   - zero: overwrite each value with zeros of its length, then remove it, in one transaction;
 *   - zero + fill: then fill the free pages with one-page zero values until the file grows, and delete them, twice;
 *   - compact: a compacting copy (lmdb-js backup(path, true)) of the environment after `delete`.
 *
 * Usage: npx tsup bench/erasure-scrub.ts --format esm --platform node --target node20 --out-dir dist/bench-erasure --silent && node dist/bench-erasure/erasure-scrub.js
 * Writes bench/erasure-scrub.md (and prints the same lines).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open, type RootDatabase } from 'lmdb'
import { environmentOptions } from '../src/store/lmdb/index.js'

const MARK = 'ZQXMARKERZQX'
const CHUNKS = 2_000
const RECORDS = 500
const EVERY = 7

function markedPages(file: string): number {
  const bytes = readFileSync(file)
  const pages = new Set<number>()
  for (let at = bytes.indexOf(MARK); at >= 0; at = bytes.indexOf(MARK, at + 1)) pages.add(Math.floor(at / 4096))
  return pages.size
}

async function filled(dir: string): Promise<RootDatabase> {
  const root = open({ path: dir, mapSize: 256 * 1024 * 1024, ...environmentOptions('commit') })
  const chunks = root.openDB('chunks', { encoding: 'binary' })
  const records = root.openDB('records', { sharedStructuresKey: Symbol.for('structures') })
  for (let i = 0; i < CHUNKS; i++) await chunks.put(['p', `s${i}`, 0], Buffer.from(`filler ${i} `.repeat(i % 300) + (i % EVERY === 0 ? MARK : '')))
  for (let i = 0; i < RECORDS; i++) await records.put(['p', `s${i}`], { sk: `s${i}`, user: i % EVERY === 0 ? MARK : 'x' })
  return root
}

async function erase(root: RootDatabase, zero: boolean): Promise<number> {
  const chunks = root.openDB('chunks', { encoding: 'binary' })
  const records = root.openDB('records', { sharedStructuresKey: Symbol.for('structures') })
  const raw = root.openDB('records', { encoding: 'binary' })
  await root.transaction(() => {
    for (let i = 0; i < CHUNKS; i += EVERY) {
      const key = ['p', `s${i}`, 0]
      if (zero) chunks.put(key, Buffer.alloc(chunks.getBinary(key)!.length))
      chunks.remove(key)
    }
    for (let i = 0; i < RECORDS; i += EVERY) {
      const key = ['p', `s${i}`]
      if (zero) raw.put(key, Buffer.alloc(raw.getBinary(key)!.length))
      records.remove(key)
    }
  })
  return Math.ceil(CHUNKS / EVERY) + Math.ceil(RECORDS / EVERY)
}

/** What lmdb-js's getStats() answers (typed `{}` there). */
type EnvStats = { pageSize: number; lastPageNumber: number }
const statsOf = (root: RootDatabase) => root.getStats() as EnvStats

/** One-page zero values (a page less its header) until the file grows, then deleted. */
function fillFreePages(root: RootDatabase): number {
  const scratch = root.openDB('scrub', { encoding: 'binary' })
  const pageSize = statsOf(root).pageSize
  let written = 0
  root.resetReadTxn()
  const last = statsOf(root).lastPageNumber
  let grown = false
  while (!grown) {
    root.transactionSync(() => {
      for (let i = 0; i < 64; i++) scratch.put(written++, Buffer.alloc(pageSize - 64))
      grown = statsOf(root).lastPageNumber > last
    })
  }
  root.transactionSync(() => {
    for (let i = 0; i < written; i++) scratch.remove(i)
  })
  return written
}

const base = mkdtempSync(join(tmpdir(), 'svc-erasure-scrub-'))
const lines: string[] = []
const say = (line: string) => {
  lines.push(line)
  console.log(line)
}
try {
  say(`| Way | Marked entries erased | Pages still holding a marker | Notes |`)
  say(`| --- | --- | --- | --- |`)
  for (const way of ['delete', 'zero', 'zero + fill', 'compact'] as const) {
    const dir = join(base, way.replace(/\W+/g, '-'))
    mkdirSync(dir)
    const root = await filled(dir)
    const before = markedPages(join(dir, 'data.mdb'))
    const erased = await erase(root, way === 'zero' || way === 'zero + fill')
    let notes = `${before} pages held one before`
    let file = join(dir, 'data.mdb')
    if (way === 'zero + fill') notes += `; filler values written: ${fillFreePages(root)} and ${fillFreePages(root)}`
    if (way === 'compact') {
      const copy = join(dir, 'copy')
      mkdirSync(copy)
      const started = performance.now()
      await root.backup(copy, true)
      notes += `; copy took ${Math.round(performance.now() - started)} ms`
      file = join(copy, 'data.mdb')
    }
    await root.close()
    say(`| ${way} | ${erased} | ${markedPages(file)} | ${notes} |`)
  }
} finally {
  rmSync(base, { recursive: true, force: true })
}
writeFileSync(
  join(process.cwd(), 'bench', 'erasure-scrub.md'),
  `# How an erasure's bytes leave an LMDB file\n\nWritten by bench/erasure-scrub.ts (${new Date().toISOString().slice(0, 10)}, lmdb-js ${JSON.parse(readFileSync(join(process.cwd(), 'node_modules', 'lmdb', 'package.json'), 'utf8')).version}). ` +
    `${CHUNKS} binary values and ${RECORDS} msgpack records, one in ${EVERY} holding a marker, each written in its own transaction; the marked ones erased; ` +
    `pages of data.mdb (4 KiB) still holding the marker counted.\n\n${lines.join('\n')}\n\n` +
    `Only the compacting copy leaves none: deleted nodes stay in the slack of live pages, and some freed pages were never handed out again by the fill. ` +
    `So the service compacts after erasures (src/store/lmdb/compaction.ts).\n`,
)
