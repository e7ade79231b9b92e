/**
 * Painting heat over a rebuilt page. Clicks: each bin stamps a soft grey
 * brush whose opacity grows with its count, then the alpha channel is mapped
 * through a blue→red palette (the usual way heatmaps are drawn, as in
 * simpleheat). Scroll: horizontal bands coloured by the share of views that
 * reached each depth.
 */

export interface ClickCells {
  /** [column, row, clicks] per cell, as the heatmap answer sends them. */
  cells: number[][]
  maxCount: number
  /** Columns across the viewport width and rows of document px (src/store/insights.ts: 144 and 10). */
  xBins: number
  yBinPx: number
}

/** Brush radius in page px: about a fingertip, and wide enough that 10 px bins blend smoothly. */
const RADIUS = 22
/** The heat canvas holds at most this many pixels; larger pages paint at a lower resolution, scaled up (heat is blurry anyway). */
const MAX_PIXELS = 4_000_000

function palette(): Uint8ClampedArray {
  const canvas = document.createElement('canvas')
  canvas.width = 256
  canvas.height = 1
  const ctx = canvas.getContext('2d')!
  const gradient = ctx.createLinearGradient(0, 0, 256, 0)
  gradient.addColorStop(0.0, 'rgb(0, 0, 255)')
  gradient.addColorStop(0.35, 'rgb(0, 255, 255)')
  gradient.addColorStop(0.55, 'rgb(0, 255, 0)')
  gradient.addColorStop(0.75, 'rgb(255, 255, 0)')
  gradient.addColorStop(1.0, 'rgb(255, 0, 0)')
  ctx.fillStyle = gradient
  ctx.fillRect(0, 0, 256, 1)
  return ctx.getImageData(0, 0, 256, 1).data
}

function sized(canvas: HTMLCanvasElement, width: number, height: number): number {
  const scale = Math.min(1, Math.sqrt(MAX_PIXELS / (width * height)))
  canvas.width = Math.max(1, Math.round(width * scale))
  canvas.height = Math.max(1, Math.round(height * scale))
  canvas.style.width = `${width}px`
  canvas.style.height = `${height}px`
  return scale
}

export function paintClicks(canvas: HTMLCanvasElement, width: number, height: number, heat: ClickCells): void {
  const scale = sized(canvas, width, height)
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!
  ctx.clearRect(0, 0, canvas.width, canvas.height)
  if (heat.cells.length === 0) return
  const r = Math.max(2, RADIUS * scale)
  const brush = document.createElement('canvas')
  brush.width = brush.height = Math.ceil(r * 2)
  const b = brush.getContext('2d')!
  const g = b.createRadialGradient(r, r, 0, r, r, r)
  g.addColorStop(0, 'rgba(0,0,0,1)')
  g.addColorStop(1, 'rgba(0,0,0,0)')
  b.fillStyle = g
  b.fillRect(0, 0, brush.width, brush.height)
  const max = Math.max(1, heat.maxCount)
  for (const [xBin, yBin, count] of heat.cells) {
    const x = ((xBin + 0.5) / heat.xBins) * width * scale
    const y = Math.min(height - 1, (yBin + 0.5) * heat.yBinPx) * scale
    // A single click stays visible next to a hot spot of thousands.
    ctx.globalAlpha = Math.min(1, 0.25 + 0.75 * (count / max))
    ctx.drawImage(brush, x - r, y - r)
  }
  ctx.globalAlpha = 1
  const image = ctx.getImageData(0, 0, canvas.width, canvas.height)
  const colours = palette()
  const px = image.data
  for (let i = 0; i < px.length; i += 4) {
    const a = px[i + 3]
    if (!a) continue
    const j = a * 4
    px[i] = colours[j]
    px[i + 1] = colours[j + 1]
    px[i + 2] = colours[j + 2]
    px[i + 3] = Math.min(210, 60 + a)
  }
  ctx.putImageData(image, 0, 0)
}

/**
 * `reached[d]`: share (0 to 1) of views whose deepest scroll was at least d
 * percent of the page. One vertical gradient, red where every view reached,
 * blue where few did: bands drawn one by one would leave seams.
 */
export function paintScroll(canvas: HTMLCanvasElement, width: number, height: number, reached: number[]): void {
  const scale = sized(canvas, width, height)
  const ctx = canvas.getContext('2d')!
  ctx.clearRect(0, 0, canvas.width, canvas.height)
  const colours = palette()
  const last = Math.max(1, reached.length - 1)
  const gradient = ctx.createLinearGradient(0, 0, 0, height * scale)
  reached.forEach((value, depth) => {
    const share = Math.max(0, Math.min(1, value ?? 0))
    const j = Math.round(share * 255) * 4
    gradient.addColorStop(depth / last, `rgba(${colours[j]}, ${colours[j + 1]}, ${colours[j + 2]}, 0.4)`)
  })
  ctx.fillStyle = gradient
  ctx.fillRect(0, 0, canvas.width, canvas.height)
}
