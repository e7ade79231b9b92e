/**
 * The audit log in LMDB: entries by [orgId, at, id], read newest first by
 * walking that range backwards, and an index by time that the retention
 * purge walks from the oldest entry of every organisation.
 */
import type { AuditRecord, AuditSlice } from '../records.js'
import { MAX_KEY_PART } from './keys.js'
import type { Tables } from './tables.js'

/** Entries one purge transaction deletes at most: a year of a busy log goes in several short writes, not one long one. */
export const AUDIT_PURGE_BATCH = 1_000

export function appendAuditInTxn(tables: Tables, entry: AuditRecord): void {
  tables.audit.put([entry.orgId, entry.at, entry.id], entry)
  tables.auditByTime.put([entry.at, entry.orgId, entry.id], true)
}

export function listAudit(tables: Tables, orgId: string, slice: AuditSlice): AuditRecord[] {
  const start = slice.before ? [orgId, slice.before.at, slice.before.id] : [orgId, MAX_KEY_PART]
  const out: AuditRecord[] = []
  // The range starts at `before` itself, which the page before ended on.
  for (const { value } of tables.audit.getRange({ start, end: [orgId], reverse: true, limit: slice.limit + 1 })) {
    if (slice.before && value.at === slice.before.at && value.id === slice.before.id) continue
    if (out.push(value) === slice.limit) break
  }
  return out
}

/** The keys of up to AUDIT_PURGE_BATCH entries older than `cutoff`, oldest first. */
export function expiredAuditKeys(tables: Tables, cutoff: number): [number, string, string][] {
  return Array.from(tables.auditByTime.getKeys({ start: [0], end: [cutoff], limit: AUDIT_PURGE_BATCH }), (key) => key as [number, string, string])
}

export function deleteAuditInTxn(tables: Tables, keys: [number, string, string][]): void {
  for (const [at, orgId, id] of keys) {
    tables.audit.remove([orgId, at, id])
    tables.auditByTime.remove([at, orgId, id])
  }
}
