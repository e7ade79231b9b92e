/**
 * Micro-benchmark of URL grouping (src/grouping/group.ts), which runs on the
 * ingest path for every chunk and every signal: URLs per second with 20 path
 * rules, beside the same URLs with no rules, and rule compilation (cached per
 * project, so paid only when the rules change).
 *
 * Usage: node dist/bench/group-urls.js [--json]
 */
import { groupUrl, RulesCache } from '../src/grouping/group.js'
import { compileRules } from '../src/grouping/rules.js'

/** Twenty rules of a realistic multi-tenant app: literal prefixes first, the tenant catch-all last. */
const RULES = [
  '/docs/*', '/blog/{slug}', '/blog/*', '/pricing', '/changelog/*', '/careers/{role}', '/legal/*', '/help/{article}',
  '/api/*', '/login', '/signup', '/invite/{token}', '/admin/users/{user}/*', '/admin/*', '/{tenant}/settings/*',
  '/{tenant}/projects/{project}/sessions/*', '/{tenant}/projects/{project}/*', '/{tenant}/billing/*', '/{tenant}/members/{member}', '/{tenant}/*',
]

const URLS = [
  'https://app.example.com/acme-corp/projects/8f14e45fceea167a/sessions/550e8400-e29b-41d4-a716-446655440000?tab=events#t=12',
  'https://app.example.com/acme-corp/settings/billing/invoices/2026-11-21',
  'https://www.example.com/blog/introducing-our-new-pricing?utm_source=newsletter',
  'https://www.example.com/docs/getting-started/install/react',
  'https://app.example.com/globex/members/usr_2b8f9c1a7d3e4f5a',
  'https://app.example.com/initech/reports/20261121/export/123456',
  'https://www.example.com/',
  'https://app.example.com/admin/users/42/audit/2026-11',
  'https://shop.example.com/p/8f14e45fceea167a/reviews/7',
  'https://shop.example.com/checkout/success?order=123',
]

function measure(name: string, fn: (i: number) => unknown, ms = 1500): { name: string; opsPerSec: number; usPerOp: number } {
  let sink: unknown
  const warm = performance.now() + 300
  for (let i = 0; performance.now() < warm; i++) sink = fn(i)
  let calls = 0
  const started = performance.now()
  let now = started
  while (now - started < ms) {
    for (let i = 0; i < 500; i++) sink = fn(calls + i)
    calls += 500
    now = performance.now()
  }
  if (sink === Symbol.for('never')) console.log(sink)
  const opsPerSec = calls / ((now - started) / 1000)
  return { name, opsPerSec, usPerOp: 1e6 / opsPerSec }
}

export function runGroupBench() {
  const rules = compileRules(RULES).rules
  const cache = new RulesCache()
  return [
    measure(`groupUrl, ${RULES.length} rules (URLs/s)`, (i) => groupUrl(URLS[i % URLS.length], rules)),
    measure('groupUrl, no rules (URLs/s)', (i) => groupUrl(URLS[i % URLS.length], [])),
    measure(`RulesCache hit, ${RULES.length} rules`, () => cache.rulesFor('p', RULES)),
    measure(`compileRules, ${RULES.length} rules (cache miss)`, () => compileRules(RULES)),
  ]
}

if (process.argv[1]?.endsWith('group-urls.js')) {
  const figures = runGroupBench()
  if (process.argv.includes('--json')) console.log(JSON.stringify(figures))
  else for (const f of figures) console.log(`${f.name.padEnd(44)} ${Math.round(f.opsPerSec).toLocaleString('en-US').padStart(12)} ops/s ${f.usPerOp.toFixed(2).padStart(8)} µs/op`)
}
