/** Name/value pairs as a table: headers, query parameters, form fields. Values are shown as text. */
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
            <td>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
