/**
 * A replica that held another message where this node applied one. Under a
 * partition, JetStream's replicas can disagree about what a sequence holds
 * (Jepsen saw it in NATS 2.12; the chaos harness saw it on Debian's 2.9.10:
 * bench/RESULTS.md, "Chaos"). A node reading such a replica applies, at that
 * sequence, a message the leader keeps elsewhere, and never the one the
 * leader keeps there, which was acknowledged to its client.
 *
 * It shows when the node meets an item it holds again at another place
 * (the store notes it: takeMovedPlaces). An erasure's rewrite does that too,
 * but then the leader's message at the old place still holds the item, or
 * is gone; a replica that diverged is when it holds other items. Those are
 * what this node missed, and are applied now, at their place.
 */
import { log } from '../log.js'
import { metrics } from '../metrics/registry.js'
import { itemIdentity } from '../store/recording-records.js'
import type { IngestItem, MovedPlace, Store } from '../store/store.js'
import { decodeIngestMessage } from './entries.js'
import type { Log } from './log.js'

export interface LeaderCopies {
  store: Pick<Store, 'appendBatch'>
  log: Pick<Log, 'getFromLeader'>
  /** The entry's plain bytes, or undefined for one that does not open (the applier's own check). */
  open(stream: string, seq: number, data: Uint8Array): Uint8Array | undefined
  /** Chunks stay in the log (the cluster's chunk bytes setting). */
  chunkBytesInLog: boolean
}

/** Reads the leader's message at each place in `moved` and applies it where it is not the item met again; answers the items applied. */
export async function applyLeaderCopies(moved: MovedPlace[], copies: LeaderCopies): Promise<number> {
  let applied = 0
  const asked = new Set<string>()
  for (const { from, item } of moved) {
    const place = `${from.stream} ${from.seq}`
    if (asked.has(place)) continue
    asked.add(place)
    const data = await copies.log.getFromLeader(from.stream, from.seq)
    const plain = data && copies.open(from.stream, from.seq, data)
    if (!plain) continue
    const items = itemsAt(from.stream, from.seq, plain, copies.chunkBytesInLog)
    if (items.some((missed) => itemIdentity(missed) === item)) continue
    applied += await applyAtPlace(copies.store, from.stream, from.seq, items)
  }
  return applied
}

/**
 * Applies the leader's items of one place, with no position: this node is past the place already. Each item lands
 * once (its identity makes a repeat a duplicate), and one this node holds elsewhere moves here. Answers those stored.
 */
export async function applyAtPlace(store: Pick<Store, 'appendBatch'>, stream: string, seq: number, items: IngestItem[]): Promise<number> {
  const outcomes = await store.appendBatch(items)
  const stored = outcomes.filter((outcome) => outcome === 'stored').length
  metrics.journalDiverged.inc()
  log.warn("a replica held another message where this node applied one; the leader's applied", { stream, seq, items: items.length, stored })
  return stored
}

/** The items of the ingest message at `seq`, each with its place in the log (as the applier applies them). */
export function itemsAt(stream: string, seq: number, plain: Uint8Array, chunkBytesInLog: boolean): IngestItem[] {
  return decodeIngestMessage(plain).map(({ item }, part) => {
    const at = { stream, seq, part }
    if (item.kind === 'chunk') {
      item.journal = at
      if (chunkBytesInLog) item.bytesInLog = true
    } else if (item.kind === 'signals') item.batch.journal = at
    return item
  })
}
