/**
 * Builds the soak and fault script into dist/soak/ (`npm run soak` runs this
 * after the service's own build, then dist/soak/run.js). The overload
 * scenario's load generator is an entry of its own: it runs as a separate
 * process, pinned to another core than the cluster.
 */
import { defineConfig } from 'tsup'

export default defineConfig({
  entry: {
    run: 'bench/soak/run.ts',
    'overload-client': 'bench/soak/overload-client.ts',
  },
  format: 'esm',
  target: 'node20',
  platform: 'node',
  outDir: 'dist/soak',
  clean: true,
  splitting: true,
  sourcemap: true,
  silent: true,
  // autocannon is a devDependency, which tsup would otherwise bundle (its CommonJS requires break in ESM).
  skipNodeModulesBundle: true,
})
