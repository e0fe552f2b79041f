import { useLayoutEffect, useRef, useState } from 'react';

/**
 * Long text a sender chose (a URL, a header value of thousands of characters) shown folded to a
 * few lines by CSS (`line-clamp` on the element while `expanded` is false), with a toggle only
 * when it overflows. Whether it does depends on the pane's width, so it is measured, and again on
 * a resize (a resized window, a rotated phone).
 */
export function useFold<E extends HTMLElement>(text: string) {
  const ref = useRef<E>(null);
  const [expanded, setExpanded] = useState(false);
  const [overflows, setOverflows] = useState(false);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || expanded) return;
    const measure = () => setOverflows(el.scrollHeight > el.clientHeight + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [text, expanded]);
  /** The toggle is shown while the text overflows its folded lines, and while it is unfolded. */
  return { ref, expanded, toggleable: overflows || expanded, toggle: () => setExpanded((e) => !e) };
}
