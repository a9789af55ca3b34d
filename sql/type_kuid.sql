-- kuid and kuid96: I/O, functions, errors, the shared generator, and the shared type checks
SET timezone = 'UTC';

-- the library's README ids (spec §2, §3), zero and all ones
SELECT v AS input, v::kuid, v::kuid::bytea, kuid_time(v::kuid), kuid_seq(v::kuid)
FROM (VALUES ('...........'), ('.5.tXbhdV.3'), ('zzzzzzzzzzw'), ('..........3')) AS t(v);
SELECT v AS input, v::kuid96, v::kuid96::bytea, kuid96_time(v::kuid96), kuid96_node(v::kuid96), kuid96_seq(v::kuid96)
FROM (VALUES ('................'), ('.5.tXVEf8n4vPN.0'), ('zzzzzzzzzzzzzzzz')) AS t(v);
-- strict input: exact length, the alphabet only, kuid's 2 padding bits zero
-- (the library ignores the padding bits and a 17th character; we do not)
SELECT type, input, sqlstate_of(format('SELECT %L::%s', input, type)) AS sqlstate
FROM (VALUES ('kuid', ''), ('kuid', '..........'), ('kuid', '............'), ('kuid', '..........1'),
             ('kuid', '..........2'), ('kuid', 'zzzzzzzzzzz'), ('kuid', '-..........'), ('kuid', ' ...........'),
             ('kuid', '..........='), ('kuid', 'é..........'), ('kuid96', '.5.tXVEf8n4vPN.0z'),
             ('kuid96', '.5.tXVEf8n4vPN.'), ('kuid96', 'AGA5igPrJzJ7aYA-'), ('kuid96', '.5.tXVEf8n4vPN+0')) AS t(type, input);
SELECT '..........1'::kuid;
SELECT '\x00'::bytea::kuid;
SELECT length, sqlstate_of(format('SELECT %L::bytea::kuid', decode(repeat('00', length), 'hex'))) AS kuid,
       sqlstate_of(format('SELECT %L::bytea::kuid96', decode(repeat('00', length), 'hex'))) AS kuid96
FROM unnest(ARRAY[0, 7, 8, 9, 11, 12, 13]) AS length;

-- construction from a time floors to the 1.024 ms tick restarting every second;
-- the tick of the last 576 us of a second is 976
SELECT ts, kuid_lower_bound(ts), kuid_time(kuid_lower_bound(ts)), kuid_upper_bound(ts), kuid_seq(kuid_upper_bound(ts))
FROM (VALUES (timestamptz '2018-10-15 17:41:15.432128+00'), ('2018-10-15 17:41:15.433151+00'),
             ('2024-01-01 00:00:00.999424+00'), ('2024-01-01 00:00:00.999999+00'), ('1970-01-01 00:00:00+00')) AS t(ts);
-- kuid96 bounds span the 256-second window (inside it the node outranks time)
SELECT ts, kuid96_lower_bound(ts), kuid96_time(kuid96_lower_bound(ts)) AS window_start,
       kuid96_upper_bound(ts), kuid96_node(kuid96_upper_bound(ts))
FROM (VALUES (timestamptz '2018-10-15 17:41:15.432128+00'), ('2001-09-09 01:46:40+00'),
             ('2001-09-09 01:46:39.999999+00')) AS t(ts);
SELECT call, sqlstate_of('SELECT ' || call) AS sqlstate
FROM (VALUES ($$kuid_lower_bound('1969-12-31 23:59:59.999999+00')$$), ($$kuid_upper_bound('infinity')$$),
             ($$kuid96_lower_bound('-infinity')$$), ($$kuid_new_at('35198-01-19 07:06:40+00')$$),
             ($$kuid_new_at('35198-01-19 07:06:39.999999+00')$$), ($$kuid96_new_at('1960-01-01')$$),
             ($$kuid96('...........'::kuid, -1)$$), ($$kuid96('...........'::kuid, 4294967296)$$),
             ($$kuid96('...........'::kuid, 4294967295)$$)) AS t(call);
