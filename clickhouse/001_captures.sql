-- Captured requests. Must run unchanged on ClickHouse 18.16 (the only build that installs here)
-- and on current releases, so: ms as UInt64 (no DateTime64), plain String (no LowCardinality),
-- no CODEC, TTL or skip INDEX. Every statement is idempotent: migrate() runs this file on every start.
--
-- ORDER BY starts with endpoint_id because every read is scoped to the caller's endpoints first;
-- received_at and id follow so a page in (received_at, id) order is a narrow primary-key range.
-- ReplacingMergeTree collapses a capture stored twice (same endpoint, time and id) on merge; the
-- store also skips known ids when the shipper replays its log, so reads never need FINAL.
--
-- One partition per UTC day (days since the epoch): retention drops whole partitions
-- (ALTER TABLE captures DROP PARTITION <day>) because 18.16 has no TTL.
--
-- headers and query_params are JSON text, returned as they were stored. signature holds the
-- optional signature fields as JSON ('' when the capture has none).
-- search_text is path, query string, header values and body, lower-cased by the app with the same
-- code the SQLite store uses, so free-text search is a plain position() over one column and both
-- stores agree on what matches.
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
SETTINGS index_granularity = 8192;
