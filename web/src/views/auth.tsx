/** Sign in and sign up: the same accounts and `session` cookie as the API. */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { useHistoryState } from 'wouter/use-browser-location';
import { signInNote, useSignIn } from '../api/queries';
import { paths, returnPath } from '../paths';
import { ErrorMessage } from '../ui/error';
import { BusyButton } from '../ui/busy-button';
import { focusNextPageHeading, useFocusNextPageHeading } from '../ui/focus';
import { MIN_PASSWORD_LENGTH } from '../../../src/model/password';

export function AuthScreen({ mode }: { mode: 'signin' | 'signup' }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = useSignIn(mode);
  const signup = mode === 'signup';
  // Read at mount: the app came here by itself (the session expired) and says so.
  const [note] = useState(signInNote);
  const emailField = useRef<HTMLInputElement>(null);
  const shown = useRef(mode);
  // The form a sign-in or sign-up was sent from: its refusal is not shown on the other form even
  // for the one render before the effect below resets it (a test caught it there).
  const [sentFrom, setSentFrom] = useState(mode);
  const { reset } = submit;
  // Where the visitor was going (/teams from an invite mail): the switch between the two forms
  // carries it along, so signing up lands there too, not on the home page.
  const [location] = useLocation();
  // Logged out: Log out went with the signed-in frame, so this form's heading takes the focus.
  const main = useRef<HTMLElement>(null);
  useFocusNextPageHeading(main, location);
  const carried = useHistoryState<{ from?: unknown } | null>()?.from;
  const from = returnPath(location) ?? returnPath(carried);
  const carry = from ? { from } : undefined;
  // "Create an account" and "Sign in" swap the form in place: the link that had the focus now
  // names the way back (Enter again would undo it), and the last form's error is not this one's.
  // So the form starts over: no error, the focus in Email.
  useEffect(() => {
    if (shown.current === mode) return;
    shown.current = mode;
    reset();
    emailField.current?.focus();
  }, [mode, reset]);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    // Signed in, the app shows where the visitor was going (the sign-in pages themselves lead home).
    focusNextPageHeading();
    setSentFrom(mode);
    submit.mutate({ email, password }, { onError: () => focusNextPageHeading(false) });
  };

  return (
    <main className="auth" ref={main}>
      <p className="brand-line">
        <span className="brand">hookcap</span>
      </p>
      <p className="muted">Capture webhooks and watch them arrive, live.</p>
      <h1>{signup ? 'Create an account' : 'Sign in'}</h1>
      {note !== null && !signup ? (
        <p className="notice" role="status">
          {note}
        </p>
      ) : null}
      <form onSubmit={onSubmit} aria-label={signup ? 'Create an account' : 'Sign in'}>
        <label htmlFor="auth-email">Email</label>
        <input id="auth-email" ref={emailField} type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor="auth-password">{signup ? `Password (at least ${MIN_PASSWORD_LENGTH} characters)` : 'Password'}</label>
        <input
          id="auth-password"
          type="password"
          autoComplete={signup ? 'new-password' : 'current-password'}
          minLength={signup ? 8 : undefined}
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        {signup ? null : (
          <p className="forgot-link">
            <Link href={paths.forgotPassword}>Forgot password?</Link>
          </p>
        )}
        {submit.error && sentFrom === mode ? <ErrorMessage error={submit.error} /> : null}
        <BusyButton type="submit" className="primary" busy={submit.isPending}>
          {signup ? 'Sign up' : 'Sign in'}
        </BusyButton>
      </form>
      <p className="muted">
        {signup ? (
          <>
            Have an account?{' '}
            <Link href={paths.signIn} state={carry}>
              Sign in
            </Link>
          </>
        ) : (
          <>
            New to hookcap?{' '}
            <Link href={paths.signUp} state={carry}>
              Create an account
            </Link>
          </>
        )}
      </p>
    </main>
  );
}
