/** One titled part of a settings page (a region named by its heading), and the row of its buttons. */
import { useEffect, useId, useState, type ReactNode } from 'react';

export function Section({ title, intro, children, className }: { title: string; intro?: ReactNode; children: ReactNode; className?: string }) {
  const id = useId();
  return (
    <section className={className ? `settings-section ${className}` : 'settings-section'} aria-labelledby={id}>
      {/* tabIndex -1: the focus can be handed to the heading when what had it goes away (ui/focus.ts). */}
      <h2 id={id} tabIndex={-1}>
        {title}
      </h2>
      {intro ? <div className="section-intro">{intro}</div> : null}
      {children}
    </section>
  );
}

/** "Saved." for a few seconds after each success (`at` changes on every success). */
export function SavedNote({ at, text = 'Saved.' }: { at: number; text?: string }) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (at === 0) return;
    setShown(true);
    const t = setTimeout(() => setShown(false), 4000);
    return () => clearTimeout(t);
  }, [at]);
  return (
    <span className="saved-note" role="status">
      {shown ? text : ''}
    </span>
  );
}

export function Actions({ children }: { children: ReactNode }) {
  return <div className="form-actions">{children}</div>;
}
