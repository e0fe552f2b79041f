/**
 * The open request compared with another (`?compare=<id>` on its URL): what differs in the request
 * facts, the headers and the body, each as a table of name, this request's value and the other's.
 * The other stays selected while requests are opened one after another (rows and j/k keep it).
 */
import { Link } from 'wouter';
import type { Capture } from '../api/client';
import { bodyDiff, factsDiff, headersDiff, type Diff } from '../lib/diff';
import { shownText } from '../lib/json-shown';
import { exactTime, plural } from '../lib/format';
import { readableCaptureQuery, readablePath } from '../lib/url';
import { ErrorMessage } from '../ui/error';

function DiffTable({ label, first, diff }: { label: string; first: string; diff: Diff }) {
  return (
    <table className="kv diff" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">{first}</th>
          <th scope="col">This request</th>
          <th scope="col">Compared with</th>
        </tr>
      </thead>
      <tbody>
        {diff.rows.map((r) => (
          <tr key={r.name}>
            {/* A sender's U+202E or zero-width space as its escape, as in the JSON tree. */}
            <th scope="row">{shownText(r.name)}</th>
            <td className={r.a === null ? 'absent' : 'changed'}>{r.a === null ? 'absent' : shownText(r.a)}</td>
            <td className={r.b === null ? 'absent' : 'changed'}>{r.b === null ? 'absent' : shownText(r.b)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Part({ title, label, first, diff, sameText }: { title: string; label: string; first: string; diff: Diff; sameText: string }) {
  return (
    <>
      <h4>{title}</h4>
      {diff.rows.length === 0 ? <p className="muted">{sameText}</p> : <DiffTable label={label} first={first} diff={diff} />}
      {diff.rows.length > 0 && diff.same > 0 ? <p className="muted">{plural(diff.same, 'other entry', 'other entries')} the same.</p> : null}
      {diff.note ? <p className="muted">{diff.note}</p> : null}
    </>
  );
}

export interface CompareProps {
  capture: Capture;
  /** The request selected for comparison, when loaded. */
  other: Capture | undefined;
  otherId: string;
  otherHref: string;
  error: unknown;
  stopHref: string;
  /** Told when Stop comparing is used (the page then puts the focus back on Compare's actions). */
  onStop?: () => void;
}

export function Compare({ capture, other, otherId, otherHref, error, stopHref, onStop }: CompareProps) {
  const stop = (
    <Link href={stopHref} className="button small" onClick={onStop}>
      Stop comparing
    </Link>
  );
  if (otherId === capture.id) {
    return (
      <section className="compare" aria-label="Comparison">
        <p>
          Selected for comparison: open another request to see how it differs from this one. {stop}
        </p>
      </section>
    );
  }
  if (!other) {
    return (
      <section className="compare" aria-label="Comparison">
        {error ? <ErrorMessage error={error} /> : <p className="muted">Loading the request to compare with…</p>}
        {stop}
      </section>
    );
  }
  const body = bodyDiff(capture, other);
  return (
    <section className="compare" aria-labelledby="compare-title">
      <h3 id="compare-title">
        Compared with{' '}
        <Link href={otherHref}>
          {other.method} {readablePath(other.path)}
          {readableCaptureQuery(other)}
        </Link>
      </h3>
      <p className="muted">
        Received {exactTime(other.receivedAt)}. {stop}
      </p>
      <Part title="Request" label="Request differences" first="Field" diff={factsDiff(capture, other)} sameText="Method, path, type, size, status, sender and signature are the same." />
      <Part title="Headers" label="Header differences" first="Name" diff={headersDiff(capture, other)} sameText="The same headers, with the same values." />
      <Part title="Body" label="Body differences" first={body.by === 'line' ? 'Line' : body.by === 'field' ? 'Path' : 'Body'} diff={body} sameText="The same bytes." />
    </section>
  );
}
