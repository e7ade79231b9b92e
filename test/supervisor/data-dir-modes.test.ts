/**
 * The data directory holds recordings, password hashes and session digests:
 * after `npm start` (the real cluster) it and the aggregates' directory are
 * 0700 and every LMDB file 0600, whether the directory was new or already
 * there and more open.
 */
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { clusterFor, tempDataDir } from '../helpers/cluster.js'

function modes(dataDir: string): Record<string, string> {
  const found: Record<string, string> = {}
  const mode = (path: string) => (statSync(path).mode & 0o777).toString(8)
  for (const dir of [dataDir, join(dataDir, 'aggregates')]) {
    found[dir.slice(dataDir.length) || '/'] = mode(dir)
    for (const name of readdirSync(dir)) if (name.endsWith('.mdb')) found[join(dir, name).slice(dataDir.length)] = mode(join(dir, name))
  }
  return found
}

const EXPECTED = { '/': '700', '/aggregates': '700', '/data.mdb': '600', '/lock.mdb': '600', '/aggregates/data.mdb': '600', '/aggregates/lock.mdb': '600' }

t.test('a new DATA_DIR is created 0700 with its LMDB files 0600', async (t) => {
  const parent = tempDataDir()
  t.teardown(() => rmSync(parent, { recursive: true, force: true }))
  const dataDir = join(parent, 'fresh', 'data')
  const cluster = await clusterFor(t, { workers: 1, dataDir })
  const health = await fetch(`${cluster.url}/health`)
  t.equal(health.status, 200, 'the cluster serves')
  t.same(modes(dataDir), EXPECTED)
})

t.test('an existing DATA_DIR left 0755, with 0644 files, is tightened at start', async (t) => {
  const dataDir = tempDataDir()
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await clusterFor(t, { workers: 1, dataDir })
  await first.stop()
  mkdirSync(join(dataDir, 'aggregates'), { recursive: true })
  for (const path of [dataDir, join(dataDir, 'aggregates')]) chmodSync(path, 0o755)
  for (const path of ['data.mdb', 'lock.mdb', 'aggregates/data.mdb']) chmodSync(join(dataDir, path), 0o644)
  t.equal(modes(dataDir)['/data.mdb'], '644', 'opened up before the start')
  await clusterFor(t, { workers: 1, dataDir })
  t.same(modes(dataDir), EXPECTED)
})
