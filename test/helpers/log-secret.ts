/**
 * The secret the cluster mode's tests seal their logs with (src/journal/seal.ts):
 * one per test process, in a 0600 file, as NATS_LOG_SECRET_FILE names it.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { logSeal, type LogSeal } from '../../src/journal/seal.js'

export const TEST_LOG_SECRET = randomBytes(32).toString('hex')

let file: string | undefined

/** The file that holds TEST_LOG_SECRET, written once per test process. */
export function testLogSecretFile(): string {
  if (!file) {
    file = join(mkdtempSync(join(tmpdir(), 'svc-log-secret-')), 'log-secret')
    writeFileSync(file, TEST_LOG_SECRET, { mode: 0o600 })
  }
  return file
}

export const testLogSeal: LogSeal = logSeal(Buffer.from(TEST_LOG_SECRET))
