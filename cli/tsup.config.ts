/** Builds the CLI into one dependency-free ES module, dist/public/cli.mjs, for Node 18 or newer. */
import { rmSync } from 'node:fs'
import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { cli: 'cli/src/main.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node18',
  outDir: 'dist/public',
  outExtension: () => ({ js: '.mjs' }),
  noExternal: [/.*/],
  // Keep `node:` in the built imports: the file promises nothing but node: built-ins, and test/cli/node18.test.ts checks it.
  removeNodeProtocol: false,
  clean: false,
  silent: true,
  banner: { js: '#!/usr/bin/env node' },
  // A new build is unsigned until `npm run release:sign` signs it; a signature of the previous one would stop the server at start-up.
  onSuccess: async () => rmSync('dist/public/cli.sig.json', { force: true }),
})
