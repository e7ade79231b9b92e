/**
 * Serves the web dashboard at /app/: the HTML shell and the
 * content-hashed modules and stylesheet dist/public/app holds, read once at
 * start-up with the .br/.gz twins the build wrote. Beside the router, not in
 * it: these are files, not operations, and have no place in /openapi.json.
 * Anything under /app/ that is not a built file answers 404 JSON like every
 * other unknown path.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname } from 'node:path'
import { writeError } from './router.js'

interface File {
  body: Buffer
  br?: Buffer
  gzip?: Buffer
  contentType: string
  cacheControl: string
  etag: string
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
}

/** Hashed names change with their content: cache them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable'
/** The shell names the current hashes: revalidate it every time (a 304 is cheap). */
const REVALIDATE = 'no-cache'

/**
 * The dashboard runs only its own scripts. Recorded pages replay inside a
 * sandboxed frame with their own inline styles and their site's images and
 * fonts, hence the wide img/font/media sources; nothing may frame the dashboard.
 */
const SECURITY_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    'img-src * data: blob:',
    'font-src * data:',
    'media-src * data: blob:',
    "connect-src 'self'",
    "frame-src 'self' blob:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
}

const MARKDOWN = [
  '# Dashboard',
  '',
  'The web dashboard of this deployment: projects, settings and install prompts, API keys,',
  'sessions and their replays, heatmaps, the element leaderboard and the friction feed.',
  'It is a browser application; open this address in a browser to sign in.',
  '',
  'Everything it shows comes from the documented API, described at /openapi.json.',
  '',
].join('\n')

export interface DashboardFiles {
  /** Answers the request if it is the dashboard's; returns false to leave it to the router. */
  serve(req: IncomingMessage, res: ServerResponse): boolean
}

export function loadDashboardFiles(dir: URL): DashboardFiles {
  const files = new Map<string, File>()
  if (existsSync(dir)) {
    for (const name of readdirSync(dir)) {
      const type = TYPES[extname(name)]
      if (!type) continue // .gz and .br twins are read with their file
      const body = readFileSync(new URL(name, dir))
      const twin = (suffix: string) => (existsSync(new URL(name + suffix, dir)) ? readFileSync(new URL(name + suffix, dir)) : undefined)
      files.set(name, {
        body,
        br: twin('.br'),
        gzip: twin('.gz'),
        contentType: type,
        cacheControl: name === 'index.html' ? REVALIDATE : IMMUTABLE,
        etag: `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`,
      })
    }
  }

  return {
    serve(req, res) {
      const path = (req.url ?? '/').split('?')[0]
      if (path !== '/app' && !path.startsWith('/app/')) return false
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        writeError(res, 'not_found')
        return true
      }
      if (path === '/app') {
        res.writeHead(308, { Location: '/app/', 'Content-Length': 0 })
        res.end()
        return true
      }
      const name = path === '/app/' ? 'index.html' : path.slice('/app/'.length)
      const file = name.includes('/') ? undefined : files.get(name)
      if (!file) {
        writeError(res, 'not_found', files.size === 0 ? { hint: 'The dashboard is not built: run `npm run build`.' } : undefined)
        return true
      }
      if (name === 'index.html' && accepts(req.headers.accept, 'text/markdown')) {
        send(req, res, 200, { 'Content-Type': 'text/markdown; charset=utf-8', 'Cache-Control': REVALIDATE, Vary: 'Accept, Accept-Encoding' }, Buffer.from(MARKDOWN))
        return true
      }
      const headers: Record<string, string> = { 'Content-Type': file.contentType, 'Cache-Control': file.cacheControl, ETag: file.etag, Vary: 'Accept, Accept-Encoding', ...SECURITY_HEADERS }
      if (req.headers['if-none-match'] === file.etag) {
        send(req, res, 304, headers, Buffer.alloc(0))
        return true
      }
      let body = file.body
      if (file.br && accepts(req.headers['accept-encoding'], 'br')) {
        body = file.br
        headers['Content-Encoding'] = 'br'
      } else if (file.gzip && accepts(req.headers['accept-encoding'], 'gzip')) {
        body = file.gzip
        headers['Content-Encoding'] = 'gzip'
      }
      send(req, res, 200, headers, body)
      return true
    },
  }
}

function send(req: IncomingMessage, res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer): void {
  req.resume() // a GET has no body worth reading; keep the connection reusable
  res.writeHead(status, { ...headers, ...(status === 304 ? {} : { 'Content-Length': String(body.length) }) })
  res.end(req.method === 'HEAD' || status === 304 ? undefined : body)
}

/** Whether a header such as `Accept` or `Accept-Encoding` lists `token` without `q=0`. */
export function accepts(header: string | undefined, token: string): boolean {
  if (!header) return false
  return header.split(',').some((part) => {
    const [value, ...params] = part.trim().toLowerCase().split(';')
    if (value.trim() !== token) return false
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return q === undefined || Number(q.slice(2)) > 0
  })
}
