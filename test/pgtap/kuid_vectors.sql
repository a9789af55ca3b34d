-- Every local and interval-8 row of the Erlang uid vectors, every global
-- row at its own interval (kuid96_encode/decode), the node fingerprints,
-- and our verdict for every uid_invalid.tsv decoder input, through SQL (run
-- from the project root).
\ir preamble.psql

CREATE TEMP TABLE vectors (id int, kind text, "case" text, drift text, term text, hex text, b64 text, decoded text,
    time_us numeric, mega bigint, sec bigint, micro bigint, seq int, node_hex text, node_name text, t_ms numeric,
    roundtrip text);
\copy vectors FROM 'test/vectors/uid.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01')
CREATE TEMP TABLE intervals AS SELECT * FROM vectors WHERE kind = 'global';   -- every I in 5 .. 10
DELETE FROM vectors WHERE kind = 'global' AND drift <> '8';   -- another interval: not the type's own bytes
CREATE TEMP TABLE hashes (id int, atom_utf8_hex text, atom text, phash2_u32 bigint, node_hex text);
\copy hashes FROM 'test/vectors/uid_node_hash.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01', FORCE_NOT_NULL (atom_utf8_hex, atom))
CREATE TEMP TABLE verdicts (id int, function text, form text, input text, type text, verdict text, value_hex text);
\copy verdicts FROM 'test/vectors/uid_invalid_verdicts.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01', FORCE_NOT_NULL (input, value_hex))

SELECT plan(22);

SELECT ok((SELECT count(*) FILTER (WHERE kind = 'local') FROM vectors) > 0
      AND (SELECT count(*) FILTER (WHERE kind = 'global') FROM vectors) > 0, 'uid.tsv loaded (local and interval-8 rows)');
SELECT is_empty($$
    SELECT id FROM vectors WHERE kind = 'local'
      AND (decode(hex, 'hex')::kuid::text IS DISTINCT FROM b64 OR b64::kuid::bytea IS DISTINCT FROM decode(hex, 'hex')) $$,
    'kuid: bytes to text and text to bytes, as the library');
SELECT is_empty($$
    SELECT id FROM vectors WHERE kind = 'global'
      AND (decode(hex, 'hex')::kuid96::text IS DISTINCT FROM b64 OR b64::kuid96::bytea IS DISTINCT FROM decode(hex, 'hex')) $$,
    'kuid96: bytes to text and text to bytes, as the library');
SELECT is_empty($$
    SELECT id FROM vectors, LATERAL (SELECT b64::kuid AS x) s WHERE kind = 'local'
      AND (extract(epoch FROM kuid_time(x)) * 1000000 IS DISTINCT FROM time_us OR kuid_seq(x) IS DISTINCT FROM seq) $$,
    'kuid_time and kuid_seq: (Mega*10^6 + Sec)*10^6 + Tick*1024 and the sequence');
SELECT is_empty($$
    SELECT id FROM vectors, LATERAL (SELECT b64::kuid96 AS x) s WHERE kind = 'global'
      AND (extract(epoch FROM kuid96_time(x)) * 1000000 IS DISTINCT FROM time_us OR kuid96_seq(x) IS DISTINCT FROM seq
           OR kuid96_node(x) IS DISTINCT FROM ('x' || node_hex)::bit(32)::bigint & 4294967295) $$,
    'kuid96_time, kuid96_seq and kuid96_node');
SELECT is_empty($$
    SELECT id FROM vectors, LATERAL (SELECT b64::kuid96 AS x) s WHERE kind = 'global'
      AND (kuid96(kuid(x), kuid96_node(x)) IS DISTINCT FROM x) $$,
    'kuid96(kuid(x), kuid96_node(x)) = x: the node moves between the seconds and back');
