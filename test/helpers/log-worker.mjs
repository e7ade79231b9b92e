/**
 * The asynchronous half of test/helpers/log-store.ts, in a worker thread so
 * that the test's thread can wait for it synchronously (store reads are
 * synchronous): a request through a node, which answers once the node's
 * LMDB has applied the log (its read barrier), and a chunk's bytes read
 * from the log by direct get. Plain JavaScript: it runs without the test's
 * TypeScript loader.
 */
import { parentPort } from 'node:worker_threads'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'

const managers = new Map()

/** `options`: natsConnectOptions of the node (servers, user, password, CA), one connection per set of servers. */
async function managerFor(options) {
  const key = options.servers.join(',')
  if (!managers.has(key)) {
    const nc = await connect(options)
    // Never keep the test process alive for this connection.
    nc.closed().catch(() => undefined)
    managers.set(key, await jetstreamManager(nc))
  }
  return managers.get(key)
}

const operations = {
  // Any route the fronts hand to the control worker passes its read barrier; an unknown one changes nothing.
  async settle({ url }) {
    const res = await fetch(`${url}/api/v1/read-barrier`)
    await res.arrayBuffer()
    return res.status
  },
  async logMessage({ options, stream, seq }) {
    const message = await (await managerFor(options)).direct.getMessage(stream, { seq })
    return message ? message.data : undefined
  },
}

parentPort.on('message', async ({ op, args, signal, port }) => {
  let reply
  try {
    reply = { value: await operations[op](args) }
  } catch (error) {
    reply = { error: String(error) }
  }
  port.postMessage(reply)
  Atomics.store(signal, 0, 1)
  Atomics.notify(signal, 0)
})
