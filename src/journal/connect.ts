/**
 * A node's connection to the log: the NATS servers of NATS_URL, with the
 * credentials and TLS of the configuration, JetStream once its cluster has a
 * metadata leader, and the streams of the layout.
 */
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { connect, credsAuthenticator, nkeyAuthenticator, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node'
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import type { Config } from '../config.js'
import { log } from '../log.js'
import { watchJetStream } from './jetstream-watch.js'
import { ensureStreams, StreamsDoNotFit, StreamsMissing, type JournalLayout, type LimitDrift } from './streams.js'

export interface Journal {
  nc: NatsConnection
  js: JetStreamClient
  jsm: JetStreamManager
  /** Streams found with another `max_bytes` than the layout's, when opened by openJournal. */
  limitDrift?: LimitDrift[]
  close(): Promise<void>
}

/** What a process needs to reach the log: every connection to NATS is made from these. */
export type NatsSettings = Pick<Config, 'natsUrl' | 'natsAuth'>

/** `nats://h1:4222,nats://h2:4222` → the servers the client may use; it reconnects to any of them. */
export function natsServers(url: string): string[] {
  return url.split(',').map((s) => s.trim()).filter(Boolean)
}

/** A file named by the configuration, without the line end an editor leaves. */
function secret(path: string): string {
  return readFileSync(path, 'utf8').trim()
}

/**
 * The options of every connection to NATS: the control worker's, each
 * front's and `npm run admin`'s. Secrets are read from their files here, at
 * connect time, and go nowhere else.
 */
/** A connection whose server missed MAX_PINGS_OUT pings in a row is taken as lost, and the client dials another server. */
const PING_INTERVAL_MS = 3_000
const MAX_PINGS_OUT = 2

export function natsConnectOptions(settings: NatsSettings, name = 'svc-node'): ConnectionOptions {
  const auth = settings.natsAuth
  // noAsyncTraces: the client would otherwise capture a stack (an Error) for every request, a PubAck included.
  // A ping every PING_INTERVAL_MS: behind a partition the socket stays open and silent, and with the client's default
  // (2 minutes, two missed) a node went on sending to a server cut off from the others for minutes (npm run chaos, split).
  const options: ConnectionOptions = {
    servers: natsServers(settings.natsUrl),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    name,
    noAsyncTraces: true,
    pingInterval: PING_INTERVAL_MS,
    maxPingOut: MAX_PINGS_OUT,
  }
  if (auth.passwordFile) Object.assign(options, { user: auth.user, pass: secret(auth.passwordFile) })
  if (auth.tokenFile) options.token = secret(auth.tokenFile)
  if (auth.nkeySeedFile) options.authenticator = nkeyAuthenticator(new TextEncoder().encode(secret(auth.nkeySeedFile)))
  if (auth.credentialsFile) options.authenticator = credsAuthenticator(readFileSync(auth.credentialsFile))
  const tls = tlsOptions(settings)
  if (tls) options.tls = tls
  return options
}

/**
 * The eraser's connection (NATS_ERASER_PASSWORD_FILE): the same servers and
 * TLS as the node's, as accounts.conf's `eraser` user, which may remove
 * single entries of the recording and signals streams and do nothing else.
 */
export async function openEraser(settings: NatsSettings): Promise<{ jsm: JetStreamManager; close(): Promise<void> }> {
  const eraser = { ...settings, natsAuth: { ...settings.natsAuth, user: 'eraser', passwordFile: settings.natsAuth.eraserPasswordFile, tokenFile: '', nkeySeedFile: '', credentialsFile: '' } }
  const nc = await connect(natsConnectOptions(eraser, 'svc-eraser'))
  return { jsm: await jetstreamManager(nc, { timeout: 5_000 }), close: () => nc.close() }
}

function tlsOptions({ natsUrl, natsAuth: auth }: NatsSettings): ConnectionOptions['tls'] {
  if (!auth.tlsCaFile && !auth.tlsCertFile && !/(^|,)\s*tls:/.test(natsUrl)) return undefined
  return {
    ...(auth.tlsCaFile ? { caFile: auth.tlsCaFile } : {}),
    ...(auth.tlsCertFile ? { certFile: auth.tlsCertFile, keyFile: auth.tlsKeyFile } : {}),
  }
}

/**
 * Whether a NATS server lets in a client that shows no credentials (TLS
 * alone, no user, token, key or client certificate). Such a server gives
 * anyone who reaches its port the whole log: reading every entry, appending
 * control entries, deleting streams.
 */
export async function acceptsAnonymous(settings: NatsSettings): Promise<string | undefined> {
  const tls = tlsOptions({ ...settings, natsAuth: { ...settings.natsAuth, tlsCertFile: '', tlsKeyFile: '' } })
  for (const server of natsServers(settings.natsUrl)) {
    try {
      // 2 s: a server that admits anyone answers at once; one that wants a client certificate lets the handshake hang.
      const probe = await connect({ servers: server, name: 'svc-probe', timeout: 2_000, maxReconnectAttempts: 0, ...(tls ? { tls } : {}) })
      await probe.close()
      return server
    } catch {
      // Refused (no credentials, no client certificate) or unreachable: either way not a door left open here.
    }
  }
  return undefined
}

/**
 * Connects and waits for JetStream: a cluster that has just started answers
 * its API only once it has elected a metadata leader, and a stream created
 * before its routes settle can time out, so both are tried again until
 * `timeoutMs` has passed; streams whose limits the servers cannot set aside
 * (StreamsDoNotFit) are refused at once, as waiting changes nothing. A node
 * refuses a log that anyone could write to, unless NATS_TRUSTED_NETWORK=1
 * says only trusted hosts reach it.
 */
export async function openJournal(settings: NatsSettings, layout: JournalLayout, timeoutMs = 30_000): Promise<Journal> {
  const deadline = Date.now() + timeoutMs
  const nc = await connect(natsConnectOptions(settings))
  const open = await acceptsAnonymous(settings)
  if (open && !settings.natsAuth.trustedNetwork) {
    await nc.close()
    const reason = 'a NATS server of NATS_URL lets in clients without credentials: anyone who reaches it can read the log and append to it'
    log.error(`refusing to start: ${reason}`, {
      server: open,
      fix: 'run NATS with the users of deploy/nats/accounts.conf and set NATS_USER and NATS_PASSWORD_FILE, or set NATS_TRUSTED_NETWORK=1 if only trusted hosts can reach it',
    })
    throw new Error(`refusing to start: ${reason} (${open})`)
  }
  if (open) log.warn('NATS lets in clients without credentials; started because NATS_TRUSTED_NETWORK=1 says only trusted hosts reach it', { server: open })
  let lastError: unknown
  while (Date.now() < deadline) {
    try {
      const jsm = await jetstreamManager(nc, { timeout: 5_000 })
      const limitDrift = await ensureStreams(jsm, layout)
      const unwatch = watchJetStream(nc)
      return {
        nc,
        js: jetstream(nc),
        jsm,
        limitDrift,
        close: () => {
          unwatch()
          return nc.drain()
        },
      }
    } catch (error) {
      if (error instanceof StreamsDoNotFit) {
        await nc.close()
        throw error
      }
      // A node may start before the operator made the streams: it says so once, and waits for them.
      if (error instanceof StreamsMissing && !(lastError instanceof StreamsMissing)) log.warn('waiting for the log\'s streams', { error: error.message })
      lastError = error
      await sleep(250)
    }
  }
  await nc.close()
  throw new Error(`JetStream at ${settings.natsUrl} not ready within ${timeoutMs} ms: ${String(lastError)}`)
}