SELECT is_empty($$
    SELECT id FROM vectors WHERE kind = 'global' AND node_name <> '-'
      AND kuid_node_hash(node_name) IS DISTINCT FROM ('x' || node_hex)::bit(32)::bigint & 4294967295 $$,
    'kuid_node_hash gives the node field of every id minted from a node name');
-- times a clock can give (Sec < 10^6, Tick < 977): the id lies between the bounds of its
-- time, and those are its tick (the time is built exactly: days, then microseconds)
CREATE TEMP VIEW natural_rows AS
SELECT v.*, to_timestamp(0) + div(time_us, 86400000000)::int * interval '1 day'
                            + mod(time_us, 86400000000)::bigint * interval '1 microsecond' AS ts
FROM vectors v WHERE sec < 1000000 AND micro < 1000000;
SELECT ok((SELECT count(*) FROM natural_rows) > 1000, 'most rows hold times a clock can give');
SELECT is_empty($$
    SELECT id FROM natural_rows, LATERAL (SELECT b64::kuid AS x) s WHERE kind = 'local'
      AND NOT (x BETWEEN kuid_lower_bound(ts) AND kuid_upper_bound(ts)
               AND kuid_time(kuid_lower_bound(ts)) = ts AND kuid_seq(kuid_lower_bound(ts)) = 0
               AND kuid_seq(kuid_upper_bound(ts)) = 16383) $$,
    'kuid: the bounds of an id''s time are its tick, sequences 0 and 16383');
SELECT is_empty($$
    SELECT id FROM natural_rows, LATERAL (SELECT b64::kuid96 AS x) s WHERE kind = 'global'
      AND NOT (x BETWEEN kuid96_lower_bound(ts) AND kuid96_upper_bound(ts)
               AND kuid96_time(kuid96_lower_bound(ts)) = to_timestamp(0) + div(sec, 256) * 256 * interval '1 s'
                                                         + mega * 1000000 * interval '1 s') $$,
    'kuid96: an id lies inside the bounds of its 256-second window, which start at the window');

SELECT is_empty($$
    SELECT id FROM hashes
    WHERE kuid_node_hash(convert_from(decode(atom_utf8_hex, 'hex'), 'UTF8')) IS DISTINCT FROM phash2_u32 $$,
    'uid_node_hash.tsv: every node name''s fingerprint');
SELECT is_empty($$
    SELECT id, type, input FROM verdicts, LATERAL (SELECT unescape_vector(input) AS text_input) s
    WHERE form = 'text' AND text_input IS NOT NULL
      AND sqlstate_of(format('SELECT %L::%s', text_input, type))
          IS DISTINCT FROM CASE verdict WHEN 'accept' THEN 'ok' ELSE '22P02' END $$,
    'uid_invalid.tsv text inputs: accepted or 22P02, as API.md says');
SELECT is_empty($$
    SELECT id, type, input FROM verdicts
    WHERE form = 'text' AND verdict = 'accept'
      AND CASE type WHEN 'kuid' THEN input::kuid::bytea ELSE input::kuid96::bytea END IS DISTINCT FROM decode(value_hex, 'hex') $$,
    'uid_invalid.tsv: accepted text gives the library''s bytes');
SELECT is_empty($$
    SELECT id, type, input FROM verdicts
    WHERE form = 'binary'
      AND sqlstate_of(format('SELECT %L::bytea::%s', decode(input, 'hex'), type))
          IS DISTINCT FROM CASE verdict WHEN 'accept' THEN 'ok' ELSE '22P03' END $$,
    'uid_invalid.tsv binary inputs: exactly 8 (kuid) or 12 (kuid96) bytes, else 22P03');

