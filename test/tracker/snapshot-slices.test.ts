/**
 * The full snapshot in time slices (issue 33, tracker/src/snapshot.ts): on a
 * page of 10,000 elements the tracker makes no long task (over 50 ms) while it
 * starts and while it takes a checkpoint, and a page that changes all through
 * the walk replays as it is. The page (test/fixtures/tracker/large-page.html)
 * does nothing long itself once loaded, so every long task after the
 * visitor's first move is the tracker's.
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import t from 'tap'
import { CHECKPOINT_MS } from '../../tracker/src/config.js'
import { flushTracker, openPage, storedChunks, trackerStarted, until, type StoredChunk } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

const require = createRequire(import.meta.url)
const REPLAY_DIR = dirname(require.resolve('@rrweb/replay'))

/**
 * The page's body as comparable text: elements with their attributes (not rrweb's own, nor the replayer's
 * autocomplete=off, nor `value`: a field's value is its property), text, field values, shadow roots; scripts
 * left out (the recording drops them).
 */
function canonical(root: Element): string {
  const out: string[] = []
  const walk = (node: Node) => {
    if (node.nodeType === 3) out.push(`#${(node as Text).data}`)
    if (node.nodeType !== 1) return
    const el = node as HTMLInputElement
    const tag = el.tagName.toLowerCase()
    if (tag === 'script') return
    const attributes = Array.from(el.attributes, (a) => `${a.name}=${a.value}`).filter((a) => !/^(rr_|value=|autocomplete=off)/.test(a))
    out.push(`<${tag} ${attributes.sort().join(' ')}${tag === 'input' ? ` value:${el.value}` : ''}`)
    el.childNodes.forEach(walk)
    if (el.shadowRoot) el.shadowRoot.childNodes.forEach(walk)
    out.push('>')
  }
  walk(root)
  return out.join('\n')
}
const CANONICAL = `(${canonical.toString()})`

const statsOf = (page: Page) => page.evaluate('window.svc("stats")') as Promise<{ sk: string; snapshotMs: number; faults: number }>
const snapshotTaken = (page: Page) => page.waitForFunction('window.svc && window.svc.v && window.svc("stats").snapshotMs >= 0', undefined, { timeout: 30_000 })
/** Long tasks the page saw since the last call (the page's observer fills `__long`). */
const longTasks = (page: Page) => page.evaluate('window.__long.splice(0)') as Promise<[number, number][]>

/** Elements in a serialized rrweb tree. */
const elements = (node: any): number => (node.type === 2 ? 1 : 0) + (node.childNodes || []).reduce((sum: number, child: any) => sum + elements(child), 0)

/** The events of one page view, replayed to their end in rrweb's replayer; the replayed body, as `canonical` has it, once it equals `expected` or after 5 s. */
async function replayed(browser: Browser, url: string, events: any[], expected: string): Promise<string> {
  const viewer = await openPage(browser)
  try {
    await viewer.page.goto(`${url}/replay-host.html`)
    await viewer.page.addScriptTag({ path: join(REPLAY_DIR, 'replay.umd.min.cjs') })
    await viewer.page.evaluate(`(() => {
      const events = ${JSON.stringify(events)}
      new rrwebReplay.Replayer(events, { root: document.getElementById('root'), mouseTail: false, showWarning: false, triggerFocus: false }).pause(events[events.length - 1].timestamp - events[0].timestamp + 1)
    })()`)
    let text = ''
    const deadline = Date.now() + 5000
    while (Date.now() < deadline) {
      text = (await viewer.page.evaluate(`(() => { const d = document.querySelector('#root iframe')?.contentDocument; return d && d.body ? ${CANONICAL}(d.body) : '' })()`)) as string
      if (text === expected) break
      await viewer.page.waitForTimeout(100)
    }
    return text
  } finally {
    await viewer.close()
  }
}

/** Where two canonical texts first differ, for a failure message. */
function firstDifference(a: string, b: string): string {
  const [left, right] = [a.split('\n'), b.split('\n')]
  const i = left.findIndex((line, n) => line !== right[n])
  return i < 0 ? `the replay has ${right.length - left.length} more lines` : `line ${i}: page ${JSON.stringify(left[i])}, replay ${JSON.stringify(right[i])}`
}

