/**
 * The log's entries. An ingest entry is an item as the store appends it (the
 * page keys already decided by the node that took it, so every node applies
 * the same), framed so that a chunk's or stylesheet's bytes travel untouched: a 4-byte
 * length, the JSON header, then the body. One log message carries one frame,
 * or a group of them (group commit, group-commit.ts): 'G1', then each frame
 * after its 4-byte length. A frame starts with a zero byte (its header is far
 * shorter than 16 MB), so the two never read as each other. A control entry is one store
 * mutation, by name, with its arguments: every node applies the same calls in
 * the log's order, so a uniqueness rule (one first owner, one project per
 * public key) is decided by that order, the same way on every node.
 */
import type { IngestItem } from '../store/store.js'

export interface IngestEntry {
  item: IngestItem
  /** The control log position the publishing node had applied: a node applies this entry only once it has too. */
  after: number
}

export interface ControlEntry {
  /** Minted once by its publisher: a copy of the entry appended again (a replay) is refused by every node. */
  id: string
  op: string
  args: unknown[]
  /** The node that published it, and its ticket there: that node answers its client with this call's result. */
  node: string
  ticket: number
}

export function encodeIngest(entry: IngestEntry): Uint8Array {
  const { item, after } = entry
  const body = item.kind === 'signals' ? new Uint8Array(0) : item.body
  const header = item.kind === 'signals' ? { after, item } : { after, item: { ...item, body: undefined } }
  const head = Buffer.from(JSON.stringify(header))
  const frame = Buffer.allocUnsafe(4 + head.byteLength + body.byteLength)
  frame.writeUInt32BE(head.byteLength, 0)
  head.copy(frame, 4)
  frame.set(body, 4 + head.byteLength)
  return frame
}

/** Throws on an entry this code did not write (a truncated or foreign message): the applier stops rather than guess. */
export function decodeIngest(frame: Uint8Array): IngestEntry {
  const bytes = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength)
  if (bytes.byteLength < 4) throw new Error('log entry shorter than its frame')
  const headLength = bytes.readUInt32BE(0)
  if (4 + headLength > bytes.byteLength) throw new Error('log entry header runs past its end')
  const header = JSON.parse(bytes.subarray(4, 4 + headLength).toString()) as IngestEntry
  const kind = (header.item as { kind?: unknown } | undefined)?.kind
  if (kind !== 'chunk' && kind !== 'signals' && kind !== 'style') throw new Error(`log entry of unknown kind ${String(kind)}`)
  if (kind !== 'signals') (header.item as Extract<IngestItem, { kind: 'chunk' | 'style' }>).body = bytes.subarray(4 + headLength)
  return header
}

const GROUP_MAGIC = Buffer.from('G1')

/** One log message holding `frames` (each an encodeIngest), in order. */
export function encodeIngestGroup(frames: Uint8Array[]): Uint8Array {
  let size = GROUP_MAGIC.byteLength
  for (const frame of frames) size += 4 + frame.byteLength
  const group = Buffer.allocUnsafe(size)
  GROUP_MAGIC.copy(group, 0)
  let at = GROUP_MAGIC.byteLength
  for (const frame of frames) {
    group.writeUInt32BE(frame.byteLength, at)
    group.set(frame, at + 4)
    at += 4 + frame.byteLength
  }
  return group
}

/** The entries of one log message, a group or a single frame, in order (an entry's index is its `part`). Throws as decodeIngest. */
export function decodeIngestMessage(message: Uint8Array): IngestEntry[] {
  const bytes = Buffer.from(message.buffer, message.byteOffset, message.byteLength)
  if (!(bytes.byteLength >= GROUP_MAGIC.byteLength && bytes[0] === GROUP_MAGIC[0] && bytes[1] === GROUP_MAGIC[1])) return [decodeIngest(bytes)]
  const entries: IngestEntry[] = []
  let at = GROUP_MAGIC.byteLength
  while (at < bytes.byteLength) {
    if (at + 4 > bytes.byteLength) throw new Error('log group cut inside a frame length')
    const end = at + 4 + bytes.readUInt32BE(at)
    if (end > bytes.byteLength) throw new Error('log group frame runs past its end')
    entries.push(decodeIngest(bytes.subarray(at + 4, end)))
    at = end
  }
  return entries
}

export function encodeControl(entry: ControlEntry): Uint8Array {
  return Buffer.from(JSON.stringify(entry))
}

export function decodeControl(data: Uint8Array): ControlEntry {
  const entry = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString()) as ControlEntry
  if (typeof entry?.id !== 'string' || typeof entry.op !== 'string' || !Array.isArray(entry.args)) throw new Error('control log entry without id, op and args')
  return entry
}
