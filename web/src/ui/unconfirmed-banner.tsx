/**
 * A slim line under the top bar on every signed-in page while the account's address is not
 * confirmed: until it is, an AI agent that proves the mailbox takes the account over
 * (docs/agents.md), which the Account page's notice alone left unsaid everywhere else. It links to
 * Account ("Confirm your address"), where **Resend verification email** is; there, where that notice says it in full, it is
 * not shown. **Dismiss** hides it for this tab's session (sessionStorage), not for good: the risk
 * lasts until the address is confirmed, so it comes back in the next session, yet it does not nag
 * on every page of the one where it was read.
 */
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useMe } from '../api/queries';
import { paths } from '../paths';

const DISMISSED = 'hookcap.unconfirmed-banner-dismissed';

function dismissedThisSession(): boolean {
  try {
    return sessionStorage.getItem(DISMISSED) === '1';
  } catch {
    return false; // storage refused (a private mode): shown, and Dismiss still hides it for this page's life
  }
}

export function UnconfirmedBanner() {
  const me = useMe();
  const [location] = useLocation();
  const [dismissed, setDismissed] = useState(dismissedThisSession);
  if (!me.data || me.data.emailVerified || dismissed || location === paths.account) return null;
  return (
    <aside className="unconfirmed-banner" aria-label="Address not confirmed">
      <p>
        {/* A phone gets the short words: one line of its own, not three above the list. */}
        <span className="banner-wide">Your email address is not confirmed: until it is, an AI agent that proves your mailbox can take this account over.</span>
        <span className="banner-narrow">Email not confirmed.</span> <Link href={paths.account}>Confirm your address</Link>
      </p>
      <button
        type="button"
        className="small banner-dismiss"
        aria-label="Dismiss"
        title="Dismiss: hidden until this tab's session ends"
        onClick={() => {
          try {
            sessionStorage.setItem(DISMISSED, '1');
          } catch {
            // kept for this page's life only
          }
          setDismissed(true);
          // The button goes: the focus goes on to the page below rather than to nowhere.
          const heading = document.querySelector<HTMLElement>('main h1');
          if (heading && !heading.hasAttribute('tabindex')) heading.tabIndex = -1;
          heading?.focus();
        }}
      >
        ✕
      </button>
    </aside>
  );
}
