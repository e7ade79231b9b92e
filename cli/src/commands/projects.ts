/** projects list, projects create, snippet, setup-token. */
import { installPrompt } from '../../../src/install/prompt.js'
import type { ProjectAnswer, ProjectListAnswer, SetupTokenAnswer, SnippetAnswer } from '../../../src/schemas/types.js'
import { findProject } from '../api.js'
import type { Context } from '../context.js'
import { checkRules } from './rules.js'

export async function list(ctx: Context): Promise<void> {
  const { projects } = await ctx.api().call<ProjectListAnswer>('/cli/projects.list')
  if (ctx.out.json) return ctx.out.data({ projects })
  if (projects.length === 0) {
    ctx.out.line('No projects yet. Create one with `svc projects create <name>`.')
    return
  }
  ctx.out.table(
    ['ID', 'NAME', 'DOMAIN', 'SESSIONS', 'PUBLIC KEY', 'RULES'],
    projects.map((p) => [p.id, p.name, p.domain ?? ctx.out.dim('-'), String(p.sessionCount), p.publicKey, String(p.pathRules?.length ?? 0)]),
  )
}

export async function create(ctx: Context): Promise<void> {
  const rules = (ctx.flags.rule as string[] | undefined) ?? []
  checkRules(rules)
  const body: Record<string, unknown> = { name: ctx.args[0] }
  if (typeof ctx.flags.domain === 'string') body.domain = ctx.flags.domain
  if (rules.length > 0) body.pathRules = rules
  const { project } = await ctx.api().call<ProjectAnswer>('/cli/projects.create', body)
  if (ctx.out.json) return ctx.out.data({ project })
  ctx.out.line(`${ctx.out.green('Created')} project ${ctx.out.bold(project.name)}.`)
  ctx.out.pairs([
    ['ID', project.id],
    ['Public key', project.publicKey],
    ['Domain', project.domain ?? '-'],
    ['Path rules', project.pathRules?.length ? project.pathRules.join('  ') : 'none (set them before real traffic: svc rules set)'],
  ])
  ctx.out.line()
  ctx.out.line(`Next: ${ctx.out.bold(`svc snippet ${project.id}`)} prints the snippet for the site's <head>,`)
  ctx.out.line(`or ${ctx.out.bold(`svc setup-token ${project.id}`)} prints a prompt for an install agent.`)
}

export async function snippet(ctx: Context): Promise<void> {
  const answer = await ctx.api().call<SnippetAnswer>('/cli/projects.snippet', { projectId: ctx.args[0] })
  if (ctx.out.json) return ctx.out.data(answer)
  // The snippet alone on stdout, so `svc snippet prj_… > snippet.html` captures exactly it.
  ctx.out.line(answer.snippet.trimEnd())
  ctx.out.note(`Paste it into the <head> of every page (public key ${answer.publicKey}; it is not a secret).`)
}

export async function setupToken(ctx: Context): Promise<void> {
  const projectId = ctx.args[0]
  const api = ctx.api()
  const project = await findProject(api, projectId)
  const { token, expiresAt } = await api.call<SetupTokenAnswer>('/cli/projects.setup-token', { projectId })
  const { snippet: loader } = await api.call<SnippetAnswer>('/cli/projects.snippet', { projectId })
  const prompt = installPrompt({ projectName: project.name, publicKey: project.publicKey, directUrl: ctx.url, snippet: loader, token })
  if (ctx.out.json) return ctx.out.data({ token, expiresAt, projectId, publicKey: project.publicKey, prompt })
  ctx.out.note(`Setup token for ${project.name} minted; it expires ${new Date(expiresAt).toISOString().slice(0, 10)} and reaches this project's path rules and install status only.`)
  ctx.out.note('Give your install agent the prompt below, in the codebase to instrument:')
  ctx.out.note('')
  ctx.out.line(prompt)
}

