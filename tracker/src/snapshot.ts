/**
 * rrweb's full snapshot, taken in time slices (issue 33). rrweb serializes the
 * whole document in one task: 174 to 394 ms on a page of 10,000 elements, at
 * the start, at every checkpoint and at every page view. The build's edit of
 * rrweb (tracker/tsup.config.ts) hands that walk to `walk` here, with the
 * options rrweb would have given its snapshot(). The walk serializes node by
 * node with rrweb's own serializeNodeWithId (children left to the walk), in
 * rrweb's order and with its ids, and yields to the page every
 * SNAPSHOT_SLICE_MS; the recorder then scrubs the tree, and rrweb emits Meta
 * and the full snapshot, each in a task of its own. A page of up to
 * SNAPSHOT_SMALL_PAGE elements, or a hidden one, is done in one go, as before.
 *
 * Why the replay stays right while the page changes under the walk: rrweb's
 * mutation buffers stay locked throughout (and so does any buffer created
 * meanwhile, through the edit), as for its own snapshot, so every change is
 * emitted after the full snapshot, against ids it holds. A node is taken as it
 * is when the walk reaches it; one its parent no longer holds by then is not
 * taken, nor anything under it; one that a buffer holds as added or moved is
 * left to that buffer, which emits it as an add once unlocked (taking it here
 * as well would put it in the replay twice). The recorder holds rrweb's other
 * events (input, mouse, scroll) until the full snapshot is out.
 */
import { listen, type Guard } from './guard.js'

/** rrweb's serialized node, as far as the walk reads it. */
export interface SerializedNode {
  type: number
  tagName?: string
  attributes?: Record<string, unknown>
  childNodes?: SerializedNode[]
}

/** rrweb's MutationBuffer, as far as the walk uses it. */
interface MutationBuffer {
  addedSet: Set<Node>
  movedSet: Set<Node>
  lock(): void
  unlock(): void
}

/** snapshot()'s options, as rrweb's takeFullSnapshot passes them. */
type SnapshotOptions = Record<string, any> & { onSerialize(node: Node): void }

/** The edit makes rrweb's serializeNodeWithId call onSerialize with what it computed for the node's children. */
type Serialize = (node: Node, options: Record<string, unknown>) => SerializedNode | null

/** What the edited rrweb reads on `record`: the walk it hands the snapshot to, and whether one is under way. */
export interface Slicing {
  walk(doc: Document, options: SnapshotOptions, buffers: MutationBuffer[], serialize: Serialize, done: (tree: SerializedNode) => void): void
  walking: boolean
}

/** A node to serialize, the node that held it when its parent was serialized, that parent's serialized form, and the options for it. */
type Step = [Node, Node | null, SerializedNode | null, Record<string, unknown>]

const DOCUMENT = 0
const ELEMENT = 2

/** What the walker is told and tells. */
export interface WalkerOptions {
  /** A slice's length (SNAPSHOT_SLICE_MS). */
  sliceMs: number
  /** A page of this many elements or fewer is walked in one go (SNAPSHOT_SMALL_PAGE). */
  smallPage: number
  /** The tree is whole: the recorder scrubs it here, in a task of its own, rather than when rrweb emits it. */
  ready(tree: SerializedNode): void
  /** A walk ended (main-thread time in all, its longest task), after rrweb emitted the snapshot and the changes made meanwhile, or after a fault left it without a tree. */
  end(workMs: number, longestMs: number): void
}

