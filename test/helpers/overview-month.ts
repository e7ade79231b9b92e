/**
 * Two months of a small shop's traffic for the overview's browser test and
 * screenshot: 20 to 60 sessions a day with a weekly rhythm and growth, on
 * eight pages (and a promotion page in the first 20 days only), from phones, tablets and desktops, with rage, dead and error
 * clicks, quick backs and JavaScript errors; the checkout gets worse in the
 * last fortnight. Written through the store's own append path (signals
 * bodies prepared as an ingest writer prepares them, and one recording chunk
 * per session), then folded by the cluster's fold thread.
 */
import { groupUrl } from '../../src/grouping/group.js'
import { ItemPreparer } from '../../src/grouping/prepare-items.js'
import type { IngestItem, Store } from '../../src/store/store.js'
import { random } from './random.js'

const DAY_MS = 24 * 60 * 60 * 1000
const PAGES = ['/', '/pricing', '/products/shoes', '/products/bags', '/cart', '/checkout', '/account', '/help']
const WIDTHS = [390, 390, 412, 820, 1280, 1440, 1440, 1920]

/** Appends the two months before `now` to the project; answers how many sessions. */
export async function seedMonths(store: Store, projectId: string, now: number): Promise<number> {
  const next = random(3500)
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]
  const preparer = new ItemPreparer(store)
  let sessions = 0
  for (let day = 59; day >= 0; day--) {
    const dayStart = now - (day + 1) * DAY_MS
    const weekday = new Date(dayStart).getUTCDay()
    const count = Math.round((20 + (60 - day) * 0.4) * (weekday === 0 || weekday === 6 ? 0.6 : 1) + next() * 8)
    const prepare = preparer.forBatch()
    const items: IngestItem[] = []
    for (let i = 0; i < count; i++) {
      const sk = `d${day}s${i}`
      const startedAt = dayStart + Math.floor(next() * DAY_MS)
      const vw = pick(WIDTHS)
      const worse = day < 14 ? 2 : 1
      const urls = Array.from({ length: 1 + Math.floor(next() * 4) }, () => `https://shop.test${pick(PAGES)}`)
      // A promotion that ended 40 days ago: a page with no sessions in any recent period.
      if (day >= 40 && next() < 0.2) urls.push('https://shop.test/promo')
      const views = urls.map((url, v) => ({ url, startedAt: startedAt + v * 40_000, vw, vh: 800, activeMs: 5_000 + Math.floor(next() * 90_000), maxScrollPct: Math.floor(20 + next() * 80), ...(next() < 0.06 ? { quickBack: true } : {}) }))
      const clicks = urls.flatMap((url, v) =>
        Array.from({ length: 1 + Math.floor(next() * 4) }, (_, c) => {
          const r = next()
          const onCheckout = url.endsWith('/checkout')
          const kind = r < (onCheckout ? 0.06 * worse : 0.02) ? 'rage' : r < 0.07 ? 'dead' : r < 0.08 ? 'error' : 'click'
          return { url, ts: startedAt + v * 40_000 + c * 5_000, xRatio: next(), yDoc: Math.floor(next() * 2000), vw, selector: pick(['button.buy', 'a.next', 'button#pay', 'a.help']), kind }
        }),
      )
      const errors = next() < 0.04 * worse ? [{ url: urls[0], ts: startedAt + 3_000, message: 'TypeError: price is undefined' }] : []
      const receivedAt = startedAt + 60_000
      const body = Buffer.from(JSON.stringify({ sk, vid: `v${Math.floor(next() * 2000)}`, startedAt, dropped: 0, views, clicks, errors }))
      const signals = prepare({ kind: 'signals-body', projectId, receivedAt, body })
      if ('invalid' in signals) throw new Error(`seeded batch refused: ${signals.invalid}`)
      items.push(signals, {
        kind: 'chunk',
        projectId,
        receivedAt,
        body: Buffer.from('[{"type":4,"data":{"href":"https://shop.test/","width":1280,"height":800}}]'),
        page: { ...groupUrl(urls[0], []), firstSeenAt: receivedAt },
        meta: { sk, vid: 'v', seq: 0, encoding: 'json', pageIndex: 0, url: urls[0], startedAt, firstTs: startedAt, lastTs: startedAt + 60_000, eventCount: 1, viewport: { w: vw, h: 800 } },
      })
      sessions += 1
    }
    await store.appendBatch(items)
  }
  return sessions
}
