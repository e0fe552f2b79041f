/**
 * The API names the field a 400 is about at the start of its message (`mockResponse.headers may
 * not set "set-cookie": …`, `mockResponse.status: must be an integer from 200 to 599`,
 * `notificationUrl must be …`). This finds which of a form's fields that is, so the message can be
 * shown next to it.
 */
import { ApiError, errorText } from '../api/client';

export interface PlacedError {
  /** One of the fields asked about, or null: the message belongs to the form as a whole. */
  field: string | null;
  message: string;
}

export function placeError(error: unknown, fields: readonly string[]): PlacedError {
  const message = errorText(error);
  if (!(error instanceof ApiError) || error.status !== 400) return { field: null, message };
  const field = [...fields].sort((a, b) => b.length - a.length).find((f) => message.startsWith(f) && /^[\s.:[]/.test(message.slice(f.length)));
  if (!field) return { field: null, message };
  // The field is shown beside the message: say the rest in a sentence of its own.
  const rest = message.slice(field.length).replace(/^:\s*/, '').replace(/^\./, '').trim();
  if (!rest || rest.startsWith('[')) return { field, message };
  return { field, message: `${rest.charAt(0).toUpperCase()}${rest.slice(1)}` };
}
