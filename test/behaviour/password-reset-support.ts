/**
 * Reading password-reset links from the mail the server really sent (the SMTP sink when the server
 * backend is under test, else the outbox), for the API and browser suites.
 */
import type { TestServer } from '../support/server';
import { eventually } from '../support/client';
import { mailTo } from './agent-support';

/** Undoes quoted-printable escapes (`=3D` is `=`); soft line breaks are already joined. */
const unQuote = (text: string) => text.replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

const LINK = /(https?:\/\/\S+\/reset-password#token=(rst_[A-Za-z0-9_-]{43}))/;

/** Every reset link mailed to `to`, in order. */
export function resetLinks(server: Pick<TestServer, 'dataDir'>, to: string): { link: string; token: string }[] {
  return mailTo(server, to)
    .map((m) => LINK.exec(unQuote(m.text)))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ link: m[1] ?? '', token: m[2] ?? '' }));
}

/** The link of the `count`-th reset mail to `to` (1 = the first), waiting for it to arrive. */
export async function resetLink(server: Pick<TestServer, 'dataDir'>, to: string, count = 1): Promise<{ link: string; token: string }> {
  return eventually(async () => resetLinks(server, to)[count - 1] ?? null, 10_000);
}
