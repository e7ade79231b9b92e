/**
 * `npm run bench:rebuild`: how long a node started on an empty DATA_DIR takes
 * to rebuild its read model from a large log, and at how many entries a
 * second (issue 31: at least 20,000). One local nats-server (the shipped
 * configuration, users and TLS; every stream R1, 3 recording partitions) is
 * filled with chunks and signals batches written as a front writes them:
 * prepared by the service's ItemPreparer (page keys decided, the signals body
 * parsed and validated), framed by encodeIngest, grouped as a front's group
 * commit groups them (--group=N items per log message, default 12, about what
 * the cluster-mode /ingest run of `npm run bench` measured) and sealed with
 * the cluster's secret; a project, its owner and an
 * API key go first as control entries, as `npm run admin` would append them.
 * Then a node (dist/main.js) starts on an empty DATA_DIR, pinned to the
 * server's core; the time until /health answers and the last chunk reads back
 * through the API is the rebuild, and the node's own progress lines (every
 * 5 s, src/journal/node.ts) give the rate over time.
 *
 * Flags: --chunks=N, --signals=N (default 1,000,000 each), --group=N, --profile=DIR, --out=FILE (default
 * bench/rebuild-results.md). Bodies are small (about 1 KB each) so that the
 * disk holds millions: the rebuild applies entries, whose count is the cost;
 * a chunk's bytes stay in the log (NATS_CHUNK_BYTES=log) and are not copied.
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { createApiKey, ensureOrgAndUser } from '../src/accounts/credentials.js'
import { newId, newPublicKey } from '../src/accounts/secrets.js'
import { ItemPreparer } from '../src/grouping/prepare-items.js'
import { openJournal } from '../src/journal/connect.js'
import { encodeControl, encodeIngest, encodeIngestGroup } from '../src/journal/entries.js'
import { startNatsCluster } from '../src/journal/nats-servers.js'
import { REPLICATED } from '../src/journal/operations.js'
import { logSeal, readLogSecret } from '../src/journal/seal.js'
import { NatsLog } from '../src/journal/nats-log.js'
import { controlStream, controlSubject, DEFAULT_LAYOUT, partitionOf, recordingGroupSubject, signalsGroupSubject, streamNames, type JournalLayout } from '../src/journal/streams.js'
import { openMemoryStore } from '../src/store/memory/index.js'
import type { IngestItem, Store } from '../src/store/store.js'
import type { WriteItem } from '../src/supervisor/messages.js'
import { freePort } from '../test/helpers/cluster.js'
import { generator } from './payloads.js'
import { CLIENT_CPUS, PINNED, pinning, pinSelf, serverCommand } from './pin.js'
import { childrenOf, cpuSecondsOf } from './proc.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const CHUNKS = Number(flag('chunks') ?? 1_000_000)
const SIGNALS = Number(flag('signals') ?? 1_000_000)
const GROUP = Number(flag('group') ?? 12)
const OUT = flag('out') ?? join(ROOT, 'bench', 'rebuild-results.md')
/** Publishes awaiting their acknowledgement while filling: enough to keep one server busy without piling up. */
const IN_FLIGHT = 512
/** Chunks per session, as the main benchmark's load sends them. */
const CHUNKS_PER_SESSION = 20
const LAYOUT: JournalLayout = { ...DEFAULT_LAYOUT, partitions: 3, replicas: 1 }
const URLS = ['https://shop.example.com/', 'https://shop.example.com/products/42', 'https://shop.example.com/cart', 'https://shop.example.com/products/7?ref=home']

const began = performance.now()
const say = (message: string) => console.log(`[${((performance.now() - began) / 1000).toFixed(0).padStart(5)} s] ${message}`)

/** About 1 KB gzipped: 30 rrweb-like incremental events. */
function smallChunk(seed: number): Buffer {
  const random = generator(seed)
  const events = Array.from({ length: 30 }, (_, i) => ({ type: 3, timestamp: 1_700_000_000_000 + i * 150, data: { source: 2, id: Math.floor(random() * 5000), x: Math.floor(random() * 1920), y: Math.floor(random() * 4000), text: random().toString(36).repeat(4) } }))
  return gzipSync(JSON.stringify(events))
}

/** About 1 KB of JSON: a page view, a few clicks and one error, valid for the signals contract. */
function smallSignals(n: number, now: number): Buffer {
  const url = URLS[n % URLS.length]
  const clicks = Array.from({ length: 4 }, (_, i) => ({ url, ts: now - 1000 * i, xRatio: 0.5, yDoc: 100 * i, vw: 1440, docH: 4200, selector: `main > button:nth-child(${i + 1})`, label: 'Add to cart', tag: 'button', interactive: true, kind: 'click' }))
  return Buffer.from(JSON.stringify({ sk: `sig-${n}`, vid: `v-${n}`, startedAt: now - 60_000, dropped: 0, views: [{ url, startedAt: now - 60_000, title: 'Product', vw: 1440, vh: 900, docH: 4200, activeMs: 20_000, maxScrollPct: 40 }], clicks, errors: [{ url, ts: now - 500, message: 'TypeError: x is undefined' }] }))
}

