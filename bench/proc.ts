/**
 * What the kernel knows about the processes under test, from /proc (Linux):
 * CPU time (utime + stime of every thread, /proc/<pid>/stat), resident memory
 * (/proc/<pid>/status), and how busy the whole machine is (/proc/stat).
 */
import { readdirSync, readFileSync } from 'node:fs'

/** USER_HZ: the unit of utime and stime in /proc/<pid>/stat; 100 on every Linux build we run on (`getconf CLK_TCK`). */
const CLOCK_TICKS_PER_S = 100

function statFields(pid: number): string[] | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may contain spaces; everything after its closing parenthesis is space-separated.
    return raw.slice(raw.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined // the process is gone
  }
}

/** CPU seconds used so far by the process (all its threads), user + system. 0 when it has exited. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid)
  if (!fields) return 0
  // After the name: state(0) ppid(1) … utime(11) stime(12), i.e. fields 14 and 15 of proc(5).
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S
}

export function cpuSecondsOf(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0)
}

/** CPU seconds the whole machine has been busy (every core: user, nice, system, irq, softirq, steal), from /proc/stat. */
export function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  // cpu  user nice system idle iowait irq softirq steal …
  const [user, nice, system, , , irq, softirq, steal] = fields
  return (user + nice + system + irq + softirq + (steal ?? 0)) / CLOCK_TICKS_PER_S
}

export interface Rss {
  /** Whole resident set, bytes. */
  total: number
  /** Anonymous pages (heaps, stacks): what a leak grows. The rest is mapped files, LMDB's map among them. */
  anon: number
}

export function rss(pid: number): Rss | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024
    return { total: kb('VmRSS'), anon: kb('RssAnon') }
  } catch {
    return undefined
  }
}

export interface Mapping {
  /** Resident bytes of the mapping. */
  rss: number
  /** Of which clean: the kernel may drop them at any time, they are a copy of the file. */
  clean: number
  dirty: number
}

/** Resident, clean and dirty bytes of a process's mappings of files whose path ends with `suffix` (/proc/<pid>/smaps). */
export function mappingOf(pid: number, suffix: string): Mapping {
  const total: Mapping = { rss: 0, clean: 0, dirty: 0 }
  let smaps: string
  try {
    smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8')
  } catch {
    return total
  }
  for (const block of smaps.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
    if (!block.split('\n', 1)[0].trimEnd().endsWith(suffix)) continue
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(block)?.[1] ?? 0) * 1024
    total.rss += kb('Rss')
    total.clean += kb('Shared_Clean') + kb('Private_Clean')
    total.dirty += kb('Shared_Dirty') + kb('Private_Dirty')
  }
  return total
}

/** Direct children of `pid`, with their command lines. */
export function childrenOf(pid: number): { pid: number; cmdline: string }[] {
  const children: { pid: number; cmdline: string }[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const child = Number(entry)
    const fields = statFields(child)
    if (!fields || Number(fields[1]) !== pid) continue
    let cmdline = ''
    try {
      cmdline = readFileSync(`/proc/${child}/cmdline`, 'utf8').replace(/\0/g, ' ').trim()
    } catch {
      continue
    }
    children.push({ pid: child, cmdline })
  }
  return children
}
