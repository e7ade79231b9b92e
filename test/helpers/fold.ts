import type { Store } from '../../src/store/store.js'

/** Folds every pending signals batch into the aggregates, as the fold thread would by now. */
export async function foldAll(store: Store): Promise<void> {
  while ((await store.applyDerivations()) > 0);
}
