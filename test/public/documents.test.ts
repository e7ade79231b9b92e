/**
 * /install.md, /skill.md and /release as a real server serves them. Every
 * example in the install guide is checked: the snippet is the one snippetFor
 * makes, the path rules compile and group URLs as the table says, the
 * identify and reset calls run against the real loader stub, the masking
 * marks are the documented ones, every `svc` command parses, and the install
 * commands install a working CLI. The skill's shell steps run against the
 * server with a setup token in the environment.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runInNewContext } from 'node:vm'
import t from 'tap'
import { parseArgs } from '../../cli/src/args.js'
import { EXAMPLE_PUBLIC_KEY } from '../../src/install/documents.js'
import { groupUrl } from '../../src/grouping/group.js'
import { compileRule, compileRules } from '../../src/grouping/rules.js'
import { snippetFor } from '../../src/install/snippet.js'
import { call, ingestChunk } from '../helpers/api.js'
import { cliEnv, tempHome } from '../helpers/cli.js'
import { clusterFor, DIST } from '../helpers/cluster.js'
import { seedProject } from '../helpers/seed.js'

interface Block {
  lang: string
  code: string
}

/** Fenced code blocks, also those indented under a list item. */
function blocks(markdown: string, lang?: string): Block[] {
  const found: Block[] = []
  for (const match of markdown.matchAll(/^( *)```(\w*)\n([\s\S]*?)\n\1```$/gm)) {
    const indent = match[1].length
    const code = match[3]
      .split('\n')
      .map((line) => line.slice(indent))
      .join('\n')
    found.push({ lang: match[2], code })
  }
  return lang === undefined ? found : found.filter((b) => b.lang === lang)
}

