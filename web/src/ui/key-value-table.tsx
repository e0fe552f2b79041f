/** Name/value pairs as a table: headers, query parameters, form fields. Values are shown as text. */
import { useId } from 'react';
import { useFold } from './fold';

/** Shorter values never fill the folded lines, even in a phone's narrow column: no measuring. */
const FOLD_FROM = 80;

/**
 * A long value (a 3,000-character token from a sender) folded to a few lines with Show all, as the
 * detail's long URL is, so one header does not push the rest of the table 40 lines down.
 */
function FoldedValue({ name, value }: { name: string; value: string }) {
  const id = useId();
  const { ref, expanded, toggleable, toggle } = useFold<HTMLSpanElement>(value);
  return (
    <>
      <span ref={ref} id={id} className={expanded ? 'kv-value' : 'kv-value clamped'}>
        {value}
      </span>
      {toggleable ? (
        // Named for its row: a table of several long values has several of these.
        <button type="button" className="small kv-toggle" aria-expanded={expanded} aria-controls={id} aria-label={`${expanded ? 'Show less' : 'Show all'} of ${name}`} onClick={toggle}>
          {expanded ? 'Show less' : 'Show all'}
        </button>
      ) : null}
    </>
  );
}

export function KeyValueTable({ label, rows }: { label: string; rows: [string, string][] }) {
  return (
    <table className="kv" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([k, v], i) => (
          <tr key={`${k}\0${i}`}>
            <th scope="row">{k}</th>
            <td>{v.length < FOLD_FROM ? v : <FoldedValue name={k} value={v} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
