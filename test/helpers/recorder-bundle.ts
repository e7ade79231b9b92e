/**
 * The tracker's recorder (tracker/src/recorder.ts) over rrweb's record bundle
 * as `edit` leaves it, built into one script for a test page: it exposes
 * `recorded` (every event, copied as serialized), `guard` and `recorder` on
 * window. `recorderArgs` are the arguments after the emit callback.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'esbuild'

export async function recorderScript(edit: (source: string) => string, recorderArgs: unknown[] = []): Promise<string> {
  const rrweb: Plugin = {
    name: 'rrweb-source',
    setup(b) {
      b.onLoad({ filter: /@rrweb[\\/]record[\\/]dist[\\/]record\.js$/ }, (args) => ({ contents: edit(readFileSync(args.path, 'utf8')), loader: 'js' }))
    },
  }
  const extra = recorderArgs.map((a) => `, ${JSON.stringify(a)}`).join('')
  const result = await build({
    stdin: {
      contents: [
        "import { createGuard } from './tracker/src/guard.js'",
        "import { createRecorder } from './tracker/src/recorder.js'",
        'const w = window as any',
        'w.recorded = []',
        'w.guard = createGuard()',
        `w.recorder = createRecorder(w.guard, (event) => w.recorded.push(JSON.parse(JSON.stringify(event)))${extra})`,
      ].join('\n'),
      resolveDir: fileURLToPath(new URL('../../', import.meta.url)),
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    target: 'es2020',
    write: false,
    plugins: [rrweb],
  })
  return result.outputFiles[0].text
}
