/**
 * Keeping masked values out of console and network events (capture.js). What
 * the page logs or requests is arbitrary, so the element itself cannot be
 * asked whether it is masked: instead the values the visitor typed into
 * password, masked, blocked or ignored fields (and the text of masked
 * elements) are collected when an event is recorded, and every occurrence of
 * one is starred wherever it appears in the event. Logging an element shows
 * its tag, id and classes, never its value or text.
 */
import { SECRET_MIN_CHARS } from './config.js'
import { BLOCK_SELECTOR, IGNORE_SELECTOR, isMasked, MASK_SELECTOR, star } from './mask.js'

const HIDDEN = `${BLOCK_SELECTOR},.svc-ignore,${IGNORE_SELECTOR}`

/** The masked strings on the page now, longest first (a secret inside a longer one is starred with it). */
export function collectSecrets(): string[] {
  const found = new Set<string>()
  const add = (text: string | null | undefined) => {
    const value = (text || '').trim()
    if (value.length >= SECRET_MIN_CHARS) found.add(value)
  }
  for (const field of Array.from(document.querySelectorAll<HTMLInputElement>('input,textarea,select'))) {
    if (isMasked(field) || field.closest(HIDDEN)) add(field.value)
  }
  for (const el of Array.from(document.querySelectorAll(MASK_SELECTOR))) if (!/^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)) add(el.textContent)
  return Array.from(found).sort((a, b) => b.length - a.length)
}

export function scrub(text: string, secrets: readonly string[]): string {
  for (const secret of secrets) if (text.includes(secret)) text = text.split(secret).join(star(secret))
  return text
}

/** An element as devtools names it (`input#email.field`): never its value, text or other attributes. */
export function describeNode(node: Node): string {
  if (node.nodeType !== 1) return node.nodeName.toLowerCase()
  const el = node as Element
  const classes = typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\s+/).join('.') : ''
  return `<${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${classes}>`
}
