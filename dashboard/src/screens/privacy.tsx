/**
 * A project's Privacy screen (admin and owner): erasure requests. Whom to
 * erase (a user id as the site gave it to `identify`, a visitor, a session,
 * or the sessions that started in a time range), what would go (a dry run),
 * then the request itself, and every request of the project with its
 * progress, polled while one runs. Erasure removes recordings, signals and
 * every aggregate entry that names the sessions; counts that name no session
 * stay (/docs/privacy).
 */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ConfirmButton, Empty, ErrorNote, Loading, useAsync, useInterval, useTitle } from '../components.js'
import { formatBytes, formatDate, plural } from '../format.js'
import type { CreateErasureAnswer, Erasure, ErasureListAnswer } from '../../../src/schemas/types.js'
import type { Project } from '../model.js'
import { useCan } from '../roles.js'
import { href } from '../route.js'

type Kind = 'userId' | 'visitorId' | 'sessionKey' | 'query'

const KINDS: { id: Kind; label: string; hint: string }[] = [
  { id: 'userId', label: 'User id', hint: 'As the site passed it to identify(): every session of that user.' },
  { id: 'visitorId', label: 'Visitor id', hint: 'Every session of one browser (the visitor id in the session list).' },
  { id: 'sessionKey', label: 'Session key', hint: 'One session.' },
  { id: 'query', label: 'Time range', hint: 'Every session that started in the range (your browser\'s time zone).' },
]

const SUBJECT_LABELS: Record<Erasure['subject'], string> = { userId: 'a user', visitorId: 'a visitor', sessionKey: 'a session', query: 'a time range', project: 'the project' }

/** The replay screen's action (admin and owner): erase the session being watched. */
export function EraseSession({ projectId, sessionKey }: { projectId: string; sessionKey: string }) {
  const can = useCan('admin')
  const [started, setStarted] = useState(false)
  const [error, setError] = useState<unknown>()
  if (!can) return null
  if (started) {
    return (
      <p class="note success small" role="status">
        Erasure started: the session leaves every list shortly. <a href={href('p', projectId, 'privacy')}>Follow it on the Privacy tab</a>.
      </p>
    )
  }
  const erase = async () => {
    try {
      await api.post<CreateErasureAnswer>('/cli/erasures.create', { projectId, by: { sessionKey } })
      setStarted(true)
    } catch (e) {
      setError(e)
    }
  }
  return (
    <span class="row">
      <ConfirmButton label="Erase this session" confirm="Erase its recording and signals for good" onConfirm={erase} busyLabel="Starting…" />
      <ErrorNote error={error} />
    </span>
  )
}

export function Privacy({ project }: { project: Project }) {
  useTitle(`Privacy · ${project.name}`)
  const list = useAsync(() => api.post<ErasureListAnswer>('/cli/erasures.list', { projectId: project.id }), [project.id])
  const running = list.data?.erasures.some((e) => e.state !== 'done')
  useInterval(() => list.reload(), running ? 1500 : null)
  return (
    <div class="stack">
      <EraseForm project={project} onStarted={() => list.reload()} />
      <section class="card stack" aria-labelledby="erasures-title">
        <h2 id="erasures-title">Erasure requests</h2>
        <ErrorNote error={list.error} />
        {!list.data && list.loading && <Loading what="Reading the requests" />}
        {list.data && list.data.erasures.length === 0 && <Empty title="No erasure requests yet" />}
        {list.data && list.data.erasures.length > 0 && <ErasureTable erasures={list.data.erasures} />}
      </section>
    </div>
  )
}

function subjectOf(kind: Kind, value: string, from: string, until: string): Record<string, unknown> | string {
  if (kind !== 'query') return value.trim() ? { [kind]: value.trim() } : 'Fill in whom to erase.'
  const start = Date.parse(from)
  const end = Date.parse(until)
  if (!Number.isFinite(start) || !Number.isFinite(end)) return 'Give both ends of the range.'
  if (end <= start) return 'The range must end after it starts.'
  return { query: { from: start, until: end } }
}

