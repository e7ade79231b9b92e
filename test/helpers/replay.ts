/**
 * Replaying recorded events in Chromium with rrweb's replayer and one of the
 * dashboard's player modules beside it: what the players mend is shown with
 * and without their step.
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import type { Page } from 'playwright-core'

const require = createRequire(import.meta.url)
const REPLAY_DIR = dirname(require.resolve('@rrweb/replay'))

/** One of the dashboard's player modules, as a script exposing its exports on `playersStep`. */
export async function playersStep(file: string): Promise<string> {
  const entry = fileURLToPath(new URL(`../../dashboard/src/player/${file}`, import.meta.url))
  return (await build({ entryPoints: [entry], bundle: true, format: 'iife', globalName: 'playersStep', write: false })).outputFiles[0].text
}

/**
 * Replays `events` to their end in `viewer` (a seek, as the dashboard's players make) with rrweb's replayer and
 * a players' module (`step`, from playersStep) loaded; `before` is what the players do with it first ('' for rrweb
 * alone), and `look(replayer, resolve)`, written for the page, answers what the test reads.
 */
export async function replayToEnd<T>(viewer: Page, step: string, events: any[], before: string, look = '(replayer, resolve) => resolve()'): Promise<T> {
  await viewer.setContent('<div id="root"></div>')
  await viewer.addScriptTag({ path: join(REPLAY_DIR, 'replay.umd.min.cjs') })
  await viewer.addScriptTag({ content: step })
  return viewer.evaluate(`new Promise((resolve) => {
    const events = ${JSON.stringify(events)}
    const replayer = new rrwebReplay.Replayer(events, { root: document.getElementById('root'), showWarning: false })
    ${before}
    replayer.pause(events[events.length - 1].timestamp - events[0].timestamp + 1)
    ;(${look})(replayer, resolve)
  })`) as Promise<T>
}
