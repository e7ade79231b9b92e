/**
 * What every command takes and says about itself: the one description of the
 * CLI's surface. The parser reads the flags from here, `svc help` prints it,
 * and the website's CLI page (/docs/cli) is generated from it, so the three
 * cannot disagree. Pure data: the server imports it too.
 */
import { ADMIN_COMMANDS } from './help-admin.js'
import { SETUP_COMMANDS } from './help-setup.js'
import type { CommandHelp, FlagSpec } from './help-types.js'

export type { CommandHelp, FlagSpec, FlagType } from './help-types.js'

export const BIN = 'svc'

/** Flags every command takes. */
export const GLOBAL_FLAGS: FlagSpec[] = [
  { name: 'url', type: 'string', value: '<url>', help: 'Server address (else SVC_URL, else the address stored by login, else the server this file was downloaded from).' },
  { name: 'json', type: 'boolean', help: 'Print JSON for machines instead of tables; errors go to stderr as JSON.' },
  { name: 'no-color', type: 'boolean', help: 'No colours (also NO_COLOR=1; colours are only ever used on a terminal).' },
  { name: 'help', type: 'boolean', help: 'Show help for the command.' },
]

/** In the order `svc help` lists them. */
export const COMMANDS: CommandHelp[] = [...ADMIN_COMMANDS, ...SETUP_COMMANDS]

export const EXIT_CODES = [
  { code: 0, meaning: 'Success.' },
  { code: 1, meaning: 'Failure: the server refused (the error code and hint are printed), it could not be reached, or a check failed (an update that did not verify, a watch that timed out).' },
  { code: 2, meaning: 'Usage: unknown command or flag, missing or extra arguments, a path rule that does not compile.' },
]

export const ENVIRONMENT = [
  { name: 'SVC_API_KEY', meaning: 'API key to use instead of the stored one.' },
  { name: 'SVC_URL', meaning: 'Server address, unless --url is given.' },
  { name: 'NO_COLOR', meaning: 'Any non-empty value turns colours off.' },
  { name: 'XDG_CONFIG_HOME', meaning: 'Where the config directory is (default ~/.config).' },
]

export function findCommand(words: readonly string[]): { command: CommandHelp; used: number } | undefined {
  if (words.length >= 2) {
    const two = COMMANDS.find((c) => c.name === `${words[0]} ${words[1]}`)
    if (two) return { command: two, used: 2 }
  }
  const one = COMMANDS.find((c) => c.name === words[0])
  return one ? { command: one, used: 1 } : undefined
}

/** The command groups (`projects`, `rules`, `sessions`) and what they hold. */
export function groupOf(word: string): CommandHelp[] {
  return COMMANDS.filter((c) => c.name.startsWith(`${word} `))
}

export function usageLine(command: CommandHelp): string {
  const flags = command.flags.map((f) => (f.type === 'boolean' ? `[--${f.name}]` : `[--${f.name} ${f.value}]${f.type === 'strings' ? '...' : ''}`))
  return [BIN, command.name, command.args, ...flags].filter(Boolean).join(' ')
}

/** The CLI reference as Markdown (the website's CLI page embeds it). */
export function commandsMarkdown(): string {
  const parts: string[] = []
  for (const command of COMMANDS) {
    parts.push(`### ${BIN} ${command.name}`, '', `\`${usageLine(command)}\``, '', command.summary, '')
    for (const paragraph of command.details) parts.push(paragraph, '')
    if (command.flags.length > 0) {
      parts.push('| Flag | Meaning |', '| --- | --- |')
      for (const flag of command.flags) parts.push(`| \`--${flag.name}${flag.value ? ` ${flag.value}` : ''}\` | ${flag.help.replace(/\|/g, '\\|')} |`)
      parts.push('')
    }
    if (command.examples.length > 0) parts.push('```sh', ...command.examples, '```', '')
  }
  parts.push('### Flags of every command', '', '| Flag | Meaning |', '| --- | --- |')
  for (const flag of GLOBAL_FLAGS) parts.push(`| \`--${flag.name}${flag.value ? ` ${flag.value}` : ''}\` | ${flag.help} |`)
  parts.push('', '### Exit codes', '', '| Code | Meaning |', '| --- | --- |')
  for (const exit of EXIT_CODES) parts.push(`| ${exit.code} | ${exit.meaning} |`)
  parts.push('', '### Environment', '', '| Variable | Meaning |', '| --- | --- |')
  for (const env of ENVIRONMENT) parts.push(`| \`${env.name}\` | ${env.meaning} |`)
  return parts.join('\n') + '\n'
}
