/**
 * The project's pages (POST /cli/pages.list), busiest first, as a picker
 * shared by the data screens: the first answer's pages, and as the user
 * types, the first answer of a search; never every page (a project may hold
 * 10,000).
 */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { useAsync, type Async } from '../components.js'
import { plural } from '../format.js'
import type { PageRow, PagesListAnswer } from '../model.js'

const pageLists = new Map<string, Promise<PageRow[]>>()

/** Pages the picker offers at once. */
const PICKER_PAGES = 100

export function usePages(projectId: string, search = ''): Async<PageRow[]> {
  return useAsync(() => {
    const id = JSON.stringify([projectId, search])
    let pending = pageLists.get(id)
    if (!pending) {
      const body = { projectId, limit: PICKER_PAGES, ...(search ? { search } : {}) }
      pending = api.post<PagesListAnswer>('/cli/pages.list', body).then((a) => [...a.pages].sort((x, y) => (y.views ?? 0) - (x.views ?? 0)))
      pageLists.set(id, pending)
      pending.catch(() => pageLists.delete(id))
      // Fresh within a minute: new pages appear as traffic lands.
      setTimeout(() => pageLists.get(id) === pending && pageLists.delete(id), 60_000)
    }
    return pending
  }, [projectId, search])
}

/** A page key (`shop.test/{tenant}/settings/:id`) as its display path (`/{tenant}/settings/:id`); a display path stays as it is. */
export function displayPath(page: string): string {
  const slash = page.indexOf('/')
  return slash <= 0 ? page : page.slice(slash)
}

/** How a page reads: its display path (the page list already gives it; keys in other answers carry the host). */
export function pageLabel(page: PageRow | string): string {
  return typeof page === 'string' ? displayPath(page) : page.page
}

export function PagePicker({ pages: busiest, value, onChange, allowAny, id = 'page', projectId }: { pages: PageRow[]; value: string; onChange: (page: string) => void; allowAny?: string; id?: string; projectId?: string }) {
  const [search, setSearch] = useState('')
  const found = usePages(projectId ?? '', search)
  const pages = projectId && search ? (found.data ?? []) : busiest
  const known = pages.some((p) => p.page === value)
  return (
    <label>
      <span>Page</span>
      {projectId && (
        <input type="search" id={`${id}-search`} placeholder="Search pages" aria-label="Search pages" value={search} onInput={(e) => setSearch(e.currentTarget.value.trim())} />
      )}
      <select id={id} name="page" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {allowAny !== undefined && <option value="">{allowAny}</option>}
        {!known && value && <option value={value}>{value}</option>}
        {pages.map((p) => (
          <option key={p.page} value={p.page}>
            {pageLabel(p)} ({plural(p.views, 'view')})
          </option>
        ))}
      </select>
    </label>
  )
}
