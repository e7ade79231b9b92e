/**
 * What the read-API tests send and read: chunks and signal batches posted to
 * a running cluster as a tracker posts them, and answers read as raw bytes
 * (a chunk is compared byte for byte, a recording may be large).
 */
import type { ChunkMeta } from '../../src/store/store.js'

export async function postChunk(baseUrl: string, pk: string, meta: Partial<ChunkMeta> & { sk: string; seq: number }, body: Uint8Array): Promise<number> {
  const full = { vid: `v-${meta.sk}`, pageIndex: 0, url: 'https://shop.test/', eventCount: 1, encoding: 'json', ...meta }
  const res = await fetch(`${baseUrl}/api/v1/ingest?pk=${pk}`, {
    method: 'POST',
    headers: { 'x-svc-meta': JSON.stringify(full), 'content-type': 'application/octet-stream' },
    body: body as BodyInit,
  })
  await res.arrayBuffer()
  return res.status
}

export async function postSignals(baseUrl: string, pk: string, batch: Record<string, unknown>): Promise<number> {
  const res = await fetch(`${baseUrl}/api/v1/signals?pk=${pk}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) })
  await res.arrayBuffer()
  return res.status
}

export interface RawAnswer {
  status: number
  headers: Headers
  bytes: Buffer
}

/** POSTs a JSON body with an API key and reads the answer as bytes. */
export async function callRaw(baseUrl: string, route: string, token: string, body: unknown): Promise<RawAnswer> {
  const res = await fetch(`${baseUrl}/api/v1${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) }
}

/** rrweb-like events, numbered so that order can be checked. */
export function events(from: number, count: number, ts = 1_700_000_000_000): { type: number; timestamp: number; data: { n: number } }[] {
  return Array.from({ length: count }, (_, i) => ({ type: 3, timestamp: ts + from + i, data: { n: from + i } }))
}
