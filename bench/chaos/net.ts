/**
 * The chaos harness's network (issue 43): one Linux network namespace per
 * process group (three NATS servers, three service nodes), each with its own
 * address on a bridge in the root namespace, where the clients run. Faults are
 * iptables rules inside the namespaces (partitions: both directions dropped
 * between two addresses; loss: a random share of packets dropped), healed by
 * flushing them; slow links are a token bucket (`tc qdisc ... tbf`). Needs
 * root; `iproute2` and `iptables` are Debian packages (the script installs
 * what is missing). `tc netem` needs the kernel's sch_netem, which this
 * machine's kernel is built without (as it is without sch_fq, which an eBPF
 * delay would need): a fixed latency is then reported as not run, rather than
 * faked in user space.
 */
import { execFileSync } from 'node:child_process'

export const BRIDGE = 'svcchaos0'
export const SUBNET = '10.88.0'
export const ROOT_ADDRESS = `${SUBNET}.1`

export interface Host {
  /** Namespace name, also the process group's name in the history: nats1…3, node1…3. */
  name: string
  address: string
}

export const NATS_HOSTS: Host[] = [1, 2, 3].map((i) => ({ name: `nats${i}`, address: `${SUBNET}.${10 + i}` }))
export const NODE_HOSTS: Host[] = [1, 2, 3].map((i) => ({ name: `node${i}`, address: `${SUBNET}.${20 + i}` }))
const ALL = [...NATS_HOSTS, ...NODE_HOSTS]

const ns = (host: Host) => `svcchaos-${host.name}`

function run(command: string, args: string[], quiet = false): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', quiet ? 'ignore' : 'pipe'] })
}

/** Runs `args` inside `host`'s namespace (as `ip netns exec` does). */
export function inNamespace(host: Host, args: string[]): string[] {
  return ['ip', 'netns', 'exec', ns(host), ...args]
}

function iptables(host: Host, rule: string[]): void {
  run('ip', ['netns', 'exec', ns(host), 'iptables', ...rule])
}

/** Installs iproute2 and iptables from Debian when missing (apt-get update first, once). */
export function ensureTools(): void {
  const missing = ['ip', 'iptables'].filter((tool) => {
    try {
      run('sh', ['-c', `command -v ${tool}`], true)
      return false
    } catch {
      return true
    }
  })
  if (missing.length === 0) return
  run('apt-get', ['update', '-qq'])
  run('apt-get', ['install', '-y', '-qq', 'iproute2', 'iptables'])
}

export function netemAvailable(): boolean {
  try {
    run('tc', ['qdisc', 'add', 'dev', 'lo', 'root', 'netem', 'delay', '1ms'], true)
    run('tc', ['qdisc', 'del', 'dev', 'lo', 'root'], true)
    return true
  } catch {
    return false
  }
}

/** The bridge and one namespace per host, each with its address; what a run before left behind is removed first. */
export function createNetwork(): void {
  destroyNetwork()
  run('ip', ['link', 'add', BRIDGE, 'type', 'bridge'])
  run('ip', ['addr', 'add', `${ROOT_ADDRESS}/24`, 'dev', BRIDGE])
  run('ip', ['link', 'set', BRIDGE, 'up'])
  ALL.forEach((host, i) => {
    const outside = `svcc${i}o`
    const inside = `svcc${i}i`
    run('ip', ['netns', 'add', ns(host)])
    run('ip', ['link', 'add', outside, 'type', 'veth', 'peer', 'name', inside])
    run('ip', ['link', 'set', inside, 'netns', ns(host)])
    run('ip', ['link', 'set', outside, 'master', BRIDGE])
    run('ip', ['link', 'set', outside, 'up'])
    run('ip', ['netns', 'exec', ns(host), 'ip', 'addr', 'add', `${host.address}/24`, 'dev', inside])
    run('ip', ['netns', 'exec', ns(host), 'ip', 'link', 'set', inside, 'up'])
    run('ip', ['netns', 'exec', ns(host), 'ip', 'link', 'set', 'lo', 'up'])
  })
}

export function destroyNetwork(): void {
  ALL.forEach((host, i) => {
    for (const args of [['netns', 'del', ns(host)], ['link', 'del', `svcc${i}o`]]) {
      try {
        run('ip', args, true)
      } catch {
        // not there
      }
    }
  })
  try {
    run('ip', ['link', 'del', BRIDGE], true)
  } catch {
    // not there
  }
}

/** Drops every packet between the two sides, both ways. */
export function partition(sides: [Host[], Host[]]): void {
  for (const a of sides[0]) {
    for (const b of sides[1]) {
      iptables(a, ['-A', 'INPUT', '-s', b.address, '-j', 'DROP'])
      iptables(a, ['-A', 'OUTPUT', '-d', b.address, '-j', 'DROP'])
      iptables(b, ['-A', 'INPUT', '-s', a.address, '-j', 'DROP'])
      iptables(b, ['-A', 'OUTPUT', '-d', a.address, '-j', 'DROP'])
    }
  }
}

/** Drops `share` of the packets each host receives, from anywhere. */
export function loss(share: number): void {
  for (const host of ALL) iptables(host, ['-A', 'INPUT', '-m', 'statistic', '--mode', 'random', '--probability', String(share), '-j', 'DROP'])
}

/**
 * Caps what each of `hosts` sends at `kbit` a second: a token bucket (tbf, in this kernel where netem is not) that
 * queues up to `queueMs` and drops past it. Under load a congested link: messages are delayed by the queue, not by a
 * fixed latency.
 */
export function slowLinks(hosts: Host[], kbit: number, queueMs: number): void {
  for (const host of hosts) run('ip', ['netns', 'exec', ns(host), 'tc', 'qdisc', 'add', 'dev', insideLink(host), 'root', 'tbf', 'rate', `${kbit}kbit`, 'burst', '4kb', 'latency', `${queueMs}ms`])
}

const insideLink = (host: Host) => `svcc${ALL.indexOf(host)}i`

export function heal(): void {
  for (const host of ALL) {
    iptables(host, ['-F'])
    try {
      run('ip', ['netns', 'exec', ns(host), 'tc', 'qdisc', 'del', 'dev', insideLink(host), 'root'], true)
    } catch {
      // no qdisc of ours there
    }
  }
}
