/**
 * The CLI promises to run on Node 18 with nothing but built-ins (API
 * contract, section 4.1). Two checks: a static one over the built file (every
 * import is a `node:` built-in that Node 18.0 has; no global or API newer
 * than Node 18, from an explicit list), and, when a Node 18 is installed
 * (.ci/run installs one), running the file under it.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { asUser, node18 } from '../helpers/cli.js'
import { DIST } from '../helpers/cluster.js'

/** `require('module').builtinModules` of Node 18.0, without the internal `_` ones. */
const NODE18_BUILTINS = new Set([
  'assert', 'assert/strict', 'async_hooks', 'buffer', 'child_process', 'cluster', 'console', 'constants', 'crypto', 'dgram',
  'diagnostics_channel', 'dns', 'dns/promises', 'domain', 'events', 'fs', 'fs/promises', 'http', 'http2', 'https', 'inspector',
  'module', 'net', 'os', 'path', 'path/posix', 'path/win32', 'perf_hooks', 'process', 'punycode', 'querystring', 'readline',
  'readline/promises', 'repl', 'stream', 'stream/consumers', 'stream/promises', 'stream/web', 'string_decoder', 'sys', 'test',
  'timers', 'timers/promises', 'tls', 'trace_events', 'tty', 'url', 'util', 'util/types', 'v8', 'vm', 'wasi', 'worker_threads', 'zlib',
])

