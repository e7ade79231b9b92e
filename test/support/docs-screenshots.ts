/**
 * `npm run docs:screenshots`: the docs' screenshots, taken again. Runs the
 * dashboard's tests (which take every screenshot into test/artifacts/dashboard/
 * as they go), then copies over each image docs/images/ holds from the run,
 * so the pictures in the docs are the dashboard as it is. An image of
 * docs/images/ that no test took is reported, and the script fails.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SHOTS = join(ROOT, 'test', 'artifacts', 'dashboard')
const IMAGES = join(ROOT, 'docs', 'images')

const started = Date.now()
console.error('Running the dashboard tests, which take the screenshots (a few minutes)…')
const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'tap'), ['--reporter=terse', 'test/dashboard/'], { cwd: ROOT, stdio: 'inherit' })
if (run.status !== 0) console.error(`The dashboard tests failed (exit ${run.status}); only screenshots taken in this run are copied.`)

let missing = 0
for (const name of readdirSync(IMAGES).filter((file) => file.endsWith('.png'))) {
  const shot = join(SHOTS, name)
  if (!existsSync(shot) || statSync(shot).mtimeMs < started) {
    console.error(`docs/images/${name}: no test took it in this run`)
    missing++
    continue
  }
  copyFileSync(shot, join(IMAGES, name))
  console.error(`docs/images/${name}: updated`)
}
process.exitCode = missing || run.status ? 1 : 0
