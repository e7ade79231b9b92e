/**
 * Hash routes (`#/p/prj_1/sessions?page=/pricing`): the server serves one
 * shell at /app/ and never sees the route, and invite links minted by the
 * server already take this form (`/app/#/invite/<token>`).
 */
import { useEffect, useState } from 'preact/hooks'

export interface Route {
  /** Path segments: `#/p/prj_1/sessions` → ['p', 'prj_1', 'sessions']. */
  parts: string[]
  query: URLSearchParams
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '')
  const cut = raw.indexOf('?')
  const path = cut === -1 ? raw : raw.slice(0, cut)
  return {
    parts: path.split('/').filter(Boolean).map(decodeURIComponent),
    query: new URLSearchParams(cut === -1 ? '' : raw.slice(cut + 1)),
  }
}

/** `href('p', id, 'sessions', {page})` → `#/p/<id>/sessions?page=…` (empty values left out). */
export function href(...args: (string | Record<string, string | number | boolean | undefined | null>)[]): string {
  const parts: string[] = []
  let query = ''
  for (const arg of args) {
    if (typeof arg === 'string') parts.push(encodeURIComponent(arg))
    else {
      const params = new URLSearchParams()
      for (const [key, value] of Object.entries(arg)) if (value !== undefined && value !== null && value !== '' && value !== false) params.set(key, String(value))
      const text = params.toString()
      if (text) query = `?${text}`
    }
  }
  return `#/${parts.join('/')}${query}`
}

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to)
  else location.hash = to.slice(1)
  if (replace) window.dispatchEvent(new HashChangeEvent('hashchange'))
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash))
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash))
    window.addEventListener('hashchange', update)
    // The hash may have changed between the first render and this listener.
    update()
    return () => window.removeEventListener('hashchange', update)
  }, [])
  return route
}
