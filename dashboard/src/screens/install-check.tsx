/**
 * What an empty project shows: the snippet to paste, and the install check —
 * the session count, polled here every few seconds the way
 * `svc sessions count <id> --watch` polls it, until it moves off zero.
 */
import { useEffect } from 'preact/hooks'
import { api } from '../api.js'
import { Code, CopyButton, ErrorNote, Loading, useAsync, useInterval, type Async } from '../components.js'
import { plural } from '../format.js'
import type { CountAnswer, Project, SnippetAnswer } from '../model.js'

/** How often an empty project's count is polled: a visitor's first flush lands within 10 s (contract, section 1). */
const POLL_MS = 4000

export function useSnippet(projectId: string): Async<SnippetAnswer> {
  return useAsync(() => api.post<SnippetAnswer>('/cli/projects.snippet', { projectId }), [projectId])
}

export function InstallCheck({ project, snippet, onFirstSession }: { project: Project; snippet: Async<SnippetAnswer>; onFirstSession: () => void }) {
  const count = useAsync(() => api.post<CountAnswer>('/cli/sessions.count', { projectId: project.id }).then((a) => a.count), [project.id])
  const live = (count.data ?? project.sessionCount) > 0
  useInterval(() => {
    count.reload()
  }, live ? null : POLL_MS)
  useEffect(() => {
    if (live && project.sessionCount === 0) onFirstSession()
  }, [live])
  return (
    <div class="stack">
      <h3>Tracker snippet</h3>
      <p>
        Paste it into the <code>&lt;head&gt;</code> of every page of {project.domain ? <strong>{project.domain}</strong> : 'the site'}. It loads the recorder only after the visitor's first interaction and adds nothing to page load.
      </p>
      {snippet.loading && !snippet.data ? <Loading what="Loading the snippet" /> : null}
      <ErrorNote error={snippet.error} />
      {snippet.data && (
        <div class="stack" data-testid="snippet">
          <Code label="Tracker snippet">{snippet.data.snippet.trimEnd()}</Code>
          <div>
            <CopyButton text={snippet.data.snippet} label="Copy snippet" class="primary" />
          </div>
        </div>
      )}
      <h3>Install check</h3>
      <p class="row" role="status" aria-live="polite" data-testid="install-check">
        {live ? (
          <span class="badge ok">Live</span>
        ) : (
          <span class="badge wait">
            <span class="pulse" aria-hidden="true" /> Waiting for the first session
          </span>
        )}
        <span>{count.data === undefined ? '…' : plural(count.data, 'session')} recorded.</span>
      </p>
      <p class="muted small">
        Open the site and move the mouse: the tracker loads on the first interaction and sends within 10 seconds. From a terminal, the same check: <code>svc sessions count {project.id} --watch</code>
      </p>
      <ErrorNote error={count.error} />
    </div>
  )
}
