import { readFileSync } from 'node:fs'
import t from 'tap'
import { ERRORS, errorBody } from '../src/errors.js'
import { errorBodySchema } from '../src/schemas/common.js'

const spec = readFileSync(new URL('../../shared/spec/session-recording-api.md', import.meta.url).href.replace('file://', ''), 'utf8')
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

t.test('the code table, the OpenAPI error schema, the contract and the README agree', async (t) => {
  const codes = Object.keys(ERRORS).sort()
  t.same([...errorBodySchema.properties.code.enum].sort(), codes, 'ErrorBody.code lists exactly the table\'s codes')
  for (const code of codes) {
    const status = ERRORS[code as keyof typeof ERRORS].status
    // Codes the service adds beyond the contract's table: internal_error, overloaded (a payload it wants but cannot store now), quota_exceeded and forbidden (roles).
    if (!['internal_error', 'overloaded', 'quota_exceeded', 'forbidden'].includes(code)) t.match(spec, new RegExp(`\\| ${status} \\| ${code} \\|`), `the contract gives ${code} status ${status}`)
    t.match(readme, new RegExp(`\\| ${status} \\| \`${code}\` \\|`), `the README lists ${code} with ${status}`)
  }
})

t.test('errorBody builds the contract\'s error shape', async (t) => {
  t.same(errorBody('not_found', { ingest: true, hint: 'h' }), { error: ERRORS.not_found.message, code: 'not_found', hint: 'h', ok: false })
  t.same(errorBody('invalid_request', { invalid: ['x'] }).invalid, ['x'])
  t.notOk('ok' in errorBody('unauthorized'), 'ok only on ingest')
})
