/**
 * Markdown → the website's HTML page. Each page is written once, in Markdown
 * (src/site/pages/), and rendered here with marked (GitHub-flavoured: tables,
 * fenced code). Raw HTML in the Markdown is shown as text, not passed through:
 * the guides talk about `<head>` and `<script>` and mean the words.
 */
import { Marked } from 'marked'

export interface NavLink {
  path: string
  label: string
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')

const marked = new Marked({ gfm: true })
marked.use({
  renderer: {
    // Anchors for every heading, so a section can be linked (`/docs/cli#svc-rules-test`).
    heading({ tokens, depth, text }) {
      return `<h${depth} id="${slug(text)}">${this.parser.parseInline(tokens)}</h${depth}>\n`
    },
    html({ text }) {
      return escapeHtml(text)
    },
  },
})

/** The page's title: its first level-1 heading. */
export function titleOf(markdown: string): string {
  return /^# +(.+)$/m.exec(markdown)?.[1].replace(/`/g, '').trim() ?? 'svc-recorder'
}

export function renderHtml(markdown: string, page: { path: string; nav: NavLink[]; siteName: string }): string {
  const body = marked.parse(markdown, { async: false })
  const nav = page.nav
    .map((link) => `<a href="${link.path}"${link.path === page.path ? ' aria-current="page"' : ''}>${escapeHtml(link.label)}</a>`)
    .join('\n      ')
  const title = titleOf(markdown)
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title === page.siteName ? title : `${title} · ${page.siteName}`)}</title>
  <link rel="alternate" type="text/markdown" href="${page.path}">
  <style>${STYLE}</style>
</head>
<body>
  <header>
    <nav>
      ${nav}
    </nav>
  </header>
  <main>
${body}  </main>
  <footer>This page is also served as Markdown: request it with <code>Accept: text/markdown</code>.</footer>
</body>
</html>
`
}

const STYLE = `
  :root { color-scheme: light dark; --fg: #1b1d21; --muted: #5b606a; --bg: #fff; --code: #f3f4f6; --line: #e2e4e8; --accent: #2b59c3; }
  @media (prefers-color-scheme: dark) { :root { --fg: #e6e7ea; --muted: #9aa0aa; --bg: #15171b; --code: #22252b; --line: #30343b; --accent: #8bb0ff; } }
  body { margin: 0; font: 16px/1.6 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
  header { border-bottom: 1px solid var(--line); }
  nav, main, footer { max-width: 52rem; margin: 0 auto; padding: 0.75rem 1.25rem; }
  nav { display: flex; flex-wrap: wrap; gap: 1.25rem; }
  nav a { color: var(--muted); text-decoration: none; }
  nav a[aria-current] { color: var(--fg); font-weight: 600; }
  a { color: var(--accent); }
  code, pre { font: 0.9em/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; background: var(--code); border-radius: 4px; }
  code { padding: 0.1em 0.3em; }
  pre { padding: 0.9rem 1rem; overflow-x: auto; }
  pre code { padding: 0; background: none; }
  table { border-collapse: collapse; display: block; overflow-x: auto; }
  th, td { border: 1px solid var(--line); padding: 0.35rem 0.6rem; text-align: left; vertical-align: top; }
  footer { color: var(--muted); font-size: 0.85em; border-top: 1px solid var(--line); margin-top: 2rem; }
`
