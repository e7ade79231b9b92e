/**
 * The fastify peer: the server a user would most likely pick instead of this
 * service (issue 44), with the same contract subset as the plain peer
 * (bench/peer-contract.ts) and the same durability: one lmdb-js put per
 * request, answered after its commit. Fastify reads the body as a Buffer up
 * to the route's cap (its bodyLimit answers 413 past it, mapped to the
 * contract's JSON error); its logger and schema validation are off, as a
 * user tuning it for throughput would leave them.
 *
 * Usage: node dist/bench/fastify-peer.js <port> <dir> <publicKey>   (prints "ready" when listening)
 */
import Fastify from 'fastify'
import { capOf, failure, HEADERS, openPeerStore, peerArguments, TOO_LARGE, type Answer } from './peer-contract.js'

const [port, dir, publicKey] = peerArguments('fastify-peer')
const store = await openPeerStore(dir, publicKey)

const app = Fastify({ logger: false, keepAliveTimeout: 30_000, bodyLimit: capOf('/api/v1/ingest') })
app.removeAllContentTypeParsers()
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))
app.setErrorHandler((error, _req, reply) => {
  const answer = (error as { statusCode?: number }).statusCode === 413 ? TOO_LARGE : failure(429, 'overloaded', 'The write failed; nothing was stored.')
  void reply.code(answer.status).headers(HEADERS).send(answer.body)
})
app.setNotFoundHandler((_req, reply) => void reply.code(404).headers(HEADERS).send(failure(404, 'not_found', 'No such endpoint.').body))

const send = (reply: { code(n: number): { headers(h: object): { send(b: string): unknown } } }, answer: Answer) => reply.code(answer.status).headers(HEADERS).send(answer.body)

for (const path of ['/api/v1/ingest', '/api/v1/signals']) {
  app.post<{ Querystring: { pk?: string }; Body: Buffer }>(path, {
    bodyLimit: capOf(path),
    // Before the body is read, as the plain peer checks before reading it.
    onRequest: (req, reply, done) => {
      const refused = store.before(path, req.query.pk ?? '', Number(req.headers['content-length']), req.headers['x-svc-meta'])
      if (refused) return void send(reply, refused)
      done()
    },
    handler: async (req, reply) => send(reply, await store.store(path, req.query.pk ?? '', req.headers['x-svc-meta'], req.body)),
  })
}

await app.listen({ port, host: '127.0.0.1' })
console.log('ready')

process.on('SIGTERM', () => {
  void app.close().then(() => store.close()).then(() => process.exit(0))
  setTimeout(() => process.exit(0), 2000).unref()
})
