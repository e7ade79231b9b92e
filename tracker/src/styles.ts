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
 *
 * A `<link>`ed stylesheet of the page's own origin is not turned back into
 * text rule by rule (rrweb's way, the largest part of a full snapshot's time
 * on a real application): rrweb's edited link branch (tracker/tsup.config.ts)
 * asks `link`, which reads the file the page loaded from the browser's HTTP
 * cache (link-text.ts) while the snapshot goes on, and leaves a mark that
 * `resolve` waits for. Where the file cannot be read that way, and for a sheet
 * changed through the CSSOM since the page began recording (`changed`),
 * rrweb's text is taken, as before.
 */
import { encode, utf8 } from './compress.js'
import { cachedText, canReadCached, type LinkText } from './link-text.js'
import type { Transport } from './transport.js'

/** Texts shorter than this stay inline: an upload for a small `<style>` would cost more than it saves. */
const MIN_CHARS = 2_000
/** Texts set aside per page at most (past it they stay inline): bounds what the page holds. */
const MAX_TEXTS = 100

/** A mark is \u0001 and the text's index here: no real value starts so. `link` gives rrweb one for `_cssText` at once. */
const MARKED = '\u0001'
const MARK = /"_svcCss":"\\u0001(\d+)"/g

/** What the recorder hands rrweb: a linked stylesheet's `_cssText`, and the sheets changed through the CSSOM. */
export interface LinkTexts {
  /** A `<link>`ed stylesheet's `_cssText` for rrweb's serializer. */
  link: LinkText
  /** The sheet was changed through the CSSOM: its file no longer says what it holds. */
  changed(sheet?: CSSStyleSheet | null): void
}

export interface Styles extends LinkTexts {
  /** Sets each large `_cssText` of the event aside, leaving a mark. */
  take(event: object): void
  /** The chunk's JSON with every mark a hash once its text is stored, else the text. */
  resolve(json: string): Promise<string>
  /** The JSON with every mark its text. */
  inline(json: string): string
}

export function createStyles(transport: Transport): Styles {
  /** By index; a linked file's is undefined until it is read (`reading`). */
  const texts: (string | undefined)[] = []
  /** By text index: the upload under way, then its hash ('' when it failed: the text goes inline). */
  const stored: Promise<unknown>[] = []
  const hashes: string[] = []
  /** By text index, for a linked file: its reading, and rrweb's text of the sheet should it fail or be needed at once. */
  const reading: Promise<unknown>[] = []
  const fallbacks: (() => string)[] = []
  /** A linked file's text index by its address; -1 once it could not be read. */
  const links = new Map<string, number>()
  const edited = new WeakSet<CSSStyleSheet>()
  const textOf = (id: number) => texts[id] ?? fallbacks[id]()
  const swap = (json: string) => json.replace(MARK, (_, id) => (hashes[id] ? `"_svcCss":"${hashes[id]}"` : '"_cssText":' + JSON.stringify(textOf(+id))))

  /** Sets a node's large or linked `_cssText` aside, leaving a mark. */
  const takeFrom = (attributes: any): void => {
    const value = attributes?._cssText
    let id = value?.[0] === MARKED ? +value.slice(1) : value?.length >= MIN_CHARS ? texts.indexOf(value) : -2
    if (id === -1 && texts.length < MAX_TEXTS) id = texts.push(value) - 1
    if (id >= 0) {
      delete attributes._cssText
      attributes._svcCss = MARKED + id
    }
  }
  /** A serialized node and what it holds (children, shadow roots, a frame's document). */
  const takeTree = (node: any): void => {
    takeFrom(node.attributes)
    for (const child of node.childNodes ?? []) takeTree(child)
  }
  /** Only nodes carry `_cssText`: a full snapshot's, a change's added nodes and attributes, a frame's event's (`svc.frame`). */
  const take = ({ type, data }: any): void => {
    if (type === 2) takeTree(data.node)
    if (type === 3 && !data.source) {
      for (const add of data.adds) takeTree(add.node)
      for (const change of data.attributes) takeFrom(change.attributes)
    }
    if (type === 5 && data.payload?.e) take(data.payload.e)
  }

  // Without crypto.subtle (browsers give it only to secure contexts: https, localhost) this throws: the text goes inline.
  const store = async (id: number) => {
    await reading[id]
    const text = textOf(id)
    if (text.length < MIN_CHARS) return
    // Encoded once, for the hash and the upload: a stylesheet's text is the largest the tracker sends.
    const bytes = utf8(text)
    const hash = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => (b | 256).toString(16).slice(1)).join('')
    if ((await transport.send(`styles?hash=${hash}`, (await encode(bytes)).body)) === 'ok') hashes[id] = hash
  }

  return {
    take,
    async resolve(json) {
      // Most chunks hold no mark: one plain search instead of the two scans below.
      if (!json.includes('"_svcCss"')) return json
      for (const [, id] of json.matchAll(MARK)) await (stored[+id] ??= store(+id).catch(() => 0))
      return swap(json)
    },
    // Without hashes the marks of texts not stored yet go inline; the page is going away.
    inline: swap,
    link(sheet, stringify, absolutify) {
      const href = sheet.href!
      let id = edited.has(sheet) ? -1 : links.get(href)
      if (id === undefined && texts.length < MAX_TEXTS && canReadCached(href)) {
        const own = (id = texts.push(undefined) - 1)
        const fallback = (fallbacks[own] = (_?: unknown) => (texts[own] ??= stringify(sheet) ?? ''))
        links.set(href, own)
        reading[own] = cachedText(href).then(
          (text) => void (texts[own] ??= absolutify(text, href)),
          () => fallback(links.set(href, -1)),
        )
      }
      return id! >= 0 ? MARKED + id : stringify(sheet)
    },
    changed: (sheet) => sheet && edited.add(sheet),
  }
}
