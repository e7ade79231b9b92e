/**
 * Shapes of the API answers the dashboard reads, as documented in
 * /openapi.json (projects: section 2 of the contract; the read API).
 * Fields the dashboard can do without are optional, so that an older server
 * shows less rather than breaks.
 */
import { api } from './api.js'

export interface Project {
  id: string
  name: string
  domain: string | null
  publicKey: string
  sessionCount: number
  createdAt?: number
  pathRules?: string[]
}

export interface Snippet {
  snippet: string
  publicKey: string
  trackerUrl: string
}

export interface ApiKeyRow {
  keyId: string
  label?: string
  createdAt: number
  lastUsedAt: number | null
  masked: string
}

export interface InviteRow {
  inviteId: string
  status: 'pending' | 'used' | 'revoked' | 'expired'
  createdAt: number
  expiresAt: number
  invitedBy: string | null
  usedAt?: number
  revokedAt?: number
}

export interface MemberRow {
  userId: string
  email: string
  role: 'owner' | 'member'
  joinedAt: number
  lastSignInAt: number | null
  invitedBy: string | null
  you: boolean
}

export interface Identity {
  userId?: string
  email?: string
  name?: string
  accountId?: string
}

export interface SessionRow {
  sessionKey: string
  visitorId?: string
  identity?: Identity | null
  startedAt: number
  lastActivityAt?: number
  durationMs?: number
  activeMs?: number
  pageCount?: number
  /** Page views of the recording: `page` is the page key (pages.list `key`). */
  pages?: { pageIndex: number; url: string; page: string }[]
  chunkCount?: number
  bytes?: number
  eventCount?: number
  entryUrl?: string
  clicks?: number
  rage?: number
  dead?: number
  errorClicks?: number
  errors?: number
  purged?: boolean
  viewport?: { w?: number; h?: number }
}

export interface SessionPage {
  sessions: SessionRow[]
  nextCursor?: string | null
}

// The friction feed's items as the read API answers them (type only: nothing of the store reaches the bundle).
export type { FrictionItem, FrictionKind } from '../../src/store/insights.js'
import type { FrictionItem } from '../../src/store/insights.js'

export interface FrictionPage {
  items: FrictionItem[]
  nextCursor?: string | null
}

export interface ElementsAnswer {
  elements: ElementRow[]
}

export interface ElementRow {
  page: string
  selector: string
  label?: string
  tag?: string
  clicks: number
  rage: number
  dead: number
  errors: number
  share: number
}

export interface PageRow {
  /** Display path, `/{tenant}/settings/:id`: the same path on every host of the project. */
  page: string
  /** `host` + display path. */
  key?: string
  host?: string
  path?: string
  sessions: number
  views: number
  avgActiveMs?: number | null
  avgScrollPct?: number | null
  exitRate?: number | null
  quickBackRate?: number | null
  errors?: number
  clicks?: number
}

export type HeatKind = 'click' | 'rage' | 'dead' | 'scroll'
export type Device = 'desktop' | 'tablet' | 'mobile'

export interface ClickHeatmap {
  kind: 'click' | 'rage' | 'dead'
  total: number
  maxCount: number
  /** [xBin, yBin, count] */
  cells: [number, number, number][]
  xBins?: number
  yBinPx?: number
}

export interface ScrollHeatmap {
  kind: 'scroll'
  views: number
  /** reached[d]: share (0 to 1) of the views whose deepest scroll was at least d percent of the page, d from 0 to 100. */
  reached: number[]
}

export type Heatmap = ClickHeatmap | ScrollHeatmap

let projects: Promise<Project[]> | undefined

/** The organisation's projects, fetched once and shared by every screen until `force`. */
export function loadProjects(force = false): Promise<Project[]> {
  if (force || !projects) {
    const pending = api.post<{ projects: Project[] }>('/cli/projects.list').then((a) => a.projects)
    pending.catch(() => {
      if (projects === pending) projects = undefined
    })
    projects = pending
  }
  return projects
}

export function forgetProjects(): void {
  projects = undefined
}

export async function loadProject(projectId: string, force = false): Promise<Project | undefined> {
  return (await loadProjects(force)).find((p) => p.id === projectId)
}
