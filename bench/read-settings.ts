/** The sizes and durations of `npm run bench:read` (--quick scales them down for a smoke run). */
export const QUICK = process.argv.includes('--quick')

export const SCALE = QUICK ? 0.1 : 1
export const SESSIONS = Math.round(10_000 * SCALE)
export const BATCHES_PER_SESSION = 4
export const CLICKS_PER_BATCH = 25 // 10,000 × 4 × 25 = 1,000,000 clicks
export const PAGES = 50
export const ELEMENTS_PER_PAGE = 30
export const MESSAGES = 40
export const DAYS = 30
export const DAY = 24 * 60 * 60 * 1000
export const ITEMS_PER_TXN = 64
export const QUERIES = QUICK ? 40 : 300
export const WARMUP = QUICK ? 5 : 30
export const INGEST_S = QUICK ? 4 : 10
export const INGEST_ROUNDS = QUICK ? 1 : 4
export const CONNECTIONS = 64
/** The fold thread's fold size in the clusters this bench starts: the service's default unless FOLD_BATCHES is set. */
export const FOLD_BATCHES = process.env.FOLD_BATCHES ?? '2000'

