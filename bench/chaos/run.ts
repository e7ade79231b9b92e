/**
 * `npm run chaos -- [--faults=a,b] [--seconds=60] [--seed=1] [--keep]` (as root): a
 * Jepsen-style run of the cluster mode on this machine (issue 43). For each
 * fault class, on a fresh deployment (net.ts, processes.ts): clients send
 * chunks, signals and control writes through every node (workload.ts) for 10 s,
 * the nemesis applies the fault for `seconds`, heals it, the clients go on for
 * 10 s more, then the checker (check.ts) compares what was acknowledged with
 * what every node answers. Histories are kept in .cache/chaos/; the table goes
 * to bench/chaos-results.md.
 *
 * Load and faults stay on this machine: every address is on the harness's
 * own bridge, and every run ends by itself.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { check, type Verdict } from './check.js'
import { createNetwork, destroyNetwork, ensureTools, heal, loss, NATS_HOSTS, netemAvailable, NODE_HOSTS, partition, slowLinks } from './net.js'
import { deploy, signalGroup, type Deployment } from './processes.js'
import { Workload, type Target } from './workload.js'

interface Fault {
  name: string
  what: string
  start(d: Deployment, seconds: number): Promise<void> | void
  /** Undoes what `start` did that healing the network does not (a paused or killed process). */
  stop?(d: Deployment): Promise<void> | void
}

const [n1, n2, n3] = NATS_HOSTS
const [s1, s2, s3] = NODE_HOSTS

const FAULTS: Fault[] = [
  { name: 'node-from-nats', what: 'node1 cut from every NATS server', start: () => partition([[s1], NATS_HOSTS]) },
  { name: 'nats-minority', what: 'nats1 cut from the other two NATS servers (clients still reach it)', start: () => partition([[n1], [n2, n3]]) },
  { name: 'split', what: 'nats1 and node1 on one side, the other four on the other', start: () => partition([[n1, s1], [n2, n3, s2, s3]]) },
  { name: 'bridge', what: 'nats1 and nats3 cannot reach each other; nats2 reaches both', start: () => partition([[n1], [n3]]) },
  { name: 'loss', what: '10% of the packets every host receives dropped', start: () => loss(0.1) },
  {
    name: 'slow-links',
    what: 'what every NATS server sends capped at 256 kbit/s (a token bucket queueing up to 500 ms, dropping past it): delay under load',
    start: () => slowLinks(NATS_HOSTS, 256, 500),
  },
  {
    name: 'pause-nats',
    what: 'nats2 stopped (SIGSTOP) for the fault, then continued',
    start: (d) => signalGroup(d.nats[1], 'SIGSTOP'),
    stop: (d) => signalGroup(d.nats[1], 'SIGCONT'),
  },
  {
    name: 'pause-node',
    what: 'node2 and its processes stopped (SIGSTOP) for the fault, then continued',
    start: (d) => signalGroup(d.nodes[1], 'SIGSTOP'),
    stop: (d) => signalGroup(d.nodes[1], 'SIGCONT'),
  },
  {
    name: 'kill-nats',
    what: 'nats3 killed (SIGKILL) at the start, started again on its store at the end',
    start: (d) => signalGroup(d.nats[2], 'SIGKILL'),
    stop: (d) => d.nats[2].start(),
  },
  {
    name: 'disk-full-nats',
    what: 'nats1\'s disk filled to the last byte by another file for the fault, then the file removed and nats1 restarted (what /docs/self-hosting tells an operator of nats-server 2.9 to do)',
    start: (d) => void spawnSync('dd', ['if=/dev/zero', `of=${join(d.natsStores[0], 'filler')}`, 'bs=1M'], { stdio: 'ignore' }),
    stop: async (d) => {
      rmSync(join(d.natsStores[0], 'filler'), { force: true })
      // Without a restart nats-server 2.9.10 stays locked up once its disk filled (every read through it times out),
      // and a SIGTERM does not stop it then: it is killed.
      signalGroup(d.nats[0], 'SIGKILL')
      await new Promise((resolve) => d.nats[0].child?.once('exit', resolve) ?? resolve(undefined))
      d.nats[0].start()
    },
  },
  {
    name: 'kill-all-nats',
    what: 'all three nats-servers killed at once (SIGKILL) at the start, after 10 s of load, and started again at the end',
    start: (d) => d.nats.forEach((proc) => signalGroup(proc, 'SIGKILL')),
    stop: (d) => d.nats.forEach((proc) => proc.start()),
  },
  {
    name: 'kill-node',
    what: 'node3 killed (SIGKILL, every process) at the start, started again on its data at the end',
    start: (d) => signalGroup(d.nodes[2], 'SIGKILL'),
    stop: (d) => d.nodes[2].start(),
  },
]

