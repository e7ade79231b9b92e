/** Bodies of an exact size and the checks the byte-cap tests share. */
import type { Test } from 'tap'
import type { Cluster } from './cluster.js'
import { get, meta, postChunk, type Answer, type RawAnswer } from './http.js'
import { isIngestError } from './ingest.js'

/** A raw JSON chunk of exactly `size` bytes: `[` then white space. */
export function chunkOfSize(size: number): Buffer {
  const body = Buffer.alloc(size, 0x20)
  body[0] = 0x5b
  return body
}

/** A valid signals batch of exactly `size` bytes, padded with trailing white space. */
export function signalsOfSize(size: number, sk = 'capped'): Buffer {
  const json = Buffer.from(JSON.stringify({ sk, vid: 'v', clicks: [{ url: '/', ts: 1, xRatio: 0.5, yDoc: 1 }] }))
  return Buffer.concat([json, Buffer.alloc(size - json.byteLength, 0x20)])
}

export function is413(t: Test, answer: Answer | RawAnswer, what: string): void {
  isIngestError(t, answer, 413, 'payload_too_large', what)
}

/** After a 413: the front still answers, on a new connection, and still stores. */
export async function stillServes(t: Test, cluster: Cluster, pk: string, seq: number): Promise<void> {
  t.equal((await get(cluster.url, '/health')).status, 200, 'health answers 200 after the 413')
  t.same((await postChunk(cluster.url, { pk, meta: meta({ sk: 'after', seq }) })).json, { ok: true }, 'a valid chunk is accepted after the 413')
}

export const ingestPath = (pk: string) => `/api/v1/ingest?pk=${pk}`
export const signalsPath = (pk: string) => `/api/v1/signals?pk=${pk}`
