/**
 * A part of a recording by time: the chunks from the last checkpoint (a chunk
 * that starts with a full snapshot) at or before `from`, so that what is read
 * replays on its own without the hours before it, up to the last chunk that
 * starts before `until`. Chunk boundaries bound the answer: it may begin
 * earlier than `from` (at its checkpoint) and end a little after `until`.
 */
import type { ChunkInfo } from '../store/records.js'

export function chunksInWindow<C extends Pick<ChunkInfo, 'firstTs' | 'checkpoint'>>(chunks: readonly C[], from?: number, until?: number): C[] {
  let start = 0
  if (from !== undefined) {
    for (let i = 0; i < chunks.length && chunks[i].firstTs <= from; i++) if (chunks[i].checkpoint) start = i
  }
  let end = chunks.length
  if (until !== undefined) while (end > start + 1 && chunks[end - 1].firstTs >= until) end--
  return chunks.slice(start, end)
}
