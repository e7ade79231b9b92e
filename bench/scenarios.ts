/**
 * What every stage of `npm run bench` shares: the run's durations, the
 * bodies and the load scenarios built from them, one measured run of a
 * scenario against a target, and a storage benchmark process started on the
 * server's core.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runLoad, type Figures, type LoadSpec } from './load.js'
import { chunkBody, chunkMeta, OVERSIZE_BYTES, signalsBody } from './payloads.js'
import { serverCommand } from './pin.js'
import { machineBusySeconds } from './proc.js'
import { cpuPerRequestUs, sustainedPerSec, type FoldCost, type StorageFigures } from './results.js'
import type { Target } from './targets.js'

const HERE = fileURLToPath(new URL('./', import.meta.url))
export const QUICK = process.argv.includes('--quick')
export const CONNECTIONS = 100
/** Seconds per measured run; --quick divides by 4. */
export const secs = (s: number) => (QUICK ? Math.max(2, Math.round(s / 4)) : s)
export const MAIN_S = secs(10)
export const WARM_S = QUICK ? 1 : 2
/** --profile=DIR: the service's processes and threads write V8 CPU profiles there (node --cpu-prof), in the peer and A/B stages. */
const PROFILE_DIR = process.argv.find((a) => a.startsWith('--profile='))?.slice(10)
export const SERVICE_NODE_ARGS = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []

export const began = performance.now()
export function progress(message: string): void {
  const t = ((performance.now() - began) / 1000).toFixed(0).padStart(4)
  console.log(`[${t} s] ${message}`)
}

function summary(f: Figures): string {
  const codes = Object.entries(f.statusCodes)
    .map(([code, n]) => `${code}×${n}`)
    .join(' ')
  return `${Math.round(f.answersPerSec)} req/s (${Math.round(f.okPerSec)} 2xx/s), p50 ${f.p50} ms, p99 ${f.p99} ms, server CPU ${Math.round(f.serverCpuPct)}% (fronts ${Math.round(f.frontCpuPct)}%), client CPU ${Math.round(f.clientCpuPct)}%, others ${Math.round(f.otherCpuPct)}%, [${codes}]${f.errors ? ` errors ${f.errors}` : ''}${f.timeouts ? ` timeouts ${f.timeouts}` : ''}${f.settleSeconds >= 0.1 ? `; the fold caught up ${f.settleSeconds.toFixed(1)} s later (${Math.round(sustainedPerSec(f))} 2xx/s sustained), ${Math.round(cpuPerRequestUs(f))} µs of server CPU per request with it` : ''}`
}

export async function measure(target: Target, spec: LoadSpec): Promise<Figures> {
  progress(`  ${spec.name}: ${spec.seconds} s, ${spec.connections} connections…`)
  const figures = await runLoad(target, spec)
  progress(`  ${spec.name}: ${summary(figures)}`)
  return figures
}

// ---- payloads and scenarios ----

export const chunk = chunkBody()
export const signals = signalsBody()
export const oversize = Buffer.alloc(OVERSIZE_BYTES, 0x1f)
let runs = 0

/** 20 KB gzip chunks, each with its own (session, seq) so none is an idempotent repeat of another. */
export function ingestSpec(name: string, publicKey: string, seconds: number, sampleMemory = false): LoadSpec {
  const tag = `${process.pid}-${++runs}`
  return {
    name,
    path: `/api/v1/ingest?pk=${publicKey}`,
    body: chunk,
    headers: { 'content-type': 'application/octet-stream' },
    vary: (n) => ({ 'x-svc-meta': chunkMeta(tag, n) }),
    connections: CONNECTIONS,
    seconds,
    sampleMemory,
  }
}

export function signalsSpec(name: string, publicKey: string, seconds: number): LoadSpec {
  // text/plain, as sendBeacon posts it.
  return { name, path: `/api/v1/signals?pk=${publicKey}`, body: signals, headers: { 'content-type': 'text/plain' }, connections: CONNECTIONS, seconds }
}

export function oversizeSpec(name: string, publicKey: string, seconds: number): LoadSpec {
  return {
    name,
    path: `/api/v1/ingest?pk=${publicKey}`,
    body: oversize,
    headers: { 'content-type': 'application/octet-stream', 'x-svc-meta': chunkMeta('oversize', 0) },
    connections: CONNECTIONS,
    seconds,
  }
}

export async function warm(target: Target, spec: LoadSpec): Promise<void> {
  await runLoad(target, { ...spec, name: 'warm-up', seconds: WARM_S, sampleMemory: false })
}

/** Runs a storage benchmark process (`script`, given a fresh data directory) and adds what the rest of the machine used meanwhile. */
export function storageRun(script: string, unit: string, args: (dir: string) => string[]): StorageFigures {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-lmdb-'))
  try {
    const machineBefore = machineBusySeconds()
    const started = performance.now()
    const [command, argv] = serverCommand([join(HERE, script), ...args(dir)])
    const out = execFileSync(command, argv)
    const elapsed = (performance.now() - started) / 1000
    const figures = JSON.parse(out.toString()) as StorageFigures
    figures.otherCpuPct = Math.max(0, ((machineBusySeconds() - machineBefore) / elapsed) * 100 - figures.cpuPct)
    progress(`  ${Math.round(figures.putsPerSec)} ${unit}, p50 ${figures.p50.toFixed(2)} ms, p99 ${figures.p99.toFixed(2)} ms, CPU ${Math.round(figures.cpuPct)}%, others ${Math.round(figures.otherCpuPct)}%`)
    return figures
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Batches per variant of the fold-cost process: enough for 10 folds of 2,000. */
const FOLD_COST_BATCHES = QUICK ? 4_000 : 20_000

/** The fold's CPU per signals batch, by what the batch holds (bench/fold-cost.ts), in a process on the server's core. */
export function foldCostRun(): FoldCost[] {
  progress(`fold cost: ${FOLD_COST_BATCHES} stored batches per variant folded in one process…`)
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-fold-'))
  try {
    const [command, argv] = serverCommand([join(HERE, 'fold-cost.js'), dir, String(FOLD_COST_BATCHES)])
    const costs = JSON.parse(execFileSync(command, argv).toString()) as FoldCost[]
    for (const cost of costs) progress(`  ${cost.name}: ${cost.usPerBatch.toFixed(1)} µs per batch`)
    return costs
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
