/**
 * The svc command-line client: one dependency-free ES module for Node 18 or
 * newer (only `node:` built-ins), served by the service at /cli.mjs. It uses
 * the public API only. `run` returns the exit status: 0 success, 1 failure,
 * 2 usage.
 */
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from './args.js'
import * as account from './commands/account.js'
import { capture } from './commands/capture.js'
import { commandHelp, groupHelp, help, overview, version } from './commands/help.js'
import * as members from './commands/members.js'
import { overview as projectOverview } from './commands/overview.js'
import * as governance from './commands/governance.js'
import { erase, erasures, remove as deleteProject, rename as renameProject } from './commands/erasure.js'
import * as projects from './commands/projects.js'
import * as rules from './commands/rules.js'
import * as sessions from './commands/sessions.js'
import * as live from './commands/live.js'
import { retention, storage } from './commands/storage.js'
import { update } from './commands/update.js'
import { readConfig, type Env, type StoredConfig } from './config.js'
import { createContext, type Context } from './context.js'
import { CliError } from './errors.js'
import { createOutput, type Streams } from './output.js'

const HANDLERS: Record<string, (ctx: Context) => Promise<void>> = {
  login: account.login,
  logout: account.logout,
  whoami: account.whoami,
  'members list': members.list,
  'members remove': members.remove,
  'members role': governance.role,
  audit: governance.audit,
  erase,
  erasures,
  password: members.password,
  'projects list': projects.list,
  'projects create': projects.create,
  'projects rename': renameProject,
  'projects delete': deleteProject,
  'projects capture': capture,
  'projects storage': storage,
  'projects retention': retention,
  'rules set': rules.set,
  'rules test': rules.test,
  snippet: projects.snippet,
  'setup-token': projects.setupToken,
  'sessions count': sessions.count,
  'sessions list': sessions.list,
  'sessions live': live.live,
  'sessions follow': live.follow,
  overview: projectOverview,
  export: sessions.exportEvents,
  update,
  version: async (ctx) => version(ctx.out, ctx.url),
  help: async (ctx) => help(ctx.out, ctx.args),
}

const CONFIG_FREE = new Set(['logout', 'help', 'version'])

function readConfigOrNothing(env: Env): StoredConfig {
  try {
    return readConfig(env)
  } catch {
    return {} // unreadable: these commands work without it (and logout removes it)
  }
}

export interface RunOptions extends Streams {
  env: Env
  stdin: Context['stdin']
  selfPath: string
}

export async function run(argv: string[], options: RunOptions): Promise<number> {
  const wantsJson = argv.includes('--json')
  let out = createOutput(options, options.env, { json: wantsJson, noColor: argv.includes('--no-color') })
  try {
    // The conventional spelling, alone: `svc --version` is `svc version`.
    if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) argv = ['version']
    const invocation = parseArgs(argv)
    out = createOutput(options, options.env, { json: Boolean(invocation.flags.json), noColor: Boolean(invocation.flags['no-color']) })
    if (invocation.group) {
      groupHelp(out, invocation.group)
      return 0
    }
    if (!invocation.command) {
      if (invocation.flags.help || argv.length === 0) {
        overview(out)
        return 0
      }
      throw new CliError('usage', 'No command given.', { hint: 'Run `svc help`.', exit: 2 })
    }
    if (invocation.flags.help) {
      commandHelp(out, invocation.command)
      return 0
    }
    const name = invocation.command.name
    const handler = HANDLERS[name]
    // A damaged config file must not stand in the way of the commands that fix it or need none.
    const stored = CONFIG_FREE.has(name) ? readConfigOrNothing(options.env) : readConfig(options.env)
    const ctx = createContext({ command: invocation.command, args: invocation.args, flags: invocation.flags, env: options.env, out, stored, stdin: options.stdin, selfPath: options.selfPath })
    await handler(ctx)
    return 0
  } catch (error) {
    if (error instanceof CliError) {
      out.error(error)
      return error.exit
    }
    out.error(new CliError('internal_error', `Unexpected failure: ${(error as Error)?.stack ?? String(error)}`, { hint: 'This is a bug in the CLI; please report it with the command you ran.' }))
    return 1
  }
}

// A reader that stops early (`svc export … | head`) is not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

const selfPath = fileURLToPath(import.meta.url)
let invokedDirectly = false
try {
  invokedDirectly = process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(selfPath)
} catch {
  invokedDirectly = false // argv[1] is not a file (an eval, a REPL): imported, not run
}
if (invokedDirectly) {
  void run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, selfPath }).then((code) => {
    process.exitCode = code
  })
}
