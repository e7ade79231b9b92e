/**
 * Chunks still held when a page goes away (its session is younger than the
 * project's minimum duration, or the settings are not known yet) are kept in
 * sessionStorage for the tab's next page load, which sends them once the
 * session passes the minimum: without this, a short first page was missing
 * from the replay of a session that went on. sessionStorage, not
 * localStorage: it belongs to one tab, so two tabs never both send the same
 * chunks, and it leaves the site's own localStorage quota alone. At most
 * HELD_CAP_CHARS are kept, dropping the oldest page views first (a page view
 * without its start has no full snapshot to replay from).
 */
import type { Batch } from './chunks.js'
import { HELD_CAP_CHARS } from './config.js'

export interface Held {
  save(batches: Batch[]): void
  /** What an earlier page load of session `sk` kept; anything of another session is let go. */
  take(sk: string): Batch[]
}

export function heldChunks(namespace: string): Held {
  const key = `svc_h_${namespace}`
  const area = (): Storage | undefined => {
    try {
      return window.sessionStorage
    } catch {
      return undefined // storage blocked: held chunks go with the page, as without this module
    }
  }
  return {
    save(batches) {
      const items = batches.map((b) => JSON.stringify([b.ctx, b.identity, b.parts, b.times, b.marks]))
      let total = items.reduce((sum, item) => sum + item.length, 0)
      while (total > HELD_CAP_CHARS) {
        const page = batches[0].ctx.pageIndex
        while (batches.length && batches[0].ctx.pageIndex === page) {
          batches.shift()
          total -= items.shift()!.length
        }
      }
      try {
        if (items.length) area()?.setItem(key, '[' + items.join(',') + ']')
        else area()?.removeItem(key)
      } catch {
        // over the quota: these chunks go with the page, as they did before
      }
    },
    take(sk) {
      try {
        const storage = area()
        const raw = storage?.getItem(key)
        if (!storage || !raw) return []
        storage.removeItem(key)
        return (JSON.parse(raw) as [Batch['ctx'], Batch['identity'], string[], number[], number[]][])
          .filter(([ctx]) => ctx.sk === sk)
          .map(([ctx, identity, parts, times, marks]) => ({ ctx, identity: identity || undefined, parts, times, marks, bytes: parts.reduce((sum, p) => sum + p.length, 0) }))
      } catch {
        return [] // unreadable: nothing to send
      }
    },
  }
}
