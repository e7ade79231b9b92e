/**
 * A reverse proxy on this host that TRUST_PROXY does not name
 * (src/front/proxy-warning.ts): only a loopback peer's forwarding headers
 * count, a trusted proxy is no warning, and the log line comes once a minute.
 */
import t from 'tap'
import { NO_TRUSTED_PROXIES, parseTrustedProxies } from '../../src/front/client-address.js'
import { UntrustedProxyWatch } from '../../src/front/proxy-warning.js'

/** The service's warnings (stderr, one JSON line each) while the test runs. */
function captureLog(t: { teardown(fn: () => void): void }): () => string[] {
  const lines: string[] = []
  const write = process.stderr.write.bind(process.stderr)
  process.stderr.write = ((chunk: string | Uint8Array) => (lines.push(String(chunk)), true)) as typeof process.stderr.write
  t.teardown(() => void (process.stderr.write = write))
  return () => lines
}

t.test('forwarding headers from an untrusted loopback peer are noted and warned of once a minute', async (t) => {
  let now = 1_000_000
  const watch = new UntrustedProxyWatch(NO_TRUSTED_PROXIES, () => now)
  const lines = captureLog(t)
  t.notOk(watch.note('127.0.0.1', false), 'no forwarding headers: nothing to note')
  t.notOk(watch.note('203.0.113.9', true), 'a remote peer that forwards is no proxy of this host')
  t.equal(watch.warning, undefined, 'nothing to say yet')
  t.ok(watch.note('127.0.0.1', true), 'a local proxy the service does not trust')
  t.ok(watch.note('::ffff:127.0.0.1', true), 'the same, as uWS may spell it')
  now += 59_000
  watch.note('127.0.0.1', true)
  t.equal(lines().filter((l) => /TRUST_PROXY does not name it/.test(l)).length, 1, 'one line in the first minute')
  now += 1_000
  watch.note('127.0.0.1', true)
  t.equal(lines().filter((l) => /TRUST_PROXY does not name it/.test(l)).length, 2, 'another once the minute is over')
  t.match(watch.warning, /^4 request\(s\) came through a proxy on this host \(127\.0\.0\.1\).*TRUST_PROXY=127\.0\.0\.1/)
})

t.test('a proxy TRUST_PROXY names is no warning', async (t) => {
  const watch = new UntrustedProxyWatch(parseTrustedProxies('127.0.0.1'))
  t.notOk(watch.note('127.0.0.1', true))
  t.ok(watch.note('127.0.0.2', true), 'but another local one is')
})
