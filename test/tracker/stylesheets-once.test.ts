/**
 * Stylesheets sent once per project (issue 32): the tracker stores a large
 * stylesheet's text once (POST /api/styles, checked against its SHA-256) and
 * leaves a reference in the recording; sessions.events puts the text back, so
 * rrweb's replayer shows the page with its styles. What /api/styles answers
 * is test/front/ingest-styles.test.ts.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import t from 'tap'
import { call } from '../helpers/api.js'
import { flushTracker, openPage, storedChunks, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

const require = createRequire(import.meta.url)
const REPLAY_DIR = dirname(require.resolve('@rrweb/replay'))

type Harness = Awaited<ReturnType<typeof recordingHarness>>

/** Replays `events` with rrweb's player, paused at the end: a computed style of an element of the replayed page, and the player's page errors. */
async function replayed(t: Parameters<typeof recordingHarness>[0], browser: Harness['browser'], fixturesUrl: string, events: { timestamp: number }[]) {
  const viewer = await openPage(browser, { viewport: { width: 1024, height: 768 } })
  t.teardown(viewer.close)
  await viewer.page.goto(`${fixturesUrl}/replay-host.html`)
  await viewer.page.addStyleTag({ path: join(REPLAY_DIR, 'style.css') })
  await viewer.page.addScriptTag({ path: join(REPLAY_DIR, 'replay.umd.min.cjs') })
  await viewer.page.evaluate((events) => {
    const replayer = new (window as any).rrwebReplay.Replayer(events, { root: document.getElementById('root'), mouseTail: false, showWarning: false })
    replayer.pause(events[events.length - 1].timestamp - events[0].timestamp)
  }, events)
  const styleOf = (selector: string, property: string) =>
    viewer.page.evaluate(([selector, property]) => {
      const doc = (document.querySelector('#root iframe') as HTMLIFrameElement | null)?.contentDocument
      const el = doc?.querySelector(selector)
      return el ? (getComputedStyle(el) as any)[property] : undefined
    }, [selector, property] as const)
  return { styleOf, errors: viewer.pageErrors }
}


// One service, browser and project for the file: the cases run in order, the first counting the project's stylesheet bytes before the second adds its own.
const { cluster, seeded, projectId, store, fixtures, browser, record } = await recordingHarness(t)

t.test('a large stylesheet is stored once per project and replays from the events API with its styles', async (t) => {

  // Two visits of the same page: the stylesheet's text is stored once, each recording refers to it.
  const sessions: string[] = []
  let banner = ''
  for (let visit = 0; visit < 2; visit++) {
    const { page, sk } = await record(t, '/large-stylesheet.html')
    banner = (await page.evaluate('getComputedStyle(document.getElementById("banner")).backgroundColor')) as string
    await flushTracker(page)
    sessions.push(sk)
    await until('the snapshot stored', () => storedChunks(store, projectId).some((c) => c.sk === sk && c.events.some((e) => e.type === 2)))
  }
  t.equal(banner, 'rgb(21, 101, 192)', 'the page has the stylesheet\'s styles')
  const stored = storedChunks(store, projectId)
  // rrweb serializes the stylesheet from the CSSOM: its text (and hash) is the browser's, not the file's bytes.
  const hash = /"_svcCss":"([0-9a-f]{64})"/.exec(stored.map((c) => c.text).join(''))?.[1] ?? ''
  t.ok(hash, 'the recording refers to a stylesheet by its hash')
  for (const sk of sessions) {
    const text = stored.filter((c) => c.sk === sk).map((c) => c.text).join('')
    t.ok(text.includes(`"_svcCss":"${hash}"`), 'each recording refers to the same one')
    t.notOk(text.includes('.tile-63'), 'and does not carry its text')
  }
  const kept = store.getStyle(projectId, hash)
  t.ok(kept, 'the project holds the text under its hash')
  // Stored as the JSON string a replay splices in, gzipped by the service after a first byte naming that form.
  const keptText = Buffer.from(JSON.parse(gunzipSync(kept!.subarray(1)).toString()) as string)
  t.equal(createHash('sha256').update(keptText).digest('hex'), hash, 'stored gzipped, the text has that hash')
  t.ok(keptText.toString().includes('.tile-63'), 'the whole stylesheet')
  t.equal(store.styleBytes(projectId), kept!.byteLength, 'one copy for both sessions')

  // What a client reads: ordinary rrweb events, the text back in `_cssText`.
  const read = await call(cluster.url, '/cli/sessions.events', { token: seeded.apiKey, body: { projectId, sessionKey: sessions[1] } })
  t.equal(read.status, 200)
  const events = read.body as { type: number; timestamp: number }[]
  const json = JSON.stringify(events)
  t.notOk(json.includes('_svcCss'), 'no reference left in the events')
  t.ok(json.includes('.tile-63'), 'the stylesheet\'s text is back')

  // The replay of those events shows the styles.
  const { styleOf, errors } = await replayed(t, browser, fixtures.url, events)
  await until('the replayed banner', () => styleOf('#banner', 'backgroundColor'))
  t.equal(await styleOf('#banner', 'backgroundColor'), 'rgb(21, 101, 192)', 'the replayed banner has the stylesheet\'s background')
  t.equal(await styleOf('.tile-5', 'backgroundColor'), 'rgb(30, 136, 229)', 'and a rule far down the stylesheet applies')
  t.equal(await styleOf('.grid', 'display'), 'grid', 'the layout too')
  t.equal(errors.length, 0, 'the replay ran without errors')
})


