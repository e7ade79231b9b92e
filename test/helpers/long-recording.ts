/**
 * A long recording made of rrweb events by hand: a page whose heading says
 * the time into the session ("At 12:30"), a full snapshot at every
 * checkpoint, and a text change every few seconds in between. What the
 * replay shows at any moment is then known exactly.
 */
import { postChunk } from './read.js'

export interface LongRecording {
  sk: string
  start: number
  /** Epoch ms of each checkpoint chunk's first event. */
  checkpoints: number[]
  end: number
  chunks: number
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
}

export const clockText = (ms: number) => `At ${Math.floor(ms / 60_000)}:${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}`

const TITLE_TEXT_ID = 7

function fullSnapshot(ts: number, text: string, padding: string): unknown[] {
  const text7 = { type: 3, textContent: text, id: TITLE_TEXT_ID }
  const h1 = { type: 2, tagName: 'h1', attributes: { id: 'title', style: 'font: 48px sans-serif; color: #1570ef' }, childNodes: [text7], id: 6 }
  const body = { type: 2, tagName: 'body', attributes: {}, childNodes: [h1, { type: 2, tagName: 'p', attributes: { id: 'pad' }, childNodes: [{ type: 3, textContent: padding, id: 9 }], id: 8 }], id: 5 }
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

/** Posts the recording through /ingest, chunk by chunk, as a tracker would. */
export async function postLongRecording(url: string, publicKey: string, sk: string, shape: LongRecordingShape, start = Date.now() - shape.minutes * 60_000 - 60_000): Promise<LongRecording> {
  const chunkMs = (shape.chunkSeconds ?? 30) * 1000
  const checkpointMs = (shape.checkpointMinutes ?? 5) * 60_000
  const stepMs = (shape.stepSeconds ?? 5) * 1000
  const padding = shape.padding ?? ''
  const total = shape.minutes * 60_000
  const checkpoints: number[] = []
  let seq = 0
  let end = start
  for (let at = 0; at < total; at += chunkMs) {
    const events: unknown[] = []
    const checkpoint = at % checkpointMs === 0
    if (checkpoint) {
      checkpoints.push(start + at)
      events.push(...fullSnapshot(start + at, clockText(at), padding))
    }
    for (let t = checkpoint ? at + stepMs : at; t < Math.min(total, at + chunkMs); t += stepMs) events.push(textChange(start + t, clockText(t), padding && `${padding} ${t}`))
    const last = (events[events.length - 1] as { timestamp: number }).timestamp
    end = last
    const body = new TextEncoder().encode(JSON.stringify(events))
    const meta = { sk, seq: seq++, firstTs: start + at, lastTs: last, eventCount: events.length, url: 'https://shop.test/long', startedAt: start, ...(checkpoint ? { checkpoint: true } : {}) }
    const status = await postChunk(url, publicKey, meta, body)
    if (status !== 200) throw new Error(`chunk ${meta.seq} answered ${status}`)
  }
  return { sk, start, checkpoints, end, chunks: seq }
}
