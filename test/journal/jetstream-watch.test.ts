/**
 * The watch that moves a connection off a NATS server whose JetStream does
 * not answer (src/journal/jetstream-watch.ts): its decision, probe by probe,
 * on scripted probe results. That it moves a real node off a minority server
 * is `npm run chaos -- --faults=nats-minority` (bench/RESULTS.md, "Chaos").
 */
import t from 'tap'
import { FAILURES, probeOnce, type Watch } from '../../src/journal/jetstream-watch.js'

function scripted(results: boolean[]): Watch & { reconnects: number } {
  let i = 0
  const watch = {
    reconnects: 0,
    probe: () => (results[i++] ? Promise.resolve() : Promise.reject(new Error('timeout'))),
    reconnect: async () => void watch.reconnects++,
    server: () => 'nats1:4222',
  }
  return watch
}

t.test('a reconnect only after FAILURES failed probes in a row; an answer in between starts the count again', async (t) => {
  const ok = true
  const no = false
  const watch = scripted([no, no, no, ok, no, no, no, no, no, no, no, no, ok])
  const state = { failures: 0 }
  const decisions: boolean[] = []
  for (let i = 0; i < 13; i++) decisions.push(await probeOnce(watch, state))
  t.equal(FAILURES, 4)
  t.same(decisions.map((d, i) => (d ? i : -1)).filter((i) => i >= 0), [7, 11], 'the 4th and 8th failures in a row after the answer, not the 3 before it')
  t.equal(state.failures, 0, 'the last answer clears the count')
})

t.test('a leader election (three failed probes, 6 s) moves nobody', async (t) => {
  const watch = scripted([true, false, false, false, true, true])
  const state = { failures: 0 }
  for (let i = 0; i < 6; i++) t.notOk(await probeOnce(watch, state), `probe ${i + 1}`)
})
