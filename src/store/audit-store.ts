/**
 * The part of the store that keeps each organisation's audit log (issue 34):
 * appended to by the control worker as members act, read back by the owner,
 * never changed, and deleted only by age (AUDIT_RETENTION_DAYS).
 */
import type { AuditRecord, AuditSlice } from './records.js'

export interface AuditStore {
  /** Appends one entry; appending an entry with the same id again changes nothing (a log entry applied twice). */
  appendAudit(entry: AuditRecord): Promise<void>
  /** The organisation's entries, newest first. */
  listAudit(orgId: string, slice: AuditSlice): AuditRecord[]
  /** Deletes every organisation's entries older than `cutoff`; resolves to how many. */
  purgeAuditBefore(cutoff: number): Promise<number>
}
