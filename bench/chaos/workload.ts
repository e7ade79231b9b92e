/**
 * The chaos harness's clients: recording chunks, signals batches and control
 * writes (API keys created, then revoked) sent through every node in turn,
 * from a seeded generator, each request and its answer kept in a history
 * (one JSON line each) that the checker reads afterwards.
 */
import { createHash } from 'node:crypto'
import { createWriteStream, type WriteStream } from 'node:fs'
import { generator } from '../payloads.js'

export type Kind = 'chunk' | 'signals' | 'key.create' | 'key.revoke'

export interface Op {
  kind: Kind
  node: string
  at: number
  ms: number
  /** HTTP status, or 0 when no answer came (timeout, connection refused). */
  status: number
  /** chunk: session and seq and the body's digest; signals: its session and clicks; keys: the key. */
  sk?: string
  seq?: number
  sha?: string
  clicks?: number
  keyId?: string
  apiKey?: string
}

export interface Target {
  name: string
  url: string
}

const TIMEOUT_MS = 5_000

export const acknowledged = (op: Op) => op.status === 200

export class Workload {
  readonly history: Op[] = []
  private readonly out: WriteStream
  private readonly random: () => number
  private timers: NodeJS.Timeout[] = []
  private inFlight = new Set<Promise<void>>()
  private chunkSeq = new Map<string, number>()
  private batches = 0
  private controlTurn = 0
  /** Keys a revocation was sent for: each is revoked once. */
  private revoking = new Set<string>()

  constructor(
    private readonly nodes: Target[],
    private readonly project: { id: string; publicKey: string },
    private readonly ownerKey: string,
    historyFile: string,
    seed: number,
  ) {
    this.out = createWriteStream(historyFile)
    this.random = generator(seed)
  }

  private pick(): Target {
    return this.nodes[Math.floor(this.random() * this.nodes.length)]
  }

  private record(op: Op): void {
    this.history.push(op)
    this.out.write(`${JSON.stringify(op)}\n`)
  }

  private send(kind: Kind, node: Target, path: string, init: RequestInit, fill: (op: Op, body: unknown) => void): void {
    const at = Date.now()
    const done = fetch(`${node.url}/api/v1${path}`, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) })
      .then(async (res) => ({ status: res.status, body: await res.json().catch(() => undefined) }))
      .catch(() => ({ status: 0, body: undefined }))
      .then(({ status, body }) => {
        const op: Op = { kind, node: node.name, at, ms: Date.now() - at, status }
        fill(op, body)
        this.record(op)
      })
    this.inFlight.add(done)
    void done.finally(() => this.inFlight.delete(done))
  }

  private chunk(): void {
    const sk = `s${Math.floor(this.random() * 12)}`
    const seq = this.chunkSeq.get(sk) ?? 0
    this.chunkSeq.set(sk, seq + 1)
    const body = Buffer.from(JSON.stringify([{ type: 3, timestamp: Date.now(), data: { source: 0, text: `chunk ${sk}/${seq} ${this.random()}` } }]))
    const meta = { sk, seq, vid: `v-${sk}`, pageIndex: 0, url: 'https://shop.test/cart', eventCount: 1, encoding: 'json' }
    const sha = createHash('sha256').update(body).digest('hex')
    this.send('chunk', this.pick(), `/ingest?pk=${this.project.publicKey}`, { method: 'POST', headers: { 'x-svc-meta': JSON.stringify(meta), 'content-type': 'application/octet-stream' }, body }, (op) => Object.assign(op, { sk, seq, sha }))
  }

  private signals(): void {
    const sk = `b${this.batches++}`
    const clicks = 1 + Math.floor(this.random() * 3)
    const now = Date.now()
    const batch = { sk, vid: `v-${sk}`, clicks: Array.from({ length: clicks }, (_, i) => ({ url: 'https://shop.test/cart', ts: now + i, xRatio: 0.5, yDoc: 100, vw: 1280, selector: `#b${i}`, kind: 'rage', n: 3 })) }
    this.send('signals', this.pick(), `/signals?pk=${this.project.publicKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) }, (op) => Object.assign(op, { sk, clicks }))
  }

  /** Creates a key, or revokes the oldest acknowledged one not revoked yet, in turn. */
  private control(): void {
    const headers = { authorization: `Bearer ${this.ownerKey}`, 'content-type': 'application/json' }
    const revocable = this.history.find((op) => op.kind === 'key.create' && acknowledged(op) && !this.revoking.has(op.keyId!))
    if (this.controlTurn++ % 2 === 1 && revocable) {
      const keyId = revocable.keyId!
      this.revoking.add(keyId)
      this.send('key.revoke', this.pick(), '/cli/keys.revoke', { method: 'POST', headers, body: JSON.stringify({ keyId }) }, (op) => (op.keyId = keyId))
      return
    }
    this.send('key.create', this.pick(), '/cli/keys.create', { method: 'POST', headers, body: JSON.stringify({ label: `chaos ${this.controlTurn}` }) }, (op, body) => {
      const answer = body as { keyId?: string; apiKey?: string } | undefined
      Object.assign(op, { keyId: answer?.keyId, apiKey: answer?.apiKey })
    })
  }

  start(): void {
    this.timers = [setInterval(() => this.chunk(), 100), setInterval(() => this.signals(), 250), setInterval(() => this.control(), 1_000)]
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer)
    await Promise.all([...this.inFlight])
    await new Promise((resolve) => this.out.end(resolve))
  }
}
