/**
 * Whom an erasure names, and how a scan recognises it (issue 42). A request
 * for a session, visitor or user is recorded by a keyed hash of the id, never
 * the id: in the cluster mode the request is a control entry the log keeps for
 * its life and every rebuilt node reads again, and a finished erasure must not
 * say whom it erased. The key is the erasure-id key (src/recordings/erasure-ids.ts),
 * the same on every node, so a scan hashes each session's or batch's id and
 * compares. Requests recorded before, in the clear, still match as they did.
 */
import { createHmac } from 'node:crypto'
import type { ErasureSubject, HashedSubject, SubjectField } from './erasure-store.js'

/**
 * The keyed hash of one id: 128 bits of an HMAC naming its project and field, so
 * the same user id in two projects hashes apart. The `subject` prefix keeps it
 * apart from the erasure ids and confirmations made with the same key.
 */
export function subjectHash(key: Buffer, projectId: string, field: SubjectField, value: string): string {
  return createHmac('sha256', key).update(`subject\u0000${projectId}\u0000${field}\u0000${value}`).digest().subarray(0, 16).toString('base64url')
}

/** The subject as a request records it: a session, visitor or user by keyed hash; a query or a project as they are. */
export function hashSubject(key: Buffer, projectId: string, by: ErasureSubject): ErasureSubject {
  for (const field of ['sessionKey', 'visitorId', 'userId'] as const) {
    if (field in by) return { hashOf: field, hash: subjectHash(key, projectId, field, (by as Record<SubjectField, string>)[field]) } satisfies HashedSubject
  }
  return by
}

interface SessionFields {
  sk: string
  vid: string
  startedAt: number
  identity?: { userId?: string }
  pages: { page: string }[]
}

/** Recognises a request's sessions and batches during a scan; one per scan, for one project. */
export class SubjectMatch {
  constructor(
    private readonly projectId: string,
    private readonly by: ErasureSubject,
    private readonly key?: Buffer,
  ) {
    if ('hashOf' in by && !key) throw new Error(`the erasure names its ${by.hashOf} by keyed hash: matching it needs the erasure-id key`)
  }

  /** Whether `value` is the id the request names as `field` (hashed under the key, or in the clear for an older request). */
  private names(field: SubjectField, value: string | undefined): boolean {
    if (value === undefined) return false
    const by = this.by
    if ('hashOf' in by) return by.hashOf === field && subjectHash(this.key!, this.projectId, field, value) === by.hash
    return field in by && (by as Record<SubjectField, string>)[field] === value
  }

  /** Whether a session record is one the request names. */
  session(session: SessionFields): boolean {
    const by = this.by
    if ('project' in by) return true
    if ('query' in by) {
      const { from, until, page } = by.query
      if (session.startedAt < from || session.startedAt >= until) return false
      return page === undefined || session.pages.some((p) => p.page === page)
    }
    return this.names('sessionKey', session.sk) || this.names('visitorId', session.vid) || this.names('userId', session.identity?.userId)
  }

  /** Whether a signals batch names the request's subject by itself (a batch may arrive for a session whose chunks never did). */
  batch(batch: { sk: string; vid: string }): boolean {
    if ('project' in this.by) return true
    return this.names('sessionKey', batch.sk) || this.names('visitorId', batch.vid)
  }
}
