/** The part of the store that keeps projects: their settings, their public keys, their totals. */
import type { NewProject, ProjectRecord, ProjectStats } from './records.js'

export type ProjectPatch = Partial<Pick<ProjectRecord, 'name' | 'domain' | 'pathRules' | 'capture' | 'retentionDays'>>

export interface ProjectStore {
  /** On the ingest hot path: synchronous, and cheap (LMDB: a memory-mapped read, microseconds). */
  projectIdForPublicKey(publicKey: string): string | undefined
  /** Without a quota (an operator's or a test's project): always created. */
  createProject(project: NewProject): Promise<ProjectRecord>
  /** Undefined when the organisation already has `maxPerOrg` projects (decided in the transaction that writes it). */
  createProject(project: NewProject, maxPerOrg: number | null): Promise<ProjectRecord | undefined>
  getProject(id: string): ProjectRecord | undefined
  /** The organisation's projects, oldest first. */
  listProjects(orgId: string): ProjectRecord[]
  updateProject(id: string, patch: ProjectPatch): Promise<ProjectRecord | undefined>
  projectStats(projectId: string): ProjectStats
}
