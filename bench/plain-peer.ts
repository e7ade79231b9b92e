/**
 * The plain peer: what a user could write in an afternoon instead of this
 * service, measured with the same requests. One node:http process, no worker
 * pool, one lmdb-js `put` per request awaited before answering (so an
 * acknowledgement means committed, as the service's), and the same subset of
 * the contract: the public key looked up in LMDB, X-Svc-Meta checked by hand,
 * 413 on a declared or counted body over the cap, JSON errors with a code.
 * Signals bodies are parsed with JSON.parse and checked by hand; nothing is
 * aggregated and no session record is kept.
 *
 * Usage: node dist/bench/plain-peer.js <port> <dir> <publicKey>   (prints "ready" when listening)
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { open } from 'lmdb'
import { environmentOptions } from '../src/store/lmdb/index.js'

const [port, dir, publicKey] = [Number(process.argv[2]), process.argv[3], process.argv[4]]
if (!(port > 0) || !dir || !publicKey) {
  console.error('usage: plain-peer <port> <dir> <publicKey>')
  process.exit(2)
}

const CHUNK_CAP = 1_000_000
const SIGNALS_CAP = 256_000

const root = open({ path: dir, mapSize: 64 * 1024 ** 3, maxDbs: 32, ...environmentOptions('commit') })
const projects = root.openDB<string, string>('projects', {})
const chunks = root.openDB<Buffer, [string, string, number]>('chunks', { encoding: 'binary' })
const signals = root.openDB<unknown, [string, number, string, number]>('signals', {})
await projects.put(publicKey, 'project-1')

const HEADERS = { 'content-type': 'application/json', 'access-control-allow-origin': '*' }
const OK = '{"ok":true}'

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, HEADERS).end(body)
}

function fail(res: ServerResponse, status: number, code: string, error: string): void {
  answer(res, status, JSON.stringify({ ok: false, code, error }))
}

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
        fail(res, 413, 'payload_too_large', 'The body is over the cap.')
        resolve(undefined)
      } else parts.push(part)
    })
    req.on('end', () => !over && resolve(parts.length === 1 ? parts[0] : Buffer.concat(parts, length)))
    req.on('error', () => resolve(undefined))
  })
}

const str = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max
const seqOk = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0

interface Meta {
  sk: string
  vid: string
  seq: number
  encoding: string
}

function parseMeta(header: string | string[] | undefined): Meta | undefined {
  if (typeof header !== 'string') return undefined
  try {
    const m = JSON.parse(header) as Record<string, unknown>
    if (m && str(m.sk, 128) && str(m.vid, 128) && seqOk(m.seq) && (m.encoding === 'gzip' || m.encoding === 'json')) return m as unknown as Meta
  } catch {
    // falls through to undefined
  }
  return undefined
}

function isBatch(b: unknown): b is { sk: string; vid: string } {
  if (!b || typeof b !== 'object') return false
  const o = b as Record<string, unknown>
  const listOk = (v: unknown) => v === undefined || (Array.isArray(v) && v.length <= 1000 && v.every((e) => e && typeof e === 'object' && str((e as Record<string, unknown>).url, 2000)))
  return str(o.sk, 128) && str(o.vid, 128) && listOk(o.views) && listOk(o.clicks) && listOk(o.errors)
}

let nonce = 0

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://peer')
  const ingest = url.pathname === '/api/v1/ingest'
  if (req.method !== 'POST' || (!ingest && url.pathname !== '/api/v1/signals')) return fail(res, 404, 'not_found', 'No such endpoint.')
  const cap = ingest ? CHUNK_CAP : SIGNALS_CAP
  if (Number(req.headers['content-length']) > cap) return fail(res, 413, 'payload_too_large', 'The body is over the cap.')
  const pk = url.searchParams.get('pk') ?? ''
  if (!/^svc_pk_[0-9a-f]{1,120}$/.test(pk)) return fail(res, 400, 'invalid_request', 'The pk parameter is not a public key.')
  const projectId = projects.get(pk)
  if (!projectId) return fail(res, 404, 'not_found', 'No project matches the public key.')
  const meta = ingest ? parseMeta(req.headers['x-svc-meta']) : undefined
  if (ingest && !meta) return fail(res, 400, 'invalid_request', 'The X-Svc-Meta header is malformed.')
  const body = await readBody(req, res, cap)
  if (!body) return
  if (meta) {
    await chunks.put([projectId, meta.sk, meta.seq], body)
    return answer(res, 200, OK)
  }
  let batch: unknown
  try {
    batch = JSON.parse(body.toString('utf8'))
  } catch {
    return fail(res, 400, 'invalid_request', 'The body is not JSON.')
  }
  if (!isBatch(batch)) return fail(res, 400, 'invalid_request', 'The body is not a signals batch.')
  nonce = (nonce + 1) % 1_000_000_000
  await signals.put([projectId, Date.now(), batch.sk, nonce], batch)
  answer(res, 200, OK)
}

const server = createServer((req, res) => {
  handle(req, res).catch(() => !res.headersSent && fail(res, 429, 'overloaded', 'The write failed; nothing was stored.'))
})
server.keepAliveTimeout = 30_000
server.listen(port, '127.0.0.1', () => console.log('ready'))

process.on('SIGTERM', () => {
  server.close()
  void root.close().then(() => process.exit(0))
  setTimeout(() => process.exit(0), 2000).unref()
})
