/**
 * A tmpfs of a fixed size for tests of a disk that really fills. Mounting
 * needs root: without it the caller runs its test on the ordinary disk and
 * says so.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A mounted tmpfs of `bytes` in a new directory, or undefined when none can be mounted here. */
export function mountTmpfs(prefix: string, bytes: number): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'ignore' })
    return dir
  } catch {
    rmSync(dir, { recursive: true, force: true })
    return undefined
  }
}
