/**
 * Writes never queue behind reads (src/control/router.ts, `writes`): an
 * operation that changes something runs in its organisation's turns among
 * writes only, so another organisation's reads, however many and however
 * long, are never ahead of it. Order only: nothing here is timed. Then the
 * table: every operation that changes something is marked a write, and no
 * read is, written out here so that a mark changed by mistake fails.
 */
import t from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { controlOperations } from '../../src/control/control.js'
import { inlineReads } from '../../src/control/read-pool.js'
import { createRouter, operation } from '../../src/control/router.js'
import { FairTurns } from '../../src/control/turns.js'

const WRITES = [
  'acceptInvite', 'backfillProjectPages', 'changePassword', 'createApiKey', 'createErasure', 'createFirstOwner', 'createInvite', 'createProject',
  'deleteProject', 'mintSetupToken', 'removeMember', 'renameProject', 'revokeApiKey', 'revokeInvite', 'revokeSetupTokens', 'setMemberRole',
  'setProjectCapture', 'setProjectPathRules', 'setProjectRetention', 'setSetupPathRules', 'signOut', 'signOutEverywhere',
]

t.test('every operation that changes something is a write, and nothing else is', async (t) => {
  const operations = controlOperations({ store: undefined as never, config: { publicUrl: 'http://x/api/v1', directUrl: 'http://x', backfillBatch: 1, backfillPauseMs: 0 } })
  const marked = operations.filter((op) => op.writes).map((op) => op.operationId)
  t.same(marked.sort(), [...WRITES].sort())
  // signIn changes a session but has no organisation: it never queues at all.
  t.notOk(operations.find((op) => op.operationId === 'signIn')?.writes)
})

t.test("a write waits for no organisation's reads, not even one holding the turns", async (t) => {
  const done: string[] = []
  let hostileStarted!: () => void
  const started = new Promise<void>((resolve) => (hostileStarted = resolve))
  let openGate!: () => void
  const gate = new Promise<void>((resolve) => (openGate = resolve))
  const operations = [
    operation<{ org: string }>({
      operationId: 'longRead',
      method: 'POST',
      route: '/read',
      credential: 'none',
      summary: 'A read whose first step holds the turns until the test lets it go (as a step awaiting a commit does).',
      async handle({ auth }) {
        done.push(`${auth.org} read`)
        if (auth.org === 'hostile') {
          hostileStarted()
          await gate
        }
        return { ok: true }
      },
    }),
    operation<{ org: string }>({
      operationId: 'change',
      method: 'POST',
      route: '/change',
      credential: 'none',
      writes: true,
      summary: 'A write.',
      handle({ auth }) {
        done.push(`${auth.org} write`)
        return { ok: true }
      },
    }),
  ]
  const router = createRouter(operations, (req: IncomingMessage) => ({ org: String(req.headers['x-org']) }), undefined, undefined, {
    turns: new FairTurns(),
    writes: new FairTurns(),
    reads: inlineReads(undefined as never),
    orgOf: (auth) => (auth as { org: string }).org,
  })
  const server = createServer((req: IncomingMessage, res: ServerResponse) => void router.handle(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`
  const call = (route: string, org: string) => fetch(`${url}${route}`, { method: 'POST', headers: { 'x-org': org } }).then((answer) => answer.status)

  const hostile = [call('/read', 'hostile'), call('/read', 'hostile')]
  await started
  const bystanderRead = call('/read', 'bystander')
  t.equal(await call('/change', 'bystander'), 200, 'the write is answered while a read holds the turns')
  t.same(done, ['hostile read', 'bystander write'], 'the reads queued before it, the bystander\'s own included, still wait')
  t.equal(await call('/change', 'hostile'), 200, 'so is the hostile organisation\'s own write')
  openGate()
  t.same(await Promise.all([...hostile, bystanderRead]), [200, 200, 200])
  t.same(done.slice(2), ['hostile write', 'bystander read', 'hostile read'], 'then the reads go on in their organisations\' turns')
})
