/**
 * The signed-in member's role (docs/security.md, roles), for screens to offer
 * only what it allows: the server refuses the rest (403 forbidden) anyway, so
 * this only spares a viewer buttons that would fail.
 */
import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { User } from './api.js'

export type Role = User['role']

const RANK: Record<Role, number> = { viewer: 0, admin: 1, owner: 2 }

export const RoleContext = createContext<Role>('viewer')

/** Whether the signed-in member's role is `min` or above. */
export function useCan(min: Role): boolean {
  return RANK[useContext(RoleContext)] >= RANK[min]
}
