/**
 * The one email shape check, for sign-up, team invites and the agent flows alike: one @, a
 * bounded local part without whitespace, quotes, commas or control characters, and a dotted DNS
 * domain. Deliverability is proven by the OTP or by the identity provider's `email_verified`,
 * not by this pattern; it keeps junk out of accounts and gives the mailer one plain address.
 */

const LOCAL = /^[^\s@"(),:;<>[\\\]\u0000-\u001f\u007f]{1,64}$/u;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const TLD = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;

/** RFC 5321 caps a forward path at 256 octets including the angle brackets. */
const MAX_EMAIL_LENGTH = 254;

/**
 * @example
 * isWellFormedEmail('ada@example.com') // true
 * isWellFormedEmail('ada@localhost')   // false: no dotted domain
 */
export function isWellFormedEmail(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > MAX_EMAIL_LENGTH) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || value.indexOf('@') !== at) return false;
  const local = value.slice(0, at);
  const labels = value.slice(at + 1).split('.');
  const tld = labels[labels.length - 1] ?? '';
  return LOCAL.test(local) && labels.length >= 2 && labels.every((l) => LABEL.test(l)) && TLD.test(tld);
}
