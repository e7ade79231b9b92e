/**
 * A session followed as it is recorded (sessions.follow): the events from its
 * last checkpoint, then each chunk as the store gets it, one event per line.
 * The feed looks for new chunks every `pollMs` in this process's store (a
 * range read of the session's chunk list: a few entries), so a watcher costs
 * a timer and a lookup while its visitor is idle, and nothing per chunk that
 * nobody watches.
 *
 * Service lines are rrweb custom events (type 5), as in sessions.events:
 * `svc.live` once the history is sent (and then every `heartbeatMs` while the
 * visitor sends nothing, so proxies keep the connection), and `svc.live_ended`
 * with why: `left` (the tracker said, on its last chunk, that the visitor
 * left the site or closed the tab), `idle` (nothing for `idleMs`), `limit`
 * (the feed's `maxMs`), `gone` (retention or an erasure took the recording).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { ChunkInfo } from '../store/records.js'
import { SessionContents } from './compact-mutations.js'
import { eventLines, type StoredChunk } from './events.js'
import type { StyleText } from './styles.js'
import { chunksInWindow } from './window.js'

/** A chunk this many seqs behind the newest one sent is still looked for (a retry after a 429 lands late); older ones are not. */
const LATE_SEQS = 64

export interface FollowSource {
  /** The session's chunks in seq order from `fromSeq`; undefined once the session or its recording is gone. */
  chunks(fromSeq?: number): ChunkInfo[] | undefined
  load(info: ChunkInfo): StoredChunk['load']
  styles?: (hash: string) => StyleText | undefined
}

export interface FollowOptions {
  pollMs: number
  heartbeatMs: number
  idleMs: number
  maxMs: number
  /** Aborted when the reader leaves: the feed ends at its next look. */
  signal: AbortSignal
  now?: () => number
}

export type EndReason = 'left' | 'idle' | 'limit' | 'gone'

function line(tag: string, timestamp: number, payload: Record<string, unknown>): Buffer {
  return Buffer.from(JSON.stringify({ type: 5, timestamp, data: { tag, payload } }) + '\n')
}

export async function* followEvents(source: FollowSource, options: FollowOptions): AsyncGenerator<Buffer> {
  const now = options.now ?? Date.now
  const started = now()
  const stored = (infos: ChunkInfo[]): StoredChunk[] => infos.map((info) => ({ seq: info.seq, encoding: info.encoding, pageIndex: info.pageIndex, load: source.load(info) }))
  const limits = { styles: source.styles }
  // One dictionary of added nodes for the whole feed: a chunk names contents its page view's earlier chunks wrote.
  const contents = new SessionContents()
  const first = source.chunks()
  if (!first) return yield line('svc.live_ended', started, { reason: 'gone' satisfies EndReason })
  // From the last checkpoint: what a viewer needs to draw the page as it is now.
  const history = chunksInWindow(first, first.at(-1)?.lastTs)
  const sent = new Set(first.map((c) => c.seq))
  let newest = first.at(-1)?.seq ?? 0
  yield* eventLines(stored(history), limits, contents)
  // A visit that had already left when the follow began: its history, and the end.
  if (first.at(-1)?.left) return yield line('svc.live_ended', started, { reason: 'left' satisfies EndReason })
  let lastData = first.at(-1)?.receivedAt ?? started
  let lastLine = now()
  yield line('svc.live', lastLine, { lastChunkAt: first.at(-1)?.receivedAt ?? null })
  let reason: EndReason | undefined
  while (!options.signal.aborted) {
    await sleep(options.pollMs, undefined, { signal: options.signal }).catch(() => undefined)
    if (options.signal.aborted) return
    // Each look reads the last few chunks only, however long the visit: what was sent, less a margin for late ones.
    const chunks = source.chunks(Math.max(0, newest - LATE_SEQS))
    if (!chunks) {
      reason = 'gone'
      break
    }
    const fresh = chunks.filter((c) => !sent.has(c.seq))
    const at = now()
    if (fresh.length > 0) {
      for (const c of fresh) {
        sent.add(c.seq)
        newest = Math.max(newest, c.seq)
      }
      yield* eventLines(stored(fresh), limits, contents)
      lastData = lastLine = at
      if (fresh.some((c) => c.left)) {
        reason = 'left'
        break
      }
    } else if (at - lastData >= options.idleMs) {
      reason = 'idle'
      break
    } else if (at - lastLine >= options.heartbeatMs) {
      lastLine = at
      yield line('svc.live', at, { lastChunkAt: chunks.at(-1)?.receivedAt ?? null })
    }
    if (at - started >= options.maxMs) {
      reason = 'limit'
      break
    }
  }
  if (reason) yield line('svc.live_ended', now(), { reason })
}
