/**
 * Placeholders in the public documents (install.md, skill.md, the website's
 * pages) and in the CLI: `@@SVC_NAME@@`, filled once at start-up with values
 * of this deployment, so every copy served shows this server's address and
 * the snippet the tracker really needs. Double braces would collide with
 * the template languages the install documents show (Django, Vue, Jinja).
 * A placeholder left unfilled is a start-up error, not a page with a hole.
 */
import { snippetFor } from './snippet.js'

export type Placeholders = Record<string, string>

const PLACEHOLDER = /@@SVC_([A-Z0-9_]+)@@/g

export function fillPlaceholders(text: string, values: Placeholders, source: string): string {
  const missing = new Set<string>()
  const filled = text.replace(PLACEHOLDER, (whole, name: string) => {
    if (Object.hasOwn(values, name)) return values[name]
    missing.add(name)
    return whole
  })
  if (missing.size > 0) throw new Error(`${source}: no value for ${[...missing].map((n) => `@@SVC_${n}@@`).join(', ')}`)
  return filled
}

/**
 * Writes the direct URL into the built CLI, where its source has the string
 * literal `'@@SVC_DIRECT_URL@@'` (cli/src/config.ts), as a JSON string literal.
 * Exactly one such literal must be there: anything else means the build and
 * this code disagree, and the CLI would talk to the wrong server.
 */
export function stampCli(source: Buffer, directUrl: string): Buffer {
  const text = source.toString('utf8')
  const literal = /(["'`])@@SVC_DIRECT_URL@@\1/g
  const found = text.match(literal)?.length ?? 0
  if (found !== 1) throw new Error(`cli.mjs: expected one "@@SVC_DIRECT_URL@@" literal, found ${found}`)
  return Buffer.from(text.replace(literal, () => JSON.stringify(directUrl)), 'utf8')
}

export interface DocumentOptions {
  directUrl: string
  publicUrl: string
}

/** The key the documents' example snippet carries: a valid public key that is obviously nobody's. */
export const EXAMPLE_PUBLIC_KEY = `svc_pk_${'0'.repeat(32)}`

/** The values every public document may use. */
export function documentPlaceholders(options: DocumentOptions): Placeholders {
  return {
    DIRECT_URL: options.directUrl,
    PUBLIC_URL: options.publicUrl,
    EXAMPLE_PUBLIC_KEY,
    // The real snippet (tracker's loader stub and all), so the guide never shows a stale copy.
    SNIPPET: snippetFor(EXAMPLE_PUBLIC_KEY, options.directUrl),
  }
}
