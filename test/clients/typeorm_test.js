// flakeid through TypeORM (1.x) on node-postgres, with an EntitySchema (the
// decorators' metadata, without a compiler): a sno primary key and siq,
// flax, kuid, kuid96 and snowflake columns filled by their DEFAULTs.
// TypeORM refuses a column type it does not list for PostgreSQL, so the
// types are added to the driver's list before initialize(); synchronize
// then makes the table with the types and DEFAULTs.  Every check through
// TypeORM's own API: save and insert (the DEFAULTs come back by
// RETURNING), findOneBy, order, a time range (Raw with Date parameters), the
// time as a Date, update and delete, a bad literal (QueryFailedError 22P02
// with its DETAIL).  TAP output; the server comes from the libpq environment
// (test/clients/run).
'use strict';
require('reflect-metadata');
const { DataSource, EntitySchema, Raw } = require('typeorm');

const TEXT = { sno: 16, flax: 16, siq: 23, kuid: 11, kuid96: 16 };
let count = 0;
let failed = 0;
function ok(passed, description) {
  count += 1;
  if (!passed) failed += 1;
  console.log(`${passed ? 'ok' : 'not ok'} ${count} - TypeORM: ${description}`);
}

const Event = new EntitySchema({
  name: 'Event',
  tableName: 'client_typeorm',
  columns: {
    id: { type: 'sno', primary: true, default: () => 'sno_new(0)' },
    ref: { type: 'siq', default: () => "siq_new('user')" },
    flax: { type: 'flax', default: () => 'flax_new()' },
    kuid: { type: 'kuid', default: () => 'kuid_new()' },
    kuid96: { type: 'kuid96', default: () => 'kuid96_new()' },
    snowflake: { type: 'bigint', default: () => 'snowflake_new()' },
    n: { type: 'int' },
    name: { type: 'text', nullable: true },
  },
});

const env = process.env;
const ds = new DataSource({
  type: 'postgres', host: env.PGHOST || 'localhost', port: Number(env.PGPORT || 5432),
  username: env.PGUSER || 'postgres', database: env.PGDATABASE || 'postgres', entities: [Event], logging: false,
});
// the flakeid types, known to TypeORM's PostgreSQL driver from here on
ds.driver.supportedDataTypes.push('sno', 'flax', 'siq', 'kuid', 'kuid96');

async function main() {
  await ds.initialize();
  await ds.query('CREATE EXTENSION IF NOT EXISTS flakeid');
  await ds.query('DROP TABLE IF EXISTS client_typeorm');
  await ds.synchronize();
  const ddl = (await ds.query(`SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, pg_get_expr(d.adbin, d.adrelid) AS def
    FROM pg_attribute a LEFT JOIN pg_attrdef d ON (d.adrelid, d.adnum) = (a.attrelid, a.attnum)
    WHERE a.attrelid = 'client_typeorm'::regclass AND a.attnum > 0 ORDER BY a.attnum`)).map((r) => `${r.attname} ${r.type} ${r.def}`);
  ok(ddl.slice(0, 3).join() === "id sno sno_new(0),ref siq siq_new('user'::text),flax flax flax_new()",
    `synchronize makes the columns with their types and DEFAULTs (${ddl.join('; ')})`);

  const repo = ds.getRepository(Event);
  const saved = [];
  for (let i = 0; i < 20; i += 1) saved.push(await repo.save({ n: i, name: `event ${i}` }));
  const ids = saved.map((e) => e.id);
  ok(ids.every((id) => typeof id === 'string' && id.length === 16) && new Set(ids).size === 20 && [...ids].sort().join() === ids.join(),
    `repository.save: 20 sno keys from the DEFAULT, back by RETURNING, distinct and increasing (${ids[0]})`);
  ok(['ref', 'flax', 'kuid', 'kuid96'].every((c) => saved.every((e) => typeof e[c] === 'string'
    && e[c].length === TEXT[c === 'ref' ? 'siq' : c])) && saved.every((e) => /^[0-9]+$/.test(String(e.snowflake))),
  'the other DEFAULTs come back too: siq, flax, kuid and kuid96 as strings, the snowflake as a decimal string');
  const inserted = await repo.insert([{ n: 100 }, { n: 101 }, { n: 102 }]);
  ok(inserted.identifiers.every((k) => typeof k.id === 'string' && k.id.length === 16), 'repository.insert of 3 rows: their keys in identifiers');

  for (const [column, type] of [['id', 'sno'], ['ref', 'siq'], ['flax', 'flax'], ['kuid', 'kuid'], ['kuid96', 'kuid96']]) {
    let hits = 0;
    for (const e of saved) {
      const found = await repo.findOneBy({ [column]: e[column] });
      if (found && found.n === e.n) hits += 1;
    }
    const [{ text }] = await ds.query(`SELECT ${column}::text AS text FROM client_typeorm WHERE n = 4`);
    ok(hits === 20 && text === saved[4][column], `findOneBy({ ${column}: a ${type} string }) finds each row (${hits}/20), and the string is ${column}::text`);
  }
  const desc = (await repo.find({ where: { n: Raw((n) => `${n} < 100`) }, order: { id: 'DESC' } })).map((e) => e.id);
  ok(desc.join() === [...ids].reverse().join(), "find({ order: { id: 'DESC' } })");
  const hour = 3600e3;
  const recent = await repo.findBy({ id: Raw((id) => `${id} <@ tstzrange(:lo, :hi)`, { lo: new Date(Date.now() - hour), hi: new Date(Date.now() + hour) }) });
  const older = await repo.findBy({ id: Raw((id) => `${id} <@ tstzrange(NULL, :hi)`, { hi: new Date(Date.now() - hour) }) });
  ok(recent.length === 23 && older.length === 0, `findBy({ id: Raw(id <@ tstzrange(:lo, :hi)) }) with Date bounds: ${recent.length} in the hour, ${older.length} before`);
  const { at } = await repo.createQueryBuilder('e').select('sno_time(e.id)', 'at').where('e.id = :id', { id: ids[0] }).getRawOne();
  ok(at instanceof Date && Math.abs(Date.now() - at.getTime()) < 600e3, `select('sno_time(e.id)') arrives as a Date of now (${at && at.toISOString()})`);
  await repo.update({ id: ids[3] }, { name: 'renamed' });
  await repo.delete({ id: ids[0] });
  ok((await repo.findOneBy({ id: ids[3] })).name === 'renamed' && (await repo.findOneBy({ id: ids[0] })) === null && (await repo.count()) === 22,
    'update and delete by a sno key');
  let error;
  try {
    await repo.findOneBy({ id: 'not-an-id!' });
  } catch (e) {
    error = e;
  }
  ok(error && error.name === 'QueryFailedError' && error.driverError.code === '22P02' && !!error.driverError.detail,
    `a bad sno string is QueryFailedError 22P02 with a DETAIL (${error && error.driverError && error.driverError.detail})`);
  await ds.query('DROP TABLE client_typeorm');
}

main().catch((e) => ok(false, `the suite stopped: ${e.stack || e}`)).finally(async () => {
  if (ds.isInitialized) await ds.destroy().catch(() => {});
  console.log(`1..${count}`);
  process.exitCode = failed ? 1 : 0;
});
