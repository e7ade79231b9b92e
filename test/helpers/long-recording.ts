/**
 * A long recording made of rrweb events by hand: a page whose heading says
 * the time into the session ("At 12:30"), a full snapshot at every
 * checkpoint, and a text change every few seconds in between. What the
 * replay shows at any moment is then known exactly.
 */
import { gzipSync } from 'node:zlib'
import { postChunk } from './read.js'

export interface LongRecording {
  sk: string
  start: number
  /** Epoch ms of each checkpoint chunk's first event. */
  checkpoints: number[]
  end: number
  chunks: number
  /** Event JSON sent, and bytes as sent (gzip or not). */
  jsonBytes: number
  storedBytes: number
}

export interface LongRecordingShape {
  minutes: number
  /** A chunk every this many seconds. */
  chunkSeconds?: number
  /** A checkpoint every this many minutes. */
  checkpointMinutes?: number
  /** A text change every this many seconds. */
  stepSeconds?: number
  /** Text added to each change, to make the recording as heavy as a real one. */
  padding?: string
  /** Rows of a table in each full snapshot (a page of realistic size: 8 nodes a row). */
  rows?: number
  /** Each step also replaces a block of this many bytes of text (a re-rendered part of the page), moves the mouse and scrolls. */
  blockBytes?: number
  /** Chunks sent gzip-compressed, as the tracker sends them. */
  gzip?: boolean
  /** More of a chunk's meta, by its time into the recording (ms). */
  meta?: (at: number) => Record<string, unknown>
}

export const clockText = (ms: number) => `At ${Math.floor(ms / 60_000)}:${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}`

const TITLE_TEXT_ID = 7

const FEED_ID = 10
/** Ids of the table's nodes start here; the blocks added later take ids past every table's. */
const TABLE_ID = 100
const BLOCK_ID = 10_000_000

function table(rows: number): unknown {
  let id = TABLE_ID
  const cell = (text: string) => ({ type: 2, tagName: 'td', attributes: {}, childNodes: [{ type: 3, textContent: text, id: id++ }], id: id++ })
  const trs = Array.from({ length: rows }, (_, i) => ({ type: 2, tagName: 'tr', attributes: { class: `r${i % 7}` }, childNodes: [cell(`Row ${i}`), cell(`Item ${(i * 7919) % 10007}`), cell((i * 1.37).toFixed(2))], id: id++ }))
  return { type: 2, tagName: 'table', attributes: { id: 'rows' }, childNodes: [{ type: 2, tagName: 'tbody', attributes: {}, childNodes: trs, id: id++ }], id: id++ }
}

function fullSnapshot(ts: number, text: string, padding: string, rows: number): unknown[] {
  const text7 = { type: 3, textContent: text, id: TITLE_TEXT_ID }
  const h1 = { type: 2, tagName: 'h1', attributes: { id: 'title', style: 'font: 48px sans-serif; color: #1570ef' }, childNodes: [text7], id: 6 }
  const feed = { type: 2, tagName: 'div', attributes: { id: 'feed' }, childNodes: [], id: FEED_ID }
  const pad = { type: 2, tagName: 'p', attributes: { id: 'pad' }, childNodes: [{ type: 3, textContent: padding, id: 9 }], id: 8 }
  const body = { type: 2, tagName: 'body', attributes: {}, childNodes: [h1, pad, feed, ...(rows ? [table(rows)] : [])], id: 5 }
  const head = { type: 2, tagName: 'head', attributes: {}, childNodes: [], id: 4 }
  const html = { type: 2, tagName: 'html', attributes: {}, childNodes: [head, body], id: 3 }
  const node = { type: 0, childNodes: [{ type: 1, name: 'html', publicId: '', systemId: '', id: 2 }, html], id: 1 }
  return [
    { type: 4, timestamp: ts, data: { href: 'https://shop.test/long', width: 1024, height: 600 } },
    { type: 2, timestamp: ts, data: { node, initialOffset: { top: 0, left: 0 } } },
  ]
}

const textChange = (ts: number, text: string, padding: string) => ({
  type: 3,
  timestamp: ts,
  data: { source: 0, texts: [{ id: TITLE_TEXT_ID, value: text }, ...(padding ? [{ id: 9, value: padding }] : [])], attributes: [], removes: [], adds: [] },
})

