/**
 * Proof that an oversize body is answered before its bytes are read, on a
 * raw socket (autocannon writes the whole request at once, so it cannot show
 * this):
 * - declared: headers announce 2 MB and not one body byte follows; the 413
 *   must come back anyway, and the socket still holds every byte unsent.
 * - chunked: no content-length; the client sends one byte over the cap and
 *   then waits without finishing the body; the 413 must come back at the cap,
 *   not at the end of the body.
 */
import { connect } from 'node:net'

export interface ProbeResult {
  name: string
  status: number
  /** Time from the first byte sent to the whole answer received, ms. */
  ms: number
  /** Body bytes the client had sent when the answer came. */
  bodyBytesSent: number
  /** Body bytes the request announced or would have sent in all. */
  bodyBytesTotal: number
  answer: string
}

function probe(name: string, port: number, head: string, firstBody: Buffer, total: number): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let started = 0
    let received = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`${name}: no answer within 10 s`))
    }, 10_000)
    socket.on('connect', () => {
      started = performance.now()
      socket.write(head)
      if (firstBody.byteLength > 0) socket.write(firstBody)
    })
    socket.on('data', (data) => {
      received += data.toString('latin1')
      const headEnd = received.indexOf('\r\n\r\n')
      if (headEnd < 0) return
      const length = Number(/content-length: *(\d+)/i.exec(received.slice(0, headEnd))?.[1] ?? 0)
      if (received.length < headEnd + 4 + length) return
      clearTimeout(timer)
      const ms = performance.now() - started
      socket.destroy()
      resolve({
        name,
        status: Number(received.slice(9, 12)),
        ms,
        bodyBytesSent: firstBody.byteLength,
        bodyBytesTotal: total,
        answer: received.slice(headEnd + 4),
      })
    })
    socket.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
  })
}

const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')

/** Headers announcing `oversizeBytes` and no body byte at all: only an answer from the declared length can come back. */
export function probeDeclared(port: number, path: string, headers: Record<string, string>, oversizeBytes: number): Promise<ProbeResult> {
  return probe(
    'declared content-length, no body byte sent',
    port,
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n${headerLines(headers)}Content-Length: ${oversizeBytes}\r\n\r\n`,
    Buffer.alloc(0),
    oversizeBytes,
  )
}

export async function probeOversize(
  port: number,
  path: string,
  headers: Record<string, string>,
  oversizeBytes: number,
  capBytes: number,
): Promise<ProbeResult[]> {
  const declared = await probeDeclared(port, path, headers, oversizeBytes)
  // One chunk one byte over the cap, then silence: the terminating chunk never comes.
  const over = capBytes + 1
  const chunked = await probe(
    'chunked, cap + 1 bytes sent, rest withheld',
    port,
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n${headerLines(headers)}Transfer-Encoding: chunked\r\n\r\n`,
    Buffer.concat([Buffer.from(`${over.toString(16)}\r\n`), Buffer.alloc(over, 0x61), Buffer.from('\r\n')]),
    oversizeBytes,
  )
  chunked.bodyBytesSent = over
  return [declared, chunked]
}
