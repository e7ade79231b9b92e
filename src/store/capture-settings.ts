/** A project's capture settings, stored on its record (types only; defaults and checks in src/recordings/capture.ts). */
export interface CaptureSettings {
  /** Share of sessions recorded, 0–1, drawn once per session. */
  sampleRate: number
  /** Recordings of sessions shorter than this are not sent, ms. */
  minDurationMs: number
  /** Path patterns: when any is set, a session records only from the first page view that matches one. */
  triggerUrls: string[]
  /** Path patterns never recorded. */
  excludeUrls: string[]
  console: boolean
  network: boolean
  /** Network events keep the query string. */
  networkQuery: boolean
}
