/**
 * Sorts after every string and number in lmdb-js's ordered-binary keys: a raw
 * 0xff byte, which no encoded key part starts with (strings are UTF-8, whose
 * bytes never reach 0xff; numbers start at 0x10). The string '\uffff' (UTF-8
 * ef bf bf) did not: session keys with astral characters (f0…) or starting
 * with '\uffff' sorted after it and were left out of listings. The end of a
 * range over every key under a prefix: `{ start: [prefix], end: [prefix, MAX_KEY_PART] }`.
 */
export const MAX_KEY_PART = new Uint8Array([0xff])
