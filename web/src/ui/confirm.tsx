/** A modal confirmation (ModalDialog: focus kept inside, Escape cancels, announcements said inside). */
import { useId, type ReactNode } from 'react';
import { BusyButton } from './busy-button';
import { ModalDialog } from './modal';

export function ConfirmDialog(props: { open: boolean; title: string; children: ReactNode; confirm: string; danger?: boolean; busy?: boolean; onConfirm: () => void; onCancel: () => void }) {
  const titleId = useId();
  return (
    <ModalDialog open={props.open} labelledBy={titleId} onCancel={props.onCancel}>
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
    </ModalDialog>
  );
}
