/**
 * SIGKILL of one front under ingest load, shared by the tap test
 * (test/supervisor/front-kill.test.ts) and the longer reproduction
 * (bench/front-kill.ts): keep-alive senders post 20 KB chunks with distinct
 * (sk, seq) and remember which were acknowledged; the killer SIGKILLs one
 * front at a time, at a random moment, and waits for the primary to start
 * its replacement; the cluster's own output tells which processes exited.
 */
import { execFile, execFileSync } from 'node:child_process'
import type { Cluster } from './cluster.js'
import { meta, postChunk } from './http.js'
import type { Store } from '../../src/store/store.js'

export const CHUNK_BYTES = 20 * 1024

/** The bytes of chunk (sk, seq): rebuilt for the comparison instead of kept, so thousands of acks cost no memory. */
export function chunkFor(sk: string, seq: number): Buffer {
  const head = JSON.stringify([{ type: 3, sk, seq, data: '' }])
  const fill = CHUNK_BYTES - head.length
  const data = Array.from({ length: fill }, (_, i) => String.fromCharCode(97 + ((i * 7 + seq * 13 + sk.length) % 26))).join('')
  return Buffer.from(JSON.stringify([{ type: 3, sk, seq, data }]))
}

export interface Acked {
  sk: string
  seq: number
}

export interface Load {
  acked: Acked[]
  sent: number
  /** Requests that got no answer (connection reset by the killed front) or a non-200. */
  failed: number
  stop(): Promise<void>
}

/** `senders` loops of keep-alive requests, each its own session; every answer 200 {ok:true} is remembered. */
export function startLoad(url: string, pk: string, senders: number, tag = 's'): Load {
  const load = { acked: [] as Acked[], sent: 0, failed: 0, stop: async () => {} }
  let stopped = false
  const loops = Array.from({ length: senders }, async (_, i) => {
    const sk = `${tag}-${i}`
    for (let seq = 0; !stopped; seq++) {
      load.sent += 1
      try {
        const answer = await postChunk(url, { pk, body: chunkFor(sk, seq), meta: meta({ sk, seq, vid: `v-${i}` }) })
        if (answer.status === 200 && answer.json?.ok === true) load.acked.push({ sk, seq })
        else load.failed += 1
      } catch {
        // The front holding this connection was killed: never acknowledged.
        load.failed += 1
      }
    }
  })
  load.stop = async () => {
    stopped = true
    await Promise.all(loops)
  }
  return load
}

export interface Child {
  pid: number
  role: 'front' | 'control'
}

/** The primary's children and their role, from their command lines. */
export function childrenOf(primaryPid: number): Child[] {
  let out = ''
  try {
    out = execFileSync('ps', ['--ppid', String(primaryPid), '-o', 'pid=,args='], { encoding: 'utf8' })
  } catch {
    return [] // ps exits 1 when there is no child
  }
  const children: Child[] = []
  for (const line of out.split('\n')) {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line)
    if (!match) continue
    if (/front\.js/.test(match[2])) children.push({ pid: Number(match[1]), role: 'front' })
    else if (/control\.js/.test(match[2])) children.push({ pid: Number(match[1]), role: 'control' })
  }
  return children
}

/** The JSON log lines of the cluster's output (other lines, such as a native crash's, are skipped). */
function logLines(output: string): Array<Record<string, any>> {
  const lines: Array<Record<string, any>> = []
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue
    try {
      lines.push(JSON.parse(line))
    } catch {
      // a line cut by another process's write: not ours to count
    }
  }
  return lines
}

/** Exits the primary reported for another reason than the SIGKILLs we sent: a process taken down by the kill of another. */
export function collateralExits(output: string): Array<Record<string, any>> {
  return logLines(output).filter((l) => l.msg === 'child exited; restarting' && l.signal !== 'SIGKILL')
}

export function panicLines(output: string): number {
  return output.split('\n').filter((l) => /MDB_PANIC|fatal error|FATAL ERROR/i.test(l)).length
}

export function droppedLines(output: string): number {
  return output.split('\n').filter((l) => l.includes('ingest write failed')).length
}

/** Waits until `check` holds, polling every 20 ms; false after `ms`. */
export async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return true
}

export interface KillRound {
  pid: number
  /** ms from the SIGKILL (from gdb's exit, for a kill in the sync) to the replacement's "front listening" line. */
  restartMs: number
}

/** Whether gdb is here to stop a front at a chosen point before it is killed. */
export function hasGdb(): boolean {
  try {
    execFileSync('gdb', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/**
 * The function of LMDB during which a writer holds the lock of a disk sync:
 * under overlappingSync, the shared sync mutex that poisoned the other
 * writers when its owner died; otherwise the write mutex.
 */
const SYNC_POINT = 'mdb_env_sync0'

/**
 * SIGKILLs `pid` once one of its threads enters LMDB's disk sync: gdb stops
 * it there and kills it, the moment a random kill only rarely hits on a fast
 * disk. Resolves when gdb is done (it gives up after 20 s, and then the
 * process is killed wherever it is).
 */
function killInSync(pid: number): Promise<void> {
  return new Promise((resolve) => {
    const args = ['-q', '-batch', '-nx', '-iex', 'set auto-solib-add off', '-p', String(pid), '-ex', 'sharedlibrary lmdb', '-ex', `break ${SYNC_POINT}`, '-ex', 'continue', '-ex', `shell kill -9 ${pid}`]
    // Only the lmdb addon's symbols are loaded: reading node's own takes seconds on a busy machine.
    execFile('gdb', args, { timeout: 20_000 }, () => {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // killed inside the sync, as intended
      }
      resolve()
    })
  })
}

export type KillPoint = 'random' | 'sync'

/**
 * SIGKILLs one front (alternating between them) after a random 200–1200 ms of
 * load, at once or (`sync`) when it next syncs the disk, then waits for the
 * replacement's "front listening" line, so that the next kill again finds
 * two fronts writing.
 */
export async function killOneFront(cluster: Cluster, round: number, random: () => number, point: KillPoint = 'random'): Promise<KillRound> {
  // Deliberate: the front dies at a random moment of the load, not at one the test picks.
  await new Promise((resolve) => setTimeout(resolve, 200 + random() * 1000))
  const fronts = childrenOf(cluster.child.pid!).filter((c) => c.role === 'front')
  if (fronts.length === 0) throw new Error('no front process to kill')
  const victim = fronts[round % fronts.length].pid
  const listened = logLines(cluster.output()).filter((l) => l.msg === 'front listening').length
  let killedAt = Date.now()
  if (point === 'sync') {
    await killInSync(victim)
    killedAt = Date.now()
  } else process.kill(victim, 'SIGKILL')
  const back = await until(() => logLines(cluster.output()).filter((l) => l.msg === 'front listening').length > listened, 20_000)
  if (!back) throw new Error(`no front listened again within 20 s of killing ${victim}`)
  return { pid: victim, restartMs: Date.now() - killedAt }
}

/** Acknowledged chunks that are missing or differ from the bytes sent. */
export function missingAcked(store: Store, projectId: string, acked: Acked[]): Acked[] {
  return acked.filter(({ sk, seq }) => {
    const stored = store.getChunk(projectId, sk, seq)
    return !stored || Buffer.compare(Buffer.from(stored), chunkFor(sk, seq)) !== 0
  })
}
