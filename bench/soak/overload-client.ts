/**
 * The overload scenario's load generator, a process of its own so that it can
 * be pinned to another core than the cluster (taskset). Runs autocannon with
 * a fresh (sk, seq) per request, notes which were acknowledged and how long
 * each acknowledgement took, and writes it all as JSON to the output file.
 *
 * Arguments: url pk connections seconds outFile
 */
import { writeFileSync } from 'node:fs'
import autocannon, { type Request } from 'autocannon'
import { chunkBody, chunkMeta } from '../payloads.js'

interface Context {
  sk?: string
  seq?: number
  sentAt?: number
}

const [url, pk, connections, seconds, outFile] = process.argv.slice(2)
const body = chunkBody()
const tag = `o${process.pid}`
let n = 0
const acked: [string, number][] = []
const ackMs: number[] = []
const codes: Record<string, number> = {}
let retryAfterMissing = 0

const request: Request & { onResponse: (status: number, body: string, context: Context, headers: Record<string, string>) => void } = {
  method: 'POST',
  path: `/api/v1/ingest?pk=${pk}`,
  headers: { 'content-type': 'application/octet-stream' },
  body,
  setupRequest(req, context: Context) {
    const meta = chunkMeta(tag, n++)
    const parsed = JSON.parse(meta) as { sk: string; seq: number }
    context.sk = parsed.sk
    context.seq = parsed.seq
    context.sentAt = performance.now()
    return { ...req, headers: { ...req.headers, 'x-svc-meta': meta } }
  },
  onResponse(status, text, context, headers) {
    let code = String(status)
    try {
      const json = JSON.parse(text) as { ok?: boolean; code?: string }
      if (json.code) code = `${status} ${json.code}`
      if (status === 200 && json.ok === true && context.sk !== undefined) {
        acked.push([context.sk, context.seq!])
        ackMs.push(performance.now() - context.sentAt!)
      }
    } catch {
      code = `${status} (not JSON)`
    }
    if (status === 429 && !Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after')) retryAfterMissing += 1
    codes[code] = (codes[code] ?? 0) + 1
  },
}

const result = await autocannon({ url, connections: Number(connections), duration: Number(seconds), pipelining: 1, timeout: 20, requests: [request] })
writeFileSync(
  outFile,
  JSON.stringify({
    bodyBytes: body.byteLength,
    duration: result.duration,
    sent: result.requests.sent,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    latencyMax: result.latency.max,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
    codes,
    retryAfterMissing,
    acked,
    ackMs,
  }),
)
