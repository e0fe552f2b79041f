/**
 * The page the sign-up verification link opens, `/verify-email#token=evf_…`. The token is read
 * from the fragment (never sent to a server by the page load) and dropped from the address bar at
 * once. Confirming takes a press, after the page says what it means: whoever receives a link for
 * an account they did not create should not confirm it (docs/security.md, "Proving the address").
 * Works signed in or not; it starts no session.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link } from 'wouter';
import { ApiError, api, unwrap } from '../api/client';
import { keys } from '../api/queries';
import { paths } from '../paths';
import { BusyButton } from '../ui/busy-button';
import { ErrorMessage } from '../ui/error';
import { useTitle } from '../ui/title';
import { useFragmentToken } from '../ui/fragment-token';

export function VerifyEmailView() {
  useTitle('Confirm your address');
  const token = useFragmentToken();
  // Another link opened in the same tab: a fresh page for it, nothing kept from the last.
  return <VerifyEmail key={token} token={token} />;
}

function VerifyEmail({ token }: { token: string }) {
  const qc = useQueryClient();
  const confirm = useMutation({
    mutationFn: () => unwrap(api.auth['verify-email'].post({ token })),
    // A signed-in browser's account object now says emailVerified (the Account page's notice goes).
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.me }),
  });
  const doneRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (confirm.isSuccess || confirm.isError) doneRef.current?.focus();
  }, [confirm.isSuccess, confirm.isError]);
  const badLink = token === '' || (confirm.error instanceof ApiError && confirm.error.code === 'invalid_verification_token');

  return (
    <main className="auth">
      <p className="brand-line">
        <span className="brand">hookcap</span>
      </p>
      <h1>Confirm your address</h1>
      {confirm.isSuccess ? (
        <div className="ok" role="status" tabIndex={-1} ref={doneRef}>
          <p>
            Your address <strong>{confirm.data.email}</strong> is confirmed.
          </p>
          <p>
            <Link href={paths.home}>Continue to the dashboard</Link>
          </p>
        </div>
      ) : badLink ? (
        <div className="error" role="alert" tabIndex={-1} ref={doneRef}>
          <p>This confirmation link is invalid or has expired.</p>
          <p>
            Sign in and ask for a new one on the <Link href={paths.account}>Account page</Link>.
          </p>
        </div>
      ) : (
        <div>
          <p>This link confirms that the mailbox it was sent to belongs to whoever created the hookcap account for it.</p>
          <p className="muted">If you did not create a hookcap account, do not confirm: close this page.</p>
          {confirm.error ? <ErrorMessage error={confirm.error} /> : null}
          <BusyButton type="button" className="primary" busy={confirm.isPending} onClick={() => confirm.mutate()}>
            Confirm my address
          </BusyButton>
        </div>
      )}
    </main>
  );
}
