/**
 * "Forgot password?": a form that asks for the address (the answer never says whether an account
 * has it), and the page the mailed link opens, `/reset-password#token=rst_…`. The token is read
 * from the fragment, which the browser never sends to a server, and dropped from the address bar
 * at once (a second link opened in the same tab starts afresh); the new password is asked twice, and setting it signs the visitor in.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { ApiError, api, errorText, unwrap } from '../api/client';
import { switchAccount, useMe } from '../api/queries';
import { paths } from '../paths';
import { BusyButton } from '../ui/busy-button';
import { ErrorMessage } from '../ui/error';
import { useTitle } from '../ui/title';
import { Field } from '../ui/field';
import { useFragmentToken } from '../ui/fragment-token';
import { MIN_PASSWORD_LENGTH as MIN_PASSWORD } from '../../../src/model/password';

function Brand() {
  return (
    <p className="brand-line">
      <span className="brand">hookcap</span>
    </p>
  );
}

export function ForgotPasswordView() {
  useTitle('Reset your password');
  const [email, setEmail] = useState('');
  const send = useMutation({ mutationFn: (body: { email: string }) => unwrap(api.auth['password-reset'].post(body)) });
  // The form goes once sent: the focus moves to the message that replaces it, not to the page.
  const sentRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (send.isSuccess) sentRef.current?.focus();
  }, [send.isSuccess]);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate({ email });
  };

  return (
    <main className="auth">
      <Brand />
      <h1>Reset your password</h1>
      {send.isSuccess ? (
        <div className="ok" role="status" tabIndex={-1} ref={sentRef}>
          <p>If an account exists for {email}, we sent it a link to set a new password. The link works once and expires soon.</p>
          <p>No mail? Check the spam folder, or ask again in a few minutes.</p>
        </div>
      ) : (
        <form onSubmit={onSubmit} aria-label="Reset your password">
          <p className="muted">Enter the address of your account. We will mail it a link to set a new password.</p>
          <label htmlFor="forgot-email">Email</label>
          <input id="forgot-email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
          {send.error ? <ErrorMessage error={send.error} /> : null}
          <BusyButton type="submit" className="primary" busy={send.isPending}>
            Send reset link
          </BusyButton>
        </form>
      )}
      <p className="muted">
        Remembered it? <Link href={paths.signIn}>Sign in</Link>
      </p>
    </main>
  );
}

/** "Your API key was" / "Your 2 API keys were" (the server's notice mail says it alike). */
const keysPhrase = (n: number) => (n === 1 ? 'Your API key was' : `Your ${n} API keys were`);

/** The answer to a used reset link: what it means to the visitor. */
function ResetDone({ email, revokedApiKeys }: { email: string; revokedApiKeys: number }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div className="ok" role="status" tabIndex={-1} ref={ref}>
      <p>
        Your new password is set. Signed in as <strong>{email}</strong>; every other browser session was signed out.
      </p>
      {revokedApiKeys > 0 ? (
        <p>
          {keysPhrase(revokedApiKeys)} revoked; create new ones in <Link href={paths.account}>Account settings</Link>.
        </p>
      ) : null}
      <p>
        <Link href={paths.home}>Continue to the dashboard</Link>
      </p>
    </div>
  );
}

/** The browser is signed in to another account than the link's: nothing changes until the visitor says so. */
function SwitchPrompt({ current, target, onSwitch }: { current: string; target: string; onSwitch: () => void }) {
  const [, setLocation] = useLocation();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div className="error switch-prompt" role="alert" tabIndex={-1} ref={ref}>
      <p>
        This browser is signed in as <strong>{current}</strong>, but this link sets the password of <strong>{target}</strong> and signs this
        browser in as <strong>{target}</strong> instead.
      </p>
      <p>If you did not ask for a reset of {target}, someone else may have sent you this link: cancel.</p>
      <div className="switch-actions">
        <button type="button" className="primary" onClick={onSwitch}>
          Switch to {target}
        </button>
        <button type="button" onClick={() => setLocation(paths.home, { replace: true })}>
          Cancel
        </button>
      </div>
    </div>
  );
}

export function ResetPasswordView() {
  useTitle('Choose a new password');
  const token = useFragmentToken();
  return <ResetPasswordForm key={token} token={token} />;
}

