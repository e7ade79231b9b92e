/** Number formats and Markdown tables shared by the renderers of bench/RESULTS.md. */
import type { Figures } from './load.js'
import type { StorageFigures } from './results.js'

export const MiB = 1024 * 1024
export const int = (n: number) => Math.round(n).toLocaleString('en-US')
export const pct = (ratio: number) => `${(ratio * 100).toFixed(0)}%`
export const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1))
export const mbps = (bytesPerSec: number) => (bytesPerSec / MiB).toFixed(1)
export const mib = (bytes: number) => (bytes / MiB).toFixed(1)
export const met = (ok: boolean) => (ok ? '**met**' : '**not met**')
export const codes = (f: Figures) =>
  Object.entries(f.statusCodes)
    .map(([code, n]) => `${code}: ${int(n)}`)
    .join(', ') || 'none'

export const settings = (s: { writerThreads: number; writeBatchItems: number; writerTasks: number }) =>
  `WRITER_THREADS=${s.writerThreads}, WRITE_BATCH_ITEMS=${s.writeBatchItems}, WRITER_TASKS=${s.writerTasks}`


export function table(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n')
}

/** A headline row: req/s, latency, body MB/s, server CPU %, and how it compares. */
export const row = (name: string, f: Figures, vs: string) => [name, int(f.answersPerSec), ms(f.p50), ms(f.p99), mbps(f.bodyBytesPerSec), int(f.serverCpuPct), vs]

export const storageRow = (name: string, s: StorageFigures) => [name, int(s.putsPerSec), ms(s.p50), ms(s.p99), mbps(s.bytesPerSec), int(s.cpuPct), '(ceiling)']
