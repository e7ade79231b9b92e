/**
 * Real reverse proxies from Debian's packages (nginx, Caddy, HAProxy) on
 * loopback, each run from the config this project ships in deploy/: the test
 * changes only what a self-hoster would (the listen address, the certificate
 * paths, the service's port) and what running beside other tests needs (no
 * Caddy admin port or port-80 redirect, files in a temporary directory).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent, fetch } from 'undici'
import { ROOT, tempDataDir } from './cluster.js'

export type ProxyKind = 'nginx' | 'caddy' | 'haproxy'
export const PROXIES: ProxyKind[] = ['nginx', 'caddy', 'haproxy']

export interface Certificate {
  dir: string
  cert: string
  key: string
  /** Certificate and key in one file, as HAProxy takes them. */
  combined: string
}

/** A self-signed certificate for 127.0.0.1 (EC P-256: made in milliseconds). */
export function selfSignedCertificate(): Certificate {
  const dir = tempDataDir('svc-cert-')
  const cert = join(dir, 'cert.pem')
  const key = join(dir, 'key.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' })
  const combined = join(dir, 'combined.pem')
  writeFileSync(combined, readFileSync(cert, 'utf8') + readFileSync(key, 'utf8'))
  return { dir, cert, key, combined }
}

export interface RunningProxy {
  kind: ProxyKind
  /** https://127.0.0.1:<port>, the public address. */
  url: string
  port: number
  output: () => string
  stop(): Promise<void>
}

/** Replaces `from` in a shipped config, and fails loudly if the config no longer holds it. */
function edit(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the shipped proxy config no longer contains ${JSON.stringify(from)}`)
  return text.split(from).join(to)
}

function configure(kind: ProxyKind, dir: string, port: number, servicePort: number, cert: Certificate): [string, string[]] {
  const shipped = (path: string) => readFileSync(join(ROOT, 'deploy', path), 'utf8')
  if (kind === 'nginx') {
    let site = shipped('nginx/svc.conf')
    site = edit(site, 'listen 443 ssl http2;', `listen 127.0.0.1:${port} ssl http2;`)
    site = edit(site, 'server 127.0.0.1:8787;', `server 127.0.0.1:${servicePort};`)
    site = edit(site, '/etc/ssl/svc/fullchain.pem', cert.cert)
    site = edit(site, '/etc/ssl/svc/privkey.pem', cert.key)
    writeFileSync(join(dir, 'svc.conf'), site)
    for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp))
    // What Debian's /etc/nginx/nginx.conf gives the site: the http context, here with every file in `dir`.
    const main = [
      process.getuid?.() === 0 ? 'user root;' : '',
      'daemon off;',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      '  access_log off;',
      ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((temp) => `  ${temp === 'body' ? 'client_body' : temp}_temp_path ${join(dir, temp)};`),
      `  include ${join(dir, 'svc.conf')};`,
      '}',
    ].join('\n')
    writeFileSync(join(dir, 'nginx.conf'), main)
    return ['/usr/sbin/nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')]]
  }
  if (kind === 'caddy') {
    let file = shipped('caddy/Caddyfile')
    file = edit(file, 'admin localhost:2019', 'admin off\n\tauto_https disable_redirects')
    file = edit(file, 'svc.example.com {', `https://127.0.0.1:${port} {`)
    file = edit(file, 'reverse_proxy 127.0.0.1:8787', `reverse_proxy 127.0.0.1:${servicePort}`)
    file = edit(file, '/etc/ssl/svc/fullchain.pem', cert.cert)
    file = edit(file, '/etc/ssl/svc/privkey.pem', cert.key)
    writeFileSync(join(dir, 'Caddyfile'), file)
    return ['/usr/bin/caddy', ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile']]
  }
  let cfg = shipped('haproxy/haproxy.cfg')
  cfg = edit(cfg, 'bind :443 ssl crt /etc/haproxy/certs/svc.pem', `bind 127.0.0.1:${port} ssl crt ${cert.combined}`)
  cfg = edit(cfg, 'server svc1 127.0.0.1:8787', `server svc1 127.0.0.1:${servicePort}`)
  writeFileSync(join(dir, 'haproxy.cfg'), cfg)
  return ['/usr/sbin/haproxy', ['-f', join(dir, 'haproxy.cfg'), '-db']]
}

export function proxyInstalled(kind: ProxyKind): boolean {
  return existsSync({ nginx: '/usr/sbin/nginx', caddy: '/usr/bin/caddy', haproxy: '/usr/sbin/haproxy' }[kind])
}

/** An undici dispatcher that trusts the test certificate's proxy and connects from `localAddress` (127.0.0.0/8 is all loopback). */
export function clientFrom(localAddress = '127.0.0.1'): Agent {
  return new Agent({ localAddress, connect: { rejectUnauthorized: false } })
}

/** Starts `kind` on `port` in front of the service on `servicePort`, and waits until /health answers through it. */
export async function startProxy(kind: ProxyKind, port: number, servicePort: number, cert: Certificate): Promise<RunningProxy> {
  const dir = tempDataDir(`svc-${kind}-`)
  const [command, args] = configure(kind, dir, port, servicePort, cert)
  let output = ''
  const child: ChildProcess = spawn(command, args, { env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `https://127.0.0.1:${port}`
  const client = clientFrom()
  const deadline = Date.now() + 20_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${kind} exited with ${child.exitCode}:\n${output}`)
    const status = await fetch(`${url}/health`, { dispatcher: client }).then((r) => (r.body?.cancel(), r.status), () => 0)
    if (status === 200) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${kind} did not answer /health within 20 s (last status ${status}):\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  await client.close()
  return {
    kind,
    url,
    port,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
