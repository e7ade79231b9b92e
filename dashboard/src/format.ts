/** How numbers, times and sizes read on screen. */
import type { SessionSummary } from './model.js'

export function formatDate(ms: number | null | undefined): string {
  if (!ms) return '—'
  return new Date(ms).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
}

export function formatAgo(ms: number | null | undefined, now = Date.now()): string {
  if (!ms) return 'never'
  const s = Math.round((now - ms) / 1000)
  if (s < 45) return 'just now'
  if (s < 90 * 60) return `${Math.max(1, Math.round(s / 60))} min ago`
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h ago`
  if (s < 45 * 86400) return `${Math.round(s / 86400)} d ago`
  return formatDate(ms)
}

/** 75_000 → "1:15"; 3_725_000 → "1:02:05". */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}

/** 75_000 → "1 min 15 s". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—'
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`
  return `${Math.floor(m / 60)} h ${m % 60} min`
}

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—'
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

export function formatPercent(ratio: number | null | undefined, digits = 0): string {
  if (ratio === null || ratio === undefined || Number.isNaN(ratio)) return '—'
  return `${(ratio * 100).toFixed(digits)}%`
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`
}

/** A URL's path and query, as lists show a page; the text itself when it is no URL. */
export function pathOf(url: string): string {
  try {
    const u = new URL(url)
    return u.pathname + u.search
  } catch {
    return url
  }
}

/** Who a session's visitor is, as a line and an aside: the identity the site gave, else the visitor id. */
export function identityOf(s: SessionSummary): { primary: string; secondary?: string; known: boolean } {
  const id = s.identity
  if (id && (id.name || id.email || id.userId)) {
    return { primary: id.name || id.email || id.userId!, secondary: [id.name && id.email ? id.email : undefined, id.accountId ? `account ${id.accountId}` : undefined].filter(Boolean).join(' · ') || undefined, known: true }
  }
  return { primary: 'Anonymous', secondary: s.visitorId ? `visitor ${s.visitorId.slice(0, 10)}` : undefined, known: false }
}
