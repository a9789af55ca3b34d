\set ECHO queries
\pset footer off
SET timezone = 'UTC';
CREATE EXTENSION flakeid;

-- a table keyed by sno, minted by the server's shared generator
CREATE TABLE events (id sno PRIMARY KEY DEFAULT sno_new(0), body text);
INSERT INTO events (body) SELECT 'event ' || n FROM generate_series(1, 5) n;
SELECT id, sno_time(id), sno_partition(id), sno_sequence(id), body FROM events ORDER BY id;

-- casts to and from text and bytea; bad text is rejected
SELECT 'brpk4q72xwf2m63l'::sno AS from_text, 'brpk4q72xwf2m63l'::sno::bytea AS as_bytea,
       '\x4e6f2160a0ff9a0a1033'::bytea::sno AS from_bytea;
SELECT sno_time('brpk4q72xwf2m63l'), sno_meta('brpk4q72xwf2m63l'), sno_partition('brpk4q72xwf2m63l');

-- back-fill a day of history, then time-range scans on the primary key:
-- id <@ tstzrange needs no expression index (a constant range becomes index
-- bounds; one known at run time, like now(), gets bounds computed per scan)
INSERT INTO events (id, body)
SELECT sno_new_at(now() - n * interval '10 seconds'), 'old ' || n FROM generate_series(1, 8640) n;
ANALYZE events;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM events WHERE id <@ tstzrange(now() - interval '1 hour', now());
SELECT count(*) AS last_hour FROM events WHERE id <@ tstzrange(now() - interval '1 hour', now());
SELECT count(*) AS today_00_to_06 FROM events
WHERE id <@ tstzrange(date_trunc('day', now()), date_trunc('day', now()) + interval '6 hours');

-- the other formats: one new ID of each, with its time
SELECT flax_new() AS flax, siq_new('user') AS siq, kuid_new() AS kuid, kuid96_new() AS kuid96,
       snowflake_new() AS snowflake;
SELECT kuid_time('.5.tXbhdV.3') AS erlang_uid_readme, snowflake_time(175928847299117063) AS discord_example;
