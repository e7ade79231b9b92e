/** Clicks in a real browser, classified rage, dead, error or click, with stable selectors and labels. */
import t from 'tap'
import { flushTracker, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

t.test('clicks', async (t) => {
  const { batchesOf, record } = await recordingHarness(t)

  await t.test('clicks are classified rage, dead, error or click', async (t) => {
    const { tab, page, sk } = await record(t, '/clicks.html')
    const storedClicks = () => batchesOf(sk).flatMap((b) => b.clicks)
    /**
     * A click is sent once its kind is known (its dead, error and rage windows are over): flushing until
     * `n` click entries are stored waits for exactly that, and the next click then starts a cluster of its own.
     */
    const settled = (n: number) =>
      until(`${n} click entries stored`, async () => {
        await flushTracker(page)
        return storedClicks().length >= n
      })
    await page.click('#works')
    await settled(1)
    await page.click('#dead')
    await settled(2)
    await page.click('#broken')
    await settled(3)
    const rage = await page.locator('button.rage').boundingBox()
    for (let i = 0; i < 4; i++) await page.mouse.click(rage!.x + 20 + i * 3, rage!.y + 10) // four clicks within a few px and well under a second
    await settled(4)
    await page.click('.card')
    await settled(5)

    const clicks = storedClicks()
    t.equal(clicks.length, 5, 'the rage clicks collapsed into one entry')
    const [works, dead, broken, rageClick, card] = clicks
    t.match(works, { kind: 'click', selector: '#works', label: 'Add item', tag: 'button', interactive: true }, 'a click that changed the page is a click')
    t.match(dead, { kind: 'dead', selector: '#dead', label: 'Does nothing' }, 'a button that did nothing is a dead click')
    t.match(broken, { kind: 'error', selector: '#broken' }, 'a click followed by an error is an error click')
    t.match(rageClick, { kind: 'rage', n: 4, label: 'Stuck' }, 'four quick clicks in one place are one rage click with n')
    t.notOk(/sc-|bdVaJa/.test(rageClick.selector!), `no generated class in the selector (${rageClick.selector})`)
    t.match(card, { kind: 'click', tag: 'div', interactive: true, label: 'Open card' }, 'a pointer-styled div is interactive')
    t.equal(card.selector, 'body > div.card', 'its selector keeps the stable class and drops the CSS-modules hash')

    const errors = batchesOf(sk).flatMap((b) => b.errors)
    t.equal(errors.length, 1, 'the error is reported')
    t.match(errors[0].message, /undefinedFunctionForTest/, 'with its message')
    t.equal(tab.pageErrors.length, 1, 'the page\'s own error still reaches the page (the tracker only listens)')
  })

})
