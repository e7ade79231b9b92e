/** A gzip bomb for the read-back tests: compressed a megabyte at a time, so the inflated bytes never exist in memory. */
import { once } from 'node:events'
import { createGzip } from 'node:zlib'

/** Gzip of `head`, `bytes` of 'a', then `tail`: at level 9, 150 MiB of it is about 150 KB. */
export async function gzipBomb(head: string, bytes: number, tail: string): Promise<Buffer> {
  const gzip = createGzip({ level: 9 })
  const out: Buffer[] = []
  gzip.on('data', (piece: Buffer) => out.push(piece))
  const ended = once(gzip, 'end')
  const block = Buffer.alloc(1024 * 1024, 'a')
  gzip.write(head)
  for (let written = 0; written < bytes; written += block.length) {
    if (!gzip.write(block)) await once(gzip, 'drain')
  }
  gzip.end(tail)
  await ended
  return Buffer.concat(out)
}
