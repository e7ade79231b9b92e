/**
 * The CLI on a terminal (a pseudo-terminal from script(1)): the key prompt does
 * not echo, and output is coloured unless NO_COLOR.
 * The file the server serves at /cli.mjs, saved and run as a process (under
 * Node 18 when one is installed) against a real cluster. No mocks.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import t from 'tap'
import { CLI_NODE, cliEnv, cliSetup } from '../helpers/cli.js'
import { clusterFor } from '../helpers/cluster.js'

const cluster = await clusterFor(t, { workers: 1 })
t.comment(`CLI runs under ${CLI_NODE}`)

t.test('on a terminal: login asks for the key without echoing it, and output is coloured unless NO_COLOR', { skip: existsSync('/usr/bin/script') ? false : 'needs script(1) for a pseudo-terminal' }, async (t) => {
  const { seeded, home, cli } = await cliSetup(t, cluster)
  // script(1) gives the CLI a pseudo-terminal on stdin and stdout, as a person's shell does.
  const onTerminal = (args: string[], env: Record<string, string | undefined> = {}, answer?: string) =>
    new Promise<{ code: number; screen: string }>((resolve, reject) => {
      const command = ['/usr/bin/env', '-u', 'NODE_OPTIONS', CLI_NODE, cli, ...args].map((w) => `'${w}'`).join(' ')
      const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], { env: cliEnv(home, { TERM: 'xterm', ...env }), stdio: ['pipe', 'pipe', 'pipe'] })
      let screen = ''
      let answered = false
      child.stdout.on('data', (chunk: Buffer) => {
        screen += chunk.toString()
        // Type the key once the prompt is up (the CLI sets raw mode before showing it), as a person would.
        if (answer !== undefined && !answered && screen.includes('API key')) {
          answered = true
          child.stdin.write(`${answer}\r`)
        }
      })
      child.once('error', reject)
      child.once('close', (code) => resolve({ code: code ?? -1, screen }))
    })

  const login = await onTerminal(['login'], {}, seeded.apiKey)
  t.equal(login.code, 0, login.screen)
  t.notMatch(login.screen, seeded.apiKey, 'the key is not echoed')
  t.match(login.screen, /\x1b\[32mLogged in\x1b\[39m/, 'and success is green on a terminal')

  const table = await onTerminal(['projects', 'list'])
  t.match(table.screen, /\x1b\[1mID +NAME/, 'table headers are bold on a terminal')
  const plain = await onTerminal(['projects', 'list'], { NO_COLOR: '1' })
  t.notMatch(plain.screen, /\x1b\[/, 'NO_COLOR turns colour off')
  t.match(plain.screen, /ID +NAME/)
})
