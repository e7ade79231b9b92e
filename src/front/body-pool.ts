/**
 * Ingest bodies read into reused buffers. A fresh 20 KB ArrayBuffer per
 * request is memory outside V8's heap, and allocating it at thousands per
 * second makes V8 run full collections to find out what it may free: CPU on
 * the front and on V8's helper threads for every chunk. When the front writes
 * its own batches (WRITER_THREADS=0) it knows when LMDB is done with a body
 * (the batch's commit), so the buffer goes back to the pool then.
 *
 * Buffers are kept by size class (powers of two from 1 KiB); the pool keeps at
 * most `maxBytes` of idle buffers and lets the rest go to the collector.
 */
const MIN_CLASS = 1024

function classOf(bytes: number): number {
  return Math.max(MIN_CLASS, 2 ** Math.ceil(Math.log2(bytes)))
}

export class BodyPool {
  private readonly idle = new Map<number, ArrayBuffer[]>()
  private idleBytes = 0
  /** Buffers out on loan: only these come back, so a body from anywhere else (a slice of Node's shared pool) never does. */
  private readonly lent = new WeakSet<ArrayBuffer>()
  /** Buffers handed out and buffers made, for tests and the benchmark. */
  taken = 0
  made = 0

  constructor(private readonly maxBytes: number) {}

  /** A body of exactly `bytes`, over a buffer of its size class (reused when one is idle). */
  take(bytes: number): Uint8Array {
    const size = classOf(bytes)
    let buffer = this.idle.get(size)?.pop()
    if (buffer) this.idleBytes -= size
    else {
      buffer = new ArrayBuffer(size)
      this.made += 1
    }
    this.taken += 1
    this.lent.add(buffer)
    return new Uint8Array(buffer, 0, bytes)
  }

  /** Gives back a body from `take`, once nothing reads it any more; anything else is ignored. */
  give(body: Uint8Array): void {
    const buffer = body.buffer
    if (!(buffer instanceof ArrayBuffer) || !this.lent.delete(buffer)) return
    const size = buffer.byteLength
    if (this.idleBytes + size > this.maxBytes) return
    let list = this.idle.get(size)
    if (!list) this.idle.set(size, (list = []))
    list.push(buffer)
    this.idleBytes += size
  }
}
