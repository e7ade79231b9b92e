/**
 * A project's first screen (POST /cli/overview.get, issue 35): each figure
 * over the period with its change against the period before and a chart of
 * it by hour or day, filtered by period, device and page; then the pages with
 * the most sessions with each kind of friction, each linking to its heatmap
 * and its sessions.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { OverviewAnswer } from '../../../src/schemas/types.js'
import { api } from '../api.js'
import { Empty, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import type { Project } from '../model.js'
import type { ChartSpec } from '../overview/chart.js'
import { href, navigate } from '../route.js'
import { PagePicker, usePages } from './page-picker.js'

const HOUR_MS = 3_600_000
const PERIODS = [
  { id: '24h', label: 'Last 24 hours', ms: 24 * HOUR_MS },
  { id: '7d', label: 'Last 7 days', ms: 7 * 24 * HOUR_MS },
  { id: '30d', label: 'Last 30 days', ms: 30 * 24 * HOUR_MS },
  { id: '90d', label: 'Last 90 days', ms: 90 * 24 * HOUR_MS },
] as const
const DEVICES = [
  { id: '', label: 'Every device' },
  { id: 'mobile', label: 'Phones (under 768 px)' },
  { id: 'tablet', label: 'Tablets (768–1023 px)' },
  { id: 'desktop', label: 'Desktops (1024 px and over)' },
] as const

type FrictionKind = 'rage' | 'dead' | 'errorClick' | 'quickBack' | 'jsError'
type MetricId = 'sessions' | 'visitors' | 'pagesPerSession' | 'activeMs' | 'scrollPct' | FrictionKind
type Kind = 'count' | 'ratio' | 'ms' | 'pct' | 'share'

interface MetricSpec {
  id: MetricId
  label: string
  kind: Kind
  /** Which way is better: friction going up is bad news. */
  better: 'up' | 'down'
  color: string
}

const METRICS: MetricSpec[] = [
  { id: 'sessions', label: 'Sessions', kind: 'count', better: 'up', color: '#2f54eb' },
  { id: 'visitors', label: 'Visitors', kind: 'count', better: 'up', color: '#2f54eb' },
  { id: 'pagesPerSession', label: 'Pages per session', kind: 'ratio', better: 'up', color: '#2f54eb' },
  { id: 'activeMs', label: 'Active time per session', kind: 'ms', better: 'up', color: '#2f54eb' },
  { id: 'scrollPct', label: 'Scroll depth', kind: 'pct', better: 'up', color: '#2f54eb' },
  { id: 'rage', label: 'Rage clicks', kind: 'share', better: 'down', color: '#b42318' },
  { id: 'dead', label: 'Dead clicks', kind: 'share', better: 'down', color: '#b54708' },
  { id: 'errorClick', label: 'Error clicks', kind: 'share', better: 'down', color: '#c11574' },
  { id: 'quickBack', label: 'Quick backs', kind: 'share', better: 'down', color: '#6941c6' },
  { id: 'jsError', label: 'JavaScript errors', kind: 'share', better: 'down', color: '#b42318' },
]

const FRICTION: { id: FrictionKind; label: string; heat: 'click' | 'rage' | 'dead' | 'scroll'; sessions?: 'rage' | 'errors' }[] = [
  { id: 'rage', label: 'Rage clicks', heat: 'rage', sessions: 'rage' },
  { id: 'dead', label: 'Dead clicks', heat: 'dead' },
  { id: 'errorClick', label: 'Error clicks', heat: 'click' },
  { id: 'quickBack', label: 'Quick backs', heat: 'scroll' },
  { id: 'jsError', label: 'JavaScript errors', heat: 'click', sessions: 'errors' },
]

