/**
 * Prints the raw, gzip and brotli sizes of the built tracker files, and fails
 * the build when tracker.js is over its 30 KB gzip budget or the stub over
 * 1 KB (issue 5, "Size and cost").
 */
import { existsSync, readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

export const BUDGETS: Record<string, { gzip?: number; raw?: number }> = {
  'tracker.js': { gzip: 30 * 1024 },
  'stub.js': { raw: 1024 },
  // Loaded only for projects with console or network capture on, after tracker.js.
  'capture.js': { gzip: 6 * 1024 },
}

export interface Sizes {
  file: string
  raw: number
  gzip: number
  brotli: number
}

export function measure(path: string): Sizes {
  const bytes = readFileSync(path)
  return {
    file: basename(path),
    raw: bytes.byteLength,
    gzip: gzipSync(bytes, { level: 9 }).byteLength,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).byteLength,
  }
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`

export function reportSizes(paths: string[]): Sizes[] {
  const sizes = paths.filter((p) => existsSync(p)).map(measure)
  for (const s of sizes) {
    console.log(`${s.file.padEnd(11)} raw ${kb(s.raw).padStart(8)}   gzip ${kb(s.gzip).padStart(8)}   brotli ${kb(s.brotli).padStart(8)}`)
    // An unminified build (for a profile by function name) is not what ships.
    const budget = process.env.SVC_TRACKER_UNMINIFIED === '1' ? undefined : BUDGETS[s.file]
    if (budget?.gzip && s.gzip > budget.gzip) throw new Error(`${s.file} is ${s.gzip} bytes gzipped, over its ${budget.gzip}-byte budget`)
    if (budget?.raw && s.raw > budget.raw) throw new Error(`${s.file} is ${s.raw} bytes, over its ${budget.raw}-byte budget`)
  }
  return sizes
}
