/**
 * The NATS configuration a self-hoster copies is the one the tests run
 * (test/helpers/nats.ts starts every test's servers from deploy/nats/): the
 * guide shows its users whole, the configuration reference and the guide name
 * every NATS setting a node reads, and neither README nor the guide tells
 * anyone to run NATS open.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ROOT } from '../helpers/cluster.js'

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')
const readme = read('README.md')
const guide = read('src/site/pages/self-hosting.md')
const reference = read('docs/configuration.md')
// The credential, TLS and trust settings: the file names, the user, NATS_TRUSTED_NETWORK.
const settings = [...new Set([...read('src/config.ts').matchAll(/\b(NATS_(?:USER|[A-Z_]*_FILE|TRUSTED_NETWORK))\b/g)].map((m) => m[1]))]

t.test('the configuration reference and the guide name every NATS credential and TLS setting a node reads', async (t) => {
  t.ok(settings.length >= 8, `config.ts reads ${settings.join(', ')}`)
  // NATS_LOG_SECRET_FILE seals entries rather than reaching NATS: documented with the seal.
  for (const name of settings.filter((n) => n !== 'NATS_LOG_SECRET_FILE')) {
    t.match(reference, new RegExp(`\\| [^|]*\`${name}\``), `docs/configuration.md: ${name}`)
    t.match(guide, new RegExp(`\`${name}\``), `/docs/self-hosting: ${name}`)
  }
})

t.test('the guide shows the shipped users and permissions whole, and nobody is told to run NATS open', async (t) => {
  t.ok(guide.includes(read('deploy/nats/accounts.conf').trimEnd()), 'deploy/nats/accounts.conf as shipped')
  for (const [name, text] of [['README', readme], ['guide', guide]]) {
    t.notMatch(text, /nats-server -js/, `${name}: no bare nats-server command line (no users, no TLS)`)
    t.notMatch(text, /NATS_URL=nats:\/\//, `${name}: service nodes are shown reaching NATS over TLS`)
  }
})

t.test('the shipped files hold no secret and keep TLS on clients and routes', async (t) => {
  const server = read('deploy/nats/server.conf')
  const cluster = read('deploy/nats/nats.conf')
  const accounts = read('deploy/nats/accounts.conf')
  t.match(server, /^tls \{/m, 'clients over TLS')
  t.match(server, /max_file_store: \d+GB/, 'a JetStream store limit')
  t.match(cluster, /include \.\/server\.conf/)
  t.match(cluster, /cluster \{[\s\S]*tls \{[\s\S]*verify: true/, 'routes authenticate by certificate')
  for (const match of accounts.matchAll(/password: (\S+)/g)) t.match(match[1], /^\$[A-Z_]+$/, 'each password comes from the environment (nats.env)')
  t.notMatch(accounts, /no_auth_user/, 'no user for clients that show no credentials')
})
