/**
 * What may leave the page (contract, section 1, rule 8):
 * - `input[type=password]` is always masked, and so is any field that ever was
 *   one (a "show password" toggle turns it into a text field) or that the
 *   browser autocompletes with a password or card number;
 * - `.svc-mask` / `[data-svc-mask]`, on the element or an ancestor: every
 *   character starred, the element kept (so the replay still shows the field);
 * - `.svc-block` / `[data-svc-block]`: the element is left out (rrweb records a
 *   same-sized placeholder);
 * - `.svc-ignore`: input events on the field are not recorded.
 *
 * rrweb masks input values and text through the options below. It does not
 * mask attributes, so `scrubEvent` stars the value-bearing attributes
 * (placeholder, title, aria-label, …) of masked elements in every event that
 * carries them: the full snapshot, added nodes and attribute changes.
 */
export const MASK_SELECTOR = '.svc-mask,[data-svc-mask]'
export const BLOCK_SELECTOR = '.svc-block,[data-svc-block]'
export const BLOCK_CLASS = 'svc-block'
export const IGNORE_CLASS = 'svc-ignore'
/** rrweb checks `target.matches(ignoreSelector)` on the event target only; this adds the data attribute and descendants. */
export const IGNORE_SELECTOR = '[data-svc-ignore],.svc-ignore *,[data-svc-ignore] *'

/** Attributes that can carry what a masked element shows or holds. */
const VALUE_ATTRIBUTES = ['value', 'placeholder', 'title', 'alt', 'aria-label', 'aria-valuetext', 'aria-placeholder', 'aria-description', 'label', 'data-value']
const SENSITIVE_AUTOCOMPLETE = /password|cc-|one-time-code/i

const wasPassword = new WeakSet<Element>()

export const star = (text: string) => text.replace(/\S/g, '*')

function sensitiveField(el: Element): boolean {
  if (el.tagName === 'INPUT' && (el as HTMLInputElement).type === 'password') wasPassword.add(el)
  return wasPassword.has(el) || SENSITIVE_AUTOCOMPLETE.test(el.getAttribute('autocomplete') || '')
}

/** Whether what `el` holds or shows must be starred. */
export function isMasked(el: Element | null): boolean {
  if (!el) return false
  return sensitiveField(el) || !!el.closest(MASK_SELECTOR)
}

export function isBlocked(el: Element | null): boolean {
  return !!el && !!el.closest(BLOCK_SELECTOR)
}

/** rrweb's maskInputFn: called for every input, textarea and select value (see recorder.ts). */
export const maskInput = (text: string, el: HTMLElement) => (isMasked(el) ? star(text) : text)

// ---- scrubbing serialized events (rrweb's node and event shapes) ----

interface SerializedNode {
  type: number
  id: number
  tagName?: string
  attributes?: Record<string, unknown>
  childNodes?: SerializedNode[]
}

const ELEMENT = 2

function starAttributes(attributes: Record<string, unknown>): void {
  for (const name of VALUE_ATTRIBUTES) {
    const value = attributes[name]
    if (typeof value === 'string' && value) attributes[name] = star(value)
  }
}

function selfMasked(node: SerializedNode): boolean {
  const attributes = node.attributes || {}
  const cls = attributes.class
  // Each test is tried only where it can hold: this runs for every element of a snapshot.
  return (
    (typeof cls === 'string' && cls.includes('svc-mask') && ` ${cls} `.includes(' svc-mask ')) ||
    'data-svc-mask' in attributes ||
    (node.tagName === 'input' && String(attributes.type).toLowerCase() === 'password') ||
    (!!attributes.autocomplete && SENSITIVE_AUTOCOMPLETE.test(String(attributes.autocomplete)))
  )
}

function scrubTree(node: SerializedNode, inherited: boolean, lookup: (id: number) => Node | null): void {
  let masked = inherited
  if (node.type === ELEMENT && node.attributes) {
    if (node.tagName === 'input' && String(node.attributes.type).toLowerCase() === 'password') {
      // Remember the live field: if a "show password" toggle later makes it a text field, it stays masked.
      const live = lookup(node.id)
      if (live) wasPassword.add(live as Element)
    }
    masked = masked || selfMasked(node)
    if (masked) starAttributes(node.attributes)
  }
  for (const child of node.childNodes || []) scrubTree(child, masked, lookup)
}

/**
 * Stars value-bearing attributes of masked elements in one rrweb event, in
 * place. `lookup` maps a recorded node id to the live node (rrweb's mirror), so
 * that an element added under a masked ancestor is masked too.
 */
export function scrubEvent(event: any, lookup: (id: number) => Node | null): void {
  if (event.type === 2) {
    // Full snapshot: masked-ness is inherited down the serialized tree.
    scrubTree(event.data.node, false, lookup)
  } else if (event.type === 3 && event.data.source === 0) {
    // Mutation: added nodes and changed attributes.
    for (const add of event.data.adds || []) {
      const parent = lookup(add.parentId) as Element | null
      scrubTree(add.node, isMasked(parent && parent.nodeType === 1 ? parent : parent?.parentElement ?? null), lookup)
    }
    for (const change of event.data.attributes || []) {
      const el = lookup(change.id) as Element | null
      if (el && el.nodeType === 1 && (isMasked(el) || selfMasked({ type: ELEMENT, id: change.id, tagName: el.tagName.toLowerCase(), attributes: change.attributes }))) {
        starAttributes(change.attributes)
      }
    }
  }
}
