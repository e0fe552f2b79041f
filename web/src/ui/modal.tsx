/**
 * A modal dialog on the native <dialog> (`showModal`: the focus kept inside, Escape cancels), for
 * every modal of the dashboard (confirmations, Replay).
 *
 * While it is open, everything outside it is inert, the page's status region (`Toasts`, in the
 * layout) included: what is announced then ("Copied the replay command", "First request received:
 * POST /" arriving behind a confirmation) would be neither heard nor seen above the backdrop. So
 * the open dialog holds a copy of that region: the same messages, said from inside the top layer.
 * When it closes, the copy goes and the page's own region, no longer inert, speaks again.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { Toasts } from './toast';

export function ModalDialog(props: { open: boolean; labelledBy: string; className?: string; onCancel: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  useEffect(() => {
    const d = ref.current;
    // A dialog rendered only while open (Replay's) is unmounted open: closed as Close and Escape
    // close it, not only dropped from the page.
    return () => {
      if (d?.open) d.close();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={props.className ? `dialog ${props.className}` : 'dialog'}
      aria-labelledby={props.labelledBy}
      onCancel={props.onCancel}
      onClose={() => props.open && props.onCancel()}
    >
      {props.children}
      {props.open ? <Toasts /> : null}
    </dialog>
  );
}
