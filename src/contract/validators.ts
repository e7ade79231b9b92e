/**
 * AJV validators, compiled once when this module loads (never inside a
 * handler), from the schemas in src/schemas/.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { chunkMetaSchema, clickSchema, consoleEntrySchema, errorEntrySchema, recordingLossSchema, requestEntrySchema, signalsEnvelopeSchema, viewSchema } from '../schemas/tracker-payloads.js'

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv

export function createAjv(): Ajv {
  // strict: schemas carry OpenAPI keywords (description, format int64) that AJV knows through ajv-formats.
  const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true })
  addFormats(ajv)
  return ajv
}

export const ajv = createAjv()

/**
 * The same checks with string lengths counted in UTF-16 units (`.length`)
 * rather than code points, which AJV counts by walking every string: a third
 * of a signals batch's validation. Deprecated in AJV, hence no logger.
 */
const unitsAjv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true, unicode: false, logger: false })
addFormats(unitsAjv)

/**
 * Checks an entry in UTF-16 units first and, only when that fails, in code
 * points as the contract counts. Sound because a string is never longer in
 * code points than in units, so within every maxLength in units means within
 * it in code points; and a minLength of at most 1 means "not empty" in either
 * count (test/contract/signals-checks.test.ts holds the schemas to that).
 */
function unitsFirst(schema: object): ValidateFunction {
  const exact = ajv.compile(schema)
  const units = unitsAjv.compile(schema)
  const validate = ((data: unknown) => units(data) || exact(data)) as ValidateFunction
  Object.defineProperty(validate, 'errors', { get: () => exact.errors })
  return validate
}

export const validators = {
  chunkMeta: ajv.compile(chunkMetaSchema),
  signalsEnvelope: ajv.compile(signalsEnvelopeSchema),
  view: unitsFirst(viewSchema),
  click: unitsFirst(clickSchema),
  errorEntry: unitsFirst(errorEntrySchema),
  consoleEntry: unitsFirst(consoleEntrySchema),
  requestEntry: unitsFirst(requestEntrySchema),
  recordingLoss: ajv.compile(recordingLossSchema),
} satisfies Record<string, ValidateFunction>

/** "rules: must NOT have fewer than 1 items" — what failed, for the error body; never echoes values. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'invalid'
  return errors
    .slice(0, 5)
    .map((e) => `${e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'body'}: ${e.message ?? 'is invalid'}`)
    .join('; ')
}
