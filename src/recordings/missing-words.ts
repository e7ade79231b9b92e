/**
 * A missing part of a recording in words, as the dashboard and `svc sessions
 * list` both say it: "2 chunks missing between 3:10 and 3:40: the tab was
 * closed before they were sent". Times are offsets from the session's start,
 * as the replay's timeline shows them. No dependencies: the dashboard and
 * the CLI bundle this file.
 */

/** The members of a missing part (schemas/read.ts, Completeness) this needs. */
export interface MissingWords {
  reason: string
  chunks: number | null
  url: string | null
  fromTs: number | null
  untilTs: number | null
}

/** Why, as the end of a sentence: for one chunk, then for several (a page view left out takes the first). */
export const MISSING_REASONS: Record<string, [one: string, many: string]> = {
  not_received: ['the service never received it, and nothing reported why', 'the service never received them, and nothing reported why'],
  dropped: [
    'the tracker dropped it (its queue was full while the service could not be reached, an event was over the chunk size cap, or sending failed after its retries)',
    'the tracker dropped them (its queue was full while the service could not be reached, an event was over the chunk size cap, or sending failed after its retries)',
  ],
  refused_too_large: ['the service refused it as larger than the chunk cap', 'the service refused them as larger than the chunk cap'],
  tab_closed: ['the tab was closed before it was sent', 'the tab was closed before they were sent'],
  excluded: ['the page is excluded by the capture settings', 'the page is excluded by the capture settings'],
  before_trigger: ['the session had not reached a trigger page yet', 'the session had not reached a trigger page yet'],
  sampled_out: ['the session was sampled out by the capture settings', 'the session was sampled out by the capture settings'],
}

/** 75_000 → "1:15"; 3_725_000 → "1:02:05". */
export function clockOf(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}

function pathOf(url: string): string {
  try {
    const u = new URL(url)
    return u.pathname + u.search
  } catch {
    return url
  }
}

/** The part in one sentence; `start`: the session's start (epoch ms), for the times. */
export function describeMissing(part: MissingWords, start: number): string {
  const why = MISSING_REASONS[part.reason]?.[part.chunks !== null && part.chunks > 1 ? 1 : 0] ?? part.reason
  const at = (ts: number) => clockOf(ts - start)
  const { fromTs, untilTs } = part
  const when =
    fromTs !== null && untilTs !== null
      ? at(fromTs) === at(untilTs)
        ? ` at ${at(fromTs)}`
        : ` between ${at(fromTs)} and ${at(untilTs)}`
      : fromTs !== null
        ? ` from ${at(fromTs)}`
        : untilTs !== null
          ? ` before ${at(untilTs)}`
          : ''
  if (part.chunks === null) return `${part.url ? `Page ${pathOf(part.url)}` : 'A page'} not recorded${when}: ${why}`
  const what = part.chunks === 1 ? '1 chunk' : `${part.chunks.toLocaleString('en')} chunks`
  return `${what} missing${when}: ${why}`
}
