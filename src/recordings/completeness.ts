/**
 * What a session's recording is missing, and why, for the read API
 * (sessions.list and sessions.chunks `completeness`): the session record's
 * loss reports (src/store/session-losses.ts) laid over the gaps in its chunk
 * list. A missing seq takes the reason of the report that names it (the
 * service's own 413 first, then the tracker's word); a gap nobody reported is
 * `not_received`: the service never saw those chunks and cannot say why. The
 * chunk list is read only when a seq is missing: a complete session costs
 * nothing more than its record.
 */
import { CHUNK_LOSSES, expectedTop, isComplete } from '../store/session-losses.js'
import type { ChunkInfo, LossReason, RecordingLoss, SessionRecord } from '../store/store.js'

export type MissingReason = LossReason | 'not_received'

export interface MissingPart {
  reason: MissingReason
  /** Chunks missing; null for a page view the capture settings left out (it was never cut into chunks). */
  chunks: number | null
  fromSeq: number | null
  toSeq: number | null
  pageIndex: number | null
  url: string | null
  /** From the last event before the gap (or the report's own first event) to the first after it (or the report's last), epoch ms; null when unknown. */
  fromTs: number | null
  untilTs: number | null
}

export interface Completeness {
  complete: boolean
  recordingStartedAt: number
  missing: MissingPart[]
  missingChunks: number
  dropped: number
  refused: number
  tabClosed: number
  notReceived: number
  excludedPages: number
  /** Parts past MAX_MISSING_LISTED, and reports the session record could not keep: counted, not listed. */
  omitted: number
}

/** Parts listed per session: a session with more has a broken client, and the counts still say how much. */
export const MAX_MISSING_LISTED = 50

/** Which report names a missing seq when several do: what the service saw itself comes before what a tracker says. */
const PRECEDENCE: Record<LossReason, number> = { refused_too_large: 3, dropped: 2, tab_closed: 1, excluded: 0, before_trigger: 0, sampled_out: 0 }

const lastSeq = (loss: RecordingLoss) => loss.toSeq ?? loss.seq!

export function completenessOf(session: SessionRecord, chunks: () => ChunkInfo[]): Completeness {
  const losses = session.losses ?? []
  const parts: MissingPart[] = []
  const top = expectedTop(session)
  if (top + 1 > session.chunkCount) {
    const claims = losses.filter((loss) => loss.seq !== undefined && CHUNK_LOSSES.has(loss.reason))
    let before: ChunkInfo | undefined
    let next = 0
    for (const chunk of chunks()) {
      if (chunk.seq > next) seqGap(parts, claims, next, chunk.seq - 1, before, chunk)
      next = chunk.seq + 1
      before = chunk
    }
    if (top >= next) seqGap(parts, claims, next, top, before, undefined)
  }
  const others: MissingPart[] = []
  for (const loss of losses) if (loss.seq === undefined) unnumbered(others, loss)
  merge(parts, others)

  const sum = (reason: MissingReason) => parts.reduce((n, p) => n + (p.reason === reason ? (p.chunks ?? 0) : 0), 0)
  const missingChunks = parts.reduce((n, p) => n + (p.chunks ?? 0), 0)
  return {
    complete: isComplete(session),
    recordingStartedAt: session.firstTs,
    missing: parts.slice(0, MAX_MISSING_LISTED),
    missingChunks,
    dropped: sum('dropped'),
    refused: sum('refused_too_large'),
    tabClosed: sum('tab_closed'),
    notReceived: sum('not_received'),
    excludedPages: parts.filter((p) => p.chunks === null).length,
    omitted: Math.max(0, parts.length - MAX_MISSING_LISTED) + (session.lossesOmitted ?? 0),
  }
}

/**
 * The seqs `from`..`to` are missing between the chunks `before` and `after`:
 * cut where the reports covering them change, each piece named by its
 * strongest report, and runs with one reason joined. Works on ranges, not
 * seqs: a client that jumps to seq 2,000,000,000 costs a few pieces.
 */
function seqGap(parts: MissingPart[], claims: RecordingLoss[], from: number, to: number, before: ChunkInfo | undefined, after: ChunkInfo | undefined): void {
  const covering = claims.filter((loss) => loss.seq! <= to && lastSeq(loss) >= from)
  const cuts = new Set([from, to + 1])
  for (const loss of covering) for (const cut of [loss.seq!, lastSeq(loss) + 1]) if (cut > from && cut <= to) cuts.add(cut)
  const edges = [...cuts].sort((a, b) => a - b)
  let joined: MissingPart | undefined
  for (let i = 0; i + 1 < edges.length; i++) {
    const [start, end] = [edges[i], edges[i + 1] - 1]
    const named = covering.filter((loss) => loss.seq! <= start && lastSeq(loss) >= start).sort((a, b) => PRECEDENCE[b.reason] - PRECEDENCE[a.reason])[0]
    const reason: MissingReason = named?.reason ?? 'not_received'
    // Without a time of its own, a piece starts where the piece before it in the gap ended (or began), else at the chunk before the gap.
    const fromTs = named?.fromTs ?? (joined ? (joined.untilTs ?? joined.fromTs) : (before?.lastTs ?? null))
    const untilTs = named?.untilTs ?? after?.firstTs ?? null
    if (joined && joined.reason === reason) {
      joined.toSeq = end
      joined.chunks! += end - start + 1
      joined.untilTs = untilTs ?? joined.untilTs
      continue
    }
    joined = { reason, chunks: end - start + 1, fromSeq: start, toSeq: end, pageIndex: named?.pageIndex ?? null, url: named?.url ?? null, fromTs, untilTs }
    parts.push(joined)
  }
}

/** Into the parts in seq order, the parts without a seq in time order, each before the first seq part that starts later: a time order that never reorders seqs. */
function merge(parts: MissingPart[], others: MissingPart[]): void {
  const time = (part: MissingPart) => part.fromTs ?? part.untilTs ?? Infinity
  others.sort((a, b) => time(a) - time(b))
  const numbered = parts.splice(0, parts.length)
  let i = 0
  for (const part of numbered) {
    while (i < others.length && time(others[i]) < time(part)) parts.push(others[i++])
    parts.push(part)
  }
  parts.push(...others.slice(i))
}

/** A report without a seq: a chunk the tracker gave up before numbering it (one chunk each, joined with the one before on the same page view), or a page view left out. */
function unnumbered(parts: MissingPart[], loss: RecordingLoss): void {
  const chunk = CHUNK_LOSSES.has(loss.reason)
  const last = parts[parts.length - 1]
  if (chunk && last && last.reason === loss.reason && last.fromSeq === null && last.pageIndex === (loss.pageIndex ?? null)) {
    last.chunks! += 1
    last.untilTs = Math.max(last.untilTs ?? 0, loss.untilTs ?? 0) || null
    return
  }
  parts.push({
    reason: loss.reason,
    chunks: chunk ? 1 : null,
    fromSeq: null,
    toSeq: null,
    pageIndex: loss.pageIndex ?? null,
    url: loss.url ?? null,
    fromTs: loss.fromTs ?? null,
    untilTs: loss.untilTs ?? null,
  })
}
