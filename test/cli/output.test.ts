import { Writable } from 'node:stream'
import t from 'tap'
import { parseArgs } from '../../cli/src/args.js'
import { CliError } from '../../cli/src/errors.js'
import { createOutput, visibleLength } from '../../cli/src/output.js'

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
