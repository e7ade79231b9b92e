/** projects capture: show or change a project's capture settings (sampling, minimum duration, URL triggers and exclusions, console, network, canvas). */
import type { Context } from '../context.js'
import { CliError } from '../errors.js'
import { findProject } from '../api.js'
import type { Project, ProjectAnswer } from '../../../src/schemas/types.js'
import { checkRules } from './rules.js'

type CaptureSettings = NonNullable<Project['capture']>

const usage = (message: string) => new CliError('usage', message, { hint: 'Run `svc help projects capture`.', exit: 2 })

function onOff(flag: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined
  if (value === 'on') return true
  if (value === 'off') return false
  throw usage(`--${flag} takes on or off.`)
}

function number(flag: string, value: unknown, max: number, min = 0): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (typeof value !== 'string' || value.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw usage(`--${flag} takes a number from ${min} to ${max}.`)
  return n
}

/** The changes the flags ask for; empty when there are none. */
export function capturePatch(flags: Context['flags'], current: CaptureSettings | undefined): Partial<CaptureSettings> {
  const patch: Partial<CaptureSettings> = {}
  const sample = number('sample', flags.sample, 1)
  if (sample !== undefined) patch.sampleRate = sample
  const seconds = number('min-duration', flags['min-duration'], 3600)
  if (seconds !== undefined) patch.minDurationMs = Math.round(seconds * 1000)
  const triggers = (flags.trigger as string[] | undefined) ?? []
  const excludes = (flags.exclude as string[] | undefined) ?? []
  checkRules([...triggers, ...excludes])
  const clear = flags['clear-urls'] === true
  if (clear || triggers.length) patch.triggerUrls = [...(clear ? [] : current?.triggerUrls ?? []), ...triggers]
  if (clear || excludes.length) patch.excludeUrls = [...(clear ? [] : current?.excludeUrls ?? []), ...excludes]
  const parents = (flags['frame-parent'] as string[] | undefined) ?? []
  for (const origin of parents) if (!/^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?$/.test(origin)) throw usage(`--frame-parent takes an origin such as https://shop.example (no path), not ${origin}.`)
  const clearParents = flags['clear-frame-parents'] === true
  if (clearParents || parents.length) patch.frameParents = [...new Set([...(clearParents ? [] : current?.frameParents ?? []), ...parents])]
  // The server's bounds (src/schemas/capture.ts), checked here so that a bad value sends nothing.
  const fps = number('canvas-fps', flags['canvas-fps'], 10, 0.1)
  if (fps !== undefined) patch.canvasFps = fps
  const quality = number('canvas-quality', flags['canvas-quality'], 1)
  if (quality !== undefined) patch.canvasQuality = quality
  const toggles = { console: 'console', network: 'network', networkQuery: 'network-query', canvas: 'canvas' } as const
  for (const [field, flag] of Object.entries(toggles) as [keyof typeof toggles, string][]) {
    const value = onOff(flag, flags[flag])
    if (value !== undefined) patch[field] = value
  }
  return patch
}

export async function capture(ctx: Context): Promise<void> {
  const projectId = ctx.args[0]
  let project = await findProject(ctx.api(), projectId)
  const patch = capturePatch(ctx.flags, project.capture)
  if (Object.keys(patch).length > 0) {
    project = (await ctx.api().call<ProjectAnswer>('/cli/projects.capture', { projectId, capture: patch })).project
  }
  const settings = project.capture
  if (ctx.out.json) return ctx.out.data({ projectId, capture: settings })
  if (!settings) throw new CliError('internal_error', 'The server did not answer capture settings.', { hint: 'Update the server to a version with capture settings.' })
  if (Object.keys(patch).length > 0) ctx.out.line(`${ctx.out.green('Saved')} capture settings for ${project.name}; trackers pick them up within 5 minutes.`)
  const list = (patterns: string[]) => (patterns.length ? patterns.join('  ') : ctx.out.dim('none'))
  ctx.out.pairs([
    ['Sampling', `${Math.round(settings.sampleRate * 1000) / 10}% of sessions`],
    ['Minimum duration', `${settings.minDurationMs / 1000} s`],
    ['Record from', settings.triggerUrls.length ? list(settings.triggerUrls) : 'every page'],
    ['Never record', list(settings.excludeUrls)],
    ['Console', settings.console ? 'on' : 'off'],
    ['Network', settings.network ? `on${settings.networkQuery ? ', with query strings' : ''}` : 'off'],
    // Older servers answer no canvas fields: off.
    ['Canvas', settings.canvas ? `on, at most ${settings.canvasFps} fps, quality ${settings.canvasQuality}` : 'off'],
    // Older servers answer no frame parents: none.
    ['Frames shown in', settings.frameParents?.length ? list(settings.frameParents) : ctx.out.dim('no other origin')],
  ])
}
