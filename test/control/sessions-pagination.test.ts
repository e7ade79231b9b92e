/**
 * sessions.list pages neither skip nor repeat a session while ingest goes on:
 * new sessions land before, among and after the page being read, and every
 * session that existed when paging began is seen exactly once, in order.
 */
import t from 'tap'
import { groupUrl } from '../../src/grouping/group.js'
import type { IngestItem } from '../../src/store/store.js'
import { call } from '../helpers/api.js'
import { clusterFor } from '../helpers/cluster.js'
import { seedProject, storeAt } from '../helpers/seed.js'
import { postChunk } from '../helpers/read.js'

const EXISTING = 600
/** Ingest stops with the paging, or at this many sessions. */
const MAX_CONCURRENT = 2000
const NOW = Date.now()
const WINDOW = 60 * 60 * 1000

/** A deterministic spread of start times over the last hour; some sessions share one. */
const startOf = (i: number) => NOW - ((i * 7919) % WINDOW) - (i % 5 === 0 ? 0 : 1)

t.test('paging through sessions while new ones arrive neither skips nor repeats one', async (t) => {
  const cluster = await clusterFor(t, { workers: 2 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  const store = storeAt(cluster.dataDir)
  t.teardown(() => store.close())
  const items: IngestItem[] = []
  for (let i = 0; i < EXISTING; i++) {
    const url = 'https://shop.test/'
    items.push({
      kind: 'chunk', projectId: project.id, receivedAt: NOW, body: Buffer.from('[{}]'), page: { ...groupUrl(url, []), firstSeenAt: NOW },
      meta: { sk: `old-${i}`, vid: 'v', seq: 0, encoding: 'json', url, startedAt: startOf(i), firstTs: startOf(i), lastTs: startOf(i) + 1000 },
    })
  }
  await store.appendBatch(items)

  // Ingest through the cluster for as long as the pages are read: start times before, within and after the window.
  let paging = true
  let n = 0
  const ingest = (async () => {
    while (paging && n < MAX_CONCURRENT) {
      const startedAt = n % 3 === 0 ? NOW + n : startOf(EXISTING + n) // newer than everything, or anywhere among the old ones
      const status = await postChunk(cluster.url, project.publicKey, { sk: `new-${n}`, seq: 0, startedAt, firstTs: startedAt, lastTs: startedAt }, Buffer.from('[{}]'))
      if (status !== 200) throw new Error(`ingest answered ${status}`)
      n += 1
    }
    return n
  })()

  const seen: { sk: string; startedAt: number }[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const answer = await call(cluster.url, '/cli/sessions.list', { token: apiKey, body: { projectId: project.id, limit: 17, ...(cursor ? { cursor } : {}) } })
    t.equal(answer.status, 200)
    seen.push(...answer.body.sessions.map((s: any) => ({ sk: s.sessionKey, startedAt: s.startedAt })))
    cursor = answer.body.nextCursor ?? undefined
    pages += 1
    // Halfway, let ingest catch up: sessions must arrive behind the cursor while paging goes on, however fast it is.
    if (pages === Math.floor(EXISTING / 17 / 2)) {
      const from = n
      const deadline = Date.now() + 20_000
      while (n < from + 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    }
    await new Promise((r) => setTimeout(r, 10))
  } while (cursor)
  paging = false
  const ingested = await ingest
  t.ok(pages > EXISTING / 17, `${pages} pages read`)
  t.ok(ingested >= 30, `${ingested} sessions were ingested while paging`)

  const keys = seen.map((s) => s.sk)
  t.equal(new Set(keys).size, keys.length, 'no session repeated')
  const old = keys.filter((k) => k.startsWith('old-'))
  t.equal(old.length, EXISTING, 'every session that existed before paging began was listed')
  const ordered = seen.every((s, i) => i === 0 || s.startedAt < seen[i - 1].startedAt || (s.startedAt === seen[i - 1].startedAt && s.sk < seen[i - 1].sk))
  t.ok(ordered, 'strictly newest first, ties by session key')
  t.ok(keys.some((k) => k.startsWith('new-')), 'sessions ingested meanwhile behind the cursor were listed too')
})
