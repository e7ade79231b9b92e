/**
 * Polling for what a test can observe (a stored record, a log line, a page's
 * state) instead of sleeping; a module of its own, so that a file needing only
 * this does not load playwright-core with test/helpers/browser.ts.
 */

/** Polls `probe` until it answers; generous by default, because CI machines can be loaded. */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
