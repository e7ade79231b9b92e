/**
 * The data directory holds recordings, password hashes and session digests:
 * only the service's own user may read it. Directories 0700 (created so, and
 * tightened if they already existed more open), the LMDB files 0600.
 */
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

export function privateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 })
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o700)
}

/** After lmdb-js opened them: it creates data.mdb and lock.mdb under the process umask (0644 usually). */
export function privateFiles(...dirs: string[]): void {
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.mdb')) continue
      const file = join(dir, name)
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
    }
  }
}
