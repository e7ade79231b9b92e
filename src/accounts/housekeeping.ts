/**
 * Credential housekeeping: dashboard sessions, invite links and setup tokens
 * past their expiry no longer let anyone in, but stayed in the store for
 * good; this deletes them at start-up and then every hour (invites a week
 * after their expiry, so invites.list still shows them as expired meanwhile),
 * and audit-log entries older than AUDIT_RETENTION_DAYS.
 * In the cluster mode each node purges its own copy (a local operation).
 */
import { log } from '../log.js'
import { schedulePeriodic } from '../periodic.js'
import type { Store } from '../store/store.js'

/** An hour: expired records cost a little space, never access, so there is no hurry. */
export const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000

const DAY_MS = 24 * 60 * 60 * 1000

/** Runs the purge now and then every `intervalMs`; returns a function that stops it. Audit entries older than `auditRetentionDays` go too. */
export function scheduleHousekeeping(store: Store, auditRetentionDays: number, intervalMs = HOUSEKEEPING_INTERVAL_MS, now: () => number = Date.now): () => void {
  return schedulePeriodic('credential housekeeping', intervalMs, async () => {
    const purged = await store.purgeExpiredCredentials(now())
    if (purged.sessions + purged.invites + purged.setupTokens > 0) log.info('expired credentials purged', { ...purged })
    const auditEntries = await store.purgeAuditBefore(now() - auditRetentionDays * DAY_MS)
    if (auditEntries > 0) log.info('audit entries past retention purged', { auditEntries, auditRetentionDays })
  })
}
