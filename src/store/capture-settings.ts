/** A project's capture settings, stored on its record as the schema describes them (defaults and checks in src/recordings/capture.ts). */
import type { FromSchema } from 'json-schema-to-ts'
import type { captureSettingsSchema } from '../schemas/capture.js'

export type CaptureSettings = FromSchema<typeof captureSettingsSchema>
