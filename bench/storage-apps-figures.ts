/**
 * What bench/storage-apps.ts measures in the store after the visits: per
 * session, the chunk bytes as stored, the event JSON, the full snapshots, the
 * largest chunk, and the bytes by rrweb event type (and incremental source).
 * A chunk is stored gzipped as a whole, so the stored bytes of one kind of
 * event are an estimate: each chunk's events are gzipped kind by kind and the
 * chunk's stored size is shared out in proportion.
 *
 * How the same events would compress otherwise, as an A/B that needs no second
 * run: each chunk's JSON with brotli instead of the browser's gzip, and the
 * whole session's JSON as one brotli stream with a 16 MiB window (what storing
 * a session as one longer segment, compacted on the server, would keep), and
 * as one gzip stream: the most any sharing of the browser's own compressor
 * across chunks could keep (CompressionStream offers gzip and deflate only).
 * And how much of the mutations repeats: the JSON of added nodes (as rrweb
 * emitted them, before the tracker wrote them compactly) that, ids left out,
 * the session already added before. Event JSON is counted as sent.
 */
import { brotliCompressSync, constants, gunzipSync, gzipSync } from 'node:zlib'
import { SessionContents, expandedEvents } from '../src/recordings/compact-mutations.js'
import type { Store } from '../src/store/store.js'

/** rrweb's IncrementalSource, by number (rrweb types, `IncrementalSource`). */
const SOURCES = ['mutation', 'mouse move', 'mouse interaction', 'scroll', 'viewport resize', 'input', 'touch move', 'media', 'style sheet rule', 'canvas', 'font', 'log', 'drag', 'style declaration', 'selection', 'adopted style sheet', 'custom element']
const TYPES: Record<number, string> = { 0: 'dom content loaded', 1: 'load', 2: 'full snapshot', 4: 'meta', 5: 'custom', 6: 'plugin' }

export function kindOf(event: { type: number; data?: { source?: number } }): string {
  if (event.type === 3) return 'incremental: ' + (SOURCES[event.data?.source ?? -1] ?? `source ${event.data?.source}`)
  return TYPES[event.type] ?? `type ${event.type}`
}

export interface KindFigure {
  json: number
  stored: number
}

export interface SessionFigures {
  recordedMs: number
  chunks: number
  stored: number
  largestChunk: number
  json: number
  fullSnapshots: number
  byKind: Record<string, KindFigure>
  /** Bytes with brotli (quality 9): each chunk on its own, and the session as one stream. */
  brotliChunks: number
  brotliSession: number
  /** The session's JSON as one gzip stream (level 6, as the browser's). */
  gzipSession: number
  /** JSON of mutation adds, and of those the session had added before (ids left out). */
  addedJson: number
  repeatedJson: number
}

/** An added node's JSON without its ids: equal for a node re-rendered as it was. */
const withoutIds = (add: { node?: Record<string, unknown> }) => JSON.stringify({ ...add.node, id: 0, rootId: 0 })

/** Brotli quality 9: about gzip's speed of compression on this JSON; 11 is several times slower for a few % more. */
const brotli = (text: string, window: number) =>
  brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_LGWIN]: window, [constants.BROTLI_PARAM_SIZE_HINT]: text.length } }).byteLength