/** Words of a shell command line, with '…' and "…" quoting (enough for the documents' examples). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3])
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const versions = JSON.parse(readFileSync(new URL('../../src/public/versions.json', import.meta.url), 'utf8'))

const cluster = await clusterFor(t, { workers: 1 })
const seeded = await seedProject(cluster.dataDir)
const install = await (await fetch(`${cluster.url}/install.md`)).text()
const skill = await (await fetch(`${cluster.url}/skill.md`)).text()

t.test('the documents are served filled in for this server', async (t) => {
  for (const [name, text] of [['install.md', install], ['skill.md', skill]]) {
    t.notMatch(text, /@@SVC_/, `${name} has no placeholder left`)
    t.match(text, `${cluster.url}/`, `${name} names this server`)
  }
  for (const path of ['/install.md', '/api/install.md', '/api/v1/install.md']) {
    const res = await fetch(`${cluster.url}${path}`)
    t.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8', path)
    t.equal(await res.text(), install)
  }
})

t.test('install.md shows the real snippet: the one snippetFor makes for this server', async (t) => {
  const expected = snippetFor(EXAMPLE_PUBLIC_KEY, cluster.url)
  const shown = blocks(install, 'html').filter((b) => b.code.includes('data-svc-key'))
  t.equal(shown.length, 1, 'one snippet')
  t.equal(shown[0].code, expected)
  t.same(blocks(skill, 'html').filter((b) => b.code.includes('data-svc-key')).map((b) => b.code), [expected], 'the skill shows the same one')
  const forProject = await call(cluster.url, '/cli/projects.snippet', { token: seeded.apiKey, body: { projectId: seeded.project.id } })
  t.equal(forProject.body.snippet, expected.replace(EXAMPLE_PUBLIC_KEY, seeded.project.publicKey), 'and a project\'s snippet differs only by its key')
})

t.test('install.md: every path rule compiles, and the URL table is what the grouping code gives', async (t) => {
  const ruleBlocks = blocks(install, 'text')
  t.equal(ruleBlocks.length, 1)
  const rules = ruleBlocks[0].code.split('\n').filter(Boolean)
  for (const rule of rules) t.ok(compileRule(rule).ok, `${rule} compiles`)
  const table = [...install.matchAll(/^\| `(https?:\/\/[^`]+)` \| `([^`]+)` \|$/gm)]
  t.ok(table.length >= 4, 'the guide has its URL → page table')
  const compiled = compileRules(rules).rules
  for (const [, url, page] of table) t.equal(groupUrl(url, compiled).path, page, url)
  t.equal(groupUrl(table.at(-1)![1], compileRules([...rules, '/{tenant}/orders/*']).rules).path, '/{tenant}/orders/:hash', 'and the rule it suggests for the last one works')

  const set = blocks(install, 'sh').flatMap((b) => b.code.split('\n')).find((line) => line.startsWith('svc rules set'))!
  const patterns = shellWords(set).slice(4)
  t.same(patterns, rules, 'rules set saves the rules shown above it')
})

t.test('install.md and skill.md: identify and reset call the real loader as the tracker contract says', async (t) => {
  const stub = readFileSync(join(DIST, 'public', 'stub.js'), 'utf8')
  for (const [name, text] of [['install.md', install], ['skill.md', skill]]) {
    const examples = blocks(text, 'js')
    t.equal(examples.length, 2, `${name} has an identify and a reset example`)
    // The real stub in a bare window: it defines svc and queues calls until the tracker loads.
    const window: Record<string, any> = { addEventListener() {}, removeEventListener() {} }
    const context: Record<string, any> = { window, document: { currentScript: null, readyState: 'loading' } }
    runInNewContext(stub, context)
    t.type(window.svc, 'function', 'the stub defines svc')
    const user = { id: 'u_42', email: 'ada@acme.test', name: 'Ada', accountId: 'acct_7' }
    for (const example of examples) runInNewContext(example.code, { svc: window.svc, user })
    const calls = window.svc.q.map((args: ArrayLike<unknown>) => Array.from(args))
    t.same(calls, [['identify', 'u_42', { email: 'ada@acme.test', name: 'Ada', accountId: 'acct_7' }], ['reset']], `${name}: identify with the user id and {email, name, accountId}, then reset`)
  }
})

t.test('install.md: the masking example uses exactly the documented marks', async (t) => {
  const example = blocks(install, 'html').find((b) => !b.code.includes('data-svc-key'))!
  const marks = new Set<string>()
  for (const [, classes] of example.code.matchAll(/class="([^"]*)"/g)) for (const c of classes.split(/\s+/)) if (c.startsWith('svc-')) marks.add(`class ${c}`)
  for (const [attribute] of example.code.matchAll(/\bdata-svc-[a-z-]+/g)) marks.add(attribute)
  t.same([...marks].sort(), ['class svc-block', 'class svc-ignore', 'class svc-mask', 'data-svc-block', 'data-svc-mask'])
})

t.test('install.md: every svc command shown is a real command with real flags', async (t) => {
  const lines = blocks(install, 'sh').flatMap((b) => b.code.split('\n')).filter((line) => line.startsWith('svc '))
  t.ok(lines.length >= 6)
  for (const line of lines) {
    const invocation = parseArgs(shellWords(line).slice(1))
    t.ok(invocation.command, line)
  }
  for (const [, inline] of install.matchAll(/`(svc [^`]+)`/g)) {
    const words = shellWords(inline.replace(/<(\w+)>/g, 'x_$1')).slice(1)
    t.doesNotThrow(() => parseArgs(words), `inline \`${inline}\` parses`)
  }
})

t.test('install.md: the install commands install a CLI that runs', async (t) => {
  const home = tempHome(t)
  const steps = blocks(install, 'sh').find((b) => b.code.includes('/cli.mjs'))!
  const env = cliEnv(home)
  const installed = spawnSync('bash', ['-euc', steps.code], { env, encoding: 'utf8' })
  t.equal(installed.status, 0, installed.stderr)
  const version = spawnSync('/usr/bin/env', ['-u', 'NODE_OPTIONS', join(home, '.local/bin/svc'), 'version', '--json'], { env, encoding: 'utf8' })
  t.equal(version.status, 0, version.stderr)
  t.same(JSON.parse(version.stdout), { version: versions.cli, url: cluster.url }, '~/.local/bin/svc runs and talks to this server')
})

t.test('skill.md: its shell steps work with a setup token from the environment', async (t) => {
  const minted = await call(cluster.url, '/cli/projects.setup-token', { token: seeded.apiKey, body: { projectId: seeded.project.id } })
  const env = { ...cliEnv(tempHome(t)), SVC_SETUP_TOKEN: minted.body.token }
  const steps = blocks(skill, 'sh')
  t.equal(steps.length, 3, 'check, set rules, watch')
  t.notMatch(skill, /svc_st_[0-9a-z]/i, 'no token is written in the skill')
  const run = (code: string) => spawnSync('bash', ['-c', code], { env, encoding: 'utf8' })

  const check = run(steps[0].code)
  t.equal(check.status, 0, check.stderr)
  t.same(JSON.parse(check.stdout), { project: { name: seeded.project.name, domain: null, pathRules: [], sessionCount: 0 } })

  const rules = JSON.parse(/-d '([^']+)'/.exec(steps[1].code)![1]).rules as string[]
  for (const rule of rules) t.ok(compileRule(rule).ok, `${rule} compiles`)
  const set = run(steps[1].code)
  t.equal(set.status, 0, set.stderr)
  t.same(JSON.parse(set.stdout), { ok: true, project: { name: seeded.project.name }, pathRules: rules, backfillNeeded: false })
  const listed = await call(cluster.url, '/cli/projects.list', { token: seeded.apiKey })
  t.same(listed.body.projects[0].pathRules, rules, 'the rules are saved')

  const invalid = run(steps[1].code.replace('"/docs/*"', '"docs"'))
  t.not(invalid.status, 0, 'the documented curl fails on a pattern that does not compile')
  t.equal(JSON.parse(invalid.stdout).code, 'invalid_request', 'and shows the error body, as the skill says')
  t.same(JSON.parse(invalid.stdout).invalid, ['docs'])

  t.equal(await ingestChunk(cluster.url, seeded.project.publicKey, 'first-visit'), 200)
  const watch = run(steps[2].code)
  t.equal(watch.status, 0, watch.stderr)
  t.match(watch.stdout, /^recording: \{"project":\{.*"sessionCount":1\}\}\n$/, 'the watch loop sees the session and stops')

  const revoked = run(steps[0].code.replace('$SVC_SETUP_TOKEN', 'svc_st_notarealtoken'))
  t.not(revoked.status, 0)
  t.equal(JSON.parse(revoked.stdout).code, 'unauthorized', 'a bad token shows code unauthorized, as the skill says')
})

t.test('skill.md is versioned, and /release names that version', async (t) => {
  const version = /^---\n[\s\S]*?^version: (.+)$[\s\S]*?^---$/m.exec(skill)?.[1]
  t.equal(version, versions.skill, 'front matter version is the skill version')
  const release = await (await fetch(`${cluster.url}/release`)).json()
  t.equal(release.skill.version, versions.skill)
  t.equal(release.cli.version, versions.cli)
  t.equal(release.tracker.version, versions.tracker)
})

t.test('/release carries the sha256 of the exact bytes served, at every address', async (t) => {
  for (const prefix of ['', '/api', '/api/v1']) {
    const release = await (await fetch(`${cluster.url}${prefix}/release`)).json()
    const cli = Buffer.from(await (await fetch(`${cluster.url}${prefix}/cli.mjs`)).arrayBuffer())
    const served = Buffer.from(await (await fetch(`${cluster.url}${prefix}/skill.md`)).arrayBuffer())
    t.equal(release.cli.sha256, sha256(cli), `${prefix}/cli.mjs`)
    t.equal(release.skill.sha256, sha256(served), `${prefix}/skill.md`)
  }
})

t.test('the server writes DIRECT_URL into the CLI and the documents, and hashes what it serves', async (t) => {
  const direct = 'https://rec.example.test'
  const other = await clusterFor(t, { workers: 1, env: { DIRECT_URL: direct } })
  const cli = Buffer.from(await (await fetch(`${other.url}/cli.mjs`)).arrayBuffer())
  t.match(cli.toString(), `var SERVED_FROM = "${direct}";`, 'the served CLI defaults to DIRECT_URL')
  // The placeholder's name stays in the stamping code the CLI carries for `svc update`; no quoted literal of it may.
  t.notMatch(cli.toString(), /(["'`])@@SVC_DIRECT_URL@@\1/)
  const release = await (await fetch(`${other.url}/release`)).json()
  t.equal(release.cli.sha256, sha256(cli), 'the hash covers the stamped file')
  t.not(release.cli.sha256, sha256(readFileSync(join(DIST, 'public', 'cli.mjs'))), 'not the file on disk')
  t.match(await (await fetch(`${other.url}/install.md`)).text(), `curl -fsSL ${direct}/cli.mjs`)
})
