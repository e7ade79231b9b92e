/**
 * Short, stable ids every backend derives the same way: for page keys and
 * messages (which may be 2,000 characters), for elements, and for friction
 * items, whose ids are the tie-break of the feed's order and must come out
 * the same when a batch is counted again (a re-fold, a backfill).
 */
import { createHash } from 'node:crypto'

/** Memo of pure hashes: an entry depends only on its text, so one map per thread serves every store. */
const shortIds = new Map<string, string>()
const elementIds = new Map<string, number>()
const MEMO_ENTRIES = 50_000

/** 96 bits of SHA-1, base64url: a page key or message as a key part. Collisions are not a practical concern at this width. */
export function shortId(text: string): string {
  let id = shortIds.get(text)
  if (id === undefined) {
    id = createHash('sha1').update(text).digest('base64url').slice(0, 16)
    if (shortIds.size >= MEMO_ENTRIES) shortIds.clear()
    shortIds.set(text, id)
  }
  return id
}

/**
 * An element's id: 52 bits of SHA-1 of its page key and selector, exact in a
 * double, so that buckets can hold fixed-size records instead of strings.
 */
export function elementIdOf(page: string, selector: string): number {
  const text = `${page}\n${selector}`
  let id = elementIds.get(text)
  if (id === undefined) {
    const digest = createHash('sha1').update(text).digest()
    id = (digest.readUInt32BE(0) & 0xfffff) * 0x1_0000_0000 + digest.readUInt32BE(4)
    if (elementIds.size >= MEMO_ENTRIES) elementIds.clear()
    elementIds.set(text, id)
  }
  return id
}

/** The friction item of the `index`-th click of a stored batch (`batchId`: the backend's identity of the batch). */
export const clickItemId = (batchId: string, index: number): string => `${batchId}.c${index}`

/** The occurrence of the `index`-th JS error of a stored batch. */
export const errorItemId = (batchId: string, index: number): string => `${batchId}.e${index}`

/** A quick back is one per view (session, URL, start), whichever batch carried the copy that said so. */
export const quickBackItemId = (sk: string, url: string, startedAt: number): string => `q.${shortId(`${sk}\n${url}`)}.${startedAt}`
