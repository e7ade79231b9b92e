/**
 * The API answers the dashboard reads, typed from the server's own schemas
 * (src/schemas/types.ts, the same ones /openapi.json documents): a schema
 * change fails this build wherever the dashboard disagrees with it.
 */
import type {
  HeatmapAnswer,
  Project,
  ProjectListAnswer,
  SessionSummary,
} from '../../src/schemas/types.js'
import { api } from './api.js'

export type {
  ApiKeyRow,
  AuditEntry,
  AuditListAnswer,
  BackfillStatus,
  Completeness,
  CountAnswer,
  Device,
  ElementRow,
  ElementsTopAnswer,
  FrictionItem,
  FrictionKind,
  FrictionListAnswer,
  HeatKind,
  InviteAnswer,
  InviteListAnswer,
  InviteRow,
  KeyCreatedAnswer,
  KeyListAnswer,
  MemberListAnswer,
  MemberRemoveAnswer,
  MemberRoleAnswer,
  MemberRow,
  PageRow,
  PagesListAnswer,
  Project,
  ProjectAnswer,
  RevokedAnswer,
  SessionChunksAnswer,
  SessionsEndedAnswer,
  SessionsListAnswer,
  SessionSummary,
  SetupTokenAnswer,
  SnippetAnswer,
} from '../../src/schemas/types.js'

export type Identity = NonNullable<SessionSummary['identity']>

/** A click-kind heatmap: the answer with its click members present. */
export type ClickHeatmap = HeatmapAnswer & Required<Pick<HeatmapAnswer, 'total' | 'maxCount' | 'cells'>> & { kind: 'click' | 'rage' | 'dead' }
/** A scroll map: the answer with its scroll members present. */
export type ScrollHeatmap = HeatmapAnswer & Required<Pick<HeatmapAnswer, 'views' | 'reached'>> & { kind: 'scroll' }
export type Heatmap = ClickHeatmap | ScrollHeatmap

let projects: Promise<Project[]> | undefined

/** The organisation's projects, fetched once and shared by every screen until `force`. */
export function loadProjects(force = false): Promise<Project[]> {
  if (force || !projects) {
    const pending = api.post<ProjectListAnswer>('/cli/projects.list').then((a) => a.projects)
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
  const found = (await loadProjects(force)).find((p) => p.id === projectId)
  // Made since the list was fetched (by the CLI, an install agent, another member): asked for again before "No such project".
  return found ?? (force ? undefined : (await loadProjects(true)).find((p) => p.id === projectId))
}
