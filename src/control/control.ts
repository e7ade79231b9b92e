/** Assembles the control worker: its operations, their authentication and the router. */
import type { Config } from '../config.js'
import { ApiError } from '../errors.js'
import type { Store } from '../store/store.js'
import { createRouter, type Operation } from './router.js'

export interface ControlDeps {
  store: Store
  config: Config
}

export function createControl(deps: ControlDeps) {
  const operations: Operation<any>[] = []
  return createRouter(operations, (_req, _query, credential) => {
    if (credential === 'none') return undefined
    throw new ApiError('unauthorized')
  })
}
