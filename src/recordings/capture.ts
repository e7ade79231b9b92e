/**
 * A project's capture settings: what the tracker records beyond the DOM
 * (console, network, canvas) and which sessions it records at all (sampling,
 * minimum duration, URL triggers and exclusions). Console, network and canvas
 * capture are off until a project turns them on: they may carry what a site
 * never meant to share, and canvas frames cost far more bytes than the DOM.
 */
import { compileRules } from '../grouping/rules.js'
import type { CaptureSettings, ProjectRecord } from '../store/store.js'

export const DEFAULT_CAPTURE: CaptureSettings = {
  sampleRate: 1,
  minDurationMs: 0,
  triggerUrls: [],
  excludeUrls: [],
  console: false,
  network: false,
  networkQuery: false,
  canvas: false,
  // A change shows within half a second; unchanged samples send nothing, so the bytes follow the canvas's changes (bench/RESULTS.md, "Canvas capture").
  canvasFps: 2,
  canvasQuality: 0.6,
  // A frame's recording goes to no other origin's page until the project names it.
  frameParents: [],
}

export function captureOf(project: ProjectRecord): CaptureSettings {
  return { ...DEFAULT_CAPTURE, ...project.capture }
}

/** The patterns among `patch`'s triggers and exclusions that do not compile (the path-rule syntax), with why. */
export function invalidCapturePatterns(patch: Partial<CaptureSettings>): { pattern: string; reason: string }[] {
  return compileRules([...(patch.triggerUrls ?? []), ...(patch.excludeUrls ?? [])]).invalid
}
