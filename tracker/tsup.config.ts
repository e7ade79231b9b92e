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
 * One edit of rrweb's record bundle (@rrweb/record's dist/record.js): most cut
 * code the tracker's record options (tracker/src/recorder.ts) never reach. A
 * pattern without the `g` flag must match exactly once, one with it at least
 * once: an rrweb upgrade that moves the code fails the build here rather than
 * shipping half an edit.
 */
interface RrwebEdit {
  what: string
  find: RegExp
  replace: string
}

const rrwebEdits: RrwebEdit[] = [
  {
    // The source of a canvas-snapshot worker, started from a blob: URL. The tracker never records canvas, so the
    // worker never starts, and nothing is left that a strict CSP (worker-src) would have to allow.
    what: 'canvas worker source',
    find: /^const jsContent = '.*';$/m,
    replace: "const jsContent = '';",
  },
  {
    // 2D and WebGL call recording, which `recordCanvas: false` leaves idle; the canvas observers it alone used
    // fall out of the bundle with it.
    what: 'CanvasManager',
    find: /^class CanvasManager \{\n[\s\S]*?\n\}\n(?=class StylesheetManager \{)/m,
    replace: 'class CanvasManager {\n  reset() {}\n  freeze() {}\n  unfreeze() {}\n  lock() {}\n  unlock() {}\n}\n',
  },
  {
    // A canvas's pixels (`recordCanvas`) and images inlined as data URLs (`inlineImages`): both off.
    what: 'canvas and image inlining in serializeElementNode',
    find: /^ {2}if \(tagName === "canvas" && recordCanvas\) \{\n[\s\S]*?\n {2}\}\n {2}if \(tagName === "img" && inlineImages\) \{\n[\s\S]*?\n {2}\}\n(?= {2}if \(\["audio", "video"\]\.includes\(tagName\)\) \{)/m,
    replace: '',
  },
  {
    // Cross-origin iframes (`recordCrossOriginIframes`, off): the id mirrors that translate a child frame's
    // events (their class then falls out) and the message handler that receives them. Same-origin iframes
    // (attachIframe) are kept.
    what: "IframeManager's cross-origin mirror",
    find: /^ {4}__publicField\(this, "crossOriginIframeMirror", new CrossOriginIframeMirror\(genId\)\);\n/m,
    replace: '',
  },
  {
    what: "IframeManager's cross-origin style mirror",
    find: /^ {4}this\.crossOriginIframeStyleMirror = new CrossOriginIframeMirror\([\s\S]*?\n {4}\);\n/m,
    replace: '',
  },
  {
    what: "IframeManager's cross-origin message handling",
    find: /^ {2}handleMessage\(message\) \{\n[\s\S]*?\n {2}\}\n(?=\}\nclass ShadowDomManager \{)/m,
    replace: '',
  },
  {
    // Web fonts added from script (`collectFonts`, off): initObservers calls this only when it is on.
    what: 'initFontObserver',
    find: /^function initFontObserver\(\{ fontCb, doc \}\) \{\n[\s\S]*?\n\}\n(?=function initSelectionObserver\()/m,
    replace: 'function initFontObserver() {\n  return () => {\n  };\n}\n',
  },
  {
    // Wraps every observer callback to call the matching `hooks` entry first; the tracker passes no hooks, so
    // each wrapper would only call the callback it wraps.
    what: 'mergeHooks',
    find: /^function mergeHooks\(o, hooks\) \{\n[\s\S]*?\n\}\n(?=function initObservers\()/m,
    replace: 'function mergeHooks() {\n}\n',
  },
  {
    // A deprecated mirror that warns when read; nothing in the record bundle reads it, but building its Proxy
    // is a side effect the minifier must keep.
    what: 'the deprecated _mirror',
    find: /^const DEPARTED_MIRROR_ACCESS_WARNING = [\s\S]*?\n\}\n(?=function throttle\()/m,
    replace: '',
  },
  {
    // The replayer's virtual DOM node; the recorder only asks `instanceof` of real DOM nodes (always false),
    // and nothing in the record bundle builds one.
    what: 'BaseRRNode',
    find: /^class BaseRRNode \{\n[\s\S]*?\n\}\n(?=function on\(type, fn, target = document\) \{)/m,
    replace: 'class BaseRRNode {\n}\n',
  },
  {
    // rrweb's class fields, each emitted as a `__publicField` call, which assigns unless the name is already on
    // the object (a method or accessor of the class). No field shares a name with either and no class extends
    // another, so the plain assignment it makes anyway is written out, in fewer bytes.
    what: 'class fields with a value',
    find: /__publicField\(this, "(\w+)", /g,
    replace: 'this.$1 = (',
  },
  {
    // A field declared without a value (a type annotation in rrweb's source) is assigned before it is read;
    // TypeScript's own emit without useDefineForClassFields leaves it out the same way. Nothing reflects over
    // these objects (no `in`, Object.keys or JSON of them).
    what: 'class fields without a value',
    find: /^ *__publicField\(this, "\w+"\);\n/gm,
    replace: '',
  },
]

/** The class-field edits hold only while no class extends another and no field shares a name with a member. */
function checkFieldsAssignable(source: string): void {
  const fields = new Set(Array.from(source.matchAll(/__publicField\(this, "(\w+)"/g), (m) => m[1]))
  const members = Array.from(source.matchAll(/^ {2}(?:get |set |static |async )?(\w+)\(.*\) \{$/gm), (m) => m[1])
  const clash = members.find((name) => fields.has(name)) ?? (/^class \w+ extends /m.test(source) ? 'a subclass' : undefined)
  if (clash) throw new Error(`rrweb's class fields are no longer plain assignments (${clash}): check the @rrweb/record version`)
}

function editRrweb(source: string): string {
  checkFieldsAssignable(source)
  for (const edit of rrwebEdits) {
    const every = edit.find.global
    const found = source.match(every ? edit.find : new RegExp(edit.find.source, edit.find.flags + 'g'))?.length ?? 0
    if (every ? found === 0 : found !== 1) throw new Error(`rrweb ${edit.what}: found ${found} times: check the @rrweb/record version`)
    source = every ? source.replace(edit.find, edit.replace) : source.replace(edit.find, () => edit.replace)
  }
  return source
}

const trimRrweb: Plugin = {
  name: 'trim-rrweb-record',
  setup(build) {
    build.onLoad({ filter: /@rrweb[\\/]record[\\/]dist[\\/]record\.js$/ }, (args) => ({
      contents: editRrweb(readFileSync(args.path, 'utf8')),
      loader: 'js',
    }))
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
  esbuildPlugins: [trimRrweb],
  onSuccess: async () => void reportSizes(['dist/public/tracker.js', 'dist/public/stub.js', 'dist/public/capture.js']),
})
