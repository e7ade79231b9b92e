/**
 * GET /metrics decides who is local by the client's address (issue 28):
 * behind a trusted proxy on the same host (TRUST_PROXY), a client the proxy
 * names is not let in for connecting through loopback; without TRUST_PROXY,
 * a loopback request carrying forwarding headers came through a proxy the
 * service does not trust, and is not let in either (issue 41).
 */
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'

async function metrics(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/metrics`, { headers })
  const text = await res.text()
  return { status: res.status, code: res.status === 200 ? undefined : (JSON.parse(text) as { code: string }).code }
}

t.test('behind a trusted proxy, /metrics answers the clients it names as they are', async (t) => {
  const cluster = await clusterFor(t, { workers: 1, env: { TRUST_PROXY: '127.0.0.1' } })
  t.same(await metrics(cluster.url, { 'x-forwarded-for': '203.0.113.5' }), { status: 401, code: 'unauthorized' }, 'a remote client, through the local proxy: refused')
  t.same(await metrics(cluster.url, { 'x-forwarded-for': '127.0.0.1' }), { status: 200, code: undefined }, 'a scraper on the proxy\'s host: answered')
  t.same(await metrics(cluster.url), { status: 200, code: undefined }, 'the proxy host itself, no header: answered')
})

t.test('without TRUST_PROXY, a loopback request that carries forwarding headers is a proxy\'s client, never a local scraper', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  t.same(await metrics(cluster.url, { 'x-forwarded-for': '127.0.0.1' }), { status: 401, code: 'unauthorized' }, 'whatever the header says: an untrusted proxy\'s word is nobody\'s')
  t.same(await metrics(cluster.url, { forwarded: 'for=127.0.0.1' }), { status: 401, code: 'unauthorized' }, 'Forwarded too')
  t.same(await metrics(cluster.url), { status: 200, code: undefined }, 'a scraper on this host without them: answered')
})
