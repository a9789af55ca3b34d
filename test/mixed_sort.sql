-- Included by each type's pg_regress file with :type set (work_mem large
-- enough for an in-memory sort).
-- IDs built from bytes 00 (half of them), 80 and ff but for two random trailing bytes: many
-- share their time bytes and differ in identity (partition, node, shard) or
-- sequence only.  Abbreviated keys code those relative to the first identity
-- the sort sees, so every order between them must still be byte order.
SELECT typlen AS width FROM pg_type WHERE oid = :'type'::regtype \gset
CREATE TABLE generic_mixed AS
SELECT n, decode(string_agg(CASE WHEN i > :width - 2 THEN lpad(to_hex((test_random(25, n, i) * 255)::int), 2, '0')
                                 ELSE (ARRAY['00', '00', '80', 'ff'])[1 + floor(test_random(26, n, i) * 4)::int] END,
                            '' ORDER BY i), 'hex') AS bytes
FROM generate_series(1, 20000) n, generate_series(1, :width) i GROUP BY n;
SELECT format('ALTER TABLE generic_mixed ADD id %1$s; UPDATE generic_mixed SET id = bytes::%1$s', :'type') \gexec
SELECT count(*) AS mixed_rows, count(*) FILTER (WHERE prev > bytes) AS out_of_byte_order
FROM (SELECT bytes, lag(bytes) OVER (ORDER BY id) AS prev
      FROM (SELECT id, bytes FROM generic_mixed ORDER BY md5(n::text)) shuffled) s;
CREATE INDEX generic_mixed_idx ON generic_mixed (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT plan_of('SELECT bytes, lag(bytes) OVER (ORDER BY id) FROM generic_mixed');
SELECT count(*) FILTER (WHERE prev > bytes) AS index_out_of_byte_order
FROM (SELECT bytes, lag(bytes) OVER (ORDER BY id) AS prev FROM generic_mixed) s;
RESET enable_bitmapscan;
RESET enable_seqscan;
DROP TABLE generic_mixed;
