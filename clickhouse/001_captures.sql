-- Captured requests. Must run unchanged on ClickHouse 18.16 (the only build that installs here)
-- and on current releases, so: ms as UInt64 (no DateTime64), plain String (no LowCardinality),
-- no CODEC, TTL or skip INDEX. Every statement is idempotent: migrate() runs it on every start.
--
-- ORDER BY starts with endpoint_id because every read is scoped to the caller's endpoints first;
-- received_at and id follow so a page in (received_at, id) order is a narrow primary-key range.
-- ReplacingMergeTree collapses a capture stored twice (same endpoint, time and id) on merge; the
-- store also skips known ids when the shipper replays its log, so reads never need FINAL.
--
-- Partitions are weeks since the epoch (intDiv(received_at, 604800000); weeks start on Thursday
-- 00:00 UTC), so retention drops whole weeks (ALTER TABLE captures DROP PARTITION <week>; 18.16
-- has no TTL) and keeps at most 6 extra days of bodies. Days were tried first and cost too much:
-- an endpoint's read touches at least one granule in every part of every partition in range, so
-- with ~4 parts a day, 30 days of one endpoint's 4,500 captures (10M-row bench) meant reading
-- 133,120 rows; weeks and 256-row granules read 6,144 for the same endpoint, and the keys query
-- of a search by slug and text went from ~185 to 20-30 ms at p50 (bench/search, docs/search.md).
--
-- index_granularity 256 instead of 8192: rows are wide (bodies), and 18.16 has no adaptive
-- granularity, so a small endpoint's read cost is whole granules. The price is a larger primary
-- index in memory: ~2.8 MiB per 10M rows. 128 measured no better than 256.
--
-- An existing deployment keeps the layout it was created with (CREATE … IF NOT EXISTS): the
-- columns are the same, only slower. docs/search.md shows how to move its rows to this layout.
--
-- headers and query_params are JSON text, returned as stored. signature holds the optional
-- signature fields as JSON ('' when the capture has none).
--
-- Free-text search (q) looks at search_text, the app-lower-cased path, query string and header
-- values, with position(); and at body itself with positionCaseInsensitiveUTF8 (later also at the
-- raw query and, for a whole header name, at headers: clickhouse-sql.ts textCondition). Copying the body
-- into search_text as well was only ~10% faster (260 vs 294 ms over 300k rows) and doubled the
-- table size (756 vs 396 MiB for 1M rows).
CREATE TABLE IF NOT EXISTS captures
(
    endpoint_id String,
    received_at UInt64,
    id String,
    method String,
    path String,
    headers String,
    body String,
    body_encoding String,
    query_params String,
    content_type String,
    ip String,
    size UInt64,
    detected_provider String,
    detected_event String,
    signature String,
    search_text String
)
ENGINE = ReplacingMergeTree
PARTITION BY intDiv(received_at, 604800000)
ORDER BY (endpoint_id, received_at, id)
SETTINGS index_granularity = 256;
