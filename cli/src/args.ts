/**
 * The command line: which command, its positional arguments and its flags,
 * checked against the command's entry in help.ts. Hand-written rather than
 * util.parseArgs, which Node 18.0 to 18.2 lack.
 */
import { CliError } from './errors.js'
import { COMMANDS, findCommand, GLOBAL_FLAGS, groupOf, type CommandHelp, type FlagSpec } from './help.js'

export type FlagValues = Record<string, string | boolean | string[] | undefined>

export interface Invocation {
  /** Undefined for `svc` alone, `svc --help`, or a bare group name with --help. */
  command?: CommandHelp
  /** `svc projects --help`: the group asked about. */
  group?: string
  args: string[]
  flags: FlagValues
}

const usage = (message: string, hint = 'Run `svc help` for the commands and their flags.') => new CliError('usage', message, { hint, exit: 2 })

/** The command words come first; only global flags (and their values) may stand before them. */
function commandWords(argv: readonly string[]): { words: string[]; rest: string[] } {
  const words: string[] = []
  const before: string[] = []
  let i = 0
  while (i < argv.length && words.length < 2) {
    const token = argv[i]
    if (token === '--') break
    if (token.startsWith('-')) {
      const spec = GLOBAL_FLAGS.find((f) => `--${f.name}` === token)
      before.push(token)
      if (spec && spec.type !== 'boolean' && i + 1 < argv.length) before.push(argv[++i])
      i++
      continue
    }
    words.push(token)
    i++
    if (words.length === 1 && !COMMANDS.some((c) => c.name.startsWith(`${token} `))) break
  }
  return { words, rest: [...before, ...argv.slice(i)] }
}

export function parseArgs(argv: readonly string[]): Invocation {
  const { words, rest } = commandWords(argv)
  const found = words.length > 0 ? findCommand(words) : undefined
  // Words beyond the command name are its first positional arguments.
  const extra = found ? words.slice(found.used) : []
  const specs: FlagSpec[] = [...GLOBAL_FLAGS, ...(found?.command.flags ?? [])]
  const flags: FlagValues = {}
  const args = [...extra]
  let onlyArgs = false
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]
    if (onlyArgs || token === '-' || !token.startsWith('-')) {
      args.push(token)
      continue
    }
    if (token === '--') {
      onlyArgs = true
      continue
    }
    if (token === '-h') {
      flags.help = true
      continue
    }
    if (!token.startsWith('--')) throw usage(`Unknown flag ${token}.`)
    const eq = token.indexOf('=')
    const name = token.slice(2, eq === -1 ? undefined : eq)
    const spec = specs.find((f) => f.name === name)
    if (!spec) throw usage(`Unknown flag --${name}${found ? ` for \`svc ${found.command.name}\`` : ''}.`, found ? `Run \`svc help ${found.command.name}\`.` : undefined)
    if (spec.type === 'boolean') {
      if (eq !== -1) throw usage(`--${name} takes no value.`)
      flags[name] = true
      continue
    }
    let value: string
    if (eq !== -1) value = token.slice(eq + 1)
    // `--timeout --json` is a forgotten value, not a timeout of "--json" (`--flag=--x` still passes one).
    else if (i + 1 < rest.length && !rest[i + 1].startsWith('--')) value = rest[++i]
    else throw usage(`--${name} needs a value${spec.value ? ` ${spec.value}` : ''}.`)
    if (spec.type === 'strings') flags[name] = [...((flags[name] as string[] | undefined) ?? []), value]
    else flags[name] = value
  }

  if (words.length === 0) return { args, flags }
  if (!found) {
    if (groupOf(words[0]).length > 0) {
      if (flags.help || words.length === 1) return { group: words[0], args, flags }
      throw usage(`Unknown command \`svc ${words.join(' ')}\`.`, `\`svc ${words[0]}\` has: ${groupOf(words[0]).map((c) => c.name.split(' ')[1]).join(', ')}.`)
    }
    throw usage(`Unknown command \`${words[0]}\`.`)
  }
  const command = found.command
  if (!flags.help) {
    if (args.length < command.minArgs) throw usage(`\`svc ${command.name}\` needs ${command.args}.`, `Usage: svc ${command.name} ${command.args}`)
    if (args.length > command.maxArgs) throw usage(`\`svc ${command.name}\` takes ${command.maxArgs === 0 ? 'no arguments' : command.args}; got ${args.length}.`, `Usage: svc ${command.name} ${command.args}`.trim())
  }
  return { command, args, flags }
}

/** `90s`, `5m`, `1h`, `500ms`, or a bare number of seconds → milliseconds. */
export function parseDuration(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim())
  if (!match) throw usage(`--${flag} is a duration like 30s, 5m or 1h; got ${JSON.stringify(value)}.`)
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h']
  return Number(match[1]) * unit
}

export function parsePositiveInt(flag: string, value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw usage(`--${flag} is a whole number above zero; got ${JSON.stringify(value)}.`)
  return n
}
