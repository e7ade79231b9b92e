import { execFileSync } from 'node:child_process'
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'

/**
 * Which build should serve here, worked out from the machine rather than from
 * src/front/uws.ts: 20.57 needs glibc 2.38 and ships Node 20/22/24/25
 * (ABI 115, 127, 137, 141); 20.30 ships Node 16/18/20 (ABI 93, 108, 115).
 */
function expectedEngine(): string {
  const glibc = /(\d+)\.(\d+)/.exec(execFileSync('ldd', ['--version']).toString())
  const glibcOk = glibc !== null && (Number(glibc[1]) > 2 || Number(glibc[2]) >= 38)
  const abi = process.versions.modules
  if (process.platform === 'linux' && glibcOk && ['115', '127', '137', '141'].includes(abi)) return 'uws-native 20.57'
  if (['93', '108', '115'].includes(abi)) return 'uws-native 20.30'
  return 'fallback'
}

t.test('the front serves with the first uWebSockets.js build whose native binary loads, and says which', async (t) => {
  const expected = expectedEngine()
  const cluster = await clusterFor(t, { workers: 1 })
  const res = await fetch(`${cluster.url}/health`)
  t.equal(res.status, 200)
  const health = (await res.json()) as { ok: boolean; http: string }
  t.equal(health.http, expected, `/health names the engine (Node ${process.version})`)
  t.match(cluster.output(), new RegExp(`"msg":"listening".*"native":${expected !== 'fallback'},"http":"${expected}"`))
  if (expected === 'fallback') {
    t.match(cluster.output(), /PURE-NODE FALLBACK/, 'the fallback is announced loudly')
  } else {
    // Only the native binary writes this header; the pure-Node fallback does not.
    t.equal(res.headers.get('uwebsockets'), '20')
    t.notMatch(cluster.output(), /PURE-NODE FALLBACK/, 'no fallback announced')
  }
})

t.test('on the pure-Node fallback the front still serves, and warns with what would give the native one', async (t) => {
  const cluster = await clusterFor(t, { workers: 1, env: { UWS_USE_FALLBACK: '1' } })
  const res = await fetch(`${cluster.url}/health`)
  t.equal(res.status, 200)
  t.equal(((await res.json()) as { http: string }).http, 'fallback')
  t.equal(res.headers.get('uwebsockets'), null, 'the fallback does not write the native header')
  t.match(cluster.output(), /"level":"warn".*PURE-NODE FALLBACK.*Node 20, 22, 24 or 25/)
  t.match(cluster.output(), /"msg":"listening".*"native":false,"http":"fallback"/)
})
