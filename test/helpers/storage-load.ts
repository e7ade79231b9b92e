/**
 * A generator of recordings through the real ingest path, for the disk
 * budget's test and its soak (bench/storage-budget.ts): whole sessions of
 * incompressible chunks, spread over projects by weight, a few writers at
 * once; and a sampler of the store's files on disk while it runs.
 */
import { randomBytes } from 'node:crypto'
import { statSync } from 'node:fs'
import { join } from 'node:path'

export interface LoadOptions {
  url: string
  /** Public keys and their share of the sessions. */
  projects: { pk: string; weight: number }[]
  totalBytes: number
  chunkBytes: number
  chunksPerSession: number
  writers: number
  /** What each chunk spans in the recording's own time, ms (the recorded minutes /metrics divides by). */
  chunkSpanMs?: number
  /** Told the bytes written so far after each chunk. */
  onWritten?: (bytes: number) => void
}

export interface WrittenSession {
  pk: string
  sk: string
  chunks: number
  /** Order in which the session's last chunk was acknowledged. */
  doneAt: number
}

export interface LoadResult {
  sessions: WrittenSession[]
  /** Answers by HTTP status, 429 retries included. */
  statuses: Record<number, number>
  bytes: number
}

/** A gzip-framed body (the ingest path checks the magic bytes, never decompresses): the rest random, so nothing shrinks it. */
function chunkBody(bytes: number): Uint8Array<ArrayBuffer> {
  const body = new Uint8Array(bytes)
  randomBytes(bytes).copy(body)
  body[0] = 0x1f
  body[1] = 0x8b
  body[2] = 8
  return body
}

export async function writeRecordings(options: LoadOptions): Promise<LoadResult> {
  const { url, projects, totalBytes, chunkBytes, chunksPerSession, writers } = options
  const span = options.chunkSpanMs ?? 10_000
  const sessionCount = Math.ceil(totalBytes / (chunkBytes * chunksPerSession))
  const weights = projects.reduce((sum, p) => sum + p.weight, 0)
  const result: LoadResult = { sessions: [], statuses: {}, bytes: 0 }
  let next = 0
  let finished = 0
  // Session i goes to the project its position in the weights falls on: spread evenly, never bunched.
  const projectOf = (i: number) => {
    let at = ((i * 0.6180339887) % 1) * weights
    for (const p of projects) if ((at -= p.weight) < 0) return p.pk
    return projects[projects.length - 1].pk
  }
  const post = async (pk: string, meta: object, body: Uint8Array<ArrayBuffer>) => {
    for (;;) {
      const res = await fetch(`${url}/api/ingest?pk=${pk}`, { method: 'POST', headers: { 'x-svc-meta': JSON.stringify(meta), 'content-type': 'application/octet-stream' }, body })
      await res.arrayBuffer()
      result.statuses[res.status] = (result.statuses[res.status] ?? 0) + 1
      // 429: the front's queue is full; the tracker comes back later, so does this.
      if (res.status !== 429) return res.status
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const writer = async () => {
    for (let i = next++; i < sessionCount; i = next++) {
      const pk = projectOf(i)
      const sk = `s${String(i).padStart(6, '0')}-${randomBytes(4).toString('hex')}`
      const started = Date.now()
      let stored = 0
      for (let seq = 0; seq < chunksPerSession; seq++) {
        const meta = { sk, vid: `v-${sk}`, seq, pageIndex: 0, url: 'https://shop.test/', firstTs: started + seq * span, lastTs: started + (seq + 1) * span, eventCount: 10, encoding: 'gzip', startedAt: started }
        if ((await post(pk, meta, chunkBody(chunkBytes))) === 200) stored += 1
        result.bytes += chunkBytes
        options.onWritten?.(result.bytes)
      }
      result.sessions.push({ pk, sk, chunks: stored, doneAt: finished++ })
    }
  }
  await Promise.all(Array.from({ length: writers }, writer))
  return result
}

/** Bytes of the store's data files (both LMDB environments) as the file system reports them, and blocks actually allocated. */
export function storeFileBytes(dataDir: string): { size: number; allocated: number } {
  let size = 0
  let allocated = 0
  for (const file of [join(dataDir, 'data.mdb'), join(dataDir, 'aggregates', 'data.mdb')]) {
    try {
      const stat = statSync(file)
      size += stat.size
      allocated += stat.blocks * 512
    } catch {
      // Not created yet.
    }
  }
  return { size, allocated }
}

/** Samples storeFileBytes every `everyMs` until stopped; keeps the peak, and `onSample` sees each sample. */
export function sampleStoreFiles(dataDir: string, everyMs = 50, onSample?: (size: number) => void) {
  const peak = { size: 0, allocated: 0 }
  const sample = () => {
    const now = storeFileBytes(dataDir)
    peak.size = Math.max(peak.size, now.size)
    peak.allocated = Math.max(peak.allocated, now.allocated)
    onSample?.(now.size)
  }
  const timer = setInterval(sample, everyMs)
  sample()
  return {
    peak,
    stop: () => {
      clearInterval(timer)
      sample()
      return peak
    },
  }
}
