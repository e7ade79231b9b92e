/**
 * A child's side of an online compaction (compaction-round.ts): on the
 * primary's `pause` it runs `pause` (finish the writes in flight, hold the
 * next, close every environment) and answers `paused`; on `resume` it runs
 * `resume` (open them anew, go on). Rounds are handled one after another:
 * a resume that arrives while its pause is still closing waits for it.
 */
import { log } from '../log.js'
import type { ChildMessage, PrimaryMessage } from './messages.js'

export interface Pausable {
  pause(): Promise<void>
  resume(): Promise<void> | void
}

export function answerPauses(name: string, child: Pausable): void {
  let last: Promise<void> = Promise.resolve()
  process.on('message', (message: PrimaryMessage) => {
    if (message?.type !== 'pause' && message?.type !== 'resume') return
    const { type, round } = message
    last = last.then(async () => {
      const started = Date.now()
      try {
        if (type === 'pause') {
          await child.pause()
          process.send?.({ type: 'paused', round } satisfies ChildMessage)
        } else await child.resume()
      } catch (error) {
        // The primary waits for `paused` and gives up the round at its deadline; a failed resume leaves the store
        // closed, so the process ends and the primary starts it afresh.
        log.error(`${name} could not ${type} for a compaction`, { round, error: String(error) })
        if (type === 'resume') process.exit(1)
        return
      }
      log.info(type === 'pause' ? `${name} paused for a compaction` : `${name} resumed after a compaction`, { round, ms: Date.now() - started })
    })
  })
}
