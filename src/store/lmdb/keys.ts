/**
 * Sorts after every string and number in lmdb-js's ordered-binary keys: a raw
 * 0xff byte, which no encoded key part starts with (strings are UTF-8, whose
 * bytes never reach 0xff; numbers start at 0x10). The string '\uffff' (UTF-8
 * ef bf bf) did not: session keys with astral characters (f0…) or starting
 * with '\uffff' sorted after it and were left out of listings. The end of a
 * range over every key under a prefix: `{ start: [prefix], end: [prefix, MAX_KEY_PART] }`.
 */
export const MAX_KEY_PART = new Uint8Array([0xff])

/**
 * Longest key read as it is. LMDB refuses keys past 1,978 bytes and lmdb-js
 * throws a RangeError while encoding one; every key this store writes is far
 * shorter (page keys past 1,024 bytes enter hashed, append.ts), so a longer
 * key comes from a client and names nothing.
 */
export const MAX_READ_KEY_BYTES = 1_900

type KeyPart = string | number | Uint8Array | boolean | null | undefined | object

/** Whether a key would be refused by LMDB: an upper bound of its ordered-binary size, cheap for short keys. */
export function keyTooLong(key: KeyPart | KeyPart[]): boolean {
  const parts = Array.isArray(key) ? key : [key]
  let bound = 0
  for (const part of parts) bound += typeof part === 'string' ? part.length * 3 + 1 : part instanceof Uint8Array ? part.byteLength + 1 : 10
  if (bound <= MAX_READ_KEY_BYTES) return false
  let bytes = 0
  for (const part of parts) bytes += typeof part === 'string' ? Buffer.byteLength(part) + 1 : part instanceof Uint8Array ? part.byteLength + 1 : 10
  return bytes > MAX_READ_KEY_BYTES
}

/** lmdb-js's point reads; ranges take their bounds from the store, not from clients. */
const POINT_READS = ['get', 'getEntry', 'getBinary', 'getBinaryFast'] as const

interface Readable {
  doesExist(key: never, ...rest: never[]): boolean
}

/**
 * Makes a table's point reads answer "absent" for a key too long to exist,
 * instead of throwing: one request with a 5,000-character public key would
 * otherwise end a front. Every table goes through this when the store opens it.
 */
export function absentPastKeyLimit<D extends Readable>(table: D): D {
  const methods = table as unknown as Record<string, (...args: unknown[]) => unknown>
  for (const name of POINT_READS) {
    const read = methods[name].bind(table)
    methods[name] = (key: unknown, ...rest: unknown[]) => (keyTooLong(key as KeyPart) ? undefined : read(key, ...rest))
  }
  const doesExist = methods.doesExist.bind(table)
  methods.doesExist = (key: unknown, ...rest: unknown[]) => (keyTooLong(key as KeyPart) ? false : doesExist(key, ...rest))
  return table
}
