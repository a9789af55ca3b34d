-- siq: I/O (numeral and DID forms), functions, errors, the generator, and the shared type checks
SET timezone = 'UTC';

-- output is always 23 uppercase Crockford digits; input takes 1..24 digits,
-- any case, I/L as 1 and O as 0, or the DID form
SELECT v AS input, v::siq AS siq, siq_did(v::siq)
FROM (VALUES ('5W2YJY000000000000007'), ('05w2yjy000000000000007'), ('0'), ('ZZZ'), ('O1L'), ('o1l'),
             ('3ZZZZZZZZZZZZZZZZZZZZZZ'), ('03ZZZZZZZZZZZZZZZZZZZZZZ'),
             ('did:siq:iuxvojaaf4c6s6aaaaaaaaaaaaaah'), ('did:siq:IUXVOJAAF4C6S6AAAAAAAAAAAAAAH')) AS t(v);
-- a string of decimal digits is read as a Crockford numeral: '42' is 4*32+2 = 130
SELECT '42'::siq, '42'::siq::bytea = '\x0000000000000000000000000082'::bytea AS is_130;
SELECT input, sqlstate_of(format('SELECT %L::siq', input)) AS sqlstate
FROM (VALUES (''), ('40000000000000000000000'), ('13ZZZZZZZZZZZZZZZZZZZZZZ'), ('0000000000000000000000000'),
             ('U'), ('5W2YJY-000000000000007'), (' 42'), ('+5'), ('Siq(5)'),
             ('did:siq:iuxvojaaf4c6s6aaaaaaaaaaaaaab'), ('DID:SIQ:iuxvojaaf4c6s6aaaaaaaaaaaaaah'),
             ('did:siq:iuxvojaaf4c6s6aaaaaaaaaaaaaa'), ('did:siq:eb35ltyaqeayeaudaocaj'),
             ('did:siq:quxvojaaf4c6s6aaaaaaaaaaaaaah')) AS t(input);
SELECT 'did:siq:iuxvojaaf4c6s6aaaaaaaaaaaaaab'::siq;
SELECT '\x005e0bd2f0000000000000000007'::bytea::siq, sqlstate_of($$SELECT '\x00005e0bd2f0000000000000000007'::bytea::siq$$) AS sixteen_bytes;

-- construction and extraction
SELECT x, siq_time(x), siq_shard(x), siq_domain(x), siq_kind(x), siq_serial(x)
FROM (VALUES (siq_from_parts('2025-01-01 00:00:00.5+00', 42, siq_domain_hash('example.com'), 'user', 7)),
             (siq_from_parts('2025-01-01 00:00:00.5+00', 0, 0, 'Content', 8191)),
             (siq_from_parts('1970-01-01 00:00:00+00', 255, 4294967295, 'thread', 4095))) AS t(x);
SELECT k AS kind, siq_kind(siq_from_parts('2025-01-01', 0, 0, k, 0)) AS name,
       siq_serial(siq_from_parts('2025-01-01', 0, 0, k, 5)) AS serial
FROM unnest(ARRAY['ternary','multi','manytomany','content','thread','message','user','tag','group',
                  'event','channel','invite','application','collection','premium']) AS k;
-- the three unassigned qualifiers have no kind name
SELECT v, siq_kind(v::siq) IS NULL AS unassigned FROM (VALUES ('1J'), ('1T'), ('1W')) AS t(v);
-- time: the tick rounded up to the microsecond round-trips into the same tick
SELECT siq_time(x), siq_from_parts(siq_time(x), 0, 0, 'user', 0) = x AS same_tick
FROM (VALUES (siq_from_parts('2025-01-01 00:00:00.000001+00', 0, 0, 'user', 0)),
             (siq_from_parts('2025-01-01 00:00:00.000016+00', 0, 0, 'user', 0))) AS t(x);
SELECT siq_lower_bound('2025-01-01 00:00:00.000020+00'), siq_upper_bound('2025-01-01 00:00:00.000020+00');

