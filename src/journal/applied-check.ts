/**
 * Every log message this node applied, checked against the stream's leader
 * in the background. A replica that diverged under a partition can
 * hold, at a sequence, another message than the leader: one the leader keeps
 * elsewhere (diverged.ts repairs that when the item is met again), or, after
 * a gap, every later message one place early, where no item is ever met twice
 * (the chaos harness saw both: bench/RESULTS.md, "Chaos"). The check compares
 * each applied message's seal tag with the leader's message at the same
 * sequence; where they differ, and the leader answers the same again a moment
 * later, the leader's message is applied there: the items this node lacks are
 * stored, and those it holds at another place move to the leader's (the store
 * moves a record met again elsewhere).
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
  /** How long after a first different answer the leader is asked again, ms (CONFIRM_MS). */
  confirmMs?: number
}

/**
 * A difference is acted on only when the leader answers the same message again this much later: during an election
 * a server that still believes it leads can answer from a log the new leader will not keep.
 */
const CONFIRM_MS = 2_000
/** Answers that keep changing (a stream without a settled leader) are given up after this many, counted unchecked. */
const CONFIRM_TRIES = 10
const MAX_SUSPECTS = 10_000

interface Suspect {
  stream: string
  seq: number
  /** This node's message's tag, and the leader's at the last look. */
  tag: Buffer
  leaderTag: Buffer
  at: number
  tries: number
}

const tagOf = (data: Uint8Array) => Buffer.from(data.subarray(data.byteLength - TAG_BYTES))

export class AppliedCheck {
  /** Per stream, the tag of each applied message not yet checked, in sequence order. */
  private readonly pending = new Map<string, Map<number, Buffer>>()
  /** Places where the leader answered another message: looked at again CONFIRM_MS later. */
  private suspects: Suspect[] = []
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
      held.set(entry.seq, tagOf(entry.data))
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
  async round(now = Date.now()): Promise<number> {
    let reads = this.options.readsPerPeriod ?? 25
    let bytes = this.options.bytesPerPeriod ?? 2 * 1024 * 1024
    let repaired = 0
    // Suspects first: each is a read the leader already answered once differently.
    const due = this.suspects.filter((suspect) => now - suspect.at >= (this.options.confirmMs ?? CONFIRM_MS))
    for (const suspect of due) {
      if (reads <= 0 || bytes <= 0) return repaired
      let leader: Uint8Array | undefined
      try {
        leader = await this.options.log.getFromLeader(suspect.stream, suspect.seq)
      } catch {
        return repaired
      }
      reads--
      bytes -= leader?.byteLength ?? 0
      this.suspects.splice(this.suspects.indexOf(suspect), 1)
      if (!leader || leader.byteLength < TAG_BYTES || tagOf(leader).equals(suspect.tag)) continue
      if (tagOf(leader).equals(suspect.leaderTag)) {
        if (suspect.stream === this.options.control) this.controlDiverged(suspect.stream, suspect.seq)
        else repaired += await this.applyLeaders(suspect.stream, suspect.seq, leader)
      } else if (suspect.tries + 1 < CONFIRM_TRIES) this.suspects.push({ ...suspect, leaderTag: tagOf(leader), at: now, tries: suspect.tries + 1 })
      else metrics.journalUnchecked.inc()
    }
    // A partition that makes every answer differ fills this no further than the pending positions would.
    if (this.suspects.length > MAX_SUSPECTS) metrics.journalUnchecked.inc(this.suspects.splice(0, this.suspects.length - MAX_SUSPECTS).length)
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
        if (leader && leader.byteLength >= TAG_BYTES && !tagOf(leader).equals(tag)) this.suspects.push({ stream, seq, tag, leaderTag: tagOf(leader), at: now, tries: 0 })
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
