/**
 * The canvas encoder, run in a Worker that canvas.ts starts from a blob: URL
 * made of `canvasWorker`'s source text: so the function may use nothing from
 * outside its own body (no imports, no module constants). The page's thread
 * only takes an ImageBitmap of the canvas and hands it over (transferred, not
 * copied); reading the pixels, telling whether they changed and encoding them
 * all happen here.
 */

/** canvas.ts → worker: one sampled canvas. `force`: encode even if unchanged (a full snapshot blanked the replay's canvas). */
export interface FrameAsk {
  n: number
  id: number
  bitmap: ImageBitmap
  quality: number
  force: boolean
}

/** worker → canvas.ts: `url` (a data: URL) when a frame is to be sent; none when the pixels did not change, the canvas was never drawn on, or encoding failed. */
export interface FrameAnswer {
  n: number
  url?: string
}

/** Workers have it; the tracker's TypeScript library (the DOM's) does not name it. */
declare const FileReaderSync: { new (): { readAsDataURL(blob: Blob): string } }

export function canvasWorker(): void {
  /** Canvas id → a hash of the pixels last sent: an unchanged canvas costs a pass over its pixels here, nothing on the page. */
  const sent = new Map<number, number>()
  let canvas: OffscreenCanvas | undefined
  const scope = self as unknown as { onmessage: (event: MessageEvent<FrameAsk>) => void; postMessage(answer: FrameAnswer): void }
  scope.onmessage = async (event) => {
    const { n, id, bitmap, quality, force } = event.data
    let url: string | undefined
    try {
      const w = bitmap.width
      const h = bitmap.height
      if (!canvas) canvas = new OffscreenCanvas(w, h)
      canvas.width = w // also clears what the last frame left
      canvas.height = h
      const ctx = canvas.getContext('2d', { willReadFrequently: true })!
      ctx.drawImage(bitmap, 0, 0)
      const pixels = new Int32Array(ctx.getImageData(0, 0, w, h).data.buffer)
      // FNV-1a over every pixel and the size: a changed canvas that hashes alike (about 1 in 4 billion) waits for its next change.
      let hash = Math.imul(0x811c9dc5 ^ w, 16777619) ^ h
      let inked = 0
      for (let i = 0; i < pixels.length; i++) {
        hash = Math.imul(hash ^ pixels[i], 16777619)
        inked |= pixels[i]
      }
      const last = sent.get(id)
      // Never drawn on (or a WebGL canvas without preserveDrawingBuffer, read blank after it was shown), and nothing sent before: the replay's canvas is blank already.
      const blank = !inked && last === undefined
      if (!blank && (force || hash !== last)) {
        let blob = await canvas.convertToBlob({ type: 'image/webp', quality })
        if (blob.type !== 'image/webp') {
          // No WebP encoder (Safari): JPEG, which has no transparency, over white, the usual page background.
          ctx.globalCompositeOperation = 'destination-over'
          ctx.fillStyle = '#fff'
          ctx.fillRect(0, 0, w, h)
          blob = await canvas.convertToBlob({ type: 'image/jpeg', quality })
        }
        url = new FileReaderSync().readAsDataURL(blob)
        sent.set(id, hash)
      }
    } catch {
      // An unreadable or unencodable frame is skipped; the next sample tries again.
    }
    bitmap.close()
    scope.postMessage({ n, url })
  }
}