/** `hooks` is rrweb's `record`, where the edited takeFullSnapshot finds `walk`. */
export function createWalker(guard: Guard, hooks: Slicing, { sliceMs, smallPage, ready, end }: WalkerOptions) {
  let walk = 0
  let buffers: MutationBuffer[] = []
  /** The walk under way's next step; `all` takes the rest in one go. */
  let next = (all?: boolean) => {}
  const channel = new MessageChannel()
  channel.port1.onmessage = guard.wrap(() => next())
  const later = () => channel.port2.postMessage(0)
  /** Ends the walk under way: with a tree, rrweb emits it and then unlocks; without, the buffers are unlocked while the recorder still holds. */
  const finish = (done?: () => void) => {
    walk++
    if (done) hooks.walking = false
    ;(done || (() => buffers.forEach((b) => b.unlock())))()
    hooks.walking = false
  }
  // Hidden or leaving (pagehide comes before its visibilitychange): nobody waits for the page, and a page left
  // mid-walk keeps its snapshot. The rest now, before the tracker's own listeners flush.
  listen(guard, window, 'pagehide', () => next(true))
  listen(guard, document, 'visibilitychange', () => document.visibilityState === 'hidden' && next(true))

  hooks.walk = (doc, options, mutationBuffers, serialize, done) => {
    buffers = mutationBuffers
    hooks.walking = true
    let work = 0
    let longest = 0
    const slim = options.slimDOM || {}
    // What rrweb computed for the node just serialized that its children inherit, through the edited onSerialize.
    let seen: [boolean, boolean] | undefined
    const base = {
      ...options,
      doc,
      skipChild: true,
      maskInputOptions: options.maskAllInputs,
      slimDOMOptions: slim,
      onSerialize(node: Node, needsMask: boolean, needBlock: boolean) {
        seen = [needsMask, needBlock]
        options.onSerialize(node)
      },
    }
    // The options a node's children get, by what they inherit (rrweb builds these per parent; eight suffice).
    const inherited: Record<number, Record<string, unknown>> = {}
    const childOptions = (needsMask: boolean, preserveWhiteSpace: boolean, cssCaptured: boolean) =>
      (inherited[+needsMask * 4 + +preserveWhiteSpace * 2 + +cssCaptured] ||= { ...base, needsMask, preserveWhiteSpace, cssCaptured })
    const steps: Step[] = [[doc, null, null, base]]
    const push = (parent: Node, sn: SerializedNode, opts: Record<string, unknown>) => {
      const children = parent.childNodes
      for (let i = children.length; i--; ) steps.push([children[i], parent, sn, opts])
    }
    const delivered = (node: Node) => buffers.some((b) => (b.addedSet.size || b.movedSet.size) && (b.addedSet.has(node) || b.movedSet.has(node)))
    let root: SerializedNode | null = null
    const id = ++walk

    /** Serializes nodes until `deadline`. */
    const slice = (deadline: number) => {
      let step: Step | undefined
      let count = 0
      while ((step = steps.pop())) {
        const [node, holder, parentSn, opts] = step
        if (parentSn && (node.parentNode !== holder || delivered(node))) continue
        seen = undefined
        const known = buffers.length
        const sn = serialize(node, opts)
        // A shadow root met on the way gets a buffer of its own: locked like the others.
        for (let i = known; i < buffers.length; i++) buffers[i].lock()
        if (!sn) continue
        if (parentSn) parentSn.childNodes!.push(sn)
        else root = sn
        if (seen && !seen[1] && (sn.type === DOCUMENT || sn.type === ELEMENT)) {
          const attributes = sn.attributes || {}
          const own = childOptions(seen[0], opts.preserveWhiteSpace !== false && !(slim.headWhitespace && sn.tagName === 'head'), typeof attributes._cssText === 'string')
          // Pushed in reverse, popped in order: the light children, then the shadow root's (rrweb's order).
          const shadow = (node as Element).shadowRoot
          if (shadow) push(shadow, sn, own)
          if (!(sn.tagName === 'textarea' && attributes.value !== undefined)) push(node, sn, own)
        }
        // The clock every 16 nodes: a fraction of a millisecond of them once compiled, a few ms before.
        if (!(++count & 15) && performance.now() >= deadline) break
      }
    }

    // Slices until the tree is whole, then the recorder's scrub, then rrweb's emission (a few ms per thousand
    // nodes: stringified, walked for stylesheets): each step a task of its own, but all at once when `all`.
    let stage = 0
    next = (all) => {
      if (id !== walk) return
      const started = performance.now()
      do {
        try {
          if (stage === 0) slice(all ? Infinity : started + sliceMs)
          else if (stage === 1) {
            stage = 2
            if (root) ready(root)
          } else {
            stage = 3
            all = false
            finish(root ? () => done(root!) : undefined)
          }
        } catch (error) {
          // rrweb's own snapshot would have thrown out of record(): this one goes on to its end without a tree.
          steps.length = 0
          root = null
          guard.fault(error)
        }
        if (!stage && !steps.length) stage = 1
      } while (all)
      const ms = performance.now() - started
      work += ms
      longest = Math.max(longest, ms)
      if (stage < 3) later()
      else end(work, longest)
    }
    // A small page is done at once, as by rrweb's own snapshot, and so is a hidden one. A larger one starts after
    // the page's next frame: not in the task that asked (the tracker's start, long already), nor on a layout left
    // to redo (the first scroll position read would force it into the slice).
    if (doc.getElementsByTagName('*').length <= smallPage || document.visibilityState === 'hidden') guard.run(() => next(true))
    else requestAnimationFrame(later)
  }

  return {
    get busy() {
      return hooks.walking
    },
    /** Drops the walk under way (rrweb stops): what its buffers held comes out while the recorder still holds, to be dropped with the rest. */
    cancel() {
      if (hooks.walking) finish()
    },
  }
}