/** A figure with its unit, as the cards and the axes show it. */
function format(value: number | null | undefined, kind: Kind, axis = false): string {
  if (value === null || value === undefined) return '—'
  switch (kind) {
    case 'count':
      return Math.round(value).toLocaleString()
    case 'ratio':
      return value.toFixed(axis ? 1 : 2)
    case 'ms':
      return value < 120_000 ? `${Math.round(value / 1000)} s` : `${(value / 60_000).toFixed(1)} min`
    case 'pct':
      return `${value.toFixed(axis ? 0 : 1)}%`
    case 'share':
      return `${(value * 100).toFixed(axis ? 0 : 1)}%`
  }
}

/** A change too small to show at the precision it is written in (0.5% or 0.05 points) reads as none, not as a red or green 0. */
function negligible(change: number, kind: Kind): boolean {
  return Math.abs(change) < (kind === 'share' ? 0.0005 : 0.005)
}

/** Counts and averages change by a percentage of themselves, shares by points. */
function changeText(change: number | null, kind: Kind): string {
  if (change === null) return 'no earlier data'
  if (negligible(change, kind)) return 'no change'
  const arrow = change > 0 ? '▲' : '▼'
  return kind === 'share' ? `${arrow} ${Math.abs(change * 100).toFixed(1)} pts` : `${arrow} ${Math.abs(change * 100).toFixed(0)}%`
}

function dayText(ms: number): string {
  return new Date(ms).toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
}

