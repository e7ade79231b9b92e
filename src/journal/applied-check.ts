/**
 * Every ingest message this node applied, checked against the stream's
 * leader in the background. A replica that diverged under a partition can
 * hold, at a sequence, another message than the leader: one the leader keeps
 * elsewhere (diverged.ts repairs that when the item is met again), or, after
 * a gap, every later message one place early, where no item is ever met twice
 * (the chaos harness saw both: bench/RESULTS.md, "Chaos"). The check compares
 * each applied message's seal tag with the leader's message at the same
 * sequence; where they differ, the leader's message is applied there: the
 * items this node lacks are stored, and those it holds at another place move
 * to the leader's (the store moves a record met again elsewhere).
 *
 * The check reads each message again from the leader, so it runs under a
 * budget (messages and bytes a second); past what it can keep up with, the
 * oldest unchecked positions are dropped and counted, never queued without end.
 */
import { log } from '../log.js'
import { metrics } from '../metrics/registry.js'
import type { Store } from '../store/store.js'
import { applyAtPlace, itemsAt } from './diverged.js'
import type { Log, LogEntry } from './log.js'

/** The seal's tag (AES-GCM, the last 16 bytes: seal.ts) names a message's bytes; differing messages differ there. */
const TAG_BYTES = 16

export interface AppliedCheckOptions {
  store: Pick<Store, 'appendBatch'>
  log: Pick<Log, 'getFromLeader'>
  open(stream: string, seq: number, data: Uint8Array): Uint8Array | undefined
  chunkBytesInLog: boolean
  /**
   * The control stream: its entries apply in order, each changing what the next one finds, so one applied out of
   * place is not applied again here; it is counted and logged, for the operator to rebuild the node.
   */
  control?: string
  /** How often the check runs, ms. */
  periodMs?: number
  /** Leader reads per period at most. */
  readsPerPeriod?: number
  /** Bytes read from leaders per period at most (a message past it still gets read alone). */
  bytesPerPeriod?: number
  /** Unchecked positions held per stream at most; older ones are dropped. */
  maxPending?: number
}

export class AppliedCheck {
  /** Per stream, the tag of each applied message not yet checked, in sequence order. */
  private readonly pending = new Map<string, Map<number, Buffer>>()
  private timer?: NodeJS.Timeout
  private running?: Promise<unknown>

  constructor(private readonly options: AppliedCheckOptions) {}

  start(): void {
    const round = () =>
      this.round()
        // The store closed for a compaction, or failed: the positions stay pending for the next round.
        .catch((error: unknown) => log.warn('checking applied log messages against the leader failed; trying again', { error: String(error) }))
        .finally(() => (this.running = undefined))
    this.timer = setInterval(() => void (this.running ??= round()), this.options.periodMs ?? 250)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.running
  }

  /** The messages a batch applied at their sequences: checked later. */
  noteApplied(stream: string, entries: LogEntry[]): void {
    let held = this.pending.get(stream)
    if (!held) this.pending.set(stream, (held = new Map()))
    for (const entry of entries) {
      if (entry.data.byteLength < TAG_BYTES) continue
      held.set(entry.seq, Buffer.from(entry.data.subarray(entry.data.byteLength - TAG_BYTES)))
    }
    const max = this.options.maxPending ?? 20_000
    if (held.size <= max) return
    let dropped = 0
    for (const seq of held.keys()) {
      if (held.size <= max) break
      held.delete(seq)
      dropped++
    }
    metrics.journalUnchecked.inc(dropped)
  }

  /** Checks the oldest pending positions of every stream, in turns, within one period's budget. Answers the places repaired. */
  async round(): Promise<number> {
    let reads = this.options.readsPerPeriod ?? 25
    let bytes = this.options.bytesPerPeriod ?? 2 * 1024 * 1024
    let repaired = 0
    const streams = [...this.pending.keys()]
    while (reads > 0 && bytes > 0) {
      let any = false
      for (const stream of streams) {
        const held = this.pending.get(stream)!
        const next = held.entries().next()
        if (next.done) continue
        any = true
        const [seq, tag] = next.value
        let leader: Uint8Array | undefined
        try {
          leader = await this.options.log.getFromLeader(stream, seq)
        } catch {
          // No leader to ask now (a partition): the position stays pending for the next round.
          return repaired
        }
        reads--
        bytes -= leader?.byteLength ?? 0
        // Gone from the leader (an erasure rewrote it elsewhere, or it expired): nothing to compare.
        const differs = leader && !(leader.byteLength >= TAG_BYTES && Buffer.from(leader.subarray(leader.byteLength - TAG_BYTES)).equals(tag))
        if (differs && stream === this.options.control) this.controlDiverged(stream, seq)
        else if (differs && leader) repaired += await this.applyLeaders(stream, seq, leader)
        held.delete(seq)
        metrics.journalChecked.inc()
        if (reads <= 0 || bytes <= 0) break
      }
      if (!any) break
    }
    return repaired
  }

  private controlDiverged(stream: string, seq: number): void {
    metrics.journalControlDiverged.inc()
    log.error("a control entry this node applied is not the leader's at its place: this node's accounts and settings may differ from the others'; rebuild it from the log (docs/cluster-mode.md)", { stream, seq })
  }

  private async applyLeaders(stream: string, seq: number, data: Uint8Array): Promise<number> {
    const plain = this.options.open(stream, seq, data)
    if (!plain) return 0
    await applyAtPlace(this.options.store, stream, seq, itemsAt(stream, seq, plain, this.options.chunkBytesInLog))
    return 1
  }
}
