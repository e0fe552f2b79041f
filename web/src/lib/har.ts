/**
 * A capture as a HAR 1.2 file with one entry. The request is what was received: every header as
 * captured and the body byte for byte (`postData.text`, or base64 with `encoding: "base64"` when
 * the body is not UTF-8, as HAR's content objects do). Header values as the server's HAR writes
 * them (`harHeader`: the UTF-8 reading, or Latin-1 with `_encoding: "latin1"`; docs/exports.md).
 * There is no response to record.
 */
import type { Capture } from '../../../src/model/capture';
import { harHeader } from '../../../src/model/header-bytes';
import { captureUrl, queryRows } from './url';

export function harOf(c: Capture, endpointUrl: string, version = '0.1.0') {
  const mimeType = c.contentType;
  const postData =
    c.body === ''
      ? undefined
      : c.bodyEncoding === 'base64'
        ? { mimeType, text: c.body, encoding: 'base64' }
        : { mimeType, text: c.body };
  return {
    log: {
      version: '1.2',
      creator: { name: 'hookcap', version },
      entries: [
        {
          startedDateTime: new Date(c.receivedAt).toISOString(),
          time: 0,
          request: {
            method: c.method,
            url: captureUrl(endpointUrl, c),
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: Object.entries(c.headers).map(([name, value]) => harHeader(name, value)),
            queryString: queryRows(c.queryParams).map(([name, value]) => ({ name, value })),
            ...(postData ? { postData } : {}),
            headersSize: -1,
            bodySize: c.size,
          },
          response: { status: 0, statusText: '', httpVersion: '', cookies: [], headers: [], content: { size: 0, mimeType: '' }, redirectURL: '', headersSize: -1, bodySize: -1 },
          cache: {},
          timings: { send: 0, wait: 0, receive: 0 },
          comment: `hookcap capture ${c.id} from ${c.ip}`,
        },
      ],
    },
  };
}
