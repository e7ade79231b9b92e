/** Builds the browser tracker into dist/public/tracker.js, which the front serves from memory. */
import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { tracker: 'tracker/src/index.ts' },
  format: 'iife',
  platform: 'browser',
  target: 'es2019',
  outDir: 'dist/public',
  outExtension: () => ({ js: '.js' }),
  minify: true,
  clean: false,
  silent: true,
})
