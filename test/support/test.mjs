/**
 * `npm test` after the build: the type checks (`npm run typecheck`) run beside
 * the tap run instead of before it, since the suite leaves a core idle for
 * much of its time; their output is printed once both are done, and either
 * failing fails the run. Arguments go to tap (`npm test -- test/front`).
 */
import { spawn } from 'node:child_process'

function run(command, args, capture) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' })
    let output = ''
    if (capture) for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => (output += chunk))
    child.once('error', (error) => resolve({ code: 1, output: String(error) }))
    child.once('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }))
  })
}

const [typecheck, tap] = await Promise.all([run('npm', ['run', 'typecheck', '--silent'], true), run('npx', ['tap', ...process.argv.slice(2)], false)])
if (typecheck.code !== 0) console.error(`\nnpm run typecheck failed:\n${typecheck.output}`)
else console.log('npm run typecheck: no errors')
process.exit(typecheck.code || tap.code)
