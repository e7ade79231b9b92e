/** The front's body buffers (src/front/body-pool.ts): reused by size class, bounded, and never handed out twice at once. */
import t from 'tap'
import { BodyPool } from '../../src/front/body-pool.js'

t.test('a body is exactly the size asked for, over a buffer of its power-of-two class', async (t) => {
  const pool = new BodyPool(1 << 20)
  const body = pool.take(20_000)
  t.equal(body.byteLength, 20_000)
  t.equal(body.buffer.byteLength, 32_768)
  t.equal(pool.take(10).buffer.byteLength, 1024, 'the smallest class is 1 KiB')
  t.equal(pool.take(1024).buffer.byteLength, 1024)
  t.equal(pool.take(1025).buffer.byteLength, 2048)
})

t.test('a buffer given back is handed out again, to one taker', async (t) => {
  const pool = new BodyPool(1 << 20)
  const first = pool.take(20_000)
  pool.give(first)
  const second = pool.take(17_000)
  t.equal(second.buffer, first.buffer, 'the same class reuses the buffer')
  t.equal(second.byteLength, 17_000)
  const third = pool.take(17_000)
  t.not(third.buffer, first.buffer, 'while it is out, another taker gets a new one')
  t.equal(pool.made, 2)
  t.equal(pool.taken, 3)
})

t.test('idle buffers are bounded, and foreign ones are not adopted', async (t) => {
  const pool = new BodyPool(64 * 1024)
  const bodies = Array.from({ length: 4 }, () => pool.take(30_000))
  for (const body of bodies) pool.give(body)
  const again = Array.from({ length: 4 }, () => pool.take(30_000))
  t.equal(again.filter((b) => bodies.some((old) => old.buffer === b.buffer)).length, 2, 'only 64 KiB (two 32 KiB buffers) were kept')
  const small = new BodyPool(1 << 20)
  small.give(new Uint8Array(new ArrayBuffer(5000)))
  small.give(new Uint8Array(new ArrayBuffer(4096), 16, 100))
  small.give(new Uint8Array(new SharedArrayBuffer(4096)))
  // A class-sized buffer the pool never lent: a slice of Node's shared 8 KiB pool starting at 0 looks like this.
  small.give(new Uint8Array(new ArrayBuffer(8192), 0, 201))
  small.take(4000)
  small.take(3000)
  small.take(8000)
  t.equal(small.made, 3, 'an odd size, an offset view, shared memory and a buffer it never lent were all ignored')
  const lent = small.take(100)
  small.give(lent)
  small.give(lent)
  t.equal(small.take(100).buffer, lent.buffer, 'a buffer it lent comes back')
  t.not(small.take(100).buffer, lent.buffer, 'once, however often it is given')
})
