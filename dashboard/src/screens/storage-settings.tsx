/**
 * A project's storage on its Settings screen: what it holds (recordings,
 * signals, aggregates), what a recorded minute costs, and how many days it
 * keeps recordings (shorter than the deployment's RETENTION_DAYS, or as long).
 */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ErrorNote, Loading, useAsync } from '../components.js'
import { formatBytes } from '../format.js'
import type { ProjectStorageAnswer } from '../../../src/schemas/types.js'
import { loadProjects, type Project } from '../model.js'

export function StorageSettings({ project, onSaved }: { project: Project; onSaved: () => void }) {
  const storage = useAsync(() => api.post<ProjectStorageAnswer>('/cli/projects.storage', { projectId: project.id }), [project.id])
  const [days, setDays] = useState(project.retentionDays ? String(project.retentionDays) : '')
  const [error, setError] = useState<unknown>()
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)
  const save = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    setSaved(false)
    try {
      // Empty: the deployment's RETENTION_DAYS.
      await api.post('/cli/projects.retention', { projectId: project.id, retentionDays: days.trim() === '' ? null : Number(days) })
      await loadProjects(true)
      storage.reload()
      setSaved(true)
      onSaved()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const s = storage.data
  return (
    <form class="card stack" onSubmit={save} aria-labelledby="storage-title" data-testid="storage-settings">
      <h2 id="storage-title">Storage</h2>
      {storage.loading && !s ? <Loading what="Reading storage" /> : null}
      {s && (
        <div class="kv" data-testid="storage-figures">
          <span>Recordings</span>
          <span>{formatBytes(s.chunkBytes)}</span>
          <span>Signals and aggregates</span>
          <span>{formatBytes(s.signalsBytes + s.aggregatesBytes)}</span>
          <span>Recorded</span>
          <span>{s.recordedMinutes} minutes</span>
          <span>Per recorded minute</span>
          <span data-testid="bytes-per-minute">{s.bytesPerRecordedMinute === null ? 'nothing recorded yet' : formatBytes(s.bytesPerRecordedMinute)}</span>
        </div>
      )}
      <label>
        Keep recordings (days after a session's last activity; empty: as long as the deployment keeps them, RETENTION_DAYS)
        <input type="number" min="1" step="1" name="retentionDays" value={days} onInput={(e) => { setDays((e.currentTarget as HTMLInputElement).value); setSaved(false) }} />
      </label>
      <p class="muted small">Older recordings are deleted by the next retention pass; session metadata, clicks and heatmaps stay. A deployment with a disk budget may delete the oldest recordings sooner.</p>
      <ErrorNote error={error ?? storage.error} />
      {saved && (
        <p class="note success" role="status">
          Retention saved.
        </p>
      )}
      <div class="row">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save retention'}
        </button>
      </div>
    </form>
  )
}
