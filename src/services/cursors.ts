/**
 * Page cursors of the paginated request list, signed so that a cursor the API did not issue is a
 * 400 (README: "A cursor the API did not issue → 400"). A cursor names a position, (receivedAt,
 * id), in one endpoint's captures; its MAC covers the endpoint too, so it pages only the endpoint
 * it came from. The key is one of the server secrets (secrets.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors';
import { idTime, isCaptureId } from '../ids';
import type { PageCursor } from '../stores/captures/types';
import type { Ctx } from './context';

/** 128 bits of HMAC-SHA256, base64url. */
const MAC_CHARS = 22;

const cursorKey = (ctx: Ctx): Promise<string> => ctx.secrets.pageCursor();

const mac = (key: string, endpointId: string, position: string) => createHmac('sha256', key).update(`${endpointId}\n${position}`).digest('base64url').slice(0, MAC_CHARS);

export async function encodeCursor(ctx: Ctx, endpointId: string, c: PageCursor): Promise<string> {
  const position = `${c.receivedAt}.${c.id}`;
  return `${Buffer.from(position).toString('base64url')}.${mac(await cursorKey(ctx), endpointId, position)}`;
}

const notIssued = () => new AppError('validation', 'cursor is not one this API returned');

export async function decodeCursor(ctx: Ctx, endpointId: string, raw: string): Promise<PageCursor> {
  const dot = raw.lastIndexOf('.');
  if (dot < 1 || raw.length - dot - 1 !== MAC_CHARS) throw notIssued();
  const position = Buffer.from(raw.slice(0, dot), 'base64url').toString('utf8');
  const expected = Buffer.from(mac(await cursorKey(ctx), endpointId, position));
  const given = Buffer.from(raw.slice(dot + 1));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw notIssued();
  const sep = position.indexOf('.');
  const receivedAt = Number(position.slice(0, sep));
  const id = position.slice(sep + 1);
  if (sep < 1 || !Number.isSafeInteger(receivedAt) || !isCaptureId(id) || idTime(id) !== receivedAt) throw notIssued();
  return { receivedAt, id };
}