/** Globals and language APIs that Node 18.0 lacks (or has only behind a warning), each with the version that brought it. */
const FORBIDDEN: { pattern: RegExp; what: string }[] = [
  { pattern: /(?<![\w$.])fetch\s*\(/, what: 'global fetch (experimental in Node 18: prints an ExperimentalWarning)' },
  { pattern: /new\s+(Request|Response|Headers|FormData)\s*\(/, what: 'fetch API classes (experimental in Node 18)' },
  { pattern: /(?<![\w$.])WebSocket\b/, what: 'global WebSocket (Node 22)' },
  { pattern: /(?<![\w$.])navigator\b/, what: 'global navigator (Node 21)' },
  { pattern: /new\s+(CustomEvent|File)\s*\(/, what: 'global CustomEvent (Node 19) / File (Node 20)' },
  { pattern: /(?<![\w$.])crypto\.(getRandomValues|randomUUID|subtle)\b/, what: 'global crypto (Node 19 without a flag)' },
  { pattern: /import\.meta\.(dirname|filename|resolve)\b/, what: 'import.meta.dirname/filename (Node 20.11), import.meta.resolve (Node 20.6)' },
  { pattern: /\b(Object|Map)\.groupBy\b/, what: 'Object.groupBy / Map.groupBy (Node 21)' },
  { pattern: /\bPromise\.withResolvers\b/, what: 'Promise.withResolvers (Node 22)' },
  { pattern: /\bArray\.fromAsync\b/, what: 'Array.fromAsync (Node 22)' },
  { pattern: /\.(toSorted|toReversed|toSpliced)\s*\(/, what: 'change-array-by-copy methods (Node 20)' },
  { pattern: /\.(isWellFormed|toWellFormed)\s*\(/, what: 'String well-formed methods (Node 20)' },
  { pattern: /\.(union|intersection|symmetricDifference|isSubsetOf|isSupersetOf|isDisjointFrom)\s*\(/, what: 'Set methods (Node 22)' },
  { pattern: /\bURL\.(canParse|parse)\b/, what: 'URL.canParse (Node 19.9) / URL.parse (Node 22)' },
  { pattern: /\bAbortSignal\.any\b/, what: 'AbortSignal.any (Node 20.3)' },
  { pattern: /\.transfer(ToFixedLength)?\s*\(/, what: 'ArrayBuffer transfer (Node 21)' },
  { pattern: /\bprocess\.(loadEnvFile|getBuiltinModule|permission)\b/, what: 'process.loadEnvFile (20.12), getBuiltinModule (22.3), permission (20)' },
  { pattern: /\bcreateRequire\b|(?<![\w$.])require\s*\(/, what: 'require: the file is an ES module that imports built-ins only' },
]

/** Named imports of node: modules that Node 18.0 lacks. */
const FORBIDDEN_NAMES: Record<string, string[]> = {
  util: ['parseArgs', 'styleText', 'MIMEType', 'MIMEParams', 'aborted', 'getCallSite', 'getCallSites'],
  fs: ['openAsBlob', 'glob', 'globSync'],
  'fs/promises': ['glob'],
  crypto: ['hash'],
  events: ['addAbortListener'],
  module: ['register', 'findPackageJSON', 'enableCompileCache'],
  stream: ['duplexPair'],
  process: ['loadEnvFile', 'getBuiltinModule'],
}

interface Finding {
  rule: string
  excerpt: string
}

function checkNode18(source: string): Finding[] {
  const findings: Finding[] = []
  const specifiers = [
    ...source.matchAll(/^\s*(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/gm),
    ...source.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
    ...source.matchAll(/\bimport\s*\(\s*["'`]([^"'`]+)["'`]\s*\)/g),
  ]
  for (const match of specifiers) {
    const specifier = match[1]
    if (!specifier.startsWith('node:')) findings.push({ rule: 'imports only node: built-ins', excerpt: match[0].trim() })
    else if (!NODE18_BUILTINS.has(specifier.slice(5))) findings.push({ rule: 'a built-in Node 18 has', excerpt: match[0].trim() })
    const names = /\{([^}]*)\}/.exec(match[0])?.[1].split(',').map((n) => n.trim().split(/\s+as\s+/)[0]) ?? []
    for (const name of names) {
      if (FORBIDDEN_NAMES[specifier.slice(5)]?.includes(name)) findings.push({ rule: `${specifier} ${name} is newer than Node 18.0`, excerpt: match[0].trim() })
    }
  }
  if (/\bimport\s*\(\s*[^"'`\s]/.test(source)) findings.push({ rule: 'no computed dynamic import', excerpt: 'import(<expression>)' })
  for (const { pattern, what } of FORBIDDEN) {
    const match = pattern.exec(source)
    if (match) findings.push({ rule: what, excerpt: source.slice(Math.max(0, match.index - 40), match.index + 40) })
  }
  return findings
}

const cliFile = join(DIST, 'public', 'cli.mjs')

t.test('the built CLI imports only node: built-ins of Node 18 and uses no API newer than Node 18', async (t) => {
  const source = readFileSync(cliFile, 'utf8')
  t.match(source, /^#!\/usr\/bin\/env node\n/, 'it starts with a shebang, to run as a command')
  const imports = [...source.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1])
  t.ok(imports.length > 0, 'it has imports to check (the pattern sees the built file\'s form)')
  t.same(checkNode18(source), [], 'nothing outside Node 18')
})

t.test('the check catches what it is meant to catch', async (t) => {
  const bad = [
    'import { x } from "lodash";',
    'import fs from "fs";',
    'import { DatabaseSync } from "node:sqlite";',
    'import { parseArgs } from "node:util";',
    'import { styleText as paint } from "node:util";',
    'const m = await import(name);',
    'const r = await fetch(url);',
    'const d = import.meta.dirname;',
    'const g = Object.groupBy(list, f);',
    'const s = list.toSorted();',
    'const ok = URL.canParse(u);',
    'const id = crypto.randomUUID();',
    'const p = Promise.withResolvers();',
    'const r = require("node:fs");',
  ]
  for (const line of bad) t.not(checkNode18(line).length, 0, `flags ${line}`)
  t.same(checkNode18('import { createHash } from "node:crypto";\nconst x = new URL(u);\nlist.findLast(f);'), [], 'and passes what Node 18 has')
})

const runtime = node18()
t.test('the built CLI runs under Node 18', { skip: runtime || process.env.CI ? false : 'no Node 18 here: .ci/run installs one into .cache/node18 (cli/scripts/install-node18.sh)' }, async (t) => {
  t.ok(runtime, 'CI has Node 18 (installed by .ci/run)')
  if (!runtime) return
  const version = spawnSync(...asUser(runtime, ['--version']), { encoding: 'utf8' }).stdout.trim()
  t.match(version, /^v18\./, `the runtime is Node 18 (${version})`)
  // Loaded by name, as the CLI imports them (node:test exists only with the prefix in Node 18).
  const probe = `const missing = ${JSON.stringify([...NODE18_BUILTINS])}.filter((n) => { try { require('node:' + n); return false } catch { return true } }); console.log(JSON.stringify(missing))`
  t.same(JSON.parse(spawnSync(...asUser(runtime, ['-e', probe]), { encoding: 'utf8' }).stdout), [], 'Node 18 has every built-in the check allows')
  for (const args of [['version'], ['help'], ['help', 'update'], ['rules', 'test', 'prj_x', '--rule', '/{tenant}/*', 'https://a.test/acme/7']]) {
    const run = spawnSync(...asUser(runtime, ['--throw-deprecation', cliFile, ...args]), { encoding: 'utf8', env: { ...process.env, SVC_API_KEY: '' } })
    t.equal(run.status, 0, `svc ${args.join(' ')} exits 0 under ${version}: ${run.stderr}`)
    t.equal(run.stderr, '', 'and prints no warning')
  }
})
