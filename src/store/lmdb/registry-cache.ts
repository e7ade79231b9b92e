/**
 * What one store instance knows to be committed in the aggregates'
 * registries, so that a fold need not look again. Kept per instance, not per
 * thread: the ids are by project and generation, not by environment, so a
 * cache shared by two stores opened in one thread (tests, a rebuild) would
 * make the second skip registry writes its own environment never had.
 */
import type { ElementName } from './derived-keys.js'

/** Entries past which a cache starts afresh: a bound on memory, not a correctness limit. */
const REGISTERED_ENTRIES = 100_000
const NAME_ENTRIES = 50_000

export class RegistryCache {
  /**
   * Pages and messages known to be in their generation's registries: registry
   * entries are never removed but with their whole generation (whose number
   * is in the id), so a hit is never stale.
   */
  private readonly registered = new Set<string>()

  /**
   * Element names as this store last read them (committed). A label another
   * process wrote meanwhile is overwritten only when this one sees a different
   * label: either way the registry holds a label recently seen.
   */
  private readonly names = new Map<string, ElementName>()

  isRegistered(id: string): boolean {
    return this.registered.has(id)
  }

  /** After reading the entry: it is committed. */
  noteRegistered(id: string): void {
    if (this.registered.size >= REGISTERED_ENTRIES) this.registered.clear()
    this.registered.add(id)
  }

  nameOf(id: string): ElementName | undefined {
    return this.names.get(id)
  }

  /** After reading the name: it is committed. */
  noteName(id: string, name: ElementName): void {
    if (this.names.size >= NAME_ENTRIES) this.names.clear()
    this.names.set(id, name)
  }
}
