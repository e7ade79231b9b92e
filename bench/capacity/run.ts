/**
 * `npm run bench:capacity`: computes the capacity model (model.ts) and
 * writes its tables into docs/capacity.md, each between its markers
 * (`<!-- capacity:NAME -->` … `<!-- /capacity:NAME -->`), so the page's
 * figures are the model's output, never typed. Prints them too.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { capacityTables } from './model.js'

const PAGE = fileURLToPath(new URL('../../docs/capacity.md', import.meta.url))

export function fillPage(page: string, tables: Record<string, string>): string {
  for (const [name, table] of Object.entries(tables)) {
    const pattern = new RegExp(`(<!-- capacity:${name} -->)[\\s\\S]*?(<!-- /capacity:${name} -->)`)
    if (!pattern.test(page)) throw new Error(`docs/capacity.md has no markers for the ${name} table`)
    page = page.replace(pattern, (_, open: string, close: string) => `${open}\n${table}\n${close}`)
  }
  return page
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const tables = capacityTables()
  for (const [name, table] of Object.entries(tables)) console.log(`## ${name}\n\n${table}\n`)
  writeFileSync(PAGE, fillPage(readFileSync(PAGE, 'utf8'), tables))
  console.error('docs/capacity.md: tables written')
}
