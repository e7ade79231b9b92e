/** Calls control-plane operations of a running cluster the way a client does: POST, JSON, bearer credential. */
export interface ApiAnswer {
  status: number
  headers: Headers
  body: any
}

export interface CallOptions {
  token?: string
  /** Sent as JSON; absent sends no body. */
  body?: unknown
  /** Raw Authorization header (overrides token). */
  authorization?: string
  method?: string
  prefix?: '/api/v1' | '/api'
}

export async function call(baseUrl: string, route: string, options: CallOptions = {}): Promise<ApiAnswer> {
  const headers: Record<string, string> = {}
  if (options.authorization !== undefined) headers.authorization = options.authorization
  else if (options.token) headers.authorization = `Bearer ${options.token}`
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${baseUrl}${options.prefix ?? '/api/v1'}${route}`, {
    method: options.method ?? 'POST',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  })
  const text = await res.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  return { status: res.status, headers: res.headers, body }
}

/** Posts one small valid JSON chunk for session `sk` to the project with public key `pk`. */
export async function ingestChunk(baseUrl: string, pk: string, sk: string, seq = 0): Promise<number> {
  const meta = { sk, vid: `v-${sk}`, seq, pageIndex: 0, url: 'https://shop.test/', firstTs: Date.now(), lastTs: Date.now(), eventCount: 1, encoding: 'json', startedAt: Date.now() }
  const res = await fetch(`${baseUrl}/api/ingest?pk=${pk}`, {
    method: 'POST',
    headers: { 'x-svc-meta': JSON.stringify(meta), 'content-type': 'application/octet-stream' },
    body: JSON.stringify([{ type: 4, timestamp: Date.now(), data: {} }]),
  })
  await res.text()
  return res.status
}
