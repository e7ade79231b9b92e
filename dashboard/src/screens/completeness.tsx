/**
 * What a recording is missing and why, in words (the `completeness` of
 * sessions.list and sessions.chunks): a line in the session list, and a
 * note above the replay. The sentences come from one place shared with the
 * CLI (src/recordings/missing-words.ts).
 */
import { describeMissing } from '../../../src/recordings/missing-words.js'
import { api } from '../api.js'
import { useAsync } from '../components.js'
import type { Completeness, SessionChunksAnswer } from '../model.js'

/** Parts named in a session-list row; the replay names them all. */
const LIST_PARTS = 2

// Inline, with the stylesheet's own colours: styles.css is being reworked beside this change (see the commit).
const WARN = { background: 'var(--warn-soft)', borderColor: '#fedf89', color: '#7a2e0e' }
const BLOCK = { display: 'block', marginTop: '0.15rem' }

const sentences = (c: Completeness) => c.missing.map((part) => describeMissing(part, c.recordingStartedAt))

/** The session list's line: nothing for a complete recording with nothing left out. */
export function MissingLine({ completeness: c }: { completeness?: Completeness }) {
  if (!c || c.missing.length === 0) return null
  const all = sentences(c)
  const more = all.length - LIST_PARTS + c.omitted
  return (
    <div class={c.complete ? 'muted small' : 'small'} style={c.complete ? BLOCK : { ...BLOCK, color: 'var(--warn)' }} data-testid="missing" title={all.join('\n')}>
      {!c.complete && <span class="chip warn">Incomplete recording</span>}
      {all.slice(0, LIST_PARTS).map((text, i) => (
        <span key={i} style={BLOCK}>
          {text}
        </span>
      ))}
      {more > 0 && <span style={BLOCK}>and {more} more</span>}
    </div>
  )
}

/** Above the replay: every missing part, or nothing when the recording is whole. */
export function RecordingGaps({ projectId, sessionKey }: { projectId: string; sessionKey: string }) {
  const answer = useAsync(() => api.post<SessionChunksAnswer>('/cli/sessions.chunks', { projectId, sessionKey }), [projectId, sessionKey])
  const c = answer.data?.completeness
  if (!c || c.missing.length === 0) return null
  return (
    <section class="note" style={c.complete ? undefined : WARN} aria-labelledby="gaps-title" data-testid="recording-gaps">
      <h2 id="gaps-title" class="small" style={{ margin: '0 0 0.4rem' }}>
        {c.complete ? 'Recorded whole, with pages left out by the capture settings' : 'This recording is incomplete'}
      </h2>
      <ul class="plain small">
        {sentences(c).map((text, i) => (
          <li key={i}>{text}</li>
        ))}
        {c.omitted > 0 && <li>and {c.omitted} more</li>}
      </ul>
    </section>
  )
}