export function sessionFigures(store: Store, projectId: string, sk: string): SessionFigures {
  const figures: SessionFigures = { recordedMs: 0, chunks: 0, stored: 0, largestChunk: 0, json: 0, fullSnapshots: 0, byKind: {}, brotliChunks: 0, brotliSession: 0, gzipSession: 0, addedJson: 0, repeatedJson: 0 }
  const session: string[] = []
  const added = new Set<string>()
  const contents = new SessionContents()
  let first = Infinity
  let last = 0
  for (const info of store.listChunks(projectId, sk)) {
    const bytes = store.getChunk(projectId, sk, info.seq)
    if (!bytes) continue
    first = Math.min(first, info.firstTs)
    last = Math.max(last, info.lastTs)
    figures.chunks++
    figures.stored += bytes.byteLength
    figures.largestChunk = Math.max(figures.largestChunk, bytes.byteLength)
    const raw = Buffer.from(bytes)
    const json = (info.encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')
    figures.brotliChunks += brotli(json, 22)
    session.push(json)
    const events = JSON.parse(json) as { type: number; data?: { source?: number } }[]
    // The adds as rrweb emitted them, before the tracker wrote them compactly.
    const asEmitted = expandedEvents(events, contents, info.pageIndex)
    const parts = new Map<string, string[]>()
    for (const [i, event] of events.entries()) {
      const kind = kindOf(event)
      if (event.type === 2) figures.fullSnapshots++
      if (event.type === 3 && event.data?.source === 0) {
        for (const add of (asEmitted[i].data as { adds?: { node?: Record<string, unknown> }[] }).adds ?? []) {
          const key = withoutIds(add)
          const bytes = Buffer.byteLength(JSON.stringify(add))
          figures.addedJson += bytes
          if (added.has(key)) figures.repeatedJson += bytes
          else added.add(key)
        }
      }
      const text = JSON.stringify(event)
      figures.json += Buffer.byteLength(text)
      let list = parts.get(kind)
      if (!list) parts.set(kind, (list = []))
      list.push(text)
    }
    const alone = [...parts].map(([kind, texts]) => [kind, Buffer.byteLength(texts.join(',')), gzipSync(texts.join(',')).byteLength] as const)
    const gzipped = alone.reduce((sum, [, , g]) => sum + g, 0)
    for (const [kind, json, g] of alone) {
      const figure = (figures.byKind[kind] ??= { json: 0, stored: 0 })
      figure.json += json
      figure.stored += (bytes.byteLength * g) / gzipped
    }
  }
  figures.recordedMs = last > first ? last - first : 0
  figures.brotliSession = brotli(session.join('\n'), 24)
  figures.gzipSession = gzipSync(session.join('\n')).byteLength
  return figures
}

/** The sessions of one app and length, added up; per-minute figures divide totals by total recorded minutes. */
export interface Row {
  app: string
  minutes: number
  sessions: number
  recordedMinutes: number
  stored: number
  /** Stylesheet texts this project's sessions referenced, stored once per project (0 without deduplication). */
  styles: number
  json: number
  fullSnapshots: number
  snapshotStored: number
  largestChunk: number
  byKind: Record<string, KindFigure>
  brotliChunks: number
  brotliSession: number
  gzipSession: number
  addedJson: number
  repeatedJson: number
}

export function addUp(app: string, minutes: number, sessions: SessionFigures[], styles: number): Row {
  const row: Row = { app, minutes, sessions: sessions.length, recordedMinutes: 0, stored: 0, styles, json: 0, fullSnapshots: 0, snapshotStored: 0, largestChunk: 0, byKind: {}, brotliChunks: 0, brotliSession: 0, gzipSession: 0, addedJson: 0, repeatedJson: 0 }
  for (const s of sessions) {
    row.recordedMinutes += s.recordedMs / 60_000
    row.stored += s.stored
    row.json += s.json
    row.fullSnapshots += s.fullSnapshots
    row.largestChunk = Math.max(row.largestChunk, s.largestChunk)
    row.brotliChunks += s.brotliChunks
    row.brotliSession += s.brotliSession
    row.gzipSession += s.gzipSession
    row.addedJson += s.addedJson
    row.repeatedJson += s.repeatedJson
    for (const [kind, f] of Object.entries(s.byKind)) {
      const sum = (row.byKind[kind] ??= { json: 0, stored: 0 })
      sum.json += f.json
      sum.stored += f.stored
    }
  }
  row.snapshotStored = (row.byKind['full snapshot']?.stored ?? 0) + (row.byKind['meta']?.stored ?? 0)
  return row
}

const kB = (n: number) => (n / 1000).toFixed(1)
const pct = (part: number, whole: number) => (whole ? ((100 * part) / whole).toFixed(0) + '%' : '')

/** kB per recorded minute as stored: the chunks, plus the project's stylesheet texts shared out over its recorded minutes. */
export const perMinute = (row: Row) => (row.stored + row.styles) / Math.max(row.recordedMinutes, 1e-9)

export function summaryTable(rows: Row[]): string[] {
  const lines = [
    '| App | Session | Sessions | Recorded min | Stored kB / recorded min | of which stylesheet texts | Event JSON kB / min | Full snapshots (per session) | Their share of stored bytes | Largest chunk kB |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const r of rows) {
    lines.push(
      `| ${r.app} | ${r.minutes} min | ${r.sessions} | ${r.recordedMinutes.toFixed(2)} | **${kB(perMinute(r))}** | ${kB(r.styles / Math.max(r.recordedMinutes, 1e-9))} | ${kB(r.json / Math.max(r.recordedMinutes, 1e-9))} | ${r.fullSnapshots} (${(r.fullSnapshots / Math.max(r.sessions, 1)).toFixed(1)}) | ${pct(r.snapshotStored, r.stored)} | ${kB(r.largestChunk)} |`,
    )
  }
  return lines
}

export function kindTable(rows: Row[]): string[] {
  const kinds = [...new Set(rows.flatMap((r) => Object.keys(r.byKind)))].sort()
  const lines = [`| Event kind | ${rows.map((r) => `${r.app} ${r.minutes} min`).join(' | ')} |`, `| --- | ${rows.map(() => '---:').join(' | ')} |`]
  for (const kind of kinds) {
    const cells = rows.map((r) => {
      const f = r.byKind[kind]
      if (!f) return ''
      const minutes = Math.max(r.recordedMinutes, 1e-9)
      return `${kB(f.stored / minutes)} (${kB(f.json / minutes)})`
    })
    lines.push(`| ${kind} | ${cells.join(' | ')} |`)
  }
  return lines
}

export function compressionTable(rows: Row[]): string[] {
  const lines = [
    '| App | Session | As stored (gzip per chunk, by the browser) kB / min | brotli per chunk | brotli, the session as one stream | gzip, the session as one stream | Mutation adds, JSON kB / min | of which added before (ids aside) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const r of rows) {
    const minutes = Math.max(r.recordedMinutes, 1e-9)
    const cell = (bytes: number) => `${kB((bytes + r.styles) / minutes)} (${pct(bytes, r.stored)})`
    lines.push(`| ${r.app} | ${r.minutes} min | ${kB(perMinute(r))} | ${cell(r.brotliChunks)} | ${cell(r.brotliSession)} | ${cell(r.gzipSession)} | ${kB(r.addedJson / minutes)} | ${pct(r.repeatedJson, r.addedJson)} |`)
  }
  return lines
}
