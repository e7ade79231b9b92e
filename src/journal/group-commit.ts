/**
 * Group commit to the log. Items bound for one stream (a recording partition,
 * or the signals stream) that arrive together go out as one log message: one
 * seal, one PubAck round trip, one Raft entry for many chunks, which is most
 * of what a message costs the NATS servers. Each waiting request is answered
 * on its group's acknowledgement, with the group's sequence and its place in
 * the group.
 *
 * A stream's groups are published in order, at most `inFlight` at once; the
 * last group keeps taking items until it is full (`maxBytes`), its first item
 * has waited `windowMs`, or a slot frees while a newer group waits behind it.
 * Under load the groups therefore grow with the acknowledgement's round trip,
 * and a lone request waits no more than the window. What waits is bounded by
 * the caller (the ingest sink's queue bounds answer 429 past them).
 *
 * The group's message id is minted once, so a retry of a publish whose
 * acknowledgement was lost is a duplicate in the log; a chunk sent again in
 * another group (a resend, or a resend to another node) is a second copy in
 * the log, and the read model keeps its (project, session, seq) once.
 */
import { randomUUID } from 'node:crypto'
import { metrics } from '../metrics/registry.js'
import { encodeIngestGroup } from './entries.js'
import type { Log } from './log.js'
import { publishUntil } from './publish.js'
import type { LogSeal } from './seal.js'

export interface GroupOptions {
  /** How long a group's first item waits for others while a publish slot is free, ms. */
  windowMs: number
  /** A group's bytes at most, framing included (below the NATS servers' max_payload). */
  maxBytes: number
  /** Groups of one stream being published at once at most. */
  inFlight: number
}

export const DEFAULT_GROUP: GroupOptions = { windowMs: 2, maxBytes: 512 * 1024, inFlight: 4 }

/** Room left in a message for the seal, subject and headers beside a group. */
const MESSAGE_ROOM = 16 * 1024

/** The largest group the NATS servers take as one message (their max_payload; 1 MB when unknown). */
export function groupBytesFor(maxPayload = 1024 * 1024): number {
  return Math.max(64 * 1024, maxPayload - MESSAGE_ROOM)
}

/** Where the log holds an item: its group's sequence, and its index in the group. */
export interface GroupPlace {
  seq: number
  part: number
}

interface Member {
  frame: Uint8Array
  resolve: (place: GroupPlace) => void
  reject: (error: unknown) => void
}

interface Group {
  members: Member[]
  bytes: number
  opened: number
  /** The earliest deadline of its members: past it the group is not retried. */
  deadline: number
}

interface Lane {
  subject: string
  waiting: Group[]
  inFlight: number
  timer?: NodeJS.Timeout
}

/** Bytes of the group's magic, and of each frame's length. */
const GROUP_HEAD_BYTES = 2
const FRAME_HEAD_BYTES = 4

export class GroupCommit {
  private readonly lanes = new Map<string, Lane>()

  constructor(
    private readonly log: Log,
    private readonly seal: LogSeal,
    private readonly options: GroupOptions = DEFAULT_GROUP,
  ) {}

  /** Appends `frame` (an encodeIngest) to `stream` through `subject`; resolves once the log holds its group. Rejects as publishUntil. */
  add(stream: string, subject: string, frame: Uint8Array, deadline: number): Promise<GroupPlace> {
    let lane = this.lanes.get(stream)
    if (!lane) this.lanes.set(stream, (lane = { subject, waiting: [], inFlight: 0 }))
    const size = FRAME_HEAD_BYTES + frame.byteLength
    let group = lane.waiting.at(-1)
    if (!group || group.bytes + size > this.options.maxBytes) {
      group = { members: [], bytes: GROUP_HEAD_BYTES, opened: Date.now(), deadline }
      lane.waiting.push(group)
    }
    const joined = group
    const placed = new Promise<GroupPlace>((resolve, reject) => joined.members.push({ frame, resolve, reject }))
    joined.bytes += size
    joined.deadline = Math.min(joined.deadline, deadline)
    this.pump(lane)
    return placed
  }

  /** Publishes the lane's groups that are ready while it has slots; wakes itself for a group still in its window. */
  private pump(lane: Lane): void {
    clearTimeout(lane.timer)
    lane.timer = undefined
    while (lane.inFlight < this.options.inFlight && lane.waiting.length > 0) {
      const first = lane.waiting[0]
      const wait = first.opened + this.options.windowMs - Date.now()
      const ready = lane.waiting.length > 1 || wait <= 0 || first.bytes + FRAME_HEAD_BYTES >= this.options.maxBytes
      if (!ready) {
        lane.timer = setTimeout(() => this.pump(lane), wait)
        return
      }
      lane.waiting.shift()
      lane.inFlight += 1
      void this.publish(lane, first).finally(() => {
        lane.inFlight -= 1
        this.pump(lane)
      })
    }
  }

  private async publish(lane: Lane, group: Group): Promise<void> {
    metrics.logGroupItems.observe(group.members.length)
    try {
      const sealed = this.seal.seal('ingest', encodeIngestGroup(group.members.map((m) => m.frame)))
      const { seq } = await publishUntil(this.log, lane.subject, sealed, { id: `grp:${randomUUID()}`, deadline: group.deadline })
      group.members.forEach((member, part) => member.resolve({ seq, part }))
    } catch (error) {
      for (const member of group.members) member.reject(error)
    }
  }
}
