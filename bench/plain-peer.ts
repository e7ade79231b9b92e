/**
 * The plain peer: what a user could write in an afternoon instead of this
 * service, measured with the same requests. One node:http process, no worker
 * pool, and the contract's subset of bench/peer-contract.ts: 413 on a
 * declared or counted body over the cap, JSON errors with a code.
 *
 * Usage: node dist/bench/plain-peer.js <port> <dir> <publicKey>   (prints "ready" when listening)
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { capOf, failure, HEADERS, openPeerStore, peerArguments, TOO_LARGE, type Answer } from './peer-contract.js'

const [port, dir, publicKey] = peerArguments('plain-peer')
const store = await openPeerStore(dir, publicKey)

const send = (res: ServerResponse, answer: Answer) => void res.writeHead(answer.status, HEADERS).end(answer.body)

/** The whole body, or undefined once it passes `cap` (413 answered, the rest drained unread). */
function readBody(req: IncomingMessage, res: ServerResponse, cap: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const parts: Buffer[] = []
    let length = 0
    let over = false
    req.on('data', (part: Buffer) => {
      if (over) return
      length += part.byteLength
      if (length > cap) {
        over = true
        send(res, TOO_LARGE)
        resolve(undefined)
      } else parts.push(part)
    })
    req.on('end', () => !over && resolve(parts.length === 1 ? parts[0] : Buffer.concat(parts, length)))
    req.on('error', () => resolve(undefined))
  })
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://peer')
  if (req.method !== 'POST') return send(res, failure(404, 'not_found', 'No such endpoint.'))
  const pk = url.searchParams.get('pk') ?? ''
  const refused = store.before(url.pathname, pk, Number(req.headers['content-length']), req.headers['x-svc-meta'])
  if (refused) return send(res, refused)
  const body = await readBody(req, res, capOf(url.pathname))
  if (body) send(res, await store.store(url.pathname, pk, req.headers['x-svc-meta'], body))
}

const server = createServer((req, res) => {
  handle(req, res).catch(() => !res.headersSent && send(res, failure(429, 'overloaded', 'The write failed; nothing was stored.')))
})
server.keepAliveTimeout = 30_000
server.listen(port, '127.0.0.1', () => console.log('ready'))

process.on('SIGTERM', () => {
  server.close()
  void store.close().then(() => process.exit(0))
  setTimeout(() => process.exit(0), 2000).unref()
})
