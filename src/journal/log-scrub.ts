/**
 * An erasure in the cluster mode reaches the log itself (issue 34). Every
 * message holding a chunk or signals batch the request names is rewritten
 * without them: what else it held (maybe nothing) goes out first as a new message (its id
 * derived from the one it replaces under the log secret, so that nodes scrubbing the same message
 * at once add one copy and no one else can claim it first), then the old message is removed with JetStream's
 * erase, which overwrites its bytes in the servers' files. Nodes that held
 * the rest already move their records to the new place (lmdb/append.ts); a
 * node rebuilt from the log later never meets what was erased.
 *
 * Each node runs its own copy of a request (the request is a control entry),
 * and scrubs before it erases its own records, which are what say where the
 * log holds the request's items: a node that stopped half way scrubs again
 * on its next start, and a message another node scrubbed first is gone or
 * holds nothing the request names.
 */
import type { ErasedPlaces, ErasureSubject } from '../store/erasure-store.js'
import { SubjectMatch } from '../store/erasure-subjects.js'
import type { IngestItem } from '../store/records.js'
import { decodeIngestMessage, encodeIngest, encodeIngestGroup } from './entries.js'
import type { Log } from './log.js'
import { publishVerified } from './publish.js'
import type { LogSeal } from './seal.js'
import { recordingGroupSubject, recordingStream, signalsGroupSubject, signalsStream, type JournalLayout } from './streams.js'

export interface ScrubRequest {
  projectId: string
  /** As the erasure records it: a session, visitor or user by keyed hash, matched under `subjectKey`. */
  by: ErasureSubject
  places: ErasedPlaces
  subjectKey?: Buffer
}

export interface ScrubResult {
  /** Messages that held something the request names, rewritten (or removed, when they held nothing else). */
  rewritten: number
  /** Chunks and signals batches erased from the log. */
  items: number
}

/** Whether the request names `item`: a chunk or batch of one of its sessions, or a batch naming its subject itself. */
function erases(request: ScrubRequest, match: SubjectMatch, item: IngestItem): boolean {
  if (item.projectId !== request.projectId || item.kind === 'style') return false
  if (item.kind === 'chunk') return request.places.sessions.has(item.meta.sk)
  return request.places.sessions.has(item.batch.sk) || match.batch(item.batch)
}

/** The subject a rewritten message of `stream` goes to. */
function subjectOf(layout: JournalLayout, stream: string): string {
  if (stream === signalsStream(layout)) return signalsGroupSubject(layout)
  for (let partition = 0; partition < layout.partitions; partition++) if (recordingStream(layout, partition) === stream) return recordingGroupSubject(layout, partition)
  throw new Error(`stream ${stream} holds no recordings or signals: nothing in it is erased`)
}

export async function scrubLog(log: Log, seal: LogSeal, layout: JournalLayout, request: ScrubRequest, deadlineMs: number): Promise<ScrubResult> {
  const result: ScrubResult = { rewritten: 0, items: 0 }
  const match = new SubjectMatch(request.projectId, request.by, request.subjectKey)
  for (const { stream, seq } of request.places.messages) {
    // Gone already: another node scrubbed it, or the stream's max_age expired it.
    const data = await log.get(stream, seq)
    if (!data) continue
    const entries = decodeIngestMessage(seal.open('ingest', data))
    const kept = entries.filter((entry) => !erases(request, match, entry.item))
    if (kept.length === entries.length) continue
    // Sent even when nothing is kept (an empty group): a stream whose last message was removed would say its last
    // sequence is one no reader can reach, and a node rebuilt from it would wait for that sequence for ever.
    const plain = Buffer.from(encodeIngestGroup(kept.map((entry) => encodeIngest(entry))))
    await publishVerified(log, subjectOf(layout, stream), seal.seal('ingest', plain), {
      id: seal.messageId('mv:', stream, seq),
      deadline: Date.now() + deadlineMs,
      stream,
      prefix: 'mv:',
      // Another node's rewrite of the same message holds the same entries; anything else under this id is not ours.
      isOurs: (held) => opens(seal, held, plain),
    })
    await log.remove(stream, seq)
    result.rewritten += 1
    result.items += entries.length - kept.length
  }
  return result
}

function opens(seal: LogSeal, held: Uint8Array, plain: Buffer): boolean {
  try {
    return plain.equals(seal.open('ingest', held))
  } catch {
    return false
  }
}
