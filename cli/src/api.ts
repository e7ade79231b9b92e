/**
 * Calls to the service's API (the same routes as everyone, no private
 * surface): POST with JSON, bearer credential, and every error turned into a
 * CliError carrying the server's code and hint.
 */
import type { IncomingMessage } from 'node:http'
import type { Project, ProjectListAnswer } from '../../src/schemas/types.js'
import { apiBase } from './config.js'
import { CliError } from './errors.js'
import { open, readAll } from './http.js'

export interface Api {
  url: string
  /** POSTs `body` (or nothing) to `route` and returns the parsed JSON answer. */
  call<T = any>(route: string, body?: unknown): Promise<T>
  /** POSTs and returns the successful response with its body unread (for streams). */
  stream(route: string, body: unknown): Promise<IncomingMessage>
  /** GETs a public artifact (no credential). */
  get(route: string): Promise<IncomingMessage>
  endpoint(route: string): string
}

export function createApi(url: string, apiKey?: string): Api {
  const base = apiBase(url)
  const endpoint = (route: string) => `${base}${route}`
  const headers = (hasBody: boolean): Record<string, string> => ({
    accept: 'application/json',
    ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    ...(hasBody ? { 'content-type': 'application/json' } : {}),
  })

  async function post(route: string, body: unknown): Promise<IncomingMessage> {
    const target = endpoint(route)
    const res = await open(target, { method: 'POST', headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) })
    if (res.statusCode! >= 200 && res.statusCode! < 300) return res
    throw await failure(res, target)
  }

  return {
    url,
    endpoint,
    async call(route, body) {
      const target = endpoint(route)
      const res = await post(route, body)
      const text = (await readAll(res, target)).toString('utf8')
      try {
        return JSON.parse(text)
      } catch {
        throw new CliError('bad_response', `${target} did not answer JSON.`, { hint: 'Is --url the address of this service?' })
      }
    },
    stream: post,
    async get(route) {
      const target = endpoint(route)
      const res = await open(target)
      if (res.statusCode === 200) return res
      throw await failure(res, target)
    },
  }
}

/** The project of that id in the caller's organisation, or not_found. */
export async function findProject(api: Api, projectId: string): Promise<Project> {
  const { projects } = await api.call<ProjectListAnswer>('/cli/projects.list')
  const project = projects.find((p) => p.id === projectId)
  if (!project) throw new CliError('not_found', `No project ${projectId} in your organisation.`, { hint: 'List your projects with `svc projects list`.' })
  return project
}

/** The server's error body as a CliError; anything else (a proxy's HTML page) as bad_response. */
async function failure(res: IncomingMessage, target: string): Promise<CliError> {
  const status = res.statusCode ?? 0
  let body: { error?: unknown; code?: unknown; hint?: unknown; invalid?: unknown } | undefined
  try {
    body = JSON.parse((await readAll(res, target)).toString('utf8'))
  } catch {
    body = undefined
  }
  if (body && typeof body.code === 'string') {
    const details = Array.isArray(body.invalid) ? { invalid: body.invalid } : undefined
    return new CliError(body.code, typeof body.error === 'string' ? body.error : `HTTP ${status}`, { hint: typeof body.hint === 'string' ? body.hint : undefined, status, details })
  }
  return new CliError('bad_response', `${target} answered HTTP ${status} without an error body.`, { status, hint: 'Is --url the address of this service?' })
}
