/**
 * `node --import=tsx bench/profile-summary.ts FILE.cpuprofile [...]`: where a
 * process's CPU went, from V8 CPU profiles (`npm run bench -- --profile=DIR`
 * writes one per service process; `node --cpu-prof` any other). Self time per
 * function, the top 30, and totals by kind of code: the service's own
 * (dist/), lmdb-js and msgpackr, uWebSockets.js and Node's HTTP, V8's garbage
 * collector, and the rest of Node. Several files are summed.
 */
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
  children?: number[]
}

interface Profile {
  nodes: Node[]
  samples: number[]
  timeDeltas: number[]
}

const KINDS: [kind: string, test: (url: string, name: string) => boolean][] = [
  ['garbage collection', (_, name) => name === '(garbage collector)'],
  ['idle', (_, name) => name === '(idle)'],
  ['native, unattributed', (_, name) => name === '(program)'],
  ['lmdb-js, msgpackr', (url) => /node_modules\/(lmdb|msgpackr|ordered-binary)/.test(url)],
  ['uWebSockets.js', (url) => /uws|uWebSockets/i.test(url)],
  ['undici, NATS', (url) => /node_modules\/(undici|@nats-io)/.test(url)],
  ['the service (dist/)', (url) => /\/dist\//.test(url)],
  ['Node (node:*)', (url) => url.startsWith('node:') || url === ''],
]

export function summarise(files: string[]): string {
  const self = new Map<string, number>()
  const byKind = new Map<string, number>()
  let total = 0
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
    profile.samples.forEach((id, i) => {
      const node = nodes.get(id)!
      const us = profile.timeDeltas[i] ?? 0
      const { functionName, url, lineNumber } = node.callFrame
      const name = `${functionName || '(anonymous)'} ${url ? `${basename(url)}:${lineNumber + 1}` : ''}`.trim()
      self.set(name, (self.get(name) ?? 0) + us)
      const kind = KINDS.find(([, test]) => test(url, functionName))?.[0] ?? 'other'
      byKind.set(kind, (byKind.get(kind) ?? 0) + us)
      total += us
    })
  }
  const busy = total - (byKind.get('idle') ?? 0)
  const share = (us: number) => `${((100 * us) / busy).toFixed(1)}%`
  const lines = [`${(busy / 1e6).toFixed(2)} s busy (idle left out), ${files.length} profile${files.length === 1 ? '' : 's'}`, '', '| Kind of code | Share of busy CPU |', '| --- | --- |']
  for (const [kind, us] of [...byKind].filter(([k]) => k !== 'idle').sort((a, b) => b[1] - a[1])) lines.push(`| ${kind} | ${share(us)} |`)
  lines.push('', '| Function (self time) | Share |', '| --- | --- |')
  for (const [name, us] of [...self].filter(([n]) => !n.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, 30)) lines.push(`| \`${name}\` | ${share(us)} |`)
  return lines.join('\n')
}

if (process.argv[1]?.endsWith('profile-summary.ts')) console.log(summarise(process.argv.slice(2)))
