-- Casts to and from uuid, included by each type's pg_regress file with :type
-- set.  Random IDs (bytes 00, 80, ff and random ones, so many share
-- long prefixes): order, equality and round trips hold for all of them.
SELECT typlen AS width FROM pg_type WHERE oid = :'type'::regtype \gset
CREATE TABLE uuid_ids AS
SELECT n, decode(string_agg(CASE WHEN test_random(50, n, i) < 0.5 THEN (ARRAY['00', '80', 'ff'])[1 + floor(test_random(51, n, i) * 3)::int]
                                 ELSE lpad(to_hex(floor(test_random(52, n, i) * 256)::int), 2, '0') END,
                            '' ORDER BY i), 'hex') AS bytes
FROM generate_series(1, 1000) n, generate_series(1, :width) i GROUP BY n;
SELECT format('ALTER TABLE uuid_ids ADD id %1$s; UPDATE uuid_ids SET id = bytes::%1$s', :'type') \gexec
SELECT format($$SELECT count(*) AS ids,
       count(*) FILTER (WHERE id::uuid::%1$s = id) AS round_trips,
       count(*) FILTER (WHERE substr(id::uuid::text, 15, 1) = '8' AND substr(id::uuid::text, 20, 1) IN ('8', '9', 'a', 'b')) AS version_8_variant_10
FROM uuid_ids$$, :'type') \gexec
-- every pair of 1000 IDs (a million): a < b exactly when a::uuid < b::uuid
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (a.id < b.id) <> (a.id::uuid < b.id::uuid) OR (a.id = b.id) <> (a.id::uuid = b.id::uuid)) AS order_differs
FROM uuid_ids a, uuid_ids b;
-- anything not made by the cast is 22P03: a random (version 4) uuid, another
-- type's uuid, and this type's uuid with its version, variant or a spare bit changed
SELECT format($$SELECT sqlstate_of('SELECT gen_random_uuid()::%1$s') AS version_4,
       sqlstate_of($q$SELECT %2$L::uuid::%1$s$q$) AS other_type,
       sqlstate_of($q$SELECT overlay(%3$L placing '9' from 15 for 1)::uuid::%1$s$q$) AS version_9,
       sqlstate_of($q$SELECT overlay(%3$L placing 'c' from 20 for 1)::uuid::%1$s$q$) AS variant_11,
       sqlstate_of($q$SELECT overlay(%3$L placing '1' from 34 for 1)::uuid::%1$s$q$) AS spare_bit$$,
       :'type',
       CASE WHEN :'type' = 'sno' THEN '01234567-89ab-8def-8000-000000000002' ELSE '01234567-89ab-8def-8000-000000000001' END,
       (SELECT id::uuid::text FROM uuid_ids ORDER BY n LIMIT 1)) \gexec
DROP TABLE uuid_ids;
