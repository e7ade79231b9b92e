/** Figures derived once from a run and shared by the renderers of bench/RESULTS.md. */
import { gridWinner, lowerCeiling, mean, memoryVerdicts, sustainedPerSec, TARGETS, type Results } from './results.js'

export type Derived = ReturnType<typeof derive>

export function derive(r: Results) {
  const commitCeiling = lowerCeiling(r, 'commit')
  const flushCeiling = lowerCeiling(r, 'flush')
  const ingest = r.cluster.ingest
  const ingestRatio = ingest.okPerSec / commitCeiling.perSec
  const flushRatio = r.flush.ingest.okPerSec / flushCeiling.perSec
  const signalsRatio = sustainedPerSec(r.cluster.signals) / r.front.signals.okPerSec
  const [declaredProbe, chunkedProbe] = r.cluster.probes
  const underLoad = r.cluster.probesUnderLoad
  const underLoadMs = underLoad.map((p) => p.ms).sort((a, b) => a - b)
  const underLoadP50 = underLoadMs[underLoadMs.length >> 1] ?? NaN
  const underLoadMax = underLoadMs[underLoadMs.length - 1] ?? NaN
  const oversizeOk =
    declaredProbe.status === 413 &&
    declaredProbe.bodyBytesSent === 0 &&
    chunkedProbe.status === 413 &&
    chunkedProbe.bodyBytesSent < chunkedProbe.bodyBytesTotal &&
    underLoad.length > 0 &&
    underLoad.every((p) => p.status === 413)
  const samples = r.memory.memory ?? []
  const memory = memoryVerdicts(samples)
  const memoryFlat = memory.length > 0 && memory.every((m) => m.flat)
  const p99Ok = ingest.p99 < TARGETS.p99Ms && r.cluster.signals.p99 < TARGETS.p99Ms
  const commitRuns = [ingest, r.flush.commitAfter]
  const commitMean = mean(commitRuns.map((f) => f.okPerSec))
  const flushCost = 1 - r.flush.ingest.okPerSec / commitMean
  const winner = gridWinner(r.grid)
  const acknowledged = ingest.statusCodes['200'] ?? 0
  return { commitCeiling, flushCeiling, ingest, ingestRatio, flushRatio, signalsRatio, declaredProbe, chunkedProbe, underLoad, underLoadMs, underLoadP50, underLoadMax, oversizeOk, samples, memory, memoryFlat, p99Ok, commitRuns, commitMean, flushCost, winner, acknowledged }
}
