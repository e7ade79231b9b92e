/**
 * HTTP clients for the front's tests: `fetch` for the ordinary case, and two
 * lower-level ones for what fetch cannot do: `chunkedPost` (node:http, a body
 * without Content-Length, sent in pieces) and `rawExchange` (node:net, exact
 * bytes on the wire, a response read even when the request is not finished).
 */
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'
import type { ChunkMeta } from '../../src/store/store.js'

export interface Answer {
  status: number
  headers: Record<string, string>
  /** The body parsed as JSON; the test fails on a body that is not JSON where it expects one. */
  json: any
  text: string
}

/** Parses a body as JSON, or undefined when it is not JSON (the assertion then shows the text). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text()
  return { status: res.status, headers: Object.fromEntries(res.headers), json: parseJson(text), text }
}

export function meta(overrides: Partial<ChunkMeta> & Record<string, unknown> = {}): ChunkMeta {
  return { sk: 'sess-1', vid: 'vis-1', seq: 0, pageIndex: 0, url: 'https://shop.test/', firstTs: 1_700_000_000_000, lastTs: 1_700_000_001_000, eventCount: 3, encoding: 'json', startedAt: 1_700_000_000_000, ...overrides } as ChunkMeta
}

/** A raw JSON chunk of rrweb-like events. */
export function jsonChunk(events = 3): Buffer {
  return Buffer.from(JSON.stringify(Array.from({ length: events }, (_, i) => ({ type: 3, timestamp: 1_700_000_000_000 + i, data: { source: 1 } }))))
}

export interface PostOptions {
  pk: string
  /** The X-Svc-Meta header: an object or a raw string; `null` sends none; absent sends `meta()`. */
  meta?: ChunkMeta | string | null
  body?: Uint8Array | string
  headers?: Record<string, string>
  /** Route prefix; `/api/v1` unless told. */
  prefix?: string
}

export async function postChunk(base: string, options: PostOptions): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream', ...options.headers }
  const m = options.meta === undefined ? meta() : options.meta
  if (m !== null) headers['x-svc-meta'] = typeof m === 'string' ? m : JSON.stringify(m)
  const res = await fetch(`${base}${options.prefix ?? '/api/v1'}/ingest?pk=${encodeURIComponent(options.pk)}`, { method: 'POST', headers, body: (options.body ?? jsonChunk()) as BodyInit })
  return answerOf(res)
}

export async function postSignals(base: string, pk: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body)
  const res = await fetch(`${base}/api/v1/signals?pk=${encodeURIComponent(pk)}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload as BodyInit })
  return answerOf(res)
}

export async function get(base: string, path: string, init: RequestInit = {}): Promise<Answer & { bytes: Buffer }> {
  const res = await fetch(`${base}${path}`, init)
  const bytes = Buffer.from(await res.arrayBuffer())
  const text = bytes.toString('utf8')
  return { status: res.status, headers: Object.fromEntries(res.headers), json: parseJson(text), text, bytes }
}

/**
 * POSTs `pieces` with Transfer-Encoding: chunked and no Content-Length, the
 * way a client streams a body of unknown size.
 */
export function chunkedPost(port: number, path: string, headers: Record<string, string>, pieces: Uint8Array[]): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' }, agent: false }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (d: Buffer) => parts.push(d))
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8')
        const flat: Record<string, string> = {}
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') flat[k] = v
        resolve({ status: res.statusCode ?? 0, headers: flat, json: parseJson(text), text })
      })
      res.on('error', reject)
    })
    // The server may answer (413) and close before every piece is written; the answer is what counts.
    req.on('error', reject)
    let i = 0
    const next = () => {
      if (i === pieces.length) return void req.end()
      const ok = req.write(pieces[i++])
      if (ok) setImmediate(next)
      else req.once('drain', next)
    }
    next()
  })
}

/** Splits `bytes` into pieces of `size` bytes. */
export function split(bytes: Uint8Array, size: number): Uint8Array[] {
  const pieces: Uint8Array[] = []
  for (let at = 0; at < bytes.byteLength; at += size) pieces.push(bytes.subarray(at, at + size))
  return pieces
}

export interface RawAnswer {
  status: number
  headers: Record<string, string>
  text: string
  json: any
}

/**
 * Reads one HTTP/1.1 response from a socket: the status line, the headers and
 * a Content-Length body (uWebSockets.js always sends one). Rejects when the
 * socket errors (ECONNRESET) or closes before the response is complete.
 */
/** The status and headers of the response head at the start of `bytes`, and where the head ends; undefined until it is whole. */
export function responseHead(bytes: Buffer): { end: number; status: number; headers: Record<string, string> } | undefined {
  const end = bytes.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { end, status: Number(statusLine.split(' ')[1]), headers }
}

export function readResponse(socket: Socket): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0)
    const onData = (data: Buffer) => {
      buffered = Buffer.concat([buffered, data])
      const head = responseHead(buffered)
      if (!head) return
      const { end, status, headers } = head
      const length = Number(headers['content-length'] ?? 0)
      if (buffered.byteLength < end + 4 + length) return
      cleanup()
      const text = buffered.subarray(end + 4, end + 4 + length).toString('utf8')
      resolve({ status, headers, text, json: parseJson(text) })
    }
    const onError = (error: Error) => {
      cleanup()
      reject(error)
    }
    const onClose = () => {
      cleanup()
      reject(new Error(`socket closed before a complete response; got ${JSON.stringify(buffered.toString('latin1').slice(0, 200))}`))
    }
    const cleanup = () => {
      socket.off('data', onData)
      socket.off('error', onError)
      socket.off('close', onClose)
    }
    socket.on('data', onData)
    socket.on('error', onError)
    socket.on('close', onClose)
  })
}

export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket))
    socket.once('error', reject)
  })
}

/** Writes `bytes` as they are and reads one response. */
export async function rawExchange(port: number, bytes: Buffer | string): Promise<RawAnswer> {
  const socket = await openSocket(port)
  try {
    const answer = readResponse(socket)
    socket.write(bytes)
    return await answer
  } finally {
    socket.destroy()
  }
}

/** Request head for the raw clients. */
export function head(method: string, path: string, headers: Record<string, string | number>): string {
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`
}
