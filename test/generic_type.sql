-- Checks every fixed-width type shares, included by each type's pg_regress
-- file with two psql variables set:  :type (the type name) and :lower (its
-- *_lower_bound function, used to make one ID per second of a day).

CREATE TABLE generic_ids AS
SELECT :lower(timestamptz '2024-01-01+00' + n * interval '1 s') AS id, n FROM generate_series(0, 19999) n;

-- byte order = text order under COLLATE "C" = time order
SELECT (SELECT array_agg(id ORDER BY id) FROM generic_ids)
     = (SELECT array_agg(id ORDER BY id::text COLLATE "C") FROM generic_ids) AS text_order,
       (SELECT array_agg(id ORDER BY id) FROM generic_ids)
     = (SELECT array_agg(id ORDER BY n) FROM generic_ids) AS time_order;
-- a shuffled in-memory sort (abbreviated keys) agrees with the comparator
SET work_mem = '64MB';
SELECT count(*) FILTER (WHERE prev > id) AS out_of_order
FROM (SELECT id, lag(id) OVER (ORDER BY id) AS prev
      FROM (SELECT id FROM generic_ids ORDER BY md5(n::text)) shuffled) s;
\i test/mixed_sort.sql
\i test/uuid_casts.sql
\i test/time_ranges.sql
RESET work_mem;
-- text, bytea and binary COPY round trips
SELECT format('SELECT count(*) FILTER (WHERE id::text::%1$s = id AND id::bytea::%1$s = id) = count(*) AS text_and_bytea_round_trip FROM generic_ids', :'type') \gexec
CREATE TABLE generic_copy (id :type);
\copy (SELECT id FROM generic_ids) TO 'results/generic_ids.bin' WITH (FORMAT binary)
\copy generic_copy FROM 'results/generic_ids.bin' WITH (FORMAT binary)
SELECT (SELECT array_agg(id ORDER BY id) FROM generic_copy) = (SELECT array_agg(id ORDER BY id) FROM generic_ids) AS binary_copy_round_trip;
-- a binary value as long as the canonical text is read as that text, the
-- way a driver that does not know the type copies a string (pgx's CopyFrom)
TRUNCATE generic_copy;
CREATE TABLE generic_text_bytes AS SELECT convert_to(id::text, 'UTF8') AS b FROM generic_ids;
\copy generic_text_bytes TO 'results/generic_text.bin' WITH (FORMAT binary)
\copy generic_copy FROM 'results/generic_text.bin' WITH (FORMAT binary)
SELECT (SELECT array_agg(id ORDER BY id) FROM generic_copy) = (SELECT array_agg(id ORDER BY id) FROM generic_ids) AS binary_text_copy;
-- and strictly: a text of that length outside the alphabet is 22P03
TRUNCATE generic_text_bytes;
INSERT INTO generic_text_bytes SELECT convert_to(repeat('!', length(min(id)::text)), 'UTF8') FROM generic_ids;
\copy generic_text_bytes TO 'results/generic_text.bin' WITH (FORMAT binary)
\copy generic_copy FROM 'results/generic_text.bin' WITH (FORMAT binary)
DROP TABLE generic_copy, generic_text_bytes;

-- operators and aggregates on the first and last IDs
SELECT a < b AS lt, a <= b AS le, a = b AS eq, a <> b AS ne, a >= b AS ge, a > b AS gt,
       b > a AS commuted, a = a AS reflexive
FROM (SELECT min(id) AS a, max(id) AS b FROM generic_ids) s;

-- btree: equality, a range from the bounds, min/max from the index
CREATE INDEX generic_btree ON generic_ids (id);
ANALYZE generic_ids;
EXPLAIN (COSTS OFF) SELECT n FROM generic_ids WHERE id = :lower(timestamptz '2024-01-01 01:00+00');
SELECT n FROM generic_ids WHERE id = :lower(timestamptz '2024-01-01 01:00+00');
EXPLAIN (COSTS OFF) SELECT count(*) FROM generic_ids
WHERE id >= :lower(timestamptz '2024-01-01 02:00+00') AND id < :lower(timestamptz '2024-01-01 02:10+00');
SELECT count(*) FROM generic_ids
WHERE id >= :lower(timestamptz '2024-01-01 02:00+00') AND id < :lower(timestamptz '2024-01-01 02:10+00');
SELECT plan_of('SELECT max(id) FROM generic_ids');
DROP INDEX generic_btree;

-- hash, BRIN minmax and BRIN bloom
SET enable_seqscan = off;
CREATE INDEX generic_hash ON generic_ids USING hash (id);
EXPLAIN (COSTS OFF) SELECT n FROM generic_ids WHERE id = :lower(timestamptz '2024-01-01 03:00+00');
SELECT n FROM generic_ids WHERE id = :lower(timestamptz '2024-01-01 03:00+00');
DROP INDEX generic_hash;
CREATE INDEX generic_brin ON generic_ids USING brin (id);
EXPLAIN (COSTS OFF) SELECT count(*) FROM generic_ids
WHERE id >= :lower(timestamptz '2024-01-01 04:00+00') AND id < :lower(timestamptz '2024-01-01 04:10+00');
SELECT count(*) FROM generic_ids
WHERE id >= :lower(timestamptz '2024-01-01 04:00+00') AND id < :lower(timestamptz '2024-01-01 04:10+00');
DROP INDEX generic_brin;
SELECT format('CREATE INDEX generic_bloom ON generic_ids USING brin (id %s_bloom_ops)', :'type') \gexec
EXPLAIN (COSTS OFF) SELECT n FROM generic_ids WHERE id = :lower(timestamptz '2024-01-01 05:00+00');
SELECT n FROM generic_ids WHERE id = :lower(timestamptz '2024-01-01 05:00+00');
RESET enable_seqscan;
DROP TABLE generic_ids;
