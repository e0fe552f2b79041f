/**
 * Signature verification (README "Provider detection and signature verification"): a provider's
 * scheme or a generic HMAC, with its secret. The secret goes to the server once and never comes
 * back: afterwards only its hint (its last 4 characters) is shown, and changing anything means
 * entering it again.
 */
import { useState, type FormEvent } from 'react';
import type { ProviderScheme } from '../../../../src/engine/signing/types';
import type { Endpoint } from '../../api/queries';
import type { SigningConfig } from '../../api/settings';
import { ErrorMessage } from '../../ui/error';
import { Field } from '../../ui/field';
import { Section } from '../../ui/section';
import { EndpointFormFooter, useEndpointForm, type FieldProblem } from './endpoint-form';

type Provider = ProviderScheme | 'hmac';

/** Every scheme the API accepts; a new one in the server's type fails the typecheck here. */
const PROVIDERS: Record<Provider, string> = {
  stripe: 'Stripe',
  github: 'GitHub',
  shopify: 'Shopify',
  slack: 'Slack',
  'standard-webhooks': 'Standard Webhooks (Svix, Clerk, Resend…)',
  twilio: 'Twilio',
  paddle: 'Paddle',
  linear: 'Linear',
  square: 'Square',
  hmac: 'Generic HMAC (any sender)',
};
/** Schemes that sign a timestamp, checked against toleranceSeconds. */
const TIMESTAMPED: ReadonlySet<Provider> = new Set(['stripe', 'slack', 'standard-webhooks', 'paddle', 'linear']);
/** Schemes that sign the URL the sender posted to. */
const SIGNS_URL: ReadonlySet<Provider> = new Set(['twilio', 'square']);

const FIELDS = ['signing.secret', 'signing.toleranceSeconds', 'signing.url', 'signing.header', 'signing.algorithm', 'signing.encoding', 'signing.prefix', 'signing'];

/**
 * The limits of the server's SigningConfigSchema (src/engine/signing/index.ts), checked here too:
 * the server reports a mismatch in a union as one error about the whole `signing` object, which
 * cannot say which field is wrong.
 */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const MAX_SECRET = 4096;
const MAX_PREFIX = 64;

const isProvider = (p: string): p is Provider => p in PROVIDERS;
const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** What is configured now, in words (the secret only by its hint). */
function Current({ signing }: { signing: Record<string, unknown> | null }) {
  if (!signing) return <strong>Off</strong>;
  const provider = text(signing.provider);
  const name = isProvider(provider) ? PROVIDERS[provider] : provider;
  const details = [
    signing.header ? `header ${text(signing.header)}` : null,
    signing.algorithm ? `${text(signing.algorithm)}, ${text(signing.encoding)}` : null,
    signing.prefix ? `prefix ${text(signing.prefix)}` : null,
    signing.toleranceSeconds ? `tolerance ${text(signing.toleranceSeconds)} s` : null,
    signing.url ? `signed URL ${text(signing.url)}` : null,
  ].filter(Boolean);
  return (
    <>
      <strong>{name}</strong>, secret <code className="secret-hint">{text(signing.secretHint)}</code>
      {details.length ? ` (${details.join('; ')})` : ''}
    </>
  );
}

