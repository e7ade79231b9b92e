/**
 * What a click was on: a selector that stays the same across deploys and
 * visitors (heatmaps and the element leaderboard group by it), the visible
 * label, masked where the element is masked, and whether it looked clickable.
 */
import { LABEL_CHARS, MAX_TEXT, SELECTOR_DEPTH } from './config.js'
import { isBlocked, isMasked, MASK_SELECTOR, BLOCK_SELECTOR, star } from './mask.js'

/** Elements that are clickable by nature or by role. */
const INTERACTIVE =
  'a[href],button,input,select,textarea,label,summary,[role=button],[role=link],[role=menuitem],[role=tab],[role=checkbox],[role=radio],[role=switch],[role=option],[onclick],[tabindex]:not([tabindex="-1"])'
/** Fields: clicking them only focuses them, so "nothing happened" is no sign of a dead click. */
const FIELD = 'input:not([type=button]):not([type=submit]):not([type=reset]):not([type=image]),select,textarea,label'
const TEST_ATTRIBUTES = ['data-testid', 'data-test', 'data-test-id', 'data-cy']
/** Classes that say what state an element is in, not what it is. */
const STATE_CLASS = /^(is-|has-)|^(active|focus|focused|hover|open|opened|selected|disabled|visible|hidden|show|shown|collapsed|expanded|checked|current)$/

/**
 * A generated name: CSS-in-JS and CSS-modules hashes (`css-1x2y3z`,
 * `sc-bdVaJa`, `Button_primary__3xYz9`, `jsx-123456`) and other names with a
 * run of letters and digits that no person typed. A short number (`col-6`,
 * `mt-4`, `h1`) is a design-system name and is kept.
 */
export function isGenerated(name: string): boolean {
  if (name.length > 40) return true
  // CSS-in-JS prefixes (emotion, styled-components, styled-jsx, svelte).
  if (/^(css|sc|jsx|svelte|emotion|styled)-/i.test(name)) return true
  // CSS modules: `Block_name__hash`.
  if (name.includes('__') && /\d/.test(name)) return true
  // styled-components' second class: a short run of letters with two or more case flips (`bdVaJa`).
  if (/^[a-zA-Z]{5,8}$/.test(name) && /[a-z][A-Z].*[a-z][A-Z]/.test(name)) return true
  // Design-system numbers (`col-6`, `mt-4`, `h1`) are names; digits mixed into letters otherwise are a hash.
  const core = name.replace(/(^|-)\d{1,2}(?=-|$)/g, '').replace(/^[a-z]{1,2}\d$/i, '')
  return /\d/.test(core) && /[a-z]/i.test(core)
}

const cssEscape = (value: string) => (typeof CSS !== 'undefined' && CSS.escape ? CSS.escape(value) : value.replace(/[^\w-]/g, (c) => '\\' + c))

/** The element a click meant: the nearest interactive ancestor (a span inside a button means the button). */
export function clickTarget(target: Element): { el: Element; interactive: boolean; field: boolean } {
  const interactive = target.closest(INTERACTIVE)
  if (interactive) return { el: interactive, interactive: true, field: interactive.matches(FIELD) }
  let pointer = false
  try {
    pointer = getComputedStyle(target).cursor === 'pointer'
  } catch {
    // not an element with a style (SVG in some browsers): not pointer-styled
  }
  return { el: target, interactive: pointer, field: false }
}

function anchor(el: Element): string | undefined {
  const id = el.id
  if (id && !isGenerated(id) && !/^:|^\d/.test(id)) return '#' + cssEscape(id)
  for (const name of TEST_ATTRIBUTES) {
    const value = el.getAttribute(name)
    if (value) return `[${name}="${value.replace(/["\\]/g, '\\$&')}"]`
  }
  return undefined
}

function step(el: Element): string {
  const tag = el.tagName.toLowerCase()
  const classes: string[] = []
  for (const name of Array.from(el.classList)) {
    if (classes.length === 2) break
    if (!name.startsWith('svc-') && !STATE_CLASS.test(name) && !isGenerated(name)) classes.push('.' + cssEscape(name))
  }
  let part = tag + classes.join('')
  const parent = el.parentElement
  if (parent) {
    const same = Array.from(parent.children).filter((c) => c.tagName === el.tagName)
    if (same.length > 1) part += `:nth-of-type(${same.indexOf(el) + 1})`
  }
  return part
}

/** The shortest path of stable steps up to an id or test attribute (or SELECTOR_DEPTH steps). */
export function selectorOf(el: Element): string {
  const parts: string[] = []
  let node: Element | null = el
  while (node && node.nodeType === 1 && parts.length < SELECTOR_DEPTH) {
    const stable = anchor(node)
    if (stable) {
      parts.unshift(stable)
      break
    }
    if (node === document.body || node === document.documentElement) {
      parts.unshift(node.tagName.toLowerCase())
      break
    }
    parts.unshift(step(node))
    node = node.parentElement
  }
  let selector = parts.join(' > ')
  while (selector.length > MAX_TEXT && parts.length > 1) {
    parts.shift()
    selector = parts.join(' > ')
  }
  return selector.slice(0, MAX_TEXT)
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim()

/**
 * The visible label: an explicit accessible name, a button's value, or the
 * element's text. Text inside a masked element is starred, text inside a
 * blocked one left out, and a field's typed value is never used.
 */
export function labelOf(el: Element): string | undefined {
  if (isBlocked(el)) return undefined
  const masked = isMasked(el)
  const finish = (text: string | null | undefined) => {
    const label = squash(text || '').slice(0, LABEL_CHARS)
    return label ? (masked ? star(label) : label) : undefined
  }
  const aria = el.getAttribute('aria-label') || el.getAttribute('title')
  if (aria) return finish(aria)
  if (el.tagName === 'INPUT') {
    const input = el as HTMLInputElement
    if (/^(button|submit|reset)$/.test(input.type)) return finish(input.value)
    return finish(input.placeholder || input.name)
  }
  if (el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return finish(el.getAttribute('placeholder') || el.getAttribute('name'))
  if (el.tagName === 'IMG') return finish(el.getAttribute('alt'))
  let text = ''
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT)
  for (let node = walker.nextNode(); node && text.length < LABEL_CHARS; node = walker.nextNode()) {
    const parent = node.parentElement
    if (!parent || parent.closest('script,style,noscript,template') || parent.closest(BLOCK_SELECTOR)) continue
    const value = node.nodeValue || ''
    text += ' ' + (parent.closest(MASK_SELECTOR) ? star(value) : value)
  }
  return finish(text)
}
