/**
 * A labelled form field with its hint and its error beside it: the control gets the label's name,
 * and the hint and error as its description (aria-describedby), with aria-invalid while in error.
 */
import { cloneElement, useId, type ReactElement, type ReactNode } from 'react';

interface ControlProps {
  id?: string;
  'aria-describedby'?: string;
  'aria-invalid'?: boolean;
}

/** `action` (a button) sits on the control's row, so a hint or an error below never pushes it out of line. */
export function Field({ label, hint, error, action, children }: { label: string; hint?: string; error?: string | null; action?: ReactNode; children: ReactElement<ControlProps> }) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ');
  const control = cloneElement(children, { id, 'aria-describedby': described || undefined, 'aria-invalid': error ? true : undefined });
  return (
    <div className={error ? 'field has-error' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {action ? (
        <div className="field-control-row">
          {control}
          {action}
        </div>
      ) : (
        control
      )}
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
