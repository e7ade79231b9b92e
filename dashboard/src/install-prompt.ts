/** The dashboard's side of the install prompt (the text itself is src/install/prompt.ts, shared with the CLI). */
export { installPrompt, type PromptInput } from '../../src/install/prompt.js'

/** The direct URL is where the tracker is served from (contract, section 1: `{direct_url}/tracker.js`). */
export function directUrlOf(trackerUrl: string | undefined): string {
  if (trackerUrl) {
    try {
      const url = new URL(trackerUrl, location.href)
      return `${url.origin}${url.pathname.replace(/\/tracker\.js$/, '')}`.replace(/\/$/, '')
    } catch {
      // not a URL: fall back to this page's origin
    }
  }
  return location.origin
}
