/** Seeded random input, so that a failing case can be reproduced from the seed a test names. */

/** mulberry32: small, fast, and good enough for test input. */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

/** `length` random bytes, only those `allowed` lets through when given. */
export function randomBytes(next: () => number, length: number, allowed?: (byte: number) => boolean): Buffer {
  const out = Buffer.alloc(length)
  for (let i = 0; i < length; ) {
    const byte = Math.floor(next() * 256)
    if (!allowed || allowed(byte)) out[i++] = byte
  }
  return out
}

/** Bytes HTTP allows in a header field value (RFC 9110 §5.5): visible ASCII, space, tab and obs-text. */
export const fieldValueByte = (b: number) => b === 0x09 || (b >= 0x20 && b <= 0x7e) || b >= 0x80
