/**
 * Pixel comparison of two screenshots of the same size, for bench/fidelity.ts:
 * the share of pixels that differ, where the box of those pixels lies (to tell
 * a moved block from scattered glyph edges when reading the figures), and a
 * diff image: the original dimmed, differing pixels red.
 */
import { PNG } from 'pngjs'

/**
 * A pixel differs when one of its channels differs by more than this (of
 * 255): anti-aliasing and sub-pixel text placement differ by less between two
 * documents that render the same thing; a changed colour, a missing glyph or a
 * block out of place differ by more.
 */
export const CHANNEL_THRESHOLD = 32

export interface Difference {
  differing: number
  total: number
  share: number
  /** The smallest box holding every differing pixel, or null when none differ. */
  box: { x: number; y: number; width: number; height: number } | null
  diff: Buffer
}

export function difference(original: Buffer, replayed: Buffer): Difference {
  const a = PNG.sync.read(original)
  const b = PNG.sync.read(replayed)
  if (a.width !== b.width || a.height !== b.height) throw new Error(`screenshots differ in size: ${a.width}×${a.height} and ${b.width}×${b.height}`)
  const out = new PNG({ width: a.width, height: a.height })
  let differing = 0
  let left = a.width
  let top = a.height
  let right = -1
  let bottom = -1
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const i = (y * a.width + x) * 4
      const off = Math.abs(a.data[i] - b.data[i]) > CHANNEL_THRESHOLD || Math.abs(a.data[i + 1] - b.data[i + 1]) > CHANNEL_THRESHOLD || Math.abs(a.data[i + 2] - b.data[i + 2]) > CHANNEL_THRESHOLD
      if (off) {
        differing++
        left = Math.min(left, x)
        right = Math.max(right, x)
        top = Math.min(top, y)
        bottom = Math.max(bottom, y)
      }
      // Dimmed towards white, so that the red stands out on dark pages too.
      out.data[i] = off ? 255 : 160 + (a.data[i] >> 2)
      out.data[i + 1] = off ? 0 : 160 + (a.data[i + 1] >> 2)
      out.data[i + 2] = off ? 0 : 160 + (a.data[i + 2] >> 2)
      out.data[i + 3] = 255
    }
  }
  const total = a.width * a.height
  return {
    differing,
    total,
    share: differing / total,
    box: right < 0 ? null : { x: left, y: top, width: right - left + 1, height: bottom - top + 1 },
    diff: PNG.sync.write(out),
  }
}
