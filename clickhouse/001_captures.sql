-- Captured requests. Must run unchanged on ClickHouse 18.16 (the only build that installs here)
-- and on current releases, so: ms as UInt64 (no DateTime64), plain String (no LowCardinality),
-- no CODEC, TTL or skip INDEX. Every statement is idempotent: migrate() runs it on every start.
--
-- ORDER BY starts with endpoint_id because every read is scoped to the caller's endpoints first;
-- received_at and id follow so a page in (received_at, id) order is a narrow primary-key range.
-- ReplacingMergeTree collapses a capture stored twice (same endpoint, time and id) on merge; the
-- store also skips known ids when the shipper replays its log, so reads never need FINAL.
--
-- Partitions are UTC days (days since the epoch) so retention can drop whole days
-- (ALTER TABLE captures DROP PARTITION <day>): 18.16 has no TTL. Weeks made endpoint reads about
-- 2x faster in a 60-day test (fewer parts) but would keep up to 6 extra days of bodies.
--
-- index_granularity 1024 instead of 8192: rows are wide (bodies), and 18.16 has no adaptive
-- granularity, so a small endpoint's read cost is whole granules. Measured on 1M ~1 KB rows:
-- a 50-row page of a small endpoint 340 -> 60 ms, a point get 15 -> 5 ms.
--
-- headers and query_params are JSON text, returned as stored. signature holds the optional
-- signature fields as JSON ('' when the capture has none).
--
-- Free-text search (q) looks at search_text, the app-lower-cased path, query string and header
-- values, with position(); and at body itself with positionCaseInsensitiveUTF8. Copying the body
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
PARTITION BY intDiv(received_at, 86400000)
ORDER BY (endpoint_id, received_at, id)
SETTINGS index_granularity = 1024;
