/**
 * Starting the log's servers (src/journal/nats-servers.ts) when a port it was
 * given is taken by then: another process answering there is not taken for
 * the server, and the server that could not listen fails the start at once,
 * with what it said, rather than leaving a cluster a server short.
 */
import { execFileSync } from 'node:child_process'
import { createServer } from 'node:net'
import { rmSync } from 'node:fs'
import t from 'tap'
import { startNatsCluster } from '../../src/journal/nats-servers.js'
import { freePort, tempDataDir } from '../helpers/cluster.js'

t.test('a client port taken before the server listens fails the start, naming the server, and stops the others', async (t) => {
  const squatter = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'))
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve))
  t.teardown(() => squatter.close())
  const taken = (squatter.address() as { port: number }).port
  const dir = tempDataDir('svc-nats-start-')
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let first = true
  const started = Date.now()
  // Two servers: n1's client port is the taken one, n2 starts and must be stopped again.
  const start = startNatsCluster({ dir, size: 2, secure: false, startTimeoutMs: 20_000, freePort: async () => (first ? ((first = false), taken) : freePort()) })
  await t.rejects(start, /nats-server n1 exited while starting:[\s\S]*address already in use/, 'the server that could not listen fails the start, with its own words')
  t.ok(Date.now() - started < 10_000, `at once, not after the start timeout (${Date.now() - started} ms)`)
  const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes('nats-server') && line.includes(dir))
  t.same(left, [], 'no server of the failed start is left running')
})
