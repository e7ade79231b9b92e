/**
 * Chooses the uWebSockets.js build the front serves with, and says which.
 *
 * Two builds are installed because no single one loads everywhere:
 * `@btc-vision/uwebsockets.js` 20.57 has binaries for Node 20, 22, 24 and 25
 * but needs glibc 2.38; `@trufflesuite/uws-js-unofficial` 20.30 (installed as
 * `uWebSockets.js`) loads on older glibc but only on Node 16, 18 and 20. The
 * first whose native binary loads wins. Where none does, the front serves on
 * node:http through ./fallback.ts (the 20.30 package's own silent fallback
 * lacks parts of the API the front uses), announced loudly and named in /health.
 */
import { createRequire } from 'node:module'
import type * as Uws from 'uWebSockets.js'
import { fallbackUws, type FallbackOptions } from './fallback.js'

const require = createRequire(import.meta.url)

export type UwsModule = typeof Uws
export type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js'

export interface HttpEngine {
  uws: UwsModule
  /** What serves, for the start-up log and /health: `uws-native 20.57`, `uws-native 20.30` or `fallback`. */
  name: string
  native: boolean
  /** Why each build that did not load was passed over. */
  skipped: string[]
}

/** Said when a front runs on the fallback, so an operator knows what would give the native one. */
export const NATIVE_PLATFORMS =
  'the native front runs on Linux x64/arm64 and macOS with Node 20, 22, 24 or 25 and glibc >= 2.38 (uWebSockets.js 20.57), ' +
  'or Node 16, 18 or 20 with older glibc (20.30)'

/**
 * Loads the first build whose native binary loads. `forceFallback` (UWS_USE_FALLBACK=1)
 * exists to measure the fallback.
 */
export function loadHttpEngine(forceFallback: boolean, fallbackOptions: FallbackOptions): HttpEngine {
  const skipped: string[] = []
  if (forceFallback) skipped.push('UWS_USE_FALLBACK=1')
  else {
    try {
      return { uws: require('@btc-vision/uwebsockets.js') as UwsModule, name: 'uws-native 20.57', native: true, skipped }
    } catch (error) {
      skipped.push(`20.57: ${lastLine(error)}`)
    }
    const uws = require('uWebSockets.js') as UwsModule
    if (nativeBinaryLoaded()) return { uws, name: 'uws-native 20.30', native: true, skipped }
    skipped.push(`20.30: no binary for Node ABI ${process.versions.modules} on ${process.platform}-${process.arch}`)
  }
  return { uws: fallbackUws(fallbackOptions), name: 'fallback', native: false, skipped }
}

/** True when a uws_*.node binary is among the loaded modules (the fallback loads none). */
function nativeBinaryLoaded(): boolean {
  return Object.keys(require.cache).some((path) => /uws_[a-z0-9_]+\.node$/.test(path))
}

function lastLine(error: unknown): string {
  // The package's message puts the loader's own error (missing glibc symbol, missing file) last.
  const lines = String(error).split('\n').filter((line) => line.trim() !== '')
  return lines[lines.length - 1] ?? 'did not load'
}