const WORDS = ['order', 'shipped', 'invoice', 'customer', 'pending', 'refund', 'total', 'warehouse', 'label', 'tracking', 'address', 'priority', 'status', 'delivered', 'returned', 'payment']

/** A re-rendered block of the page: the previous block removed, a new one of about `bytes` of text added; then a mouse move and a scroll. */
function blockChange(ts: number, step: number, bytes: number, replaces: boolean): unknown[] {
  const words: string[] = []
  let length = 0
  for (let i = 0; length < bytes; i++) {
    const word = `${WORDS[(step * 31 + i * 7) % WORDS.length]}-${(step * 7919 + i * 104729) % 100_003}`
    words.push(word)
    length += word.length + 1
  }
  const id = BLOCK_ID + step * 2
  const node = { type: 2, tagName: 'div', attributes: { class: 'block' }, childNodes: [{ type: 3, textContent: words.join(' '), id: id + 1 }], id }
  const removes = replaces ? [{ parentId: FEED_ID, id: id - 2 }] : []
  return [
    { type: 3, timestamp: ts, data: { source: 0, texts: [], attributes: [], removes, adds: [{ parentId: FEED_ID, nextId: null, node }] } },
    { type: 3, timestamp: ts + 100, data: { source: 1, positions: Array.from({ length: 8 }, (_, i) => ({ x: 100 + ((step * 13 + i * 40) % 900), y: 80 + ((step * 7 + i * 25) % 500), id: 5, timeOffset: -700 + i * 100 })) } },
    { type: 3, timestamp: ts + 200, data: { source: 3, id: 1, x: 0, y: (step * 120) % 4000 } },
  ]
}

/** Posts the recording through /ingest, chunk by chunk, as a tracker would. */
export async function postLongRecording(url: string, publicKey: string, sk: string, shape: LongRecordingShape, start = Date.now() - shape.minutes * 60_000 - 60_000): Promise<LongRecording> {
  const chunkMs = (shape.chunkSeconds ?? 30) * 1000
  const checkpointMs = (shape.checkpointMinutes ?? 5) * 60_000
  const stepMs = (shape.stepSeconds ?? 5) * 1000
  const padding = shape.padding ?? ''
  const rows = shape.rows ?? 0
  const blockBytes = shape.blockBytes ?? 0
  const total = shape.minutes * 60_000
  const checkpoints: number[] = []
  let seq = 0
  let end = start
  let jsonBytes = 0
  let storedBytes = 0
  for (let at = 0; at < total; at += chunkMs) {
    const events: unknown[] = []
    const checkpoint = at % checkpointMs === 0
    if (checkpoint) {
      checkpoints.push(start + at)
      events.push(...fullSnapshot(start + at, clockText(at), padding, rows))
    }
    for (let t = checkpoint ? at + stepMs : at; t < Math.min(total, at + chunkMs); t += stepMs) {
      events.push(textChange(start + t, clockText(t), padding && `${padding} ${t}`))
      // The first block after a checkpoint replaces nothing: the snapshot's feed is empty.
      if (blockBytes) events.push(...blockChange(start + t, t / stepMs, blockBytes, t % checkpointMs !== stepMs))
    }
    const last = (events[events.length - 1] as { timestamp: number }).timestamp
    end = last
    const json = Buffer.from(JSON.stringify(events))
    jsonBytes += json.byteLength
    const body = shape.gzip ? gzipSync(json) : json
    storedBytes += body.byteLength
    const meta = { sk, seq: seq++, firstTs: start + at, lastTs: last, eventCount: events.length, url: 'https://shop.test/long', startedAt: start, encoding: shape.gzip ? 'gzip' : 'json', ...(checkpoint ? { checkpoint: true } : {}), ...shape.meta?.(at) } as const
    const status = await postChunk(url, publicKey, meta, body)
    if (status !== 200) throw new Error(`chunk ${meta.seq} answered ${status}`)
  }
  return { sk, start, checkpoints, end, chunks: seq, jsonBytes, storedBytes }
}
