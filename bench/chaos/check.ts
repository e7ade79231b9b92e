/**
 * The chaos harness's checker: once the faults are healed and the nodes have
 * caught up, what the history says was acknowledged against what every node
 * answers. Acknowledged chunks read back byte for byte from every node; an
 * acknowledged key works on every node unless an acknowledged revocation
 * came after it, then it is refused everywhere; the friction feed and the
 * session count are the same on every node; no signals batch is counted
 * twice (a batch's friction items are its clicks, or none when it was never
 * acknowledged). Unavailability: per node, the longest stretch of the fault
 * window in which its requests failed.
 */
import { createHash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { acknowledged, type Op, type Target } from './workload.js'
import { CHAOS_METRICS_TOKEN } from './processes.js'

export interface Verdict {
  chunksAcknowledged: number
  chunksLost: number
  chunksCorrupt: number
  controlAcknowledged: number
  controlMissing: number
  readModelsIdentical: boolean
  /** Batches whose friction items exceed their clicks, on the node with the most. */
  doubleApplied: number
  /** Acknowledged batches missing from a node's friction feed, on the node missing the most. */
  batchesLost: number
  /** Per node: log places where it had applied another message than the leader's, repaired; and applied messages checked against the leader. */
  repairs: Record<string, { repaired: number; checked: number; unchecked: number }>
  /** Per node: the longest run of failed requests inside the fault window, ms; and the share of requests that failed there. */
  unavailable: Record<string, { longestMs: number; failedShare: number }>
  notes: string[]
}

async function post(target: Target, token: string, route: string, body: unknown): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(`${target.url}/api/v1${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  }).catch(() => undefined)
  if (!res) return { status: 0, bytes: Buffer.alloc(0) }
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) }
}

interface FeedItem {
  sessionKey: string
  ts: number
  id: string
}

/** The whole friction feed of the project, page by page. */
async function feed(target: Target, token: string, projectId: string, range: { since: number; until: number }): Promise<FeedItem[] | undefined> {
  const items: FeedItem[] = []
  for (let cursor: string | undefined, pages = 0; pages < 500; pages++) {
    const answer = await post(target, token, '/cli/friction.list', { projectId, ...range, limit: 500, ...(cursor ? { cursor } : {}) })
    if (answer.status !== 200) return undefined
    const page = JSON.parse(answer.bytes.toString()) as { items: FeedItem[]; nextCursor?: string }
    items.push(...page.items.map(({ sessionKey, ts, id }) => ({ sessionKey, ts, id })))
    cursor = page.nextCursor
    if (!cursor) return items
  }
  return items
}

/** What one node answers of the read models, as a comparable text; undefined when it does not answer. */
async function readModels(target: Target, token: string, projectId: string, range: { since: number; until: number }): Promise<string | undefined> {
  const count = await post(target, token, '/cli/sessions.count', { projectId })
  const items = await feed(target, token, projectId, range)
  if (count.status !== 200 || !items) return undefined
  return JSON.stringify({ count: JSON.parse(count.bytes.toString()), items })
}

/**
 * Waits until every node answers the same read models (they apply the log at their own pace), up to `timeoutMs`;
 * `differ` says what each node last answered when they never agreed.
 */
async function converged(nodes: Target[], token: string, projectId: string, range: { since: number; until: number }, timeoutMs: number): Promise<{ models?: string[]; differ?: string; last: (string | undefined)[] }> {
  const deadline = Date.now() + timeoutMs
  let last: (string | undefined)[] = []
  while (Date.now() < deadline) {
    last = await Promise.all(nodes.map((node) => readModels(node, token, projectId, range)))
    if (last.every((model) => model !== undefined && model === last[0])) return { models: last as string[], last }
    await sleep(1_000)
  }
  const summary = (model: string | undefined) => {
    if (!model) return 'no answer'
    const { count, items } = JSON.parse(model) as { count: unknown; items: FeedItem[] }
    return `sessions ${JSON.stringify(count)}, ${items.length} friction items`
  }
  return { differ: nodes.map((node, i) => `${node.name}: ${summary(last[i])}`).join('; '), last }
}

function unavailability(history: Op[], window: { from: number; to: number }): Verdict['unavailable'] {
  const out: Verdict['unavailable'] = {}
  for (const node of [...new Set(history.map((op) => op.node))].sort()) {
    const ops = history.filter((op) => op.node === node && op.at >= window.from && op.at < window.to).sort((a, b) => a.at - b.at)
    let longest = 0
    let since: number | undefined
    for (const op of ops) {
      // 429 (the log did not take it in time) and 5xx are a refusal; so is no answer at all.
      const failed = op.status === 0 || op.status === 429 || op.status >= 500
      if (failed) since ??= op.at
      else if (since !== undefined) {
        longest = Math.max(longest, op.at - since)
        since = undefined
      }
    }
    if (since !== undefined) longest = Math.max(longest, window.to - since)
    const failed = ops.filter((op) => op.status === 0 || op.status === 429 || op.status >= 500).length
    out[node] = { longestMs: longest, failedShare: ops.length ? failed / ops.length : 0 }
  }
  return out
}

export async function check(nodes: Target[], ownerKey: string, projectId: string, history: Op[], window: { from: number; to: number }): Promise<Verdict> {
  const notes: string[] = []
  const range = { since: Date.now() - 3_600_000, until: Date.now() + 3_600_000 }
  const { models, differ, last } = await converged(nodes, ownerKey, projectId, range, 120_000)
  if (!models) notes.push(`the nodes did not converge on the same read models within 120 s (${differ})`)

  let chunksLost = 0
  let chunksCorrupt = 0
  const chunks = history.filter((op) => op.kind === 'chunk' && acknowledged(op))
  let chunkReadsRetried = 0
  // A node that answers none of three chunks in a row, each asked for 20 s, is not asked for the rest: counted, not waited for.
  const failing = new Map<string, number>()
  let skipped = 0
  for (const op of chunks) {
    for (const node of nodes) {
      if ((failing.get(node.name) ?? 0) >= 3) {
        skipped++
        chunksLost++
        continue
      }
      // An answer other than the bytes is asked again for 20 s: a node just healed may be unavailable (5xx) or
      // behind (404) for a moment; lost is what no node gives back after that.
      let answer = await post(node, ownerKey, '/cli/sessions.chunk', { projectId, sessionKey: op.sk, seq: op.seq })
      for (let tries = 0; answer.status !== 200 && tries < 20; tries++) {
        chunkReadsRetried++
        await sleep(1_000)
        answer = await post(node, ownerKey, '/cli/sessions.chunk', { projectId, sessionKey: op.sk, seq: op.seq })
      }
      failing.set(node.name, answer.status === 200 ? 0 : (failing.get(node.name) ?? 0) + 1)
      if (answer.status !== 200) chunksLost++
      else if (createHash('sha256').update(answer.bytes).digest('hex') !== op.sha) chunksCorrupt++
    }
  }
  for (const [node, misses] of failing) if (misses >= 3) notes.push(`${node} answered no chunk read after the heal (the last answer not 200 after 20 s each): ${skipped} reads not made, counted as lost`)
  if (chunkReadsRetried > 0) notes.push(`${chunkReadsRetried} chunk reads were asked again (the node answered 5xx or 404 at first)`)

  // A key's last acknowledged change decides; one whose revocation got no clear answer may go either way.
  let controlMissing = 0
  const created = history.filter((op) => op.kind === 'key.create' && acknowledged(op))
  for (const op of created) {
    const revocations = history.filter((r) => r.kind === 'key.revoke' && r.keyId === op.keyId)
    const revoked = revocations.some(acknowledged)
    const unclear = !revoked && revocations.some((r) => r.status === 0 || r.status >= 500)
    for (const node of nodes) {
      const whoami = await post(node, op.apiKey!, '/cli/whoami', {})
      if (unclear) continue
      if (whoami.status !== (revoked ? 401 : 200)) controlMissing++
    }
  }
  const controlAcknowledged = created.length + history.filter((op) => op.kind === 'key.revoke' && acknowledged(op)).length

  // Counted on every node's own feed, agreeing or not: a node that lost a batch, or applied one twice, is what differs.
  let doubleApplied = 0
  let batchesLost = 0
  last.forEach((model, i) => {
    if (!model) return
    const perSession = new Map<string, number>()
    for (const item of (JSON.parse(model) as { items: FeedItem[] }).items) perSession.set(item.sessionKey, (perSession.get(item.sessionKey) ?? 0) + 1)
    let lost = 0
    let doubled = 0
    for (const op of history.filter((o) => o.kind === 'signals')) {
      const counted = perSession.get(op.sk!) ?? 0
      if (counted > op.clicks!) doubled++
      if (acknowledged(op) && counted < op.clicks!) lost++
    }
    if (lost || doubled) notes.push(`${nodes[i].name}: ${lost} acknowledged batches missing from its friction feed, ${doubled} applied twice`)
    batchesLost = Math.max(batchesLost, lost)
    doubleApplied = Math.max(doubleApplied, doubled)
  })
  const repairs: Verdict['repairs'] = {}
  for (const node of nodes) repairs[node.name] = await logRepairs(node)
  return {
    repairs,
    chunksAcknowledged: chunks.length,
    chunksLost,
    chunksCorrupt,
    controlAcknowledged,
    controlMissing,
    readModelsIdentical: models !== undefined,
    doubleApplied,
    batchesLost,
    unavailable: unavailability(history, window),
    notes,
  }
}

/** The node's counters of its log's repairs (src/journal/diverged.ts, applied-check.ts), from its /metrics. */
async function logRepairs(node: Target): Promise<Verdict['repairs'][string]> {
  const scrape = await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${CHAOS_METRICS_TOKEN}` }, signal: AbortSignal.timeout(10_000) })
    .then((res) => res.text())
    .catch(() => '')
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(scrape)?.[1] ?? NaN)
  return { repaired: value('svc_journal_diverged_total'), checked: value('svc_journal_checked_total'), unchecked: value('svc_journal_unchecked_total') }
}
