-- <type>_to_text and <type>_from_text (1.5): the text casts by name, for
-- every type and for snowflakes, the same as the casts, whatever the
-- search_path, and malformed text refused as the casts refuse it
SET timezone = 'UTC';
SELECT sno_to_text('brpk4q72xwf2m63l') = 'brpk4q72xwf2m63l'::sno::text AS sno,
       sno_from_text('brpk4q72xwf2m63l') = 'brpk4q72xwf2m63l'::sno AS sno_back;
SELECT flax_from_text(flax_to_text(id)) = id AS flax,
       siq_from_text(siq_to_text(s)) = s AS siq,
       kuid_from_text(kuid_to_text(k)) = k AS kuid,
       kuid96_from_text(kuid96_to_text(k9)) = k9 AS kuid96,
       flax_to_text(id) = id::text AND siq_to_text(s) = s::text AND kuid_to_text(k) = k::text AND kuid96_to_text(k9) = k9::text AS as_casts
FROM (SELECT flax_new() AS id, siq_new('user') AS s, kuid_new() AS k, kuid96_new() AS k9) x;
SELECT snowflake_to_text(1576749603225600000), snowflake_from_text('1576749603225600000');
-- bound to their types when created: no search_path reaches them
SET search_path = pg_catalog;
SELECT public.sno_to_text(public.sno_from_text('brpk4q72xwf2m63l'));
RESET search_path;
-- malformed text: the casts' SQLSTATEs
\set VERBOSITY sqlstate
SELECT sno_from_text('brpk4q72xwf2m63');
SELECT kuid96_from_text('not a kuid96');
SELECT snowflake_from_text('12a');
SELECT snowflake_from_text('99999999999999999999');
\set VERBOSITY default
SELECT sno_from_text(NULL) IS NULL AS strict;
