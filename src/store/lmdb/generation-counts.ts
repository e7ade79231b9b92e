/**
 * How many pages, error messages and element names each project generation
 * of the aggregates holds, for their caps (aggregates/pages.ts, messages.ts,
 * elements.ts): read from the derived table once per fold transaction, then
 * tracked as the fold registers more. Real entries only for pages and
 * messages (their `(other)` entry aside); every name for elements, `(other)`
 * rows included.
 */
import { shortId } from '../aggregates/ids.js'
import { OTHER_MESSAGE } from '../aggregates/messages.js'
import { OTHER_PAGE } from '../aggregates/pages.js'
import { ALL_SCOPE, type Part } from './derived-keys.js'
import { MAX_KEY_PART } from './keys.js'
import type { Tables } from './tables.js'

export type Counted = 'pages' | 'messages' | 'names'

export class GenerationCounts {
  private readonly counts = new Map<string, number>()

  constructor(private readonly tables: Tables) {}

  /** How many `kind` the generation at `base` ([project, generation]) holds now. */
  of(base: Part[], kind: Counted): number {
    const id = `${base[0]}\u0000${base[1]}\u0000${kind}`
    let size = this.counts.get(id)
    if (size === undefined) this.counts.set(id, (size = this.read(base, kind)))
    return size
  }

  /** One more `kind` registered in this transaction. */
  added(base: Part[], kind: Counted): void {
    this.counts.set(`${base[0]}\u0000${base[1]}\u0000${kind}`, this.of(base, kind) + 1)
  }

  private read(base: Part[], kind: Counted): number {
    const [prefix, other] = kind === 'pages' ? [[...base, 'pg'], OTHER_PAGE] : kind === 'messages' ? [[...base, 'em', ALL_SCOPE], OTHER_MESSAGE] : [[...base, 'en'], undefined]
    const all = this.tables.derived.getKeysCount({ start: prefix, end: [...prefix, MAX_KEY_PART] })
    return other !== undefined && this.tables.derived.doesExist([...prefix, shortId(other)]) ? all - 1 : all
  }
}
