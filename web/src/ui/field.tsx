/**
 * A labelled form field with its hint and its error beside it: the control gets the label's name,
 * and the hint and error as its description (aria-describedby), with aria-invalid while in error.
 * A warning (something saved that will not work as hoped) is described too, but not invalid.
 */
import { cloneElement, useId, type ReactElement, type ReactNode } from 'react';

interface ControlProps {
  id?: string;
  'aria-describedby'?: string;
  'aria-invalid'?: boolean;
}

/**
 * `action` (a button) sits on the control's row, so a hint or an error below never pushes it out of line.
 * `warning`: pass it (null while there is none) to keep a status region in place, so a warning
 * that appears later is announced, not only found when the control is next focused.
 */
export function Field({
  label,
  hint,
  error,
  warning,
  action,
  children,
}: {
  label: string;
  hint?: string;
  error?: string | null;
  warning?: string | null;
  action?: ReactNode;
  children: ReactElement<ControlProps>;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const warningId = `${id}-warning`;
  const described = [error ? errorId : null, warning ? warningId : null, hint ? hintId : null].filter(Boolean).join(' ');
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
      {warning !== undefined ? (
        <div role="status">
          {warning ? (
            <p id={warningId} className="field-warning">
              {warning}
            </p>
          ) : null}
        </div>
      ) : null}
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
