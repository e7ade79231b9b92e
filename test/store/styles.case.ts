/**
 * The shared suite's part for stylesheets kept once per project
 * (src/recordings/styles.ts): a style item is stored under its project and
 * hash, a second copy is a duplicate, and another project's copy is its own.
 * Run by storeSuite (store.case.ts) for every implementation.
 */
import { gzipSync } from 'node:zlib'
import type { Test } from 'tap'
import type { IngestItem } from '../../src/store/store.js'
import type { StoreFactory } from './store.case.js'

const HASH = 'a'.repeat(64)
const style = (projectId: string, hash = HASH): IngestItem => ({ kind: 'style', projectId, receivedAt: 1_700_000_000_000, hash, body: gzipSync('body { color: red }') })

export function stylesSuite(t: Test, open: StoreFactory): void {
  t.test('a stylesheet is kept once per project and hash, and survives a reopen', async (t) => {
    const { store, reopen } = await open(t)
    t.same(await store.appendBatch([style('prj_a'), style('prj_a')]), ['stored', 'duplicate'], 'the second copy in one batch is a duplicate')
    t.same(await store.appendBatch([style('prj_a'), style('prj_b')]), ['duplicate', 'stored'], 'another project keeps its own copy')
    const bytes = gzipSync('body { color: red }').byteLength
    t.equal(store.styleBytes('prj_a'), bytes, 'one copy counted')
    t.equal(store.getStyle('prj_a', 'b'.repeat(64)), undefined, 'an unknown hash has no text')
    const reopened = await reopen()
    t.same(Buffer.from(reopened.getStyle('prj_a', HASH)!), gzipSync('body { color: red }'), 'the bytes read back')
    t.equal(reopened.styleBytes('prj_c'), 0, 'a project without stylesheets holds none')
  })
}
