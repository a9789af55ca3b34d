// Every flakeid type (and the snowflake bigints) through Drizzle ORM on
// node-postgres, the way a TypeScript service declares them: each type a
// customType whose dataType() is the type's name, the columns' DEFAULTs
// as sql`...`.  Checks, through Drizzle's own query builder: DEFAULT
// generation (insert ... returning), text equal to id::text, the IDs back
// as parameters (eq), their bytes as Buffers through bytea, ORDER BY, the
// time as a Date, a time range with Date bounds, a bad literal (22P02 with
// its DETAIL).  node-postgres reads results as text only (pg_test.js), so
// the binary path here is the Buffer parameter.  TAP output; the server
// comes from the libpq environment (test/clients/run).
'use strict';
const pg = require('pg');
const { drizzle } = require('drizzle-orm/node-postgres');
const { pgTable, customType, integer, bigint } = require('drizzle-orm/pg-core');
const { sql, eq, asc } = require('drizzle-orm');

const WIDTHS = { sno: 10, flax: 12, siq: 14, kuid: 8, kuid96: 12 };
const TEXT = { sno: 16, flax: 16, siq: 23, kuid: 11, kuid96: 16 };
const DEFAULTS = { sno: 'sno_new()', flax: 'flax_new()', siq: "siq_new('user')", kuid: 'kuid_new()', kuid96: 'kuid96_new()' };
let count = 0;
let failed = 0;
function ok(passed, description) {
  count += 1;
  if (!passed) failed += 1;
  console.log(`${passed ? 'ok' : 'not ok'} ${count} - Drizzle: ${description}`);
}
// a flakeid column: the type's name, a string in the program
const flakeId = (type) => customType({ dataType: () => type });

const events = pgTable('client_drizzle', {
  n: integer('n').primaryKey(),
  snowflake: bigint('snowflake', { mode: 'bigint' }).notNull().default(sql`snowflake_new()`),
  ...Object.fromEntries(Object.entries(DEFAULTS).map(([t, d]) => [t, flakeId(t)(t).notNull().default(sql.raw(d))])),
});

const client = new pg.Client();

async function main() {
  await client.connect();
  const db = drizzle(client);
  await db.execute(sql`CREATE EXTENSION IF NOT EXISTS flakeid`);
  await db.execute(sql`DROP TABLE IF EXISTS client_drizzle`);
  // (drizzle-kit writes this from the schema; the ORM itself makes no tables)
  const columns = Object.entries(DEFAULTS).map(([t, d]) => `${t} ${t} NOT NULL DEFAULT ${d}`).join(', ');
  await db.execute(sql.raw(`CREATE TABLE client_drizzle (n int PRIMARY KEY, snowflake bigint NOT NULL DEFAULT snowflake_new(), ${columns})`));

  const rows = await db.insert(events).values(Array.from({ length: 50 }, (_, i) => ({ n: i + 1 }))).returning();
  ok(rows.length === 50, 'insert(...).values(50 rows).returning(): every DEFAULT generator');
  const flakes = rows.map((r) => r.snowflake);
  ok(flakes.every((f) => typeof f === 'bigint') && flakes.every((f, i) => i === 0 || f > flakes[i - 1]),
    'snowflakes arrive as increasing BigInts (bigint mode: "bigint")');

  for (const t of Object.keys(DEFAULTS)) {
    const ids = rows.map((r) => r[t]);
    ok(ids.every((id) => typeof id === 'string' && id.length === TEXT[t]) && new Set(ids).size === 50,
      `${t} arrives as 50 distinct strings of ${TEXT[t]} characters (${ids[0]})`);
    const texts = await db.select({ n: events.n, text: sql`${events[t]}::text` }).from(events).orderBy(asc(events.n));
    ok(texts.every((r, i) => r.text === ids[i]), `${t} strings equal ${t}::text`);

    let hits = 0;
    for (let i = 0; i < ids.length; i += 1) {
      const found = await db.select({ n: events.n }).from(events).where(eq(events[t], ids[i]));
      if (found.length === 1 && found[0].n === i + 1) hits += 1;
    }
    ok(hits === 50, `where(eq(events.${t}, a string)) finds each row (${hits}/50)`);

    const [{ bytes }] = await db.select({ bytes: sql`${events[t]}::bytea` }).from(events).where(eq(events.n, 3));
    const back = await db.select({ n: events.n }).from(events).where(sql`${events[t]} = ${bytes}::bytea::${sql.raw(t)}`);
    ok(Buffer.isBuffer(bytes) && bytes.length === WIDTHS[t] && back.length === 1 && back[0].n === 3,
      `${t}::bytea arrives as a Buffer of ${WIDTHS[t]} bytes, which sent back as \${buffer}::bytea::${t} finds its row`);

    const ordered = (await db.select({ id: events[t] }).from(events).orderBy(asc(events[t]))).map((r) => r.id);
    const sorted = [...ids].sort();
    ok(ordered.join() === sorted.join(), `orderBy(asc(events.${t})) is the strings' order`);
    if (t !== 'flax') ok(ids.join() === sorted.join(), `${t}s from one statement increase with n`);

    // (Drizzle's node-postgres driver leaves a timestamptz as the server's text: mapWith makes it a Date)
    const [{ at }] = await db.select({ at: sql`${sql.raw(t)}_time(${events[t]})`.mapWith((v) => new Date(v)) }).from(events).where(eq(events.n, 1));
    ok(at instanceof Date && Math.abs(Date.now() - at.getTime()) < 600e3, `${t}_time() arrives as a Date of now (${at && at.toISOString()})`);
    const hour = 3600e3;
    const inRange = await db.select({ n: events.n }).from(events)
      .where(sql`${events[t]} <@ tstzrange(${new Date(Date.now() - hour)}, ${new Date(Date.now() + hour)})`);
    const before = await db.select({ n: events.n }).from(events).where(sql`${events[t]} <@ tstzrange(NULL, ${new Date(Date.now() - hour)})`);
    ok(inRange.length === 50 && before.length === 0, `${t} <@ tstzrange(Date, Date): ${inRange.length} in the hour, ${before.length} before`);

    let error;
    try {
      await db.select().from(events).where(eq(events[t], 'not-an-id!'));
    } catch (e) {
      error = e.cause || e;   // (Drizzle 0.44 and later wrap the driver's error)
    }
    ok(error && error.code === '22P02' && !!error.detail, `a bad ${t} string is 22P02 with a DETAIL (${error && error.detail})`);
  }
  await db.execute(sql`DROP TABLE client_drizzle`);
}

main().catch((e) => ok(false, `the suite stopped: ${e.stack || e}`)).finally(async () => {
  await client.end().catch(() => {});
  console.log(`1..${count}`);
  process.exitCode = failed ? 1 : 0;
});
