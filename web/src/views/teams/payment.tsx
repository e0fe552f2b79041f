/**
 * A 402 (`payment_required`) from the teams API, said in plain words with what to do: a team
 * needs an active Teams subscription with a free seat to invite, accept or share. Subscriptions
 * are kept at Stripe by whoever runs this hookcap, so the way forward is the owner, or the operator.
 * An accept refused for an unconfirmed address (403 `address_not_confirmed`) is said in words too,
 * with the way to the Account page. Any other error is shown as it is.
 */
import { Link } from 'wouter';
import { ApiError } from '../../api/client';
import { paths } from '../../paths';
import { ErrorMessage } from '../../ui/error';

export type Doing = 'invite' | 'accept' | 'share';

const WHAT: Record<Doing, string> = {
  invite: 'Inviting someone',
  accept: 'Joining this team',
  share: 'Sharing an endpoint',
};

export const isPaymentRequired = (e: unknown): e is ApiError => e instanceof ApiError && e.status === 402;

export function PaymentExplanation({ doing, isOwner, ownerEmail, seats }: { doing: Doing; isOwner: boolean; ownerEmail?: string; seats: boolean }) {
  const owner = ownerEmail ? `the team's owner (${ownerEmail})` : "the team's owner";
  return (
    <div className="notice payment" role="alert">
      <p className="payment-title">
        <strong>{seats ? "Every seat of this team's Teams subscription is taken." : "This team's Teams subscription is not active."}</strong>
      </p>
      <p>
        {WHAT[doing]} needs {seats ? 'a free seat' : 'an active Teams subscription (12 USD per seat per month)'}.{' '}
        {seats ? 'Each member and each pending invite takes a seat.' : 'Until it is active again, members cannot see the endpoints shared with the team; nothing is deleted.'}
      </p>
      <p>
        <strong>What to do:</strong>{' '}
        {isOwner
          ? seats
            ? 'add seats to the subscription, or free one by withdrawing a pending invite or removing a member.'
            : 'start or renew the subscription. Subscriptions are handled through Stripe by whoever runs this hookcap service; ask them if you do not manage billing yourself.'
          : `ask ${owner} to ${seats ? 'add a seat' : 'renew the subscription'}, then try again.`}
      </p>
    </div>
  );
}

/** The team takes only members with a confirmed address (docs/teams.md), and mine is not yet. */
function AddressNotConfirmed() {
  return (
    <div className="notice payment" role="alert">
      <p className="payment-title">
        <strong>This team takes only members with a confirmed address, and yours is not confirmed yet.</strong>
      </p>
      <p>
        <strong>What to do:</strong> open the link we mailed you when you signed up, or send a new one with <strong>Resend verification email</strong> on
        the <Link href={paths.account}>Account page</Link>; then accept again. The invite stays open meanwhile.
      </p>
    </div>
  );
}

/** A mutation's error: the 402 and an unconfirmed address explained, anything else as a message. */
export function TeamError({ error, doing, isOwner, ownerEmail }: { error: unknown; doing: Doing; isOwner: boolean; ownerEmail?: string }) {
  if (!error) return null;
  if (error instanceof ApiError && error.code === 'address_not_confirmed') return <AddressNotConfirmed />;
  if (isPaymentRequired(error)) return <PaymentExplanation doing={doing} isOwner={isOwner} ownerEmail={ownerEmail} seats={/\bseat/.test(error.message) && !/needs an active/.test(error.message)} />;
  return <ErrorMessage error={error} />;
}
