/**
 * The client's address behind trusted proxies (TRUST_PROXY): the right-most
 * untrusted hop, never the left-most, and the socket's peer when that peer is
 * no trusted proxy, whatever it writes in X-Forwarded-For or Forwarded.
 */
import t from 'tap'
import { clientAddressOf, NO_TRUSTED_PROXIES, parseTrustedProxies, plainAddress } from '../../src/front/client-address.js'

t.test('TRUST_PROXY takes addresses and CIDR ranges, and refuses anything else by name', async (t) => {
  const trusted = parseTrustedProxies('127.0.0.1/8, 10.0.0.0/8,::1,192.0.2.7')
  t.equal(trusted.spec, '127.0.0.1/8,10.0.0.0/8,::1,192.0.2.7')
  for (const address of ['127.0.0.1', '127.9.8.7', '10.255.0.1', '::1', '192.0.2.7', '::ffff:10.1.2.3', '0000:0000:0000:0000:0000:ffff:7f00:0001']) t.ok(trusted.has(address), `${address} is trusted`)
  for (const address of ['192.0.2.8', '11.0.0.1', '::2', 'unknown', '']) t.notOk(trusted.has(address), `${address} is not`)
  for (const bad of ['10.0.0.0/33', 'localhost', '10.0.0.0/8/1', '::1/129', '10.0.0.0/x']) {
    t.throws(() => parseTrustedProxies(bad), new RegExp(`TRUST_PROXY: ${JSON.stringify(bad).replace(/[/.*]/g, '\\$&')}`), `${bad} is refused`)
  }
  t.equal(parseTrustedProxies(' , '), NO_TRUSTED_PROXIES, 'blank: nothing trusted')
})

t.test('uWebSockets.js and Node spellings of one address are one address', async (t) => {
  t.equal(plainAddress('0000:0000:0000:0000:0000:ffff:7f00:0001'), '127.0.0.1')
  t.equal(plainAddress('::ffff:127.0.0.2'), '127.0.0.2')
  t.equal(plainAddress('0000:0000:0000:0000:0000:0000:0000:0001'), '::1')
  t.equal(plainAddress('2001:0db8:0000:0000:0000:0000:0000:0001'), '2001:db8::1')
  t.equal(plainAddress('[2001:db8::1]:4711'), '2001:db8::1')
  t.equal(plainAddress('192.0.2.1:8080'), '192.0.2.1')
})

t.test('behind trusted proxies the client is the right-most untrusted hop', async (t) => {
  const trusted = parseTrustedProxies('127.0.0.1,10.0.0.0/8')
  t.equal(clientAddressOf('127.0.0.1', ['203.0.113.9'], [], trusted), '203.0.113.9', 'one proxy')
  t.equal(clientAddressOf('127.0.0.1', ['1.1.1.1, 203.0.113.9'], [], trusted), '203.0.113.9', 'what the client wrote on the left is ignored')
  t.equal(clientAddressOf('127.0.0.1', ['1.1.1.1, 203.0.113.9, 10.0.0.5'], [], trusted), '203.0.113.9', 'past a chain of trusted proxies')
  t.equal(clientAddressOf('127.0.0.1', ['1.1.1.1', '203.0.113.9'], [], trusted), '203.0.113.9', 'HAProxy\'s own line after the client\'s')
  t.equal(clientAddressOf('127.0.0.1', ['10.0.0.9, 10.0.0.5'], [], trusted), '10.0.0.9', 'every hop trusted: the left-most')
  t.equal(clientAddressOf('127.0.0.1', [], [], trusted), '127.0.0.1', 'no header: the proxy itself')
  t.equal(clientAddressOf('127.0.0.1', ['203.0.113.9, garbage'], [], trusted), '127.0.0.1', 'a hop no proxy writes: stop at the last certain address')
  t.equal(clientAddressOf('127.0.0.1', [], ['for=192.0.2.60;proto=https, for="[2001:db8::1]:4711"'], trusted), '2001:db8::1', 'Forwarded, when alone')
  t.equal(clientAddressOf('127.0.0.1', ['203.0.113.9'], ['for=192.0.2.60'], trusted), '203.0.113.9', 'X-Forwarded-For first')
  t.equal(clientAddressOf('::ffff:127.0.0.1', ['203.0.113.9'], [], trusted), '203.0.113.9', 'a mapped peer address')
})

t.test('a forged header from a client that is no trusted proxy changes nothing', async (t) => {
  t.equal(clientAddressOf('203.0.113.9', ['127.0.0.1'], ['for=10.0.0.1'], parseTrustedProxies('127.0.0.1')), '203.0.113.9')
  t.equal(clientAddressOf('127.0.0.1', ['203.0.113.9'], [], NO_TRUSTED_PROXIES), '127.0.0.1', 'without TRUST_PROXY not even a loopback peer is believed')
})
