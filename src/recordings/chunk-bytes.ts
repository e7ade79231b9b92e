/**
 * Where a chunk's bytes are read from: this node's store, or (cluster mode,
 * src/journal/chunk-bytes.ts) the log, for chunks whose store record keeps
 * only their position there.
 */
import type { ChunkInfo, Store } from '../store/store.js'

export type ChunkBytes = (projectId: string, sk: string, info: ChunkInfo) => Uint8Array | undefined | Promise<Uint8Array | undefined>

export const storedChunkBytes =
  (store: Store): ChunkBytes =>
  (projectId, sk, info) =>
    store.getChunk(projectId, sk, info.seq)
