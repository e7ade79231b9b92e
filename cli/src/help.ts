/**
 * What every command takes and says about itself: the one description of the
 * CLI's surface. The parser reads the flags from here, `svc help` prints it,
 * and the website's CLI page (/docs/cli) is generated from it, so the three
 * cannot disagree. Pure data: the server imports it too.
 */

export const BIN = 'svc'

export type FlagType = 'boolean' | 'string' | 'strings'

export interface FlagSpec {
  name: string
  type: FlagType
  /** Placeholder shown in help: `--domain <domain>`. */
  value?: string
  help: string
}

export interface CommandHelp {
  /** `projects create`: one or two words. */
  name: string
  /** Positional arguments as shown in usage: `<projectId> <pattern...>`. */
  args: string
  /** Positional arguments required (usage error below this) and allowed (Infinity for `...`). */
  minArgs: number
  maxArgs: number
  summary: string
  /** Paragraphs shown by `svc help <command>`. */
  details: string[]
  flags: FlagSpec[]
  examples: string[]
  /** Needs an API key (login or SVC_API_KEY). */
  needsKey: boolean
}

/** Flags every command takes. */
export const GLOBAL_FLAGS: FlagSpec[] = [
  { name: 'url', type: 'string', value: '<url>', help: 'Server address (else SVC_URL, else the address stored by login, else the server this file was downloaded from).' },
  { name: 'json', type: 'boolean', help: 'Print JSON for machines instead of tables; errors go to stderr as JSON.' },
  { name: 'no-color', type: 'boolean', help: 'No colours (also NO_COLOR=1; colours are only ever used on a terminal).' },
  { name: 'help', type: 'boolean', help: 'Show help for the command.' },
]

const projectId = 'The project id (`prj_…`), as `svc projects list` shows it.'

