/**
 * A reverse proxy on this host that TRUST_PROXY does not name. Its requests
 * arrive from a loopback address carrying X-Forwarded-For or Forwarded, and
 * the service, rightly, believes neither: so every client is the proxy, one
 * local address. Sign-in throttling then counts every user's wrong passwords
 * together, and a loopback-only /metrics would answer the whole internet. The
 * front says so in its log (once a minute while it lasts) and in /health, and
 * /metrics treats such a request as remote.
 */
import { log } from '../log.js'
import { isLoopback, plainAddress, type TrustedProxies } from './client-address.js'

const WARN_EVERY_MS = 60_000

export class UntrustedProxyWatch {
  private lastWarnedAt = Number.NEGATIVE_INFINITY
  /** Requests seen so far that a proxy on this host forwarded without being trusted. */
  seen = 0
  lastPeer = ''

  constructor(
    private readonly trusted: TrustedProxies,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes one request; true when a loopback peer TRUST_PROXY does not name sent forwarding headers. */
  note(peer: string, forwarding: boolean): boolean {
    if (!forwarding) return false
    const address = plainAddress(peer)
    if (!isLoopback(address) || this.trusted.has(address)) return false
    this.seen += 1
    this.lastPeer = address
    const now = this.now()
    if (now - this.lastWarnedAt >= WARN_EVERY_MS) {
      this.lastWarnedAt = now
      log.warn('requests from a proxy on this host carry X-Forwarded-For or Forwarded, and TRUST_PROXY does not name it', { peer: address, seen: this.seen, fix: `TRUST_PROXY=${address}`, docs: 'docs/deploy.md' })
    }
    return true
  }

  /** What /health says while it has seen any; undefined otherwise. */
  get warning(): string | undefined {
    if (this.seen === 0) return undefined
    return `${this.seen} request(s) came through a proxy on this host (${this.lastPeer}) that TRUST_PROXY does not name: every client looks like ${this.lastPeer}, so sign-in throttling counts them all as one. Start the service with TRUST_PROXY=${this.lastPeer}.`
  }
}
