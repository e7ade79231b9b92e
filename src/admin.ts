/**
 * `npm run admin -- <command>`: operator commands that work beside a running
 * server (they open the same LMDB environment; the server sees the result on
 * its next request). Output: one JSON line on stdout; errors on stderr, exit 1;
 * usage errors exit 2.
 */
import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import { createApiKey, ensureOrgAndUser, mintSetupToken, mintSignInLink, SETUP_TOKEN_TTL_MS } from './accounts/credentials.js'
import { loadConfig } from './config.js'
import { ApiError } from './errors.js'
import { openStore } from './store/open.js'
import type { Store } from './store/store.js'
import { openJournal } from './journal/connect.js'
import { NatsLog } from './journal/nats-log.js'
import { appendControl, newControlEntry } from './journal/control-append.js'
import { layoutOf, logSealOf } from './journal/node.js'
import { submittingStore } from './journal/replicated-store.js'
import { controlStream } from './journal/streams.js'

const USAGE = `usage: npm run admin -- <command> [options]

commands:
  create-key --org NAME --email EMAIL [--label LABEL]
      Creates the organisation and the user if needed, and an API key.
      Prints {"orgId","userId","apiKey"}; the key is shown only this once.
      A user without a dashboard password also gets "signInUrl": a one-time
      link (24 h) to choose one and sign in to the dashboard.
  sign-in-link --email EMAIL
      Prints {"signInUrl","expiresAt"}: a one-time link (24 h) with which that
      user chooses a (new) password and signs in to the dashboard.
  mint-setup-token --project ID [--ttl DURATION]
      Mints a setup token for an install agent. DURATION like 90s, 15m, 12h, 7d
      (default and maximum 30d). Prints {"token","expiresAt"}.
  log-streams
      Cluster mode, as the NATS operator user (NATS_USER=operator and its
      NATS_PASSWORD_FILE): creates the log's streams that are missing and sets
      each to the max_bytes this configuration asks for (NATS_PARTITIONS,
      NATS_REPLICAS, NATS_STREAM_MAX_BYTES, STORAGE_BUDGET), which a node may
      not do itself. Prints {"changed":[{"stream","maxBytes","was"}]}.
`

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** "15m" → 900000; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim())
  return match ? Number(match[1]) * UNITS[match[2]] : undefined
}

type Command = (args: string[]) => Promise<unknown>

/**
 * The store as admin commands use it: this machine's LMDB in the embedded
 * mode; in the cluster mode (NATS_URL) the node's LMDB for reads, and the log
 * for every change, which the node running on DATA_DIR then applies.
 */
async function openAdminStore(): Promise<{ store: Store; close: () => Promise<void> }> {
  const config = loadConfig()
  const local = openStore(config)
  if (!config.natsUrl) return { store: local, close: () => local.close() }
  const layout = layoutOf(config)
  const journal = new NatsLog(await openJournal(config, layout, config.natsDeadlineMs))
  const node = `admin:${randomUUID()}`
  let ticket = 0
  const seal = logSealOf(config)
  const submit = async (op: string, args: unknown[]) => {
    ticket += 1
    const ack = await appendControl(journal, seal, layout, newControlEntry(op, args, node, ticket), Date.now() + config.natsDeadlineMs)
    return ack.seq
  }
  return {
    store: submittingStore(local, controlStream(layout), submit, config.natsDeadlineMs),
    close: async () => {
      await journal.close()
      await local.close()
    },
  }
}

const commands: Record<string, Command> = {
  async 'create-key'(args) {
    const { values } = parseArgs({ args, options: { org: { type: 'string' }, email: { type: 'string' }, label: { type: 'string' } } })
    if (!values.org || !values.email) throw new UsageError('create-key needs --org and --email')
    if (!/^[^@\s]+@[^@\s]+$/.test(values.email)) throw new UsageError('--email is not an email address')
    const { store, close } = await openAdminStore()
    try {
      const { org, user } = await ensureOrgAndUser(store, values.org, values.email)
      const { apiKey } = await createApiKey(store, org.id, user.id, values.label)
      if (user.passwordHash) return { orgId: org.id, userId: user.id, apiKey }
      // Without this the owner a new deployment starts with could use the API but never the dashboard.
      const link = await mintSignInLink(store, user, loadConfig().directUrl)
      return { orgId: org.id, userId: user.id, apiKey, signInUrl: link.url, signInExpiresAt: link.expiresAt }
    } finally {
      await close()
    }
  },
  async 'sign-in-link'(args) {
    const { values } = parseArgs({ args, options: { email: { type: 'string' } } })
    if (!values.email) throw new UsageError('sign-in-link needs --email')
    const { store, close } = await openAdminStore()
    try {
      const user = store.findUserByEmail(values.email)
      if (!user) throw new Error(`no user ${values.email}`)
      const link = await mintSignInLink(store, user, loadConfig().directUrl)
      return { signInUrl: link.url, expiresAt: link.expiresAt }
    } finally {
      await close()
    }
  },
  async 'mint-setup-token'(args) {
    const { values } = parseArgs({ args, options: { project: { type: 'string' }, ttl: { type: 'string' } } })
    if (!values.project) throw new UsageError('mint-setup-token needs --project')
    const ttl = values.ttl === undefined ? SETUP_TOKEN_TTL_MS : parseDuration(values.ttl)
    if (ttl === undefined || ttl <= 0 || ttl > SETUP_TOKEN_TTL_MS) throw new UsageError('--ttl is a duration such as 90s, 15m, 12h or 7d, at most 30d')
    const { store, close } = await openAdminStore()
    try {
      if (!store.getProject(values.project)) throw new Error(`no project ${values.project}`)
      const { token, record } = await mintSetupToken(store, values.project, ttl)
      return { token, expiresAt: record.expiresAt }
    } finally {
      await close()
    }
  },
  async 'log-streams'() {
    const config = loadConfig()
    if (!config.natsUrl) throw new UsageError('log-streams is for the cluster mode: set NATS_URL, and NATS_USER=operator with its NATS_PASSWORD_FILE')
    const journal = await openJournal(config, layoutOf(config), config.natsDeadlineMs)
    try {
      const changed: { stream: string; maxBytes: number; was: number }[] = []
      for (const { stream, has, wants } of journal.limitDrift ?? []) {
        const { config: current } = await journal.jsm.streams.info(stream)
        await journal.jsm.streams.update(stream, { ...current, max_bytes: wants })
        changed.push({ stream, maxBytes: wants, was: has })
      }
      return { changed }
    } finally {
      await journal.close()
    }
  },
}

class UsageError extends Error {}

const [name, ...rest] = process.argv.slice(2)
const command = name ? commands[name] : undefined
if (!command) {
  process.stderr.write(name && name !== 'help' && name !== '--help' ? `unknown command: ${name}\n\n${USAGE}` : USAGE)
  process.exit(name && name !== 'help' && name !== '--help' ? 2 : 0)
}
try {
  process.stdout.write(JSON.stringify(await command(rest)) + '\n')
} catch (error) {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`)
    process.exit(2)
  }
  process.stderr.write(`admin: ${error instanceof ApiError ? error.message : String((error as Error).message ?? error)}\n`)
  process.exit(1)
}
