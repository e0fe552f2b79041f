import { describe, expect, test } from 'bun:test';
import {
  activityQuery,
  CAPTURES_TABLE,
  countQuery,
  filterConditions,
  keysQuery,
  rowsByKeysQuery,
} from '../../src/stores/captures/clickhouse-sql';

const scopes = [
  { endpointId: 'ep_a', since: 0 },
  { endpointId: 'ep_b', since: 0 },
  { endpointId: "ep_'c", since: 1000 },
];

describe('ClickHouse search SQL', () => {
  test('cheap conditions go to PREWHERE, free text to WHERE', () => {
    const c = filterConditions({ scopes, method: 'POST', q: 'Hello', from: 5, to: 9 });
    expect(c.prewhere).toBe(
      "((endpoint_id IN ('ep_a', 'ep_b') AND received_at > 0) OR (endpoint_id IN ('ep_\\'c') AND received_at > 1000))" +
        " AND method = 'POST' AND received_at >= 5 AND received_at <= 9",
    );
    expect(c.where).toBe(
      "(position(search_text, 'hello') > 0 OR positionCaseInsensitiveUTF8(body, 'Hello') > 0" +
        " OR positionCaseInsensitiveUTF8(query, 'Hello') > 0 OR position(headers, '\"hello\":') > 0)",
    );
    // Not a token, so no header's name: the headers are not read.
    expect(filterConditions({ scopes, q: 'a b' }).where).toBe(
      "(position(search_text, 'a b') > 0 OR positionCaseInsensitiveUTF8(body, 'a b') > 0 OR positionCaseInsensitiveUTF8(query, 'a b') > 0)",
    );
    expect(filterConditions({ scopes, q: '' }).where).toBeUndefined();
  });

  test('header filters are WHERE conditions only when given, with every value quoted', () => {
    // Without one, nothing reads the headers column.
    expect(filterConditions({ scopes, method: 'POST' }).where).toBeUndefined();
    expect(filterConditions({ scopes, headers: [] }).where).toBeUndefined();
    const c = filterConditions({
      scopes,
      method: 'POST',
      q: 'a b',
      headers: [
        { name: 'x-github-event', value: "it's \\ %_" },
        { name: 'stripe-signature', value: '' },
      ],
    });
    expect(c.prewhere).not.toContain('headers');
    expect(c.where).toBe(
      "positionCaseInsensitiveUTF8(visitParamExtractString(headers, 'x-github-event'), 'it\\'s \\\\ %_') > 0" +
        " AND position(headers, '\"stripe-signature\":') > 0" +
        " AND (position(search_text, 'a b') > 0 OR positionCaseInsensitiveUTF8(body, 'a b') > 0 OR positionCaseInsensitiveUTF8(query, 'a b') > 0)",
    );
  });

  test('typed non-ASCII text is also looked for as its UTF-8 bytes in the stored form, not in the body', () => {
    // café typed; a UTF-8 header holding it is stored one character per byte, cafÃ© (lower-cased: cafã©).
    expect(filterConditions({ scopes, q: "Café'" }).where).toBe(
      "(position(search_text, 'café\\'') > 0 OR position(search_text, 'cafã©\\'') > 0" +
        " OR positionCaseInsensitiveUTF8(body, 'Café\\'') > 0 OR positionCaseInsensitiveUTF8(query, 'Café\\'') > 0)",
    );
    expect(filterConditions({ scopes, headers: [{ name: 'x-name', value: "Café'" }] }).where).toBe(
      "(positionCaseInsensitiveUTF8(visitParamExtractString(headers, 'x-name'), 'Café\\'') > 0" +
        " OR positionCaseInsensitiveUTF8(visitParamExtractString(headers, 'x-name'), 'CafÃ©\\'') > 0)",
    );
  });

  test('the endpoint filter comes first in every search and count', () => {
    for (const sql of [
      keysQuery(filterConditions({ scopes, q: 'x' }), 'desc', 10),
      countQuery({ scopes, method: 'GET' }),
    ]) {
      expect(sql).toContain(`FROM ${CAPTURES_TABLE} PREWHERE ((endpoint_id IN`);
    }
  });

  test('activity is one grouped read of the key columns, each endpoint with its own since, every id quoted', () => {
    expect(activityQuery(scopes)).toBe(
      `SELECT endpoint_id, count() AS n, max(received_at) AS last FROM ${CAPTURES_TABLE}` +
        " PREWHERE ((endpoint_id IN ('ep_a', 'ep_b') AND received_at > 0) OR (endpoint_id IN ('ep_\\'c') AND received_at > 1000))" +
        ' GROUP BY endpoint_id',
    );
  });

  test('keys are sorted both ways, limited and offset', () => {
    expect(keysQuery({ prewhere: 'p' }, 'asc', 10, 20)).toBe(
      `SELECT endpoint_id, received_at, id FROM ${CAPTURES_TABLE} PREWHERE p ORDER BY received_at ASC, id ASC LIMIT 10 OFFSET 20`,
    );
    expect(keysQuery({ prewhere: 'p', where: 'w' }, 'desc', 5)).toBe(
      `SELECT endpoint_id, received_at, id FROM ${CAPTURES_TABLE} PREWHERE p WHERE w ORDER BY received_at DESC, id DESC LIMIT 5`,
    );
  });

  test('rows are fetched by exact (endpoint, time) pairs, a primary-key prefix', () => {
    const sql = rowsByKeysQuery([
      { endpointId: 'ep_a', receivedAt: 1, id: 'req_1' },
      { endpointId: 'ep_b', receivedAt: 2, id: "req_'2" },
    ]);
    expect(sql).toEndWith(
      `PREWHERE (endpoint_id, received_at) IN (('ep_a', 1), ('ep_b', 2)) AND id IN ('req_1', 'req_\\'2')`,
    );
  });

  test('values that are not safe integers never reach the SQL', () => {
    expect(() => countQuery({ scopes, from: Number.NaN })).toThrow(RangeError);
    expect(() => countQuery({ scopes, to: 1.5 })).toThrow(RangeError);
    expect(() => keysQuery({ prewhere: 'p' }, 'desc', -1 / 0)).toThrow(RangeError);
  });
});
