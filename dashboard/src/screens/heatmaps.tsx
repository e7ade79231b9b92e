/**
 * Heatmaps of a page (POST /cli/heatmap): click, rage and dead clicks, and
 * scroll depth, per device class, drawn over the page itself — rebuilt from
 * the DOM snapshot of a recorded session that viewed it (rrweb's Replayer,
 * loaded on demand with this screen only).
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { groupUrl } from '../../../src/grouping/group.js'
import { compileRules } from '../../../src/grouping/rules.js'
import { api } from '../api.js'
import { Empty, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatDate, plural } from '../format.js'
import type { ClickHeatmap, Device, HeatKind, Heatmap, PageRow, Project, ScrollHeatmap, SessionsListAnswer, SessionSummary } from '../model.js'
import type { RebuiltPage } from '../heatmap/rebuild.js'
import { replayOrigins } from '../player/confine.js'
import { href, navigate } from '../route.js'
import { pageLabel, PagePicker, usePages } from './page-picker.js'

const KINDS: { id: HeatKind; label: string }[] = [
  { id: 'click', label: 'Clicks' },
  { id: 'rage', label: 'Rage clicks' },
  { id: 'dead', label: 'Dead clicks' },
  { id: 'scroll', label: 'Scroll depth' },
]
const DEVICES: { id: Device; label: string }[] = [
  { id: 'desktop', label: 'Desktop' },
  { id: 'tablet', label: 'Tablet' },
  { id: 'mobile', label: 'Mobile' },
]
/** Device classes at the 768 px and 1024 px breakpoints, as the server classes views (src/store/insights.ts). */
function deviceOf(width: number | undefined): Device | undefined {
  if (!width) return undefined
  return width < 768 ? 'mobile' : width < 1024 ? 'tablet' : 'desktop'
}
/** Bins of the click heatmap when the answer does not say (src/store/insights.ts). */
const X_BINS = 144
const Y_BIN_PX = 10
/** Sessions tried for a snapshot of the page, newest first. */
const SNAPSHOT_CANDIDATES = 10
/**
 * Most bytes of a session's events fetched for its snapshot: room for a full
 * snapshot at the server's 16 MiB event limit and what precedes it. The
 * newest session is anyone's to plant, so its size must not be the browser's.
 */
const SNAPSHOT_MAX_BYTES = 24 * 1024 * 1024

interface Snapshot {
  events: any[]
  at: number
  viewport: { width: number; height: number }
  session: SessionSummary
}

/** The newest recorded session on `page` for the device class, and the moment its snapshot of that page is complete. */
async function findSnapshot(project: Project, page: PageRow, device: Device): Promise<Snapshot | undefined> {
  const { sessions } = await api.post<SessionsListAnswer>('/cli/sessions.list', { projectId: project.id, page: page.page, limit: SNAPSHOT_CANDIDATES })
  const live = sessions.filter((s) => !s.purged)
  const ordered = [...live.filter((s) => deviceOf(s.viewport?.w) === device), ...live.filter((s) => deviceOf(s.viewport?.w) !== device)]
  const rules = compileRules(project.pathRules ?? []).rules
  const samePage = (key: string) => key === page.key || key === page.page || key.slice(key.indexOf('/')) === page.page
  /** A page load (rrweb meta event) of this page: by the URLs the server keyed to it, else grouped here under the current rules. */
  const isPage = (session: SessionSummary, url: string) => {
    if (session.pages?.some((p) => p.url === url && samePage(p.page))) return true
    return samePage(groupUrl(url, rules).key)
  }
  for (const session of ordered) {
    let events: any[]
    try {
      events = await api.post<any[]>('/cli/sessions.events', { projectId: project.id, sessionKey: session.sessionKey, maxBytes: SNAPSHOT_MAX_BYTES })
    } catch {
      continue // purged since it was listed: try the next
    }
    events.sort((a, b) => a.timestamp - b.timestamp)
    for (let i = 0; i < events.length; i++) {
      const meta = events[i]
      if (meta.type !== 4 || !isPage(session, meta.data?.href ?? '')) continue
      const full = events.findIndex((e, j) => j > i && e.type === 2)
      if (full === -1) continue
      const nextMeta = events.findIndex((e, j) => j > full && e.type === 4)
      const until = nextMeta === -1 ? events[events.length - 1].timestamp : events[nextMeta].timestamp - 1
      // A second after the snapshot: late styles and images are in, and the visitor has rarely changed much yet.
      const at = Math.min(until, events[full].timestamp + 1000)
      return { events: nextMeta === -1 ? events : events.slice(0, nextMeta), at, viewport: { width: meta.data?.width || 1280, height: meta.data?.height || 800 }, session }
    }
  }
  return undefined
}

