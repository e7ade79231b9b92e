/**
 * The prompt "Copy install prompt" puts on the clipboard: where the install
 * skill is, the project's public key, the server's direct URL, the snippet,
 * and the fresh setup token to export in the agent's shell. Same words as the
 * CLI's `svc setup-token` (cli/src/commands/projects.ts), so an agent gets one
 * prompt whichever way it was made.
 */
export interface PromptInput {
  projectName: string
  publicKey: string
  directUrl: string
  snippet?: string
  token: string
}

export function installPrompt({ projectName, publicKey, directUrl, snippet, token }: PromptInput): string {
  return [
    `Install session recording for "${projectName}" in this codebase.`,
    `Follow the install skill at ${directUrl}/skill.md step by step (fetch it first).`,
    '',
    `Project public key: ${publicKey}`,
    `Server: ${directUrl}`,
    ...(snippet ? ['', 'The loader snippet to add to the <head> of every page:', '', '```html', snippet.trimEnd(), '```'] : []),
    '',
    'Before you start, run this in your shell. The setup token is a secret: keep it in the',
    'environment and never write it to a file that is committed.',
    '',
    '```sh',
    `export SVC_SETUP_TOKEN=${token}`,
    '```',
  ].join('\n')
}

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
