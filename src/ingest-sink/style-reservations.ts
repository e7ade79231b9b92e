/**
 * The cluster mode's quota for stylesheets (src/recordings/styles.ts): a
 * front acknowledges an upload once the log holds it, before any node has
 * applied it, so the counters the store keeps lag what was acknowledged. The
 * front reserves each upload's bytes here until its own store shows the text,
 * and checks the quota against both, so uploads in flight together through
 * one front cannot pass it. Fronts do not share reservations: N fronts can
 * pass the bound by what the others acknowledged in the same moment.
 */
import { styleQuotaRefusal } from '../recordings/styles.js'
import type { Store } from '../store/store.js'

export class StyleReservations {
  /** Per project, the uploads acknowledged and not yet seen applied: hash → restored bytes. */
  private readonly held = new Map<string, Map<string, number>>()

  constructor(private readonly store: Pick<Store, 'getStyle' | 'projectStats'>) {}

  /** Reserves room for the text, or says why there is none. */
  reserve(projectId: string, hash: string, bytes: number): string | undefined {
    const held = this.settled(projectId)
    const stats = this.store.projectStats(projectId)
    let count = stats.styleCount ?? 0
    let restored = stats.styleBytes ?? 0
    for (const size of held.values()) {
      count += 1
      restored += size
    }
    const refusal = styleQuotaRefusal({ styleCount: count, styleBytes: restored }, bytes)
    if (!refusal) held.set(hash, bytes)
    return refusal
  }

  /** An upload the log did not take: its room is free again. */
  release(projectId: string, hash: string): void {
    this.held.get(projectId)?.delete(hash)
  }

  /** The project's reservations less those its store now counts. */
  private settled(projectId: string): Map<string, number> {
    let held = this.held.get(projectId)
    if (!held) this.held.set(projectId, (held = new Map()))
    for (const hash of held.keys()) if (this.store.getStyle(projectId, hash)) held.delete(hash)
    return held
  }
}
