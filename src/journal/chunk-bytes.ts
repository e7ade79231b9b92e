/**
 * A chunk's bytes in the cluster mode: from this node's LMDB when it keeps
 * them (NATS_CHUNK_BYTES=lmdb), otherwise read by sequence from any replica
 * of its recording stream (JetStream direct get), so that recordings take
 * the NATS cluster's disks, not each node's.
 */
import type { ChunkBytes } from '../recordings/chunk-bytes.js'
import type { Store } from '../store/store.js'
import { decodeIngestMessage } from './entries.js'
import type { Log } from './log.js'
import type { LogSeal } from './seal.js'

export function journalChunkBytes(store: Store, log: Log, seal: LogSeal): ChunkBytes {
  return async (projectId, sk, info) => {
    const held = store.getChunk(projectId, sk, info.seq)
    if (held || !info.journal) return held
    // Gone from the log: the stream's max_age (RETENTION_DAYS) expired it.
    const data = await log.get(info.journal.stream, info.journal.seq)
    if (!data) return undefined
    const item = decodeIngestMessage(seal.open('ingest', data))[info.journal.part ?? 0]?.item
    return item?.kind === 'chunk' ? item.body : undefined
  }
}
