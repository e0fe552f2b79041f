/**
 * **Export**: a disclosure with two download links for an endpoint's captures, HAR and NDJSON
 * (`GET /api/endpoints/{slug}/requests/export`, docs/exports.md), optionally narrowed by the
 * search filters. Plain links with `download`: the browser streams the file to disk with the
 * session cookie, however many captures there are, where a fetch would hold it all in memory.
 * Escape or a click elsewhere closes it, the focus back on **Export**.
 */
import { useDisclosure } from './disclosure';

export type ExportFilters = Partial<Record<'q' | 'header' | 'method' | 'from' | 'to' | 'pinned', string>>;

/** The export's URL for one endpoint, with the filters that are set (the API refuses empty ones). */
export function exportUrl(slug: string, format: 'har' | 'ndjson', filters: ExportFilters = {}): string {
  const p = new URLSearchParams({ format });
  for (const [k, v] of Object.entries(filters)) if (v) p.set(k, v);
  return `/api/endpoints/${encodeURIComponent(slug)}/requests/export?${p}`;
}

export function ExportMenu({ slug, filters, what, id }: { slug: string; filters?: ExportFilters; what: string; id: string }) {
  const menu = useDisclosure(id);
  return (
    <div className="export-menu" {...menu.boxProps}>
      <button type="button" className="small" {...menu.toggleProps}>
        Export <span aria-hidden="true">▾</span>
      </button>
      {menu.open ? (
        <div className="export-links" id={id} role="group" aria-label={`Export ${what}`}>
          <a href={exportUrl(slug, 'har', filters)} download onClick={menu.close}>
            <span>Download HAR</span>
            <small>{what}, for browser dev tools, Postman or Insomnia</small>
          </a>
          <a href={exportUrl(slug, 'ndjson', filters)} download onClick={menu.close}>
            <span>Download NDJSON</span>
            <small>{what}, one request record per line</small>
          </a>
        </div>
      ) : null}
    </div>
  );
}
