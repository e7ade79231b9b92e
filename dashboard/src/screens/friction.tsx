/**
 * The friction feed (POST /cli/friction.list), newest first: rage, dead and
 * error clicks, JavaScript errors grouped by message, and quick backs, each
 * linking to the replay at that moment.
 */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Empty, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatAgo, formatDate, plural } from '../format.js'
import type { FrictionItem, FrictionKind, FrictionListAnswer, Project } from '../model.js'
import { href, navigate } from '../route.js'
import { pageLabel, PagePicker, usePages } from './page-picker.js'

export const FRICTION_LABELS: Record<FrictionKind, string> = {
  rage: 'Rage click',
  dead: 'Dead click',
  errorClick: 'Error click',
  jsError: 'JavaScript error',
  quickBack: 'Quick back',
}

/** One line that says what happened and where: `"Buy now" (button)`, `TypeError: x is undefined ×3`. */
export function describeFriction(item: FrictionItem): string {
  if (item.kind === 'jsError') return `${item.message ?? 'Error'}${item.count && item.count > 1 ? ` ×${item.count}` : ''}`
  if (item.kind === 'quickBack') return `left ${pageLabel(item.page)} straight away`
  const target = item.label ? `“${item.label}”` : item.selector ?? 'an element'
  const tag = item.tag ? ` (${item.tag})` : ''
  const repeats = item.kind === 'rage' && item.n ? ` ×${item.n}` : ''
  return `${target}${tag}${repeats}`
}

export function Friction({ project, query }: { project: Project; query: URLSearchParams }) {
  useTitle(`Friction · ${project.name}`)
  const page = query.get('page') ?? ''
  const pages = usePages(project.id)
  const [more, setMore] = useState<{ key: string; items: FrictionItem[]; cursor?: string | null }>()
  const first = useAsync(() => api.post<FrictionListAnswer>('/cli/friction.list', { projectId: project.id, limit: 50, ...(page ? { page } : {}) }), [project.id, page])
  const key = `${project.id} ${page}`
  const extra = more?.key === key ? more : undefined
  const items = [...(first.data?.items ?? []), ...(extra?.items ?? [])]
  const cursor = extra ? extra.cursor : first.data?.nextCursor
  const [loadingMore, setLoadingMore] = useState(false)
  const [error, setError] = useState<unknown>()
  const loadMore = async () => {
    if (!cursor) return
    setLoadingMore(true)
    try {
      const next = await api.post<FrictionListAnswer>('/cli/friction.list', { projectId: project.id, limit: 50, cursor, ...(page ? { page } : {}) })
      setMore({ key, items: [...(extra?.items ?? []), ...next.items], cursor: next.nextCursor })
    } catch (e) {
      setError(e)
    } finally {
      setLoadingMore(false)
    }
  }
  return (
    <section class="stack">
      <h2 class="sr-only">Friction</h2>
      <div class="card filters">
        <PagePicker pages={pages.data ?? []} value={page} allowAny="Every page" onChange={(p) => navigate(href('p', project.id, 'friction', { page: p }))} id="friction-page" projectId={project.id} />
      </div>
      <ErrorNote error={first.error ?? error} />
      {first.loading && !first.data ? <Loading what="Loading the friction feed" /> : null}
      {first.data && items.length === 0 && (
        <Empty title="No friction recorded">
          <p>No rage, dead or error clicks, JavaScript errors or quick backs{page ? ' on this page' : ''} yet. That is good news, or the site has had little traffic.</p>
        </Empty>
      )}
      {items.length > 0 && (
        <ol class="feed" data-testid="friction">
          {items.map((item) => (
            <li key={item.id} class={`feed-item kind-${item.kind}`}>
              <span class={`dot tick-${item.kind}`} aria-hidden="true" />
              <div class="grow">
                <div>
                  <strong>{FRICTION_LABELS[item.kind] ?? item.kind}</strong> <span>{describeFriction(item)}</span>
                </div>
                <small class="muted">
                  {pageLabel(item.page)} · <span title={formatDate(item.ts)}>{formatAgo(item.ts)}</span>
                  {item.kind === 'jsError' && item.firstSeen ? ` · first seen ${formatAgo(item.firstSeen)}` : ''}
                  {item.kind === 'jsError' && item.count ? ` · ${plural(item.count, 'time')}` : ''}
                </small>
              </div>
              <a class="button secondary small" href={href('p', project.id, 'replay', item.sessionKey, { t: item.ts })} aria-label={`Watch the replay at this ${FRICTION_LABELS[item.kind] ?? 'moment'}`}>
                Watch
              </a>
            </li>
          ))}
        </ol>
      )}
      {cursor && (
        <div>
          <button type="button" class="secondary" onClick={loadMore} disabled={loadingMore}>
            {loadingMore ? 'Loading…' : 'Load older'}
          </button>
        </div>
      )}
    </section>
  )
}
