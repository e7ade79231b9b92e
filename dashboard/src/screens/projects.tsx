/** Projects: every project of the organisation with its session count, and the form that creates one. */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Empty, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatDate } from '../format.js'
import { loadProjects, type Project, type ProjectAnswer } from '../model.js'
import { useCan } from '../roles.js'
import { href, navigate } from '../route.js'
import { RulesField, splitLines } from './rules-editor.js'

export function Projects() {
  useTitle('Projects')
  const list = useAsync(() => loadProjects(true), [])
  const [creating, setCreating] = useState(false)
  const projects = list.data ?? []
  const canCreate = useCan('admin')
  return (
    <section class="stack">
      <div class="row between">
        <h1 tabIndex={-1}>Projects</h1>
        {canCreate && !creating && projects.length > 0 && (
          <button type="button" onClick={() => setCreating(true)}>
            New project
          </button>
        )}
      </div>
      <ErrorNote error={list.error} />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && projects.length === 0 && !creating && (
        <Empty title="No projects yet">
          <p>A project holds the recordings of one site. Create one, then add its snippet to the site's pages or hand the install prompt to an install agent.</p>
          {canCreate ? (
            <button type="button" onClick={() => setCreating(true)}>
              Create your first project
            </button>
          ) : (
            <p class="muted">An admin or the owner creates projects.</p>
          )}
        </Empty>
      )}
      {creating && <CreateProject onCancel={() => setCreating(false)} />}
      {projects.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Projects</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Domain</th>
                <th scope="col" class="num">
                  Sessions
                </th>
                <th scope="col" class="hide-narrow">
                  Public key
                </th>
                <th scope="col" class="hide-narrow">
                  Created
                </th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {projects.map((p) => (
                <ProjectRow key={p.id} project={p} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

function ProjectRow({ project: p }: { project: Project }) {
  return (
    <tr>
      <th scope="row">
        <a href={href('p', p.id, p.sessionCount > 0 ? 'overview' : 'settings')}>{p.name}</a>
      </th>
      <td>{p.domain ?? <span class="muted">—</span>}</td>
      <td class="num" data-testid="session-count">
        {p.sessionCount.toLocaleString()}
      </td>
      <td class="hide-narrow">
        <code class="clip">{p.publicKey}</code>
      </td>
      <td class="hide-narrow">{formatDate(p.createdAt)}</td>
      <td class="actions">
        <a href={href('p', p.id, 'settings')}>Settings</a>
      </td>
    </tr>
  )
}

function CreateProject({ onCancel }: { onCancel: () => void }) {
  const [name, setName] = useState('')
  const [domain, setDomain] = useState('')
  const [rules, setRules] = useState('')
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      const pathRules = splitLines(rules)
      const { project } = await api.post<ProjectAnswer>('/cli/projects.create', {
        name,
        ...(domain.trim() ? { domain: domain.trim() } : {}),
        ...(pathRules.length ? { pathRules } : {}),
      })
      await loadProjects(true)
      navigate(href('p', project.id, 'settings', { created: 1 }))
    } catch (e) {
      setError(e)
      setBusy(false)
    }
  }
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">New project</h2>
      <label>
        <span>Name</span>
        <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} autoFocus />
      </label>
      <label>
        <span>Domain <span class="muted">(optional)</span></span>
        <input name="domain" placeholder="shop.example.com" value={domain} onInput={(e) => setDomain(e.currentTarget.value)} />
      </label>
      <RulesField value={rules} onInput={setRules} domain={domain} optional />
      <ErrorNote error={error} />
      <div class="row">
        <button type="submit" disabled={busy || !name.trim()}>
          {busy ? 'Creating…' : 'Create project'}
        </button>
        <button type="button" class="link" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}
