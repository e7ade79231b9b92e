/**
 * A project's screens under one header with its tabs. While the project has
 * no session yet, the data screens show the install check instead of empty
 * charts: the snippet, and the count polled until it moves off zero.
 */
import { useCallback } from 'preact/hooks'
import { Empty, ErrorNote, Loading, useAsync } from '../components.js'
import { plural } from '../format.js'
import { loadProject, type Project } from '../model.js'
import { useCan } from '../roles.js'
import { href, type Route } from '../route.js'
import { Elements } from './elements.js'
import { Friction } from './friction.js'
import { Heatmaps } from './heatmaps.js'
import { InstallCheck, useSnippet } from './install-check.js'
import { Live } from './live-view.js'
import { Overview } from './overview.js'
import { Privacy } from './privacy.js'
import { Replay } from './replay.js'
import { searchOf } from './replay-search.js'
import { Sessions } from './sessions.js'
import { Settings } from './settings.js'

const TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'sessions', label: 'Sessions' },
  { id: 'heatmaps', label: 'Heatmaps' },
  { id: 'elements', label: 'Elements' },
  { id: 'friction', label: 'Friction' },
  { id: 'privacy', label: 'Privacy' },
  { id: 'settings', label: 'Settings' },
] as const

export function ProjectScreen({ projectId, route }: { projectId: string; route: Route }) {
  const project = useAsync(() => loadProject(projectId), [projectId])
  const refresh = useCallback(() => {
    void loadProject(projectId, true).then(() => project.reload())
  }, [projectId])
  // The overview is a project's first screen (issue 35).
  const tab = route.parts[2] ?? 'overview'
  const canChange = useCan('admin')
  const current = tab === 'replay' || tab === 'live' ? 'sessions' : tab
  if (project.error) return <ErrorNote error={project.error} />
  if (!project.data) {
    if (project.loading) return <Loading />
    return (
      <Empty title="No such project">
        <p>
          It may have been created in another organisation. <a href={href('projects')}>Back to your projects</a>.
        </p>
      </Empty>
    )
  }
  const p = project.data
  // A viewer changes no settings and erases nothing (docs/security.md, roles): those tabs are not offered.
  const tabs = canChange ? TABS : TABS.filter((t) => t.id !== 'settings' && t.id !== 'privacy')
  return (
    <div class="stack">
      <div class="project-head">
        <h1 tabIndex={-1}>
          {p.name}
          {p.domain && <span class="muted domain"> {p.domain}</span>}
        </h1>
        <span class="muted small">{plural(p.sessionCount, 'session')}</span>
      </div>
      <nav class="tabs" aria-label="Project">
        {tabs.map((t) => (
          <a key={t.id} href={href('p', p.id, t.id)} aria-current={current === t.id ? 'page' : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      <ProjectTab project={p} tab={tab} route={route} refresh={refresh} />
    </div>
  )
}

function ProjectTab({ project, tab, route, refresh }: { project: Project; tab: string; route: Route; refresh: () => void }) {
  const canChange = useCan('admin')
  if (tab === 'settings' && !canChange) return <Empty title="Settings are not for your role">Ask the organisation's owner (see Members) for the admin role.</Empty>
  if (tab === 'settings') return <Settings project={project} justCreated={route.query.has('created')} onChanged={refresh} />
  if (tab === 'privacy' && !canChange) return <Empty title="Erasure is not for your role">Ask the organisation's owner (see Members) for the admin role.</Empty>
  if (tab === 'privacy') return <Privacy project={project} />
  if (project.sessionCount === 0 && tab !== 'replay' && tab !== 'live') return <EmptyProject project={project} refresh={refresh} />
  switch (tab) {
    case 'overview':
      return <Overview project={project} query={route.query} />
    case 'sessions':
      return <Sessions project={project} query={route.query} />
    case 'replay':
      return <Replay project={project} sessionKey={route.parts[3] ?? ''} at={Number(route.query.get('t')) || undefined} search={searchOf(route.query)} live={route.query.get('live') === '1'} />
    case 'live':
      return <Live project={project} sessionKey={route.parts[3]} />
    case 'heatmaps':
      return <Heatmaps project={project} query={route.query} />
    case 'elements':
      return <Elements project={project} query={route.query} />
    case 'friction':
      return <Friction project={project} query={route.query} />
    default:
      return (
        <Empty title="No such screen">
          <p>
            <a href={href('p', project.id, 'sessions')}>Go to the sessions</a>.
          </p>
        </Empty>
      )
  }
}

function EmptyProject({ project, refresh }: { project: Project; refresh: () => void }) {
  const snippet = useSnippet(project.id)
  return (
    <section class="card stack" data-testid="empty-project">
      <h2>No sessions yet</h2>
      <p>Nothing is recorded until the tracker runs on the site. Install it, then open the site in a browser and move the mouse; this page updates by itself when the first session lands.</p>
      <InstallCheck project={project} snippet={snippet} onFirstSession={refresh} />
      <p class="muted small">
        Prefer an install agent? <a href={href('p', project.id, 'settings')}>Settings</a> has a ready-made prompt.
      </p>
    </section>
  )
}
