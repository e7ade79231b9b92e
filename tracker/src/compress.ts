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

export async function gzip(text: string | Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  // The text's bytes written straight in: a Blob of it would be handed to the browser's blob store and read back
  // (bench/RESULTS.md). A failure shows in the output, which encode catches.
  const { readable, writable } = new CompressionStream('gzip')
  const writer = writable.getWriter()
  void Promise.all([writer.write(typeof text === 'string' ? utf8(text) : text), writer.close()]).catch(() => {})
  return new Uint8Array(await new Response(readable).arrayBuffer())
}

/** `sync`: no awaiting (the page is going away); sends raw JSON. `text` may come as its bytes already (a stylesheet's, hashed first). */
export async function encode(text: string | Uint8Array<ArrayBuffer>, sync = false): Promise<Encoded> {
  if (!sync && canGzip()) {
    try {
      return { body: await gzip(text), encoding: 'gzip' }
    } catch {
      // a browser that lists CompressionStream but fails it: fall back to raw JSON
    }
  }
  return { body: typeof text === 'string' ? utf8(text) : text, encoding: 'json' }
}
