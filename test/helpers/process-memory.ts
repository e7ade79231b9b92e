/** Memory of a cluster's processes, read from /proc: for tests that bound what a read costs the control worker. */
import { readdirSync, readFileSync } from 'node:fs'

/** A field of /proc/<pid>/status in bytes: `RssAnon` is heaps and stacks (not LMDB's file-backed map), `VmRSS` all resident memory. */
export function statusBytes(pid: number, field: 'RssAnon' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024
}

/** Resident anonymous memory of a process, bytes. */
export function rssAnon(pid: number): number {
  return statusBytes(pid, 'RssAnon')
}

/** The control worker's pid: the child of the cluster's primary that runs control.js. */
export function controlPid(primary: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === primary && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('control.js')) return Number(entry)
    } catch {
      // the process ended while we looked
    }
  }
  throw new Error('no control worker found')
}
