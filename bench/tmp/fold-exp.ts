import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseSignals } from '../../src/ingest/signals.js'
import { groupUrl } from '../../src/pages/group.js'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import { Deriver } from '../../src/store/lmdb/derive.js'
import type { IngestItem } from '../../src/store/store.js'
import { generator } from '../payloads.js'

const r = generator(11)
const now = Date.now()
const bodies = Array.from({ length: 64 }, (_, i) => {
  const url = `https://shop.example.com/section-${i % 8}/item/${i}`
  const clicks = Array.from({ length: 24 }, (_, c) => ({
    url, ts: now - Math.floor(r() * 60_000), xRatio: Math.round(r() * 1000) / 1000, yDoc: Math.floor(r() * 4200), vw: 1440, docH: 4200,
    selector: `main > section.product > button.add-to-cart:nth-child(${c + 1})`, label: 'Add to cart', tag: 'button', interactive: true, kind: c % 10 === 0 ? 'rage' : 'click',
  }))
  return Buffer.from(JSON.stringify({
    sk: `ingest-${i}`, vid: `visitor-${i}`, startedAt: now - 60_000, dropped: 0,
    views: [{ url, startedAt: now - 60_000, title: 'Product', vw: 1440, vh: 900, docH: 4200, endedAt: now - 30_000, activeMs: 28_000, maxScrollPct: 62.5 }, { url: `${url}#reviews`, startedAt: now - 30_000, vw: 1440, exit: true }],
    clicks,
    errors: [{ url, ts: now - 10_000, message: "TypeError: Cannot read properties of undefined (reading 'price')" }],
  }))
})
const N = Number(process.argv[2] ?? 8000)
const PER = Number(process.argv[3] ?? 8)
const FOLD = Number(process.argv[4] ?? 2000)
function items(): IngestItem[] {
  return Array.from({ length: N }, (_, i) => {
    const p = parseSignals(bodies[i % 64], Date.now())
    if (!p.ok) throw new Error('bad')
    const pages = new Map()
    for (const e of [...p.batch.views, ...p.batch.clicks, ...p.batch.errors]) { const g = { ...groupUrl(e.url, []), firstSeenAt: now }; e.page = g.key; pages.set(g.key, g) }
    return { kind: 'signals', projectId: 'prj_x', receivedAt: Date.now(), batch: p.batch, pages: [...pages.values()] } as IngestItem
  })
}
async function run(aggregates: boolean, fold: boolean) {
  const path = mkdtempSync(join(tmpdir(), 'fold-exp-'))
  const store = openLmdbStore({ path, mapSize: 8 * 1024 ** 3, durability: 'commit', aggregates })
  const all = items()
  let t = performance.now()
  for (let i = 0; i < all.length; i += PER) await store.appendBatch(all.slice(i, i + PER))
  const ingestMs = performance.now() - t
  let foldMs = 0
  const T = { get: 0, add: 0, flush: 0 }
  if (fold) {
    t = performance.now()
    const { tables } = store
    const keys = [...tables.signals.getKeys({})]
    for (let i = 0; i < keys.length; i += FOLD) {
      await (store as any).root.transaction(() => {
        const d = new Deriver(tables)
        let a = performance.now()
        const recs = keys.slice(i, i + FOLD).map((key) => [key, tables.signals.get(key)])
        let b = performance.now(); T.get += b - a; a = b
        for (const [key, rec] of recs) d.addStored('prj_x', key as any, rec as any)
        b = performance.now(); T.add += b - a; a = b
        d.flush()
        b = performance.now(); T.flush += b - a; a = b
      })
    }
    foldMs = performance.now() - t
  }
  console.log(JSON.stringify(Object.fromEntries(Object.entries(T).map(([k, v]) => [k, (v * 1000 / N).toFixed(1)]))));console.log(`${aggregates ? 'inline' : fold ? 'deferred' : 'off'}: ingest ${(ingestMs * 1000 / N).toFixed(1)} us/batch, fold ${(foldMs * 1000 / N).toFixed(1)} us/batch`)
  await store.close()
  rmSync(path, { recursive: true, force: true })
}
if (process.env.ONLY_FOLD) await run(false, true); else for (let round = 0; round < 2; round++) { await run(false, false); await run(true, false); await run(false, true) }
