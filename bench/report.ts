/**
 * Turns one benchmark run into bench/RESULTS.md: the machine, every figure in
 * tables, and the targets marked met or not met from the figures of this run
 * alone (the machine is shared and noisy; only ratios within one run
 * compare). Each section has its renderer; this file puts them in order.
 */
import { derive } from './report-derive.js'
import { sectionAggregates, sectionDetail, sectionDurability, sectionOversize } from './report-detail.js'
import { sectionHeadline, sectionIntro, sectionReading } from './report-intro.js'
import { fallbackSection, sectionGrid, sectionMemory, sectionMicro } from './report-memory.js'
import { sectionNatsMode } from './report-nats.js'
import { sectionPeer } from './report-peer.js'
import type { Results } from './results.js'

export function renderResults(r: Results): string {
  const d = derive(r)
  return [
    ...sectionIntro(r, d),
    ...(r.peer ? sectionPeer(r, r.peer) : []),
    ...sectionHeadline(r, d),
    ...sectionReading(r, d),
    ...sectionDurability(r, d),
    ...sectionAggregates(r),
    ...(r.fallback ? [...fallbackSection(r.fallback), ''] : []),
    ...(r.natsMode ? sectionNatsMode(r.natsMode) : []),
    ...sectionDetail(r, d),
    ...sectionOversize(r, d),
    ...sectionMemory(r, d),
    ...sectionGrid(r, d),
    ...sectionMicro(r),
  ].join('\n')
}
