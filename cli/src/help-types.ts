/** The shape of the CLI's description of itself (help.ts): what a command takes and says. */

export type FlagType = 'boolean' | 'string' | 'strings'

export interface FlagSpec {
  name: string
  type: FlagType
  /** Placeholder shown in help: `--domain <domain>`. */
  value?: string
  help: string
}

export interface CommandHelp {
  /** `projects create`: one or two words. */
  name: string
  /** Positional arguments as shown in usage: `<projectId> <pattern...>`. */
  args: string
  /** Positional arguments required (usage error below this) and allowed (Infinity for `...`). */
  minArgs: number
  maxArgs: number
  summary: string
  /** Paragraphs shown by `svc help <command>`. */
  details: string[]
  flags: FlagSpec[]
  examples: string[]
  /** Needs an API key (login or SVC_API_KEY). */
  needsKey: boolean
}

