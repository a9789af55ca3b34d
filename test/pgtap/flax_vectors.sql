-- Every row of the public flax vectors, through SQL (run from the project root).
\ir preamble.psql


CREATE TEMP TABLE vectors (bytes12_hex text, flax_id text, unix_ms text, flax_epoch_ms text,
    random56_hex text, note text);
\copy vectors FROM 'test/vectors/flax.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01')
CREATE TEMP TABLE invalid (kind text, input text, length text, regex_match text, regex_search text,
    regex_fullmatch text, strict16 text, library_behaviour text);
\copy invalid FROM 'test/vectors/flax_invalid.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true, QUOTE E'\x01', FORCE_NOT_NULL (input))

SELECT plan(10);

SELECT ok((SELECT count(*) FROM vectors) > 0, 'flax.tsv loaded');
SELECT is_empty($$ SELECT flax_id FROM vectors WHERE flax_id::flax::bytea IS DISTINCT FROM decode(bytes12_hex, 'hex') $$,
    'text input gives the vector''s bytes');
SELECT is_empty($$ SELECT flax_id FROM vectors WHERE decode(bytes12_hex, 'hex')::flax::text IS DISTINCT FROM flax_id $$,
    'bytes give the vector''s canonical text');
SELECT is_empty($$
    SELECT flax_id FROM vectors, LATERAL (SELECT flax_id::flax AS x) s
    WHERE flax_time(x) IS DISTINCT FROM 'epoch'::timestamptz + unix_ms::bigint * interval '1 millisecond'
       OR flax_random(x) IS DISTINCT FROM ('x' || lpad(random56_hex, 16, '0'))::bit(64)::bigint $$,
    'time and random part extracted');
SELECT is_empty($$
    SELECT flax_id FROM vectors, LATERAL (SELECT flax_id::flax AS x) s
    WHERE flax_from_parts(flax_time(x), flax_random(x)) IS DISTINCT FROM x
       OR flax_lower_bound(flax_time(x)) > x OR flax_upper_bound(flax_time(x)) < x $$,
    'flax_from_parts rebuilds every ID; the bounds of its millisecond enclose it');

SELECT ok((SELECT count(*) FROM invalid WHERE kind = 'parse' AND unescape_vector(input) IS NOT NULL) > 0,
    'flax_invalid.tsv loaded');
SELECT is_empty($$
    SELECT input FROM invalid, LATERAL (SELECT unescape_vector(input) AS text_input) s
    WHERE kind = 'parse' AND text_input IS NOT NULL
      AND sqlstate_of(format('SELECT %L::flax', text_input))
          IS DISTINCT FROM CASE strict16 WHEN 'accept' THEN 'ok' ELSE '22P02' END $$,
    'parse rows accepted or rejected (22P02) per the strict16 verdict');
-- the library turns these instants into garbage or, for 0, silently into "now": we refuse them
SELECT is_empty($$
    SELECT input FROM invalid
    WHERE kind = 'generate'
      AND sqlstate_of(format('SELECT flax_new_at(to_timestamp(%s))', input)) IS DISTINCT FROM '22008' $$,
    'generate rows (before the epoch, 0, past 2049) are ERROR 22008');
SELECT ok((SELECT count(*) FROM invalid WHERE kind = 'generate') > 0, 'generate rows present');
SELECT diag(format('%s parse rows hold NUL: checked by the C tests only',
    (SELECT count(*) FROM invalid WHERE kind = 'parse' AND unescape_vector(input) IS NULL)));

-- at a glance
SELECT is_empty($$
    SELECT flax_id FROM vectors, LATERAL (SELECT flax_fields(flax_id::flax) AS f) s
    WHERE (f->>'random')::bigint IS DISTINCT FROM ('x' || lpad(random56_hex, 16, '0'))::bit(64)::bigint
       OR (f->>'time')::timestamptz IS DISTINCT FROM to_timestamp(unix_ms::numeric / 1000)
       OR (SELECT count(*) FROM jsonb_object_keys(f)) <> 2 $$,
    'flax_fields: the 56 random bits and the time of every flax.tsv row');

SELECT * FROM finish();
ROLLBACK;