export const COMMANDS: CommandHelp[] = [
  {
    name: 'login',
    args: '',
    minArgs: 0,
    maxArgs: 0,
    summary: 'Store an API key after checking it with the server.',
    details: [
      'Asks for the API key (svc_sk_…) on a terminal, or reads it from standard input when piped, or takes it from --key. The key is checked with the server (whoami) and stored, with the server address, in the config file `svc/config.json` of your config directory (XDG_CONFIG_HOME, else ~/.config; %APPDATA% on Windows), readable by you only (mode 0600).',
      'SVC_API_KEY, when set, overrides the stored key for every command.',
    ],
    flags: [{ name: 'key', type: 'string', value: '<apiKey>', help: 'The key itself (it then shows in your shell history; prefer the prompt or a pipe).' }],
    examples: ['svc login', 'printf %s "$API_KEY" | svc login --url https://rec.example.com'],
    needsKey: false,
  },
  {
    name: 'logout',
    args: '',
    minArgs: 0,
    maxArgs: 0,
    summary: 'Remove the stored API key.',
    details: ['Deletes the config file written by login. A key in SVC_API_KEY still applies.'],
    flags: [],
    examples: ['svc logout'],
    needsKey: false,
  },
  {
    name: 'whoami',
    args: '',
    minArgs: 0,
    maxArgs: 0,
    summary: 'Show the organisation and user of the API key in use.',
    details: ['Also says which server is addressed and where the key comes from (SVC_API_KEY or the config file).'],
    flags: [],
    examples: ['svc whoami', 'svc whoami --json'],
    needsKey: true,
  },
  {
    name: 'members list',
    args: '',
    minArgs: 0,
    maxArgs: 0,
    summary: 'List the organisation\'s members: role, joined, last sign-in, who invited them.',
    details: ['The owner created the organisation; everyone else joined by an invite link. The member the API key belongs to is marked.'],
    flags: [],
    examples: ['svc members list', 'svc members list --json'],
    needsKey: true,
  },
  {
    name: 'members remove',
    args: '<userId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'Remove a member (owner only): their sessions end and their API keys are revoked.',
    details: [
      'The member id (`usr_…`), as `svc members list` shows it.',
      'Only the owner\'s API key may remove members, and the owner cannot be removed. The member\'s dashboard sessions end at once; the API keys they hold and their unused invite links are revoked, not handed over.',
    ],
    flags: [],
    examples: ['svc members remove usr_123'],
    needsKey: true,
  },
  {
    name: 'members role',
    args: '<userId> <admin|viewer>',
    minArgs: 2,
    maxArgs: 2,
    summary: 'Set a member\'s role (owner only): admin changes projects, keys and invites; viewer only reads.',
    details: [
      'The member id (`usr_…`), as `svc members list` shows it.',
      'Only the owner\'s API key may set roles, and the owner\'s own role does not change. The new role holds from the member\'s next request, in the dashboard and with their API keys alike.',
    ],
    flags: [],
    examples: ['svc members role usr_123 viewer'],
    needsKey: true,
  },
  {
    name: 'audit',
    args: '',
    minArgs: 0,
    maxArgs: 0,
    summary: 'Read the organisation\'s audit log, newest first (owner only): sign-ins, members, roles, keys, invites, settings, replays opened.',
    details: ['Each entry says when, who, what and to what (ids only: never anything a tracker recorded), with the credential used and the client\'s address. Entries are kept AUDIT_RETENTION_DAYS (365 unless the operator says).'],
    flags: [
      { name: 'limit', type: 'string', value: '<n>', help: 'Entries to show, 1 to 500 (100 unless given).' },
      { name: 'before', type: 'string', value: '<cursor>', help: 'Show the entries older than this cursor, printed below a full page.' },
    ],
    examples: ['svc audit', 'svc audit --limit 20 --json'],
    needsKey: true,
  },
  {
    name: 'projects rename',
    args: '<projectId> <name>',
    minArgs: 2,
    maxArgs: 2,
    summary: 'Rename a project (admin or owner); its id, public key and recordings stay.',
    details: ['The name is what lists and the dashboard show, up to 200 characters.'],
    flags: [],
    examples: ['svc projects rename prj_123 "Acme shop (EU)"'],
    needsKey: true,
  },
  {
    name: 'projects delete',
    args: '<projectId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'Delete a project and everything recorded in it (admin or owner); asks for --yes.',
    details: [
      'At once the project leaves every list, its public key records nothing more and its setup tokens stop working. Its recordings, signals, aggregates and pages are then erased on the server, which this command follows (progress on stderr), and the data files compacted shortly after. It cannot be undone.',
    ],
    flags: [
      { name: 'yes', type: 'boolean', help: 'Confirm the deletion.' },
      { name: 'no-wait', type: 'boolean', help: 'Answer once the project is deleted, without following the erasure.' },
    ],
    examples: ['svc projects delete prj_123 --yes'],
    needsKey: true,
  },
  {
    name: 'erase',
    args: '<projectId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'Erase everything recorded about a session, a visitor, a user or a time range\'s sessions (admin or owner).',
    details: [
      'Name exactly one subject: --session, --visitor, --user (the id your site gave to identify), or --from with --until (sessions that started in that range), optionally with --page. Recordings, signals and every aggregate entry naming those sessions go; counts that name no session stay.',
      'The erasure runs on the server; this command follows it and prints its progress to stderr. The same request again answers the same erasure. Shortly after, the server compacts its data files so that the bytes leave the disk (/docs/privacy).',
    ],
    flags: [
      { name: 'session', type: 'string', value: '<sessionKey>', help: 'One session, by its key.' },
      { name: 'visitor', type: 'string', value: '<visitorId>', help: 'Every session of a visitor.' },
      { name: 'user', type: 'string', value: '<userId>', help: 'Every session identified with this user id.' },
      { name: 'from', type: 'string', value: '<date>', help: 'With --until: sessions that started at or after this date or time.' },
      { name: 'until', type: 'string', value: '<date>', help: 'With --from: sessions that started before this date or time.' },
      { name: 'page', type: 'string', value: '<pageKey>', help: 'With --from and --until: only sessions that viewed this page.' },
      { name: 'dry-run', type: 'boolean', help: 'Count what would go; remove nothing.' },
      { name: 'no-wait', type: 'boolean', help: 'Answer once the erasure is queued instead of following it.' },
    ],
    examples: ['svc erase prj_123 --user u_42 --dry-run', 'svc erase prj_123 --session 4f1c2a', 'svc erase prj_123 --from 2026-01-01 --until 2026-02-01 --page shop.test/cart'],
    needsKey: true,
  },
  {
    name: 'erasures',
    args: '<projectId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'List a project\'s erasures, newest first, with their state and what they removed (admin or owner).',
    details: ['SCRUBBED says whether the data files were compacted since the erasure finished, so that its bytes are gone from the disk too.'],
    flags: [],
    examples: ['svc erasures prj_123', 'svc erasures prj_123 --json'],
    needsKey: true,
  },
  {
    name: 'password',
    args: '',
    minArgs: 0,
    maxArgs: 0,
    summary: 'Change your dashboard password; every dashboard session of yours ends.',
    details: [
      'Asks for the current and the new password on a terminal (without echo), or reads them from the first two lines of standard input when piped. The new one needs at least 10 characters.',
      'Sign-in throttling applies: after 5 wrong current passwords the account waits 15 minutes.',
    ],
    flags: [],
    examples: ['svc password', 'printf "%s\\n%s\\n" "$OLD" "$NEW" | svc password'],
    needsKey: true,
  },
  {
    name: 'projects list',
    args: '',
    minArgs: 0,
    maxArgs: 0,
    summary: 'List the projects of your organisation.',
    details: ['One line per project: id, name, domain, sessions recorded, public key and the number of path rules.'],
    flags: [],
    examples: ['svc projects list', 'svc projects list --json'],
    needsKey: true,
  },
  {
    name: 'projects create',
    args: '<name>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'Create a project and print its id and public key.',
    details: [
      'Path rules given here are in force before the first session lands, which is when they matter: page identity is decided when a page is first seen, and changing rules later means re-reading every stored recording. Each rule is checked locally with the server\'s own compiler first.',
    ],
    flags: [
      { name: 'domain', type: 'string', value: '<domain>', help: 'The site\'s primary domain.' },
      { name: 'rule', type: 'strings', value: '<pattern>', help: 'A path rule; repeat for several, first match wins.' },
    ],
    examples: ['svc projects create "Acme shop" --domain shop.acme.test --rule "/docs/*" --rule "/{tenant}/settings/*"'],
    needsKey: true,
  },
  {
    name: 'projects capture',
    args: '<projectId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'Show or change what the tracker records: sampling, minimum duration, URL triggers and exclusions, console, network and canvas.',
    details: [
      projectId,
      'Without flags, prints the settings. Flags change only what they name; installed trackers pick a change up within 5 minutes. Console, network and canvas capture are off until turned on here.',
    ],
    flags: [
      { name: 'sample', type: 'string', value: '<rate>', help: 'Share of sessions recorded, 0 to 1 (unsampled sessions still send clicks and views).' },
      { name: 'min-duration', type: 'string', value: '<seconds>', help: 'Do not send recordings of sessions shorter than this.' },
      { name: 'trigger', type: 'strings', value: '<pattern>', help: 'Record a session only from the first page matching one of these path patterns (repeat for several).' },
      { name: 'exclude', type: 'strings', value: '<pattern>', help: 'Never record pages matching these path patterns (repeat for several).' },
      { name: 'clear-urls', type: 'boolean', help: 'Remove every trigger and exclusion before applying --trigger and --exclude.' },
      { name: 'console', type: 'string', value: 'on|off', help: 'Record console messages and uncaught errors.' },
      { name: 'network', type: 'string', value: 'on|off', help: 'Record fetch and XMLHttpRequest requests (never headers or bodies).' },
      { name: 'network-query', type: 'string', value: 'on|off', help: 'Keep query strings of recorded request URLs.' },
      { name: 'canvas', type: 'string', value: 'on|off', help: 'Record what visible <canvas> elements show, as sampled image frames (never inside masked or blocked elements).' },
      { name: 'canvas-fps', type: 'string', value: '<rate>', help: 'Canvas frames a second, 0.1 to 10 (default 2); an unchanged canvas sends none.' },
      { name: 'canvas-quality', type: 'string', value: '<q>', help: 'WebP/JPEG quality of canvas frames, 0 to 1 (default 0.6).' },
      { name: 'frame-parent', type: 'strings', value: '<origin>', help: 'A page origin (https://shop.example) that may show this site\'s frames in place: where the tracker runs in a frame of another origin and in that page, the frame records into the page\'s recording (repeat for several).' },
      { name: 'clear-frame-parents', type: 'boolean', help: 'Remove every frame parent before applying --frame-parent.' },
    ],
    examples: [
      'svc projects capture prj_123',
      'svc projects capture prj_123 --sample 0.25 --min-duration 5 --exclude "/account/*" --console on',
      'svc projects capture prj_123 --canvas on --canvas-fps 1',
      'svc projects capture prj_123 --frame-parent https://shop.example',
    ],
    needsKey: true,
  },
  {
    name: 'projects storage',
    args: '<projectId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'Show what the project holds on disk and what a recorded minute costs.',
    details: [
      projectId,
      'Recordings are counted exactly; signals and aggregates are the project\'s share of what the store holds for them. A recorded minute is a minute between a session\'s first and last event.',
    ],
    flags: [],
    examples: ['svc projects storage prj_123'],
    needsKey: true,
  },
  {
    name: 'projects retention',
    args: '<projectId> [days|default]',
    minArgs: 1,
    maxArgs: 2,
    summary: 'Show or set how many days the project keeps recordings.',
    details: [
      projectId,
      'At most the deployment\'s RETENTION_DAYS; `default` goes back to it. Recordings older than that after their last activity are deleted by the next retention pass; session metadata and signals stay.',
    ],
    flags: [],
    examples: ['svc projects retention prj_123', 'svc projects retention prj_123 7', 'svc projects retention prj_123 default'],
    needsKey: true,
  },
  {
    name: 'rules set',
    args: '<projectId> <pattern...>',
    minArgs: 2,
    maxArgs: Infinity,
    summary: 'Replace the project\'s path rules.',
    details: [
      projectId,
      'Patterns are paths of literal segments and {name} placeholders, optionally ending in /* (the rest is grouped automatically). The first matching rule wins, so list literal prefixes like /docs/* above catch-alls like /{tenant}/*. A pattern that does not compile is refused before anything is sent.',
    ],
    flags: [],
    examples: ['svc rules set prj_123 "/docs/*" "/{tenant}/projects/{project}/*"'],
    needsKey: true,
  },
  {
    name: 'rules test',
    args: '<projectId> <url...>',
    minArgs: 2,
    maxArgs: Infinity,
    summary: 'Show the page each URL would be grouped under.',
    details: [
      projectId,
      'Uses the project\'s rules (or the --rule patterns given instead) and the same grouping code the server runs at ingest, so what it prints is what the service will record.',
    ],
    flags: [{ name: 'rule', type: 'strings', value: '<pattern>', help: 'Try these rules instead of the saved ones (repeat for several).' }],
    examples: ['svc rules test prj_123 https://shop.acme.test/acme/settings/42 /docs/intro'],
    needsKey: true,
  },
  {
    name: 'snippet',
    args: '<projectId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'Print the loader snippet, with the project\'s public key, to paste in the site\'s <head>.',
    details: [projectId, 'The public key in it is not a secret: it only lets a page send recordings to this one project.'],
    flags: [],
    examples: ['svc snippet prj_123'],
    needsKey: true,
  },
  {
    name: 'setup-token',
    args: '<projectId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'Mint a setup token and print the prompt to give an install agent.',
    details: [
      projectId,
      'The token reaches one project\'s path rules and install status, nothing else, and expires after 30 days. The prompt tells the agent to keep it in its shell environment and never write it to a committed file.',
    ],
    flags: [],
    examples: ['svc setup-token prj_123'],
    needsKey: true,
  },
  {
    name: 'sessions count',
    args: '<projectId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'Print how many sessions the project has recorded; --watch waits for the first.',
    details: [
      projectId,
      'The install check: with --watch it polls until the count moves off zero, then exits 0, or gives up after --timeout and exits 1. Open the site in a browser and move the mouse: the tracker loads on the first interaction.',
    ],
    flags: [
      { name: 'watch', type: 'boolean', help: 'Poll until the count is above zero.' },
      { name: 'timeout', type: 'string', value: '<duration>', help: 'How long --watch waits: 90s, 5m (default 5m).' },
      { name: 'interval', type: 'string', value: '<duration>', help: 'Time between polls (default 3s).' },
    ],
    examples: ['svc sessions count prj_123', 'svc sessions count prj_123 --watch --timeout 10m'],
    needsKey: true,
  },
  {
    name: 'sessions list',
    args: '<projectId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'List the project\'s sessions, newest first, filtered.',
    details: [
      projectId,
      'Prints the command for the sessions that follow when there are more (a filtered answer may be short, even empty: older sessions remain to be searched).',
      'The RECORDING column says whether each recording is complete; below the table, one line per missing part says what, when and why (the tab closed, the tracker dropped it, refused as too large, never received, a page the capture settings left out).',
      'With --visited, --clicked, --error, --console, --request or --referrer, the MATCH column is the first moment that matched (the time, its kind: visit, click, error, console, request or referrer, and what); --json lists every match. The dashboard\'s replay opens there.',
    ],
    flags: [
      { name: 'page', type: 'string', value: '<page>', help: 'Sessions that viewed this page: a key, a display path (/{tenant}/settings/:id) or a URL.' },
      { name: 'element', type: 'string', value: '<selector>', help: 'With --page: sessions that clicked this element (a selector of the element leaderboard).' },
      { name: 'user', type: 'string', value: '<userId>', help: 'Sessions identified with this user id.' },
      { name: 'account', type: 'string', value: '<accountId>', help: 'Sessions identified with this account id.' },
      { name: 'min-duration', type: 'string', value: '<duration>', help: 'Sessions at least this long: 30s, 5m.' },
      { name: 'errors', type: 'boolean', help: 'Sessions with a JavaScript error.' },
      { name: 'rage', type: 'boolean', help: 'Sessions with a rage click.' },
      { name: 'console-errors', type: 'boolean', help: 'Sessions whose recording has a console error (console capture on).' },
      { name: 'failed-requests', type: 'boolean', help: 'Sessions whose recording has a request that failed or answered 500 or more (network capture on).' },
      { name: 'visited', type: 'string', value: '<pattern>', help: 'Sessions that visited a path matching this path rule: /settings/{id}/* ({name} one segment, a trailing * any deeper path).' },
      { name: 'clicked', type: 'string', value: '<text>', help: 'Sessions that clicked an element whose label or selector contains this text (any case).' },
      { name: 'error', type: 'string', value: '<text>', help: 'Sessions with a JavaScript error whose message contains this text (any case).' },
      { name: 'console', type: 'string', value: '<text>', help: 'Sessions whose recording has a console error or warning containing this text (any case; console capture on).' },
      { name: 'request', type: 'string', value: '<text>', help: 'Sessions whose recording has a failed request (status 0, or 500 and over) whose "METHOD url status" contains this text (any case; network capture on).' },
      { name: 'referrer', type: 'string', value: '<text>', help: 'Sessions that came from another site whose origin contains this text: google, https://news.example (no path).' },
      { name: 'device', type: 'string', value: '<mobile|tablet|desktop>', help: 'Sessions on this device class.' },
      { name: 'limit', type: 'string', value: '<n>', help: 'Sessions per page.' },
      { name: 'cursor', type: 'string', value: '<cursor>', help: 'Continue from a previous answer (with the same filters).' },
    ],
    examples: [
      'svc sessions list prj_123 --limit 20',
      'svc sessions list prj_123 --page /checkout --rage',
      'svc sessions list prj_123 --page /pricing --element "#buy"',
      'svc sessions list prj_123 --clicked "Pay now" --device mobile',
      "svc sessions list prj_123 --visited '/orders/{id}/*' --error TypeError",
      'svc sessions list prj_123 --request /api/cart --referrer google',
    ],
    needsKey: true,
  },
  {
    name: 'sessions live',
    args: '<projectId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'List the sessions in progress: those whose last chunk arrived in the last 60 s, most recent first.',
    details: [projectId, 'LAST SENT says how long ago each sent its last chunk (in the cluster mode, to any node).'],
    flags: [{ name: 'limit', type: 'string', value: '<n>', help: 'Sessions at most (default 50).' }],
    examples: ['svc sessions live prj_123', 'svc sessions live prj_123 --json'],
    needsKey: true,
  },
  {
    name: 'sessions follow',
    args: '<projectId> <sessionKey>',
    minArgs: 2,
    maxArgs: 2,
    summary: 'Follow a session as it is recorded: a line per event, a second or two after the visitor\'s page made it.',
    details: [
      projectId,
      'Starts at the recording\'s last checkpoint (a snapshot of the page), then prints each event as its chunk arrives: while followed, the visitor\'s tracker sends every 1.5 s instead of every 10 s. Ends when the visitor sends nothing for 5 minutes, after --max-seconds (an hour at most) or on Ctrl-C. Every follow is in the audit log; an organisation follows at most 20 sessions at once.',
      '--json prints the feed as the API sends it: one rrweb event per line (newline-delimited JSON), service lines as custom events tagged svc.live and svc.live_ended.',
    ],
    flags: [{ name: 'max-seconds', type: 'string', value: '<n>', help: 'End the follow after this many seconds (10 to 3600).' }],
    examples: ['svc sessions follow prj_123 s_abc', 'svc sessions follow prj_123 s_abc --json > live.ndjson'],
    needsKey: true,
  },
  {
    name: 'overview',
    args: '<projectId>',
    minArgs: 1,
    maxArgs: 1,
    summary: 'The project\'s figures over a period against the period before, and the pages with the most friction.',
    details: [
      projectId,
      'Sessions, visitors, pages per session, active time, scroll depth, and the share of sessions with rage, dead and error clicks, quick backs and JavaScript errors (POST /cli/overview.get). Counts and averages change by a percentage, shares by points. --json adds the series of hour or day buckets.',
    ],
    flags: [
      { name: 'period', type: 'string', value: '<duration>', help: 'The period ending now: 24h, 7d, 30d (at most 92 days). Default 7d.' },
      { name: 'bucket', type: 'string', value: '<hour|day>', help: 'The series\' buckets (--json). Default: hours up to 48 hours, else days.' },
      { name: 'device', type: 'string', value: '<mobile|tablet|desktop>', help: 'Only sessions on this device class.' },
      { name: 'page', type: 'string', value: '<page>', help: 'Only sessions on this page, by what they did there: a key, a display path or a URL.' },
      { name: 'top', type: 'string', value: '<n>', help: 'Pages per friction kind (at most 20). Default 5.' },
    ],
    examples: ['svc overview prj_123', 'svc overview prj_123 --period 30d --device mobile', 'svc overview prj_123 --page /checkout --json'],
    needsKey: true,
  },
  {
    name: 'export',
    args: '<projectId> <sessionKey>',
    minArgs: 2,
    maxArgs: 2,
    summary: 'Write a session\'s rrweb events as a JSON array.',
    details: [
      'Streams to standard output, or to --out: the file appears only once the whole session has arrived (a broken download leaves no file behind).',
    ],
    flags: [{ name: 'out', type: 'string', value: '<file>', help: 'Write to this file instead of standard output.' }],
    examples: ['svc export prj_123 s_abc --out session.json'],
    needsKey: true,
  },
  {
    name: 'update',
    args: '',
    minArgs: 0,
    maxArgs: 0,
    summary: 'Replace this CLI with the server\'s current one, verified first.',
    details: [
      'Trusts the release key built into this CLI, not the server: the signature in /release (cli.signed) must verify with it and name a version no older than this one, and the download of /release/cli.mjs must have the sha256 it names. A server whose build is not signed by that key is refused (untrusted_release), and plain http is refused except to this machine (insecure_transport).',
      'Then writes the new file, with this CLI\'s default server in it, beside this one, syncs it to disk and renames it over this one, so the CLI is never half-written. Anything refused, truncated or altered leaves the installed CLI untouched and exits 1.',
    ],
    flags: [],
    examples: ['svc update'],
    needsKey: false,
  },
  {
    name: 'version',
    args: '',
    minArgs: 0,
    maxArgs: 0,
    summary: 'Print the CLI\'s version.',
    details: [],
    flags: [],
    examples: ['svc version'],
    needsKey: false,
  },
  {
    name: 'help',
    args: '[command]',
    minArgs: 0,
    maxArgs: 2,
    summary: 'Show help for every command, or for one.',
    details: ['Same as `svc <command> --help`.'],
    flags: [],
    examples: ['svc help', 'svc help rules test'],
    needsKey: false,
  },
]

