/**
 * The overview's charts, drawn with uPlot (a small canvas library made for
 * time series): loaded as a chunk of its own when the overview first draws,
 * with uPlot's stylesheet, so the first load of the dashboard does not carry
 * them.
 */
import uPlot from 'uplot'
import uplotCss from 'uplot/dist/uPlot.min.css'

let styled = false

export interface ChartSpec {
  /** Bucket starts, epoch ms. */
  t: number[]
  values: (number | null)[]
  label: string
  /** Tick and legend text with its unit: `12%`, `45 s`. */
  format: (value: number) => string
  color: string
  /** Whole numbers only on the value axis (counts). */
  integers: boolean
  bucket: 'hour' | 'day'
}

/** Draws `spec` into `target` at its current width; the caller destroys it. */
export function drawChart(target: HTMLElement, spec: ChartSpec, width: number, height: number): uPlot {
  if (!styled) {
    const style = document.createElement('style')
    style.textContent = uplotCss
    document.head.appendChild(style)
    styled = true
  }
  const axis = { stroke: '#5b6577', grid: { stroke: '#eef0f4', width: 1 }, ticks: { stroke: '#dde1e8', width: 1 }, font: '11px system-ui, sans-serif' }
  return new uPlot(
    {
      width,
      height,
      // Times are epoch ms, as the API answers them.
      ms: 1,
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { size: 6 } },
      scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
      series: [
        {},
        { label: spec.label, stroke: spec.color, width: 2, fill: `${spec.color}1a`, points: { show: spec.t.length <= 40 }, spanGaps: false, value: (_u, v) => (v === null ? '—' : spec.format(v)) },
      ],
      axes: [
        { ...axis, space: 70, values: (_u, ticks) => ticks.map((ms) => timeLabel(ms, spec.bucket)) },
        { ...axis, size: 56, space: 30, incrs: spec.integers ? [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000] : undefined, values: (_u, ticks) => ticks.map((v) => spec.format(v)) },
      ],
    },
    [spec.t, spec.values as number[]],
    target,
  )
}

/** A time axis label: the day at midnight (and for daily buckets), else the hour. */
function timeLabel(ms: number, bucket: 'hour' | 'day'): string {
  const date = new Date(ms)
  if (bucket === 'day' || (date.getHours() === 0 && date.getMinutes() === 0)) return date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
  return date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
}
