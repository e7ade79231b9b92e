/**
 * The HTML a site pastes to install the tracker: the minified loader stub
 * (tracker/src/stub.ts, built to dist/public/stub.js) inline in a script tag
 * that carries the project's public key and the tracker's address. The stub is
 * read from the build at run time, so the snippet always matches the tracker
 * this deployment serves.
 */
import { readFileSync } from 'node:fs'

const PUBLIC_KEY = /^svc_pk_[0-9a-f]+$/

/** dist/public/stub.js: beside the bundled server, from the source tree (tests), or from a bundled tool one folder down in dist/. */
const STUB_LOCATIONS = [new URL('./public/stub.js', import.meta.url), new URL('../../dist/public/stub.js', import.meta.url), new URL('../public/stub.js', import.meta.url)]

let stub: string | undefined

export function loaderStub(): string {
  if (stub !== undefined) return stub
  for (const location of STUB_LOCATIONS) {
    try {
      stub = readFileSync(location, 'utf8').trim()
      return stub
    } catch {
      // not at this location; try the next
    }
  }
  throw new Error('dist/public/stub.js is missing: run `npm run build` first')
}

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')

/** Where the tracker is served for a deployment whose direct address is `directUrl`. */
export const trackerUrlFor = (directUrl: string) => `${directUrl.replace(/\/+$/, '')}/tracker.js`

export function snippetFor(publicKey: string, directUrl: string): string {
  if (!PUBLIC_KEY.test(publicKey)) throw new Error(`not a public key: ${JSON.stringify(publicKey)}`)
  const code = loaderStub()
  // The stub is inline: it must not end its own script element.
  if (/<\/script/i.test(code)) throw new Error('the loader stub contains "</script"')
  return (
    `<!-- svc-recorder: records sessions after the visitor's first interaction. Paste before </head>. -->\n` +
    `<script data-svc-key="${attribute(publicKey)}" data-svc-src="${attribute(trackerUrlFor(directUrl))}">${code}</script>`
  )
}
