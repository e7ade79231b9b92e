/**
 * Addresses. The API lives under /api/v1 (the branded base) and, for
 * installed trackers and CLIs, under /api (the direct form); public artifacts
 * are also served at the root (/tracker.js). Both processes use this to find
 * the route a path names.
 */

export const API_PREFIXES = ['/api/v1', '/api'] as const

/** `/api/v1/cli/whoami` → `/cli/whoami`; a path outside the API prefixes is returned as it is. */
export function routePath(urlPath: string): string {
  for (const prefix of API_PREFIXES) {
    if (urlPath.startsWith(prefix + '/')) return urlPath.slice(prefix.length)
  }
  return urlPath
}

/** Every address of an API route: `/ingest` → `/api/v1/ingest`, `/api/ingest`. */
export function apiAddresses(route: string): string[] {
  return API_PREFIXES.map((prefix) => prefix + route)
}

/** Every address of a public artifact: the API forms and the root. */
export function artifactAddresses(route: string): string[] {
  return [...apiAddresses(route), route]
}
