/**
 * Where the CLI finds its server and its key. Server: --url, else SVC_URL,
 * else the address stored by login, else the address the server wrote into
 * this file when it served it. Key: SVC_API_KEY, else the stored one. The
 * stored config is a JSON file readable by its owner only (0600, in a 0700
 * directory), replaced whole by rename so a crash never leaves half a file.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { CliError } from './errors.js'

/**
 * The server replaces this literal with its direct URL (config.directUrl)
 * when it loads cli.mjs, so a downloaded CLI talks to the server it came
 * from; the sha256 in /release is computed after that, over the served bytes.
 */
export const SERVED_FROM: string = '@@SVC_DIRECT_URL@@'

/** Used only when running an unserved build (dist/public/cli.mjs straight from a checkout). */
const DEVELOPMENT_URL = 'http://127.0.0.1:8787'

export interface StoredConfig {
  url?: string
  apiKey?: string
}

export type Env = Record<string, string | undefined>

export function configDir(env: Env): string {
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'svc')
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'svc')
  return join(env.HOME || homedir(), '.config', 'svc')
}

export function configPath(env: Env): string {
  return join(configDir(env), 'config.json')
}

export function readConfig(env: Env): StoredConfig {
  const path = configPath(env)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw new CliError('config_unreadable', `Cannot read ${path}: ${(error as Error).message}.`, { hint: 'Fix its permissions, or run `svc logout` and log in again.' })
  }
  try {
    const parsed = JSON.parse(text) as StoredConfig
    return typeof parsed === 'object' && parsed !== null ? parsed : {}
  } catch {
    throw new CliError('config_unreadable', `${path} is not JSON.`, { hint: 'Run `svc logout` and log in again.' })
  }
}

export function writeConfig(env: Env, config: StoredConfig): string {
  const dir = configDir(env)
  const path = configPath(env)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const temp = `${path}.${process.pid}.tmp`
  // mode applies when the file is created; chmod again in case a umask or an old file got in the way.
  writeFileSync(temp, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 })
  chmodSync(temp, 0o600)
  renameSync(temp, path)
  return path
}

export function removeConfig(env: Env): boolean {
  const path = configPath(env)
  try {
    rmSync(path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
}

function normalise(url: string, from: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new CliError('usage', `${from} is not an absolute URL: ${JSON.stringify(url)}.`, { hint: 'Give the server address, like https://rec.example.com.', exit: 2 })
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CliError('usage', `${from} must be an http or https address.`, { exit: 2 })
  }
  return parsed.toString().replace(/\/+$/, '')
}

export function servedFrom(): string | undefined {
  return /^https?:\/\//.test(SERVED_FROM) ? SERVED_FROM : undefined
}

export function resolveUrl(flag: string | undefined, env: Env, stored: StoredConfig): string {
  if (flag) return normalise(flag, '--url')
  if (env.SVC_URL) return normalise(env.SVC_URL, 'SVC_URL')
  if (stored.url) return normalise(stored.url, `url in ${configPath(env)}`)
  return servedFrom() ?? DEVELOPMENT_URL
}

/** The API base of a server address: the address itself when it already names /api or /api/v1. */
export function apiBase(url: string): string {
  return /\/api(\/v1)?$/.test(new URL(url).pathname) ? url : `${url}/api`
}

export interface KeyChoice {
  apiKey: string
  source: 'SVC_API_KEY' | 'config'
}

export function resolveKey(env: Env, stored: StoredConfig): KeyChoice | undefined {
  if (env.SVC_API_KEY) return { apiKey: env.SVC_API_KEY.trim(), source: 'SVC_API_KEY' }
  if (stored.apiKey) return { apiKey: stored.apiKey, source: 'config' }
  return undefined
}
