/**
 * gzip through the browser's own CompressionStream where it exists (Chrome 80,
 * Firefox 113, Safari 16.4); raw JSON otherwise. The chunk's meta says which,
 * and the server never decompresses on the ingest path.
 */
export type Encoding = 'gzip' | 'json'

export interface Encoded {
  body: Uint8Array
  encoding: Encoding
}

export const canGzip = () => typeof CompressionStream === 'function'

export const utf8 = (text: string) => new TextEncoder().encode(text)

export async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'))
  return new Uint8Array(await new Response(stream).arrayBuffer())
}

/** `sync`: no awaiting (the page is going away); sends raw JSON. */
export async function encode(text: string, sync = false): Promise<Encoded> {
  if (!sync && canGzip()) {
    try {
      return { body: await gzip(text), encoding: 'gzip' }
    } catch {
      // a browser that lists CompressionStream but fails it: fall back to raw JSON
    }
  }
  return { body: utf8(text), encoding: 'json' }
}
