/**
 * A disclosure: a button that shows and hides the box below it (Export, More actions, Switch
 * endpoint). It closes as a menu would, on a click elsewhere and on Escape anywhere in it; Escape
 * also puts the focus back on the button, since it was most likely inside the box, and the box
 * going would drop it to the page.
 *
 * @example
 * const menu = useDisclosure('export-links');
 * <div {...menu.boxProps}>
 *   <button type="button" {...menu.toggleProps}>Export</button>
 *   {menu.open ? <div id="export-links">…</div> : null}
 * </div>
 */
import { useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { useClickAway } from './click-away';

/**
 * `id` is the box's, for the button's `aria-controls`. `toggle`: a ref to the button, where its
 * caller needs one too (More actions: the focus goes back to it when the rename form closes).
 */
export function useDisclosure(id: string, toggle?: RefObject<HTMLButtonElement | null>) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const own = useRef<HTMLButtonElement>(null);
  const button = toggle ?? own;
  const close = () => setOpen(false);
  useClickAway(box, open, close);
  return {
    open,
    /** For what inside it is done once chosen (a link followed, a download started). */
    close,
    boxProps: {
      ref: box,
      onKeyDown: (e: KeyboardEvent) => {
        // Closed, Escape is not ours: it leaves a field, or closes a dialog.
        if (e.key !== 'Escape' || !open) return;
        e.preventDefault();
        setOpen(false);
        // A button not drawn (More actions above 600 px, where its group is always shown) takes
        // no focus, which stays where it was.
        button.current?.focus();
      },
    },
    toggleProps: {
      ref: button,
      'aria-expanded': open,
      'aria-controls': id,
      onClick: () => setOpen(!open),
    },
  };
}
