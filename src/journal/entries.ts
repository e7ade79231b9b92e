/**
 * One log entry per ingest item: what a front hands its writer today (the
 * chunk with its validated metadata, or the signals body as sent), framed so
 * that the bytes travel untouched: a 4-byte length, the JSON header, then the
 * body. Every node applies an entry the way its writer applies the item.
 */
import type { WriteItem } from '../cluster/messages.js'

type Header = Omit<WriteItem, 'body'>

export function encodeEntry(item: WriteItem): Uint8Array {
  const { body, ...header } = item
  const head = Buffer.from(JSON.stringify(header))
  const entry = Buffer.allocUnsafe(4 + head.byteLength + body.byteLength)
  entry.writeUInt32BE(head.byteLength, 0)
  head.copy(entry, 4)
  entry.set(body, 4 + head.byteLength)
  return entry
}

/** Throws on an entry this code did not write (a truncated or foreign message): the applier stops rather than guess. */
export function decodeEntry(entry: Uint8Array): WriteItem {
  const bytes = Buffer.from(entry.buffer, entry.byteOffset, entry.byteLength)
  if (bytes.byteLength < 4) throw new Error('log entry shorter than its frame')
  const headLength = bytes.readUInt32BE(0)
  if (4 + headLength > bytes.byteLength) throw new Error('log entry header runs past its end')
  const header = JSON.parse(bytes.subarray(4, 4 + headLength).toString()) as Header
  if (header.kind !== 'chunk' && header.kind !== 'signals-body') throw new Error(`log entry of unknown kind ${String((header as { kind?: unknown }).kind)}`)
  return { ...header, body: bytes.subarray(4 + headLength) } as WriteItem
}
