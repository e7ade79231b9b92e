/**
 * Stylesheets sent once per project (issue 32). rrweb puts every stylesheet's
 * text into each full snapshot (`_cssText` on a `<link>` or `<style>` node): a
 * real application's 190 KB stylesheet was most of what a session stored. A
 * large text is set aside when the event arrives (`take`, before it is
 * serialized) and a mark left in its place; when the chunk is sent
 * (`resolve`), its text is uploaded once (POST /styles, under its SHA-256,
 * which the server checks) and the mark becomes `"_svcCss":"<hash>"`, which
 * the server's events API turns back into `_cssText`. A text that could not be
 * uploaded goes inline as before (`inline`, also at unload, when there is no
 * time to hash or upload).
 */
import { encode, utf8 } from './compress.js'
import type { Transport } from './transport.js'

/** Texts shorter than this stay inline: an upload for a small `<style>` would cost more than it saves. */
const MIN_CHARS = 2_000
/** Texts set aside per page at most (past it they stay inline): bounds what the page holds. */
const MAX_TEXTS = 100

/** A mark is the text's index here; \u0001 keeps it from meeting a real value. */
const MARK = /"_svcCss":"\\u0001(\d+)"/g

export interface Styles {
  /** Sets each large `_cssText` of the event aside, leaving a mark. */
  take(event: object): void
  /** The chunk's JSON with every mark a hash once its text is stored, else the text. */
  resolve(json: string): Promise<string>
  /** The JSON with every mark its text. */
  inline(json: string): string
}

export function createStyles(transport: Transport): Styles {
  const texts: string[] = []
  /** By text index: the upload under way, then its hash ('' when it failed: the text goes inline). */
  const stored: Promise<unknown>[] = []
  const hashes: string[] = []
  const swap = (json: string) => json.replace(MARK, (_, id) => (hashes[id] ? `"_svcCss":"${hashes[id]}"` : '"_cssText":' + JSON.stringify(texts[id])))

  const walk = (node: any): void => {
    for (const key in node) {
      const value = node[key]
      if (key === '_cssText' && typeof value === 'string' && value.length >= MIN_CHARS) {
        let id = texts.indexOf(value)
        if (id < 0 && texts.length < MAX_TEXTS) id = texts.push(value) - 1
        if (id >= 0) {
          delete node._cssText
          node._svcCss = '\u0001' + id
        }
      } else if (value && typeof value === 'object') walk(value)
    }
  }

  // Without crypto.subtle (browsers give it only to secure contexts: https, localhost) this throws: the text goes inline.
  const store = async (id: number) => {
    const hash = [...new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(texts[id])))].map((b) => (b | 256).toString(16).slice(1)).join('')
    if ((await transport.send(`styles?hash=${hash}`, (await encode(texts[id])).body)) === 'ok') hashes[id] = hash
  }

  return {
    // Every event: snapshots and mutations carry `_cssText`, and what is set aside anywhere is put back as it was.
    take: walk,
    async resolve(json) {
      for (const [, id] of json.matchAll(MARK)) await (stored[+id] ??= store(+id).catch(() => 0))
      return swap(json)
    },
    // Without hashes the marks of texts not stored yet go inline; the page is going away.
    inline: swap,
  }
}
