/**
 * rules set, rules test. Both use the server's own rule compiler and URL
 * grouping (src/grouping/, bundled into this file), so a pattern refused here is
 * one the server would drop, and a page shown here is the page it records.
 */
import { groupUrl } from '../../../src/grouping/group.js'
import { compileRule, compileRules } from '../../../src/grouping/rules.js'
import type { ProjectAnswer } from '../../../src/schemas/types.js'
import { findProject } from '../api.js'
import type { Context } from '../context.js'
import { CliError } from '../errors.js'

/** Refuses (usage, exit 2) any pattern that does not compile, naming each and why. */
export function checkRules(patterns: readonly string[]): void {
  const invalid: string[] = []
  for (const pattern of patterns) {
    const result = compileRule(pattern)
    if (!result.ok) invalid.push(`${pattern}: ${result.reason}`)
  }
  if (invalid.length > 0) {
    throw new CliError('invalid_rule', `${invalid.length === 1 ? 'A pattern does' : `${invalid.length} patterns do`} not compile: ${invalid.join('; ')}.`, {
      hint: 'Patterns are paths of literal segments and {name} placeholders, optionally ending in /*. Nothing was sent.',
      exit: 2,
    })
  }
}

export async function set(ctx: Context): Promise<void> {
  const [projectId, ...patterns] = ctx.args
  checkRules(patterns)
  const { project } = await ctx.api().call<ProjectAnswer>('/cli/projects.path-rules', { projectId, rules: patterns })
  if (ctx.out.json) return ctx.out.data({ project })
  ctx.out.line(`${ctx.out.green('Saved')} ${patterns.length} path rule${patterns.length === 1 ? '' : 's'} for ${project.name}, first match wins:`)
  for (const [i, rule] of (project.pathRules ?? patterns).entries()) ctx.out.line(`  ${i + 1}. ${rule}`)
  if (project.sessionCount > 0) {
    ctx.out.note('The project already has sessions: their pages keep the old grouping until a backfill re-keys them (POST /cli/projects.backfill).')
  }
}

export async function test(ctx: Context): Promise<void> {
  const [projectId, ...urls] = ctx.args
  const given = ctx.flags.rule as string[] | undefined
  let patterns: string[]
  if (given) {
    checkRules(given)
    patterns = given
  } else {
    patterns = (await findProject(ctx.api(), projectId)).pathRules ?? []
  }
  const rules = compileRules(patterns).rules // the server drops patterns that do not compile when it reads them
  const results = urls.map((url) => ({ url, page: groupUrl(url, rules).path, key: groupUrl(url, rules).key }))
  if (ctx.out.json) return ctx.out.data({ rules: patterns, results })
  ctx.out.table(['URL', 'PAGE'], results.map((r) => [r.url, r.page]))
  if (patterns.length === 0) ctx.out.note('No path rules: every URL above was grouped by the automatic rules alone.')
}
