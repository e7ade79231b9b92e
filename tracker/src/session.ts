/**
 * Visitor and session ids. The visitor id is stable until `reset`; the session
 * lives in shared storage (see storage.ts) so every tab of the site writes to
 * the same session, ends after SESSION_IDLE_MS without interaction, and hands
 * out chunk sequence numbers and page indexes from one counter, so that seq
 * stays strictly increasing across tabs (the server stores one chunk per seq).
 */
import { ACTIVITY_WRITE_MS, MAX_TEXT, SESSION_IDLE_MS } from './config.js'
import type { KeyValue } from './storage.js'
import type { ChunkMeta } from '../../src/schemas/types.js'

/** Who the visitor is, as the chunk meta carries it (the server's schema). */
export type Identity = NonNullable<ChunkMeta['identity']>

interface Stored {
  /** session key */
  sk: string
  /** session start, epoch ms */
  t0: number
  /** last activity, epoch ms */
  at: number
  /** next chunk seq */
  q: number
  /** next page index */
  p: number
  id?: Identity
  /** sampling draw, 0–1, once per session: every page load of the session makes the same decision */
  u?: number
  /** the page index at which the session first visited a trigger URL */
  tp?: number
}

export interface SessionInfo {
  sk: string
  vid: string
  startedAt: number
  identity?: Identity
  /** The session's sampling draw (0–1): recorded when below the project's rate. */
  u: number
}

export interface Sessions {
  /** The live session, starting a new one when the stored one expired. */
  current(): SessionInfo
  /** The stored session key if that session is still live; starts nothing. */
  peek(): string | undefined
  /** Records activity (throttled); starts a new session when the last one expired. */
  touch(): SessionInfo
  /** The next chunk seq of session `sk` (a session that has since ended keeps counting in this tab). */
  nextSeq(sk: string): number
  nextPage(): number
  identify(identity: Identity): void
  /** Ends the session and rotates the visitor id (sign-out). */
  reset(): void
  /** The page index at which session `sk` met a trigger URL; `page` marks it, unless an earlier one did. */
  trigger(sk: string, page?: number): number | undefined
}

const YEAR_S = 365 * 24 * 3600

export function randomId(): string {
  const bytes = new Uint8Array(16)
  try {
    crypto.getRandomValues(bytes)
  } catch {
    for (let i = 0; i < 16; i++) bytes[i] = (Math.random() * 256) | 0 // no Web Crypto: ids need only be unique, not secret
  }
  let hex = ''
  for (const byte of bytes) hex += (byte + 256).toString(16).slice(1)
  return hex
}

const clip = (value: unknown) => (typeof value === 'string' && value ? value.slice(0, MAX_TEXT) : undefined)

export function cleanIdentity(userId: unknown, traits: any): Identity | undefined {
  const identity: Identity = {
    userId: clip(typeof userId === 'number' ? String(userId) : userId),
    email: clip(traits?.email),
    name: clip(traits?.name),
    accountId: clip(typeof traits?.accountId === 'number' ? String(traits.accountId) : traits?.accountId),
  }
  for (const key of Object.keys(identity) as (keyof Identity)[]) if (identity[key] === undefined) delete identity[key]
  return Object.keys(identity).length ? identity : undefined
}

/** `namespace` keeps two projects on one site apart. */
export function createSessions(store: KeyValue, namespace: string, now: () => number = Date.now): Sessions {
  const vidKey = `svc_vid_${namespace}`
  const sessionKey = `svc_s_${namespace}`
  let lastWrite = 0
  /** Seqs this tab handed out, per session: the floor for the next one if the stored counter went missing. */
  const handed = new Map<string, number>()

  const visitor = () => {
    let vid = store.get(vidKey)
    if (!vid || vid.length > MAX_TEXT) {
      vid = randomId()
      store.set(vidKey, vid, YEAR_S)
    }
    return vid
  }
  const read = (): Stored | undefined => {
    try {
      const stored = JSON.parse(store.get(sessionKey) || 'null') as Stored | null
      return stored && typeof stored.sk === 'string' && typeof stored.q === 'number' ? stored : undefined
    } catch {
      return undefined // unreadable: treated as no session
    }
  }
  const write = (stored: Stored) => {
    lastWrite = now()
    store.set(sessionKey, JSON.stringify(stored), SESSION_IDLE_MS / 1000)
  }
  const fresh = (identity?: Identity): Stored => {
    const t = now()
    const stored: Stored = { sk: randomId(), t0: t, at: t, q: 0, p: 0, id: identity, u: Math.random() }
    write(stored)
    return stored
  }
  /** The stored session, or a new one when there is none or it expired. */
  const live = (): Stored => {
    const stored = read()
    return stored && now() - stored.at < SESSION_IDLE_MS ? stored : fresh(stored?.id)
  }
  // A session stored by an older tracker has no draw: it was being recorded, so it stays recorded.
  const info = (stored: Stored): SessionInfo => ({ sk: stored.sk, vid: visitor(), startedAt: stored.t0, identity: stored.id, u: stored.u || 0 })

  return {
    current: () => info(live()),
    peek() {
      const stored = read()
      return stored && now() - stored.at < SESSION_IDLE_MS ? stored.sk : undefined
    },
    touch() {
      const stored = live()
      if (now() - lastWrite >= ACTIVITY_WRITE_MS) {
        stored.at = now()
        write(stored)
      }
      return info(stored)
    },
    nextSeq(sk) {
      const stored = read()
      let seq: number
      if (stored && stored.sk === sk) {
        seq = Math.max(stored.q, handed.get(sk) ?? 0)
        stored.q = seq + 1
        write(stored)
      } else {
        seq = handed.get(sk) ?? 0
      }
      handed.set(sk, seq + 1)
      return seq
    },
    nextPage() {
      const stored = live()
      const page = stored.p
      stored.p = page + 1
      write(stored)
      return page
    },
    identify(identity) {
      const stored = live()
      stored.id = identity
      write(stored)
    },
    reset() {
      store.remove(vidKey)
      store.remove(sessionKey)
      fresh()
    },
    trigger(sk, page) {
      const stored = read()
      if (!stored || stored.sk !== sk) return undefined
      if (page !== undefined && stored.tp === undefined) {
        stored.tp = page
        write(stored)
      }
      return stored.tp
    },
  }
}
