/**
 * Where the pointer came to rest. rrweb samples mouse moves at most every
 * 50 ms and drops the rest of each window, so a fast movement's end is often
 * not in the recording and the replayed cursor stops short of it. Once the
 * pointer has been still for REST_MS, this adds the position it stopped at,
 * as rrweb's own mouse-move event, unless that is the last one recorded.
 * Per move it costs three assignments; at most one timer runs.
 */
import type { Guard } from './guard.js'
import { listen, type Off } from './guard.js'

/**
 * After rrweb's own batch of the same movement: rrweb sends the positions it sampled up to 500 ms after the batch's
 * first (its mousemoveCallback default), and a paused replay applies mouse moves in the order they were sent, so a
 * rest sent before that batch was overridden by the batch's last, earlier, position.
 */
const REST_MS = 600
/** rrweb's IncrementalSnapshot event, MouseMove source. */
const INCREMENTAL = 3
const MOUSE_MOVE = 1

export interface PointerEnd {
  /** rrweb recorded a sample at (x, y): the rest needs no event of its own if the pointer stopped there. */
  recorded(x: number, y: number): void
  off: Off
}

export function recordPointerEnd(guard: Guard, idOf: (node: Node) => number, emit: (event: { type: number; timestamp: number; data: any }) => void): PointerEnd {
  let x = 0
  let y = 0
  let target: EventTarget | null = null
  let movedAt = 0
  let sentX = Number.NaN
  let sentY = Number.NaN
  let timer: ReturnType<typeof setTimeout> | undefined

  const settle = guard.wrap(() => {
    const still = Date.now() - movedAt
    if (still < REST_MS) return void (timer = setTimeout(settle, REST_MS - still))
    timer = undefined
    if (x === sentX && y === sentY) return
    sentX = x
    sentY = y
    const id = target instanceof Node ? idOf(target) : -1
    const now = Date.now()
    emit({ type: INCREMENTAL, timestamp: now, data: { source: MOUSE_MOVE, positions: [{ x, y, id, timeOffset: movedAt - now }] } })
  })

  const off = listen(guard, document, 'mousemove', (event: MouseEvent) => {
    x = event.clientX
    y = event.clientY
    target = event.target
    movedAt = Date.now()
    timer ??= setTimeout(settle, REST_MS)
  })
  return {
    recorded(atX, atY) {
      sentX = atX
      sentY = atY
    },
    off() {
      off()
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
    },
  }
}
