/**
 * One load scenario: autocannon against a target for a fixed time, with the
 * server's CPU (all its processes, from /proc) and, on request, the resident
 * memory of its fronts sampled every second.
 */
import autocannon, { type Request } from 'autocannon'
import { cpuSecondsOf, machineBusySeconds, rss } from './proc.js'
import type { Target } from './targets.js'

export interface LoadSpec {
  name: string
  path: string
  body: Buffer
  headers?: Record<string, string>
  /** Extra headers of the n-th request (n counts across all connections), e.g. a fresh X-Svc-Meta. */
  vary?: (n: number) => Record<string, string>
  connections: number
  seconds: number
  /** Requests per second offered across all connections (autocannon's overallRate); unset: as fast as answers come. */
  rate?: number
  sampleMemory?: boolean
}

export interface MemorySample {
  second: number
  /** Per front process, bytes. */
  total: number[]
  anon: number[]
}

export interface Figures {
  name: string
  seconds: number
  /** Answers with a 2xx status per second (every answer for scenarios expecting errors: see `answersPerSec`). */
  okPerSec: number
  answersPerSec: number
  p50: number
  p99: number
  max: number
  /** Request bodies carried per second, bytes: answers × body size. */
  bodyBytesPerSec: number
  /** Response bytes read by the load generator per second (autocannon's throughput). */
  responseBytesPerSec: number
  /** Server CPU, all processes, as % of one core (200% = both cores of this machine). */
  serverCpuPct: number
  /** The part of it the fronts used (the processes that answer HTTP): the rest is the control worker, its fold thread and the primary. */
  frontCpuPct: number
  /** The load generator's own CPU, % of one core: it shares the machine. */
  clientCpuPct: number
  /** CPU used meanwhile by everything else on the machine (other users' work), % of one core: the noise. */
  otherCpuPct: number
  /** Seconds after the load until the work it left behind was done (the fold's backlog; 0 for servers with none). */
  settleSeconds: number
  /** Server CPU over those seconds: counted in the CPU per request, not in serverCpuPct. */
  settleCpuSeconds: number
  /** Requests the load generator started (answered or not). */
  requestsSent: number
  statusCodes: Record<string, number>
  errors: number
  timeouts: number
  memory?: MemorySample[]
}

export async function runLoad(target: Target, spec: LoadSpec): Promise<Figures> {
  let n = 0
  const request: Request = { method: 'POST', path: spec.path, headers: spec.headers, body: spec.body }
  if (spec.vary) {
    const vary = spec.vary
    request.setupRequest = (req) => ({ ...req, headers: { ...req.headers, ...vary(n++) } })
  }
  const pids = target.pids()
  const fronts = target.frontPids()
  const memory: MemorySample[] = []
  const sampler = spec.sampleMemory
    ? setInterval(() => {
        const samples = target.frontPids().map((pid) => rss(pid) ?? { total: 0, anon: 0 })
        memory.push({ second: memory.length + 1, total: samples.map((s) => s.total), anon: samples.map((s) => s.anon) })
      }, 1000)
    : undefined
  const cpuBefore = cpuSecondsOf(pids)
  const frontBefore = cpuSecondsOf(fronts)
  const clientBefore = process.cpuUsage()
  const machineBefore = machineBusySeconds()
  const started = performance.now()
  const result = await autocannon({
    url: target.url,
    connections: spec.connections,
    duration: spec.seconds,
    pipelining: 1,
    ...(spec.rate ? { overallRate: spec.rate } : {}),
    timeout: 10,
    requests: [request],
  })
  const elapsed = (performance.now() - started) / 1000
  const client = process.cpuUsage(clientBefore)
  const machine = machineBusySeconds() - machineBefore
  const serverCpu = cpuSecondsOf(pids) - cpuBefore
  const frontCpu = cpuSecondsOf(fronts) - frontBefore
  if (sampler) clearInterval(sampler)
  const settleStarted = performance.now()
  if (target.settle) await target.settle()
  const settleSeconds = (performance.now() - settleStarted) / 1000
  const settleCpuSeconds = cpuSecondsOf(pids) - cpuBefore - serverCpu

  const answers = Object.values(result.statusCodeStats).reduce((sum, s) => sum + s.count, 0)
  return {
    name: spec.name,
    seconds: result.duration,
    okPerSec: result['2xx'] / result.duration,
    answersPerSec: answers / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    bodyBytesPerSec: (answers * spec.body.byteLength) / result.duration,
    responseBytesPerSec: result.throughput.average,
    serverCpuPct: (serverCpu / elapsed) * 100,
    frontCpuPct: (frontCpu / elapsed) * 100,
    clientCpuPct: ((client.user + client.system) / 1e6 / elapsed) * 100,
    otherCpuPct: Math.max(0, ((machine - serverCpu - (client.user + client.system) / 1e6) / elapsed) * 100),
    settleSeconds,
    settleCpuSeconds,
    requestsSent: result.requests.sent,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
    errors: result.errors,
    timeouts: result.timeouts,
    memory: spec.sampleMemory ? memory : undefined,
  }
}