function useHeatmapQuery(query: URLSearchParams, pages: PageRow[]) {
  const page = query.get('page') || pages[0]?.page || ''
  const kind = (KINDS.some((k) => k.id === query.get('kind')) ? query.get('kind') : 'click') as HeatKind
  const device = (DEVICES.some((d) => d.id === query.get('device')) ? query.get('device') : 'desktop') as Device
  return { page, kind, device }
}

export function Heatmaps({ project, query }: { project: Project; query: URLSearchParams }) {
  useTitle(`Heatmaps · ${project.name}`)
  const pages = usePages(project.id)
  const { page, kind, device } = useHeatmapQuery(query, pages.data ?? [])
  const go = (patch: Partial<{ page: string; kind: HeatKind; device: Device }>) => navigate(href('p', project.id, 'heatmaps', { page, kind, device, ...patch }), true)
  const pageRow = (pages.data ?? []).find((p) => p.page === page) ?? (page ? ({ page, sessions: 0, views: 0 } as PageRow) : undefined)
  return (
    <section class="stack">
      <h2 class="sr-only">Heatmaps</h2>
      <div class="card filters heat-options" role="group" aria-label="Heatmap options">
        <PagePicker pages={pages.data ?? []} value={page} onChange={(p) => go({ page: p })} id="heatmap-page" projectId={project.id} />
        <Segmented label="Device" name="device" options={DEVICES} value={device} onChange={(d) => go({ device: d })} />
        <Segmented label="Map" name="kind" options={KINDS} value={kind} onChange={(k) => go({ kind: k })} />
      </div>
      <ErrorNote error={pages.error} />
      {pages.loading && !pages.data ? <Loading what="Loading pages" /> : null}
      {pages.data && !pageRow && (
        <Empty title="No pages yet">
          <p>Pages appear once the tracker has sent views. Open the site and click around.</p>
        </Empty>
      )}
      {pageRow && <HeatmapView project={project} page={pageRow} kind={kind} device={device} />}
    </section>
  )
}

