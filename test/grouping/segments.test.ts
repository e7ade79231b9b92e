import t from 'tap'
import { classifySegment, collapseSegment } from '../../src/grouping/segments.js'
import { EXACT, GENERATED, WORDS } from './segment-table.js'

t.test('the calibration table has at least 200 segments in both classes', async (t) => {
  t.ok(GENERATED.length + WORDS.length >= 200)
  t.ok(GENERATED.length >= 80, 'generated')
  t.ok(WORDS.length >= 80, 'words, slugs and ids')
})

t.test('generated lowercase alphanumerics of 12+ characters collapse to :hash', async (t) => {
  for (const segment of GENERATED) t.equal(collapseSegment(segment), ':hash', segment)
})

t.test('words, compounds, names with numbers, slugs, prefixed and mixed-case ids stay as they are', async (t) => {
  for (const segment of WORDS) t.equal(collapseSegment(segment), segment, segment)
})

t.test('digits, UUIDs and dates in their common forms', async (t) => {
  for (const [segment, expected] of EXACT) t.equal(collapseSegment(segment), expected, segment)
})

t.test('shorter than 12 characters is never a hash, however random', async (t) => {
  for (const segment of ['x7k2m9p4q8r', 'qzjxwvbnmrt', 'a1b2c3d4e5f']) t.equal(classifySegment(segment), 'keep', segment)
})
