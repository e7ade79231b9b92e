/**
 * The repository's docs/ directory, served as part of the website: every
 * Markdown file at /docs/<name> (docs/README.md, the table of contents, at
 * /docs) and its screenshots at /docs/images/<name>. The files are written
 * for a forge, so their links are rewritten for the server: a link to
 * another page of docs/, or to the source of a page the site serves,
 * becomes its served path; a link to any other file outside docs/ names the
 * file in the repository (the server does not serve it).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'

export interface DocsPage {
  path: string
  file: string
  markdown: string
}

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', svg: 'image/svg+xml', jpg: 'image/jpeg' }

/** A docs/ page's served path: docs/README.md is the contents at /docs. */
export const docsPath = (file: string) => (file === 'README.md' ? '/docs' : `/docs/${file.replace(/\.md$/, '')}`)

/** Rewrites a page's links for the server, leaving fenced code as written. */
export function servedMarkdown(markdown: string): string {
  return markdown
    .split(/(^```[\s\S]*?^```)/m)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/\]\(images\/([\w.-]+)\)/g, '](/docs/images/$1)')
            // The site's own pages, linked by their sources so that the link also works on a forge.
            .replace(/\]\(\.\.\/src\/site\/pages\/([\w-]+)\.md(#[\w-]*)?\)/g, (_, name: string, anchor = '') => `](${name === 'home' ? '/' : `/docs/${name}`}${anchor})`)
            .replace(/\]\(\.\.\/src\/public\/install\.md(#[\w-]*)?\)/g, (_, anchor = '') => `](/docs/install${anchor})`)
            .replace(/\]\(([\w-]+)\.md(#[\w-]*)?\)/g, (_, name: string, anchor = '') => `](${docsPath(`${name}.md`)}${anchor})`)
            .replace(/\[([^\]]+)\]\(\.\.\/([^)#\s]+)(#[\w-]*)?\)/g, (_, text: string, path: string) => (text === path || text === `\`${path}\`` ? `\`${path}\`` : `${text} (\`${path}\` in the repository)`)),
    )
    .join('')
}

/** Every Markdown page of `dir`, in the order of their served paths; a path a page of the site already has is refused. */
export function docsPages(dir: URL, taken: ReadonlySet<string>): DocsPage[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => {
      const path = docsPath(file)
      if (taken.has(path)) throw new Error(`docs/${file} would be served at ${path}, which the site already serves`)
      return { path, file, markdown: servedMarkdown(readFileSync(new URL(file, dir), 'utf8')) }
    })
}

export interface DocsImage {
  contentType: string
  body: Buffer
}

/** docs/images/, read once: served at /docs/images/<name>. */
export function docsImages(dir: URL): Map<string, DocsImage> {
  const images = new Map<string, DocsImage>()
  const imagesDir = new URL('images/', dir)
  if (!existsSync(imagesDir)) return images
  for (const name of readdirSync(imagesDir)) {
    const type = IMAGE_TYPES[name.split('.').pop() ?? '']
    if (type) images.set(`/docs/images/${name}`, { contentType: type, body: readFileSync(new URL(name, imagesDir)) })
  }
  return images
}
