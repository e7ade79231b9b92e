/**
 * Which cores the server under test and the load generator run on. With two
 * cores or more, every server process is started under `taskset -c 0` (its
 * threads and forks inherit it) and the benchmark's own process, which runs
 * autocannon, is pinned to the last core: neither takes the other's time, so
 * the server's CPU per request is its own and carries to a bigger machine.
 * With one core, or where taskset is missing, nothing is pinned and the
 * report says so.
 */
import { execFileSync } from 'node:child_process'
import { availableParallelism } from 'node:os'

function tasksetWorks(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

const CORES = availableParallelism()
/** --no-pin: everything shares every core, as on a machine where the load comes from elsewhere but other work does not. */
export const PINNED = CORES > 1 && !process.argv.includes('--no-pin') && tasksetWorks()
export const SERVER_CPUS = '0'
export const CLIENT_CPUS = String(CORES - 1)
/** Cores the server may use: what os.availableParallelism() answers inside it, and so its default WORKERS. */
export const SERVER_CORES = PINNED ? 1 : CORES

export function pinning(): string {
  return PINNED ? `server on CPU ${SERVER_CPUS}, load generator on CPU ${CLIENT_CPUS} (taskset)` : 'not pinned (--no-pin, one core, or no taskset)'
}

/** Pins every thread of this process (the load generator) to the client's core. */
export function pinSelf(): void {
  if (PINNED) execFileSync('taskset', ['-a', '-p', '-c', CLIENT_CPUS, String(process.pid)], { stdio: 'ignore' })
}

/** The command and arguments that start `node args…` on the server's core. */
export function serverCommand(args: string[]): [string, string[]] {
  return PINNED ? ['taskset', ['-c', SERVER_CPUS, process.execPath, ...args]] : [process.execPath, args]
}

/** The command and arguments that start `node args…` on the load generator's core (a process that is not under test). */
export function clientCommand(args: string[]): [string, string[]] {
  return PINNED ? ['taskset', ['-c', CLIENT_CPUS, process.execPath, ...args]] : [process.execPath, args]
}
