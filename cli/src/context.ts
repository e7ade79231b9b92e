/** What a command runs with: its arguments, the resolved server and key, the output, the process's streams. */
import type { Readable } from 'node:stream'
import type { FlagValues } from './args.js'
import { createApi, type Api } from './api.js'
import { resolveKey, resolveUrl, type Env, type KeyChoice, type StoredConfig } from './config.js'
import { CliError } from './errors.js'
import type { CommandHelp } from './help.js'
import type { Output } from './output.js'

export interface Context {
  command: CommandHelp
  args: string[]
  flags: FlagValues
  env: Env
  out: Output
  stored: StoredConfig
  /** The server addressed (--url, SVC_URL, stored, served-from). */
  url: string
  key?: KeyChoice
  stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }
  /** The file this CLI runs from (what `update` replaces). */
  selfPath: string
  /** An API client with the key; fails with `not_logged_in` when there is none. */
  api(): Api
  /** An API client without credential, for public artifacts. */
  publicApi(): Api
}

export function createContext(base: Omit<Context, 'url' | 'key' | 'api' | 'publicApi'>): Context {
  const url = resolveUrl(base.flags.url as string | undefined, base.env, base.stored)
  const key = resolveKey(base.env, base.stored)
  return {
    ...base,
    url,
    key,
    api() {
      if (!key) throw new CliError('not_logged_in', 'No API key.', { hint: 'Run `svc login`, or set SVC_API_KEY.' })
      return createApi(url, key.apiKey)
    },
    publicApi: () => createApi(url),
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
