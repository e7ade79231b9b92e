/**
 * Appending a control entry: the one way the applier, `npm run admin` and the
 * tests put a change in the control log. Its id is random (128 bits; sealed
 * inside the entry, where it makes a replayed copy refused, and the message's
 * id, where it makes a retry a duplicate), and its subject names nothing:
 * a client that can read or publish to the stream learns no operation and
 * can claim no id before the change is made (publish.ts checks a duplicate
 * against what the log holds all the same).
 */
import { encodeControl, decodeControl, type ControlEntry } from './entries.js'
import type { Appended, Log } from './log.js'
import { publishVerified, randomMessageId } from './publish.js'
import type { LogSeal } from './seal.js'
import { controlStream, controlSubject, type JournalLayout } from './streams.js'

const ID_PREFIX = 'ctl:'

export function newControlEntry(op: string, args: unknown[], node: string, ticket: number): ControlEntry {
  return { id: randomMessageId(ID_PREFIX), op, args, node, ticket }
}

export function appendControl(journal: Log, seal: LogSeal, layout: JournalLayout, entry: ControlEntry, deadline: number): Promise<Appended> {
  return publishVerified(journal, controlSubject(layout), seal.seal('control', encodeControl(entry)), {
    id: entry.id,
    deadline,
    stream: controlStream(layout),
    prefix: ID_PREFIX,
    isOurs(held) {
      try {
        return decodeControl(seal.open('control', held)).id === entry.id
      } catch {
        return false
      }
    },
  })
}