t.test('a stylesheet the browser cached is read as its file, and one changed through the CSSOM as the browser holds it', async (t) => {
  const earlier = fixtures.requests.length
  const { page, sk } = await record(t, '/cached-stylesheets.html')
  const chunksOf = () => storedChunks(store, projectId).filter((c) => c.sk === sk)
  await flushTracker(page)
  await until('the snapshot stored', () => chunksOf().some((c) => c.events.some((e) => e.type === 2)))

  // The file's own bytes (the CSSOM would have written #fff8e1 as rgb(255, 248, 225)), read without a second request.
  const file = readFileSync(new URL('../fixtures/tracker/large-stylesheet.css', import.meta.url))
  const fileHash = createHash('sha256').update(file).digest('hex')
  const first = chunksOf().map((c) => c.text).join('')
  t.ok(first.includes(`"_svcCss":"${fileHash}"`), 'the recording refers to the file\'s text by its hash')
  t.ok(store.getStyle(projectId, fileHash), 'which the project holds')
  t.equal(fixtures.requests.slice(earlier).filter((path) => path === '/large-stylesheet.css').length, 1, 'the page loaded the file once; the tracker read it from the cache')
  // A file with @import is left to rrweb, which writes the imported rules in.
  t.ok(first.includes('.imported { color: rgb(200, 10, 10); }'), 'an importing stylesheet is recorded with what it imports')

  // A rule added through the CSSOM, then a new page view (a new full snapshot): the sheet is no longer its file.
  await page.evaluate(`{
    const sheet = [...document.styleSheets].find((s) => s.href && s.href.includes('large-stylesheet'))
    sheet.insertRule('.late-rule { color: rgb(1, 2, 3); }', sheet.cssRules.length)
    history.pushState(null, '', '/cached-stylesheets-next')
  }`)
  await until('the second full snapshot stored', async () => {
    await flushTracker(page)
    return chunksOf().filter((c) => c.events.some((e) => e.type === 2)).length >= 2
  })
  const second = chunksOf().filter((c) => c.events.some((e) => e.type === 2))[1].text
  const hash = /"_svcCss":"([0-9a-f]{64})"/.exec(second)?.[1]
  t.not(hash, fileHash, 'the new snapshot refers to another text')
  const kept = hash ? store.getStyle(projectId, hash) : undefined
  t.ok(kept && gunzipSync(kept.subarray(1)).toString().includes('.late-rule'), 'the browser\'s text of the changed sheet, with the added rule')

  // The replay from the events API: the file's rules and the imported ones apply.
  const read = await call(cluster.url, '/cli/sessions.events', { token: seeded.apiKey, body: { projectId, sessionKey: sk } })
  t.equal(read.status, 200)
  const events = read.body as { type: number; timestamp: number }[]
  const { styleOf, errors } = await replayed(t, browser, fixtures.url, events)
  await until('the replayed banner', () => styleOf('#banner', 'backgroundColor'))
  t.equal(await styleOf('#banner', 'backgroundColor'), 'rgb(21, 101, 192)', 'the replayed banner has the stylesheet\'s background')
  t.equal(await styleOf('#imported', 'color'), 'rgb(200, 10, 10)', 'and the imported rule applies')
  t.equal(errors.length, 0, 'the replay ran without errors')
})
