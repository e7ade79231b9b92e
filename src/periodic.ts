/**
 * A job the control worker runs now and then every `intervalMs` (retention,
 * the disk budget, credential housekeeping): never two passes of one job at
 * once, a failure logged and tried again at the next interval, and a timer
 * that does not keep the process alive. Returns a function that stops it.
 */
import { log } from './log.js'

export function schedulePeriodic(name: string, intervalMs: number, pass: () => Promise<void>): () => void {
  let running = false
  const run = async () => {
    if (running) return
    running = true
    try {
      await pass()
    } catch (error) {
      log.error(`${name} failed; it runs again at the next interval`, { error: String(error) })
    } finally {
      running = false
    }
  }
  const timer = setInterval(run, intervalMs)
  timer.unref()
  void run()
  return () => clearInterval(timer)
}
