/**
 * Sign-in throttling against the real cluster: attempts are counted as they
 * arrive (before the password hash), per client address, per (account,
 * address) pair and per account from new places, and the refusal carries
 * Retry-After. The address is the one the front saw, or behind a trusted
 * proxy the one it names (test/proxy/ runs the same cases through real
 * proxies): a client cannot choose it with any header.
 */
import t from 'tap'
import { Agent, fetch as undiciFetch } from 'undici'
import { AttemptBudget, createLoginThrottle } from '../../src/control/login-throttle.js'
import { clusterFor } from '../helpers/cluster.js'

const PASSWORD = 'correct horse battery'

async function post(url: string, route: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/v1${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json(), headers: res.headers }
}

/** The owner (setup) and a second member (by invite), each with a password. */
async function twoAccounts(url: string) {
  const setup = await post(url, '/auth/setup', { orgName: 'Acme', email: 'alice@acme.test', password: PASSWORD })
  const cookie = setup.headers.get('set-cookie')!.split(';')[0]
  const invite = await post(url, '/auth/invite', {}, { cookie, 'x-csrf-token': setup.body.csrfToken })
  const joined = await post(url, '/auth/accept-invite', { token: invite.body.inviteUrl.split('/invite/')[1], email: 'bob@acme.test', password: PASSWORD })
  if (setup.status !== 200 || joined.status !== 200) throw new Error('could not make the two accounts')
}

t.test('parallel guesses: the sixth is refused before hashing, and so is the right password after them; another account is unaffected', async (t) => {
  const cluster = await clusterFor(t, { workers: 2 })
  await twoAccounts(cluster.url)

  const guesses = await Promise.all(Array.from({ length: 8 }, (_, i) => post(cluster.url, '/auth/login', { email: 'alice@acme.test', password: `wrong guess ${i}` })))
  t.same(guesses.map((g) => [g.status, g.body.code]), Array(8).fill([401, 'unauthorized']), 'every guess is refused')
  const throttled = guesses.filter((g) => g.retryAfter !== null)
  t.equal(throttled.length, 3, 'exactly the guesses past the fifth are throttled, however many arrive at once')
  t.ok(throttled.every((g) => Number(g.retryAfter) > 800 && Number(g.retryAfter) <= 900), 'Retry-After: the rest of the 15-minute window')
  t.match(throttled[0].body.hint, /Wait \d+ s/)

  const started = Date.now()
  const right = await post(cluster.url, '/auth/login', { email: 'Alice@acme.test', password: PASSWORD })
  t.same([right.status, right.body.code], [401, 'unauthorized'], 'the right password is refused too while the account is throttled')
  t.ok(right.retryAfter, 'with Retry-After')
  t.notOk(right.headers.get('set-cookie'), 'and no session')
  t.ok(Date.now() - started < 2_000, 'refused without waiting')

  const other = await post(cluster.url, '/auth/login', { email: 'bob@acme.test', password: PASSWORD })
  t.equal(other.status, 200, 'an unrelated account signs in from the same address')
  t.equal(other.retryAfter, null)
})

t.test('per address: spraying many emails runs out of attempts, whatever address header the client sends', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  await twoAccounts(cluster.url)
  // One after another: parallel guesses past the hash queue's line would be answered 429 overloaded (hash-queue.ts), not counted here.
  const spray = []
  for (let i = 0; i < 32; i++) spray.push(await post(cluster.url, '/auth/login', { email: `nobody${i}@acme.test`, password: 'wrong guess!' }, { 'x-svc-client-ip': `10.0.0.${i}` }))
  t.equal(spray.filter((g) => g.retryAfter === null).length, 30, '30 attempts per address, then throttled')
  t.ok(spray.every((g) => g.status === 401 && g.body.code === 'unauthorized'))
  const spoofed = await post(cluster.url, '/auth/login', { email: 'bob@acme.test', password: PASSWORD }, { 'x-svc-client-ip': '192.0.2.1' })
  t.same([spoofed.status, spoofed.body.code], [401, 'unauthorized'], 'a client-sent address header is overwritten by the front')
  t.ok(spoofed.retryAfter)
})

