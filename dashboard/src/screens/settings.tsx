/**
 * A project's Settings: the public key and snippet, the install check, the
 * install prompt for an agent (with a fresh setup token), setup-token
 * revocation, the path rules with their live preview, what is recorded
 * (capture-settings.tsx), and what the project stores and for how long
 * (storage-settings.tsx), and the project's name and its deletion
 * (project-end.tsx).
 */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Code, ConfirmButton, CopyButton, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatDate, plural } from '../format.js'
import { directUrlOf, installPrompt } from '../install-prompt.js'
import { loadProjects, type BackfillStatus, type Project, type RevokedAnswer, type SetupTokenAnswer, type SnippetAnswer } from '../model.js'
import { CaptureForm } from './capture-settings.js'
import { ProjectCard } from './project-end.js'
import { StorageSettings } from './storage-settings.js'
import { InstallCheck, useSnippet } from './install-check.js'
import { RulesField, splitLines } from './rules-editor.js'

export function Settings({ project, justCreated, onChanged }: { project: Project; justCreated: boolean; onChanged: () => void }) {
  useTitle(`Settings · ${project.name}`)
  const snippet = useSnippet(project.id)
  return (
    <div class="stack">
      {justCreated && (
        <div class="note success" role="status">
          Project <strong>{project.name}</strong> created. Install the tracker on the site: paste the snippet, or copy the install prompt for an install agent.
        </div>
      )}
      <section class="card stack" aria-labelledby="install-title">
        <h2 id="install-title">Install</h2>
        <div class="kv">
          <span>Public key</span>
          <span class="row">
            <code data-testid="public-key">{project.publicKey}</code>
            <CopyButton text={project.publicKey} label="Copy key" />
          </span>
        </div>
        <p class="muted small">The public key only lets a page send recordings to this project. It is not a secret and may be committed with the snippet.</p>
        <InstallCheck project={project} snippet={snippet} onFirstSession={onChanged} />
      </section>
      <AgentInstall project={project} snippet={snippet.data} />
      <PathRules project={project} onSaved={onChanged} />
      <CaptureForm project={project} onSaved={onChanged} />
      <StorageSettings project={project} onSaved={onChanged} />
      <ProjectCard project={project} onRenamed={onChanged} />
    </div>
  )
}

function AgentInstall({ project, snippet }: { project: Project; snippet?: SnippetAnswer }) {
  const [minted, setMinted] = useState<{ prompt: string; expiresAt: number }>()
  const [revoked, setRevoked] = useState<number>()
  const [error, setError] = useState<unknown>()
  const mintPrompt = async () => {
    setError(undefined)
    setRevoked(undefined)
    const { token, expiresAt } = await api.post<SetupTokenAnswer>('/cli/projects.setup-token', { projectId: project.id })
    const prompt = installPrompt({ projectName: project.name, publicKey: project.publicKey, directUrl: directUrlOf(snippet?.trackerUrl), snippet: snippet?.snippet, token })
    setMinted({ prompt, expiresAt })
    return prompt
  }
  return (
    <section class="card stack" aria-labelledby="agent-title">
      <h2 id="agent-title">Install with an agent</h2>
      <p>
        Copying the install prompt mints a fresh <strong>setup token</strong>: it lets an install agent set this project's path rules and check the install, nothing else, for 30 days. The prompt tells the agent to keep the token in its shell and never commit it.
      </p>
      <div class="row">
        <CopyButton text={mintPrompt} label="Copy install prompt" class="primary" />
        <ConfirmButton
          label="Revoke setup tokens"
          confirm="Revoke every setup token"
          onConfirm={async () => {
            setError(undefined)
            try {
              const answer = await api.post<RevokedAnswer>('/cli/projects.setup-token.revoke', { projectId: project.id })
              setRevoked(answer.revoked)
              setMinted(undefined)
            } catch (e) {
              setError(e)
            }
          }}
        />
      </div>
      <ErrorNote error={error} />
      {revoked !== undefined && (
        <p class="note success" role="status" data-testid="revoked">
          Revoked {plural(revoked, 'setup token')}. Install agents holding one are refused from now on.
        </p>
      )}
      {minted && (
        <div class="stack" data-testid="install-prompt">
          <p class="muted small" role="status">
            Copied. The token in it expires {formatDate(minted.expiresAt)}. Paste the prompt into your install agent, in the codebase of the site.
          </p>
          <Code label="Install prompt">{minted.prompt}</Code>
        </div>
      )}
    </section>
  )
}

function PathRules({ project, onSaved }: { project: Project; onSaved: () => void }) {
  const initial = (project.pathRules ?? []).join('\n')
  const [text, setText] = useState(initial)
  const [error, setError] = useState<unknown>()
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)
  const rules = splitLines(text)
  const changed = rules.join('\n') !== (project.pathRules ?? []).join('\n')
  const save = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    setSaved(false)
    try {
      await api.post('/cli/projects.path-rules', { projectId: project.id, rules })
      await loadProjects(true)
      setSaved(true)
      onSaved()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <form class="card stack" onSubmit={save} aria-labelledby="rules-title">
      <h2 id="rules-title">Path rules</h2>
      <p class="muted">
        Sessions, heatmaps and the friction feed are grouped by page. Numbers, UUIDs, dates and hashes in URLs collapse by themselves; rules group the rest, such as tenant names. Page identity is decided when a page is first seen, so set rules before real traffic.
      </p>
      <RulesField value={text} onInput={(v) => { setText(v); setSaved(false) }} domain={project.domain ?? undefined} id="project-rules" />
      <ErrorNote error={error} />
      {saved && (
        <p class="note success" role="status">
          Rules saved. New sessions are grouped by them.
        </p>
      )}
      <div class="row">
        <button type="submit" disabled={busy || !changed || rules.length === 0}>
          {busy ? 'Saving…' : 'Save rules'}
        </button>
        {rules.length === 0 && changed && <small class="muted">A project keeps at least one rule once it has some.</small>}
      </div>
      {project.sessionCount > 0 && <Backfill project={project} />}
    </form>
  )
}

function Backfill({ project }: { project: Project }) {
  const status = useAsync(() => api.get<BackfillStatus>(`/cli/projects.backfill.status?projectId=${encodeURIComponent(project.id)}`), [project.id])
  const [error, setError] = useState<unknown>()
  const start = async () => {
    setError(undefined)
    try {
      await api.post('/cli/projects.backfill', { projectId: project.id })
    } catch (e) {
      setError(e)
    }
    status.reload()
  }
  const s = status.data
  return (
    <div class="note stack">
      <p>
        This project already holds {plural(project.sessionCount, 'session')}. Changed rules re-key its existing pages only after a backfill, which re-reads every stored recording.
      </p>
      {status.loading && !s ? <Loading what="Checking backfill" /> : null}
      {s?.state === 'running' && (
        <p role="status">
          Backfill running: {s.sessionsRekeyed ?? 0} of {s.sessionsTotal ?? '?'} sessions re-keyed.{' '}
          <button type="button" class="link" onClick={status.reload}>
            Refresh
          </button>
        </p>
      )}
      {s?.state === 'done' && (
        <p class="muted small">
          Last backfill done: {s.pagesBefore ?? '?'} pages before, {s.pagesAfter ?? '?'} after.
        </p>
      )}
      {s?.state !== 'running' && (
        <div>
          <button type="button" class="secondary" onClick={start}>
            Re-key existing pages (backfill)
          </button>
        </div>
      )}
      <ErrorNote error={error ?? status.error} />
    </div>
  )
}
