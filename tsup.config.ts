import { cpSync } from 'node:fs'
import { defineConfig } from 'tsup'

export default defineConfig({
  entry: {
    main: 'src/main.ts',
    front: 'src/front/index.ts',
    control: 'src/control/index.ts',
    admin: 'src/admin.ts',
    'cluster-local': 'src/journal/local-cluster.ts',
    writer: 'workers/writer.ts',
    fold: 'workers/fold.ts',
    read: 'workers/read.ts',
  },
  format: 'esm',
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  // Not cleaned: tests spawn dist/ processes, and a rebuild beside them must not pull files from under them.
  clean: false,
  splitting: true,
  sourcemap: true,
  // Static artifacts the front serves from memory (the tracker build adds to them).
  onSuccess: async () => {
    cpSync('src/public', 'dist/public', { recursive: true })
    // The website's Markdown sources, which the control worker renders at start-up.
    cpSync('src/site/pages', 'dist/site', { recursive: true })
    // The repository's docs/, served under /docs (src/site/docs-tree.ts).
    cpSync('docs', 'dist/docs', { recursive: true })
  },
})
