/**
 * A secret the server shows once (a new API key, a notification signing secret): the value with a
 * copy button and a dismiss button, in a region named for it. The focus goes to its copy button
 * when it appears, so a keyboard or screen reader user lands on it instead of on the button that
 * made it. The value lives only in the caller's state until dismissed.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { CopyButton } from './copy-button';
import { Actions } from './section';

export function ShownOnce(props: {
  /** The region's name ("New API key"). */
  region: string;
  /** What to do with it, starting with "Copy … now. It will not be shown again". */
  warning: ReactNode;
  value: string;
  /** The value's accessible name ("API key ci"). */
  valueLabel: string;
  copyLabel: string;
  /** Announced once copied. */
  copied: string;
  onDone: () => void;
}) {
  const copy = useRef<HTMLButtonElement>(null);
  useEffect(() => copy.current?.focus(), []);
  return (
    <div className="new-key" role="region" aria-label={props.region}>
      <p className="new-key-warning">{props.warning}</p>
      <p className="new-key-line">
        <code className="raw-key" aria-label={props.valueLabel}>
          {props.value}
        </code>
      </p>
      <Actions>
        <CopyButton text={props.value} label={props.copyLabel} done={props.copied} className="primary" ref={copy} />
        <button type="button" onClick={props.onDone}>
          I have copied it
        </button>
      </Actions>
    </div>
  );
}
