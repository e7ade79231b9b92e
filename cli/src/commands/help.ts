/** help and version. */
import type { Output } from '../output.js'
import { BIN, COMMANDS, ENVIRONMENT, EXIT_CODES, findCommand, GLOBAL_FLAGS, groupOf, usageLine, type CommandHelp, type FlagSpec } from '../help.js'
import { CliError } from '../errors.js'
import { VERSION } from '../version.js'

const flagLabel = (f: FlagSpec) => `--${f.name}${f.value ? ` ${f.value}` : ''}`

function rows(out: Output, pairs: [string, string][]): void {
  const width = Math.max(...pairs.map(([a]) => a.length))
  for (const [a, b] of pairs) out.line(`  ${out.bold(a.padEnd(width))}  ${b}`)
}

export function overview(out: Output): void {
  out.line(`${BIN} ${VERSION}: the session-recording service from the command line.`)
  out.line()
  out.line(`Usage: ${BIN} <command> [arguments] [flags]`)
  out.line()
  out.line('Commands:')
  rows(out, COMMANDS.map((c) => [`${c.name}${c.args ? ` ${c.args}` : ''}`, c.summary]))
  out.line()
  out.line('Flags of every command:')
  rows(out, GLOBAL_FLAGS.map((f) => [flagLabel(f), f.help]))
  out.line()
  out.line('Environment:')
  rows(out, ENVIRONMENT.map((e) => [e.name, e.meaning]))
  out.line()
  out.line('Exit codes:')
  rows(out, EXIT_CODES.map((e) => [String(e.code), e.meaning]))
  out.line()
  out.line(`Run \`${BIN} help <command>\` for a command's flags and examples.`)
}

export function commandHelp(out: Output, command: CommandHelp): void {
  out.line(`Usage: ${usageLine(command)}`)
  out.line()
  out.line(command.summary)
  for (const paragraph of command.details) {
    out.line()
    out.line(paragraph)
  }
  if (command.flags.length > 0) {
    out.line()
    out.line('Flags:')
    rows(out, command.flags.map((f) => [flagLabel(f), f.help]))
  }
  out.line()
  out.line(`Also: ${GLOBAL_FLAGS.map(flagLabel).join(', ')}.`)
  if (command.examples.length > 0) {
    out.line()
    out.line('Examples:')
    for (const example of command.examples) out.line(`  ${example}`)
  }
}

export function groupHelp(out: Output, group: string): void {
  out.line(`${BIN} ${group} commands:`)
  rows(out, groupOf(group).map((c) => [`${c.name}${c.args ? ` ${c.args}` : ''}`, c.summary]))
  out.line()
  out.line(`Run \`${BIN} help ${group} <command>\` for one of them.`)
}

/** `svc help [command words]`. */
export function help(out: Output, words: string[]): void {
  if (words.length === 0) return overview(out)
  const found = findCommand(words)
  if (found && found.used === words.length) return commandHelp(out, found.command)
  if (words.length === 1 && groupOf(words[0]).length > 0) return groupHelp(out, words[0])
  throw new CliError('usage', `No command \`${words.join(' ')}\`.`, { hint: `Run \`${BIN} help\` for the commands.`, exit: 2 })
}

export function version(out: Output, url: string): void {
  if (out.json) return out.data({ version: VERSION, url })
  out.line(`${BIN} ${VERSION}`)
}
