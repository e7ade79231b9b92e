/**
 * How far a second node runs behind the log while the first takes the load:
 * twice a second, the log's last sequence of each recording stream (read
 * from NATS by this process) and the second node's
 * svc_journal_behind_entries (from its /metrics). Entries behind are the
 * node's gauge; seconds behind are how long ago the log's head stood where
 * the node has applied to (the head's samples, interpolated).
 */
import { NatsLog } from '../src/journal/nats-log.js'

export interface LagSample {
  /** Seconds since sampling started. */
  at: number
  /** Per stream: the log's last sequence, and the entries the node has not applied. */
  head: Record<string, number>
  behind: Record<string, number>
}

export interface ApplyLag {
  streams: string[]
  /** When the measured load started and ended, seconds on the samples' clock. */
  loadFrom: number
  loadTo: number
  samples: LagSample[]
  /** Over the measured load: the most entries behind (all streams together) and seconds behind (the worst stream). */
  maxEntries: number
  maxSeconds: number
  /** At the last sample of the load. */
  endEntries: number
  endSeconds: number
  /** Seconds after the load until the node had applied everything (undefined: not within the wait). */
  caughtUpAfter?: number
}

const PERIOD_MS = 500

async function behindOf(url: string, streams: string[]): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const behind: Record<string, number> = {}
  for (const line of text.split('\n')) {
    const match = /^svc_journal_behind_entries\{stream="([^"]+)"\} (\S+)$/.exec(line)
    if (match && streams.includes(match[1])) behind[match[1]] = Number(match[2])
  }
  return behind
}

/** Seconds since the head of `stream` first stood at `seq` or beyond, before sample `upTo` (interpolated between samples). */
function secondsBehind(samples: LagSample[], upTo: number, stream: string, seq: number): number {
  const now = samples[upTo]
  for (let i = 0; i <= upTo; i++) {
    if (samples[i].head[stream] < seq) continue
    if (i === 0) return now.at - samples[0].at
    const before = samples[i - 1]
    const rise = samples[i].head[stream] - before.head[stream]
    const reached = rise > 0 ? before.at + ((seq - before.head[stream]) / rise) * (samples[i].at - before.at) : samples[i].at
    return Math.max(0, now.at - reached)
  }
  return 0
}

export function sampleApplyLag(log: NatsLog, followerUrl: string, streams: string[]): { loadStarts(): void; loadEnds(): void; finish(waitMs: number): Promise<ApplyLag> } {
  const started = performance.now()
  const clock = () => (performance.now() - started) / 1000
  const samples: LagSample[] = []
  let loadFrom = 0
  let loadTo = 0
  let running = true
  const loop = (async () => {
    while (running) {
      const at = clock()
      const [heads, behind] = await Promise.all([log.heads(streams), behindOf(followerUrl, streams)]).catch(() => [undefined, undefined])
      if (heads && behind && streams.every((s) => s in behind)) samples.push({ at, head: Object.fromEntries(heads), behind })
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, PERIOD_MS - (clock() - at) * 1000)))
    }
  })()
  return {
    loadStarts: () => void (loadFrom = clock()),
    loadEnds: () => void (loadTo = clock()),
    async finish(waitMs) {
      const deadline = performance.now() + waitMs
      const total = (s: LagSample) => streams.reduce((sum, stream) => sum + s.behind[stream], 0)
      while (performance.now() < deadline && !(samples.length > 0 && samples[samples.length - 1].at > loadTo && total(samples[samples.length - 1]) === 0)) {
        await new Promise((resolve) => setTimeout(resolve, PERIOD_MS))
      }
      running = false
      await loop
      const during = samples.map((s, i) => ({ s, i })).filter(({ s }) => s.at >= loadFrom && s.at <= loadTo)
      const seconds = ({ s, i }: { s: LagSample; i: number }) => Math.max(...streams.map((stream) => secondsBehind(samples, i, stream, s.head[stream] - s.behind[stream] + 1)))
      const secondsOf = ({ s, i }: { s: LagSample; i: number }) => (total(s) === 0 ? 0 : seconds({ s, i }))
      const end = during[during.length - 1]
      // From the last sample of the load on: a node already at 0 then caught up when the load ended.
      const caught = samples.find((s) => s.at >= (end?.s.at ?? loadTo) && total(s) === 0)
      return {
        streams,
        loadFrom,
        loadTo,
        samples,
        maxEntries: Math.max(0, ...during.map(({ s }) => total(s))),
        maxSeconds: Math.max(0, ...during.map(secondsOf)),
        endEntries: end ? total(end.s) : 0,
        endSeconds: end ? secondsOf(end) : 0,
        caughtUpAfter: caught ? Math.max(0, caught.at - loadTo) : undefined,
      }
    },
  }
}
