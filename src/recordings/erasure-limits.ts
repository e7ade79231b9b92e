/** The bounds of erasure confirmations (erasure-confirmation.ts), apart: the API's schemas, which the dashboard builds too, name them. */

/** Sessions an admin's erasure may remove without the confirmation of its dry run. */
export const ERASURE_CONFIRM_SESSIONS = 100
/** How long a dry run's confirmation is taken. */
export const CONFIRMATION_TTL_MS = 15 * 60 * 1000
