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
 * shipping half an edit. A block's body is matched as lines indented deeper
 * than its first line (`(?:(?: {3}.*)?\n)*?` in a block at 2 spaces), so a
 * match ends at the block's own closing line and never runs on into the code
 * after it. Turning one of those options on in recorder.ts fails
 * test/tracker/rrweb-edits.test.ts, which records with and without the edits.
 */
interface RrwebEdit {
  what: string
  find: RegExp
  replace: string
}

const rrwebEdits: RrwebEdit[] = [
  {
    // The source of a canvas-snapshot worker, the Blob made of it at start-up and the wrapper that starts it from a
    // blob: URL. The tracker never records canvas (CanvasManager, below, the wrapper's only caller, goes too), so
    // nothing is left that a strict CSP (worker-src) would have to allow, and no page pays for the Blob.
    what: 'canvas worker source, Blob and WorkerWrapper',
    find: /^const jsContent = '.*';\nconst blob = .*;\nfunction WorkerWrapper\(options\) \{\n(?:(?: .*)?\n)*?\}\n/m,
    replace: '',
  },
  {
    // 2D and WebGL call recording, which `recordCanvas: false` leaves idle; the canvas observers it alone used
    // fall out of the bundle with it.
    what: 'CanvasManager',
    find: /^class CanvasManager \{\n(?:(?: .*)?\n)*?\}\n/m,
    replace: 'class CanvasManager {\n  reset() {}\n  freeze() {}\n  unfreeze() {}\n  lock() {}\n  unlock() {}\n}\n',
  },
  {
    // A canvas's pixels (`recordCanvas`) and images inlined as data URLs (`inlineImages`): both off.
    what: 'canvas and image inlining in serializeElementNode',
    find: /^ {2}if \(tagName === "canvas" && recordCanvas\) \{\n(?:(?: {3}.*)?\n)*? {2}\}\n {2}if \(tagName === "img" && inlineImages\) \{\n(?:(?: {3}.*)?\n)*? {2}\}\n/m,
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
    find: /^ {4}this\.crossOriginIframeStyleMirror = new CrossOriginIframeMirror\(\n(?:(?: {5}.*)?\n)*? {4}\);\n/m,
    replace: '',
  },
  {
    // handleMessage and the methods after it, to the class's end, all translate a child frame's events.
    what: "IframeManager's cross-origin message handling",
    find: /^ {2}handleMessage\(message\) \{\n(?:(?: .*)?\n)*?(?=\}\n)/m,
    replace: '',
  },
  {
    // Web fonts added from script (`collectFonts`, off): initObservers calls this only when it is on.
    what: 'initFontObserver',
    find: /^function initFontObserver\(\{ fontCb, doc \}\) \{\n(?:(?: .*)?\n)*?\}\n/m,
    replace: 'function initFontObserver() {\n  return () => {\n  };\n}\n',
  },
  {
    // Wraps every observer callback to call the matching `hooks` entry first; the tracker passes no hooks, so
    // each wrapper would only call the callback it wraps.
    what: 'mergeHooks',
    find: /^function mergeHooks\(o, hooks\) \{\n(?:(?: .*)?\n)*?\}\n/m,
    replace: 'function mergeHooks() {\n}\n',
  },
  {
    // A deprecated mirror that warns when read; nothing in the record bundle reads it, but building its Proxy
    // is a side effect the minifier must keep.
    what: 'the deprecated _mirror',
    find: /^const DEPARTED_MIRROR_ACCESS_WARNING = .*;\nlet _mirror = \{\n(?:(?: .*)?\n)*?\};\nif \(typeof window !== "undefined" && window\.Proxy && window\.Reflect\) \{\n(?:(?: .*)?\n)*?\}\n/m,
    replace: '',
  },
  {
    // The replayer's virtual DOM node; the recorder only asks `instanceof` of real DOM nodes (always false),
    // and nothing in the record bundle builds one.
    what: 'BaseRRNode',
    find: /^class BaseRRNode \{\n(?:(?: .*)?\n)*?\}\n/m,
    replace: 'class BaseRRNode {\n}\n',
  },
  {
    // Not a cut but a mend: a frame added while its first, blank, same-origin document is still in it was
    // recorded without its address (rrweb keeps it only when the frame's document is unreadable), so a replay
    // could not say which origin the placeholder stands for (dashboard/src/player/frames.ts).
    what: "an added frame's address",
    find: /^ {4}if \(!n\.contentDocument\) \{\n {6}attributes\.rr_src = attributes\.src;\n/m,
    replace: '    if (!n.contentDocument || crossOriginFrame(attributes.src)) {\n      attributes.rr_src = attributes.src;\n',
  },
  {
    what: 'crossOriginFrame, for the mend above',
    find: /^function serializeElementNode\(/m,
    replace:
      'function crossOriginFrame(src) {\n  try {\n    const url = new URL(String(src), location.href);\n    return /^https?:$/.test(url.protocol) && url.origin !== location.origin;\n  } catch (e) {\n    return false;\n  }\n}\nfunction serializeElementNode(',
  },
  {
    // Cross-origin iframes again: record() in a child frame hands its events to the parent by postMessage.
    // With `recordCrossOriginIframes` off every frame emits for itself, through `emit`.
    what: 'record() finding whether it runs in a child frame',
    find: /^ {2}const inEmittingFrame = recordCrossOriginIframes \? .*\n {2}let passEmitsToParent = false;\n {2}if \(!inEmittingFrame\) \{\n(?:(?: {3}.*)?\n)*? {2}\}\n {2}if \(inEmittingFrame && !emit\) \{\n/m,
    replace: '  if (!emit) {\n',
  },
  {
    what: 'record() stopping in a child frame that cannot reach its parent',
    find: /^ {2}if \(!inEmittingFrame && !passEmitsToParent\) \{\n(?:(?: {3}.*)?\n)*? {2}\}\n/m,
    replace: '',
  },
  {
    what: 'record() packing only events not passed to the parent',
    find: /if \(packFn && \/\/ Disable packing events which will be emitted to parent frames\.\n {4}!passEmitsToParent\) \{/,
    replace: 'if (packFn) {',
  },
  {
    what: 'record() passing events to the parent frame',
    find: /^ {4}if \(inEmittingFrame\) \{\n {6}emit == null \? void 0 : emit\(eventProcessor\(e\), isCheckout\);\n {4}\} else if \(passEmitsToParent\) \{\n(?:(?: {5}.*)?\n)*? {4}\}\n/m,
    replace: '    emit(eventProcessor(e), isCheckout);\n',
  },
  {
    // rrweb plugins (`plugins`): the tracker passes none. Its console and network events are its own
    // (capture.js), pushed into the recording beside rrweb's.
    what: "record()'s plugin event processors",
    find: /^ {4}for \(const plugin of plugins \|\| \[\]\) \{\n {6}if \(plugin\.eventProcessor\) \{\n(?:(?: {5}.*)?\n)*? {4}\}\n/m,
    replace: '',
  },
  {
    what: 'record() handing plugins the mirrors',
    find: /^ {2}for \(const plugin of plugins \|\| \[\]\) \{\n {4}if \(plugin\.getMirror\)\n(?:(?: {3}.*)?\n)*? {2}\}\n/m,
    replace: '',
  },
  {
    what: "record()'s plugin observers",
    find: /plugins: \(\(_a2 = plugins == null \? void 0 : plugins\.filter\(\(p\) => p\.observer\)\) == null \? void 0 : _a2\.map\(\(p\) => \(\{\n(?:(?: {11}.*)?\n)*? {10}\}\)\)\) \|\| \[\]\n/,
    replace: 'plugins: []\n',
  },
  {
    what: 'initObservers starting plugin observers',
    find: /^ {2}const pluginHandlers = \[\];\n {2}for \(const plugin of o\.plugins\) \{\n(?:(?: {3}.*)?\n)*? {2}\}\n/m,
    replace: '  const pluginHandlers = [];\n',
  },
  {
    // `maskAllInputs`: the tracker names every input type in `maskInputOptions` instead (recorder.ts).
    what: "record()'s maskAllInputs list",
    find: /^ {2}const maskInputOptions = maskAllInputs === true \? \{\n(?:(?: {3}.*)?\n)*? {2}\} : (?=_maskInputOptions !== void 0)/m,
    replace: '  const maskInputOptions = ',
  },
  {
    // record() hands snapshot() its resolved options object, never `true`.
    what: "snapshot()'s maskAllInputs list",
    find: /^ {2}const maskInputOptions = maskAllInputs === true \? \{\n(?:(?: {3}.*)?\n)*? {2}\} : (?=maskAllInputs === false \?)/m,
    replace: '  const maskInputOptions = ',
  },
  {
    // The tracker never calls these two (its own events go into the recording through chunks.ts).
    what: 'record.addCustomEvent and record.freezePage',
    find: /^record\.addCustomEvent = \(tag, payload\) => \{\n(?:(?: .*)?\n)*?\};\nrecord\.freezePage = \(\) => \{\n(?:(?: .*)?\n)*?\};\n/m,
    replace: '',
  },
  {
    // A `<link>`ed stylesheet's text: the tracker reads the file from the browser's cache where it can
    // (tracker/src/styles.ts, through `record.linkText`, set by the recorder) instead of rrweb turning every rule
    // back into text; rrweb's stringify and URL fix are handed over for where it cannot.
    what: "serializeElementNode: a linked stylesheet's text",
    find: /^ {6}cssText = stringifyStylesheet\(stylesheet\);\n/m,
    replace: '      cssText = record.linkText ? record.linkText(stylesheet, stringifyStylesheet, absolutifyURLs) : stringifyStylesheet(stylesheet);\n',
  },
  {
    // An element's scroll position only where it may not be 0: `record.scrolled` (set from the stub's set of
    // scrolled elements, tracker/src/recorder.ts) spares a layout check per element; without it, every element's.
    what: "serializeElementNode: scroll positions of scrolled elements",
    find: /^ {2}if \(!newlyAddedElement\) \{\n(?= {4}if \(n\.scrollLeft\) \{\n)/m,
    replace: '  if (!newlyAddedElement && (!record.scrolled || record.scrolled(n))) {\n',
  },
  {
    // The full snapshot in time slices (tracker/src/snapshot.ts, issue 33). takeFullSnapshot keeps its order
    // (managers reset, buffers locked, the tree, Meta and the full snapshot, buffers unlocked) but hands the tree
    // to `record.walk`, which serializes it over several tasks and then calls the rest; Meta moves to just before
    // the full snapshot so that nothing lands between them. A snapshot asked for during a walk is the walk's.
    what: 'takeFullSnapshot: one walk at a time, Meta after it',
    find: /^ {4}if \(!recordDOM\) \{\n {6}return;\n {4}\}\n {4}wrappedEmit\(\n {6}\{\n {8}type: EventType\.Meta,\n(?:(?: {5}.*)?\n)*? {4}\);\n(?= {4}stylesheetManager\.reset\(\);\n {4}shadowDomManager\.init\(\);\n {4}mutationBuffers\.forEach\(\(buf\) => buf\.lock\(\)\);\n)/m,
    replace: '    if (!recordDOM || record.walking) {\n      return;\n    }\n',
  },
  {
    what: 'takeFullSnapshot: the tree from record.walk',
    find: /^ {4}const node = snapshot\(document, \{\n(?= {6}mirror,\n)/m,
    replace: '    record.walk(document, {\n',
  },
  {
    what: 'takeFullSnapshot: Meta and the full snapshot once the walk is done',
    find: /^ {4}\}\);\n {4}if \(!node\) \{\n {6}return console\.warn\("Failed to snapshot the document"\);\n {4}\}\n(?= {4}wrappedEmit\(\n {6}\{\n {8}type: EventType\.FullSnapshot,\n)/m,
    replace:
      '    }, mutationBuffers, serializeNodeWithId, (node) => {\n    wrappedEmit({ type: EventType.Meta, data: { href: window.location.href, width: getWindowWidth(), height: getWindowHeight() } }, isCheckout);\n',
  },
  {
    what: "takeFullSnapshot: the walk's callback closed",
    find: /^ {4}mutationBuffers\.forEach\(\(buf\) => buf\.unlock\(\)\);\n {4}if \(document\.adoptedStyleSheets && document\.adoptedStyleSheets\.length > 0\)\n {6}stylesheetManager\.adoptStyleSheets\(\n {8}document\.adoptedStyleSheets,\n {8}mirror\.getId\(document\)\n {6}\);\n {2}\};\n/m,
    replace:
      '    mutationBuffers.forEach((buf) => buf.unlock());\n    if (document.adoptedStyleSheets && document.adoptedStyleSheets.length > 0)\n      stylesheetManager.adoptStyleSheets(\n        document.adoptedStyleSheets,\n        mirror.getId(document)\n      );\n    });\n  };\n',
  },
  {
    // A buffer created during a walk (the document's, when record() starts observing after the first slice; a
    // shadow root's; a frame's) is locked like the rest, so that its changes too come after the full snapshot.
    what: 'initMutationObserver: locked during a walk',
    find: /^ {2}mutationBuffer\.init\(options\);\n/m,
    replace: '  mutationBuffer.init(options);\n  if (record.walking) mutationBuffer.lock();\n',
  },
  {
    // Observers start during the first walk, before there is a full snapshot to time a checkout from.
    what: 'checkoutEveryNms before the first full snapshot',
    find: /const exceedTime = checkoutEveryNms && e\.timestamp - lastFullSnapshotEvent\.timestamp > checkoutEveryNms;/,
    replace: 'const exceedTime = checkoutEveryNms && lastFullSnapshotEvent && e.timestamp - lastFullSnapshotEvent.timestamp > checkoutEveryNms;',
  },
  {
    // The walk serializes one node at a time (skipChild) and needs what rrweb hands that node's children: whether
    // their text is masked, and whether the node is blocked (rrweb deletes needBlock from the node right after).
    what: 'serializeNodeWithId telling onSerialize what the children inherit',
    find: /^ {4}onSerialize\(n\);\n(?= {2}\}\n {2}let recordChild = !skipChild;\n)/m,
    replace: '    onSerialize(n, needsMask, serializedNode.needBlock);\n',
  },
  {
    // rrweb reads the DOM through "untainted" prototypes, and builds a hidden iframe to take them from when a page
    // has patched one; it tests Element's querySelector and querySelectorAll as accessors, which they are not, so
    // every page looked patched: an iframe added to the page and 15 to 20 ms in the first snapshot. Tested as the
    // methods they are.
    what: "Element's untainted accessors and methods",
    find: /^ {2}Element: \["shadowRoot", "querySelector", "querySelectorAll"\],\n {2}MutationObserver: \[\]\n\};\nconst testableMethods = \{\n {2}Node: \["contains", "getRootNode"\],\n {2}ShadowRoot: \["getSelection"\],\n {2}Element: \[\],\n/m,
    replace:
      '  Element: ["shadowRoot"],\n  MutationObserver: []\n};\nconst testableMethods = {\n  Node: ["contains", "getRootNode"],\n  ShadowRoot: ["getSelection"],\n  Element: ["querySelector", "querySelectorAll"],\n',
  },
  {
    // A deleted property turns an object into a slow dictionary one in V8; every element node of a snapshot was
    // one, which the tracker then scrubs, walks for stylesheets and stringifies. Left undefined, it is not in the
    // JSON all the same.
    what: 'serializeNodeWithId deleting needBlock',
    find: /^ {4}delete serializedNode\.needBlock;\n/m,
    replace: '    serializedNode.needBlock = void 0;\n',
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
    // A TypeScript enum maps both ways; initMouseInteractionObserver reads it by name only and lists its names,
    // so a plain object of the names it listens for does (the departed TouchMove it filters out is left out).
    what: 'MouseInteractions as a plain object',
    find: /^var MouseInteractions = \/\* @__PURE__ \*\/ \(\(MouseInteractions2\) => \{\n(?: {2}.*\n)*?\}\)\(MouseInteractions \|\| \{\}\);\n/m,
    replace:
      'var MouseInteractions = { MouseUp: 0, MouseDown: 1, Click: 2, ContextMenu: 3, DblClick: 4, Focus: 5, Blur: 6, TouchStart: 7, TouchEnd: 9, TouchCancel: 10 };\n',
  },
  {
    // Reading `n.attributes[i]` makes an Attr node per attribute; by name and value costs less than half as much
    // (bench/RESULTS.md). Only attributes of one qualified name in two namespaces (setAttributeNS) would differ: the
    // first one's value is kept for both.
    what: "serializeElementNode: an element's attributes by name",
    find: /^ {2}const len = n\.attributes\.length;\n {2}for \(let i = 0; i < len; i\+\+\) \{\n {4}const attr = n\.attributes\[i\];\n(?: {4}.*\n)*? {2}\}\n/m,
    replace:
      '  for (const name of n.getAttributeNames()) {\n    const value = n.getAttribute(name);\n    if (!ignoreAttribute(tagName, name, value)) {\n      attributes[name] = transformAttribute(doc, tagName, toLowerCase(name), value);\n    }\n  }\n',
  },
  {
    // A page has few tag names and a snapshot asks for one per element: each name is lowered and checked once. A
    // form still goes by instanceof first (its tagName can be shadowed by a field named "tagName"); past 512 names
    // (a page making up tags) the rest are worked out each time, as before.
    what: 'getValidTagName: each tag name worked out once',
    find: /^ {2}const processedTagName = toLowerCase\(element\.tagName\);\n {2}if \(tagNameRegex\.test\(processedTagName\)\) \{\n {4}return "div";\n {2}\}\n {2}return processedTagName;\n\}\n/m,
    replace:
      '  const tagName = element.tagName;\n  let valid = validTagNames.get(tagName);\n  if (valid === void 0) {\n    valid = tagNameRegex.test(toLowerCase(tagName)) ? "div" : toLowerCase(tagName);\n    if (validTagNames.size < 512) validTagNames.set(tagName, valid);\n  }\n  return valid;\n}\nconst validTagNames = new Map();\n',
  },
  {
    // A custom element's name has a hyphen: the registry is asked only for those, not for every element.
    what: 'serializeElementNode: the custom element registry asked for names with a hyphen',
    find: /^ {4}if \(customElements\.get\(tagName\)\) isCustomElement = true;\n/m,
    replace: '    if (tagName.includes("-") && customElements.get(tagName)) isCustomElement = true;\n',
  },
  {
    // With the tracker's class and selector (recorder.ts: both set, the class a string), one search of the ancestors
    // for either instead of one for each (a change's added node and text each asked twice), and one match of the
    // element itself, which spares the snapshot a class list object per element.
    what: 'needMaskingText: the mask class and selector in one search',
    find: /^ {4}if \(typeof maskTextClass === "string"\) \{\n {6}if \(checkAncestors\) \{\n {8}if \(el\.closest\(`\.\$\{maskTextClass\}`\)\) return true;\n(?: {4}.*\n)*? {4}if \(maskTextSelector\) \{\n(?: {6}.*\n)*? {4}\}\n/m,
    replace: '    const either = `.${maskTextClass},${maskTextSelector}`;\n    return checkAncestors ? !!el.closest(either) : el.matches(either);\n',
  },
  {
    // Every browser that runs ES2020 has window.pageXOffset and pageYOffset: the fallbacks after them never run.
    what: 'getWindowScroll: without the fallbacks past pageXOffset',
    find: /^function getWindowScroll\(win\) \{\n(?: {2}.*\n)*?\}\n/m,
    replace:
      'function getWindowScroll(win) {\n  const doc = win.document;\n  return {\n    left: doc.scrollingElement ? doc.scrollingElement.scrollLeft : win.pageXOffset,\n    top: doc.scrollingElement ? doc.scrollingElement.scrollTop : win.pageYOffset\n  };\n}\n',
  },
  {
    // A position read in a timer forces a layout whenever the page has changed since its last frame: the trailing
    // sample's read took most of the scroll observer's time. Scroll events fire while a frame is drawn, before its
    // layout: read as each is dispatched, the position is kept for the sample that reports it.
    what: 'initScrollObserver: positions read as the scroll events come',
    find: /^ {2}const updatePosition = callbackWrapper\(\n {4}throttle\(\n {6}callbackWrapper\(\(evt\) => \{\n {8}const target = getEventTarget\(evt\);\n(?: {8}.*\n)*? {6}\}\),\n {6}sampling\.scroll \|\| 100\n {4}\)\n {2}\);\n {2}return on\("scroll", updatePosition, doc\);\n/m,
    replace:
      '  const positions = new WeakMap();\n  const updatePosition = throttle(\n    callbackWrapper((target) => {\n      if (isBlocked(target, blockClass, blockSelector, true)) {\n        return;\n      }\n      const [x, y] = positions.get(target);\n      scrollCb({ id: mirror2.getId(target), x, y });\n    }),\n    sampling.scroll || 100\n  );\n  return on("scroll", callbackWrapper((evt) => {\n    const target = getEventTarget(evt);\n    if (!target) {\n      return;\n    }\n    const page = target === doc && doc.defaultView && getWindowScroll(doc.defaultView);\n    positions.set(target, page ? [page.left, page.top] : [target.scrollLeft, target.scrollTop]);\n    updatePosition(target);\n  }), doc);\n',
  },
  {
    // A text node's mask is its parent element's, which was asked when the parent was serialized: handed down as
    // false, asking again (the parent's class and selector) can only answer false.
    what: 'serializeNodeWithId: a text node under an unmasked parent not asked again',
    find: /^ {2}if \(!needsMask\) \{\n {4}const checkAncestors = needsMask === void 0;\n/m,
    replace: '  if (!needsMask && (needsMask === void 0 || n.nodeType !== n.TEXT_NODE)) {\n    const checkAncestors = needsMask === void 0;\n',
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

/**
 * rrweb's TypeScript enums, emitted as objects built at start-up and read by
 * member name (`IncrementalSource.Mutation`). Each read becomes its number, as
 * TypeScript's const enums do, and the object goes. MouseInteractions stays
 * (as a plain object, edited above): rrweb lists its names.
 */
const INLINED_ENUMS = ['EventType', 'IncrementalSource', 'NodeType', 'PointerTypes', 'MediaInteractions']

function inlineEnum(source: string, name: string): string {
  const definition = new RegExp(`^var ${name} = /\\* @__PURE__ \\*/ \\(\\(${name}2\\) => \\{\\n((?: {2}.*\\n)*?) {2}return ${name}2;\\n\\}\\)\\(${name} \\|\\| \\{\\}\\);\\n`, 'm')
  const body = source.match(definition)?.[1] ?? ''
  const values = new Map(Array.from(body.matchAll(/^ {2}\w+\[\w+\["(\w+)"\] = (\d+)\] = "\1";$/gm), (m) => [m[1], m[2]]))
  if (!values.size || values.size !== body.split('\n').length - 1) throw new Error(`rrweb's enum ${name} not found as numbers: check the @rrweb/record version`)
  source = source.replace(definition, '').replace(new RegExp(`\\b${name}\\.(\\w+)\\b`, 'g'), (read, member: string) => {
    const value = values.get(member)
    if (value === undefined) throw new Error(`rrweb reads ${read}, which its enum does not have: check the @rrweb/record version`)
    return value
  })
  if (new RegExp(`\\b${name}\\b`).test(source)) throw new Error(`rrweb uses its enum ${name} other than by member: check the @rrweb/record version`)
  return source
}

/** The class-field edits hold only while no class extends another and no field shares a name with a member. */
function checkFieldsAssignable(source: string): void {
  const fields = new Set(Array.from(source.matchAll(/__publicField\(this, "(\w+)"/g), (m) => m[1]))
  const members = Array.from(source.matchAll(/^ {2}(?:get |set |static |async )?(\w+)\(.*\) \{$/gm), (m) => m[1])
  const clash = members.find((name) => fields.has(name)) ?? (/^class \w+ extends /m.test(source) ? 'a subclass' : undefined)
  if (clash) throw new Error(`rrweb's class fields are no longer plain assignments (${clash}): check the @rrweb/record version`)
}

/** rrweb's record bundle with every edit applied; exported for test/tracker/rrweb-edits.test.ts, which records with and without them. */
export function editRrweb(source: string): string {
  checkFieldsAssignable(source)
  for (const edit of rrwebEdits) {
    const every = edit.find.global
    const found = source.match(every ? edit.find : new RegExp(edit.find.source, edit.find.flags + 'g'))?.length ?? 0
    if (every ? found === 0 : found !== 1) throw new Error(`rrweb ${edit.what}: found ${found} times: check the @rrweb/record version`)
    source = every ? source.replace(edit.find, edit.replace) : source.replace(edit.find, () => edit.replace)
  }
  for (const name of INLINED_ENUMS) source = inlineEnum(source, name)
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
  // Unminified only for bench/tracker-profile.ts --functions, which lists the tracker's functions by name.
  minify: process.env.SVC_TRACKER_UNMINIFIED !== '1',
  // Only for `npm run coverage`, which maps what Chromium ran back to the sources (test/support/browser-coverage.ts).
  sourcemap: process.env.SVC_SOURCE_MAPS === '1',
  clean: false,
  silent: true,
  define: { __TRACKER_VERSION__: JSON.stringify(version) },
  esbuildPlugins: [trimRrweb],
  onSuccess: async () => void reportSizes(['dist/public/tracker.js', 'dist/public/stub.js', 'dist/public/capture.js']),
})
