/** JSON Schema of a project's capture settings (the project answer's `capture`; projects.capture's body in control.ts). */

const pattern = { type: 'string', maxLength: 2000 } as const
const patterns = (description: string) => ({ type: 'array', maxItems: 50, items: pattern, description }) as const

export const captureProperties = {
  sampleRate: { type: 'number', minimum: 0, maximum: 1, description: 'Share of sessions recorded, drawn once per session; unsampled sessions still send signals. Default 1.' },
  minDurationMs: { type: 'integer', minimum: 0, maximum: 3_600_000, description: 'Recordings of sessions shorter than this are not sent (milliseconds). Default 0.' },
  triggerUrls: patterns('Path patterns (path-rule syntax): when any is set, a session records from its first page view matching one. Default none: every page.'),
  excludeUrls: patterns('Path patterns (path-rule syntax) never recorded. Default none.'),
  console: { type: 'boolean', description: 'Record console messages and uncaught errors beside the DOM. Default false.' },
  network: { type: 'boolean', description: 'Record fetch and XMLHttpRequest requests (method, URL, status, timing, sizes; never headers or bodies). Default false.' },
  networkQuery: { type: 'boolean', description: 'Keep the query string of recorded request URLs. Default false.' },
  canvas: { type: 'boolean', description: 'Record what visible <canvas> elements show, as sampled WebP (or JPEG) frames; never one inside a masked or blocked element. Default false.' },
  canvasFps: { type: 'number', minimum: 0.1, maximum: 10, description: 'Canvas frames sampled per second; a canvas whose pixels did not change sends none. Default 2.' },
  canvasQuality: { type: 'number', minimum: 0, maximum: 1, description: 'WebP (or JPEG) quality of canvas frames, 0 to 1. Default 0.6.' },
  frameParents: {
    type: 'array',
    maxItems: 20,
    items: { type: 'string', maxLength: 200, pattern: '^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$' },
    description:
      'Origins (https://shop.example) whose pages may show a frame of another origin in place: where the tracker runs in such a frame and in the page around it, the frame records into the page\'s recording, and only when the page\'s origin is listed here. Default none: a frame records on its own.',
  },
} as const

export const captureSettingsSchema = {
  $id: 'CaptureSettings',
  type: 'object',
  additionalProperties: false,
  required: ['sampleRate', 'minDurationMs', 'triggerUrls', 'excludeUrls', 'console', 'network', 'networkQuery', 'canvas', 'canvasFps', 'canvasQuality', 'frameParents'],
  properties: captureProperties,
} as const
