// Every flakeid type (and the snowflake bigints) through node-postgres: insert
// with DEFAULT generators, read back, send the values back as parameters,
// cast, read *_time() as Dates, order, time ranges, bad literals, COPY in
// text and in binary (pg-copy-streams) and a kuid96[] clock.  TAP output.
// Connection settings come from the libpq environment (test/clients/run).
//
// node-postgres 8 reads every result field as UTF-8 text, whatever format the
// server sends (pg-protocol: "Binary mode not supported yet"), so binary
// results of raw bytes cannot arrive intact.  The second pass therefore uses
// the binary format where the driver supports it: Buffers sent as parameters
// go in binary, through each type's receive function.
'use strict';
const pg = require('pg');
const { Readable } = require('stream');
const { pipeline } = require('stream/promises');
const copyStreams = require('pg-copy-streams');

const { Client } = pg;

const WIDTHS = { sno: 10, flax: 12, siq: 14, kuid: 8, kuid96: 12 };
const DEFAULTS = {
  sno: 'sno_new()', flax: 'flax_new()', siq: "siq_new('user')",
  kuid: 'kuid_new()', kuid96: 'kuid96_new()', snowflake: 'snowflake_new()',
};
let count = 0;
let failed = 0;
function ok(passed, description) {
  count += 1;
  if (!passed) failed += 1;
  console.log(`${passed ? 'ok' : 'not ok'} ${count} - node-postgres: ${description}`);
}

async function main() {
  const client = new Client();
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS flakeid');
  await client.query('DROP TABLE IF EXISTS client_node');
  const columns = Object.entries(DEFAULTS)
    .map(([t, d]) => `${t} ${t === 'snowflake' ? 'bigint' : t} NOT NULL DEFAULT ${d}`).join(', ');
  await client.query(`CREATE TABLE client_node (n int PRIMARY KEY, ${columns})`);
  for (const binary of [false, true]) {
    const mode = binary ? 'binary parameters' : 'text';
    const [lo, hi] = binary ? [1000, 1099] : [1, 100];
    const inserted = await client.query({
      text: 'INSERT INTO client_node (n) SELECT n FROM generate_series($1::int, $2::int) n RETURNING *',
      values: [lo, hi],
    });
    ok(inserted.rows.length === 100, `${mode}: 100 rows inserted with every DEFAULT generator, returned`);
    for (const t of Object.keys(DEFAULTS)) {
      const values = inserted.rows.map((r) => r[t]);
      let param = '$1';
      if (t === 'snowflake') {
        // int8 arrives as a decimal string: exact
        const check = await client.query(`SELECT ${t}::text AS v FROM client_node WHERE n BETWEEN $1 AND $2 ORDER BY n`, [lo, hi]);
        ok(JSON.stringify(check.rows.map((r) => r.v)) === JSON.stringify(values) && new Set(values).size === 100,
          `${mode}: snowflake comes back exact (100 distinct 64-bit values)`);
      } else if (binary) {
        // the bytes, read as bytea (a Buffer), go back as a binary parameter of the type
        const bytes = await client.query(`SELECT ${t}::bytea AS v FROM client_node WHERE n BETWEEN $1 AND $2 ORDER BY n`, [lo, hi]);
        ok(bytes.rows.every((r) => Buffer.isBuffer(r.v) && r.v.length === WIDTHS[t]), `${mode}: ${t} read as its ${WIDTHS[t]} bytes`);
        values.splice(0, values.length, ...bytes.rows.map((r) => r.v));
        param = `$1::${t}`;
      } else {
        ok(values.every((v) => typeof v === 'string'), `${mode}: ${t} comes back as a string`);
        const check = await client.query(`SELECT ${t}::text AS v FROM client_node WHERE n BETWEEN $1 AND $2 ORDER BY n`, [lo, hi]);
        ok(check.rows.every((r, i) => r.v === values[i]), `${mode}: ${t} string equals ${t}::text`);
        param = `$1::${t}`;
      }
      let hits = 0;
      for (let i = 0; i < values.length; i += 1) {
        const found = await client.query(`SELECT n FROM client_node WHERE ${t} = ${param}`, [values[i]]);
        if (found.rows.length === 1 && found.rows[0].n === lo + i) hits += 1;
      }
      ok(hits === 100, `${mode}: each ${t} sent back as a parameter finds its row (${hits}/100)`);
      const times = await client.query(
        `SELECT ${t}_time(${t}) AS at, extract(epoch FROM ${t}_time(${t}))::float8 AS epoch FROM client_node WHERE n = $1`, [lo]);
      const at = times.rows[0].at;
      ok(at instanceof Date && Math.abs(at.getTime() / 1000 - times.rows[0].epoch) < 0.001
        && Math.abs(Date.now() - at.getTime()) < 600000, `${mode}: ${t}_time() is a Date of now`);
      if (t !== 'snowflake') {
        const u = await client.query(`SELECT ${t}::uuid AS u, ${t}::uuid::${t} = ${t} AS back FROM client_node WHERE n = $1`, [lo]);
        ok(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(u.rows[0].u) && u.rows[0].back,
          `${mode}: ${t}::uuid is a version-8 UUID string that casts back`);
      }
    }
  }
  // order, time ranges and bad literals
  for (const t of Object.keys(DEFAULTS)) {
    const out = t === 'snowflake' ? t : `${t}::text`;
    const inserted = (await client.query(`SELECT ${out} AS v FROM client_node ORDER BY n`)).rows.map((r) => r.v);
    const ordered = (await client.query(`SELECT ${out} AS v FROM client_node ORDER BY ${t}`)).rows.map((r) => r.v);
    // snowflakes are decimal strings: compare them as BigInts
    const sorted = t === 'snowflake' ? [...inserted].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)) : [...inserted].sort();
    ok(JSON.stringify(ordered) === JSON.stringify(sorted), `ORDER BY ${t} is the values' order in JavaScript`);
    const range = t === 'snowflake' ? 'BETWEEN snowflake_lower_bound($1) AND snowflake_upper_bound($2)' : '<@ tstzrange($1, $2)';
    const hits = await client.query(`SELECT count(*)::int AS c FROM client_node WHERE ${t} ${range}`,
      [new Date(Date.now() - 3600000), new Date(Date.now() + 3600000)]);
    ok(hits.rows[0].c === 200, `${t}: a time range with Date bounds finds every row`);
    try {
      await client.query(`SELECT $1::${t === 'snowflake' ? 'bigint' : t}`, ['not-an-id!']);
      ok(false, `a bad ${t} literal is refused`);
    } catch (e) {
      ok(e.code === '22P02' && (t === 'snowflake' || !!e.detail), `a bad ${t} literal is 22P02${t === 'snowflake' ? '' : ` with a DETAIL (${e.detail})`}`);
    }
  }
  // COPY: node-postgres's COPY is the pg-copy-streams package.  Every type
  // out of the table and back into a copy of it, in text and in binary (the
  // receive functions read the bytes)
  for (const format of ['text', 'binary']) {
    await client.query('CREATE TEMP TABLE client_node_copied (LIKE client_node)');
    const chunks = [];
    for await (const chunk of client.query(copyStreams.to(`COPY client_node TO STDOUT (FORMAT ${format})`))) chunks.push(chunk);
    await pipeline(Readable.from(chunks), client.query(copyStreams.from(`COPY client_node_copied FROM STDIN (FORMAT ${format})`)));
    const same = await client.query(
      'SELECT count(*)::int AS c FROM client_node_copied JOIN client_node USING (n, sno, flax, siq, kuid, kuid96, snowflake)');
    ok(same.rows[0].c === 200, `COPY (${format}) through pg-copy-streams: every type out and back in, 200 rows equal their source`);
    await client.query('DROP TABLE client_node_copied');
  }
  const clock = (await client.query('SELECT kuid96_vclock()::text[] AS vc')).rows[0].vc;
  const descends = await client.query('SELECT kuid96_vclock_descends(kuid96_vclock($1::text[]::kuid96[]), $1::text[]::kuid96[]) AS d', [clock]);
  ok(Array.isArray(clock) && clock.length === 1 && clock[0].length === 16 && descends.rows[0].d,
    'a kuid96[] vector clock as an array of strings through text[], ticked, descends');
  await client.query('DROP TABLE client_node');
  await client.end();
  if (process.env.FLAKEID_PGBOUNCER) await throughPgbouncer(process.env.FLAKEID_PGBOUNCER);
}

