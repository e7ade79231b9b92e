/**
 * Sessions followed as they are recorded, on a real service: sessions.list
 * with `live` lists the sessions in progress; sessions.follow sends the
 * recording from its last checkpoint and then each chunk as it lands; while a
 * follow is open the session's chunk answers say `watched: true` (what makes
 * the tracker send more often), and after it closes they do not. The bounds:
 * another organisation's session is not followable, the watcher limit
 * answers 429, a follow is audited, and a bad body is refused with its code.
 */
import { connect } from 'node:net'
import t from 'tap'
import { call } from '../helpers/api.js'
import { clusterFor } from '../helpers/cluster.js'
import { meta, postChunk } from '../helpers/http.js'
import { seedProject, storeAt } from '../helpers/seed.js'
import { runCliInProcess, tempHome } from '../helpers/cli.js'
import { groupUrl } from '../../src/grouping/group.js'
import { until } from '../helpers/until.js'

const now = Date.now()
const chunk = (sk: string, seq: number, marker: string, full = false) =>
  postChunk(cluster.url, {
    pk: project.publicKey,
    meta: meta({ sk, seq, startedAt: now, firstTs: now + seq, lastTs: now + seq + 1, ...(full ? { checkpoint: true } : {}) }),
    body: JSON.stringify([{ type: full ? 2 : 3, timestamp: now + seq, data: { source: 0, marker } }]),
  })

/** An open follow: the lines read so far, and how to stop reading. */
async function follow(body: Record<string, unknown>, token = apiKey) {
  const controller = new AbortController()
  const res = await fetch(`${cluster.url}/api/v1/cli/sessions.follow`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: controller.signal,
  })
  const lines: any[] = []
  if (res.ok) {
    void (async () => {
      let rest = ''
      const decoder = new TextDecoder()
      try {
        for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
          rest += decoder.decode(piece, { stream: true })
          const parts = rest.split('\n')
          rest = parts.pop()!
          for (const part of parts) lines.push(JSON.parse(part))
        }
      } catch {
        // aborted by the test
      }
    })()
  }
  return { res, lines, close: () => controller.abort() }
}

const markers = (lines: any[]) => lines.map((l) => l.data?.marker).filter(Boolean)

let cluster: Awaited<ReturnType<typeof clusterFor>>
let apiKey: string
let project: Awaited<ReturnType<typeof seedProject>>['project']

t.before(async () => {
  // A pace other than the default, to show the setting reaches the tracker's answers.
  cluster = await clusterFor(t, { env: { LIVE_FLUSH_MS: '2000', STALLED_READER_MS: '1000' } })
  ;({ apiKey, project } = await seedProject(cluster.dataDir))
})

t.test('a session in progress is listed live, followed from its checkpoint, and its chunks are answered watched while followed', async (t) => {
  t.same((await chunk('live-1', 0, 'before-checkpoint', true)).json, { ok: true })
  t.same((await chunk('live-1', 1, 'checkpoint', true)).json, { ok: true })
  t.same((await chunk('live-1', 2, 'after-checkpoint')).json, { ok: true })

  // The fronts move what they saw to the board once a second.
  let listed: any
  await until('the session listed live', async () => {
    listed = await call(cluster.url, '/cli/sessions.list', { token: apiKey, body: { projectId: project.id, live: true } })
    return listed.body.sessions?.length === 1
  }, 5_000)
  t.equal(listed.status, 200)
  t.equal(listed.body.sessions[0].sessionKey, 'live-1')
  t.ok(listed.body.sessions[0].live.agoMs >= 0 && listed.body.sessions[0].live.agoMs < 10_000, `live for ${listed.body.sessions[0].live.agoMs} ms`)
  t.equal(listed.body.nextCursor, null)

  const feed = await follow({ projectId: project.id, sessionKey: 'live-1' })
  t.equal(feed.res.status, 200)
  t.match(feed.res.headers.get('content-type'), /application\/x-ndjson/)
  await until('the history sent', () => feed.lines.some((l) => l.data?.tag === 'svc.live'), 5_000)
  t.same(markers(feed.lines), ['checkpoint', 'after-checkpoint'], 'the history starts at the last checkpoint')

  // Within a sync of the board, the session's chunk answers say it is watched.
  let seq = 3
  let answer: any
  await until('a chunk answered watched', async () => {
    answer = await chunk('live-1', seq, `live-${seq}`)
    seq += 1
    return answer.json?.watched === true
  }, 5_000)
  t.same(answer.json, { ok: true, watched: true, flushMs: 2000 }, 'a followed session\'s chunk is answered watched')
  const last = `live-${seq - 1}`
  await until('the last chunk followed', () => markers(feed.lines).includes(last), 5_000)
  t.ok(markers(feed.lines).includes(last), 'a chunk that landed reaches the follower')
  t.same(markers(feed.lines).slice(0, 3), ['checkpoint', 'after-checkpoint', 'live-3'], 'in seq order, none twice')
  t.same((await chunk('other-session', 0, 'x')).json, { ok: true }, 'another session is not watched')

  const audit = await call(cluster.url, '/auth/audit.list', { token: apiKey, body: {} })
  t.ok(audit.body.entries?.some((e: any) => e.action === 'session.watch' && e.target === `${project.id}/live-1`), 'the follow is in the audit log')

  feed.close()
  const ended = await until('the follow\'s end audited', async () => {
    const entries = (await call(cluster.url, '/auth/audit.list', { token: apiKey, body: {} })).body.entries ?? []
    return entries.find((e: any) => e.action === 'session.watch_end' && e.target === `${project.id}/live-1`)
  }, 5_000)
  t.match(ended.detail, /^followed \d+ s$/, 'with how long it lasted')
  await until('plain answers again', async () => (await chunk('live-1', seq++, 'after-close')).json?.watched !== true, 5_000)
  t.same((await chunk('live-1', seq++, 'after-close')).json, { ok: true }, 'once the follower left, the answers are plain again')
})

