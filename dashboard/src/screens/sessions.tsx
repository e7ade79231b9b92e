/**
 * Sessions, newest first, with filters (page, user, account, duration,
 * errors, rage, device) and a search by what happened (a path visited, an
 * element clicked, an error's message, a console message, a failed request, the
 * site a session came from) kept in the address so a filtered list can be linked to, and
 * cursor pagination (POST /cli/sessions.list).
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'
import { Empty, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatAgo, formatClock, formatDate, formatDuration, identityOf, pathOf, plural } from '../format.js'
import type { FrictionListAnswer, Project, SessionsListAnswer, SessionSummary } from '../model.js'
import { href, navigate } from '../route.js'
import { MissingLine } from './completeness.js'
import { FRICTION_LABELS } from './friction.js'
import { LiveMark, LiveNow, useLiveSessions } from './live.js'
import { PagePicker, usePages } from './page-picker.js'
import { KIND_WORDS, SEARCH_MEMBERS, searchOfValues, searchParams, type SearchMember } from './replay-search.js'

const PAGE_SIZE = 25

const RANGES: Record<string, number> = { '24h': 24 * 3600_000, '7d': 7 * 86400_000, '30d': 30 * 86400_000 }

export interface SessionFilters extends Record<SearchMember, string> {
  page: string
  user: string
  account: string
  minSec: string
  errors: boolean
  rage: boolean
  /** Console capture: sessions with a console error. */
  consoleErrors: boolean
  /** Network capture: sessions with a request that failed or answered 500 or more. */
  failedRequests: boolean
  range: string
  /** An element's selector (with `page`), from the element leaderboard: sessions that clicked it. */
  element: string
  /** That element's label, for the heading only. */
  label: string
  device: string
}

function filtersOf(query: URLSearchParams): SessionFilters {
  return {
    page: query.get('page') ?? '',
    user: query.get('user') ?? '',
    account: query.get('account') ?? '',
    minSec: query.get('minSec') ?? '',
    errors: query.get('errors') === '1',
    rage: query.get('rage') === '1',
    consoleErrors: query.get('consoleErrors') === '1',
    failedRequests: query.get('failedRequests') === '1',
    range: query.get('range') ?? '',
    element: query.get('element') ?? '',
    label: query.get('label') ?? '',
    device: query.get('device') ?? '',
    // Search by what happened: a path pattern, or text in a clicked element, an error, a console message, a failed request, a referrer.
    ...(Object.fromEntries(SEARCH_MEMBERS.map((member) => [member, query.get(member) ?? ''])) as Record<SearchMember, string>),
  }
}

function bodyOf(projectId: string, f: SessionFilters, cursor: string | undefined) {
  return {
    projectId,
    limit: PAGE_SIZE,
    ...(f.page ? { page: f.page } : {}),
    ...(f.page && f.element ? { selector: f.element } : {}),
    ...(f.user ? { userId: f.user } : {}),
    ...(f.account ? { accountId: f.account } : {}),
    ...(Number(f.minSec) > 0 ? { minDurationMs: Math.round(Number(f.minSec) * 1000) } : {}),
    ...(f.errors ? { hasErrors: true } : {}),
    ...(f.rage ? { hasRage: true } : {}),
    ...(f.consoleErrors ? { hasConsoleErrors: true } : {}),
    ...(f.failedRequests ? { hasFailedRequests: true } : {}),
    ...(RANGES[f.range] ? { since: Date.now() - RANGES[f.range] } : {}),
    ...searchOfValues(f),
    ...(f.device ? { device: f.device } : {}),
    ...(cursor ? { cursor } : {}),
  }
}

