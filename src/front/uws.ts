/**
 * Loads uWebSockets.js and refuses to run on its pure-Node fallback: the
 * package silently falls back when its binary fails to load, which would turn
 * the fast path into a slow one without a word. A front that serves always
 * serves with the native binary.
 */
import { createRequire } from 'node:module'
import type * as Uws from 'uWebSockets.js'

const require = createRequire(import.meta.url)

export type UwsModule = typeof Uws
export type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js'

export function loadNativeUws(): UwsModule {
  const uws = require('uWebSockets.js') as UwsModule
  if (!isNativeUws()) {
    throw new Error('uWebSockets.js loaded its pure-Node fallback instead of the native binary; check the Node.js version (20 is supported) and glibc 2.36+')
  }
  return uws
}

/** True when a uws_*.node binary is among the loaded modules. */
export function isNativeUws(): boolean {
  return Object.keys(require.cache).some((path) => /uws_[a-z0-9_]+\.node$/.test(path))
}
