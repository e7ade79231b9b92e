/**
 * What one read of the read pool costs, counted where every read passes: the
 * tables' own lookups (lmdb-js `getBinaryFast`, under `get`, `doesExist` and
 * `getMany`) and range scans (`getRange`, under `getKeys`, `getValues` and
 * the counts). A read thread (workers/read.ts) installs the meter once and
 * arms it for each read it runs: every entry any table yields meanwhile
 * counts one, with the bytes of its value, and the entry past a bound throws
 * `ReadPastBound`. The bound then holds for every read the pool runs, a new
 * one included, without the read counting anything itself.
 *
 * Only read threads install it: the control worker's loop and the writers
 * never pay for the counting.
 */

export interface MeterLimits {
  /** Entries a read may examine: each lookup that finds one, each entry a scan yields, each entry a count passes. */
  entries: number
  /** Bytes of values a read may materialise, all its entries together. */
  bytes: number
}

/** A read passed one of its bounds; the entry past it was not taken. */
export class ReadPastBound extends Error {
  constructor(
    readonly bound: keyof MeterLimits,
    readonly limit: number,
  ) {
    super(`the read passed its bound of ${limit} ${bound}`)
  }
}

export class ReadMeter {
  entries = 0
  bytes = 0

  constructor(readonly limits: MeterLimits) {}

  take(entries: number, bytes: number): void {
    if (this.entries + entries > this.limits.entries) throw new ReadPastBound('entries', this.limits.entries)
    if (this.bytes + bytes > this.limits.bytes) throw new ReadPastBound('bytes', this.limits.bytes)
    this.entries += entries
    this.bytes += bytes
  }
}

let armed: ReadMeter | undefined

/** Runs `read` with `meter` counting every table access it makes (installMeter first); answers what it answers. */
export async function metered<T>(meter: ReadMeter, read: () => T | Promise<T>): Promise<T> {
  armed = meter
  try {
    return await read()
  } finally {
    armed = undefined
  }
}

/** The slice of lmdb-js's database prototype the meter wraps. */
interface Readable {
  lastSize?: number
  getBinaryFast(this: Readable, ...args: unknown[]): Uint8Array | undefined
  getRange(this: Readable, options?: { values?: boolean; onlyCount?: boolean }): Scan
}
interface Scan extends Iterable<unknown> {
  map(each: (entry: unknown) => unknown): Scan
  iterate(): unknown
}

const installed = new WeakSet<object>()

/**
 * A scanned value's size: a buffer's own length (lmdb-js hands large values
 * over as mapped buffers without setting lastSize), else the size lmdb-js
 * noted for the value it has just decoded, before the entry reaches `map`.
 */
function valueSize(entry: unknown, lastSize = 0): number {
  const value = typeof entry === 'object' && entry !== null && 'value' in entry ? entry.value : entry
  return value instanceof Uint8Array ? value.length : lastSize
}

/**
 * Wraps the lookups and scans of every database that shares a prototype with
 * one of `tables` (lmdb-js makes one class per environment, shared by its
 * tables): pass a table of each environment, or all of them. Idempotent.
 */
export function installMeter(tables: Iterable<object>): void {
  for (const table of tables) meterPrototype(Object.getPrototypeOf(table) as Readable)
}

function meterPrototype(proto: Readable): void {
  if (installed.has(proto)) return
  installed.add(proto)
  const getBinaryFast = proto.getBinaryFast
  const getRange = proto.getRange
  proto.getBinaryFast = function (...args) {
    const bytes = getBinaryFast.apply(this, args)
    if (armed && bytes !== undefined) armed.take(1, this.lastSize ?? bytes.length)
    return bytes
  }
  proto.getRange = function (options) {
    const scan = getRange.call(this, options)
    if (!armed) return scan
    if (options?.onlyCount) {
      // A count walks the entries without materialising them: each costs an entry, no bytes, charged when it ends.
      const iterate = scan.iterate.bind(scan)
      scan.iterate = () => {
        const count = iterate()
        if (armed && typeof count === 'number') armed.take(count, 0)
        return count
      }
      return scan
    }
    const values = options?.values !== false
    return scan.map((entry) => {
      if (armed) armed.take(1, values ? valueSize(entry, this.lastSize) : 0)
      return entry
    })
  }
}
