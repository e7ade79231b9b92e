/**
 * The element leaderboard of a page (POST /cli/elements.top): the most
 * clicked elements with their rage, dead and error clicks, each linking to
 * the sessions that clicked it on that page.
 */
import { api } from '../api.js'
import { Empty, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatPercent } from '../format.js'
import type { ElementRow, ElementsTopAnswer, Project } from '../model.js'
import { href, navigate } from '../route.js'
import { displayPath, pageLabel, PagePicker, usePages } from './page-picker.js'

const LIMIT = 50

export function Elements({ project, query }: { project: Project; query: URLSearchParams }) {
  useTitle(`Elements · ${project.name}`)
  const pages = usePages(project.id)
  const page = query.get('page') ?? ''
  const top = useAsync(() => api.post<ElementsTopAnswer>('/cli/elements.top', { projectId: project.id, limit: LIMIT, ...(page ? { page } : {}) }).then((a) => a.elements), [project.id, page])
  const rows = top.data ?? []
  const max = Math.max(1, ...rows.map((r) => r.clicks))
  return (
    <section class="stack">
      <h2 class="sr-only">Element leaderboard</h2>
      <div class="card filters">
        <PagePicker pages={pages.data ?? []} value={page} allowAny="Every page" onChange={(p) => navigate(href('p', project.id, 'elements', { page: p }))} id="elements-page" projectId={project.id} />
      </div>
      <ErrorNote error={top.error ?? pages.error} />
      {top.loading && !top.data ? <Loading what="Loading the leaderboard" /> : null}
      {top.data && rows.length === 0 && (
        <Empty title="No clicks recorded">
          <p>Clicks appear here as visitors use {page ? 'this page' : 'the site'}. The tracker sends them within 10 seconds.</p>
        </Empty>
      )}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table data-testid="elements">
            <caption class="sr-only">Most clicked elements{page ? ` on ${page}` : ''}</caption>
            <thead>
              <tr>
                <th scope="col" class="num">
                  #
                </th>
                <th scope="col">Element</th>
                <th scope="col" class="num">
                  Clicks
                </th>
                <th scope="col" class="hide-narrow">
                  Share
                </th>
                <th scope="col" class="num">
                  Rage
                </th>
                <th scope="col" class="num">
                  Dead
                </th>
                <th scope="col" class="num hide-narrow">
                  Error
                </th>
                <th scope="col">
                  <span class="sr-only">Sessions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={`${r.page} ${r.selector}`}>
                  <td class="num muted">{i + 1}</td>
                  <th scope="row" class="element">
                    <span>{r.label ? `“${r.label}”` : <span class="muted">no label</span>}</span> {r.tag && <span class="chip">{r.tag}</span>}
                    <br />
                    <code class="clip small" title={r.selector}>
                      {r.selector}
                    </code>
                    {!page && <small class="muted"> on {pageLabel(r.page)}</small>}
                  </th>
                  <td class="num">{r.clicks.toLocaleString()}</td>
                  <td class="hide-narrow">
                    <span class="bar" aria-hidden="true">
                      <span style={{ width: `${(100 * r.clicks) / max}%` }} />
                    </span>{' '}
                    <small>{formatPercent(r.share, 1)}</small>
                  </td>
                  <td class={r.rage ? 'num bad' : 'num muted'}>{r.rage}</td>
                  <td class={r.dead ? 'num warn' : 'num muted'}>{r.dead}</td>
                  <td class={r.errors ? 'num bad hide-narrow' : 'num muted hide-narrow'}>{r.errors}</td>
                  <td class="actions">
                    <a href={href('p', project.id, 'sessions', { page: displayPath(r.page), element: r.selector, label: r.label })} aria-label={`Sessions that clicked ${r.label ?? r.selector}`}>
                      Sessions
                    </a>
                    {r.rage + r.dead + r.errors > 0 && (
                      <>
                        {' · '}
                        <a href={href('p', project.id, 'friction', { page: displayPath(r.page) })} aria-label={`Replays of the friction on ${r.label ?? r.selector}`}>
                          Replays
                        </a>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
