/**
 * The proxy configs a self-hoster copies are the ones the tests run: each
 * file in deploy/ appears whole in /docs/self-hosting ("Behind a proxy"), and
 * each keeps the settings the service needs (test/proxy/behind-proxy.test.ts
 * shows what they do; this names why each line is there).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ROOT } from '../helpers/cluster.js'

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')
const guide = read('src/site/pages/self-hosting.md')
const FILES = { nginx: 'deploy/nginx/svc.conf', caddy: 'deploy/caddy/Caddyfile', haproxy: 'deploy/haproxy/haproxy.cfg' }

t.test('the self-hosting guide shows each shipped config whole, after the section opens', async (t) => {
  const section = guide.slice(guide.indexOf('## Behind a proxy'), guide.indexOf('## Check it'))
  for (const [kind, path] of Object.entries(FILES)) t.ok(section.includes(read(path).trimEnd()), `${kind}: ${path} as shipped`)
})

t.test('each config keeps what the service needs', async (t) => {
  const nginx = read(FILES.nginx)
  t.match(nginx, /proxy_http_version 1\.1;/, 'nginx: HTTP/1.1 upstream (HTTP/1.0 is closed unanswered by uWS 20.30)')
  t.match(nginx, /keepalive \d+;/, 'nginx: keep-alive to the service')
  t.match(nginx, /proxy_set_header Connection "";/, 'nginx: keep-alive needs an empty Connection header')
  t.match(nginx, /client_max_body_size 2m;/, 'nginx: bodies past its 1 MB default (a chunk is up to 1,000,000 bytes)')
  t.match(nginx, /proxy_buffering off;/, 'nginx: streamed answers pass as they come')
  t.match(nginx, /X-Forwarded-For \$proxy_add_x_forwarded_for;/, 'nginx: the client address')
  const caddy = read(FILES.caddy)
  t.match(caddy, /flush_interval -1/, 'Caddy: streamed answers pass as they come')
  t.match(caddy, /max_size 2MB/, 'Caddy: bodies up to a chunk\'s cap')
  const haproxy = read(FILES.haproxy)
  t.match(haproxy, /option forwardfor/, 'HAProxy: the client address')
  t.match(haproxy, /timeout server 300s/, 'HAProxy: a long read is not cut')
  for (const [kind, path] of Object.entries(FILES)) t.match(read(path), /TRUST_PROXY=127\.0\.0\.1/, `${kind}: names the setting the service needs`)
})