t.test('bad follows are refused with their codes', async (t) => {
  const other = await seedProject(cluster.dataDir, 'Other', 'owner@other.test')
  const foreign = await follow({ projectId: other.project.id, sessionKey: 'live-1' })
  t.equal(foreign.res.status, 404, 'another organisation\'s project')
  t.equal((await foreign.res.json()).code, 'not_found')
  const missing = await follow({ projectId: project.id, sessionKey: 'no-such-session' })
  t.equal(missing.res.status, 404)
  t.equal((await missing.res.json()).code, 'not_found')
  const bad = await follow({ projectId: project.id, sessionKey: 'live-1', maxSeconds: 1 })
  t.equal(bad.res.status, 400, 'maxSeconds under 10')
  t.equal((await bad.res.json()).code, 'invalid_request')
  const mixed = await call(cluster.url, '/cli/sessions.list', { token: apiKey, body: { projectId: project.id, live: true, hasErrors: true } })
  t.equal(mixed.status, 400, 'live takes no other filter')
  t.equal(mixed.body.code, 'invalid_request')
  t.match(mixed.body.error, /hasErrors/)
})

t.test('an organisation follows at most 20 sessions at once', async (t) => {
  const open = []
  for (let i = 0; i < 20; i++) {
    const feed = await follow({ projectId: project.id, sessionKey: 'live-1' })
    t.equal(feed.res.status, 200)
    open.push(feed)
  }
  const refused = await follow({ projectId: project.id, sessionKey: 'live-1' })
  t.equal(refused.res.status, 429, 'the 21st is refused')
  t.equal((await refused.res.json()).code, 'overloaded')
  t.ok(Number(refused.res.headers.get('retry-after')) > 0, 'with Retry-After')
  const other = await seedProject(cluster.dataDir, 'Third', 'owner@third.test')
  t.same((await postChunk(cluster.url, { pk: other.project.publicKey, meta: meta({ sk: 'third-1' }) })).json, { ok: true })
  const elsewhere = await follow({ projectId: other.project.id, sessionKey: 'third-1' }, other.apiKey)
  t.equal(elsewhere.res.status, 200, 'another organisation is not held by this one\'s follows')
  elsewhere.close()
  for (const feed of open) feed.close()
  // Closed follows give their places back (the control worker sees each reader leave).
  let again: Awaited<ReturnType<typeof follow>> | undefined
  await until('a place given back', async () => {
    again?.close()
    again = await follow({ projectId: project.id, sessionKey: 'live-1' })
    return again.res.status === 200
  }, 20_000)
  t.equal(again!.res.status, 200, 'places come back when follows close')
  again!.close()
})

