/**
 * The prompt an install agent is given: where the install skill is, the
 * project's public key, the server's direct URL, the loader snippet, and the
 * fresh setup token to export in the agent's shell. One text for the CLI's
 * `svc setup-token` and the dashboard's "Copy install prompt", so an agent
 * gets the same prompt whichever way it was made. Pure: both bundle it.
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