SELECT kuid_lower_bound('1969-12-31 23:59:59.999999+00');
SELECT kuid96('...........'::kuid, 4294967296);

-- between the types: attach a node, drop it; the fields and time survive
SELECT kuid96('.5.tXbhdV.3'::kuid, kuid_node_hash('uid@127.0.0.1')) AS readme_global,
       kuid('.5.tXVEf8n4vPN.0'::kuid96) AS readme_local,
       '.5.tXVEf8n4vPN.0'::kuid96::kuid AS cast_drops_node;
-- a kuid whose seconds need the 20-bit field (non-natural, Sec >= 10^6) still converts exactly
SELECT x, kuid96(x, 7), kuid(kuid96(x, 7)) = x AS round_trip, kuid_time(x) = kuid96_time(kuid96(x, 7)) AS same_time
FROM (VALUES ('zzzzzzzzzzw'::kuid), ('.5.tXbhdV.3'::kuid)) AS t(x);

-- node fingerprints (spec §5: phash2 of the atom, Latin-1 characters as one byte)
SELECT name, kuid_node_hash(name), to_hex(kuid_node_hash(name))
FROM (VALUES ('nonode@nohost'), ('uid@127.0.0.1'), ('a1@host'), ('b!@host'), (''), ('é@host'), ('ж@host')) AS t(name);

-- the generator: now, one counter for both types, a sequence per tick
SELECT abs(extract(epoch FROM kuid_time(kuid_new()) - clock_timestamp())) < 1 AS kuid_near_now,
       abs(extract(epoch FROM kuid96_time(kuid96_new()) - clock_timestamp())) < 1 AS kuid96_near_now,
       kuid96_node(kuid96_new()) = kuid96_node(kuid96(kuid_new())) AS same_node;
CREATE TEMP TABLE kuid_sample AS
SELECT n, CASE WHEN n % 2 = 0 THEN kuid96(kuid_new()) ELSE kuid96_new() END AS id FROM generate_series(1, 50000) n;
SELECT count(*) = count(DISTINCT id) AS distinct_across_types,
       count(*) FILTER (WHERE prev >= id) AS not_increasing,
       max(kuid96_seq(id)) <= 16383 AS within_14_bits
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM kuid_sample) s;
-- the first ID of each tick has sequence 0 (the sequence restarts per tick)
SELECT count(*) AS ticks_not_starting_at_0
FROM (SELECT kuid96_time(id), min(kuid96_seq(id)) AS first FROM kuid_sample GROUP BY 1) t WHERE first <> 0;
DROP TABLE kuid_sample;
SELECT kuid_time(kuid_new_at('2024-02-29 12:00:00.5+00')) AS kuid_at,
       kuid96_time(kuid96_new_at('2024-02-29 12:00:00.5+00')) AS kuid96_at,
       -- a whole unit's pool, of a unit this run alone uses (the ledger is the server's: upgrade.t runs this file once per release)
       (SELECT count(DISTINCT kuid_new_at(t)) FROM (SELECT clock_timestamp() - interval '1 day' AS t) u, generate_series(1, 16384)) AS backfill_distinct;

-- labels
SELECT p.oid::regprocedure AS function, provolatile, proisstrict, proparallel
FROM pg_proc p WHERE p.proname ~ '^kuid(96)?(_|$)' AND p.proname !~
    '_(in|out|recv|send|to_bytea|from_bytea|eq|ne|lt|le|gt|ge|cmp|sortsupport|hash|hash_extended|smaller|larger)$'
ORDER BY p.oid::regprocedure::text;

\set type kuid
\set lower kuid_lower_bound
\i test/generic_type.sql
-- kuid96 from a fixed node, one ID per second (bounds would span 256 s windows)
CREATE FUNCTION kuid96_at_node(ts timestamptz) RETURNS kuid96 LANGUAGE sql IMMUTABLE
    AS $$ SELECT kuid96(kuid_lower_bound(ts), 42) $$;
\set type kuid96
\set lower kuid96_at_node
\i test/generic_type.sql
DROP FUNCTION kuid96_at_node(timestamptz);