// node-postgres prepares no statement on the server unless a query is given
// a name, so it works through pgbouncer 1.18 in transaction mode as it is
async function throughPgbouncer(bouncer) {
  const [host, port] = bouncer.split(':');
  const clients = [0, 1, 2].map(() => new Client({ host, port: Number(port) }));
  for (const c of clients) await c.connect();
  await clients[0].query('CREATE TABLE client_node_pooled (n int PRIMARY KEY, id sno NOT NULL DEFAULT sno_new())');
  const inserted = [];
  for (let n = 0; n < 60; n += 1) {
    const r = await clients[n % 3].query('INSERT INTO client_node_pooled (n) VALUES ($1) RETURNING id', [n]);
    inserted.push(r.rows[0].id);
  }
  ok(new Set(inserted).size === 60 && JSON.stringify([...inserted].sort()) === JSON.stringify(inserted),
    'through pgbouncer (transaction mode): 60 DEFAULT sno_new() from 3 clients taking turns, distinct and in order');
  let hits = 0;
  for (let i = 0; i < 60; i += 1) {
    const r = await clients[i % 3].query('SELECT n FROM client_node_pooled WHERE id = $1', [inserted[i]]);
    if (r.rows.length === 1 && r.rows[0].n === i) hits += 1;
  }
  ok(hits === 60, `through pgbouncer: a string parameter finds each row from any client (${hits}/60)`);
  await clients[0].query('DROP TABLE client_node_pooled');
  for (const c of clients) await c.end();
}

main().then(() => {
  console.log(`1..${count}`);
  process.exit(failed ? 1 : 0);
}, (err) => {
  console.log(`not ok ${count + 1} - node-postgres: ${err.message}`);
  console.log(`1..${count + 1}`);
  process.exit(1);
});