/** Runs `store`'s account calls on a memory store and keeps each replicated mutation, to append as control entries. */
function recording(): { store: Store; mutations: { op: string; args: unknown[] }[] } {
  const memory = openMemoryStore()
  const mutations: { op: string; args: unknown[] }[] = []
  const store = new Proxy(memory, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      if (typeof property === 'string' && REPLICATED.has(property)) {
        return (...args: unknown[]) => {
          mutations.push({ op: property, args: structuredClone(args) })
          return value.apply(target, args)
        }
      }
      return value.bind(target)
    },
  })
  return { store, mutations }
}

/** Keeps `IN_FLIGHT` publishes awaiting their acknowledgement; resolves once all are acknowledged. */
async function pipelined(total: number, publish: (n: number) => Promise<unknown>, what: string): Promise<number> {
  const started = performance.now()
  let next = 0
  let done = 0
  let lastSaid = started
  const worker = async () => {
    while (next < total) {
      await publish(next++)
      done++
      if (performance.now() - lastSaid > 10_000) {
        lastSaid = performance.now()
        say(`  ${what}: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}, ${Math.round(done / ((lastSaid - started) / 1000)).toLocaleString('en-US')}/s`)
      }
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  return (performance.now() - started) / 1000
}

interface Sample {
  second: number
  applied: number
  perSecond: number
}

async function main(): Promise<void> {
  pinSelf()
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-rebuild-'))
  const dataDir = join(dir, 'node')
  say(`pinning: ${pinning()}; one nats-server in ${dir}; ${CHUNKS.toLocaleString('en-US')} chunks and ${SIGNALS.toLocaleString('en-US')} signals batches`)
  const nats = await startNatsCluster({ dir, size: 1, freePort })
  const natsPids = nats.servers.map((s) => s.child!.pid!)
  try {
    await nats.makeStreams({ NATS_PARTITIONS: String(LAYOUT.partitions), NATS_REPLICAS: String(LAYOUT.replicas) })
    const journal = await openJournal(nats.settings('node'), LAYOUT)
    const seal = logSeal(readLogSecret(nats.env().NATS_LOG_SECRET_FILE))

    // The project, its owner and a key to read with: control entries, as a node's admin appends them.
    const accounts = recording()
    const { org, user } = await ensureOrgAndUser(accounts.store, 'Bench', 'bench@bench.test')
    const { apiKey } = await createApiKey(accounts.store, org.id, user.id, 'rebuild')
    const projectId = newId('prj')
    await accounts.store.createProject({ id: projectId, orgId: org.id, name: 'Bench site', domain: null, pathRules: [], publicKey: newPublicKey(), createdAt: Date.now() })
    let after = 0
    for (const [ticket, { op, args }] of accounts.mutations.entries()) {
      const entry = { id: `ctl:bench:${ticket}`, op, args, node: 'bench', ticket }
      after = (await journal.js.publish(controlSubject(LAYOUT), seal.seal('control', encodeControl(entry)), { msgID: entry.id })).seq
    }

    const preparer = new ItemPreparer(accounts.store)
    const chunkBodies = Array.from({ length: 16 }, (_, i) => smallChunk(i + 1))
    const now = Date.now()
    const signalBodies = Array.from({ length: 16 }, (_, i) => smallSignals(i, now))
    const prepared = (raw: WriteItem): IngestItem => {
      const item = preparer.prepare(raw)
      if ('invalid' in item) throw new Error(`the service refuses the benchmark's item: ${item.invalid}`)
      return item
    }
    const sessionOf = (n: number) => `rebuild-${Math.floor(n / CHUNKS_PER_SESSION)}`
    const chunkItem = (n: number): IngestItem =>
      prepared({
        kind: 'chunk',
        projectId,
        receivedAt: now,
        meta: { sk: sessionOf(n), vid: `v-${Math.floor(n / CHUNKS_PER_SESSION)}`, seq: n % CHUNKS_PER_SESSION, pageIndex: 0, url: URLS[n % URLS.length], firstTs: now - 5000, lastTs: now, eventCount: 30, encoding: 'gzip' },
        body: chunkBodies[n % chunkBodies.length],
      } as WriteItem)
    const sizes = { chunkBody: chunkBodies[0].byteLength, chunkEntry: encodeIngest({ item: chunkItem(0), after }).byteLength, signalsBody: signalBodies[0].byteLength, signalsEntry: 0 }

    // Groups of one partition's chunks, in the order a front would take them.
    const byPartition: number[][] = Array.from({ length: LAYOUT.partitions }, () => [])
    for (let n = 0; n < CHUNKS; n++) byPartition[partitionOf(projectId, sessionOf(n), LAYOUT.partitions)].push(n)
    const chunkGroups = byPartition.flatMap((ns, partition) => Array.from({ length: Math.ceil(ns.length / GROUP) }, (_, g) => ({ partition, ns: ns.slice(g * GROUP, (g + 1) * GROUP) })))
    say(`filling the log: ${CHUNKS.toLocaleString('en-US')} chunks in ${chunkGroups.length.toLocaleString('en-US')} groups…`)
    const chunkSeconds = await pipelined(
      chunkGroups.length,
      (g) => {
        const { partition, ns } = chunkGroups[g]
        const sealed = seal.seal('ingest', encodeIngestGroup(ns.map((n) => encodeIngest({ item: chunkItem(n), after }))))
        return journal.js.publish(recordingGroupSubject(LAYOUT, partition), sealed, { msgID: `grp:${randomUUID()}`, timeout: 60_000 })
      },
      'chunk groups',
    )
    say(`  ${CHUNKS.toLocaleString('en-US')} chunks in ${chunkSeconds.toFixed(0)} s`)
    say('filling the log: signals batches…')
    const signalsSeconds = await pipelined(
      Math.ceil(SIGNALS / GROUP),
      (g) => {
        const frames = Array.from({ length: Math.min(GROUP, SIGNALS - g * GROUP) }, (_, i) => {
          const item = prepared({ kind: 'signals-body', projectId, receivedAt: now, body: signalBodies[(g * GROUP + i) % signalBodies.length] })
          if (item.kind === 'signals') item.id = randomUUID()
          const frame = encodeIngest({ item, after })
          sizes.signalsEntry = frame.byteLength
          return frame
        })
        return journal.js.publish(signalsGroupSubject(LAYOUT), seal.seal('ingest', encodeIngestGroup(frames)), { msgID: `grp:${randomUUID()}`, timeout: 60_000 })
      },
      'signals groups',
    )
    say(`  ${SIGNALS.toLocaleString('en-US')} signals batches in ${signalsSeconds.toFixed(0)} s`)
    const heads = await new NatsLog(journal).usage(streamNames(LAYOUT))
    const logBytes = [...heads.values()].reduce((sum, u) => sum + u.bytes, 0)
    const messages = [...heads.values()].reduce((sum, u) => sum + u.lastSeq, 0)
    // What the node applies: every chunk and signals batch, and the control entries.
    const entries = CHUNKS + SIGNALS + (heads.get(controlStream(LAYOUT))?.lastSeq ?? 0)
    await journal.close()
    say(`the log holds ${entries.toLocaleString('en-US')} entries in ${messages.toLocaleString('en-US')} messages, ${(logBytes / 1024 ** 3).toFixed(2)} GiB; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)

    // The last chunk the log took: the read that says the node serves what the log holds.
    const last = chunkItem(CHUNKS - 1) as Extract<IngestItem, { kind: 'chunk' }>
    const port = await freePort()
    // --profile=DIR: the node's processes write V8 CPU profiles there (node --cpu-prof), to see where a rebuild's time goes.
    const profile = flag('profile')
    const [command, args] = serverCommand([...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), join(ROOT, 'dist', 'main.js')])
    const loadBefore = loadavg()[0]
    // The node on the server's core, the nats-server on the other: each machine of a deployment has its own.
    if (PINNED) for (const pid of natsPids) execFileSync('taskset', ['-a', '-p', '-c', CLIENT_CPUS, String(pid)], { stdio: 'ignore' })
    const natsCpuBefore = cpuSecondsOf(natsPids)
    const startedAt = performance.now()
    const child = spawn(command, args, {
      env: { ...process.env, ...nats.env('node'), PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, WORKERS: '1', NATS_PARTITIONS: String(LAYOUT.partitions), NATS_REPLICAS: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const samples: Sample[] = []
    let caughtUp: { ms: number; applied: number; perSecond: number } | undefined
    let pending = ''
    child.stdout!.on('data', (data: Buffer) => {
      pending += data.toString()
      const lines = pending.split('\n')
      pending = lines.pop()!
      for (const line of lines) {
        if (!line.startsWith('{')) continue
        const event = JSON.parse(line) as { msg: string; seconds?: number; applied?: number; perSecond?: number; ms?: number }
        if (event.msg === 'catching up with the log before serving') {
          const sample = { second: (performance.now() - startedAt) / 1000, applied: event.applied!, perSecond: event.perSecond! }
          samples.push(sample)
          say(`  node: ${sample.applied.toLocaleString('en-US')} entries applied, ${sample.perSecond.toLocaleString('en-US')}/s over the last period`)
        } else if (event.msg === 'cluster node caught up with the log') {
          caughtUp = { ms: event.ms!, applied: event.applied!, perSecond: event.perSecond! }
          say(`  node: caught up after ${(event.ms! / 1000).toFixed(1)} s, ${event.applied!.toLocaleString('en-US')} entries at ${event.perSecond!.toLocaleString('en-US')}/s`)
        }
      }
    })
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    const url = `http://127.0.0.1:${port}`
    const ok = async (fn: () => Promise<Response>) => fn().then((r) => r.status === 200, () => false)
    while (!(await ok(() => fetch(`${url}/health`)))) await new Promise((resolve) => setTimeout(resolve, 200))
    const healthSeconds = (performance.now() - startedAt) / 1000
    const readLast = () => fetch(`${url}/api/v1/cli/sessions.chunk`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ projectId, sessionKey: last.meta.sk, seq: last.meta.seq }) })
    while (!(await ok(readLast))) await new Promise((resolve) => setTimeout(resolve, 200))
    const servesSeconds = (performance.now() - startedAt) / 1000
    const nodeCpu = cpuSecondsOf([child.pid!, ...childrenOf(child.pid!).map((c) => c.pid)])
    const natsCpu = cpuSecondsOf(natsPids) - natsCpuBefore
    say(`the node answers /health after ${healthSeconds.toFixed(1)} s and reads the last chunk after ${servesSeconds.toFixed(1)} s`)
    child.kill('SIGTERM')
    await exited
    const loadAfter = loadavg()[0]

    const rate = (n: number, s: number) => Math.round(n / s).toLocaleString('en-US')
    const int = (n: number) => Math.round(n).toLocaleString('en-US')
    const report = [
      '# Rebuild of a node from the log (`npm run bench:rebuild`)',
      '',
      `${new Date().toISOString()}, commit ${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim()}; ${pinning()}; load average ${loadBefore.toFixed(1)} when the node started, ${loadAfter.toFixed(1)} when it served (2 cores shared with other work: figures are noisy).`,
      '',
      `One nats-server 2.9 (shipped configuration: users, TLS), every stream R1, ${LAYOUT.partitions} recording partitions. The log: ${int(CHUNKS)} chunks (${int(CHUNKS / CHUNKS_PER_SESSION)} sessions of ${CHUNKS_PER_SESSION}; gzip body ${sizes.chunkBody} B, framed ${sizes.chunkEntry} B) and ${int(SIGNALS)} signals batches (JSON body ${sizes.signalsBody} B, framed ${sizes.signalsEntry} B), each prepared and framed by the service's own functions, ${GROUP} to a log message as group commit writes them, each message sealed; ${int(entries)} entries in ${int(messages)} messages, ${(logBytes / 1024 ** 3).toFixed(2)} GiB as JetStream counts them. Filled at ${rate(CHUNKS, chunkSeconds)} chunks/s and ${rate(SIGNALS, signalsSeconds)} batches/s with ${IN_FLIGHT} publishes in flight. An entry is a chunk, a signals batch or a control entry, however many share a message.`,
      '',
      '| Figure | Value |',
      '|---|---|',
      `| node started on an empty DATA_DIR → caught up (its log line) | ${caughtUp ? `${(caughtUp.ms / 1000).toFixed(1)} s` : 'not logged'} |`,
      `| → /health answers 200 | ${healthSeconds.toFixed(1)} s |`,
      `| → the last chunk reads back (sessions.chunk) | ${servesSeconds.toFixed(1)} s |`,
      `| entries applied while catching up | ${caughtUp ? int(caughtUp.applied) : 'n/a'} |`,
      `| entries a second, whole catch-up | ${caughtUp ? int(caughtUp.perSecond) : 'n/a'} (target ≥ 20,000) |`,
      `| entries a second, from start to serving | ${rate(entries, servesSeconds)} |`,
      `| CPU until then: the node (all its processes), the nats-server | ${nodeCpu.toFixed(1)} s, ${natsCpu.toFixed(1)} s |`,
      '',
      'The node\'s progress lines (every 5 s, entries applied since it started and the rate over the last period):',
      '',
      '| s after start | entries applied | entries/s over the period |',
      '|---|---|---|',
      ...samples.map((s) => `| ${s.second.toFixed(0)} | ${int(s.applied)} | ${int(s.perSecond)} |`),
      '',
    ].join('\n')
    writeFileSync(OUT, report)
    say(`wrote ${OUT}`)
    console.log('\n' + report)
  } finally {
    await nats.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
process.exit(0)
