/**
 * The signals queue (contract, section 2, "Signals batch"): views, clicks and
 * errors wait here between flushes. Past the per-batch bounds entries are
 * dropped and counted; the count travels in the next batch's `dropped`. A
 * batch larger than the server's byte cap is split. At unload the batch goes
 * by sendBeacon (text/plain, no CORS preflight, survives the page).
 */
import { MAX_CLICKS, MAX_ERRORS, MAX_FOUND_PER_BATCH, MAX_VIEWS, SIGNALS_CAP_BYTES } from './config.js'
import type { RecordingLoss, SignalClick as ClickSignal, SignalConsole, SignalError as ErrorSignal, SignalRequest, SignalView as ViewSignal } from '../../src/schemas/types.js'
import { utf8 } from './compress.js'
import type { Guard } from './guard.js'
import type { Transport } from './transport.js'

// The entries' types are the server's schemas (type-only: nothing of the server reaches the bundle).
export type { SignalClick as ClickSignal, SignalError as ErrorSignal, SignalView as ViewSignal } from '../../src/schemas/types.js'

export interface SignalsContext {
  sk: string
  vid: string
  startedAt: number
}

export interface Signals {
  view(view: ViewSignal): void
  click(click: ClickSignal): void
  error(error: ErrorSignal): void
  /** A console error or warning, or a failed request, the recording holds (capture.js names each once): the first MAX_FOUND_PER_BATCH of each go with the next batch. */
  found(entry: SignalConsole | SignalRequest): void
  /** Reports a part of the recording that will not reach the service (chunks.ts, tracker.ts); it goes with the next batch. */
  lost(loss: RecordingLoss): void
  /** Sends what is queued; `unloading` uses sendBeacon. */
  flush(unloading?: boolean): void
  readonly dropped: number
}

interface Batch extends SignalsContext {
  /** The same on every resend of this batch: the server counts it once (issue 41). */
  batchId?: string
  dropped?: number
  views: ViewSignal[]
  clicks: ClickSignal[]
  errors: ErrorSignal[]
  console?: SignalConsole[]
  requests?: SignalRequest[]
  lost?: RecordingLoss[]
}

const count = (batch: Batch) => batch.views.length + batch.clicks.length + batch.errors.length

/** Under the cap by its length alone (a UTF-16 unit is at most 3 bytes of UTF-8), else counted: a Blob costs the page far more. */
const fits = (body: string) => body.length * 3 <= SIGNALS_CAP_BYTES || utf8(body).byteLength <= SIGNALS_CAP_BYTES

/** The batch's parts with their bodies, each stringified once: halved until a part fits the server's cap or holds one entry. */
function bodies(batch: Batch, nextBatchId: () => string): [Batch, string][] {
  const body = JSON.stringify({ ...batch, batchId: nextBatchId() })
  if (fits(body) || count(batch) <= 1) return [[batch, body]]
  const half = <T>(list: T[], first: boolean) => list.slice(first ? 0 : list.length >> 1, first ? list.length >> 1 : undefined)
  // What is not an entry (the dropped count, the loss reports, the search texts) goes with the first half only.
  const make = (first: boolean): Batch => ({
    ...batch,
    ...(first ? {} : { dropped: 0, lost: undefined, console: undefined, requests: undefined }),
    views: half(batch.views, first),
    clicks: half(batch.clicks, first),
    errors: half(batch.errors, first),
  })
  return [...bodies(make(true), nextBatchId), ...bodies(make(false), nextBatchId)]
}

/** A page's batches are `<this page's random prefix>.<n>`: unique within the session's key across its page loads. */
function batchIds(): () => string {
  const prefix = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => (b | 256).toString(16).slice(1)).join('')
  let next = 0
  return () => `${prefix}.${(next++).toString(36)}`
}

export function createSignals(transport: Transport, guard: Guard, context: () => SignalsContext): Signals {
  const nextBatchId = batchIds()
  let views: ViewSignal[] = []
  let clicks: ClickSignal[] = []
  let errors: ErrorSignal[] = []
  let lost: RecordingLoss[] = []
  let found: SignalConsole[] = []
  let failed: SignalRequest[] = []
  /** Dropped since the last batch that reached the server. */
  let dropped = 0
  let droppedTotal = 0

  /** `n` entries lost now, plus `carried` drops a lost batch was reporting (already in the total). */
  const lose = (n: number, carried = 0) => {
    dropped += n + carried
    droppedTotal += n
  }
  const add = <T>(list: T[], max: number, entry: T) => {
    if (list.length >= max) lose(1)
    else list.push(entry)
  }

  return {
    view: (view) => add(views, MAX_VIEWS, view),
    click: (click) => add(clicks, MAX_CLICKS, click),
    error: (error) => add(errors, MAX_ERRORS, error),
    found(entry) {
      const list: (SignalConsole | SignalRequest)[] = 'text' in entry ? found : failed
      if (list.length < MAX_FOUND_PER_BATCH) list.push(entry)
    },
    // The server keeps 20 reports per batch; a page losing more is broken anyway, and the count of dropped events says how much.
    lost: (loss) => void (lost.length < 20 && lost.push(loss)),
    flush(unloading = false) {
      if (transport.stopped || !(views.length + clicks.length + errors.length + lost.length + found.length + failed.length)) return
      const batch: Batch = { ...context(), views, clicks, errors }
      if (dropped) batch.dropped = dropped
      if (lost.length) batch.lost = lost
      if (found.length) batch.console = found
      if (failed.length) batch.requests = failed
      lost = []
      found = []
      failed = []
      views = []
      clicks = []
      errors = []
      dropped = 0
      for (const [part, body] of bodies(batch, nextBatchId)) {
        if (unloading) {
          if (!transport.beacon(body)) lose(count(part), part.dropped)
          continue
        }
        transport
          .send('signals', body)
          .then((outcome) => {
            // Lost after every retry: counted, and reported with the next batch.
            if (outcome !== 'ok') lose(count(part), part.dropped)
          })
          .catch(guard.fault)
      }
    },
    get dropped() {
      return droppedTotal
    },
  }
}
