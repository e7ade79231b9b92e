/**
 * What a session record keeps about the parts of its recording that did not
 * arrive (issue 35, "Recording completeness"): the highest seq stored
 * (`seqTop`, set with each chunk in recording-records.ts) and the reports of
 * losses (`losses`): from the tracker, in a signals batch's `lost` (chunks it
 * dropped, page views the capture settings left out, the seqs it sent as its
 * tab closed), and from the service itself (a chunk refused as too large,
 * src/front/ingest.ts). The backends store them (lmdb/append.ts,
 * memory/append.ts); the rules are these, once. What is missing, in words and
 * times, is read from them and the chunk list (src/recordings/completeness.ts).
 */
import type { LossReason, ProjectStats, RecordingLoss, SessionRecord } from './records.js'

/** Reports a session keeps; a tracker sends a handful per page view at most, so past this it is a broken or hostile client. */
export const MAX_SESSION_LOSSES = 32

/** Reasons that say a chunk was lost (the others: page views left out by the project's choice). */
export const CHUNK_LOSSES: ReadonlySet<LossReason> = new Set(['dropped', 'refused_too_large', 'tab_closed'])

type Completeness = Pick<SessionRecord, 'chunkCount' | 'seqTop' | 'losses'>

/** The highest seq stored or named by a report: every seq from 0 to it should be stored. -1: none. */
export function expectedTop(session: Completeness): number {
  let top = session.seqTop ?? -1
  for (const loss of session.losses ?? []) if (loss.seq !== undefined) top = Math.max(top, loss.toSeq ?? loss.seq)
  return top
}

/**
 * Whether the recording holds everything the tracker recorded: no seq up to
 * the highest stored or reported is missing (seqs start at 0 and a repeated
 * seq is not counted twice, so chunkCount says it), and no chunk without a seq
 * was reported lost. Page views left out by the capture settings do not make
 * a session incomplete: they are listed, but they are the project's choice.
 * Reads the record alone: the ingest path pays a comparison for it.
 */
export function isComplete(session: Completeness): boolean {
  if (expectedTop(session) + 1 > session.chunkCount) return false
  return !session.losses?.some((loss) => loss.seq === undefined && CHUNK_LOSSES.has(loss.reason))
}

/** Moves the project's count of incomplete sessions by what a write did to one session (`before` undefined: a new session). */
export function countCompleteness(stats: ProjectStats, before: Completeness | undefined, after: Completeness): void {
  const was = before !== undefined && !isComplete(before)
  const is = !isComplete(after)
  if (was !== is) stats.incompleteSessions = Math.max(0, (stats.incompleteSessions ?? 0) + (is ? 1 : -1))
}

/** Two reports of the same loss: a retried or replayed batch, or a page view reported again, is kept once. */
function sameLoss(a: RecordingLoss, b: RecordingLoss): boolean {
  if (a.reason !== b.reason) return false
  if (a.seq !== undefined || b.seq !== undefined) return a.seq === b.seq && a.toSeq === b.toSeq
  if (!CHUNK_LOSSES.has(a.reason)) return a.pageIndex === b.pageIndex
  return a.pageIndex === b.pageIndex && a.fromTs === b.fromTs && a.untilTs === b.untilTs && a.events === b.events
}

/**
 * The session record with `lost` added, or undefined when it adds nothing
 * (every report already kept). Past MAX_SESSION_LOSSES, reports about seqs
 * that have all arrived since are let go first; what still does not fit is
 * only counted (`lossesOmitted`).
 */
export function sessionWithLosses(session: SessionRecord, lost: readonly RecordingLoss[]): SessionRecord | undefined {
  let losses = session.losses ?? []
  let omitted = session.lossesOmitted ?? 0
  let changed = false
  for (const loss of lost) {
    if (losses.some((kept) => sameLoss(kept, loss))) continue
    if (losses.length >= MAX_SESSION_LOSSES) losses = withoutResolved(session, losses)
    if (losses.length >= MAX_SESSION_LOSSES) omitted += 1
    else losses = [...losses, loss]
    changed = true
  }
  if (!changed) return undefined
  return { ...session, losses, ...(omitted ? { lossesOmitted: omitted } : {}) }
}

/** With no seq missing up to seqTop, a report about seqs at or below it is answered: every one of them arrived. */
function withoutResolved(session: SessionRecord, losses: RecordingLoss[]): RecordingLoss[] {
  const top = session.seqTop ?? -1
  if (session.chunkCount !== top + 1) return losses
  return losses.filter((loss) => loss.seq === undefined || (loss.toSeq ?? loss.seq) > top)
}
