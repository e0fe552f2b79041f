/**
 * Changing the password with the current one (`POST /api/account/password`). Problems found before
 * sending, and the server's refusals of a field, show under that field (announced, and the focus
 * goes there); success is said in a status region, which is on the page before it has anything to
 * say so that screen readers announce it.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import { placeError } from '../../lib/field-error';
import { useChangePassword } from '../../api/account';
import { BusyButton } from '../../ui/busy-button';
import { ErrorMessage } from '../../ui/error';
import { Field } from '../../ui/field';
import { Section } from '../../ui/section';
import { MIN_PASSWORD_LENGTH as MIN_PASSWORD } from '../../../../src/model/password';


type FieldName = 'current' | 'new' | 'again';

const sessionsPhrase = (n: number) => (n === 0 ? 'No other browser session was signed in.' : n === 1 ? '1 other browser session was signed out.' : `${n} other browser sessions were signed out.`);

export function ChangePassword({ email }: { email: string }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [problem, setProblem] = useState<{ field: FieldName; text: string } | null>(null);
  const [done, setDone] = useState<string>('');
  const refs = { current: useRef<HTMLInputElement>(null), new: useRef<HTMLInputElement>(null), again: useRef<HTMLInputElement>(null) };
  const change = useChangePassword();

  // The server's refusal of one field: shown under it, and the focus goes there.
  const serverProblem = ((): { field: FieldName; text: string } | null => {
    const e = change.error;
    if (!(e instanceof ApiError)) return null;
    if (e.code === 'wrong_password') return { field: 'current', text: 'This is not your current password.' };
    // The API names the refused field first (web/src/lib/field-error.ts); its words are shown, not
    // a guess at them (a new password may be too short, or too long).
    const placed = placeError(e, ['currentPassword', 'newPassword']);
    if (placed.field === 'newPassword') return { field: 'new', text: placed.message };
    if (placed.field === 'currentPassword') return { field: 'current', text: placed.message };
    return null;
  })();
  const shown = problem ?? serverProblem;
  const otherError = change.error && !serverProblem && !problem ? change.error : null;
  useEffect(() => {
    if (serverProblem) refs[serverProblem.field].current?.focus();
  }, [change.error]);

  const fail = (field: FieldName, text: string) => {
    setProblem({ field, text });
    refs[field].current?.focus();
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setDone('');
    change.reset();
    if (current === '') return fail('current', 'Type your current password.');
    if (next.length < MIN_PASSWORD) return fail('new', `The new password needs at least ${MIN_PASSWORD} characters.`);
    if (next !== again) return fail('again', 'The two new passwords differ. Type the same password twice.');
    setProblem(null);
    change.mutate(
      { currentPassword: current, newPassword: next },
      {
        onSuccess: (out) => {
          setCurrent('');
          setNext('');
          setAgain('');
          setDone(`Your password is changed. ${sessionsPhrase(out.signedOutSessions)} This browser stays signed in, and your API keys keep working.`);
        },
      },
    );
  };

  const errorOf = (field: FieldName) => (shown?.field === field ? shown.text : null);
  return (
    <Section title="Change password" intro={<p>Type your current password, then the new one twice. Every other browser session of your account is signed out.</p>}>
      <form onSubmit={onSubmit} aria-label="Change password" noValidate>
        {/* For password managers: which account this password belongs to. */}
        <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
        <Field label="Current password" error={errorOf('current')}>
          <input ref={refs.current} type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
        </Field>
        <Field label={`New password (at least ${MIN_PASSWORD} characters)`} error={errorOf('new')}>
          <input ref={refs.new} type="password" autoComplete="new-password" minLength={MIN_PASSWORD} required value={next} onChange={(e) => setNext(e.target.value)} />
        </Field>
        <Field label="Confirm new password" error={errorOf('again')}>
          <input ref={refs.again} type="password" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
        </Field>
        {otherError ? <ErrorMessage error={otherError} /> : null}
        <div className="form-actions">
          <BusyButton type="submit" className="primary" busy={change.isPending}>
            Change password
          </BusyButton>
        </div>
        <p role="status" className={done ? 'ok' : undefined}>
          {done}
        </p>
      </form>
    </Section>
  );
}
