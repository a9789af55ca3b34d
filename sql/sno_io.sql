-- sno text, binary and bytea I/O
SET timezone = 'UTC';

-- canonical values round-trip
SELECT v::sno, v::sno::text = v AS same_text, v::sno::bytea
FROM (VALUES ('2222222222222222'), ('xxxxxxxxxxxxxxxx'), ('brpk4q72xwf2m63l')) AS t(v);

-- strict input: exactly 16 characters of 2-9 a-x, nothing else (22P02)
SELECT input, sqlstate_of(format('SELECT %L::sno', input)) AS sqlstate
FROM (VALUES (''), ('brpk4q72xwf2m63'), ('brpk4q72xwf2m63l2'), ('BRPK4Q72XWF2M63L'),
             ('brpk4q72xwf2m630'), ('1rpk4q72xwf2m63l'), ('yrpk4q72xwf2m63l'),
             ('zrpk4q72xwf2m63l'), (' brpk4q72xwf2m63l'), ('brpk4q72xwf2m63l '),
             ('brpk4q72 wf2m63l'), ('brpk4q72xwf2m6é'), ('"brpk4q72xwf2m63l"')) AS t(input);
-- the message names the type and the input
SELECT 'brpk4q72xwf2m630'::sno;
SELECT ''::sno;

-- bytea casts: exactly 10 bytes (22P03)
SELECT '\x4e6f2160a0ff9a0a1033'::bytea::sno;
SELECT '\xabababababababababab'::bytea::sno::bytea;
SELECT '\x4e6f2160a0ff9a0a10'::bytea::sno;
SELECT b, sqlstate_of(format('SELECT %L::bytea::sno', b)) AS sqlstate
FROM (VALUES ('\x'), ('\xab'), ('\xababababababababab'), ('\xababababababababababab')) AS t(b);

-- text casts both ways, and NULL stays NULL
SELECT 'brpk4q72xwf2m63l'::text::sno, 'brpk4q72xwf2m63l'::sno::text, NULL::text::sno IS NULL AS null_in;

-- binary I/O: COPY out and back in binary format
CREATE TABLE sno_io (id sno);
INSERT INTO sno_io VALUES ('2222222222222222'), ('brpk4q72xwf2m63l'), ('xxxxxxxxxxxxxxxx');
\copy sno_io TO 'results/sno_io.bin' WITH (FORMAT binary)
CREATE TABLE sno_io_back (id sno);
\copy sno_io_back FROM 'results/sno_io.bin' WITH (FORMAT binary)
SELECT a.id, b.id IS NOT NULL AS round_tripped FROM sno_io a LEFT JOIN sno_io_back b USING (id) ORDER BY 1;
-- a binary field of the wrong length is rejected by sno_recv (22P03)
CREATE TABLE sno_io_wrong (b bytea);
INSERT INTO sno_io_wrong VALUES ('\x4e6f2160a0ff9a0a10');
\copy sno_io_wrong TO 'results/sno_io_wrong.bin' WITH (FORMAT binary)
\copy sno_io_back FROM 'results/sno_io_wrong.bin' WITH (FORMAT binary)
-- sixteen bytes are the canonical text (pgx's CopyFrom of a string), strictly
TRUNCATE sno_io_wrong;
INSERT INTO sno_io_wrong VALUES (convert_to('brpk4q72xwf2m63l', 'UTF8'));
\copy sno_io_wrong TO 'results/sno_io_wrong.bin' WITH (FORMAT binary)
TRUNCATE sno_io_back;
\copy sno_io_back FROM 'results/sno_io_wrong.bin' WITH (FORMAT binary)
SELECT id FROM sno_io_back;
UPDATE sno_io_wrong SET b = convert_to('BRPK4Q72XWF2M63L', 'UTF8');
\copy sno_io_wrong TO 'results/sno_io_wrong.bin' WITH (FORMAT binary)
\copy sno_io_back FROM 'results/sno_io_wrong.bin' WITH (FORMAT binary)
-- send gives the raw bytes
SELECT sno_send('brpk4q72xwf2m63l');
DROP TABLE sno_io, sno_io_back, sno_io_wrong;
