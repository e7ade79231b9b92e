/**
 * Self-update (API contract, section 9.3). Trust comes from the release key,
 * not the server (trust.ts): the manifest's signed statement must verify with
 * the key built into this CLI and be no older than this CLI; the download of
 * /release/cli.mjs must have the sha256 it names. Only then is the new CLI
 * stamped with the server this one defaults to (the server's own stamp is
 * outside the signature, so it is not taken), written beside this file,
 * synced, and renamed over it: the CLI on disk is the old file or the whole
 * new one, never a mix, and anything refused leaves the old file untouched.
 */
import { chmodSync, closeSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { compareVersions, sha256Hex as sha256, stampCli } from '../../../src/install/cli-release.js'
import type { Release } from '../../../src/schemas/types.js'
import { servedFrom } from '../config.js'
import type { Context } from '../context.js'
import { CliError } from '../errors.js'
import { readAll } from '../http.js'
import { requireSecureTransport, trustedRelease } from '../trust.js'
import { VERSION } from '../version.js'

export async function update(ctx: Context): Promise<void> {
  const target = realpathSync(ctx.selfPath)
  requireSecureTransport(ctx.url)
  const api = ctx.publicApi()
  const releaseUrl = api.endpoint('/release')
  let release: Release
  try {
    release = JSON.parse((await readAll(await api.get('/release'), releaseUrl)).toString('utf8'))
  } catch (error) {
    if (error instanceof CliError && error.code !== 'download_incomplete') throw error
    throw new CliError('bad_release', `${releaseUrl} did not answer a release manifest.`, { hint: 'Check --url; nothing was changed.' })
  }
  const signed = trustedRelease(release?.cli?.signed, releaseUrl)
  if (compareVersions(signed.version, VERSION) < 0) {
    throw new CliError('downgrade_refused', `The server offers svc ${signed.version}, older than this one (${VERSION}). Nothing was changed.`, {
      hint: 'A signed but older release may have known faults; update from a server that runs the current release.',
    })
  }

  const cliUrl = api.endpoint('/release/cli.mjs')
  let bytes: Buffer
  try {
    bytes = await readAll(await api.get('/release/cli.mjs'), cliUrl)
  } catch (error) {
    if (error instanceof CliError && error.code === 'download_incomplete') {
      throw new CliError('download_incomplete', `The download of ${cliUrl} was cut short; the installed CLI was not changed.`, { hint: 'Run `svc update` again.' })
    }
    throw error
  }
  const got = sha256(bytes)
  if (got !== signed.sha256) {
    throw new CliError('checksum_mismatch', `The downloaded CLI is not the signed release: its sha256 is ${got}, the signature vouches for ${signed.sha256}. The installed CLI was not changed.`, {
      hint: 'Run `svc update` again (a deploy may have happened between the two requests); if it keeps failing, something between you and the server alters the download: do not use it.',
    })
  }

  const next = withServer(bytes)
  if (next.equals(readFileSync(target))) {
    if (ctx.out.json) return ctx.out.data({ updated: false, version: VERSION, sha256: signed.sha256, path: target })
    ctx.out.line(`Already up to date: svc ${VERSION} (${target}).`)
    return
  }
  replaceFile(target, next)
  if (ctx.out.json) return ctx.out.data({ updated: true, from: VERSION, version: signed.version, sha256: signed.sha256, path: target })
  ctx.out.line(`${ctx.out.green('Updated')} ${target}: svc ${VERSION} → ${signed.version} (sha256 ${signed.sha256.slice(0, 12)}…, signed by the release key).`)
}

/** The release with this CLI's default server written in, as the server stamped this one; unstamped if this one is. */
function withServer(release: Buffer): Buffer {
  const server = servedFrom()
  if (server === undefined) return release
  try {
    return stampCli(release, server)
  } catch {
    throw new CliError('bad_release', 'The signed release has no place for its default server. Nothing was changed.', {
      hint: 'The release build is broken; report it, and keep this CLI.',
    })
  }
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
