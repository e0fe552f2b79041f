/** The full URL a capture was sent to, rebuilt from the endpoint's receiver URL, its path and its query. */
import type { Capture } from '../../../src/model/capture';

export function queryString(params: Capture['queryParams']): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function captureUrl(endpointUrl: string, c: Pick<Capture, 'path' | 'queryParams'>): string {
  return `${endpointUrl}${c.path === '/' ? '' : c.path}${queryString(c.queryParams)}`;
}

/** Query parameters as rows, repeated keys as several rows. */
export function queryRows(params: Capture['queryParams']): [string, string][] {
  return Object.entries(params).flatMap(([k, v]) => (Array.isArray(v) ? v.map((one): [string, string] => [k, one]) : [[k, v] as [string, string]]));
}
