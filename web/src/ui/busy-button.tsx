/**
 * A button that refuses clicks while its action runs but keeps the focus. `disabled` would drop it:
 * Chromium blurs a focused button the moment it becomes disabled, so after pressing Save (or
 * Create key, Sign in, …) from the keyboard the focus fell to the page and the reader started
 * again from the top. `aria-disabled` says the same to assistive tech; the click (and a form's
 * implicit submission, which clicks its submit button) is swallowed while `busy`.
 */
import { useRef, type ComponentProps } from 'react';

/**
 * How long after a click the next one is taken for the same press. `busy` reaches the button only
 * on a later render: TanStack Query tells a mutation's observers in a timeout of its own, set when
 * the click (or the submit it causes) starts the mutation, so this one, set at the click and
 * longer, runs after that render. A double click, or Enter pressed twice, came in between and ran
 * the action twice: two endpoints, two keys (one never shown), two teams, a second reset mail
 * that voided the first, "API key not found" after deleting one.
 */
const SAME_PRESS_MS = 50;

export function BusyButton({ busy, onClick, ...rest }: ComponentProps<'button'> & { busy: boolean }) {
  const pressed = useRef(false);
  return (
    <button
      {...rest}
      aria-disabled={busy || undefined}
      onClick={(e) => {
        if (busy || pressed.current) {
          e.preventDefault();
          return;
        }
        pressed.current = true;
        setTimeout(() => {
          pressed.current = false;
        }, SAME_PRESS_MS);
        onClick?.(e);
      }}
    />
  );
}
