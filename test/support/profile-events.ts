/**
 * What the expensive parts of a test cost, for `npm run test:profile`: each
 * start of a service, a NATS cluster or a browser, timed and counted per test
 * file. Nothing is written unless SVC_TEST_PROFILE names a directory.
 */
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

export type Expense = 'service' | 'nats' | 'browser'

export async function profiled<T>(kind: Expense, start: () => Promise<T>): Promise<T> {
  const dir = process.env.SVC_TEST_PROFILE
  if (!dir) return start()
  const began = performance.now()
  try {
    return await start()
  } finally {
    const line = { kind, file: process.argv[1], ms: Math.round(performance.now() - began) }
    appendFileSync(join(dir, `${process.pid}.jsonl`), JSON.stringify(line) + '\n')
  }
}
