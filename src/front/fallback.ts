/**
 * The front's last resort where no native uWebSockets.js build loads: the
 * subset of the uWebSockets.js API the front uses, on node:http.
 *
 * Why our own rather than the 20.30 package's pure-Node fallback: that one
 * throws "Not implemented" from endWithoutBody, onWritable and
 * getRemoteAddressAsText, and cannot share a port between processes, so
 * preflights, streamed answers and every front but the first failed on it.
 * Here several fronts share the port through SO_REUSEPORT where Node has it
 * (22.12 and later); on older Node only one front can listen.
 *
 * Semantics kept from uWebSockets.js: one abort handler per response (the
 * last registered wins), body chunks as ArrayBuffers with an isLast flag,
 * status given as a whole status line, headers written in call order,
 * getHeader answering '' for a missing header, the most specific route first.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { errorBody } from '../errors.js'
import type * as Uws from 'uWebSockets.js'

type Handler = (res: FallbackResponse, req: FallbackRequest) => void

interface Route {
  method: string
  pattern: string
  handler: Handler
}

export interface FallbackOptions {
  /** Request-head limit, bytes (the native build's UWS_HTTP_MAX_HEADERS_SIZE). */
  maxHeaderBytes: number
}

class FallbackRequest {
  private params?: URLSearchParams

  constructor(private readonly req: IncomingMessage) {}

  /** The raw query, split off by hand: `new URL` throws on targets a client may send (`//x`, bare `%`). */
  private rawQuery(): string {
    const raw = this.req.url ?? '/'
    const q = raw.indexOf('?')
    return q < 0 ? '' : raw.slice(q + 1)
  }

  getHeader(lowerCaseName: string): string {
    const value = this.req.headers[lowerCaseName]
    return Array.isArray(value) ? (value[0] ?? '') : (value ?? '')
  }

  getUrl(): string {
    const raw = this.req.url ?? '/'
    const q = raw.indexOf('?')
    return q < 0 ? raw : raw.slice(0, q)
  }

  getQuery(key?: string): string | undefined {
    if (key === undefined) return this.rawQuery()
    this.params ??= new URLSearchParams(this.rawQuery())
    return this.params.get(key) ?? undefined
  }

  getMethod(): string {
    return (this.req.method ?? 'GET').toLowerCase()
  }

  getCaseSensitiveMethod(): string {
    return this.req.method ?? 'GET'
  }

  forEach(visit: (name: string, value: string) => void): void {
    const raw = this.req.rawHeaders
    for (let i = 0; i + 1 < raw.length; i += 2) visit(raw[i].toLowerCase(), raw[i + 1])
  }
}

class FallbackResponse {
  aborted?: boolean
  private abortHandler?: () => void
  private dataHandler?: (chunk: ArrayBuffer, isLast: boolean) => void
  private writableHandler?: (offset: number) => boolean
  private written = 0

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    req.on('data', (chunk: Buffer) => this.dataHandler?.(toArrayBuffer(chunk), false))
    req.on('end', () => this.dataHandler?.(new ArrayBuffer(0), true))
    res.on('close', () => {
      if (!res.writableFinished) this.abortHandler?.()
    })
    res.on('drain', () => {
      if (this.writableHandler?.(this.written)) this.writableHandler = undefined
    })
  }

  onAborted(handler: () => void): this {
    this.abortHandler = handler
    return this
  }

  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): this {
    this.dataHandler = handler
    return this
  }

  onWritable(handler: (offset: number) => boolean): this {
    this.writableHandler = handler
    return this
  }

  cork(run: () => void): this {
    // Not ServerResponse.cork: on Node 22 a write that fills the buffer while corked is never followed by 'drain'.
    run()
    return this
  }

  writeStatus(line: string): this {
    this.res.statusCode = Number.parseInt(line, 10)
    return this
  }

  writeHeader(name: string, value: string): this {
    this.res.appendHeader(name, value)
    return this
  }

  write(chunk: string | Uint8Array | ArrayBuffer): boolean {
    const bytes = toBytes(chunk)
    this.written += bytes.byteLength
    return this.res.write(bytes)
  }

  end(body: string | Uint8Array | ArrayBuffer = ''): this {
    this.res.end(toBytes(body))
    return this
  }

  endWithoutBody(): this {
    this.res.end()
    return this
  }

  close(): this {
    this.res.destroy()
    return this
  }

  getRemoteAddressAsText(): ArrayBuffer {
    return toArrayBuffer(Buffer.from(this.req.socket.remoteAddress ?? ''))
  }
}

function toBytes(chunk: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof chunk === 'string') return Buffer.from(chunk)
  return chunk instanceof Uint8Array ? chunk : new Uint8Array(chunk)
}

function toArrayBuffer(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
}

/** `/*` matches every path; anything else matches exactly. */
function matches(route: Route, method: string, path: string): boolean {
  return (route.method === 'any' || route.method === method) && (route.pattern === '/*' || route.pattern === path)
}

/** A parse error gets the service's JSON error, as far as the socket still takes one. */
function refuseMalformed(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) return void socket.destroy()
  const hint = error.code === 'HPE_HEADER_OVERFLOW' ? 'The request head is larger than the server accepts.' : 'The request is not valid HTTP/1.1.'
  const body = JSON.stringify(errorBody('invalid_request', { hint }))
  socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
}

function createApp(options: FallbackOptions) {
  const routes: Route[] = []
  const on = (method: string) => (pattern: string, handler: Handler) => {
    routes.push({ method, pattern, handler })
    return app
  }
  const dispatch = (req: IncomingMessage, res: ServerResponse) => {
    const method = (req.method ?? 'GET').toLowerCase()
    const request = new FallbackRequest(req)
    const path = request.getUrl()
    // Exact routes before wildcards, then the method-specific before `any`, as uWebSockets.js orders them.
    const route =
      routes.find((r) => r.pattern !== '/*' && matches(r, method, path)) ??
      routes.find((r) => r.method !== 'any' && matches(r, method, path)) ??
      routes.find((r) => matches(r, method, path))
    if (!route) return void res.writeHead(404).end()
    try {
      route.handler(new FallbackResponse(req, res), request)
    } catch (error) {
      // The front's handlers answer their own faults (src/front/safe.ts); this is the adapter's last guard.
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify(errorBody('internal_error')))
      else res.destroy(error as Error)
    }
  }
  const app = {
    get: on('get'),
    post: on('post'),
    options: on('options'),
    any: on('any'),
    listen(host: string, port: number, ready: (socket: Server | false) => void) {
      // No Host is served, not answered with node:http's bare-text 400: uWebSockets.js does not route on Host either.
      const server = createServer({ maxHeaderSize: options.maxHeaderBytes, keepAliveTimeout: 10_000, requireHostHeader: false }, dispatch)
      server.on('clientError', refuseMalformed)
      // node:http answers an Expect it does not know with 417 by itself; uWebSockets.js serves the request.
      server.on('checkExpectation', dispatch)
      server.once('error', () => ready(false))
      server.listen({ host, port, reusePort: true }, () => ready(server))
      return app
    },
  }
  return app
}

/** The fallback, shaped as the parts of the uWebSockets.js module the front calls. */
export function fallbackUws(options: FallbackOptions): typeof Uws {
  const module = {
    App: () => createApp(options),
    us_socket_local_port: (server: Server) => {
      const address = server.address()
      return typeof address === 'object' && address ? address.port : -1
    },
    us_listen_socket_close: (server: Server) => void server.close(),
  }
  // Only the members above are called (src/front); the cast states that contract.
  return module as unknown as typeof Uws
}