export function Overview({ project, query }: { project: Project; query: URLSearchParams }) {
  useTitle(`Overview · ${project.name}`)
  const period = PERIODS.find((p) => p.id === query.get('period')) ?? PERIODS[1]
  const device = DEVICES.find((d) => d.id === query.get('device'))?.id ?? ''
  const page = query.get('page') ?? ''
  const pages = usePages(project.id)
  const go = (patch: Partial<{ period: string; device: string; page: string }>) =>
    navigate(href('p', project.id, 'overview', { period: period.id, device, page, ...patch }), true)
  const answer = useAsync(() => {
    const until = Date.now()
    return api.post<OverviewAnswer>('/cli/overview.get', { projectId: project.id, since: until - period.ms, until, ...(device ? { device } : {}), ...(page ? { page } : {}) })
  }, [project.id, period.id, device, page])
  const data = answer.data
  return (
    <section class="stack" aria-busy={answer.loading}>
      <h2 class="sr-only">Overview</h2>
      <div class="card filters">
        <label>
          <span>Period</span>
          <select id="overview-period" value={period.id} onChange={(e) => go({ period: e.currentTarget.value })}>
            {PERIODS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Device</span>
          <select id="overview-device" value={device} onChange={(e) => go({ device: e.currentTarget.value })}>
            {DEVICES.map((d) => (
              <option key={d.id} value={d.id}>
                {d.label}
              </option>
            ))}
          </select>
        </label>
        <PagePicker pages={pages.data ?? []} value={page} allowAny="Every page" onChange={(p) => go({ page: p })} id="overview-page" projectId={project.id} />
      </div>
      <ErrorNote error={answer.error} />
      {!data && answer.loading && <Loading what="Loading the overview" />}
      {data && (
        <>
          <p class="muted small" data-testid="overview-period">
            {dayText(data.since)} – {dayText(data.until - 1)}, by {data.bucket}, against {dayText(data.previous.since)} – {dayText(data.previous.until - 1)}
            {data.until > Date.now() ? ` · the last ${data.bucket} is still going` : ''}
            {answer.loading ? ' · updating…' : ''}
          </p>
          {data.metrics.sessions.value === 0 && (
            <Empty title="No sessions in this period">
              <p>Nothing was recorded{page ? ' on this page' : ''}{device ? ' on this device' : ''} in the period. Try a longer period, or every device and page.</p>
            </Empty>
          )}
          <div class="overview-grid">
            {METRICS.map((m) => (
              <MetricCard key={m.id} spec={m} answer={data} />
            ))}
          </div>
          <TopPages project={project} answer={data} />
        </>
      )}
    </section>
  )
}

function MetricCard({ spec, answer }: { spec: MetricSpec; answer: OverviewAnswer }) {
  const metric = answer.metrics[spec.id]
  const change = metric.change
  const tone = change === null || negligible(change, spec.kind) ? 'same' : (change > 0) === (spec.better === 'up') ? 'better' : 'worse'
  const values = answer.series[spec.id] as (number | null)[]
  return (
    <article class="card metric" data-testid={`metric-${spec.id}`}>
      <h3>{spec.label}</h3>
      <div class="metric-value">
        <strong data-testid="value">{format(metric.value, spec.kind)}</strong>
        <span class={`change ${tone}`} title={`Before: ${format(metric.previous, spec.kind)}`}>
          {changeText(change, spec.kind)}
        </span>
      </div>
      {spec.kind === 'share' && <span class="muted small">of sessions</span>}
      <Chart spec={{ t: answer.series.t, values, label: spec.label, format: (v) => format(v, spec.kind, true), color: spec.color, integers: spec.kind === 'count', bucket: answer.bucket }} />
    </article>
  )
}

const CHART_HEIGHT = 150

/** A uPlot chart of one series, loaded with its chunk; empty when the series has no value at all. */
function Chart({ spec }: { spec: ChartSpec }) {
  const target = useRef<HTMLDivElement>(null)
  const [state, setState] = useState<'loading' | 'drawn' | 'failed'>('loading')
  const empty = spec.values.every((v) => v === null || v === 0)
  useEffect(() => {
    const el = target.current
    if (!el || empty) return
    let plot: { destroy(): void; setSize(size: { width: number; height: number }): void } | undefined
    let gone = false
    const resize = new ResizeObserver(() => plot?.setSize({ width: el.clientWidth, height: CHART_HEIGHT }))
    import('../overview/chart.js').then(
      ({ drawChart }) => {
        if (gone) return
        plot = drawChart(el, spec, el.clientWidth, CHART_HEIGHT)
        resize.observe(el)
        setState('drawn')
      },
      () => setState('failed'),
    )
    return () => {
      gone = true
      resize.disconnect()
      plot?.destroy()
    }
  }, [JSON.stringify(spec.values), spec.t[0], spec.t.length, spec.bucket])
  if (empty) return <div class="chart chart-empty muted small">No data in this period</div>
  return (
    <div class="chart" role="img" aria-label={`${spec.label} by ${spec.bucket}`}>
      {state === 'loading' && <div class="chart-empty muted small">Loading the chart…</div>}
      {state === 'failed' && <div class="chart-empty muted small">The chart could not load.</div>}
      <div ref={target} />
    </div>
  )
}

function TopPages({ project, answer }: { project: Project; answer: OverviewAnswer }) {
  return (
    <section class="stack" data-testid="top-pages">
      <h2>Pages with the most friction</h2>
      <div class="overview-grid wide">
        {FRICTION.map((kind) => {
          const rows = answer.topPages[kind.id]
          return (
            <article class="card" key={kind.id} data-testid={`top-${kind.id}`}>
              <h3>{kind.label}</h3>
              {rows.length === 0 ? (
                <p class="muted small">None in this period.</p>
              ) : (
                <ol class="top-pages">
                  {rows.map((row) => (
                    <li key={row.page}>
                      <div class="grow">
                        <span class="break">{row.path}</span>
                        <small class="muted">
                          {' '}
                          {row.withFriction.toLocaleString()} of {row.sessions.toLocaleString()} sessions ({format(row.share, 'share')})
                        </small>
                      </div>
                      <span class="row">
                        <a href={href('p', project.id, 'heatmaps', { page: row.path, kind: kind.heat })} aria-label={`Heatmap of ${row.path}`}>
                          Heatmap
                        </a>
                        <a href={href('p', project.id, 'sessions', { page: row.path, ...(kind.sessions ? { [kind.sessions]: 1 } : {}) })} aria-label={`Sessions on ${row.path}`}>
                          Sessions
                        </a>
                      </span>
                    </li>
                  ))}
                </ol>
              )}
            </article>
          )
        })}
      </div>
    </section>
  )
}