const args = Object.fromEntries(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=')) as [string, string][])
const seconds = Number(args.seconds ?? 60)
const seed = Number(args.seed ?? 1)
// --keep: the deployment's stores, logs and data stay where they were, for a look afterwards.
const keep = 'keep' in args
const chosen = args.faults ? FAULTS.filter((f) => args.faults.split(',').includes(f.name)) : FAULTS
if (process.getuid?.() !== 0) throw new Error('npm run chaos needs root: it makes network namespaces and iptables rules')

async function setUp(url: string): Promise<{ ownerKey: string; project: { id: string; publicKey: string } }> {
  const setup = await fetch(`${url}/api/v1/auth/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orgName: 'Chaos', email: 'owner@chaos.test', password: 'correct horse battery' }) })
  if (setup.status !== 200) throw new Error(`set-up answered ${setup.status}`)
  const cookie = setup.headers.get('set-cookie')!.split(';')[0]
  const csrf = ((await setup.json()) as { csrfToken: string }).csrfToken
  const key = await fetch(`${url}/api/v1/cli/keys.create`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrf }, body: '{}' })
  const ownerKey = ((await key.json()) as { apiKey: string }).apiKey
  const created = await fetch(`${url}/api/v1/cli/projects.create`, { method: 'POST', headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Shop' }) })
  return { ownerKey, project: ((await created.json()) as { project: { id: string; publicKey: string } }).project }
}

async function runFault(fault: Fault, historyDir: string): Promise<Verdict> {
  const dir = mkdtempSync(join(tmpdir(), `svc-chaos-${fault.name}-`))
  createNetwork()
  let deployment: Deployment | undefined
  try {
    deployment = await deploy(dir)
    const nodes: Target[] = NODE_HOSTS.map((host) => ({ name: host.name, url: deployment!.nodeUrl(host) }))
    const { ownerKey, project } = await setUp(nodes[0].url)
    // The owner's key and the project reach every node before the clients start.
    await sleep(2_000)
    const workload = new Workload(nodes, project, ownerKey, join(historyDir, `${fault.name}.jsonl`), seed)
    workload.start()
    await sleep(10_000)
    console.error(`${fault.name}: ${fault.what}, for ${seconds} s`)
    const from = Date.now()
    await fault.start(deployment, seconds)
    await sleep(seconds * 1_000)
    heal()
    await fault.stop?.(deployment)
    const to = Date.now()
    await sleep(10_000)
    await workload.stop()
    console.error(`${fault.name}: healed; ${workload.history.length} requests; checking`)
    return await check(nodes, ownerKey, project.id, workload.history, { from, to })
  } finally {
    await deployment?.stop(keep)
    destroyNetwork()
    if (keep) console.error(`${fault.name}: kept in ${dir}`)
    else rmSync(dir, { recursive: true, force: true })
  }
}

ensureTools()
const historyDir = join(process.cwd(), '.cache', 'chaos')
mkdirSync(historyDir, { recursive: true })
const lines: string[] = []
const say = (line: string) => {
  lines.push(line)
  console.log(line)
}
say(`# Chaos runs (${new Date().toISOString().slice(0, 10)})`)
say('')
say(`Generated by \`npm run chaos\` (bench/chaos/): per fault class a fresh cluster of three nats-servers (deploy/nats/, TLS and users) and three service nodes, each in a network namespace of its own; clients send a chunk every 100 ms, a signals batch every 250 ms and a control write every second (API keys created, then revoked) to a node picked at random; 10 s before the fault, the fault for ${seconds} s, 10 s after it healed; then every node is checked. Seed ${seed}; load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores.${netemAvailable() ? '' : ' A fixed latency was not run: this kernel is built without sch_netem (and sch_fq, which an eBPF delay needs), and a delay faked in user space would not be the fault; slow-links, a token bucket, delays messages under load instead.'}`)
say('')
say('| fault | chunks acked | lost | corrupt | control changes acked | missing on a node | batches lost | applied twice | read models identical | longest unavailable, per node (ms) | requests failed in the fault, per node | log places repaired / messages checked against the leader, per node |')
say('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | --- |')
for (const fault of chosen) {
  const v = await runFault(fault, historyDir)
  const nodes = Object.entries(v.unavailable)
  say(`| ${fault.name}: ${fault.what} | ${v.chunksAcknowledged} | ${v.chunksLost} | ${v.chunksCorrupt} | ${v.controlAcknowledged} | ${v.controlMissing} | ${v.batchesLost} | ${v.doubleApplied} | ${v.readModelsIdentical ? 'yes' : 'no'} | ${nodes.map(([n, u]) => `${n} ${u.longestMs}`).join(', ')} | ${nodes.map(([n, u]) => `${n} ${(100 * u.failedShare).toFixed(0)}%`).join(', ')} | ${Object.entries(v.repairs).map(([n, r]) => `${n} ${r.repaired} / ${r.checked}${r.unchecked ? ` (${r.unchecked} unchecked)` : ''}`).join(', ')} |`)
  for (const note of v.notes) say(`  - ${fault.name}: ${note}`)
}
writeFileSync(join(process.cwd(), 'bench', 'chaos-results.md'), `${lines.join('\n')}\n`)
