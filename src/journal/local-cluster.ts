/**
 * `npm run cluster:local`: the cluster mode on one machine, to try it. Three
 * nats-server processes (from PATH) form the log, run from the shipped
 * configuration (deploy/nats/: users, TLS) with a CA, certificate and
 * passwords made in ./data-cluster/nats-secrets/ on the first start, and two
 * service nodes (ports 8787 and 8788, data in ./data-cluster/) share it as
 * the `node` user. Ctrl-C stops them all; what they stored stays for the next
 * start.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startNatsCluster } from './nats-servers.js'

const ROOT = resolve(process.env.CLUSTER_DIR || './data-cluster')
// Taken in the order the servers ask for them: each its client port, then its route port.
const NATS_PORTS = [4222, 6222, 4223, 6223, 4224, 6224]
const NODE_PORTS = [8787, 8788]

mkdirSync(ROOT, { recursive: true, mode: 0o700 })
let next = 0
console.log(`starting 3 nats-servers (clients on 4222, 4223, 4224), store in ${ROOT}/nats-*`)
const nats = await startNatsCluster({ dir: ROOT, freePort: async () => NATS_PORTS[next++] })
// What `npm run admin -- log-streams` does on real machines: the node user may not create the streams.
await nats.makeStreams()

const main = fileURLToPath(new URL('./main.js', import.meta.url))
const nodes: ChildProcess[] = NODE_PORTS.map((port, i) => {
  const dataDir = resolve(ROOT, `node-${i + 1}`)
  const child = spawn(process.execPath, [main], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ...nats.env(), PORT: String(port), DATA_DIR: dataDir, DIRECT_URL: `http://127.0.0.1:${port}` },
  })
  child.on('exit', (code, signal) => !stopping && console.error(`node ${i + 1} exited (${signal ?? code})`))
  return child
})
const nodeEnv = Object.entries(nats.env()).map(([name, value]) => `${name}=${value}`).join(' ')
console.log(`
cluster mode, on this machine:
  ${nodeEnv}
  operator (npm run admin -- log-streams, NATS tools): user operator, password in ${nats.secretsDir}/operator.password, CA ${nats.secretsDir}/ca.pem
  node 1: http://127.0.0.1:${NODE_PORTS[0]}   (DATA_DIR ${ROOT}/node-1)
  node 2: http://127.0.0.1:${NODE_PORTS[1]}   (DATA_DIR ${ROOT}/node-2)
Create the owner on either node (http://127.0.0.1:${NODE_PORTS[0]}/app/), or:
  ${nodeEnv} DATA_DIR=${ROOT}/node-1 npm run admin -- create-key --org Acme --email you@example.com
Ctrl-C stops everything.
`)

let stopping = false
async function stop(): Promise<void> {
  if (stopping) return
  stopping = true
  console.log('stopping the nodes, then the nats-servers')
  await Promise.all(nodes.map((child) => new Promise((done) => (child.exitCode !== null ? done(undefined) : (child.once('exit', done), child.kill('SIGTERM'))))))
  await nats.stop()
  process.exit(0)
}
process.on('SIGINT', () => void stop())
process.on('SIGTERM', () => void stop())
