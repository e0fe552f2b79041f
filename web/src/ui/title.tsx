import { useEffect } from 'react';

/** The tab's title: the view first, then the product. */
export function useTitle(view: string | null): void {
  useEffect(() => {
    document.title = view ? `${view} · hookcap` : 'hookcap';
  }, [view]);
}