t.test('the CLI lists sessions in progress and follows one to its end', async (t) => {
  const home = tempHome(t)
  const svc = (args: string[]) => runCliInProcess(cluster.url, args, { home, env: { SVC_API_KEY: apiKey } })
  t.same((await chunk('cli-live', 0, 'cli', true)).json, { ok: true })
  const listed = await until('the CLI lists it', async () => {
    const answer = await svc(['sessions', 'live', project.id])
    return answer.stdout.includes('cli-live') && answer
  }, 5_000)
  t.equal(listed.code, 0)
  t.match(listed.stdout, /SESSION\s+LAST SENT/)
  const json = await svc(['sessions', 'live', project.id, '--json', '--limit', '1'])
  t.equal(json.json.sessions.length, 1, '--limit')

  // A visit whose last chunk is 10 minutes old: the follow sends its history, then ends as idle at its first look.
  const store = storeAt(cluster.dataDir)
  t.teardown(() => store.close())
  const old = Date.now() - 10 * 60_000
  const url = 'https://shop.test/'
  await store.appendBatch([
    {
      kind: 'chunk', projectId: project.id, receivedAt: old, page: { ...groupUrl(url, []), firstSeenAt: old },
      body: Buffer.from(JSON.stringify([{ type: 4, timestamp: old, data: { href: url, width: 800, height: 600 } }, { type: 2, timestamp: old, data: {} }, { type: 3, timestamp: old + 5, data: { source: 2, type: 2, id: 1 } }])),
      meta: { sk: 'ended-visit', vid: 'v', seq: 0, encoding: 'json', url, startedAt: old, firstTs: old, lastTs: old + 5, checkpoint: true },
    },
  ])
  // Written by this process, behind the service's back: its next read sees it, one a moment ago may not (a 404).
  const followed = await until('the follow finds the visit', async () => {
    const answer = await svc(['sessions', 'follow', project.id, 'ended-visit'])
    return answer.code === 0 && answer
  }, 5_000)
  t.equal(followed.code, 0)
  t.match(followed.stdout, /page https:\/\/shop\.test\/[\s\S]*snapshot of the page[\s\S]*click/, 'a line per event')
  t.match(followed.stderr, /The follow ended: the visitor sent nothing for 5 minutes/)
  const raw = await svc(['sessions', 'follow', project.id, 'ended-visit', '--json'])
  const lines = raw.stdout.trim().split('\n').map((line) => JSON.parse(line))
  t.same(lines.map((l) => l.type), [4, 2, 3, 5, 5], 'the feed as the API sends it, one event per line')
  t.same(lines.at(-1).data, { tag: 'svc.live_ended', payload: { reason: 'idle' } })
  const missing = await svc(['sessions', 'follow', project.id, 'no-such-session', '--json'])
  t.same([missing.code, missing.error?.code], [1, 'not_found'])
})

t.test('a follower that reads nothing is dropped, and its watch ends', async (t) => {
  // About 14 MB of history: more than the sockets and buffers between the service and a reader hold.
  const big = 'x'.repeat(900_000)
  t.same((await chunk('stalled', 0, 'start', true)).json, { ok: true })
  for (let seq = 1; seq <= 16; seq++) {
    const answer = await postChunk(cluster.url, { pk: project.publicKey, meta: meta({ sk: 'stalled', seq, startedAt: now, firstTs: now + seq, lastTs: now + seq }), body: JSON.stringify([{ type: 3, timestamp: now + seq, data: { source: 0, big } }]) })
    t.equal(answer.status, 200)
  }
  const socket = connect(Number(new URL(cluster.url).port), '127.0.0.1')
  t.teardown(() => socket.destroy())
  const body = JSON.stringify({ projectId: project.id, sessionKey: 'stalled' })
  socket.write(`POST /api/v1/cli/sessions.follow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`)
  await new Promise((resolve) => socket.once('data', resolve))
  socket.pause() // and never read again
  const ended = await until('the stalled follow dropped', async () => {
    const entries = (await call(cluster.url, '/auth/audit.list', { token: apiKey, body: {} })).body.entries ?? []
    return entries.find((e: any) => e.action === 'session.watch_end' && e.target === `${project.id}/stalled`)
  }, 15_000)
  t.ok(ended, 'the service let it go on its own')
  // uWebSockets.js would also close it, after its fixed 10 s idle timeout: the front's own bound is what acted.
  t.match(cluster.output(), /streamed answer dropped: the client read nothing.*"ms":1000/, 'STALLED_READER_MS (1 s here) dropped it')
})