function EraseForm({ project, onStarted }: { project: Project; onStarted: () => void }) {
  const [kind, setKind] = useState<Kind>('userId')
  const [value, setValue] = useState('')
  const [from, setFrom] = useState('')
  const [until, setUntil] = useState('')
  const [preview, setPreview] = useState<CreateErasureAnswer['wouldRemove']>()
  // The dry run's confirmation: an admin's large erasure goes through only with it (the owner's needs none).
  const [confirmation, setConfirmation] = useState<string>()
  const [error, setError] = useState<unknown>()
  const [started, setStarted] = useState<string>()
  const subject = subjectOf(kind, value, from, until)
  const reset = () => {
    setPreview(undefined)
    setStarted(undefined)
    setError(undefined)
  }
  const count = async (event: Event) => {
    event.preventDefault()
    reset()
    if (typeof subject === 'string') return setError(new Error(subject))
    try {
      const answer = await api.post<CreateErasureAnswer>('/cli/erasures.create', { projectId: project.id, by: subject, dryRun: true })
      setPreview(answer.wouldRemove)
      setConfirmation(answer.confirmation)
    } catch (e) {
      setError(e)
    }
  }
  const erase = async () => {
    if (typeof subject === 'string') return
    try {
      const answer = await api.post<CreateErasureAnswer>('/cli/erasures.create', { projectId: project.id, by: subject, ...(confirmation ? { confirmation } : {}) })
      setPreview(undefined)
      setStarted(answer.erasure?.id)
      onStarted()
    } catch (e) {
      setError(e)
    }
  }
  const hint = KINDS.find((k) => k.id === kind)!.hint
  return (
    <form class="card stack" onSubmit={count} aria-labelledby="erase-title" data-testid="erase-form">
      <h2 id="erase-title">Erase a person's data</h2>
      <p class="muted small">
        Deletes their recordings, clicks, views and errors, and every aggregate entry that names their sessions, from this project. Counts that name no session (how many sessions a page had) stay. It runs in the background and cannot be undone.
      </p>
      <label>
        Erase by
        <select value={kind} onChange={(e) => { setKind((e.currentTarget as HTMLSelectElement).value as Kind); reset() }}>
          {KINDS.map((k) => (
            <option key={k.id} value={k.id}>
              {k.label}
            </option>
          ))}
        </select>
      </label>
      {kind === 'query' ? (
        <div class="row">
          <label>
            From
            <input type="datetime-local" value={from} onInput={(e) => { setFrom((e.currentTarget as HTMLInputElement).value); reset() }} />
          </label>
          <label>
            Until
            <input type="datetime-local" value={until} onInput={(e) => { setUntil((e.currentTarget as HTMLInputElement).value); reset() }} />
          </label>
        </div>
      ) : (
        <label>
          {KINDS.find((k) => k.id === kind)!.label}
          <input name="subject" maxLength={256} value={value} onInput={(e) => { setValue((e.currentTarget as HTMLInputElement).value); reset() }} />
        </label>
      )}
      <p class="muted small">{hint}</p>
      <ErrorNote error={error} />
      {preview && (
        <p class="note" role="status" data-testid="erase-preview">
          This would erase {plural(preview.sessions, 'session')} ({plural(preview.chunks, 'recording chunk')}, {formatBytes(preview.bytes)}) and {plural(preview.signalBatches, 'signals batch', 'signals batches')}.
        </p>
      )}
      {started && (
        <p class="note success" role="status">
          Erasure {started} started; its progress is below.
        </p>
      )}
      <div class="row">
        <button type="submit" class="secondary">
          Count what would go
        </button>
        {preview && preview.sessions > 0 && <ConfirmButton label="Erase" confirm={`Erase ${plural(preview.sessions, 'session')} for good`} onConfirm={erase} busyLabel="Starting…" />}
      </div>
    </form>
  )
}

function ErasureTable({ erasures }: { erasures: Erasure[] }) {
  return (
    <div class="table-wrap">
      <table data-testid="erasures">
        <thead>
          <tr>
            <th scope="col">Requested</th>
            <th scope="col">Of</th>
            <th scope="col">State</th>
            <th scope="col">Removed</th>
            <th scope="col">Out of the files</th>
          </tr>
        </thead>
        <tbody>
          {erasures.map((e) => (
            <tr key={e.id}>
              <td>{formatDate(e.createdAt)}</td>
              <td>{SUBJECT_LABELS[e.subject]}</td>
              <td>{e.state === 'done' ? `done ${formatDate(e.finishedAt)}` : `${e.state} (${e.phase}, ${plural(e.sessionsExamined, 'session')} examined)`}</td>
              <td>
                {plural(e.removed.sessions, 'session')}, {formatBytes(e.removed.bytes)}
              </td>
              <td>{e.scrubbed ? 'yes' : 'not yet'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
