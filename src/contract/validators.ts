/**
 * The service's AJV, strict and with formats, and how a validator's errors
 * are told to a client. The ingest validators are in payload-validators.ts.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
export const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv

export function createAjv(): Ajv {
  // strict: schemas carry OpenAPI keywords (description, format int64) that AJV knows through ajv-formats.
  const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true })
  addFormats(ajv)
  return ajv
}

export const ajv = createAjv()

/**
 * A validator compiled when first asked for, then kept: compiling every
 * schema at start-up cost each process a third of its start, for schemas
 * most starts never use.
 */
export function onFirstUse(compile: () => ValidateFunction): () => ValidateFunction {
  let validate: ValidateFunction | undefined
  return () => (validate ??= compile())
}

/** "rules: must NOT have fewer than 1 items" — what failed, for the error body; never echoes values. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'invalid'
  return errors
    .slice(0, 5)
    .map((e) => `${e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'body'}: ${e.message ?? 'is invalid'}`)
    .join('; ')
}
