/** Shapes shared by the signing schemes and the public entry point. */

export type HashAlgorithm = 'sha1' | 'sha256' | 'sha512';

export type ProviderScheme =
  | 'stripe'
  | 'github'
  | 'shopify'
  | 'slack'
  | 'standard-webhooks'
  | 'twilio'
  | 'paddle'
  | 'linear'
  | 'square';

export type SigningConfig =
  | {
      provider: ProviderScheme;
      secret: string;
      /** Allowed clock difference for timestamped schemes; default 300. */
      toleranceSeconds?: number;
      /** twilio/square: the notification URL as the sender sees it; default: the URL the request
       * was received on. Without a query string of its own, the received query string is kept. */
      url?: string;
    }
  | {
      provider: 'hmac';
      secret: string;
      header: string;
      algorithm: HashAlgorithm;
      encoding: 'hex' | 'base64';
      prefix?: string;
    };

export interface VerifyInput {
  headers: Record<string, string>;
  rawBody: Uint8Array;
  /** Full URL received. */
  url: string;
  method: string;
  /** ms since epoch. */
  now: number;
  /** Parsed form fields when the caller already has them (Twilio); otherwise parsed from rawBody. */
  formParams?: Record<string, string | string[]>;
}

export interface VerifyResult {
  signatureVerified: boolean;
  signatureError: string | null;
  signingProvider: string;
}
