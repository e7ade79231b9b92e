/**
 * A newcomer's path to a secured cluster (/docs/self-hosting, issue 43) names
 * what the tests' own clusters run with: make-secrets.sh makes every file the
 * page copies to a service machine, and the page's node command sets exactly
 * the settings every cluster test starts its nodes with (nats-servers.ts's
 * env(), from the same script's output), so a node started as the page says
 * is the node the suite proves. A setting the page forgets fails here, not
 * on a newcomer's machine.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { readLogSecret } from '../../src/journal/seal.js'
import { NATS_DEPLOY_DIR } from '../../src/journal/nats-servers.js'
import { tempDataDir } from '../helpers/cluster.js'

const page = readFileSync(new URL('../../src/site/pages/self-hosting.md', import.meta.url), 'utf8')

t.test('the self-hosting page\'s node command and files are those make-secrets.sh makes and the cluster tests run with', async (t) => {
  const start = /```sh\n(NATS_URL=(?:(?!```)[\s\S])*?npm start)\n```/.exec(page)
  t.ok(start, 'the page has the node\'s start command')
  const settings = Object.fromEntries([...start![1].matchAll(/\b([A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name, value]))
  t.same(Object.keys(settings).sort(), ['NATS_ERASER_PASSWORD_FILE', 'NATS_LOG_SECRET_FILE', 'NATS_PASSWORD_FILE', 'NATS_TLS_CA_FILE', 'NATS_URL', 'NATS_USER'], 'what a cluster test\'s node is started with (nats-servers.ts env())')
  const copied = [...page.matchAll(/`secrets\/([a-z.]+)`/g)].map(([, file]) => file)
  for (const file of ['ca.pem', 'node.password', 'eraser.password', 'log.secret']) t.ok(copied.includes(file), `the page copies secrets/${file} to the service machines`)

  const dir = tempDataDir('svc-secrets-')
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  execFileSync('sh', [join(NATS_DEPLOY_DIR, 'make-secrets.sh'), dir, 'nats-1.internal', 'nats-2.internal', 'nats-3.internal'], { stdio: ['ignore', 'ignore', 'pipe'] })
  for (const file of new Set(copied)) t.ok(existsSync(join(dir, file)), `make-secrets.sh made ${file}`)
  for (const file of ['node.password', 'eraser.password', 'log.secret']) t.equal(statSync(join(dir, file)).mode & 0o077, 0, `${file} is readable by its owner only`)
  t.equal(readLogSecret(join(dir, 'log.secret')).byteLength, 64, 'a log secret a node accepts')
  // The command as the page writes it, its files where make-secrets.sh put them: a configuration the node takes.
  const config = loadConfig({ ...settings, NATS_PASSWORD_FILE: join(dir, 'node.password'), NATS_TLS_CA_FILE: join(dir, 'ca.pem'), NATS_ERASER_PASSWORD_FILE: join(dir, 'eraser.password'), NATS_LOG_SECRET_FILE: join(dir, 'log.secret') })
  t.equal(config.natsAuth.user, 'node')
  t.match(config.natsUrl, /^tls:\/\/nats-1\.internal:4222,/)
  t.throws(() => loadConfig({ ...settings, NATS_LOG_SECRET_FILE: '' }), /NATS_LOG_SECRET_FILE/, 'without the log secret a node does not start')
})
