/**
 * On the Account page while the address is not confirmed: why it matters and a button that mails
 * a new link (`POST /api/account/verify-email`). The result is said in a status region that is on
 * the page before it has anything to say, so screen readers announce it.
 */
import { useResendVerification } from '../../api/account';
import { BusyButton } from '../../ui/busy-button';
import { ErrorMessage } from '../../ui/error';
import { Section } from '../../ui/section';

export function VerifyNotice({ email }: { email: string }) {
  const resend = useResendVerification();
  return (
    <Section
      title="Confirm your address"
      className="verify-notice"
      intro={
        <>
          <p>
            Your address <strong>{email}</strong> is not confirmed yet. We mailed it a link when you signed up; open it to confirm the address is
            yours.
          </p>
          <p className="muted">
            Until then, an AI agent that proves this mailbox (by a one-time code or an identity provider) takes the account over: its password is
            removed, its sessions end and its API keys are revoked.
          </p>
        </>
      }
    >
      <div className="form-actions">
        <BusyButton type="button" busy={resend.isPending} onClick={() => resend.mutate()}>
          Resend verification email
        </BusyButton>
      </div>
      {resend.error ? <ErrorMessage error={resend.error} /> : null}
      <p role="status" className={resend.isSuccess ? 'ok' : undefined}>
        {resend.isSuccess ? `A new link is on its way to ${resend.data.email}. It replaces the earlier one.` : ''}
      </p>
    </Section>
  );
}
