/**
 * A flood of wrong sign-ins from many addresses fills the password-hash queue
 * (hash-queue.ts: 2 at once, 16 waiting, then 429). The owner signing in from
 * a place that signed in to the account before waits in the priority line,
 * so the flood cannot keep them out or slow them much; guesses from new
 * places queue behind each other. And a member of another organisation who
 * fills the priority line itself, signing in again and again with the right
 * password from the places they signed in from, cannot keep the owner out.
 */
import t from 'tap'
import { Agent, fetch } from 'undici'
import { clusterFor } from '../helpers/cluster.js'
import { OWNER, ownerSession } from '../helpers/dashboard.js'
import { until } from '../helpers/front-kill.js'
import { seedProject, storeAt } from '../helpers/seed.js'
import { hashPassword } from '../../src/control/passwords.js'

async function signIn(agent: Agent, url: string, body: unknown): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  const res = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  await res.arrayBuffer()
  return { status: res.status, ms: performance.now() - started }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

// One cluster for both: their addresses differ (127.0.8.x, 127.0.9.x), so do their sign-in budgets.
const cluster = await clusterFor(t, { workers: 1 })
await ownerSession(cluster.url)

t.test('32 parallel guessers from 32 addresses leave the owner\'s sign-in from a known place fast', async (t) => {
  const home = new Agent({ localAddress: '127.0.8.200' })
  const attackers = Array.from({ length: 32 }, (_, i) => new Agent({ localAddress: `127.0.8.${i + 1}` }))
  t.teardown(() => Promise.all([home, ...attackers].map((a) => a.close())))

  t.equal((await signIn(home, cluster.url, OWNER)).status, 200, 'the owner signs in from home once: a known place')
  const quiet: number[] = []
  for (let i = 0; i < 3; i++) quiet.push((await signIn(home, cluster.url, OWNER)).ms)

  // Each guesser a new email every time (no pair runs dry), until its address's 30 attempts are spent or 8 s pass.
  let flooding = true
  const answers = new Map<number, number>()
  const admitted: number[] = []
  const refusedAt: number[] = [] // when guesses were answered 429: the guessers' line was full then
  const stopAt = Date.now() + 8_000
  const flood = attackers.map(async (agent, a) => {
    for (let i = 0; flooding && Date.now() < stopAt && i < 40; i++) {
      const { status, ms } = await signIn(agent, cluster.url, { email: `nobody-${a}-${i}@acme.test`, password: 'wrong guess!' })
      answers.set(status, (answers.get(status) ?? 0) + 1)
      if (status === 401) admitted.push(ms)
      if (status === 429) refusedAt.push(performance.now())
    }
  })
  // The owner's sign-ins are timed once the flood fills the hash queue (a guess answered 429); checked below if it never does.
  await until(() => answers.has(429), 5_000)
  const loaded: { ms: number; from: number; to: number }[] = []
  for (let i = 0; i < 5; i++) {
    const from = performance.now()
    const { status, ms } = await signIn(home, cluster.url, OWNER)
    t.equal(status, 200, 'the owner is let in during the flood')
    loaded.push({ ms, from, to: performance.now() })
    await new Promise((resolve) => setTimeout(resolve, 200)) // deliberate: the owner's sign-ins are spread over the flood
  }
  flooding = false
  await Promise.all(flood)
  const overlapping = loaded.filter(({ from, to }) => refusedAt.some((at) => at >= from && at <= to)).length
  t.comment(`owner's sign-in: ${Math.round(median(quiet))} ms quiet, ${loaded.map(({ ms }) => Math.round(ms)).join(', ')} ms under the flood; the guessers were answered ${JSON.stringify(Object.fromEntries(answers))}, a guess let in after ${Math.round(median(admitted))} ms (median)`)
  // The owner's time is reported, not held to a bound: on this shared 2-core machine beside the rest of the suite it
  // swung from 414 to 1,790 ms in one run (the session's write and sync, which a guess has not), and timing belongs in
  // bench/. What holds on any machine: the guessers' line was full while the owner signed in (guesses refused 429 in
  // the same moments), so an owner's check that joined that line would have been refused too; each 200 went by the
  // priority line (hash-queue.test.ts checks its slot and order without the network).
  t.ok((answers.get(429) ?? 0) > 0, 'the flood did fill the queue: guesses were answered 429 overloaded')
  t.ok(overlapping >= 1, `${overlapping} of the owner's 5 sign-ins answered while guesses were refused for a full line`)
})

t.test('a member of another organisation filling the priority line with right passwords does not keep the owner out', async (t) => {
  const INSIDER = { email: 'member@insider.test', password: 'the insider knows it' }
  const { userId } = await seedProject(cluster.dataDir, 'Insider', INSIDER.email)
  await storeAt(cluster.dataDir).updateUser(userId, { passwordHash: await hashPassword(INSIDER.password) })
  const home = new Agent({ localAddress: '127.0.9.200' })
  // 16 places the insider signed in from (the most an account keeps), 20 clients: more than the 2 running and 16 waiting.
  const places = Array.from({ length: 16 }, (_, i) => new Agent({ localAddress: `127.0.9.${i + 1}` }))
  t.teardown(() => Promise.all([home, ...places].map((a) => a.close())))
  t.equal((await signIn(home, cluster.url, OWNER)).status, 200, 'the owner signs in from home once: a known place')
  for (const place of places) if ((await signIn(place, cluster.url, INSIDER)).status !== 200) t.fail('the insider signs in from each place once')

  // Five rounds: the insider sends 20 sign-ins at once (2 run, 16 wait, the rest are refused: the line is full), and
  // the owner asks while they wait. Were the line first come, first served, the owner would be refused each time.
  const answers = new Map<number, number>()
  const owner: number[] = []
  for (let round = 0; round < 5; round++) {
    const burst = Array.from({ length: 20 }, async (_, i) => {
      const { status } = await signIn(places[(i + round * 4) % places.length], cluster.url, INSIDER)
      answers.set(status, (answers.get(status) ?? 0) + 1)
    })
    await new Promise((resolve) => setTimeout(resolve, 30)) // deliberate: the burst reaches the line first
    owner.push((await signIn(home, cluster.url, OWNER)).status)
    await Promise.all(burst)
  }
  t.comment(`the insider's sign-ins were answered ${JSON.stringify(Object.fromEntries(answers))}`)
  t.ok((answers.get(429) ?? 0) > 0 && (answers.get(200) ?? 0) >= 50, 'the insider was let in again and again, and filled the line')
  // The line took the owner's check each time by refusing the insider's newest (hash-queue.ts): one organisation's
  // checks cannot crowd out another's, however many places or sessions it has.
  t.same(owner, [200, 200, 200, 200, 200], 'the owner was let in every time')
})
