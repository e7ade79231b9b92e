/**
 * Login CSRF: the operations that take no credential and set a session cookie
 * (set-up, sign-in, accepting an invite) must not be reachable from an HTML
 * form on another site, or its page signs the victim in to the attacker's
 * organisation. A form can only send text/plain, urlencoded or multipart, so
 * requiring application/json forces a CORS preflight; and a browser names
 * the page's origin in `Origin` (or at least `Sec-Fetch-Site`) on every
 * cross-origin POST, which must then be this service's own.
 * A request with neither header comes from no browser (the CLI, curl): allowed.
 */
import type { IncomingMessage } from 'node:http'
import { ApiError } from '../errors.js'
import { clientHost } from './front-link.js'

/** The origins this service answers as: its configured addresses, and the Host the client used. */
function ownOrigins(req: IncomingMessage, configured: string[]): Set<string> {
  const origins = new Set(configured.map((url) => new URL(url).origin))
  const host = clientHost(req)
  if (host) for (const scheme of ['http', 'https']) origins.add(`${scheme}://${host.toLowerCase()}`)
  return origins
}

export function requireSameOriginJson(req: IncomingMessage, configured: string[]): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
  if (type !== 'application/json') {
    throw new ApiError('invalid_request', { error: 'This operation takes Content-Type: application/json only.', hint: 'Send the body as JSON with Content-Type: application/json.' })
  }
  const origin = req.headers.origin
  const site = req.headers['sec-fetch-site']
  const sameOrigin = origin !== undefined ? ownOrigins(req, configured).has(origin.toLowerCase()) : site === undefined || site === 'same-origin' || site === 'none'
  if (!sameOrigin) {
    throw new ApiError('unauthorized', { error: 'Signing in is refused from a page of another site.', hint: 'Sign in from this service\'s own dashboard (/app/), or without a browser (the CLI, curl).' })
  }
}
