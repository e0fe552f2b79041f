/**
 * A button that refuses clicks while its action runs but keeps the focus. `disabled` would drop it:
 * Chromium blurs a focused button the moment it becomes disabled, so after pressing Save (or
 * Create key, Sign in, …) from the keyboard the focus fell to the page and the reader started
 * again from the top. `aria-disabled` says the same to assistive tech; the click (and a form's
 * implicit submission, which clicks its submit button) is swallowed while `busy`.
 */
import type { ComponentProps } from 'react';

export function BusyButton({ busy, onClick, ...rest }: ComponentProps<'button'> & { busy: boolean }) {
  return (
    <button
      {...rest}
      aria-disabled={busy || undefined}
      onClick={(e) => {
        if (busy) {
          e.preventDefault();
          return;
        }
        onClick?.(e);
      }}
    />
  );
}
