/** Reading a recording by time (src/recordings/window.ts): from the checkpoint before `from`, to the chunk before `until`. */
import t from 'tap'
import { chunksInWindow } from '../../src/recordings/window.js'

const chunks = [
  { seq: 0, firstTs: 0, checkpoint: true as const },
  { seq: 1, firstTs: 100 },
  { seq: 2, firstTs: 200, checkpoint: true as const },
  { seq: 3, firstTs: 300 },
  { seq: 4, firstTs: 400 },
]
const seqs = (from?: number, until?: number) => chunksInWindow(chunks, from, until).map((c) => c.seq)

t.test('the answer starts at the last checkpoint at or before `from`', async (t) => {
  t.same(seqs(), [0, 1, 2, 3, 4], 'no window: the whole recording')
  t.same(seqs(350), [2, 3, 4], 'from inside the second snapshot\'s stretch')
  t.same(seqs(200), [2, 3, 4], 'from the checkpoint itself')
  t.same(seqs(150), [0, 1, 2, 3, 4], 'before the second checkpoint: from the first')
  t.same(chunksInWindow([{ firstTs: 0 }, { firstTs: 100 }], 150).length, 2, 'no checkpoint at all: from the start')
})

t.test('chunks that start at or after `until` are left out, never the first of the answer', async (t) => {
  t.same(seqs(undefined, 300), [0, 1, 2])
  t.same(seqs(350, 301), [2, 3])
  t.same(seqs(350, 0), [2], 'a window that ends before its checkpoint still answers that checkpoint')
})
