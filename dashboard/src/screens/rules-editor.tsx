/**
 * Path rules with a live preview: the patterns are compiled and sample URLs
 * grouped in the browser by the very code the server groups with
 * (src/grouping/rules.ts, src/grouping/group.ts, bundled here), so the preview is
 * what ingest will do.
 */
import { useMemo, useState } from 'preact/hooks'
import { groupUrl } from '../../../src/grouping/group.js'
import { compileRules } from '../../../src/grouping/rules.js'

export function splitLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
}

export function RulesField({ value, onInput, domain, id = 'rules', optional = false }: { value: string; onInput: (value: string) => void; domain?: string; id?: string; optional?: boolean }) {
  const [samples, setSamples] = useState('')
  const compiled = useMemo(() => compileRules(splitLines(value)), [value])
  const preview = useMemo(() => {
    const host = (domain ?? '').trim() || 'example.com'
    return splitLines(samples).map((url) => {
      const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${host}${url.startsWith('/') ? '' : '/'}${url}`
      return { url, page: groupUrl(absolute, compiled.rules).path }
    })
  }, [samples, compiled, domain])
  return (
    <div class="rules stack">
      <label>
        <span>
          Path rules <span class="muted">({optional ? 'optional, ' : ''}one per line, first match wins)</span>
        </span>
        <textarea
          id={id}
          name="pathRules"
          rows={4}
          spellcheck={false}
          placeholder={'/docs/*\n/{tenant}/settings/*\n/{tenant}/{section}/*'}
          value={value}
          onInput={(e) => onInput(e.currentTarget.value)}
          aria-describedby={`${id}-help ${id}-status`}
          aria-invalid={compiled.invalid.length > 0}
        />
        <small id={`${id}-help`} class="muted">
          <code>{'{name}'}</code> matches one segment and shows as its name; a trailing <code>*</code> hands the rest to the automatic rules (numbers become <code>:id</code>, UUIDs <code>:uuid</code>, dates <code>:date</code>, hashes <code>:hash</code>). List literal prefixes above broad rules such as <code>{'/{a}/{b}/*'}</code>.
        </small>
      </label>
      <div id={`${id}-status`} aria-live="polite">
        {compiled.invalid.length > 0 && (
          <ul class="note error" data-testid="invalid-rules">
            {compiled.invalid.map((bad) => (
              <li key={bad.pattern}>
                <code>{bad.pattern}</code>: {bad.reason}
              </li>
            ))}
          </ul>
        )}
      </div>
      <label>
        <span>Preview: paste URLs, one per line</span>
        <textarea
          name="sampleUrls"
          rows={3}
          spellcheck={false}
          placeholder={'https://shop.example.com/acme/settings/42\n/products/8b1f0c2e-3a4d-4f5e-9a6b-7c8d9e0f1a2b'}
          value={samples}
          onInput={(e) => setSamples(e.currentTarget.value)}
        />
      </label>
      {preview.length > 0 && (
        <div class="table-wrap">
          <table class="preview" data-testid="rules-preview">
            <caption class="sr-only">Pages the sample URLs group into</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Page</th>
              </tr>
            </thead>
            <tbody>
              {preview.map((row, i) => (
                <tr key={i}>
                  <td class="break">{row.url}</td>
                  <td>
                    <code>{row.page}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  )
}
