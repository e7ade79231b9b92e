/**
 * The project's own card on its Settings screen: renaming it, and deleting it
 * with everything recorded in it (projects.delete: it leaves every list at
 * once and its recordings are erased in the background).
 */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ConfirmButton, ErrorNote } from '../components.js'
import { loadProjects, type Project } from '../model.js'
import { href } from '../route.js'

export function ProjectCard({ project, onRenamed }: { project: Project; onRenamed: () => void }) {
  const [name, setName] = useState(project.name)
  const [error, setError] = useState<unknown>()
  const [saved, setSaved] = useState(false)
  const rename = async (event: Event) => {
    event.preventDefault()
    setError(undefined)
    setSaved(false)
    try {
      await api.post('/cli/projects.rename', { projectId: project.id, name })
      await loadProjects(true)
      setSaved(true)
      onRenamed()
    } catch (e) {
      setError(e)
    }
  }
  const remove = async () => {
    try {
      // The dry run's confirmation lets an admin delete (the owner needs none): the click above was the confirming.
      const { confirmation } = await api.post<{ confirmation?: string }>('/cli/projects.delete', { projectId: project.id, dryRun: true })
      await api.post('/cli/projects.delete', { projectId: project.id, confirmation })
      await loadProjects(true)
      location.hash = href('projects')
    } catch (e) {
      setError(e)
    }
  }
  return (
    <form class="card stack" onSubmit={rename} aria-labelledby="project-card-title" data-testid="project-card">
      <h2 id="project-card-title">Project</h2>
      <label>
        Name
        <input name="name" required maxLength={200} value={name} onInput={(e) => { setName((e.currentTarget as HTMLInputElement).value); setSaved(false) }} />
      </label>
      <ErrorNote error={error} />
      {saved && (
        <p class="note success" role="status">
          Renamed.
        </p>
      )}
      <div class="row between wrap">
        <button type="submit" disabled={name.trim() === '' || name.trim() === project.name}>
          Rename
        </button>
        <ConfirmButton label="Delete project" confirm={`Delete ${project.name} and everything recorded in it`} onConfirm={remove} busyLabel="Deleting…" />
      </div>
      <p class="muted small">Deleting removes the project from every list at once; its public key records nothing more, and its recordings, signals and aggregates are erased in the background. It cannot be undone.</p>
    </form>
  )
}
