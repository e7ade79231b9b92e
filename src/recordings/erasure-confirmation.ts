/**
 * Confirmations of large erasures. An admin's erasure of more than
 * ERASURE_CONFIRM_SESSIONS sessions, or an admin's deletion of a project,
 * goes through only with the confirmation its dry run answered: whoever sends
 * it has seen what it removes. The owner needs none. A confirmation names one
 * request (its erasure id) and expires; it is an HMAC under the erasure-id
 * key, so the service keeps nothing to check it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { CONFIRMATION_TTL_MS } from './erasure-limits.js'

export { CONFIRMATION_TTL_MS, ERASURE_CONFIRM_SESSIONS } from './erasure-limits.js'

const mac = (key: Buffer, erasureId: string, expiresAt: number) => createHmac('sha256', key).update(`confirm\u0000${erasureId}\u0000${expiresAt}`).digest().subarray(0, 16)

/** The confirmation a dry run of `erasureId` answers. */
export function confirmationOf(key: Buffer, erasureId: string, now: number): string {
  const expiresAt = now + CONFIRMATION_TTL_MS
  return `${expiresAt.toString(36)}.${mac(key, erasureId, expiresAt).toString('base64url')}`
}

/** Whether `confirmation` is a dry run's for `erasureId`, not expired. */
export function confirms(key: Buffer, erasureId: string, confirmation: string | undefined, now: number): boolean {
  const match = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{22})$/.exec(confirmation ?? '')
  if (!match) return false
  const expiresAt = parseInt(match[1], 36)
  if (!(expiresAt > now) || expiresAt > now + CONFIRMATION_TTL_MS) return false
  return timingSafeEqual(Buffer.from(match[2], 'base64url'), mac(key, erasureId, expiresAt))
}
