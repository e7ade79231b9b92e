/**
 * The website's public pages, served by the control worker at the root
 * (API contract, section 1, rule 6). Each page is one Markdown source; it is
 * served as HTML by default and as that Markdown to `Accept: text/markdown`,
 * both with `Vary: Accept, Accept-Encoding`, and compressed (br or gzip) when
 * the client accepts it. An Accept header that matches neither is answered
 * 406 `not_acceptable`. Everything is rendered and compressed once, at
 * start-up: a page request is a map lookup.
 */
import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { commandsMarkdown } from '../../cli/src/help.js'
import { INGEST_OPERATIONS, PUBLIC_ARTIFACTS } from '../front/operations.js'
import { writeError, type Operation } from '../control/router.js'
import { documentPlaceholders, fillPlaceholders, type DocumentOptions } from '../install/documents.js'
import { ERRORS } from '../errors.js'
import { docsImages, docsPages, type DocsImage } from './docs-tree.js'
import { negotiateEncoding, negotiateType, type Coding } from './negotiate.js'
import { renderHtml, titleOf, type NavLink } from './render.js'

export const SITE_NAME = 'svc-recorder'

/** Every public page: its path, its Markdown source, its label in the navigation. */
export const PAGES = [
  { path: '/', source: 'site', file: 'home.md', label: 'Home' },
  { path: '/docs/install', source: 'public', file: 'install.md', label: 'Install' },
  { path: '/docs/cli', source: 'site', file: 'cli.md', label: 'CLI' },
  { path: '/docs/api', source: 'site', file: 'api.md', label: 'API' },
  { path: '/docs/privacy', source: 'site', file: 'privacy.md', label: 'Privacy and masking' },
  { path: '/docs/self-hosting', source: 'site', file: 'self-hosting.md', label: 'Self-hosting' },
] as const

export const MEDIA_TYPES = { html: 'text/html', markdown: 'text/markdown' } as const
const OFFERS = [MEDIA_TYPES.html, MEDIA_TYPES.markdown]
const VARY = 'Accept, Accept-Encoding'
// Five minutes: pages change with a deploy, and a visitor should see it soon after.
const CACHE_CONTROL = 'public, max-age=300'

type Encoded = Record<Coding, Buffer>

interface Built {
  title: string
  markdown: string
  variants: Record<(typeof OFFERS)[number], { contentType: string; bodies: Encoded; headers: Record<string, string> }>
}

export interface SiteOptions extends DocumentOptions {
  /** dist/site/: the Markdown sources of src/site/pages. */
  pagesDir: URL
  /** dist/public/: install.md, the install page's source (also served as /install.md). */
  publicDir: URL
  /** The control worker's operations, for the API page's table. */
  operations: Operation<any>[]
  /** dist/docs/: the repository's docs/, served under /docs (docs-tree.ts). */
  docsDir?: URL
}

export type SiteHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean

/**
 * A page's bytes, made when first asked for and kept, and its gzip and br
 * twins likewise: rendered and compressed for every page at start-up they took
 * a quarter of each control worker's start-up CPU, for pages most starts never serve.
 */
function encode(text: () => string): Encoded {
  let identity: Buffer | undefined
  let gzip: Buffer | undefined
  let br: Buffer | undefined
  return {
    get identity() {
      return (identity ??= Buffer.from(text(), 'utf8'))
    },
    get gzip() {
      return (gzip ??= gzipSync(this.identity, { level: 9 }))
    },
    get br() {
      const bytes = this.identity
      return (br ??= brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }))
    },
  }
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')

/** The API page's operation table, from the same tables the router and the OpenAPI document use. */
export function operationsMarkdown(operations: Operation<any>[]): string {
  const credential = { none: 'none', publicKey: 'public key (`?pk=`)', apiKey: 'API key', setupToken: 'setup token' } as Record<string, string>
  const rows = [
    ...PUBLIC_ARTIFACTS.map((op) => ({ ...op, root: true })),
    ...INGEST_OPERATIONS.map((op) => ({ ...op, root: false })),
    ...operations.map((op) => ({ ...op, root: Boolean(op.atRoot) })),
  ]
  // Who may call it (docs/security.md, roles); the operation's minRole, checked by the router.
  const roles = { viewer: 'any role', admin: 'admin or owner', owner: 'owner only' } as Record<string, string>
  const who = (op: object) => ('minRole' in op && typeof op.minRole === 'string' ? `, ${roles[op.minRole]}` : '')
  const lines = ['| Operation | Method and path | Credential | What it does |', '| --- | --- | --- | --- |']
  for (const op of rows) lines.push(`| \`${op.operationId}\` | ${op.method} \`${op.route}\` | ${credential[op.credential] ?? op.credential}${who(op)} | ${cell(op.summary)} |`)
  return lines.join('\n')
}