export const EXIT_CODES = [
  { code: 0, meaning: 'Success.' },
  { code: 1, meaning: 'Failure: the server refused (the error code and hint are printed), it could not be reached, or a check failed (an update that did not verify, a watch that timed out).' },
  { code: 2, meaning: 'Usage: unknown command or flag, missing or extra arguments, a path rule that does not compile.' },
]

export const ENVIRONMENT = [
  { name: 'SVC_API_KEY', meaning: 'API key to use instead of the stored one.' },
  { name: 'SVC_URL', meaning: 'Server address, unless --url is given.' },
  { name: 'NO_COLOR', meaning: 'Any non-empty value turns colours off.' },
  { name: 'XDG_CONFIG_HOME', meaning: 'Where the config directory is (default ~/.config).' },
]

export function findCommand(words: readonly string[]): { command: CommandHelp; used: number } | undefined {
  if (words.length >= 2) {
    const two = COMMANDS.find((c) => c.name === `${words[0]} ${words[1]}`)
    if (two) return { command: two, used: 2 }
  }
  const one = COMMANDS.find((c) => c.name === words[0])
  return one ? { command: one, used: 1 } : undefined
}

/** The command groups (`projects`, `rules`, `sessions`) and what they hold. */
export function groupOf(word: string): CommandHelp[] {
  return COMMANDS.filter((c) => c.name.startsWith(`${word} `))
}

