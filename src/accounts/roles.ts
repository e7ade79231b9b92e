/**
 * Roles of an organisation's members (issue 34): what each may do is the
 * `minRole` every operation declares in its own table entry (src/control/operations/),
 * checked once where the router authenticates. The ranks are ordered: an
 * owner may do whatever an admin may, an admin whatever a viewer may.
 */
import type { Store, UserRecord } from '../store/store.js'
import { ownerOf } from './credentials.js'

export const ROLES = ['viewer', 'admin', 'owner'] as const

export type Role = (typeof ROLES)[number]

/** The roles the owner hands out with members.role; ownership itself is not passed on this way. */
export const ASSIGNABLE_ROLES = ['admin', 'viewer'] as const satisfies readonly Role[]

export function roleAllows(role: Role, minRole: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minRole)
}

/**
 * A member's role. Records from before roles say `member` (or, the oldest ones, nothing): those members
 * become admins, who may do all a member could, and the organisation's first user stays its owner.
 */
export function roleOf(store: Pick<Store, 'listUsers'>, user: UserRecord): Role {
  if (user.role === 'owner' || user.role === 'admin' || user.role === 'viewer') return user.role
  if (user.role === 'member') return 'admin'
  return ownerOf(store.listUsers(user.orgId))?.id === user.id ? 'owner' : 'admin'
}
