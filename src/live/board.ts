/**
 * What the processes of one service share about recordings in progress: which
 * sessions sent a chunk lately (fronts write, the control worker reads, for
 * `sessions.list` with `live`) and which sessions someone is watching (the
 * control worker writes, fronts read, to tell the tracker to send more often).
 *
 * A small LMDB environment of its own under the data directory (`live/`):
 * what it holds is minutes old at most, so it is written without syncing
 * (a power cut loses who was watching, which the next refresh puts back) and
 * compaction simply removes it. The ingest path pays a Map write per chunk and
 * a Set lookup per answer: fronts move what they saw to the environment, and
 * read the watches back, once a second.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { open, type Database, type RootDatabase } from 'lmdb'
import { MAX_KEY_PART } from '../store/lmdb/keys.js'
import { privateDir, privateFiles } from '../store/lmdb/private-files.js'

/** A session is live while its last chunk is at most this old; documented with sessions.list's `live`. */
export const LIVE_WINDOW_MS = 60_000
/** Fronts write what they saw and read the watches this often. */
export const SYNC_MS = 1_000
/** Sessions one front remembers between syncs at most: a flood of new session keys costs bounded memory. */
const MAX_SEEN = 100_000

type Key = [string, string]
/** As the store's environments (index.ts ENVIRONMENT_OPTIONS, which says why), but never synced: nothing here outlives minutes. */
const BOARD_OPTIONS = { maxDbs: 4, mapSize: 256 * 1024 * 1024, noSync: true, overlappingSync: false, maxFreeSpaceToRetain: 0 }
type WatchKey = [string, string, string]

export interface LiveSession {
  sessionKey: string
  lastSeenAt: number
}

export class LiveBoard {
  // Not readonly: an online compaction closes the board and opens it again (suspend, reopen).
  private root!: RootDatabase
  private seenTable!: Database<number, Key>
  private watchTable!: Database<number, WatchKey>
  /** Between suspend() and reopen(): the environment is closed (and may be removed); nothing reads or writes it. */
  private suspended = false
  /** Seen since the last sync, by project then session key. */
  private pending = new Map<string, Map<string, number>>()
  private pendingCount = 0
  /** Watched sessions as last read, by project then session key. */
  private watchedNow = new Map<string, Set<string>>()
  private timer: NodeJS.Timeout | undefined

  constructor(
    readonly path: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.openEnvironment()
  }

  private openEnvironment(): void {
    privateDir(this.path)
    this.root = open({ path: this.path, ...BOARD_OPTIONS })
    privateFiles(this.path)
    this.seenTable = this.root.openDB<number, Key>('seen', {})
    this.watchTable = this.root.openDB<number, WatchKey>('watches', {})
  }

  // ---- the front's side ----

  /** A chunk of this session was acknowledged now. */
  seen(projectId: string, sessionKey: string): void {
    let sessions = this.pending.get(projectId)
    if (!sessions) this.pending.set(projectId, (sessions = new Map()))
    if (!sessions.has(sessionKey)) {
      if (this.pendingCount >= MAX_SEEN) return
      this.pendingCount += 1
    }
    sessions.set(sessionKey, this.clock())
  }

  /** Whether someone watched this session at the last sync. */
  watched(projectId: string, sessionKey: string): boolean {
    return this.watchedNow.get(projectId)?.has(sessionKey) ?? false
  }

  /** Syncs every SYNC_MS until close(); the timer never keeps the process alive. */
  startSyncing(): void {
    this.timer ??= setInterval(() => void this.sync().catch(() => {}), SYNC_MS).unref()
  }

  /** Writes what this process saw, drops what is no longer live, and reads the watches. */
  async sync(): Promise<void> {
    // Suspended: what was seen waits in memory for the board opened again.
    if (this.suspended) return
    const pending = this.pending
    this.pending = new Map()
    this.pendingCount = 0
    const now = this.clock()
    await this.root.transaction(() => {
      for (const [projectId, sessions] of pending) {
        for (const [sessionKey, at] of sessions) {
          const key: Key = [projectId, sessionKey]
          if ((this.seenTable.get(key) ?? 0) < at) this.seenTable.put(key, at)
        }
      }
      for (const { key, value } of this.seenTable.getRange()) if (value < now - LIVE_WINDOW_MS) this.seenTable.remove(key)
      for (const { key, value } of this.watchTable.getRange()) if (value < now) this.watchTable.remove(key)
    })
    const watched = new Map<string, Set<string>>()
    for (const { key, value } of this.watchTable.getRange()) {
      if (value < now) continue
      const [projectId, sessionKey] = key
      let sessions = watched.get(projectId)
      if (!sessions) watched.set(projectId, (sessions = new Set()))
      sessions.add(sessionKey)
    }
    this.watchedNow = watched
  }

  // ---- the control worker's side ----

  /** The cluster mode: told of every watch made here, to tell the other nodes (relay.ts). */
  onWatch?: (projectId: string, sessionKey: string, watcher: string, until: number) => void

  /** `watcher` follows the session until `until` (ms), unless renewed; `relayed`: another node's, not to be told again. */
  watch(projectId: string, sessionKey: string, watcher: string, until: number, relayed = false): Promise<unknown> {
    if (!relayed) this.onWatch?.(projectId, sessionKey, watcher, until)
    // Suspended, a watch is lost as the board is (the watcher renews it).
    return this.suspended ? Promise.resolve() : this.watchTable.put([projectId, sessionKey, watcher], until)
  }

  unwatch(projectId: string, sessionKey: string, watcher: string, relayed = false): Promise<unknown> {
    if (!relayed) this.onWatch?.(projectId, sessionKey, watcher, 0)
    return this.suspended ? Promise.resolve() : this.watchTable.remove([projectId, sessionKey, watcher])
  }

  /** The project's sessions that sent a chunk within LIVE_WINDOW_MS, most recent first; `limit` at most. */
  liveSessions(projectId: string, limit: number): LiveSession[] {
    const since = this.clock() - LIVE_WINDOW_MS
    const live: LiveSession[] = []
    if (this.suspended) return live
    for (const { key, value } of this.seenTable.getRange({ start: [projectId], end: [projectId, MAX_KEY_PART] as unknown as Key })) {
      if (value >= since) live.push({ sessionKey: key[1], lastSeenAt: value })
    }
    return live.sort((a, b) => b.lastSeenAt - a.lastSeenAt).slice(0, limit)
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.sync().catch(() => {})
    if (!this.suspended) await this.root.close()
    this.suspended = true
  }

  /** Closes the environment for an online compaction, which removes it (removeLiveBoard); the timer goes on, idle. */
  async suspend(): Promise<void> {
    if (this.suspended) return
    await this.sync().catch(() => {})
    this.suspended = true
    await this.root.close()
  }

  /** Opens the board again (a fresh one after a compaction) and syncs at the next tick of the timer. */
  reopen(): void {
    if (!this.suspended) return
    this.openEnvironment()
    this.suspended = false
  }
}

/** Where the board of the store at `dataDir` lives. */
export function liveBoardPath(dataDir: string): string {
  return join(dataDir, 'live')
}

/** With every process stopped (compaction): the board holds minutes of state, rebuilt by the next chunks and watches. */
export function removeLiveBoard(dataDir: string): void {
  rmSync(liveBoardPath(dataDir), { recursive: true, force: true })
}
