/**
 * What the control worker trusts about a request: it came from a front (the
 * per-start secret the primary handed both, src/supervisor/primary.ts), and so
 * the client address and Host the front wrote are the client's own.
 */
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { CLIENT_HOST_HEADER, CLIENT_IP_HEADER, CONTROL_SECRET_HEADER } from '../supervisor/messages.js'

export function fromFront(req: IncomingMessage, secret: string): boolean {
  const sent = req.headers[CONTROL_SECRET_HEADER]
  if (!secret || typeof sent !== 'string' || sent.length !== secret.length) return false
  return timingSafeEqual(Buffer.from(sent), Buffer.from(secret))
}

/** The client's address as the front saw it (the control worker's own peer is always a front). */
export function clientAddress(req: IncomingMessage): string {
  const sent = req.headers[CLIENT_IP_HEADER]
  return typeof sent === 'string' && sent ? sent : req.socket.remoteAddress ?? 'unknown'
}

/** The Host the client asked the front for. */
export function clientHost(req: IncomingMessage): string | undefined {
  const sent = req.headers[CLIENT_HOST_HEADER]
  return typeof sent === 'string' && sent ? sent : req.headers.host
}
