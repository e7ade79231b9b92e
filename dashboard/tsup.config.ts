/**
 * Builds the web dashboard (issue 8) into dist/public/app/: content-hashed ES
 * modules split at the two heavy screens (the replay player and the heatmap's
 * page rebuild load only there), a hashed stylesheet, the HTML shell naming
 * them, and .gz/.br twins the control worker serves as they are. Prints the
 * sizes and fails over the budget (see dashboard/finish-build.ts).
 */
import { defineConfig } from 'tsup'
import { finishDashboardBuild } from './finish-build.js'

const OUT_DIR = 'dist/public/app'

export default defineConfig({
  entry: { app: 'dashboard/src/main.tsx' },
  format: 'esm',
  platform: 'browser',
  // Browsers of the last few years, phones included: native ES modules, dynamic import, optional chaining.
  target: 'es2020',
  outDir: OUT_DIR,
  splitting: true,
  minify: true,
  // Only for `npm run coverage`, which maps what Chromium ran back to the sources (test/support/browser-coverage.ts).
  sourcemap: process.env.SVC_SOURCE_MAPS === '1',
  // Bundled whole: nothing is loaded from node_modules at run time.
  noExternal: [/.*/],
  metafile: true,
  clean: false,
  silent: true,
  // rrweb-player's stylesheet is injected by the player chunk itself, so it loads only with the player.
  loader: { '.css': 'text' },
  esbuildOptions(options) {
    options.jsx = 'automatic'
    options.jsxImportSource = 'preact'
    options.entryNames = '[name]-[hash]'
    options.chunkNames = '[name]-[hash]'
    options.legalComments = 'none'
  },
  onSuccess: () => finishDashboardBuild(OUT_DIR),
})
