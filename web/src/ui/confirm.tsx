/** A modal confirmation on the native <dialog> (focus kept inside, Escape cancels). */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { BusyButton } from './busy-button';

export function ConfirmDialog(props: { open: boolean; title: string; children: ReactNode; confirm: string; danger?: boolean; busy?: boolean; onConfirm: () => void; onCancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onCancel={props.onCancel} onClose={() => props.open && props.onCancel()}>
      <h2 id={titleId}>{props.title}</h2>
      <div className="dialog-body">{props.children}</div>
      <div className="dialog-actions">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <BusyButton type="button" className={props.danger ? 'primary danger' : 'primary'} busy={props.busy ?? false} onClick={props.onConfirm}>
          {props.confirm}
        </BusyButton>
      </div>
    </dialog>
  );
}