/** The stored events of session `sk`, by page view, in order. */
function pageViews(chunks: StoredChunk[], sk: string): Map<number, any[]> {
  const views = new Map<number, any[]>()
  for (const chunk of chunks.filter((c) => c.sk === sk).sort((a, b) => a.seq - b.seq)) views.set(chunk.pageIndex, [...(views.get(chunk.pageIndex) || []), ...chunk.events])
  return views
}

t.test('the full snapshot in slices', async (t) => {
  const { seeded, store, fixtures, browser } = await recordingHarness(t)
  const chunksOf = (sk: string) => storedChunks(store, seeded.project.id).filter((c) => c.sk === sk)

  t.test('on a page of 10,000 elements, no long task while the tracker starts nor while it takes a checkpoint, and the recording replays', async (t) => {
    /** One visit: the tracker starts, then takes rrweb's checkpoint; the long tasks of each. */
    const visit = async () => {
      const visitor = await openPage(browser, { noIdle: true })
      t.teardown(visitor.close)
      const { page } = visitor
      await page.clock.install()
      await page.goto(`${fixtures.url}/large-page.html`, { waitUntil: 'load' })
      // The page's own load work ends and its long tasks are reported, so the reset below leaves none of them.
      await page.waitForTimeout(500)
      await longTasks(page)
      await page.mouse.move(400, 300)
      await trackerStarted(page)
      await snapshotTaken(page)
      await page.waitForTimeout(300) // a long task is reported after it ends: the last ones arrive before the count
      const atStart = await longTasks(page)
      // rrweb's checkpoint: past CHECKPOINT_MS, at the next change. Fast-forwarding runs the tracker's due timers in one go: not counted.
      await page.clock.fastForward(CHECKPOINT_MS + 60_000)
      await page.waitForTimeout(300) // the fast-forward's long tasks are reported, then left out by the reset
      await longTasks(page)
      await page.evaluate('document.getElementById("field").value = "checkpoint"')
      const { sk } = await statsOf(page)
      const infos = await until('the checkpoint, stored', async () => {
        await flushTracker(page)
        const listed = store.listChunks(seeded.project.id, sk)
        return listed.filter((c) => c.checkpoint).length >= 2 && listed
      })
      return { visitor, page, sk, infos, atStart, atCheckpoint: await longTasks(page) }
    }
    // Another test file's browser shares these 2 cores under `npm test`: a task stretched by it gets another visit, up to three.
    let found = await visit()
    for (let tries = 1; tries < 3 && (found.atStart.length || found.atCheckpoint.length); tries++) found = await visit()
    const { visitor, page, sk, infos, atStart, atCheckpoint } = found
    t.ok((await page.evaluate('document.getElementsByTagName("*").length')) as number >= 10_000, 'the page has 10,000 elements')
    const listed = (tasks: [number, number][]) => tasks.map(([, ms]) => `${ms.toFixed(0)} ms`).join(', ') || 'none'
    t.same(atStart, [], `no long task from the first move until the tracker records, its full snapshot taken (${listed(atStart)})`)
    t.same(atCheckpoint, [], `nor while it takes the checkpoint (${listed(atCheckpoint)})`)

    const stats = await statsOf(page)
    t.ok(stats.snapshotMs > 0, `the first full snapshot took ${stats.snapshotMs.toFixed(1)} ms of main thread, in slices`)
    t.equal(stats.faults, 0, 'no fault')
    // A checkpoint over the chunk size spills its full snapshot into the next chunk, which can still be on its way.
    const { chunks, events } = await until('every checkpoint\'s full snapshot stored', () => {
      const chunks = chunksOf(sk).sort((a, b) => a.seq - b.seq)
      const events = chunks.flatMap((c) => c.events)
      const stored = infos.filter((c) => c.checkpoint).every((info) => {
        const first = chunks.find((c) => c.seq === info.seq)?.events[0]
        return first !== undefined && events[events.indexOf(first) + 1] !== undefined
      })
      return stored && { chunks, events }
    })
    for (const info of infos.filter((c) => c.checkpoint)) {
      // The full snapshot follows its Meta, in the same chunk or (over the chunk size) the next.
      const at = events.indexOf(chunks.find((c) => c.seq === info.seq)!.events[0])
      t.same([events[at].type, events[at + 1].type], [4, 2], `chunk ${info.seq} opens with Meta, the full snapshot next`)
      t.ok(elements(events[at + 1].data.node) >= 10_000, `whose tree has the 10,000 elements (${elements(events[at + 1].data.node)})`)
    }
    const expected = (await page.evaluate(`${CANONICAL}(document.body)`)) as string
    const replay = await replayed(browser, fixtures.url, events.slice(events.map((e) => e.type).lastIndexOf(4)), expected)
    t.ok(replay === expected, `replayed from the checkpoint, the page is as it was (${replay === expected ? 'equal' : firstDifference(expected, replay)})`)
    t.same(visitor.pageErrors, [], 'no error reached the page')
  })

  t.test('a page that changes all through the walk replays as it is, from the first snapshot and from a later one', async (t) => {
    const visitor = await openPage(browser, { noIdle: true })
    t.teardown(visitor.close)
    const { page } = visitor
    await page.goto(`${fixtures.url}/large-page.html?churn`, { waitUntil: 'load' })
    await page.mouse.move(400, 300)
    await trackerStarted(page)
    await snapshotTaken(page)
    await page.waitForTimeout(200) // the page goes on changing for a while after the snapshot, on purpose
    await page.evaluate('window.__churn.stop()')
    await page.waitForTimeout(200) // the last changes reach rrweb before the page is read (no event tells when)
    const first = (await page.evaluate(`${CANONICAL}(document.body)`)) as string
    // A new page view takes a new full snapshot (rrweb's mirror kept, as at a checkpoint) while the page goes on changing.
    await page.evaluate('window.__churn.start(); history.pushState({}, "", "/large-page.html?churn&view=2")')
    const { sk } = await statsOf(page)
    await until('the second page view, stored from its full snapshot', async () => {
      await flushTracker(page)
      return chunksOf(sk).some((c) => c.pageIndex > 0 && c.events[0]?.type === 4)
    })
    await page.waitForTimeout(200) // the page goes on changing for a while after the snapshot, on purpose
    await page.evaluate('window.__churn.stop()')
    await page.waitForTimeout(200) // the last changes reach rrweb before the page is read (no event tells when)
    const second = (await page.evaluate(`${CANONICAL}(document.body)`)) as string
    t.ok((await page.evaluate('window.__churn.count()')) as number > 100, 'the page changed hundreds of times')
    await flushTracker(page)
    let stored = -1
    const views = await until('everything, stored', async () => {
      await page.waitForTimeout(300) // "everything" is a count that stays put for 300 ms: no event says the last is in
      const found = pageViews(chunksOf(sk), sk)
      const count = [...found.values()].reduce((sum, events) => sum + events.length, 0)
      if (count !== stored || found.size !== 2) return void (stored = count)
      return found
    })
    for (const [index, [events, expected]] of [...views.values()].map((events, i) => [events, i ? second : first] as const).entries()) {
      t.same(events.slice(0, 2).map((e) => e.type), [4, 2], `page view ${index + 1} opens with Meta and the full snapshot`)
      // Changes made during the walk come out when rrweb's buffers unlock, right after the full snapshot: proof that the page ran between slices.
      // One tick of the page makes 3 changes; the walk lasts dozens of ticks.
      const next = events[2]
      const changes = next?.type === 3 && next.data.source === 0 ? next.data.adds.filter((a: any) => a.node.tagName === 'tr').length + next.data.removes.length + next.data.texts.length + next.data.attributes.length : 0
      t.ok(changes > 10, `followed by the changes made during the walk (${changes} rows added, moved, removed or edited)`)
      t.ok(events.every((e, i) => i === 0 || e.timestamp >= events[i - 1].timestamp), 'its events in time order')
      const replay = await replayed(browser, fixtures.url, events, expected)
      t.ok(replay === expected, `page view ${index + 1}, replayed, is the page as it was (${replay === expected ? 'equal' : firstDifference(expected, replay)})`)
    }
    t.equal((await statsOf(page)).faults, 0, 'no fault')
    t.same(visitor.pageErrors, [], 'no error reached the page')
  })
})