function ResetPasswordForm({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  /** The visitor agreed to leave the account this browser is signed in to. */
  const [switchAgreed, setSwitchAgreed] = useState(false);
  /** A problem found before sending, shown under the field it concerns. */
  const [problem, setProblem] = useState<{ field: 'password' | 'again'; text: string } | null>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const againRef = useRef<HTMLInputElement>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  const qc = useQueryClient();
  const me = useMe();
  // Which account the link belongs to, asked without using it: named on the page, compared with the session.
  const account = useQuery({
    queryKey: ['password-reset-account', token],
    queryFn: () => unwrap(api.auth['password-reset'].account.post({ token })),
    enabled: token !== '',
    retry: false,
    staleTime: Infinity,
  });
  const reset = useMutation({
    mutationFn: (body: { token: string; password: string }) => unwrap(api.auth['password-reset'].confirm.post(body)),
    onSuccess: (out) => switchAccount(qc, out.user),
  });
  // A refused password: back to its field; a bad link: to the message, which offers a new one.
  useEffect(() => {
    if (!reset.error) return;
    if (reset.error instanceof ApiError && reset.error.code === 'validation') passwordRef.current?.focus();
    else errorRef.current?.focus();
  }, [reset.error]);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (password.length < MIN_PASSWORD) {
      setProblem({ field: 'password', text: `The password needs at least ${MIN_PASSWORD} characters.` });
      passwordRef.current?.focus();
      return;
    }
    if (password !== again) {
      setProblem({ field: 'again', text: 'The two passwords differ. Type the same password twice.' });
      againRef.current?.focus();
      return;
    }
    setProblem(null);
    reset.mutate({ token, password });
  };

  const shell = (body: ReactNode) => (
    <main className="auth">
      <Brand />
      <h1>Choose a new password</h1>
      {body}
    </main>
  );

  if (!token) {
    return shell(
      <div className="error" role="alert">
        This page needs the link from the password-reset mail, and it has none. Open the link from the mail again, or{' '}
        <Link href={paths.forgotPassword}>ask for a new link</Link>.
      </div>,
    );
  }
  if (reset.isSuccess) return shell(<ResetDone email={reset.data.user.email} revokedApiKeys={reset.data.revokedApiKeys} />);
  if (account.isPending || me.isPending) return shell(<p className="muted">Checking the link…</p>);

  const badLink = (e: unknown) => e instanceof ApiError && e.code === 'invalid_reset_token';
  if (account.error) {
    return shell(
      <div className="error" role="alert">
        {badLink(account.error) ? 'This link is invalid or has expired (each link works once, and a newer one replaces it). ' : `${errorText(account.error)} `}
        <Link href={paths.forgotPassword}>Ask for a new link</Link>
      </div>,
    );
  }
  const target = account.data.email;
  const current = me.data?.email ?? null;
  if (current !== null && current.toLowerCase() !== target.toLowerCase() && !switchAgreed) {
    return shell(<SwitchPrompt current={current} target={target} onSwitch={() => setSwitchAgreed(true)} />);
  }

  const passwordProblem = problem?.field === 'password' ? problem.text : reset.error instanceof ApiError && reset.error.code === 'validation' ? reset.error.message : null;
  const againProblem = problem?.field === 'again' ? problem.text : null;
  const otherError = reset.error && !passwordProblem && !problem ? reset.error : null;
  return shell(
    <>
      <p>
        For the account <strong>{target}</strong>.
      </p>
      <form onSubmit={onSubmit} aria-label="Choose a new password" noValidate>
        <Field label={`New password (at least ${MIN_PASSWORD} characters)`} error={passwordProblem}>
          <input
            ref={passwordRef}
            type="password"
            autoComplete="new-password"
            minLength={MIN_PASSWORD}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <Field label="Confirm new password" error={againProblem}>
          <input ref={againRef} type="password" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
        </Field>
        {otherError ? (
          <div className="error" role="alert" tabIndex={-1} ref={errorRef}>
            {badLink(otherError) ? 'This link is invalid or has expired (each link works once, and a newer one replaces it). ' : `${errorText(otherError)} `}
            {badLink(otherError) ? <Link href={paths.forgotPassword}>Ask for a new link</Link> : null}
          </div>
        ) : null}
        <BusyButton type="submit" className="primary" busy={reset.isPending}>
          Set new password
        </BusyButton>
      </form>
      <p className="muted">
        Setting it signs this browser in as {target} and signs out every other browser session; if the account had a password, its API keys are revoked too.
      </p>
    </>,
  );
}
