/**
 * Calls of the account operations as a browser or the CLI makes them: a POST
 * with a session cookie and CSRF token, or with an API key or setup token;
 * and the steps most member tests start with (set-up, joining by invite).
 */
export const PASSWORD = 'correct horse battery'

export interface Caller {
  cookie?: string
  csrf?: string
  key?: string
}

export interface Answer {
  status: number
  headers: Headers
  body: any
  ms: number
}

export async function post(url: string, route: string, body: unknown, who: Caller = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (who.cookie) headers.cookie = who.cookie
  if (who.csrf) headers['x-csrf-token'] = who.csrf
  if (who.key) headers.authorization = `Bearer ${who.key}`
  const started = performance.now()
  const res = await fetch(`${url}/api/v1${route}`, { method: 'POST', headers, body: JSON.stringify(body) })
  return { status: res.status, headers: res.headers, body: await res.json(), ms: performance.now() - started }
}

/** The signed-in browser a set-up, sign-in or accept-invite answer made. */
export function session(answer: { headers: Headers; body: any }): Caller {
  return { cookie: answer.headers.get('set-cookie')!.split(';')[0], csrf: answer.body.csrfToken }
}

export const inviteToken = (answer: Answer) => (answer.body.inviteUrl as string).split('/invite/')[1]

export async function firstOwner(url: string): Promise<Caller & { userId: string; orgId: string }> {
  const setup = await post(url, '/auth/setup', { orgName: 'Acme', email: 'owner@acme.test', password: PASSWORD })
  if (setup.status !== 200) throw new Error(`set-up failed: ${JSON.stringify(setup.body)}`)
  return { ...session(setup), userId: setup.body.user.userId, orgId: setup.body.user.orgId }
}

export async function join(url: string, inviter: Caller, email: string, password = PASSWORD): Promise<Caller & { userId: string }> {
  const invite = await post(url, '/auth/invite', {}, inviter)
  const joined = await post(url, '/auth/accept-invite', { token: inviteToken(invite), email, password })
  if (joined.status !== 200) throw new Error(`join failed: ${JSON.stringify(joined.body)}`)
  return { ...session(joined), userId: joined.body.user.userId }
}
