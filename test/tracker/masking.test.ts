/**
 * Masking (contract, section 1, rule 8): masked, blocked and password values
 * never reach the server, in any stored byte (decompressed and searched) or
 * in click labels; ignored fields produce no input events; everything else
 * typed is recorded.
 */
import t from 'tap'
import { flushTracker, storedChunks, storedSignals, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

/** Every secret the form page holds or the test types. None may be stored. */
const SECRETS = [
  'PrefilledPw31', // password field's value attribute
  'Hunter2Secret', // typed into the password field
  'TogglePw66', // typed into a password field later switched to text
  'AfterToggle67', // typed into that field after it became a text field
  'MaskedTyping77', // typed into .svc-mask
  'PlaceholderSecret42', // placeholder of a masked field
  'TitleSecret43', // title of a masked field
  'TextareaSecret44', // content of a data-svc-mask textarea
  'NotesTyping45', // typed into it
  'MaskedText88', // text inside data-svc-mask
  'AriaSecret45', // aria-label inside data-svc-mask
  'BlockedText99', // text of .svc-block
  'BlockedTyping98', // typed into an input inside .svc-block
  'BlockedSection77', // text of data-svc-block
  'ButtonSecret46', // label of a masked button
  'AmountSecret47', // masked text inside an unmasked button
  'AddedTitleSecret48', // attribute of a masked element added later
  'AddedTextSecret49', // text of a masked element added later
]

t.test('masking', async (t) => {
  const { seeded, store, record } = await recordingHarness(t)

  const { tab, page } = await record(t, '/form.html')

  await page.locator('#plain').pressSequentially('PlainTyping11')
  await page.locator('#password').fill('')
  await page.locator('#password').pressSequentially('Hunter2Secret')
  await page.locator('#toggled').pressSequentially('TogglePw66')
  await page.click('#show')
  await page.locator('#toggled').pressSequentially('AfterToggle67')
  await page.locator('#masked').pressSequentially('MaskedTyping77')
  await page.locator('#masked-notes').pressSequentially('NotesTyping45')
  await page.locator('#blocked-input').pressSequentially('BlockedTyping98', { timeout: 2000 }).catch(() => undefined)
  await page.locator('#ignored').pressSequentially('IgnoredTyping55')
  await page.click('#masked-button')
  await page.click('#pay')
  await page.locator('#plain').pressSequentially('End')
  await page.waitForTimeout(1200) // clicks are classified 1 s after they happen
  await flushTracker(page)

  const sk = (await page.evaluate('window.svc("stats").sk')) as string
  const chunks = await until('the typed text to be stored', () => {
    const found = storedChunks(store, seeded.project.id).filter((c) => c.sk === sk)
    return found.some((c) => /PlainTyping11End|EndPlainTyping11/.test(c.text)) ? found : false
  })
  const stored = chunks.map((c) => c.text).join('\n')

  t.test('unmasked typing is recorded (the positive control)', async (t) => {
    t.ok(stored.includes('PlainTyping11'), 'plain field value stored')
  })

  t.test('no masked, blocked or password value is in any stored byte', async (t) => {
    for (const secret of SECRETS) t.notOk(stored.includes(secret), `${secret} is not stored`)
  })

  t.test('masked fields stay in the recording, starred', async (t) => {
    t.ok(stored.includes('"*************"'), 'a starred value of the masked typing is stored (13 stars for Hunter2Secret)')
    const snapshot = chunks.flatMap((c) => c.events).find((e: any) => e.type === 2)
    const ids: Record<string, any> = {}
    const walk = (node: any) => {
      if (node.attributes?.id) ids[node.attributes.id] = node
      // A blocked element keeps only its class and size.
      if (node.attributes?.class === 'svc-block') ids.blocked = node
      for (const child of node.childNodes ?? []) walk(child)
    }
    walk(snapshot.data.node)
    t.ok(ids.masked, 'the masked field is in the snapshot')
    t.match(ids.masked.attributes.placeholder, /^\*+$/, 'with its placeholder starred')
    t.ok(ids.blocked, 'the blocked element is a placeholder')
    t.match(ids.blocked.attributes, { rr_width: /px$/, rr_height: /px$/ }, 'of the same size')
    t.notOk(ids.blocked.attributes.id, 'without its other attributes')
    t.same(ids.blocked.childNodes, [], 'with no content')
  })

  t.test('ignored fields produce no input events', async (t) => {
    const snapshot = chunks.flatMap((c) => c.events).find((e: any) => e.type === 2)
    let ignoredId = -1
    let plainId = -1
    const walk = (node: any) => {
      if (node.attributes?.id === 'ignored') ignoredId = node.id
      if (node.attributes?.id === 'plain') plainId = node.id
      for (const child of node.childNodes ?? []) walk(child)
    }
    walk(snapshot.data.node)
    const inputs = chunks.flatMap((c) => c.events).filter((e: any) => e.type === 3 && e.data.source === 5)
    t.ok(inputs.some((e: any) => e.data.id === plainId), 'the plain field has input events')
    t.notOk(inputs.some((e: any) => e.data.id === ignoredId), 'the ignored field has none')
    t.notOk(stored.includes('IgnoredTyping55'), 'and its typing is nowhere')
  })

  t.test('click labels are masked where the element is masked', async (t) => {
    const clicks = await until('clicks', () => {
      const found = storedSignals(store, seeded.project.id).filter((b) => b.sk === sk).flatMap((b) => b.clicks)
      return found.length >= 2 ? found : false
    })
    const signalsText = JSON.stringify(storedSignals(store, seeded.project.id))
    for (const secret of SECRETS) t.notOk(signalsText.includes(secret), `${secret} is not in the signals`)
    const masked = clicks.find((c) => c.selector === '#masked-button')
    t.match(masked?.label, /^\*+$/, 'the masked button\'s label is starred')
    const pay = clicks.find((c) => c.selector === '#pay')
    t.equal(pay?.label, 'Pay **************', 'masked text inside a button is starred in its label')
  })

  t.test('no page errors', async (t) => {
    t.same(tab.pageErrors.map(String), [])
  })
})
