/**
 * A client that disagrees with a schema does not build. Each case renames one
 * required member of a schema the clients read (in memory: the file on disk is
 * untouched), type-checks one client as its own build does, and expects errors
 * in that client's source on lines that use the old name (the clients
 * type-check clean as they are: npm test runs tsc on each first).
 */
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

interface Client {
  name: string
  /** The client's tsconfig: its compiler options, and its files unless `entries` names them. */
  tsconfig: string
  /** The root tsconfig covers far more than the CLI: the CLI's program starts from its entry alone. */
  entries?: string[]
}

const CLIENTS: Record<string, Client> = {
  dashboard: { name: 'dashboard', tsconfig: 'dashboard/tsconfig.json' },
  cli: { name: 'cli', tsconfig: 'tsconfig.json', entries: ['cli/src/main.ts'] },
  tracker: { name: 'tracker', tsconfig: 'tracker/tsconfig.json' },
}

/** Type-checks `client` with `schemaFile` replaced by `schemaText`: each error's file (relative to the root), source line and message. */
function errorsOf(client: Client, schemaFile: string, schemaText: string): { file: string; line: string; message: string }[] {
  const configPath = join(root, client.tsconfig)
  const config = ts.readConfigFile(configPath, ts.sys.readFile)
  const { options, fileNames } = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configPath))
  const host = ts.createCompilerHost(options)
  const readFile = host.readFile.bind(host)
  const override = join(root, schemaFile)
  host.readFile = (path) => (resolve(path) === override ? schemaText : readFile(path))
  host.getSourceFile = (path, language) => {
    const text = host.readFile(path)
    return text === undefined ? undefined : ts.createSourceFile(path, text, language)
  }
  const program = ts.createProgram(client.entries?.map((entry) => join(root, entry)) ?? fileNames, options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ')
    if (!d.file || d.start === undefined) return { file: '(options)', line: '', message }
    const { line } = d.file.getLineAndCharacterOfPosition(d.start)
    return { file: d.file.fileName.slice(root.length + 1), line: d.file.text.split('\n')[line].trim(), message }
  })
}

/** The schema file with `from` renamed to `to` everywhere in it (its property and its `required` entry). */
function renamed(schemaFile: string, from: RegExp, to: string): string {
  const text = ts.sys.readFile(join(root, schemaFile))!
  const changed = text.replace(from, to)
  if (changed === text) throw new Error(`${from} is not in ${schemaFile}`)
  return changed
}

const CASES = [
  { client: CLIENTS.dashboard, schema: 'src/schemas/common.ts', from: /\bpublicKey\b/g, to: 'publicKeyRenamed', member: 'publicKey' },
  { client: CLIENTS.cli, schema: 'src/schemas/common.ts', from: /\bpublicKey\b/g, to: 'publicKeyRenamed', member: 'publicKey' },
  { client: CLIENTS.tracker, schema: 'src/schemas/tracker-payloads.ts', from: /\bxRatio\b/g, to: 'xRatioRenamed', member: 'xRatio' },
]

for (const { client, schema, from, to, member } of CASES) {
  t.test(`the ${client.name} does not build once ${schema} renames ${member}`, async (t) => {
    const errors = errorsOf(client, schema, renamed(schema, from, to))
    const inClient = errors.filter((e) => e.file.startsWith(`${client.name}/src/`))
    t.ok(inClient.length > 0, `errors in ${client.name}/src: ${JSON.stringify(errors.slice(0, 3).map((e) => [e.file, e.line]))}`)
    // A read of the old name (it is unknown now), or a write that lacks the new one.
    t.ok(inClient.some((e) => e.line.includes(member) || e.message.includes(`'${to}' is missing`)), `an error is about ${member}`)
  })
}
