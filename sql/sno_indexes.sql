-- sno ordering and index use: btree, hash, BRIN minmax and bloom
SET timezone = 'UTC';

-- byte order = text order under COLLATE "C" = field order
CREATE TABLE sno_order AS
SELECT sno_from_parts(timestamptz '2020-01-01+00' + (n % 997) * interval '1.5 ms',
                      n % 3, (n * 7919) % 65536, (n * 104729) % 65536, n % 2) AS id
FROM generate_series(1, 20000) n;
SELECT (SELECT array_agg(id ORDER BY id) FROM sno_order)
     = (SELECT array_agg(id ORDER BY id::text COLLATE "C") FROM sno_order) AS text_order,
       (SELECT array_agg(id ORDER BY id) FROM sno_order)
     = (SELECT array_agg(id ORDER BY sno_time(id), sno_ticktock(id), sno_meta(id),
                          sno_partition(id), sno_sequence(id)) FROM sno_order) AS field_order;
-- the abbreviated-key sort and the plain comparator agree (sorting > 10k rows)
SET work_mem = '64MB';
SELECT count(*) FILTER (WHERE prev > id) AS out_of_order
FROM (SELECT id, lag(id) OVER (ORDER BY id) AS prev FROM sno_order) s;
\set type sno
\i test/mixed_sort.sql
\i test/uuid_casts.sql
\set lower sno_lower_bound
\i test/time_ranges.sql
SELECT min(id), max(id) FROM sno_order;
SELECT min(id) FILTER (WHERE false) IS NULL AS empty_min FROM sno_order;

-- operators
SELECT a, b, a = b AS eq, a <> b AS ne, a < b AS lt, a <= b AS le, a > b AS gt, a >= b AS ge,
       sno_cmp(a, b) AS cmp
FROM (VALUES ('2222222222222222'::sno, '2222222222222223'::sno),
             ('brpk4q72xwf2m63l', 'brpk4q72xwf2m63l'),
             ('xxxxxxxxxxxxxxxx', '2222222222222222')) AS t(a, b);

-- a table of IDs over a day, in insertion order (as a generator would produce)
CREATE TABLE sno_events (id sno NOT NULL, note text);
INSERT INTO sno_events
SELECT sno_from_parts(timestamptz '2024-01-01+00' + n * interval '1 s', 0, 1, n % 65536), 'e' || n
FROM generate_series(0, 86399) n;
CREATE INDEX sno_events_btree ON sno_events (id);
ANALYZE sno_events;

-- btree: equality and a time range from the bounds
EXPLAIN (COSTS OFF) SELECT * FROM sno_events WHERE id = 'brpk4q72xwf2m63l';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sno_events
WHERE id >= sno_lower_bound('2024-01-01 10:00+00') AND id < sno_lower_bound('2024-01-01 10:05+00');
SELECT count(*) FROM sno_events
WHERE id >= sno_lower_bound('2024-01-01 10:00+00') AND id < sno_lower_bound('2024-01-01 10:05+00');
-- min/max come from the index
SELECT plan_of('SELECT min(id), max(id) FROM sno_events');
SELECT sno_time(min(id)), sno_time(max(id)) FROM sno_events;

-- btree deduplication works (btequalimage): with many duplicates the
-- deduplicated index is far smaller than one built without it
CREATE TABLE sno_dups AS SELECT sno_from_parts('2024-01-01+00', 0, 0, n % 10) AS id FROM generate_series(1, 50000) n;
CREATE INDEX sno_dups_dedup ON sno_dups (id);
CREATE INDEX sno_dups_plain ON sno_dups (id) WITH (deduplicate_items = off);
SELECT pg_relation_size('sno_dups_dedup') * 3 < pg_relation_size('sno_dups_plain') AS deduplicated;
DROP TABLE sno_dups;

-- hash index
DROP INDEX sno_events_btree;
CREATE INDEX sno_events_hash ON sno_events USING hash (id);
CREATE INDEX sno_events_brin ON sno_events USING brin (id);
CREATE INDEX sno_events_bloom ON sno_events USING brin (id sno_bloom_ops);
SET enable_indexscan = off; SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT * FROM sno_events WHERE id = sno_from_parts('2024-01-01 12:00+00', 0, 1, 43200 % 65536);
SELECT note FROM sno_events WHERE id = sno_from_parts('2024-01-01 12:00+00', 0, 1, 43200 % 65536);
-- BRIN minmax for ranges, bloom for equality
DROP INDEX sno_events_hash;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sno_events WHERE id BETWEEN sno_lower_bound('2024-01-01 23:00+00') AND sno_upper_bound('2024-01-01 23:59:59+00');
SELECT count(*) FROM sno_events WHERE id BETWEEN sno_lower_bound('2024-01-01 23:00+00') AND sno_upper_bound('2024-01-01 23:59:59+00');
DROP INDEX sno_events_brin;
EXPLAIN (COSTS OFF) SELECT * FROM sno_events WHERE id = sno_from_parts('2024-01-01 06:00+00', 0, 1, 21600);
SELECT note FROM sno_events WHERE id = sno_from_parts('2024-01-01 06:00+00', 0, 1, 21600);
RESET enable_indexscan; RESET enable_bitmapscan;

-- joins: hash join and merge join both available
CREATE TABLE sno_pick AS SELECT id FROM sno_events WHERE note IN ('e5', 'e500', 'e50000');
ANALYZE sno_pick;
SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT e.note FROM sno_events e JOIN sno_pick p USING (id);
RESET enable_mergejoin; SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT e.note FROM sno_events e JOIN sno_pick p USING (id);
SELECT e.note FROM sno_events e JOIN sno_pick p USING (id) ORDER BY 1;
RESET enable_hashjoin; RESET enable_nestloop;

-- hash partitioning uses the extended hash
CREATE TABLE sno_parted (id sno) PARTITION BY HASH (id);
CREATE TABLE sno_parted_0 PARTITION OF sno_parted FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE sno_parted_1 PARTITION OF sno_parted FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO sno_parted SELECT id FROM sno_order;
SELECT count(*) > 0 AS p0_used FROM sno_parted_0;
SELECT count(*) > 0 AS p1_used FROM sno_parted_1;
SELECT sno_hash_extended('brpk4q72xwf2m63l', 0) = sno_hash_extended('brpk4q72xwf2m63l', 0) AS stable,
       sno_hash_extended('brpk4q72xwf2m63l', 0) <> sno_hash_extended('brpk4q72xwf2m63l', 1) AS seeded,
       sno_hash('brpk4q72xwf2m63l') <> sno_hash('brpk4q72xwf2m63m') AS differs;
DROP TABLE sno_order, sno_events, sno_pick, sno_parted;
