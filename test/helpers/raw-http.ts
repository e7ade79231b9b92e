/**
 * One request of exact bytes over its own TCP connection, and what came of
 * it: an HTTP answer (status, and the body when it is delimited), the server
 * closing without one, or nothing before the deadline. For requests a
 * ordinary client cannot send: bytes HTTP forbids, parser refusals, fuzz.
 */
import { connect } from 'node:net'
import { parseJson, responseHead } from './http.js'

export type Outcome =
  | { kind: 'answer'; status: number; headers: Record<string, string>; text: string; json: any; ms: number }
  | { kind: 'closed'; reset: boolean; ms: number }
  | { kind: 'timeout'; ms: number }

export interface ExchangeOptions {
  /** Give up after this long with `timeout` (default 5 s). */
  timeoutMs?: number
  /** Half-close after writing: a server that holds a request it cannot parse then closes at once. */
  endAfterWrite?: boolean
  /** Resolve on the head alone (the status is all the caller needs). */
  headOnly?: boolean
}

export function exchange(port: number, bytes: Buffer | string, options: ExchangeOptions = {}): Promise<Outcome> {
  const started = performance.now()
  const ms = () => performance.now() - started
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    let buffered = Buffer.alloc(0)
    let settled = false
    const finish = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(outcome)
    }
    const timer = setTimeout(() => finish({ kind: 'timeout', ms: ms() }), options.timeoutMs ?? 5_000)
    const answer = (complete: boolean) => {
      const head = responseHead(buffered)
      if (!head) return
      const { end, status, headers } = head
      const body = buffered.subarray(end + 4)
      const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length'])
      const delimited = length !== undefined ? body.byteLength >= length : headers['transfer-encoding'] === 'chunked' ? body.includes('0\r\n\r\n') : false
      if (!options.headOnly && !delimited && !complete) return
      const text = body.subarray(0, length ?? body.byteLength).toString('utf8')
      finish({ kind: 'answer', status, headers, text, json: parseJson(text), ms: ms() })
    }
    socket.on('data', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data])
      answer(false)
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      answer(true)
      finish({ kind: 'closed', reset: error.code === 'ECONNRESET' || error.code === 'EPIPE', ms: ms() })
    })
    socket.on('close', () => {
      answer(true)
      finish({ kind: 'closed', reset: false, ms: ms() })
    })
    socket.on('connect', () => {
      socket.write(bytes)
      if (options.endAfterWrite) socket.end()
    })
  })
}

/** A request head with exact header lines, for the raw clients. */
export function rawHead(requestLine: string, lines: string[]): string {
  return `${requestLine}\r\n${lines.map((line) => `${line}\r\n`).join('')}\r\n`
}

/** What came back for requests written back to back on one connection: the answers in order, and how the exchange ended. */
export interface Pipelined {
  answers: { status: number; headers: Record<string, string>; text: string; json: any }[]
  /** `complete`: as many answers as requests; otherwise what cut the exchange short. */
  end: 'complete' | 'closed' | 'reset' | 'timeout'
}

/**
 * Writes several requests in one write (one TCP segment on loopback, as a
 * pipelining client sends them) and reads answers until `count` have come,
 * the server closes, or the deadline passes. Answers must carry a
 * Content-Length (every answer of the front does).
 */
export function pipelined(port: number, bytes: Buffer | string, count: number, timeoutMs = 5_000): Promise<Pipelined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    const answers: Pipelined['answers'] = []
    let buffered = Buffer.alloc(0)
    let settled = false
    const finish = (end: Pipelined['end']) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ answers, end })
    }
    const timer = setTimeout(() => finish('timeout'), timeoutMs)
    socket.on('data', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data])
      for (;;) {
        const head = responseHead(buffered)
        if (!head) return
        const { end, status, headers } = head
        const length = Number(headers['content-length'] ?? 0)
        if (buffered.byteLength < end + 4 + length) return
        const text = buffered.subarray(end + 4, end + 4 + length).toString('utf8')
        answers.push({ status, headers, text, json: parseJson(text) })
        buffered = buffered.subarray(end + 4 + length)
        if (answers.length === count) return finish('complete')
      }
    })
    socket.on('error', (error: NodeJS.ErrnoException) => finish(error.code === 'ECONNRESET' ? 'reset' : 'closed'))
    socket.on('close', () => finish('closed'))
    socket.on('connect', () => socket.write(bytes))
  })
}