t.test('a budget forgets its oldest windows first when full, and a new window opens once the old one ends', async (t) => {
  const budget = new AttemptBudget({ attempts: 2, windowMs: 1_000 }, 3)
  t.same([budget.take('a', 0), budget.take('a', 10), budget.take('a', 20)], [0, 0, 980], 'two attempts, then the wait until the window ends')
  t.equal(budget.take('a', 1_000), 0, 'the next window starts afresh')
  for (const key of ['b', 'c', 'd', 'e']) budget.take(key, 1_100)
  t.equal(budget.size, 3, 'never more keys than its bound')
  budget.giveBack('e', false)
  t.equal(budget.size, 2, 'giving back the only attempt forgets the key')
})

/** POST /auth/login from a chosen loopback address (127.0.0.0/8 is all this machine's). */
async function loginFrom(agent: Agent, url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await undiciFetch(`${url}/api/v1/auth/login`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { code: string } }
}

t.test('directly, with TRUST_PROXY set: 40 wrong sign-ins from one client leave another client\'s right password accepted, and forged X-Forwarded-For is ignored', async (t) => {
  const cluster = await clusterFor(t, { workers: 1, env: { TRUST_PROXY: '127.0.0.1' } })
  await twoAccounts(cluster.url)
  const attacker = new Agent({ localAddress: '127.0.5.66' })
  const owner = new Agent({ localAddress: '127.0.5.7' })
  t.teardown(() => Promise.all([attacker.close(), owner.close()]))
  const guesses = []
  for (let i = 0; i < 40; i++) guesses.push(await loginFrom(attacker, cluster.url, { email: 'alice@acme.test', password: `wrong guess ${i}` }, { 'x-forwarded-for': `198.51.100.${i}`, forwarded: `for=198.51.100.${i}` }))
  t.ok(guesses.every((g) => g.status === 401 && g.body.code === 'unauthorized'))
  t.equal(guesses.filter((g) => g.retryAfter === null).length, 5, 'a new forged address per guess buys nothing: 5 guesses, then the pair waits')
  t.equal((await loginFrom(owner, cluster.url, { email: 'alice@acme.test', password: PASSWORD })).status, 200, 'the owner signs in from another address')
  const still = await loginFrom(attacker, cluster.url, { email: 'alice@acme.test', password: PASSWORD })
  t.same([still.status, still.body.code], [401, 'unauthorized'], 'the attacker stays throttled')
  t.ok(Number(still.retryAfter) > 0)
  t.match(cluster.output(), /"msg":"sign-in throttled"[^\n]*"client":"127\.0\.5\.66"/, 'the log names the socket\'s peer, not what it forged')
})

t.test('without TRUST_PROXY, X-Forwarded-For from a loopback client changes nothing', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  await twoAccounts(cluster.url)
  const sprayer = new Agent({ localAddress: '127.0.6.66' })
  t.teardown(() => sprayer.close())
  const spray = []
  for (let i = 0; i < 32; i++) spray.push(await loginFrom(sprayer, cluster.url, { email: `nobody${i}@acme.test`, password: 'wrong guess!' }, { 'x-forwarded-for': `198.51.100.${i}` }))
  t.equal(spray.filter((g) => g.retryAfter === null).length, 30, 'one budget of 30 for the socket\'s address')
  const right = await loginFrom(sprayer, cluster.url, { email: 'bob@acme.test', password: PASSWORD }, { 'x-forwarded-for': '198.51.100.200' })
  t.same([right.status, right.body.code], [401, 'unauthorized'], 'the sprayer\'s own address waits, whatever it claims')
})

t.test('the account ceiling: many places guessing at one account lock out new places only, not places it signed in from', async (t) => {
  let now = 0
  const throttle = createLoginThrottle(() => now, { pair: { attempts: 5, windowMs: 1_000 }, address: { attempts: 30, windowMs: 1_000 }, account: { attempts: 10, windowMs: 5_000 } })
  throttle.attempt('a@x.test', 'home')
  throttle.succeeded('a@x.test', 'home')
  for (let i = 0; i < 10; i++) throttle.attempt('a@x.test', `bot-${i}`)
  t.throws(() => throttle.attempt('a@x.test', 'bot-99'), { code: 'unauthorized', options: { retryAfterSeconds: 5 } }, 'the eleventh new place waits for the ceiling\'s window')
  t.doesNotThrow(() => throttle.attempt('a@x.test', 'home'), 'the owner\'s known place may still try')
  t.doesNotThrow(() => throttle.attempt('b@x.test', 'bot-99'), 'another account is untouched')
  now = 5_000
  t.doesNotThrow(() => throttle.attempt('a@x.test', 'bot-99'), 'a new window opens')
})
