/**
 * What the replay screen loads. A recording that is short enough is fetched
 * whole (one sessions.events call) and played by rrweb-player as it is. A long
 * one (past STREAM_AFTER_MS or STREAM_AFTER_BYTES, with checkpoints to cut it
 * at) is outlined from its chunk list, which knows its length, its pages and
 * where each checkpoint is without reading an event, and then streamed part
 * by part (player/stream.ts).
 */
import { api } from '../api.js'
import { pathOf } from '../format.js'
import type { FrictionItem, FrictionListAnswer } from '../model.js'
import type { Marker } from '../player/player.js'
import type { Outline } from '../player/stream.js'
import { describeFriction } from './friction.js'
import { captureMoments } from './replay-panels.js'

/** rrweb event types (rrweb `EventType`): 4 meta (a page load: href, width, height). */
const META = 4
/** Longer recordings stream: fetched whole, they would cost a minute of JSON per minute recorded. */
export const STREAM_AFTER_MS = 15 * 60_000
/** Or larger ones, as stored (gzip): a few MB stored is tens of MB of events. */
export const STREAM_AFTER_BYTES = 8 * 2 ** 20

export interface Moment extends Marker {
  offset: number
  kind: string
}

export interface Recording {
  /** Every event when fetched whole; the first part's when streamed. */
  events: any[]
  start: number
  end: number
  moments: Moment[]
  viewport: { width: number; height: number }
  pages: Set<string>
  /** Present when the recording streams. */
  outline?: Outline
  /**
   * Streamed: console errors and failed requests by chunk, from the chunk list, for the
   * timeline before their part is read (the part's own events then place each one).
   */
  stretches?: Moment[]
}

interface ChunkRow {
  seq: number
  pageIndex: number
  url: string
  firstTs: number
  lastTs: number
  size: number
  checkpoint?: true
  consoleErrors?: number
  failedRequests?: number
}

const EMPTY: Recording = { events: [], start: 0, end: 0, moments: [], viewport: { width: 1280, height: 800 }, pages: new Set() }

async function loadFriction(projectId: string, sessionKey: string, since: number, until: number): Promise<FrictionItem[]> {
  const items: FrictionItem[] = []
  let cursor: string | undefined
  // A session's friction fits in a few pages; the bound stops a runaway loop.
  for (let i = 0; i < 10; i++) {
    const page = await api.post<FrictionListAnswer>('/cli/friction.list', { projectId, sessionKey, since, until, limit: 200, ...(cursor ? { cursor } : {}) })
    items.push(...page.items.filter((item) => item.sessionKey === sessionKey))
    if (!page.nextCursor) break
    cursor = page.nextCursor
  }
  return items
}

/** The events of one part of a recording, in time order. */
export async function loadPart(projectId: string, sessionKey: string, from: number, until: number): Promise<any[]> {
  const events = await api.post<any[]>('/cli/sessions.events', { projectId, sessionKey, from, until })
  return (Array.isArray(events) ? events : []).sort((a, b) => a.timestamp - b.timestamp)
}

async function frictionMoments(projectId: string, sessionKey: string, start: number, end: number): Promise<Moment[]> {
  const friction = await loadFriction(projectId, sessionKey, start - 60_000, end + 60_000).catch(() => [] as FrictionItem[])
  return friction.map((item) => ({ ts: item.ts, tag: item.kind, kind: item.kind, offset: 0, label: describeFriction(item) }))
}

/** Clamps moments into the recording and orders them by time. */
export function placeMoments(moments: Moment[], start: number, end: number): Moment[] {
  return moments
    .map((m) => {
      const ts = Math.min(end, Math.max(start, m.ts))
      return { ...m, ts, offset: ts - start }
    })
    .sort((a, b) => a.ts - b.ts)
}

export async function loadRecording(projectId: string, sessionKey: string): Promise<Recording> {
  const { chunks } = await api.post<{ chunks: ChunkRow[] }>('/cli/sessions.chunks', { projectId, sessionKey })
  if (chunks.length) {
    const start = chunks[0].firstTs
    const end = Math.max(...chunks.map((c) => c.lastTs))
    const checkpoints = chunks.filter((c) => c.checkpoint).map((c) => c.firstTs)
    const stored = chunks.reduce((n, c) => n + c.size, 0)
    const long = end - start > STREAM_AFTER_MS || stored > STREAM_AFTER_BYTES
    if (long && checkpoints.length >= 2) return outlined(projectId, sessionKey, chunks, checkpoints, end)
  }
  // Short, or purged (sessions.events then answers not_found, which the screen explains).
  const events = await api.post<any[]>('/cli/sessions.events', { projectId, sessionKey })
  if (!Array.isArray(events) || events.length < 2) return { ...EMPTY, events: events ?? [] }
  events.sort((a, b) => a.timestamp - b.timestamp)
  const first = events[0].timestamp
  const last = events[events.length - 1].timestamp
  const metas = events.filter((e) => e.type === META)
  const moments: Moment[] = [
    ...metas.slice(1).map((e) => ({ ts: e.timestamp, tag: 'page', kind: 'page', offset: 0, label: `Page: ${pathOf(e.data?.href ?? '')}` })),
    ...(await frictionMoments(projectId, sessionKey, first, last)),
    ...captureMoments(events, first).map((m) => ({ ...m, offset: 0 })),
  ]
  return {
    events,
    start: first,
    end: last,
    moments: placeMoments(moments, first, last),
    viewport: viewportOf(metas[0]),
    pages: new Set(metas.map((e) => pathOf(e.data?.href ?? ''))),
  }
}

async function outlined(projectId: string, sessionKey: string, chunks: ChunkRow[], checkpoints: number[], end: number): Promise<Recording> {
  // A recording's first events may come before its first checkpoint (a tracker that started mid-page): they cannot replay alone.
  const parts = checkpoints
  const first = await loadPart(projectId, sessionKey, parts[0], parts[1])
  const pageChanges: Moment[] = []
  for (let i = 1; i < chunks.length; i++) {
    if (chunks[i].pageIndex !== chunks[i - 1].pageIndex) pageChanges.push({ ts: chunks[i].firstTs, tag: 'page', kind: 'page', offset: 0, label: `Page: ${pathOf(chunks[i].url)}` })
  }
  const moments = [...pageChanges, ...(await frictionMoments(projectId, sessionKey, checkpoints[0], end))]
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`
  const stretches: Moment[] = chunks.flatMap((c) => [
    ...(c.consoleErrors ? [{ ts: c.firstTs, tag: 'consoleError', kind: 'consoleError', offset: 0, label: `${plural(c.consoleErrors, 'console error')} here` }] : []),
    ...(c.failedRequests ? [{ ts: c.firstTs, tag: 'requestFailed', kind: 'requestFailed', offset: 0, label: `${plural(c.failedRequests, 'failed request')} here` }] : []),
  ])
  return {
    events: first,
    start: parts[0],
    end,
    moments: placeMoments(moments, parts[0], end),
    viewport: viewportOf(first.find((e) => e.type === META)),
    pages: new Set(chunks.map((c) => pathOf(c.url))),
    outline: { start: parts[0], end, parts },
    stretches: placeMoments(stretches, parts[0], end),
  }
}

function viewportOf(meta: any): { width: number; height: number } {
  return { width: meta?.data?.width || 1280, height: meta?.data?.height || 800 }
}
