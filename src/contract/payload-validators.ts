/**
 * The ingest validators, from the schemas in src/schemas/: each compiled once,
 * when first used (a front's first batch), and kept. Not at start-up: the
 * control worker loads this module for the checks of stored payloads, which
 * most of its starts never make.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import { chunkMetaSchema, clickSchema, consoleEntrySchema, errorEntrySchema, recordingLossSchema, requestEntrySchema, signalsEnvelopeSchema, viewSchema } from '../schemas/tracker-payloads.js'
import { addFormats, ajv, onFirstUse } from './validators.js'

/**
 * The same checks with string lengths counted in UTF-16 units (`.length`)
 * rather than code points, which AJV counts by walking every string: a third
 * of a signals batch's validation. Deprecated in AJV, hence no logger.
 */
let unitsAjv: Ajv | undefined
const unitsAjvOf = () => (unitsAjv ??= addFormats(new Ajv({ allErrors: false, strict: true, allowUnionTypes: true, unicode: false, logger: false })))

/**
 * Checks an entry in UTF-16 units first and, only when that fails, in code
 * points as the contract counts. Sound because a string is never longer in
 * code points than in units, so within every maxLength in units means within
 * it in code points; and a minLength of at most 1 means "not empty" in either
 * count (test/contract/signals-checks.test.ts holds the schemas to that).
 */
function unitsFirst(schema: object): ValidateFunction {
  const exact = ajv.compile(schema)
  const units = unitsAjvOf().compile(schema)
  const validate = ((data: unknown) => units(data) || exact(data)) as ValidateFunction
  Object.defineProperty(validate, 'errors', { get: () => exact.errors })
  return validate
}

/** The validators by name, each compiled when first read. */
function compiledOnFirstUse<T extends Record<string, () => ValidateFunction>>(makers: T): { readonly [K in keyof T]: ValidateFunction } {
  const validators = {} as { [K in keyof T]: ValidateFunction }
  for (const name of Object.keys(makers) as (keyof T)[]) Object.defineProperty(validators, name, { enumerable: true, get: onFirstUse(makers[name]) })
  return validators
}

export const validators = compiledOnFirstUse({
  chunkMeta: () => ajv.compile(chunkMetaSchema),
  signalsEnvelope: () => ajv.compile(signalsEnvelopeSchema),
  view: () => unitsFirst(viewSchema),
  click: () => unitsFirst(clickSchema),
  errorEntry: () => unitsFirst(errorEntrySchema),
  consoleEntry: () => unitsFirst(consoleEntrySchema),
  requestEntry: () => unitsFirst(requestEntrySchema),
  recordingLoss: () => ajv.compile(recordingLossSchema),
})