-- domain hashes (spec A4)
SELECT d, siq_domain_hash(d) FROM (VALUES ('example.com'), ('localhost'), (''), ('0'), ('00'), ('EXAMPLE.COM')) AS t(d);
SELECT siq_domain_hash('example.com', 7) AS local_7, siq_domain_hash('example.com', 0) AS local_0,
       siq_domain_hash('', 7) AS empty_still_0;

-- errors
SELECT call, sqlstate_of('SELECT ' || call) AS sqlstate
FROM (VALUES ($$siq_from_parts('2025-01-01', 256, 0, 'user', 0)$$), ($$siq_from_parts('2025-01-01', -1, 0, 'user', 0)$$),
             ($$siq_from_parts('2025-01-01', 0, 4294967296, 'user', 0)$$), ($$siq_from_parts('2025-01-01', 0, -1, 'user', 0)$$),
             ($$siq_from_parts('2025-01-01', 0, 0, 'user', 2048)$$), ($$siq_from_parts('2025-01-01', 0, 0, 'content', 8191)$$),
             ($$siq_from_parts('2025-01-01', 0, 0, 'thread', 4096)$$), ($$siq_from_parts('2025-01-01', 0, 0, 'nope', 0)$$),
             ($$siq_new('nope')$$), ($$siq_new_at(now(), '')$$),
             ($$siq_from_parts('1969-12-31 23:59:59.999999+00', 0, 0, 'user', 0)$$),
             ($$siq_from_parts('infinity', 0, 0, 'user', 0)$$), ($$siq_lower_bound('-infinity')$$),
             ($$siq_domain_hash('exämple.com')$$), ($$siq_domain_hash('example.com', 256)$$),
             ($$siq_domain_hash('', 999)$$)) AS t(call);
SELECT siq_new('nope');
SELECT siq_domain_hash('exämple.com');

-- the generator: one counter per kind, serials restart at 0 each tick, increasing per backend
CREATE TEMP TABLE siq_sample AS SELECT n, siq_new('user') AS id FROM generate_series(1, 100000) n;
SELECT count(DISTINCT id) AS distinct_ids, bool_and(siq_kind(id) = 'user') AS all_user,
       count(DISTINCT siq_shard(id)) AS shards, count(DISTINCT siq_domain(id)) AS domains,
       max(siq_serial(id)) <= 2047 AS serial_fits
FROM siq_sample;
SELECT count(*) FILTER (WHERE prev >= id) AS not_increasing
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM siq_sample) s;
SELECT count(*) AS ticks_not_starting_at_0
FROM (SELECT siq_time(id), min(siq_serial(id)) AS first FROM siq_sample GROUP BY 1) t WHERE first <> 0;
DROP TABLE siq_sample;
SELECT abs(extract(epoch FROM siq_time(siq_new('message')) - clock_timestamp())) < 1 AS near_now,
       siq_kind(siq_new('MESSAGE')) AS kind, siq_domain(siq_new('tag')) AS default_domain_hash;
SELECT siq_time(x) = '2025-06-01 12:00:00.000016+00' AS at_time, siq_kind(x)
FROM (SELECT siq_new_at('2025-06-01 12:00:00.000016+00', 'event') AS x) s;

-- labels
SELECT p.oid::regprocedure AS function, provolatile, proisstrict, proparallel
FROM pg_proc p WHERE p.proname LIKE 'siq\_%' AND p.proname NOT IN
    ('siq_in', 'siq_out', 'siq_recv', 'siq_send', 'siq_to_bytea', 'siq_from_bytea', 'siq_eq', 'siq_ne', 'siq_lt',
     'siq_le', 'siq_gt', 'siq_ge', 'siq_cmp', 'siq_sortsupport', 'siq_hash', 'siq_hash_extended', 'siq_smaller', 'siq_larger')
ORDER BY p.oid::regprocedure::text;

\set type siq
\set lower siq_lower_bound
\i test/generic_type.sql