export function SigningForm({ endpoint }: { endpoint: Endpoint }) {
  const current = endpoint.signing;
  const start = text(current?.provider);
  const [provider, setProvider] = useState<Provider>(isProvider(start) ? start : 'stripe');
  const [secret, setSecret] = useState('');
  const [tolerance, setTolerance] = useState(text(current?.toleranceSeconds));
  const [url, setUrl] = useState(text(current?.url));
  const [header, setHeader] = useState(text(current?.header) || 'X-Signature');
  const [algorithm, setAlgorithm] = useState<'sha256' | 'sha1' | 'sha512'>(current?.algorithm === 'sha1' || current?.algorithm === 'sha512' ? current.algorithm : 'sha256');
  const [encoding, setEncoding] = useState<'hex' | 'base64'>(current?.encoding === 'base64' ? 'base64' : 'hex');
  const [prefix, setPrefix] = useState(text(current?.prefix));
  const form = useEndpointForm(endpoint.slug, FIELDS);
  const { errorAt } = form;

  const config = (): SigningConfig | FieldProblem => {
    if (secret === '') return { field: 'signing.secret', message: current ? 'Enter the secret again to change these settings.' : 'Enter the signing secret.' };
    if (secret.length > MAX_SECRET) return { field: 'signing.secret', message: `The secret may be at most ${MAX_SECRET} characters.` };
    if (provider === 'hmac') {
      if (!HEADER_NAME.test(header.trim())) return { field: 'signing.header', message: 'Enter a header name such as X-Signature (letters, digits and - only; no spaces).' };
      if (prefix.length > MAX_PREFIX) return { field: 'signing.prefix', message: `The prefix may be at most ${MAX_PREFIX} characters.` };
      return { provider, secret, header: header.trim(), algorithm, encoding, ...(prefix ? { prefix } : {}) };
    }
    const out: SigningConfig = { provider, secret };
    if (TIMESTAMPED.has(provider) && tolerance.trim() !== '') {
      const n = Number(tolerance);
      if (!Number.isInteger(n) || n < 1 || n > 86_400) return { field: 'signing.toleranceSeconds', message: 'Enter whole seconds from 1 to 86400, or leave it empty for 300.' };
      out.toleranceSeconds = n;
    }
    if (SIGNS_URL.has(provider) && url.trim() !== '') {
      if (!/^https?:\/\//.test(url.trim())) return { field: 'signing.url', message: 'Enter the full URL, starting with https:// or http://.' };
      out.url = url.trim();
    }
    return out;
  };

  const save = (e: FormEvent) => {
    e.preventDefault();
    const signing = config();
    if ('field' in signing) return form.refuse(signing);
    form.save({ signing }, () => setSecret(''));
  };

  return (
    <Section
      title="Signature verification"
      intro={
        <p>
          Check each captured request's signature with the sender's secret; the result shows on every request. Now: <Current signing={current} />.
        </p>
      }
    >
      <form onSubmit={save} noValidate>
        <Field label="Provider">
          <select value={provider} onChange={(e) => isProvider(e.target.value) && setProvider(e.target.value)}>
            {Object.entries(PROVIDERS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Signing secret"
          hint={current ? 'The saved secret is never shown; enter it (or a new one) again to save changes.' : 'Kept on the server for checking signatures and never shown again: afterwards only its last 4 characters are.'}
          error={errorAt('signing.secret')}
        >
          <input type="password" autoComplete="off" spellCheck={false} value={secret} onChange={(e) => setSecret(e.target.value)} />
        </Field>
        {TIMESTAMPED.has(provider) ? (
          <Field label="Tolerance in seconds" hint="How far the signed timestamp may be from now; empty means 300." error={errorAt('signing.toleranceSeconds')}>
            <input className="narrow" inputMode="numeric" placeholder="300" value={tolerance} onChange={(e) => setTolerance(e.target.value)} />
          </Field>
        ) : null}
        {SIGNS_URL.has(provider) ? (
          <Field label="Signed URL" hint="The URL as the sender sees it, if a proxy changes it; empty means the URL the request arrived on." error={errorAt('signing.url')}>
            <input type="text" inputMode="url" spellCheck={false} value={url} onChange={(e) => setUrl(e.target.value)} />
          </Field>
        ) : null}
        {provider === 'hmac' ? (
          <div className="field-row">
            <Field label="Signature header" error={errorAt('signing.header')}>
              <input spellCheck={false} value={header} onChange={(e) => setHeader(e.target.value)} />
            </Field>
            <Field label="Algorithm" error={errorAt('signing.algorithm')}>
              <select value={algorithm} onChange={(e) => setAlgorithm(e.target.value === 'sha1' || e.target.value === 'sha512' ? e.target.value : 'sha256')}>
                <option value="sha256">HMAC-SHA256</option>
                <option value="sha1">HMAC-SHA1</option>
                <option value="sha512">HMAC-SHA512</option>
              </select>
            </Field>
            <Field label="Encoding" error={errorAt('signing.encoding')}>
              <select value={encoding} onChange={(e) => setEncoding(e.target.value === 'base64' ? 'base64' : 'hex')}>
                <option value="hex">hex</option>
                <option value="base64">base64</option>
              </select>
            </Field>
            <Field label="Prefix" hint='Before the signature, such as "sha256="; optional.' error={errorAt('signing.prefix')}>
              <input spellCheck={false} value={prefix} onChange={(e) => setPrefix(e.target.value)} />
            </Field>
          </div>
        ) : null}
        {errorAt('signing') ? <ErrorMessage error={new Error('The server did not accept these settings; check each field above.')} /> : null}
        <EndpointFormFooter form={form} off={current ? { label: 'Turn off', onClick: () => form.save({ signing: null }) } : null} />
      </form>
    </Section>
  );
}
