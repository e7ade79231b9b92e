/**
 * Telling a storage failure (the environment cannot write now: disk full,
 * I/O error, a panicked environment) from an item that cannot be stored at
 * all (a key past LMDB's limit, a value the encoder refuses). The first is
 * answered 429 and retried by the client; the second is dropped for good.
 */

/** MDB_PANIC: the environment had a fatal error and stays unusable until every handle of this process is closed. */
const MDB_PANIC = -30795
/** MDB_BAD_VALSIZE: the key or value has a size LMDB refuses; the item's fault, not the disk's. */
const MDB_BAD_VALSIZE = -30781

/** The message lmdb-js gives an asynchronous transaction whose commit failed; the cause is on `commitError`. */
const COMMIT_FAILED = 'Commit failed'

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code
}

/**
 * LMDB and the system report a failed write with a numeric code (errno such
 * as EIO 5 or ENOSPC 28, or an MDB_* code); an item the encoder or the key
 * check refuses throws a plain JavaScript error without one.
 */
export function isStorageFailure(error: unknown): boolean {
  const code = codeOf(error)
  if (typeof code === 'number') return code !== MDB_BAD_VALSIZE
  return error instanceof Error && error.message.startsWith(COMMIT_FAILED)
}

export function isFatalStorageFailure(error: unknown): boolean {
  return codeOf(error) === MDB_PANIC || (error instanceof Error && /MDB_PANIC/.test(error.message))
}

/**
 * A failed commit in lmdb-js (3.5.6) rejects the transaction's promise with
 * "Commit failed" and keeps the cause in a second promise, `commitError`,
 * which nobody else awaits. Returns that cause (or the error itself).
 */
export async function causeOf(error: unknown): Promise<unknown> {
  const pending = (error as { commitError?: Promise<unknown> } | null)?.commitError
  if (!pending || typeof pending.then !== 'function') return error
  return pending.then(() => error, (cause: unknown) => cause)
}

let guarded = false

/**
 * Besides the promise the caller awaits, lmdb-js rejects two promises per
 * failed commit that no caller can reach (its `commitError` and an internal
 * write's promise). Node ends the process on an unhandled rejection, so a
 * full disk would kill every process that writes: these two are marked
 * handled here (the caller still gets, logs and answers its own failure);
 * every other unhandled rejection is rethrown as Node would.
 */
export function surviveFailedCommits(): void {
  if (guarded) return
  guarded = true
  process.on('unhandledRejection', (reason) => {
    if (reason instanceof Error && reason.message.startsWith(COMMIT_FAILED)) return void causeOf(reason)
    if (reason instanceof Error && typeof codeOf(reason) === 'number' && /[/\\]lmdb[/\\]/.test(reason.stack ?? '')) return
    throw reason
  })
}
