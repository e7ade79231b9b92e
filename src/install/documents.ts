/**
 * Placeholders in the public documents (install.md, skill.md, the website's
 * pages): `@@SVC_NAME@@`, filled once at start-up with values
 * of this deployment, so every copy served shows this server's address and
 * the snippet the tracker really needs. Double braces would collide with
 * the template languages the install documents show (Django, Vue, Jinja).
 * A placeholder left unfilled is a start-up error, not a page with a hole.
 * The CLI's one placeholder is written by stampCli (cli-release.ts).
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
