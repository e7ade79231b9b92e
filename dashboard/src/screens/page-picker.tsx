/** The project's pages (POST /cli/pages.list), busiest first, as a picker shared by the data screens. */
import { api } from '../api.js'
import { useAsync, type Async } from '../components.js'
import { plural } from '../format.js'
import type { PageRow, PagesListAnswer } from '../model.js'

const pageLists = new Map<string, Promise<PageRow[]>>()

export function usePages(projectId: string): Async<PageRow[]> {
  return useAsync(() => {
    let pending = pageLists.get(projectId)
    if (!pending) {
      pending = api.post<PagesListAnswer>('/cli/pages.list', { projectId }).then((a) => [...a.pages].sort((x, y) => (y.views ?? 0) - (x.views ?? 0)))
      pageLists.set(projectId, pending)
      pending.catch(() => pageLists.delete(projectId))
      // Fresh within a minute: new pages appear as traffic lands.
      setTimeout(() => pageLists.get(projectId) === pending && pageLists.delete(projectId), 60_000)
    }
    return pending
  }, [projectId])
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

export function PagePicker({ pages, value, onChange, allowAny, id = 'page' }: { pages: PageRow[]; value: string; onChange: (page: string) => void; allowAny?: string; id?: string }) {
  const known = pages.some((p) => p.page === value)
  return (
    <label>
      <span>Page</span>
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
