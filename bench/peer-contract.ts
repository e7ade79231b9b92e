/**
 * What both peers (bench/plain-peer.ts on node:http, bench/fastify-peer.ts on
 * fastify) do with a request once its body is read: the same subset of the
 * contract, so that the two differ only in their HTTP layer. The public key
 * looked up in LMDB, X-Svc-Meta checked by hand, one lmdb-js `put` per
 * request awaited before answering (an acknowledgement means committed, as
 * the service's), signals parsed with JSON.parse and checked by hand;
 * nothing aggregated, no session record.
 */
import { open } from 'lmdb'
import { environmentOptions } from '../src/store/lmdb/index.js'

export const CHUNK_CAP = 1_000_000
export const SIGNALS_CAP = 256_000
export const HEADERS = { 'content-type': 'application/json', 'access-control-allow-origin': '*' }

export interface Answer {
  status: number
  body: string
}

const OK: Answer = { status: 200, body: '{"ok":true}' }
export const failure = (status: number, code: string, error: string): Answer => ({ status, body: JSON.stringify({ ok: false, code, error }) })
export const TOO_LARGE = failure(413, 'payload_too_large', 'The body is over the cap.')

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

export interface PeerStore {
  /** Checks what can be checked before the body: the route, the declared length, the key, the meta header. Undefined: read the body. */
  before(path: string, pk: string, declaredLength: number, metaHeader: string | string[] | undefined): Answer | undefined
  /** Stores the body and answers. */
  store(path: string, pk: string, metaHeader: string | string[] | undefined, body: Buffer): Promise<Answer>
  close(): Promise<void>
}

export const capOf = (path: string) => (path === '/api/v1/ingest' ? CHUNK_CAP : SIGNALS_CAP)

export async function openPeerStore(dir: string, publicKey: string): Promise<PeerStore> {
  const root = open({ path: dir, mapSize: 64 * 1024 ** 3, maxDbs: 32, ...environmentOptions('commit') })
  const projects = root.openDB<string, string>('projects', {})
  const chunks = root.openDB<Buffer, [string, string, number]>('chunks', { encoding: 'binary' })
  const signals = root.openDB<unknown, [string, number, string, number]>('signals', {})
  await projects.put(publicKey, 'project-1')
  let nonce = 0
  return {
    before(path, pk, declaredLength, metaHeader) {
      if (path !== '/api/v1/ingest' && path !== '/api/v1/signals') return failure(404, 'not_found', 'No such endpoint.')
      if (declaredLength > capOf(path)) return TOO_LARGE
      if (!/^svc_pk_[0-9a-f]{1,120}$/.test(pk)) return failure(400, 'invalid_request', 'The pk parameter is not a public key.')
      if (!projects.get(pk)) return failure(404, 'not_found', 'No project matches the public key.')
      if (path === '/api/v1/ingest' && !parseMeta(metaHeader)) return failure(400, 'invalid_request', 'The X-Svc-Meta header is malformed.')
      return undefined
    },
    async store(path, pk, metaHeader, body) {
      const projectId = projects.get(pk)!
      if (path === '/api/v1/ingest') {
        const meta = parseMeta(metaHeader)!
        await chunks.put([projectId, meta.sk, meta.seq], body)
        return OK
      }
      let batch: unknown
      try {
        batch = JSON.parse(body.toString('utf8'))
      } catch {
        return failure(400, 'invalid_request', 'The body is not JSON.')
      }
      if (!isBatch(batch)) return failure(400, 'invalid_request', 'The body is not a signals batch.')
      nonce = (nonce + 1) % 1_000_000_000
      await signals.put([projectId, Date.now(), batch.sk, nonce], batch)
      return OK
    },
    close: () => root.close(),
  }
}

/** `<port> <dir> <publicKey>` from the command line, or the usage and exit 2. */
export function peerArguments(name: string): [port: number, dir: string, publicKey: string] {
  const [port, dir, publicKey] = [Number(process.argv[2]), process.argv[3], process.argv[4]]
  if (!(port > 0) || !dir || !publicKey) {
    console.error(`usage: ${name} <port> <dir> <publicKey>`)
    process.exit(2)
  }
  return [port, dir, publicKey]
}