-- the library's encode/2 and decode/2 at every interval
SELECT ok((SELECT count(DISTINCT drift) FROM intervals) = 6, 'uid.tsv has global rows at intervals 5 to 10');
SELECT is_empty($$
    SELECT id, drift FROM intervals, LATERAL (SELECT kuid96_decode(decode(hex, 'hex'), drift::int) AS x) s
    WHERE extract(epoch FROM kuid96_time(x)) * 1000000 IS DISTINCT FROM time_us OR kuid96_seq(x) IS DISTINCT FROM seq
       OR kuid96_node(x) IS DISTINCT FROM ('x' || node_hex)::bit(32)::bigint & 4294967295
       OR kuid96_encode(x, drift::int) IS DISTINCT FROM decode(hex, 'hex') $$,
    'kuid96_decode(bytes, I) reads every global row''s time, sequence and node, and kuid96_encode(x, I) writes its bytes');
SELECT is_empty($$
    SELECT id FROM intervals WHERE drift = '8'
      AND (kuid96_decode(decode(hex, 'hex'), 8)::bytea IS DISTINCT FROM decode(hex, 'hex')
           OR kuid96_encode(decode(hex, 'hex')::kuid96, 8) IS DISTINCT FROM decode(hex, 'hex')) $$,
    'at interval 8, encode and decode are the type''s own bytes');
SELECT results_eq($$
    SELECT sqlstate_of('SELECT kuid96_encode(kuid96_lower_bound(now()), ' || i || ')') FROM unnest(ARRAY[4, 11, -1, 0, 2147483647]) i $$,
    $$ VALUES ('22003'), ('22003'), ('22003'), ('22003'), ('22003') $$,
    'kuid96_encode refuses intervals outside 5 .. 10 (22003)');
SELECT results_eq($$
    SELECT sqlstate_of(q) FROM unnest(ARRAY[
        'SELECT kuid96_decode(''\x00'', 8)', 'SELECT kuid96_decode(''\x000000000000000000000000ff'', 8)',
        'SELECT kuid96_decode(''\x000000000000000000000000'', 11)', 'SELECT kuid96_decode(''\x000000000000000000000000'', 5)']) q $$,
    $$ VALUES ('22P03'), ('22P03'), ('22003'), ('ok') $$,
    'kuid96_decode: 12 bytes (else 22P03) and an interval from 5 to 10 (else 22003)');

-- the library's checked l(Id)
SELECT is(kuid96_local(kuid96(kuid_lower_bound('2026-01-01'))), kuid_lower_bound('2026-01-01'),
    'kuid96_local of an ID with this server''s node is its kuid');
SELECT is(sqlstate_of(format('SELECT kuid96_local(kuid96(kuid_lower_bound(now()), %s))',
                             (kuid96_node(kuid96_new()) + 1) % 4294967296)), '22023',
    'kuid96_local refuses another node''s ID (22023), as l/1 does');

-- at a glance
SELECT is_empty($$
    SELECT id FROM vectors, LATERAL (SELECT CASE kind WHEN 'local' THEN kuid_fields(b64::kuid) ELSE kuid96_fields(b64::kuid96) END AS f) s
    WHERE (f->>'mega')::bigint IS DISTINCT FROM mega OR (f->>'sec')::bigint IS DISTINCT FROM sec
       OR (f->>'tick')::bigint IS DISTINCT FROM micro >> 10 OR (f->>'seq')::int IS DISTINCT FROM seq
       OR (f->>'time')::timestamptz IS DISTINCT FROM to_timestamp(0) + div(time_us, 86400000000)::int * interval '1 day'
                                                      + mod(time_us, 86400000000)::bigint * interval '1 microsecond'
       OR (kind = 'global') IS DISTINCT FROM (f ? 'node')
       OR (kind = 'global' AND (f->>'node')::bigint IS DISTINCT FROM ('x' || node_hex)::bit(32)::bigint & 4294967295)
       OR (SELECT count(*) FROM jsonb_object_keys(f)) <> CASE kind WHEN 'local' THEN 5 ELSE 6 END $$,
    'kuid_fields and kuid96_fields: every field as the library reads it (Sec and Tick as stored), and the time');

SELECT * FROM finish();
ROLLBACK;
