/**
 * The journal's rules (journal.case.ts) on JetStream: one real nats-server,
 * each test its own streams (a namespace), the same cases the in-memory log
 * passes in milliseconds.
 */
import t from 'tap'
import { openJournal } from '../../src/journal/connect.js'
import { NatsLog } from '../../src/journal/nats-log.js'
import { DEFAULT_LAYOUT } from '../../src/journal/streams.js'
import { natsCluster } from '../helpers/nats.js'
import { journalSuite } from './journal.case.js'

t.setTimeout(180_000)
// Each test its own streams under a namespace, which the shipped node user's permissions (deploy/nats/) do not
// grant: these cases are about the journal's rules on JetStream; the shipped configuration has its own tests.
const nats = await natsCluster(t, 1, { secure: false })
const settings = { ...nats.settings(), natsAuth: { ...nats.settings().natsAuth, trustedNetwork: true } }
let logs = 0

journalSuite(t, async (t) => {
  const layout = { ...DEFAULT_LAYOUT, partitions: 2, replicas: 1, namespace: `n${++logs}` }
  const log = new NatsLog(await openJournal(settings, layout, 30_000))
  t.teardown(() => log.close())
  return { log, layout }
})
