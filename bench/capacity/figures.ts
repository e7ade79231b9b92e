/**
 * The measured costs the capacity model is built from, each with where it was
 * measured (bench/RESULTS.md sections, this machine, pinned to one core).
 * Change a figure here only with a new measurement, and say where it is.
 */
export interface Figure {
  value: number
  unit: string
  source: string
}

const f = (value: number, unit: string, source: string): Figure => ({ value, unit, source })

export const FIGURES = {
  chunkCpu: f(111, 'µs per 20 KB chunk', 'RESULTS.md, "Headline": /ingest, default (1 front), server CPU per request'),
  signalsCpu: f(184, 'µs per signals batch', 'RESULTS.md, "Headline": /signals, aggregates on, the fold\'s catch-up included'),
  foldCpu: f(70, 'µs per signals batch', 'RESULTS.md, "Cost of the signal aggregates": 170 µs with the aggregates against 99 µs without'),
  chunksPerCore: f(6_973, 'chunks/s on one core', 'RESULTS.md, "Headline": /ingest req/s, default'),
  clusterNodeChunkCpu: f(316, 'µs per chunk (fronts and applier)', 'RESULTS.md, "Cluster mode with group commit": fronts 179 + applier 137 µs, 13:53 run'),
  natsChunkCpu: f(342, 'µs per chunk, three nats-servers together (R3)', 'RESULTS.md, "Cluster mode with group commit": the three nats-servers together, 13:53 run'),
  clusterSignalsCpu: f(461, 'µs per signals batch, node and NATS', 'RESULTS.md, "Cluster mode with group commit": cluster /signals, 14:20 run'),
  frontMemory: f(98, 'MiB anonymous per front', 'RESULTS.md, "Front memory over 60 s of /ingest": anon max'),
  controlMemory: f(202, 'MiB, control worker peak with its read threads', 'RESULTS.md, "Isolation, second part": the control worker\'s peak'),
  storedDocApp: f(21.2, 'kB per recorded minute', 'RESULTS.md, "Storage per recorded minute": Swagger UI, 3-minute sessions'),
  storedChurnyApp: f(90.0, 'kB per recorded minute', 'RESULTS.md, "Storage per recorded minute": Monaco, 3-minute sessions'),
  rebuildRate: f(21_547, 'log entries/s', 'RESULTS.md, "Rebuild of a node": batches applied pipelined'),
} as const

/** What the model assumes of a visit, not measured here: the contract's flush period sets the rates. */
export const VISIT = {
  /** The tracker flushes a chunk every 10 s (or at 256 KB) while recording: the contract, section 2. */
  chunksPerMinute: 6,
  /** A signals batch goes with the same flush when anything happened; assumed every flush. */
  batchesPerMinute: 6,
  /** An assumed signals batch on the wire (the benchmark's dense one is 5,137 bytes). */
  batchBytes: 1_500,
  sessionsPerVisitor: 1.3,
  recordedMinutesPerSession: 3,
  retentionDays: 30,
  /** A core is planned to 60% busy at the peak hour: room for folds, reads and bursts. */
  plannedUtilisation: 0.6,
}
