/**
 * Builds the browser tracker into dist/public/tracker.js (which the front
 * serves from memory) and the loader stub into dist/public/stub.js (which
 * src/install/snippet.ts embeds in the snippet), both minified IIFEs, then prints
 * their raw, gzip and brotli sizes (tracker/report-sizes.ts).
 */
import { readFileSync } from 'node:fs'
import { defineConfig } from 'tsup'
import type { Plugin } from 'esbuild'
import { reportSizes } from './report-sizes.js'

const version = (JSON.parse(readFileSync(new URL('../src/public/versions.json', import.meta.url), 'utf8')) as { tracker: string }).tracker

/**
 * rrweb's record bundle carries the source of a canvas-snapshot worker as a
 * string (started from a blob: URL). The tracker never records canvas, so the
 * worker is never started; dropping its source saves ~1 KB gzipped and leaves
 * nothing in tracker.js that a strict CSP (worker-src) would have to allow.
 * For the same reason its CanvasManager (2D and WebGL call recording, which
 * `recordCanvas: false` leaves idle) becomes a class whose methods do nothing,
 * and the canvas observers it alone used fall out of the bundle.
 */
const dropCanvasWorker: Plugin = {
  name: 'drop-rrweb-canvas-worker',
  setup(build) {
    build.onLoad({ filter: /@rrweb[\\/]record[\\/]dist[\\/]record\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      const stripped = source.replace(/^const jsContent = '.*';$/m, "const jsContent = '';")
      if (stripped === source) throw new Error('rrweb canvas worker source not found: check the @rrweb/record version')
      const idle = 'class CanvasManager {\n  reset() {}\n  freeze() {}\n  unfreeze() {}\n  lock() {}\n  unlock() {}\n}\n'
      const noCanvas = stripped.replace(/^class CanvasManager \{\n[\s\S]*?\n\}\n(?=class StylesheetManager \{)/m, idle)
      if (noCanvas === stripped) throw new Error('rrweb CanvasManager not found: check the @rrweb/record version')
      return { contents: noCanvas, loader: 'js' }
    })
  },
}

export default defineConfig({
  entry: { tracker: 'tracker/src/index.ts', stub: 'tracker/src/stub.ts', capture: 'tracker/src/capture-main.ts' },
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  outDir: 'dist/public',
  outExtension: () => ({ js: '.js' }),
  minify: true,
  clean: false,
  silent: true,
  define: { __TRACKER_VERSION__: JSON.stringify(version) },
  esbuildPlugins: [dropCanvasWorker],
  onSuccess: async () => void reportSizes(['dist/public/tracker.js', 'dist/public/stub.js', 'dist/public/capture.js']),
})
