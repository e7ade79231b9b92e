/**
 * What ran in Chromium, per source file: the V8 coverage browser-coverage.ts
 * wrote for the tracker's and the dashboard's bundles, merged per bundle and
 * mapped through its source map to tracker/src and dashboard/src. Done here
 * rather than by c8, whose exclusion test sees a bundle's sources by their
 * unresolved names and so counts every line of a many-source map as run.
 */
import { mergeProcessCovs, type ProcessCov } from '@bcoe/v8-coverage'
import libCoverage from 'istanbul-lib-coverage'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import v8toIstanbul from 'v8-to-istanbul'

export type Count = { total: number; covered: number }
export type FileFigures = { lines: Count; branches: Count; functions: Count }

export async function chromiumCoverage(rawDir: string, folders: string[]): Promise<Record<string, FileFigures>> {
  const files = readdirSync(rawDir).filter((name) => name.startsWith('coverage-chromium-'))
  if (files.length === 0) return {}
  const merged = mergeProcessCovs(files.map((name) => JSON.parse(readFileSync(join(rawDir, name), 'utf8')) as ProcessCov))
  const map = libCoverage.createCoverageMap({})
  for (const script of merged.result) {
    const converter = v8toIstanbul(fileURLToPath(script.url), 0)
    await converter.load()
    converter.applyCoverage(script.functions)
    map.merge(converter.toIstanbul())
  }
  const figures: Record<string, FileFigures> = {}
  for (const file of map.files()) {
    if (!folders.some((folder) => file.startsWith(folder))) continue
    const summary = map.fileCoverageFor(file).toSummary()
    const count = (kind: 'lines' | 'branches' | 'functions') => ({ total: summary[kind].total, covered: summary[kind].covered })
    figures[file] = { lines: count('lines'), branches: count('branches'), functions: count('functions') }
  }
  return figures
}
