import type { Ref } from 'react';
import { copyText } from '../lib/browser';
import { errorText } from '../api/client';
import { announce } from './toast';

/** A button that copies `text` (or what `text()` returns) and says so; off with `disabled`. */
export function CopyButton({ text, label, ariaLabel, title, done, className, ref, disabled }: { text: string | (() => string); label: string; ariaLabel?: string; title?: string; done?: string; className?: string; ref?: Ref<HTMLButtonElement>; disabled?: boolean }) {
  return (
    <button
      ref={ref}
      type="button"
      className={className}
      aria-label={ariaLabel}
      title={title}
      disabled={disabled}
      onClick={() => {
        copyText(typeof text === 'function' ? text() : text).then(
          () => announce(done ?? 'Copied to the clipboard'),
          (e: unknown) => announce(`Could not copy: ${errorText(e)}`),
        );
      }}
    >
      {label}
    </button>
  );
}
