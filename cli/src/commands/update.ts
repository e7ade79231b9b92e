/**
 * Self-update (API contract, section 9.3): the download is checked against
 * `cli.sha256` of /release before a byte is written, then written beside this
 * file, synced, and renamed over it. rename(2) replaces the name in one step,
 * so the CLI on disk is the old file or the whole new one, never a mix; a
 * truncated or altered download is refused and leaves the old file untouched.
 */
import { createHash } from 'node:crypto'
import { chmodSync, closeSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { Release } from '../../../src/schemas/types.js'
import type { Context } from '../context.js'
import { CliError } from '../errors.js'
import { readAll } from '../http.js'
import { VERSION } from '../version.js'

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')


export async function update(ctx: Context): Promise<void> {
  const api = ctx.publicApi()
  const target = realpathSync(ctx.selfPath)
  const releaseUrl = api.endpoint('/release')
  let release: Release
  try {
    release = JSON.parse((await readAll(await api.get('/release'), releaseUrl)).toString('utf8'))
  } catch (error) {
    if (error instanceof CliError && error.code !== 'download_incomplete') throw error
    throw new CliError('bad_release', `${releaseUrl} did not answer a release manifest.`, { hint: 'Check --url; nothing was changed.' })
  }
  const expected = release.cli?.sha256
  const version = release.cli?.version ?? 'unknown'
  if (typeof expected !== 'string' || !/^[0-9a-f]{64}$/.test(expected)) {
    throw new CliError('bad_release', `${releaseUrl} has no cli.sha256.`, { hint: 'The server does not offer a verifiable CLI; nothing was changed.' })
  }
  if (sha256(readFileSync(target)) === expected) {
    if (ctx.out.json) return ctx.out.data({ updated: false, version: VERSION, sha256: expected, path: target })
    ctx.out.line(`Already up to date: svc ${VERSION} (${target}).`)
    return
  }

  const cliUrl = api.endpoint('/cli.mjs')
  let bytes: Buffer
  try {
    bytes = await readAll(await api.get('/cli.mjs'), cliUrl)
  } catch (error) {
    if (error instanceof CliError && error.code === 'download_incomplete') {
      throw new CliError('download_incomplete', `The download of ${cliUrl} was cut short; the installed CLI was not changed.`, { hint: 'Run `svc update` again.' })
    }
    throw error
  }
  const got = sha256(bytes)
  if (got !== expected) {
    throw new CliError('checksum_mismatch', `The downloaded CLI does not match /release: its sha256 is ${got}, the manifest says ${expected}. The installed CLI was not changed.`, {
      hint: 'Run `svc update` again (a deploy may have happened between the two requests); if it keeps failing, something between you and the server alters the download: do not use it.',
    })
  }

  replaceFile(target, bytes)
  if (ctx.out.json) return ctx.out.data({ updated: true, from: VERSION, version, sha256: expected, path: target })
  ctx.out.line(`${ctx.out.green('Updated')} ${target}: svc ${VERSION} → ${version} (sha256 ${expected.slice(0, 12)}…, verified).`)
}

/** Write beside, fsync, rename over, fsync the directory: the old file stays whole until the new one is. */
export function replaceFile(target: string, bytes: Buffer): void {
  const dir = dirname(target)
  const temp = join(dir, `.${basename(target)}.${process.pid}.update`)
  const mode = statSync(target).mode & 0o777
  let fd: number | undefined
  try {
    fd = openSync(temp, 'wx', mode)
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset)
    fsyncSync(fd)
    closeSync(fd)
    fd = undefined
    chmodSync(temp, mode)
    renameSync(temp, target)
  } catch (error) {
    if (fd !== undefined) closeSync(fd)
    rmSync(temp, { force: true })
    throw new CliError('update_failed', `Could not replace ${target}: ${(error as Error).message}. It was not changed.`, { hint: 'Check that you may write to its directory.' })
  }
  try {
    // Makes the rename itself durable; some systems (Windows) cannot open a directory, and the rename is done either way.
    const dirFd = openSync(dir, 'r')
    fsyncSync(dirFd)
    closeSync(dirFd)
  } catch {
    // see above: durability of the directory entry is best effort
  }
}
