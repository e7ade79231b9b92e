/**
 * Builds the benchmark into dist/bench/ (`npm run bench` runs this after the
 * service's own build, then dist/bench/run.js). Node 20 cannot run
 * TypeScript by itself; bundling also gives the bare uWebSockets.js and
 * storage-ceiling processes plain entry files to start. The cluster under
 * test is the service's own build, dist/main.js.
 */
import { defineConfig } from 'tsup'

export default defineConfig({
  entry: {
    run: 'bench/run.ts',
    'bare-uws': 'bench/bare-uws.ts',
    'plain-peer': 'bench/plain-peer.ts',
    'fastify-peer': 'bench/fastify-peer.ts',
    'storage-ceiling': 'bench/storage-ceiling.ts',
    'store-path': 'bench/store-path.ts',
    'fold-cost': 'bench/fold-cost.ts',
    micro: 'bench/micro.ts',
    'group-urls': 'bench/group-urls.ts',
    'read-queries': 'bench/read-queries.ts',
    'front-kill': 'bench/front-kill.ts',
    'raw-publisher': 'bench/raw-publisher.ts',
  },
  format: 'esm',
  target: 'node20',
  platform: 'node',
  outDir: 'dist/bench',
  clean: true,
  splitting: true,
  sourcemap: true,
  silent: true,
  // autocannon is a devDependency, which tsup would otherwise bundle (its CommonJS requires break in ESM).
  skipNodeModulesBundle: true,
})