export function usageLine(command: CommandHelp): string {
  const flags = command.flags.map((f) => (f.type === 'boolean' ? `[--${f.name}]` : `[--${f.name} ${f.value}]${f.type === 'strings' ? '...' : ''}`))
  return [BIN, command.name, command.args, ...flags].filter(Boolean).join(' ')
}

/** The CLI reference as Markdown (the website's CLI page embeds it). */
export function commandsMarkdown(): string {
  const parts: string[] = []
  for (const command of COMMANDS) {
    parts.push(`### ${BIN} ${command.name}`, '', `\`${usageLine(command)}\``, '', command.summary, '')
    for (const paragraph of command.details) parts.push(paragraph, '')
    if (command.flags.length > 0) {
      parts.push('| Flag | Meaning |', '| --- | --- |')
      for (const flag of command.flags) parts.push(`| \`--${flag.name}${flag.value ? ` ${flag.value}` : ''}\` | ${flag.help.replace(/\|/g, '\\|')} |`)
      parts.push('')
    }
    if (command.examples.length > 0) parts.push('```sh', ...command.examples, '```', '')
  }
  parts.push('### Flags of every command', '', '| Flag | Meaning |', '| --- | --- |')
  for (const flag of GLOBAL_FLAGS) parts.push(`| \`--${flag.name}${flag.value ? ` ${flag.value}` : ''}\` | ${flag.help} |`)
  parts.push('', '### Exit codes', '', '| Code | Meaning |', '| --- | --- |')
  for (const exit of EXIT_CODES) parts.push(`| ${exit.code} | ${exit.meaning} |`)
  parts.push('', '### Environment', '', '| Variable | Meaning |', '| --- | --- |')
  for (const env of ENVIRONMENT) parts.push(`| \`${env.name}\` | ${env.meaning} |`)
  return parts.join('\n') + '\n'
}
