/**
 * A small key-value store over what the page allows. localStorage first: it is
 * shared by every tab of the site, which is what carries a session across tabs.
 * When the page may not use it (storage blocked, sandboxed frame), a
 * first-party cookie does the same job; failing both, memory keeps the ids for
 * this page load only.
 */
export interface KeyValue {
  get(key: string): string | null
  set(key: string, value: string, maxAgeSeconds: number): void
  remove(key: string): void
}

function localArea(): KeyValue | undefined {
  try {
    const area = window.localStorage
    const probe = '__svc_probe'
    area.setItem(probe, '1')
    area.removeItem(probe)
    return {
      get: (key) => area.getItem(key),
      set: (key, value) => area.setItem(key, value),
      remove: (key) => area.removeItem(key),
    }
  } catch {
    return undefined // storage is blocked here; the next area takes over
  }
}

function cookieArea(): KeyValue | undefined {
  try {
    if (!navigator.cookieEnabled) return undefined
    const secure = location.protocol === 'https:' ? ';Secure' : ''
    return {
      get(key) {
        const match = document.cookie.match(new RegExp('(?:^|; )' + key + '=([^;]*)'))
        return match ? decodeURIComponent(match[1]) : null
      },
      set: (key, value, maxAge) => {
        document.cookie = `${key}=${encodeURIComponent(value)};path=/;max-age=${maxAge};SameSite=Lax${secure}`
      },
      remove: (key) => {
        document.cookie = `${key}=;path=/;max-age=0`
      },
    }
  } catch {
    return undefined // cookies are blocked too; memory it is
  }
}

function memoryArea(): KeyValue {
  const map = new Map<string, string>()
  return { get: (key) => map.get(key) ?? null, set: (key, value) => void map.set(key, value), remove: (key) => void map.delete(key) }
}

export function openStorage(): KeyValue {
  const area = localArea() ?? cookieArea() ?? memoryArea()
  const fallback = memoryArea()
  // A write can still fail later (quota full): keep the value in memory then, so the ids stay stable for this page.
  return {
    get(key) {
      try {
        return fallback.get(key) ?? area.get(key)
      } catch {
        return fallback.get(key)
      }
    },
    set(key, value, maxAge) {
      try {
        area.set(key, value, maxAge)
        fallback.remove(key)
      } catch {
        fallback.set(key, value, maxAge)
      }
    },
    remove(key) {
      try {
        area.remove(key)
      } catch {
        // nothing stored there to remove
      }
      fallback.remove(key)
    },
  }
}
