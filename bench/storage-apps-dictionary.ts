/**
 * The session dictionary of added nodes (tracker/src/compact.ts, issue 47),
 * before and after, from the sessions one bench:storage run recorded: the
 * stored chunks are expanded back to rrweb's events, then written again the
 * way the tracker did before (each chunk on a dictionary of its own) and the
 * way it does now (one dictionary per page view, every chunk acknowledged),
 * each gzipped by Node at zlib's default level (the browser's
 * CompressionStream uses the same). Same events, same chunk boundaries.
 *
 * Also: Node's time to write them both ways (V8, as in Chromium: the added time
 * stands for the page's), the dictionary's largest state and the heap it holds
 * then, the events API's time to read the session both ways, and how much of the
 * text and attribute mutations repeat a value sent earlier in the session.
 */
import { performance } from 'node:perf_hooks'
import { setFlagsFromString, getHeapStatistics } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { gzipSync } from 'node:zlib'
import { SessionContents, expandedEvents } from '../src/recordings/compact-mutations.js'
import { recordingEvents, type StoredChunk } from '../src/recordings/events.js'
import { compactAdds, createDictionary } from '../tracker/src/compact.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

export interface StoredJson {
  pageIndex: number
  checkpoint: boolean
  json: string
}

export interface DictionaryFigures {
  /** Gzipped bytes with adds written once per chunk (before) and once per page view (after). */
  before: number
  after: number
  /** Node's ms to write the session's chunks each way. */
  writeBeforeMs: number
  writeAfterMs: number
  /** The dictionary at its largest: contents, characters of their JSON, heap bytes it held. */
  entries: number
  chars: number
  heap: number
  /** The events API's ms to read the session each way (best of 3). */
  readBeforeMs: number
  readAfterMs: number
  /** JSON of text and attribute mutation values, and of those the session sent before. */
  values: number
  repeatedValues: number
}

function heapUsed(): number {
  gc()
  return getHeapStatistics().used_heap_size
}

async function readMs(chunks: Buffer[], pages: StoredJson[]): Promise<number> {
  let best = Infinity
  for (let run = 0; run < 3; run++) {
    const stored: StoredChunk[] = chunks.map((bytes, seq) => ({ seq, encoding: 'gzip', pageIndex: pages[seq].pageIndex, load: () => bytes }))
    const started = performance.now()
    for await (const piece of recordingEvents(stored)) void piece
    best = Math.min(best, performance.now() - started)
  }
  return best
}

export async function dictionaryFigures(session: StoredJson[]): Promise<DictionaryFigures> {
  const contents = new SessionContents()
  const plain = session.map((c) => expandedEvents(JSON.parse(c.json) as unknown[], contents, c.pageIndex).map((e) => JSON.stringify(e)))
  const figures: DictionaryFigures = { before: 0, after: 0, writeBeforeMs: 0, writeAfterMs: 0, entries: 0, chars: 0, heap: 0, readBeforeMs: 0, readAfterMs: 0, values: 0, repeatedValues: 0 }

  let started = performance.now()
  const before = plain.map((parts) => '[' + compactAdds(parts).join(',') + ']')
  figures.writeBeforeMs = performance.now() - started
  const dictionary = createDictionary()
  started = performance.now()
  const after = plain.map((parts, i) => {
    const written = dictionary.write(parts, String(session[i].pageIndex), session[i].checkpoint)
    written.settle(true)
    return '[' + written.parts.join(',') + ']'
  })
  figures.writeAfterMs = performance.now() - started

  // The heap a dictionary holds at its largest: written again, measured after each chunk.
  const base = heapUsed()
  const measured = createDictionary()
  plain.forEach((parts, i) => {
    measured.write(parts, String(session[i].pageIndex), session[i].checkpoint).settle(true)
    if (measured.chars < figures.chars) return
    figures.entries = measured.size
    figures.chars = measured.chars
    figures.heap = Math.max(figures.heap, heapUsed() - base)
  })

  const gzBefore = before.map((text) => gzipSync(text))
  const gzAfter = after.map((text) => gzipSync(text))
  figures.before = gzBefore.reduce((sum, b) => sum + b.byteLength, 0)
  figures.after = gzAfter.reduce((sum, b) => sum + b.byteLength, 0)
  figures.readBeforeMs = await readMs(gzBefore, session)
  figures.readAfterMs = await readMs(gzAfter, session)

  const seen = new Set<string>()
  for (const parts of plain) {
    for (const part of parts) {
      if (!part.startsWith('{"type":3,"data":{"source":0,')) continue
      // A mutation the reader could not put back (an `svc.adds_unread` marker's neighbour) may lack either list.
      const data = JSON.parse(part).data as { texts?: { value: unknown }[]; attributes?: { attributes: unknown }[] }
      for (const value of [...(data.texts ?? []).map((x) => x.value), ...(data.attributes ?? []).map((x) => x.attributes)]) {
        const text = JSON.stringify(value)
        figures.values += text.length
        if (seen.has(text)) figures.repeatedValues += text.length
        else seen.add(text)
      }
    }
  }
  return figures
}

const kB = (n: number) => (n / 1000).toFixed(1)
const pct = (part: number, whole: number) => (whole ? ((100 * part) / whole).toFixed(1) + '%' : '')

export interface DictionaryRow {
  app: string
  minutes: number
  recordedMinutes: number
  /** Stylesheet texts stored once per project, added to both sides as in the summary. */
  styles: number
  /** Bytes as stored and of them DOM changes (mutation events, estimated as in the summary). */
  stored: number
  mutationStored: number
  /** The page's main-thread task time over the visits, ms (Chromium's TaskDuration). */
  taskMs: number
  sessions: DictionaryFigures[]
}

/** Per app and session length: before and after in kB per recorded minute, the dictionary's costs, the read. */
export function dictionaryTable(rows: DictionaryRow[]): string[] {
  const lines = [
    '| App | Session | Before: adds once per chunk, kB / min | After: once per page view, kB / min | As stored (browser gzip), kB / min | DOM changes\' share of stored | Dictionary: added write time, share of main thread | Largest dictionary (contents, JSON kB, heap kB) | Read longest session: before, after (ms) | Text and attribute values sent before (of their JSON) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const r of rows) {
    const sum = (key: keyof DictionaryFigures) => r.sessions.reduce((total, s) => total + s[key], 0)
    const minutes = Math.max(r.recordedMinutes, 1e-9)
    const largest = r.sessions.reduce((max, s) => (s.heap > max.heap ? s : max), r.sessions[0])
    const longest = r.sessions.reduce((max, s) => (s.before > max.before ? s : max), r.sessions[0])
    const added = Math.max(0, sum('writeAfterMs') - sum('writeBeforeMs'))
    lines.push(
      `| ${r.app} | ${r.minutes} min | ${kB((sum('before') + r.styles) / minutes)} | **${kB((sum('after') + r.styles) / minutes)}** | ${kB((r.stored + r.styles) / minutes)} | ${pct(r.mutationStored, r.stored)} | ${added.toFixed(0)} ms, ${pct(added, r.taskMs)} | ${largest?.entries ?? 0}, ${kB(largest?.chars ?? 0)}, ${kB(largest?.heap ?? 0)} | ${longest?.readBeforeMs.toFixed(0)}, ${longest?.readAfterMs.toFixed(0)} | ${pct(sum('repeatedValues'), sum('values'))} |`,
    )
  }
  return lines
}
