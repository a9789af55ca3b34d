-- Back-fill (*_new_at) never repeats an ID on one server (this file: one
-- session; test/t/012_backfill.pl: parallel workers, sessions, restarts):
-- each time unit takes its pool's sequences once, interleaved with other
-- units or not, and the call after the last one is ERROR 54000 instead of a
-- wrap.
\ir preamble.psql

SELECT plan(21);

-- the first call past a unit's pool: its SQLSTATE, message, detail and hint
-- (sqlstate_of and message_of in helpers.sql give one of them each)
CREATE FUNCTION pg_temp.refusal(call text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    state text; msg text; detail text; hint text;
BEGIN
    EXECUTE 'SELECT ' || call;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    RETURN state || E'\n' || msg || E'\n' || detail || E'\n' || hint;
END $$;

-- sno: the issue's case, 70,000 calls at one instant
CREATE TEMP TABLE sno_ids (id sno);
INSERT INTO sno_ids SELECT sno_new_at('2024-03-01 10:00:00+00') FROM generate_series(1, 65536);
SELECT is((SELECT count(DISTINCT id) FROM sno_ids), 65536::bigint,
          'sno: 65,536 back-filled IDs at one instant are all distinct');
SELECT throws_ok($$SELECT sno_new_at('2024-03-01 10:00:00+00') FROM generate_series(1, 70000 - 65536)$$, '54000', NULL,
                 'sno: the 65,537th at that instant is ERROR 54000, not a wrap');
SELECT is(pg_temp.refusal($$sno_new_at('2024-03-01 10:00:00.003+00')$$),
          E'54000\ntoo many back-filled sno IDs in the time unit of 2024-03-01 10:00:00.003+00\n'
          'Back-filled sno IDs of one time unit share a pool of 65536 sequences on this server, and every one of them was given.\n'
          'Spread the times over more units. Sequences back-filled before a restart are never given again, so a unit back-filled then has fewer left after it.',
          'sno: an instant in the same 4 ms unit is refused too, with the detail and hint');
SELECT is((SELECT count(*) FROM sno_ids), 65536::bigint, 'sno: no ID came from the refused calls');
SELECT lives_ok($$SELECT sno_new_at('2024-03-01 10:00:00.004+00')$$, 'sno: the next 4 ms unit takes IDs');
SELECT throws_ok($$SELECT sno_new_at('2024-03-01 10:00:00+00', 7)$$, '54000', NULL,
                 'sno: another meta shares the unit''s pool, so it is refused too');

-- interleaved times: each unit under its pool, so nothing repeats and nothing is refused
CREATE TEMP TABLE interleaved AS
SELECT i, sno_new_at(CASE WHEN i % 2 = 0 THEN timestamptz '2024-03-02 10:00:00+00' ELSE '2024-03-02 11:00:00+00' END) AS id
FROM generate_series(1, 80000) i;
SELECT is((SELECT count(DISTINCT id) FROM interleaved), 80000::bigint,
          'sno: 80,000 IDs alternating between two instants (40,000 each) are all distinct');

-- the other pools
SELECT is((SELECT count(DISTINCT snowflake_new_at('2024-03-03 10:00:00.123+00')) FROM generate_series(1, 4096)), 4096::bigint,
          'snowflake: 4,096 in one millisecond are distinct');
SELECT throws_ok($$SELECT snowflake_new_at('2024-03-03 10:00:00.1234+00')$$, '54000', NULL,
                 'snowflake: the 4,097th in that millisecond is ERROR 54000');
SELECT lives_ok($$SELECT snowflake_new_at('2024-03-03 10:00:00.124+00')$$, 'snowflake: the next millisecond takes IDs');

SELECT is((SELECT count(DISTINCT kuid_new_at('2024-03-04 10:00:00+00')) FROM generate_series(1, 10000)), 10000::bigint,
          'kuid: 10,000 in one tick are distinct');
SELECT is((SELECT count(DISTINCT kuid(kuid96_new_at('2024-03-04 10:00:00+00'))) FROM generate_series(1, 6384)), 6384::bigint,
          'kuid96: 6,384 more in that tick, from the pool kuid shares, are distinct');
SELECT throws_ok($$SELECT kuid_new_at('2024-03-04 10:00:00+00')$$, '54000', NULL,
                 'kuid: past the 16,384 the tick holds, kuid_new_at is ERROR 54000');
SELECT throws_ok($$SELECT kuid96_new_at('2024-03-04 10:00:00+00')$$, '54000', NULL,
                 'kuid96: and so is kuid96_new_at');

-- siq: every kind has a pool of its own, 2^(16 - the kind's width)
CREATE TEMP TABLE kinds (kind text, pool int);
INSERT INTO kinds VALUES ('ternary', 8192), ('content', 8192), ('thread', 4096), ('message', 4096),
                         ('user', 2048), ('premium', 2048);
SELECT is((SELECT array_agg(kind || ':' || n ORDER BY kind)
           FROM (SELECT kind, count(DISTINCT siq_new_at('2024-03-05 10:00:00+00', kind)) AS n
                 FROM kinds, generate_series(1, pool) GROUP BY kind) s),
          (SELECT array_agg(kind || ':' || pool ORDER BY kind) FROM kinds),
          'siq: each kind fills its own pool in one tick with distinct IDs');
SELECT is((SELECT array_agg(sqlstate_of(format('SELECT siq_new_at(%L, %L)', '2024-03-05 10:00:00+00', kind)) ORDER BY kind) FROM kinds),
          array_fill('54000'::text, ARRAY[6]),
          'siq: the next ID of every kind in that tick is ERROR 54000');
SELECT alike(pg_temp.refusal($$siq_new_at('2024-03-05 10:00:00+00', 'user')$$),
            E'54000\ntoo many back-filled siq user IDs in the time unit of %\nBack-filled siq IDs of one time unit share a pool of 2048 sequences%',
            'siq: the message names the kind and the pool');
SELECT lives_ok($$SELECT siq_new_at('2024-03-05 10:00:00+00', 'tag')$$, 'siq: another kind in that tick still takes IDs');

-- a full unit of one generator does not touch another's
SELECT lives_ok($$SELECT snowflake_new_at('2024-03-01 10:00:00+00')$$,
                'snowflake takes IDs at the instant whose sno pool is full');

-- the live generators are untouched by a full back-fill pool
SELECT isnt(sno_new(), NULL, 'sno_new() works while a back-filled unit is full');

-- Many units with one ID each pass through the session's ledger, which
-- keeps 2^17 units one by one and then forgets the least used: three passes
-- over 300,000 milliseconds give 900,000 distinct IDs and no refusal.
CREATE TEMP TABLE spread AS
SELECT snowflake_new_at(timestamptz '2020-01-01+00' + (i % 300000) * interval '1 ms') AS id
FROM generate_series(0, 899999) i;
SELECT is((SELECT count(DISTINCT id) FROM spread), 900000::bigint,
          'snowflake: three passes over 300,000 milliseconds, more than the ledger keeps, give 900,000 distinct IDs');

SELECT * FROM finish();
ROLLBACK;