export function errorsMarkdown(): string {
  const lines = ['| Status | Code | Meaning | Hint |', '| --- | --- | --- | --- |']
  for (const [code, entry] of Object.entries(ERRORS)) lines.push(`| ${entry.status} | \`${code}\` | ${cell(entry.message)} | ${cell(entry.hint)} |`)
  return lines.join('\n')
}

/** Reads and fills every page (throwing at start-up if a source or a placeholder is missing); each is rendered when first asked for. */
export function buildPages(options: SiteOptions): Map<string, Built> {
  const placeholders = {
    ...documentPlaceholders(options),
    API_OPERATIONS: operationsMarkdown(options.operations),
    API_ERRORS: errorsMarkdown(),
    CLI_COMMANDS: commandsMarkdown(),
  }
  const nav: NavLink[] = [...PAGES.map((p) => ({ path: p.path, label: p.label })), ...(options.docsDir ? [{ path: '/docs', label: 'All docs' }] : [])]
  const sources: { path: string; markdown: string }[] = PAGES.map((page) => {
    const dir = page.source === 'site' ? options.pagesDir : options.publicDir
    return { path: page.path, markdown: fillPlaceholders(readFileSync(new URL(page.file, dir), 'utf8'), placeholders, page.file) }
  })
  if (options.docsDir) sources.push(...docsPages(options.docsDir, new Set(sources.map((page) => page.path))))
  const pages = new Map<string, Built>()
  for (const { path, markdown } of sources) {
    const common = { 'Cache-Control': CACHE_CONTROL, Vary: VARY, 'X-Content-Type-Options': 'nosniff' }
    pages.set(path, {
      title: titleOf(markdown),
      markdown,
      variants: {
        'text/html': {
          contentType: 'text/html; charset=utf-8',
          bodies: encode(() => renderHtml(markdown, { path, nav, siteName: SITE_NAME })),
          // The pages are static: no script runs, nothing is framed, only the inline style applies.
          headers: { ...common, 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'" },
        },
        'text/markdown': { contentType: 'text/markdown; charset=utf-8', bodies: encode(() => markdown), headers: common },
      },
    })
  }
  return pages
}

/**
 * `/docs/cli/` is `/docs/cli`. A loop from the end, not `replace(/\/+$/)`:
 * V8 tries that pattern at every slash of a path, so a path of n slashes
 * cost n² steps (15,000 took 0.26 s of the control worker).
 */
export function withoutTrailingSlashes(path: string): string {
  let end = path.length
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end--
  return end === path.length ? path : path.slice(0, end)
}

export function createSite(options: SiteOptions): SiteHandler {
  const pages = buildPages(options)
  const images = options.docsDir ? docsImages(options.docsDir) : new Map<string, DocsImage>()
  return (req, res, url) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false
    const path = withoutTrailingSlashes(url.pathname)
    const image = images.get(path)
    if (image) {
      req.resume()
      res.writeHead(200, { 'Content-Type': image.contentType, 'Content-Length': image.body.length, 'Cache-Control': CACHE_CONTROL, 'X-Content-Type-Options': 'nosniff' })
      res.end(req.method === 'HEAD' ? undefined : image.body)
      return true
    }
    const page = pages.get(path)
    if (!page) return false
    req.resume() // a GET carries no body worth reading
    const type = negotiateType(req.headers.accept, OFFERS) as (typeof OFFERS)[number] | undefined
    if (!type) {
      res.setHeader('Vary', VARY)
      writeError(res, 'not_acceptable', { hint: 'This page is served as text/html or text/markdown.' })
      return true
    }
    const variant = page.variants[type]
    const coding = negotiateEncoding(req.headers['accept-encoding'] as string | undefined)
    const body = variant.bodies[coding]
    res.writeHead(200, {
      'Content-Type': variant.contentType,
      'Content-Length': body.length,
      ...(coding === 'identity' ? {} : { 'Content-Encoding': coding }),
      ...variant.headers,
    })
    res.end(req.method === 'HEAD' ? undefined : body)
    return true
  }
}
