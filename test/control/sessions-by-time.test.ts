/**
 * sessions.events by time (issue 33): the chunk list says which chunks start
 * with a full snapshot, and a window starts at the checkpoint before `from`,
 * streamed as the whole recording is; the byte-exact chunk read is unchanged.
 */
import t from 'tap'
import { call } from '../helpers/api.js'
import { clusterFor } from '../helpers/cluster.js'
import { callRaw, events, postChunk } from '../helpers/read.js'
import { seedProject } from '../helpers/seed.js'

t.test('a window reads from the checkpoint before it; the chunk list marks checkpoints', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  const T = 1_700_000_000_000
  // Four chunks of 10 events, 1 s apart; the first and the third start with a full snapshot.
  for (let seq = 0; seq < 4; seq++) {
    const body = new TextEncoder().encode(JSON.stringify(events(seq * 10, 10, T + seq * 1_000)))
    t.equal(await postChunk(cluster.url, project.publicKey, { sk: 's1', seq, firstTs: T + seq * 1_000 + seq * 10, lastTs: T + seq * 1_000 + seq * 10 + 9, eventCount: 10, checkpoint: seq % 2 === 0 }, body), 200)
  }
  const listed = await call(cluster.url, '/cli/sessions.chunks', { token: apiKey, body: { projectId: project.id, sessionKey: 's1' } })
  t.same(listed.body.chunks.map((c: { seq: number; checkpoint?: boolean }) => [c.seq, c.checkpoint ?? false]), [[0, true], [1, false], [2, true], [3, false]])

  const read = async (window: Record<string, number>) => {
    const answer = await callRaw(cluster.url, '/cli/sessions.events', apiKey, { projectId: project.id, sessionKey: 's1', ...window })
    t.equal(answer.status, 200)
    return (JSON.parse(answer.bytes.toString()) as { data: { n: number } }[]).map((e) => e.data.n)
  }
  const n = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i)
  t.same(await read({}), n(0, 40), 'no window: everything')
  t.same(await read({ from: T + 3_500 }), n(20, 40), 'from inside the last chunk: its checkpoint, two chunks back')
  t.same(await read({ from: T + 1_500, until: T + 2_000 }), n(0, 20), 'a window before the second checkpoint: from the first, to the chunk before `until`')
  const invalid = await call(cluster.url, '/cli/sessions.events', { token: apiKey, body: { projectId: project.id, sessionKey: 's1', from: -1 } })
  t.same([invalid.status, invalid.body.code], [400, 'invalid_request'])
})
