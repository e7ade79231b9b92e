/**
 * Browser tests of the dashboard: a page of Debian's Chromium on the
 * cluster's /app/, with clipboard access for that origin, every console
 * error, page error and CSP violation collected, and screenshots saved under
 * test/artifacts/dashboard/ (gitignored) for review.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ARTIFACTS } from './browser.js'

export const SHOTS = join(ARTIFACTS, 'dashboard')

export const PHONE = { width: 390, height: 844 }
export const LAPTOP = { width: 1280, height: 800 }

export interface DashboardTab {
  page: Page
  context: BrowserContext
  /** Console errors, uncaught page errors and CSP violations: a test expects none. */
  problems: string[]
  close(): Promise<void>
}

export interface OpenOptions {
  viewport?: { width: number; height: number }
  /** A session cookie value to start signed in with (from `ownerSession`). */
  session?: string
}

export async function openDashboard(browser: Browser, clusterUrl: string, viewportOrOptions: OpenOptions['viewport'] | OpenOptions = LAPTOP): Promise<DashboardTab> {
  const options: OpenOptions = viewportOrOptions && 'width' in viewportOrOptions ? { viewport: viewportOrOptions } : (viewportOrOptions ?? {})
  const viewport = options.viewport ?? LAPTOP
  const context = await browser.newContext({ viewport, ...(viewport.width < 600 ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) })
  if (options.session) await context.addCookies([{ name: 'svc_session', value: options.session, url: clusterUrl, httpOnly: true, sameSite: 'Strict' }])
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: clusterUrl })
  const page = await context.newPage()
  // Loopback answers in milliseconds: a step that takes 15 s has failed, and saying so early keeps the output readable.
  page.setDefaultTimeout(15_000)
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    // A 401 answered on purpose (wrong password, CSRF) is logged by Chromium as a failed resource: not a fault.
    if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(`console: ${message.text()}`)
  })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`))
  })
  await page.goto(`${clusterUrl}/app/`)
  return { page, context, problems, close: () => context.close() }
}

/** Saves a screenshot of the page as test/artifacts/dashboard/<name>.png and returns its path. */
export async function shoot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(SHOTS, { recursive: true })
  const path = join(SHOTS, `${name}.png`)
  await page.screenshot({ path, fullPage })
  return path
}

export async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText())
}

export const OWNER = { orgName: 'Acme', email: 'owner@acme.test', password: 'correct horse battery' }

/** Fills the first-run form and waits for the signed-in shell. */
export async function firstRun(page: Page, owner = OWNER): Promise<void> {
  await page.getByLabel('Organisation name').fill(owner.orgName)
  await page.getByLabel('Your email').fill(owner.email)
  await page.getByLabel('Password').fill(owner.password)
  await page.getByRole('button', { name: 'Create organisation' }).click()
  await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/** The session cookie the browser holds for the cluster (HttpOnly: only the context sees it). */
export async function sessionCookie(context: BrowserContext): Promise<string | undefined> {
  return (await context.cookies()).find((c) => c.name === 'svc_session')?.value
}

/**
 * Creates the deployment's first owner through the API (POST /auth/setup, as
 * the first-run screen does) and returns the session cookie's value, so that
 * tests of other screens start signed in without repeating the sign-up.
 */
export async function ownerSession(clusterUrl: string, owner = OWNER): Promise<string> {
  const res = await fetch(`${clusterUrl}/api/v1/auth/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(owner) })
  if (res.status !== 200) throw new Error(`first run failed: ${res.status} ${await res.text()}`)
  return /svc_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]
}

/** Calls the API as the signed-in dashboard does (its cookie and CSRF token), from the test process; answers the parsed body. */
export function signedInApi(clusterUrl: string, session: string): (route: string, body?: unknown) => Promise<any> {
  let csrf: string | undefined
  return async (route, body = {}) => {
    csrf ??= (await (await fetch(`${clusterUrl}/api/v1/auth/state`, { headers: { cookie: `svc_session=${session}` } })).json()).csrfToken
    const res = await fetch(`${clusterUrl}/api/v1${route}`, { method: 'POST', headers: { cookie: `svc_session=${session}`, 'x-csrf-token': csrf!, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return res.json()
  }
}
