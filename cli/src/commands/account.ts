/** login, logout, whoami: the API key and where it is kept. */
import { createApi } from '../api.js'
import { configPath, removeConfig, resolveUrl, writeConfig } from '../config.js'
import type { Context } from '../context.js'
import { CliError } from '../errors.js'
import { readSecret } from '../prompt.js'
import type { ApiKeyIdentity } from '../../../src/schemas/types.js'

export async function login(ctx: Context): Promise<void> {
  const given = typeof ctx.flags.key === 'string' ? ctx.flags.key : await readSecret(ctx.stdin, ctx.out, 'API key (svc_sk_…): ')
  const apiKey = given.trim()
  if (!apiKey) throw new CliError('usage', 'No API key given.', { hint: 'Type or pipe the key (svc_sk_…), or pass --key.', exit: 2 })
  if (apiKey.startsWith('svc_st_')) throw new CliError('usage', 'That is a setup token, not an API key.', { hint: 'Setup tokens are for install agents; log in with an API key (svc_sk_…).', exit: 2 })
  if (!apiKey.startsWith('svc_sk_')) throw new CliError('usage', 'That does not look like an API key (svc_sk_…).', { hint: 'Issue one in the dashboard, or ask the operator.', exit: 2 })
  // A key is stored beside the server it was checked with, not the one SVC_URL may name later.
  const url = resolveUrl(ctx.flags.url as string | undefined, ctx.env, ctx.stored)
  const identity = await createApi(url, apiKey).call<ApiKeyIdentity>('/cli/whoami')
  const path = writeConfig(ctx.env, { url, apiKey })
  if (ctx.out.json) return ctx.out.data({ ...identity, url, configPath: path })
  ctx.out.line(`${ctx.out.green('Logged in')} to ${url} as user ${identity.userId} of organisation ${identity.orgId}.`)
  ctx.out.line(`Key stored in ${path} (readable by you only).`)
  if (ctx.env.SVC_API_KEY) ctx.out.note('Note: SVC_API_KEY is set and overrides the stored key.')
}

export async function logout(ctx: Context): Promise<void> {
  const path = configPath(ctx.env)
  const removed = removeConfig(ctx.env)
  if (ctx.out.json) return ctx.out.data({ removed, configPath: path })
  ctx.out.line(removed ? `Logged out: removed ${path}.` : `Not logged in: ${path} does not exist.`)
  if (ctx.env.SVC_API_KEY) ctx.out.note('Note: SVC_API_KEY is still set and still applies.')
}

export async function whoami(ctx: Context): Promise<void> {
  const identity = await ctx.api().call<ApiKeyIdentity>('/cli/whoami')
  const source = ctx.key!.source === 'SVC_API_KEY' ? 'SVC_API_KEY' : configPath(ctx.env)
  if (ctx.out.json) return ctx.out.data({ ...identity, url: ctx.url, keySource: ctx.key!.source })
  ctx.out.pairs([
    ['Server', ctx.url],
    ['Organisation', identity.orgId],
    ['User', identity.userId],
    ...(identity.label ? ([['Key label', identity.label]] as [string, string][]) : []),
    ['Key from', source],
  ])
}