function Segmented<T extends string>({ label, name, options, value, onChange }: { label: string; name: string; options: { id: T; label: string }[]; value: T; onChange: (v: T) => void }) {
  return (
    <fieldset class="segmented">
      <legend>{label}</legend>
      <div>
        {options.map((o) => (
          <label key={o.id} class={o.id === value ? 'on' : undefined}>
            <input type="radio" name={name} value={o.id} checked={o.id === value} onChange={() => onChange(o.id)} />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  )
}

function HeatmapView({ project, page, kind, device }: { project: Project; page: PageRow; kind: HeatKind; device: Device }) {
  const heat = useAsync(() => api.post<Heatmap>('/cli/heatmap', { projectId: project.id, page: page.page, kind, device }), [project.id, page.page, kind, device])
  const snapshot = useAsync(() => findSnapshot(project, page, device), [project.id, page.page, device])
  const outer = useRef<HTMLDivElement>(null)
  const stage = useRef<HTMLDivElement>(null)
  const canvas = useRef<HTMLCanvasElement>(null)
  const [rebuilt, setRebuilt] = useState<RebuiltPage>()
  const [error, setError] = useState<unknown>()
  const [scale, setScale] = useState(1)
  const chunk = useMemo(() => import('../heatmap/rebuild.js'), [])

  // Rebuild the page whenever the snapshot changes.
  useEffect(() => {
    const snap = snapshot.data
    if (!snap || !stage.current) return
    let page: RebuiltPage | undefined
    let cancelled = false
    setRebuilt(undefined)
    stage.current.textContent = ''
    chunk
      .then((m) => m.rebuildPage(stage.current!, snap.events, snap.at, snap.viewport, replayOrigins(project.domain, snap.events)))
      .then((p) => {
        page = p
        if (cancelled) p.destroy()
        else setRebuilt(p)
      })
      .catch(setError)
    return () => {
      cancelled = true
      page?.destroy()
    }
  }, [snapshot.data])

  // Fit the page's width into the screen; never enlarge a phone layout past its size.
  useEffect(() => {
    if (!rebuilt) return
    const fit = () => setScale(Math.min(1, (outer.current?.clientWidth ?? rebuilt.width) / rebuilt.width))
    fit()
    window.addEventListener('resize', fit)
    return () => window.removeEventListener('resize', fit)
  }, [rebuilt])

  // Paint the heat whenever the page or the data changes.
  useEffect(() => {
    const data = heat.data
    if (!rebuilt || !data || !canvas.current) return
    void chunk.then((m) => {
      if (!canvas.current) return
      if (data.kind === 'scroll') {
        const scroll = data as ScrollHeatmap
        if (scroll.views > 0) m.paintScroll(canvas.current, rebuilt.width, rebuilt.height, scroll.reached)
        else m.paintClicks(canvas.current, rebuilt.width, rebuilt.height, { cells: [], maxCount: 0, xBins: X_BINS, yBinPx: Y_BIN_PX })
      }
      else {
        const c = data as ClickHeatmap
        m.paintClicks(canvas.current, rebuilt.width, rebuilt.height, { cells: c.cells, maxCount: c.maxCount, xBins: c.xBins ?? X_BINS, yBinPx: c.yBinPx ?? Y_BIN_PX })
      }
      // The paint lands after the summary text changes: the canvas says which map it now holds.
      canvas.current.dataset.painted = `${data.kind}:${device}`
    })
  }, [rebuilt, heat.data])

  const data = heat.data
  const summary = !data
    ? ''
    : data.kind === 'scroll'
      ? (data as ScrollHeatmap).views > 0
        ? `${plural((data as ScrollHeatmap).views, 'view')} with a scroll depth on ${pageLabel(page)} (${device}). The colour says how many views reached each depth: red all, blue few.`
        : `No view of ${pageLabel(page)} (${device}) has reported its scroll depth yet: a view reports it when it ends.`
      : `${plural((data as ClickHeatmap).total, KINDS.find((k) => k.id === kind)!.label.toLowerCase().replace(/s$/, ''))} on ${pageLabel(page)} (${device}).`
  return (
    <div class="stack">
      <ErrorNote error={heat.error ?? snapshot.error ?? error} />
      <div class="row between wrap">
        <p role="status" data-testid="heat-summary">
          {/* While another page, device or map loads, the last answer is not described as this one. */}
          {heat.loading ? 'Loading the heatmap…' : summary}
        </p>
        <a href={href('p', project.id, 'elements', { page: page.page })}>Element leaderboard for this page</a>
      </div>
      {snapshot.loading && !snapshot.data && <Loading what="Rebuilding the page from a recording" />}
      {snapshot.data === undefined && !snapshot.loading && !snapshot.error && (
        <Empty title="No recording of this page to draw on">
          <p>Heatmaps are drawn over the page rebuilt from a recorded session. None of the recent sessions on this page still has its recording; the numbers above still count.</p>
        </Empty>
      )}
      {snapshot.data && (
        <p class="muted small">
          Page rebuilt from the session of {formatDate(snapshot.data.session.startedAt)} at {snapshot.data.viewport.width} px wide.{' '}
          <a href={href('p', project.id, 'replay', snapshot.data.session.sessionKey)}>Watch it</a>
        </p>
      )}
      <div class="heat-outer" ref={outer} style={rebuilt ? { height: `${Math.ceil(rebuilt.height * scale)}px` } : undefined}>
        <div class="heat-stage" style={rebuilt ? { width: `${rebuilt.width}px`, height: `${rebuilt.height}px`, transform: `scale(${scale})` } : undefined} data-testid="heat-stage">
          <div ref={stage} class="heat-page" />
          <canvas ref={canvas} class="heat-canvas" aria-hidden="true" data-testid="heat-canvas" />
          {rebuilt && data?.kind === 'scroll' && (data as ScrollHeatmap).views > 0 && <ScrollMarks reached={(data as ScrollHeatmap).reached} height={rebuilt.height} />}
        </div>
      </div>
    </div>
  )
}

/** Lines where 75, 50 and 25 percent of views stopped scrolling, labelled in text. */
function ScrollMarks({ reached, height }: { reached: number[]; height: number }) {
  const last = Math.max(1, reached.length - 1)
  const marks = [0.75, 0.5, 0.25]
    .map((share) => {
      const depth = reached.findIndex((r) => r < share)
      return depth <= 0 ? undefined : { share, y: (depth / last) * height }
    })
    .filter((m): m is { share: number; y: number } => m !== undefined)
    // Thresholds at the same depth (few views) share one line, labelled with the largest share.
    .filter((m, i, all) => all.findIndex((o) => o.y === m.y) === i)
  return (
    <>
      {marks.map((m) => (
        <div key={m.share} class="scroll-mark" style={{ top: `${m.y}px` }}>
          <span>{Math.round(m.share * 100)}% of views reached here</span>
        </div>
      ))}
    </>
  )
}
