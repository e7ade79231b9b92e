/**
 * The dashboard: who is signed in decides between first run, sign-in and the
 * signed-in shell; the hash route picks the screen.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, onSessionEnded, setCsrfToken, type AuthState, type SignedIn } from './api.js'
import { Empty, ErrorNote, Loading } from './components.js'
import { forgetProjects } from './model.js'
import { RoleContext, useCan } from './roles.js'
import { href, navigate, useRoute, type Route } from './route.js'
import { Account } from './screens/account.js'
import { Audit } from './screens/audit.js'
import { AcceptInvite, FirstRun, SignIn } from './screens/auth.js'
import { Invites } from './screens/invites.js'
import { Keys } from './screens/keys.js'
import { Members } from './screens/members.js'
import { ProjectScreen } from './screens/project.js'
import { Projects } from './screens/projects.js'

export function App() {
  const route = useRoute()
  const [auth, setAuth] = useState<AuthState>()
  const [error, setError] = useState<unknown>()
  const refresh = () =>
    api.authState().then(
      (state) => {
        setCsrfToken(state.csrfToken)
        setAuth(state)
        setError(undefined)
      },
      (e) => setError(e),
    )
  useEffect(() => {
    void refresh()
    // Any 401 from a signed-in call: ask again who is signed in (and pick up a fresh CSRF token).
    onSessionEnded(() => void refresh())
  }, [])

  const signedIn = (answer: SignedIn) => {
    setCsrfToken(answer.csrfToken)
    forgetProjects()
    setAuth({ firstRun: false, signedIn: true, user: answer.user, csrfToken: answer.csrfToken })
    if (route.parts[0] === 'invite' || route.parts.length === 0) navigate(href('projects'), true)
  }

  if (!auth) {
    return <main class="auth">{error ? <ErrorNote error={error} /> : <Loading />}</main>
  }
  if (route.parts[0] === 'invite' && route.parts[1]) return <AcceptInvite token={route.parts[1]} onSignedIn={signedIn} />
  if (!auth.signedIn || !auth.user) return auth.firstRun ? <FirstRun onSignedIn={signedIn} /> : <SignIn onSignedIn={signedIn} />
  const signedOut = async () => {
    setCsrfToken(undefined)
    forgetProjects()
    await refresh()
  }
  return (
    <Shell
      user={auth.user}
      route={route}
      onSignOut={async () => {
        await api.post('/auth/logout')
        await signedOut()
      }}
      onSignedOutEverywhere={signedOut}
    />
  )
}

interface ShellProps {
  user: NonNullable<AuthState['user']>
  route: Route
  onSignOut: () => Promise<void>
  onSignedOutEverywhere: () => Promise<void>
}

function Shell({ user, route, onSignOut, onSignedOutEverywhere }: ShellProps) {
  const [error, setError] = useState<unknown>()
  const section = route.parts[0] ?? 'projects'
  // A new screen (not a new tab of the same project): move focus to its heading, so keyboard and screen-reader users start there.
  const path = route.parts[2] === 'replay' || route.parts[2] === 'live' ? route.parts.join('/') : route.parts.slice(0, 2).join('/')
  useEffect(() => {
    const heading = document.querySelector<HTMLElement>('main h1')
    if (heading && !heading.contains(document.activeElement)) heading.focus({ preventScroll: false })
  }, [path])
  return (
    <RoleContext.Provider value={user.role}>
    <div class="shell">
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault()
          document.getElementById('main')?.focus()
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('projects')}>
          svc recorder
        </a>
        <nav aria-label="Main">
          <a href={href('projects')} aria-current={section === 'projects' || section === 'p' ? 'page' : undefined}>
            Projects
          </a>
          <a href={href('keys')} aria-current={section === 'keys' ? 'page' : undefined}>
            API keys
          </a>
          <a href={href('members')} aria-current={section === 'members' ? 'page' : undefined}>
            Members
          </a>
          <MainLink to="people" label="Invite people" section={section} min="admin" />
          <MainLink to="audit" label="Audit log" section={section} min="owner" />
          <a href={href('account')} aria-current={section === 'account' ? 'page' : undefined}>
            Account
          </a>
        </nav>
        <div class="who">
          <span class="small" title={user.email}>
            {user.orgName} · <span class="muted">{user.email}</span>
          </span>
          <button
            type="button"
            class="secondary small"
            onClick={() => onSignOut().catch(setError)}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorNote error={error} />
        <Screen route={route} user={user} onSignedOutEverywhere={onSignedOutEverywhere} />
      </main>
    </div>
    </RoleContext.Provider>
  )
}

function Screen({ route, user, onSignedOutEverywhere }: { route: Route; user: ShellProps['user']; onSignedOutEverywhere: () => Promise<void> }) {
  const [section, id] = route.parts
  if (!section || section === 'projects') return <Projects />
  if (section === 'keys') return <Keys />
  if (section === 'members') return <Members orgName={user.orgName} />
  if (section === 'people') return user.role === 'viewer' ? <NotForRole what="Inviting people" /> : <Invites orgName={user.orgName} />
  if (section === 'audit') return user.role === 'owner' ? <Audit orgName={user.orgName} /> : <NotForRole what="The audit log" />
  if (section === 'account') return <Account email={user.email} onSignedOutEverywhere={onSignedOutEverywhere} />
  if (section === 'p' && id) return <ProjectScreen projectId={id} route={route} />
  return (
    <Empty title="No such screen">
      <h1 tabIndex={-1} class="sr-only">
        Not found
      </h1>
      <p>
        <a href={href('projects')}>Go to your projects</a>.
      </p>
    </Empty>
  )
}

/** A main-menu link offered only to roles that may use its screen. */
function MainLink({ to, label, section, min }: { to: string; label: string; section: string; min: 'admin' | 'owner' }) {
  if (!useCan(min)) return null
  return (
    <a href={href(to)} aria-current={section === to ? 'page' : undefined}>
      {label}
    </a>
  )
}

function NotForRole({ what }: { what: string }) {
  return (
    <Empty title={`${what} is not for your role`}>
      <h1 tabIndex={-1} class="sr-only">
        Not for your role
      </h1>
      <p>Ask the organisation's owner (see Members) for a role that allows it.</p>
    </Empty>
  )
}
