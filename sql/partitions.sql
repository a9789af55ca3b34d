-- Partitioning by ID (the README's examples): monthly range partitions on an
-- sno key, pruned by id <@ tstzrange; hash partitions on an ID
SET timezone = 'UTC';

CREATE TABLE events (id sno PRIMARY KEY DEFAULT sno_new(), payload text) PARTITION BY RANGE (id);
CREATE TABLE events_2026_01 PARTITION OF events
    FOR VALUES FROM (sno_lower_bound('2026-01-01')) TO (sno_lower_bound('2026-02-01'));
CREATE TABLE events_2026_02 PARTITION OF events
    FOR VALUES FROM (sno_lower_bound('2026-02-01')) TO (sno_lower_bound('2026-03-01'));
CREATE TABLE events_2026_03 PARTITION OF events
    FOR VALUES FROM (sno_lower_bound('2026-03-01')) TO (sno_lower_bound('2026-04-01'));
CREATE TABLE events_2026_04 PARTITION OF events
    FOR VALUES FROM (sno_lower_bound('2026-04-01')) TO (sno_lower_bound('2026-05-01'));
-- one event per 10 minutes from January to April (back-filled IDs)
INSERT INTO events (id, payload)
SELECT sno_new_at(t), 'event at ' || t
FROM generate_series(timestamptz '2026-01-01', '2026-04-30 23:50', interval '10 min') t;
ANALYZE events;
SELECT tableoid::regclass AS partition, count(*), min(sno_time(id)), max(sno_time(id))
FROM events GROUP BY 1 ORDER BY 1;

-- a constant range prunes to the partitions it touches, and scans by id
EXPLAIN (COSTS OFF) SELECT count(*) FROM events WHERE id <@ tstzrange('2026-02-10', '2026-02-20');
SELECT count(*) FROM events WHERE id <@ tstzrange('2026-02-10', '2026-02-20');
EXPLAIN (COSTS OFF) SELECT count(*) FROM events WHERE id <@ tstzrange('2026-01-31 12:00', '2026-02-01 12:00', '[]');
SELECT count(*) FROM events WHERE id <@ tstzrange('2026-01-31 12:00', '2026-02-01 12:00', '[]');
EXPLAIN (COSTS OFF) SELECT count(*) FROM events WHERE tstzrange('2026-04-15', NULL) @> id;
SELECT count(*) FROM events WHERE tstzrange('2026-04-15', NULL) @> id;
-- (through plan_of: 19 adds "Replaces: Scan on events" to the empty Result)
SELECT plan_of($$SELECT count(*) FROM events WHERE id <@ tstzrange('2027-01-01', '2027-02-01')$$);
-- the same answers as filtering on the extracted time
SELECT count(*) FILTER (WHERE sno_time(id) <@ tstzrange('2026-02-10', '2026-02-20')) AS february,
       count(*) FILTER (WHERE sno_time(id) <@ tstzrange('2026-01-31 12:00', '2026-02-01 12:00', '[]')) AS across,
       count(*) FILTER (WHERE sno_time(id) >= '2026-04-15') AS since
FROM events;

-- a range known only at run time (a generic plan's parameter): the bounds
-- are computed when the plan starts, which prunes partitions then
PREPARE events_in(tstzrange) AS SELECT count(*) FROM events WHERE id <@ $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE events_in(tstzrange('2026-03-05', '2026-03-06'));
EXECUTE events_in(tstzrange('2026-03-05', '2026-03-06'));
RESET plan_cache_mode;
DEALLOCATE events_in;
DROP TABLE events;

-- kuid96: the rewrite covers whole 256-second windows and keeps a recheck
CREATE TABLE node_events (id kuid96 PRIMARY KEY);
INSERT INTO node_events
SELECT kuid96(kuid_new_at('2026-01-01'::timestamptz + n * interval '7 s'), node)
FROM generate_series(0, 999) n, (VALUES (1), (2), (3)) AS nodes(node);
ANALYZE node_events;
EXPLAIN (COSTS OFF) SELECT count(*) FROM node_events WHERE id <@ tstzrange('2026-01-01 00:10', '2026-01-01 00:20');
SELECT count(*) AS operator, (SELECT count(*) FROM node_events WHERE kuid96_time(id) <@ tstzrange('2026-01-01 00:10', '2026-01-01 00:20')) AS time_filter
FROM node_events WHERE id <@ tstzrange('2026-01-01 00:10', '2026-01-01 00:20');
DROP TABLE node_events;

-- hash partitions on an ID (its extended hash support function)
CREATE TABLE sessions (id flax PRIMARY KEY DEFAULT flax_new(), opened timestamptz DEFAULT now())
    PARTITION BY HASH (id);
CREATE TABLE sessions_0 PARTITION OF sessions FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE sessions_1 PARTITION OF sessions FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE sessions_2 PARTITION OF sessions FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE sessions_3 PARTITION OF sessions FOR VALUES WITH (MODULUS 4, REMAINDER 3);
INSERT INTO sessions (id) SELECT flax_from_parts('2026-01-01', n) FROM generate_series(1, 4000) n;
SELECT tableoid::regclass AS partition, count(*) BETWEEN 850 AND 1150 AS about_a_quarter
FROM sessions GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT * FROM sessions WHERE id = flax_from_parts('2026-01-01', 42);
DROP TABLE sessions;
