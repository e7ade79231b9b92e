/**
 * A chunk's bytes in the cluster mode: from this node's LMDB when it keeps
 * them (NATS_CHUNK_BYTES=lmdb), otherwise read by sequence from any replica
 * of its recording stream (JetStream direct get), so that recordings take
 * the NATS cluster's disks, not each node's.
 */
import { log } from '../log.js'
import { waitAway } from '../waiting.js'
import type { ChunkBytes } from '../recordings/chunk-bytes.js'
import type { ChunkInfo, Store } from '../store/store.js'
import { decodeIngestMessage } from './entries.js'
import type { Log } from './log.js'
import type { LogSeal } from './seal.js'

export function journalChunkBytes(store: Store, journal: Log, seal: LogSeal): ChunkBytes {
  /** The chunk at the place this node applied it, if the message there is the one it applied: its item names this chunk. */
  const chunkIn = (data: Uint8Array | undefined, projectId: string, sk: string, info: ChunkInfo) => {
    if (!data) return undefined
    const item = decodeIngestMessage(seal.open('ingest', data))[info.journal!.part ?? 0]?.item
    return item?.kind === 'chunk' && item.projectId === projectId && item.meta.sk === sk && item.meta.seq === info.seq ? item.body : undefined
  }
  return async (projectId, sk, info) => {
    const kept = store.getChunk(projectId, sk, info.seq)
    if (kept || !info.journal) return kept
    const { stream, seq } = info.journal
    // A replica may be behind, or (as Jepsen found JetStream's can be) hold another message at that sequence:
    // then the stream's leader is asked. Gone from both: the stream's max_age (RETENTION_DAYS) expired it.
    const held = await waitAway(() => journal.get(stream, seq))
    const fromReplica = chunkIn(held, projectId, sk, info)
    if (fromReplica) return fromReplica
    if (held) log.warn('a replica holds another message where this node applied a chunk; reading the leader\'s', { stream, seq })
    const fromLeader = chunkIn(await waitAway(() => journal.getFromLeader(stream, seq)), projectId, sk, info)
    if (!fromLeader) log.warn('a chunk is not where this node applied it, on a replica nor on the leader', { stream, seq })
    return fromLeader
  }
}