export function Sessions({ project, query }: { project: Project; query: URLSearchParams }) {
  useTitle(`Sessions · ${project.name}`)
  const filters = filtersOf(query)
  const key = JSON.stringify(filters)
  // cursors[i] opens page i + 1; page 1 needs none. New filters start again from page 1.
  const [pager, setPager] = useState<{ key: string; cursors: string[]; index: number }>({ key, cursors: [], index: 0 })
  const { cursors, index } = pager.key === key ? pager : { cursors: [] as string[], index: 0 }
  const page = useAsync(() => api.post<SessionsListAnswer>('/cli/sessions.list', bodyOf(project.id, filters, index === 0 ? undefined : cursors[index - 1])), [project.id, key, index])
  const sessions = page.data?.sessions ?? []
  const next = page.data?.nextCursor
  // Sessions in progress come first, above the unfiltered list (`live` takes no other filter).
  const live = useLiveSessions(project.id, index === 0 && key === JSON.stringify(filtersOf(new URLSearchParams())))
  return (
    <section class="stack">
      <h2 class="sr-only">Sessions</h2>
      {filters.page && filters.element && <ElementClicks project={project} page={filters.page} selector={filters.element} label={filters.label || undefined} />}
      <LiveNow project={project} live={live} />
      <Filters project={project} filters={filters} />
      <ErrorNote error={page.error} />
      {page.loading && !page.data ? <Loading what="Loading sessions" /> : null}
      {page.data && sessions.length === 0 && next && (
        // A page of a search ends at its read budget (time, entries) with a cursor, matches or not: on a large project it may hold none.
        <Empty title="None found on this page">
          <p>This page of the search ended before it found a match. Older looks further.</p>
        </Empty>
      )}
      {page.data && sessions.length === 0 && !next && (
        <Empty title="No sessions match">
          <p>{key === JSON.stringify(filtersOf(new URLSearchParams())) ? 'No session in this range yet.' : 'Loosen the filters, or clear them.'}</p>
        </Empty>
      )}
      {sessions.length > 0 && (
        <div class="table-wrap">
          <table class="sessions" data-testid="sessions">
            <caption class="sr-only">Sessions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Who</th>
                <th scope="col" class="hide-narrow">
                  Duration
                </th>
                <th scope="col" class="hide-narrow">
                  Pages
                </th>
                <th scope="col">Signals</th>
                <th scope="col" class="hide-narrow">
                  <span class="sr-only">Replay</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <SessionLine key={s.sessionKey} project={project} session={s} search={searchOfValues(filters)} live={live.keys.has(s.sessionKey)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(index > 0 || next) && (
        <nav class="row pager" aria-label="Pages of sessions">
          <button type="button" class="secondary" disabled={index === 0 || page.loading} onClick={() => setPager({ key, cursors, index: index - 1 })}>
            Newer
          </button>
          <span class="muted small">Page {index + 1}</span>
          <button
            type="button"
            class="secondary"
            disabled={!next || page.loading}
            onClick={() => setPager({ key, cursors: [...cursors.slice(0, index), next!], index: index + 1 })}
          >
            Older
          </button>
        </nav>
      )}
    </section>
  )
}

function Filters({ project, filters }: { project: Project; filters: SessionFilters }) {
  const pages = usePages(project.id)
  const [draft, setDraft] = useState(filters)
  useEffect(() => setDraft(filters), [JSON.stringify(filters)])
  const apply = (f: SessionFilters) => {
    // The element stays while its page does: the other filters narrow the sessions that clicked it.
    const element = f.page === filters.page ? { element: f.element, label: f.label } : {}
    navigate(href('p', project.id, 'sessions', { page: f.page, ...element, user: f.user.trim(), account: f.account.trim(), minSec: f.minSec, errors: f.errors ? 1 : '', rage: f.rage ? 1 : '', consoleErrors: f.consoleErrors ? 1 : '', failedRequests: f.failedRequests ? 1 : '', range: f.range, ...Object.fromEntries(SEARCH_MEMBERS.map((member) => [member, f[member].trim()])), device: f.device }))
  }
  const set = (patch: Partial<SessionFilters>) => setDraft({ ...draft, ...patch })
  return (
    <form
      class="filters card"
      aria-label="Filter sessions"
      onSubmit={(e) => {
        e.preventDefault()
        apply(draft)
      }}
    >
      <PagePicker pages={pages.data ?? []} value={draft.page} onChange={(page) => set({ page })} allowAny="Any page" id="filter-page" projectId={project.id} />
      <label>
        <span>User id</span>
        <input name="user" value={draft.user} onInput={(e) => set({ user: e.currentTarget.value })} placeholder="usr_123" />
      </label>
      <label>
        <span>Account id</span>
        <input name="account" value={draft.account} onInput={(e) => set({ account: e.currentTarget.value })} placeholder="acme" />
      </label>
      <label>
        <span>Longer than (s)</span>
        <input name="minSec" type="number" min={0} step={1} inputMode="numeric" value={draft.minSec} onInput={(e) => set({ minSec: e.currentTarget.value })} />
      </label>
      <label>
        <span>Visited</span>
        <input name="visited" value={draft.visited} onInput={(e) => set({ visited: e.currentTarget.value })} placeholder="/orders/{id}/*" maxLength={2000} title="A path pattern: {name} for one segment, a trailing * for any deeper path" />
      </label>
      <label>
        <span>Clicked</span>
        <input name="clicked" value={draft.clicked} onInput={(e) => set({ clicked: e.currentTarget.value })} placeholder="Pay now" maxLength={256} title="Text in the label or selector of an element clicked" />
      </label>
      <label>
        <span>Error message</span>
        <input name="error" value={draft.error} onInput={(e) => set({ error: e.currentTarget.value })} placeholder="TypeError" maxLength={256} />
      </label>
      <label>
        <span>Console message</span>
        <input name="console" value={draft.console} onInput={(e) => set({ console: e.currentTarget.value })} placeholder="failed to load" maxLength={256} title="Text in a console error or warning (console capture)" />
      </label>
      <label>
        <span>Failed request</span>
        <input name="request" value={draft.request} onInput={(e) => set({ request: e.currentTarget.value })} placeholder="/api/cart 503" maxLength={256} title="Text in a failed request's method, URL and status (network capture)" />
      </label>
      <label>
        <span>Came from</span>
        <input name="referrer" value={draft.referrer} onInput={(e) => set({ referrer: e.currentTarget.value })} placeholder="google" maxLength={256} title="Text in the origin of the site the session came from" />
      </label>
      <label>
        <span>Device</span>
        <select name="device" value={draft.device} onChange={(e) => set({ device: e.currentTarget.value })}>
          <option value="">Any device</option>
          <option value="mobile">Mobile</option>
          <option value="tablet">Tablet</option>
          <option value="desktop">Desktop</option>
        </select>
      </label>
      <label>
        <span>Started</span>
        <select name="range" value={draft.range} onChange={(e) => set({ range: e.currentTarget.value })}>
          <option value="">Any time</option>
          <option value="24h">Last 24 hours</option>
          <option value="7d">Last 7 days</option>
          <option value="30d">Last 30 days</option>
        </select>
      </label>
      <fieldset class="checks">
        <legend class="sr-only">Friction</legend>
        <label class="check">
          <input type="checkbox" name="errors" checked={draft.errors} onChange={(e) => set({ errors: e.currentTarget.checked })} /> With errors
        </label>
        <label class="check">
          <input type="checkbox" name="rage" checked={draft.rage} onChange={(e) => set({ rage: e.currentTarget.checked })} /> With rage clicks
        </label>
        <label class="check">
          <input type="checkbox" name="consoleErrors" checked={draft.consoleErrors} onChange={(e) => set({ consoleErrors: e.currentTarget.checked })} /> With console errors
        </label>
        <label class="check">
          <input type="checkbox" name="failedRequests" checked={draft.failedRequests} onChange={(e) => set({ failedRequests: e.currentTarget.checked })} /> With failed requests
        </label>
      </fieldset>
      <div class="row align-end">
        <button type="submit">Filter</button>
        <button type="button" class="link" onClick={() => apply(filtersOf(new URLSearchParams()))}>
          Clear
        </button>
      </div>
    </form>
  )
}

/**
 * Arrived from the element leaderboard: the list below holds the sessions that
 * clicked this element (sessions.list with page and selector); above it, its
 * rage, dead and error clicks from the friction feed, each opening the replay
 * at that moment.
 */
function ElementClicks({ project, page, selector, label }: { project: Project; page: string; selector: string; label?: string }) {
  const items = useAsync(
    () => api.post<FrictionListAnswer>('/cli/friction.list', { projectId: project.id, limit: 500, ...(page ? { page } : {}) }).then((a) => a.items.filter((i) => i.selector === selector)),
    [project.id, page, selector],
  )
  const name = label ? `“${label}”` : selector
  return (
    <section class="card stack" aria-labelledby="element-title" data-testid="element-clicks">
      <h2 id="element-title">
        Sessions that clicked {name} <code class="small">{selector}</code>
      </h2>
      <ErrorNote error={items.error} />
      {items.loading && !items.data ? <Loading what="Looking for its clicks" /> : null}
      {items.data && items.data.length > 0 && (
        <ul class="plain">
          {items.data.map((item) => (
            <li key={item.id} class="row">
              <span class={`dot tick-${item.kind}`} aria-hidden="true" />
              <span>
                {FRICTION_LABELS[item.kind]} {item.kind === 'rage' && item.n ? `×${item.n} ` : ''}
                <span class="muted small">{formatAgo(item.ts)}</span>
              </span>
              <a href={href('p', project.id, 'replay', item.sessionKey, { t: item.ts })}>Watch that moment</a>
            </li>
          ))}
        </ul>
      )}
      <p class="muted small">
        {items.data && items.data.length === 0 ? `No rage, dead or error click on ${name} in the last 30 days. ` : ''}
        Below: the sessions that clicked it on <code>{page}</code>, newest first.{' '}
        <a href={href('p', project.id, 'sessions', { page })}>Every session on this page</a>
      </p>
    </section>
  )
}

function SessionLine({ project, session: s, search, live }: { project: Project; session: SessionSummary; search: ReturnType<typeof searchOfValues>; live: boolean }) {
  const who = identityOf(s)
  // Found by a search: the replay opens at the first matching moment and marks every match.
  const replay = s.match ? href('p', project.id, 'replay', s.sessionKey, { t: s.match.ts, ...searchParams(search, s.startedAt) }) : href('p', project.id, 'replay', s.sessionKey)
  const duration = s.durationMs ?? (s.lastActivityAt ? s.lastActivityAt - s.startedAt : undefined)
  return (
    <tr>
      <td>
        {s.purged ? <span title={formatDate(s.startedAt)}>{formatAgo(s.startedAt)}</span> : <a href={replay} title={`Replay the session of ${formatDate(s.startedAt)}`}>{formatAgo(s.startedAt)}</a>}
        <br />
        <small class="muted hide-narrow">{formatDate(s.startedAt)}</small>
        <small class="muted show-narrow">{formatDuration(duration)}</small>
        {live && <a class="live-link" href={href('p', project.id, 'live', s.sessionKey)} title="Watch it as it is recorded"><LiveMark /></a>}
      </td>
      <td>
        <span class={who.known ? 'who known' : 'who'}>{who.primary}</span>
        {who.secondary && (
          <>
            <br />
            <small class="muted">{who.secondary}</small>
          </>
        )}
      </td>
      <td class="hide-narrow">
        {formatDuration(duration)}
        {s.activeMs !== undefined && (
          <>
            <br />
            <small class="muted">{formatDuration(s.activeMs)} active</small>
          </>
        )}
      </td>
      <td class="hide-narrow">
        {s.pageCount ?? s.pages?.length ?? '—'}
        {s.entryUrl && (
          <>
            <br />
            <small class="muted clip" title={s.entryUrl}>
              {pathOf(s.entryUrl)}
            </small>
          </>
        )}
      </td>
      <td>
        <Signals s={s} />
        {s.match && (
          <small class="match" data-testid="match">
            First match {formatClockFrom(s.match.ts, s.startedAt)}: {KIND_WORDS[s.match.kind]} <span class="clip">{s.match.label}</span>
            {s.matches && s.matches.length > 1 ? ` (+${s.matches.length - 1} more)` : ''}
          </small>
        )}
        <MissingLine completeness={s.completeness} />
      </td>
      {/* On a phone the start time, a link to the replay, stands in for this column. */}
      <td class="actions hide-narrow">
        {s.purged ? (
          <span class="muted small" title="Retention removed the recording; its signals remain.">
            Purged
          </span>
        ) : (
          <a href={replay} class="button secondary small">
            Replay
          </a>
        )}
      </td>
    </tr>
  )
}

/** A moment as the replay's clock shows it: time since the session started. */
function formatClockFrom(ts: number, startedAt: number): string {
  return formatClock(Math.max(0, ts - startedAt))
}

function Signals({ s }: { s: SessionSummary }) {
  const items: [string, number | undefined, string][] = [
    ['click', s.clicks, ''],
    ['rage click', s.rage, 'bad'],
    ['dead click', s.dead, 'warn'],
    ['error click', s.errorClicks, 'bad'],
    ['JS error', s.errors, 'bad'],
    ['console error', s.consoleErrors, 'bad'],
    ['failed request', s.failedRequests, 'bad'],
  ]
  return (
    <span class="signals">
      {items
        .filter(([, n]) => n)
        .map(([label, n, tone]) => (
          <span key={label} class={`chip ${tone}`}>
            {plural(n!, label)}
          </span>
        ))}
    </span>
  )
}

