import { focusRowWhenDrawn } from '../ui/request-list';
import { leaveOnEscape } from '../ui/search-field';

/**
 * The live list's filter (lib/filter.ts). Enter goes to the first matching row, so the keyboard
 * carries on into the list; Escape leaves the box with the filter kept (ui/search-field.ts).
 */
export function ListFilter({ value, onChange, firstId }: { value: string; onChange: (value: string) => void; firstId: string | undefined }) {
  return (
    <div className="list-filter">
      <input
        type="search"
        aria-label="Filter requests"
        placeholder="Filter: path, method:post, event:…, -word"
        value={value}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          const input = e.currentTarget;
          if (e.key === 'Enter' && firstId) {
            e.preventDefault();
            focusRowWhenDrawn(document, firstId, () => document.activeElement === input);
          } else leaveOnEscape(e);
        }}
      />
    </div>
  );
}
