/**
 * The background check of applied log messages against the leader
 * (src/journal/applied-check.ts): a difference counts only when the leader
 * answers the same message again later, so a server answering mid-election
 * from a log the new leader will not keep changes nothing. Control entries
 * here: a difference there is counted, which needs no decoding.
 */
import t from 'tap'
import { AppliedCheck } from '../../src/journal/applied-check.js'
import { metrics } from '../../src/metrics/registry.js'

const message = (fill: number) => new Uint8Array(40).fill(fill)
const counted = async () => (await metrics.journalControlDiverged.get()).values[0]?.value ?? 0

function checkWith(answers: (Uint8Array | undefined)[]): { check: AppliedCheck; asked: () => number } {
  let asked = 0
  const check = new AppliedCheck({
    store: { appendBatch: async () => [] },
    log: { getFromLeader: async () => answers[Math.min(asked++, answers.length - 1)] },
    open: () => undefined,
    chunkBytesInLog: false,
    control: 'CTL',
    confirmMs: 1_000,
  })
  check.noteApplied('CTL', [{ seq: 1, data: message(1) }])
  return { check, asked: () => asked }
}

t.test('the leader answers another message, then the one this node applied: a moment of an election, nothing counted', async (t) => {
  const before = await counted()
  const { check, asked } = checkWith([message(2), message(1)])
  await check.round(0)
  await check.round(500)
  t.equal(asked(), 1, 'not asked again before the confirmation delay')
  await check.round(1_000)
  t.equal(asked(), 2, 'asked again once it passed')
  await check.round(5_000)
  t.equal((await counted()) - before, 0, 'no divergence counted')
})

t.test('the leader answers the same other message twice: counted once', async (t) => {
  const before = await counted()
  const { check, asked } = checkWith([message(2), message(2)])
  await check.round(0)
  await check.round(1_000)
  await check.round(5_000)
  t.equal(asked(), 2, 'one look, one confirmation')
  t.equal((await counted()) - before, 1, 'the control entry counted as diverged')
})

t.test('answers that keep changing are given up, never acted on', async (t) => {
  const before = await counted()
  const unchecked = async () => (await metrics.journalUnchecked.get()).values[0]?.value ?? 0
  const uncheckedBefore = await unchecked()
  const { check } = checkWith(Array.from({ length: 20 }, (_, i) => message(10 + i)))
  for (let at = 0; at <= 20_000; at += 1_000) await check.round(at)
  t.equal((await counted()) - before, 0, 'nothing counted')
  t.equal((await unchecked()) - uncheckedBefore, 1, 'the place counted as unchecked')
})
