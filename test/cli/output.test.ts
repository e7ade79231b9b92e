import { Writable } from 'node:stream'
import t from 'tap'
import { parseArgs } from '../../cli/src/args.js'
import { CliError } from '../../cli/src/errors.js'
import { createOutput, escapeControls, visibleLength } from '../../cli/src/output.js'

function stream(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  let text = ''
  const s = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString()
      done()
    },
  }) as Writable & { isTTY: boolean; text: () => string }
  s.isTTY = isTTY
  s.text = () => text
  return s
}

const ESC = /\x1b\[/

t.test('colour only on a terminal, never with NO_COLOR, --no-color, --json or TERM=dumb', async (t) => {
  const cases: [string, boolean, Record<string, string>, { json: boolean; noColor: boolean }, boolean][] = [
    ['a terminal', true, {}, { json: false, noColor: false }, true],
    ['a pipe', false, {}, { json: false, noColor: false }, false],
    ['NO_COLOR=1', true, { NO_COLOR: '1' }, { json: false, noColor: false }, false],
    ['NO_COLOR empty (unset, per no-color.org)', true, { NO_COLOR: '' }, { json: false, noColor: false }, true],
    ['--no-color', true, {}, { json: false, noColor: true }, false],
    ['--json', true, {}, { json: true, noColor: false }, false],
    ['TERM=dumb', true, { TERM: 'dumb' }, { json: false, noColor: false }, false],
  ]
  for (const [name, tty, env, options, coloured] of cases) {
    const stdout = stream(tty)
    const stderr = stream(tty)
    const out = createOutput({ stdout, stderr }, env, options)
    out.table(['ID', 'NAME'], [[out.green('prj_1'), 'Shop']])
    if (!options.json) out.error(new CliError('not_found', 'No such project.', { hint: 'List them.', status: 404 }))
    t.equal(ESC.test(stdout.text() + stderr.text()), coloured, name)
  }
})

t.test('tables align on what is visible, colour codes or not', async (t) => {
  const stdout = stream(true)
  const out = createOutput({ stdout, stderr: stream(true) }, {}, { json: false, noColor: false })
  out.table(['ID', 'NAME', 'DOMAIN'], [[out.green('prj_1'), 'Shop', 'a.test'], ['prj_long_id', out.bold('B'), '-']])
  const lines = stdout.text().replace(/\x1b\[[0-9;]*m/g, '').trimEnd().split('\n')
  t.same(lines, ['ID           NAME  DOMAIN', 'prj_1        Shop  a.test', 'prj_long_id  B     -'])
  t.equal(visibleLength(out.green('abc')), 3)
})

t.test('errors show message, code, status and hint; with --json one JSON line on stderr', async (t) => {
  const human = stream(false)
  createOutput({ stdout: stream(false), stderr: human }, {}, { json: false, noColor: false }).error(new CliError('unauthorized', 'The API key is not valid.', { hint: 'Issue a new one.', status: 401 }))
  t.equal(human.text(), 'Error: The API key is not valid. (unauthorized 401)\nHint: Issue a new one.\n')
  const machine = stream(false)
  createOutput({ stdout: stream(false), stderr: machine }, {}, { json: true, noColor: false }).error(new CliError('invalid_request', 'Bad rules.', { status: 400, details: { invalid: ['docs'] } }))
  t.same(JSON.parse(machine.text()), { error: 'Bad rules.', code: 'invalid_request', status: 400, invalid: ['docs'] })
})

t.test('control characters in printed text are escaped everywhere; only the output\'s own colours reach the terminal', async (t) => {
  t.equal(escapeControls('a\x00\x07\x1b[2J\x7f\x9b\x85\tz\n'), 'a\\x00\\x07\\x1b[2J\\x7f\\u009b\\u0085\\x09z\\x0a', 'C0, DEL and C1, tab and line feed included')
  t.equal(escapeControls('two\nlines\tand\r', true), 'two\nlines\tand\\x0d', 'a text that may span lines keeps \\n and \\t, not \\r')
  t.equal(escapeControls('plain café ✓ \\x1b'), 'plain café ✓ \\x1b', 'printable text, accents and symbols untouched')

  const stdout = stream(true)
  const stderr = stream(true)
  const out = createOutput({ stdout, stderr }, {}, { json: false, noColor: false })
  const forged = '\x1b[32mfake\x1b[39m'
  out.table(['ID', 'NAME'], [[out.green('prj_1'), forged], ['prj_2', 'title\x1b]0;pwned\x07']])
  out.pairs([['Name', `x\x1b]52;c;ZWNobw==\x07`]])
  out.line(`${out.green('Saved')} ${forged}`)
  out.note('bell\x07')
  out.error(new CliError('bad\x1b[2J', 'Server said \x1b]8;;https://evil.test\x1b\\here', { hint: 'Hint \x9b2J', details: { invalid: ['\x1b[H'] } }))
  const text = stdout.text() + stderr.text()
  const own = /\x1b\[(1|2|22|31|32|33|39)m/g
  t.match(stdout.text(), /\x1b\[32mprj_1\x1b\[39m/, 'its own colour is painted')
  t.notMatch(text.replace(own, '').replace(/\n/g, ''), /[\x00-\x1f\x7f-\x9f]/, 'and no other control character is printed')
  t.equal(text.match(/\\x1b\[32mfake/g)?.length, 2, 'a colour code inside a string is shown, not obeyed')
  const lines = stdout.text().replace(own, '').split('\n')
  t.equal(lines[1].indexOf('\\x1b[32m'), lines[2].indexOf('title'), 'columns align on the escaped text')
})

t.test('the parser: flags anywhere, --flag=value, repeated flags, and usage errors with exit 2', async (t) => {
  t.match(parseArgs(['--url', 'http://x', 'projects', 'create', 'Shop', '--rule', '/a/*', '--rule=/b/*', '--json']), {
    command: { name: 'projects create' },
    args: ['Shop'],
    flags: { url: 'http://x', rule: ['/a/*', '/b/*'], json: true },
  })
  t.match(parseArgs(['rules', 'test', 'prj_1', '--', '--not-a-flag']), { args: ['prj_1', '--not-a-flag'] }, '-- ends the flags')
  t.match(parseArgs(['sessions']), { group: 'sessions' })
  t.match(parseArgs(['-h']), { flags: { help: true } })
  for (const argv of [['nope'], ['rules', 'nope'], ['rules', 'set', 'p'], ['version', 'x'], ['login', '--key'], ['whoami', '--json=1'], ['whoami', '-x'], ['sessions', 'count', 'p', '--timeout', '--json']]) {
    t.throws(() => parseArgs(argv), { code: 'usage', exit: 2 }, argv.join(' '))
  }
})
