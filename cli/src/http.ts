/**
 * HTTP over node:http and node:https. Not the global fetch: Node 18 prints an
 * ExperimentalWarning on its first use, and these streams let export and
 * update write what arrives without holding it all.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { CliError } from './errors.js'

export interface RequestOptions {
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  /** Idle time allowed between bytes, ms. */
  timeoutMs?: number
}

/** Opens a request and resolves with the response, its body not yet read. */
export function open(url: string, options: RequestOptions = {}): Promise<IncomingMessage> {
  const target = new URL(url)
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  const headers: Record<string, string> = { 'user-agent': 'svc-cli', ...options.headers }
  if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body))
  return new Promise((resolve, reject) => {
    const req = send(target, { method: options.method ?? 'GET', headers }, resolve)
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error('no answer within the time allowed')))
    req.on('error', (error) => reject(unreachable(url, error)))
    req.end(options.body)
  })
}

export function unreachable(url: string, error: Error): CliError {
  const reason = (error as NodeJS.ErrnoException).code ?? error.message
  return new CliError('network_error', `Cannot reach ${new URL(url).origin}: ${reason}.`, {
    hint: 'Check the address (--url or SVC_URL) and that the server is running.',
  })
}

/** Reads a whole response body; a connection that ends early rejects (Node emits `aborted`/error). */
export function readAll(res: IncomingMessage, url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    res.on('data', (chunk: Buffer) => chunks.push(chunk))
    res.on('aborted', () => reject(truncated(url)))
    res.on('error', () => reject(truncated(url)))
    // A connection dropped mid-body may only say so by closing before the message completed.
    res.on('close', () => {
      if (!res.complete) reject(truncated(url))
    })
    res.on('end', () => {
      const body = Buffer.concat(chunks)
      const declared = Number(res.headers['content-length'])
      if (res.headers['content-length'] !== undefined && body.length !== declared) return reject(truncated(url))
      resolve(body)
    })
  })
}

export function truncated(url: string): CliError {
  return new CliError('download_incomplete', `The answer from ${url} ended before it was complete.`, { hint: 'Retry; if it keeps happening, check the network or the server log.' })
}
