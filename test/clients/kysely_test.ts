// flakeid through Kysely (0.27, node-postgres) in TypeScript, with the
// helpers of examples/typescript/flakeid_kysely.ts: a table made by Kysely's
// schema builder with a sno key filled by its DEFAULT and a siq column, every
// check through Kysely's insert and query builders.  Compiled by tsc --strict
// first (test/clients/run).  TAP output; the server comes from the libpq
// environment.
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Pool, DatabaseError } from 'pg';

import { FlakeId, FlakeIdDefault, flakeId, flakeIdType, idTime, timeIn } from '../../examples/typescript/flakeid_kysely';

interface Database {
  client_kysely: { id: FlakeIdDefault; ref: FlakeId | null; n: number };
}

let count = 0;
let failed = 0;
function ok(passed: boolean, description: string): void {
  count += 1;
  if (!passed) failed += 1;
  console.log(`${passed ? 'ok' : 'not ok'} ${count} - Kysely: ${description}`);
}

async function main(): Promise<void> {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new Pool({ max: 2 }) }) });
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS flakeid`.execute(db);
    await db.schema.dropTable('client_kysely').ifExists().execute();
    await db.schema.createTable('client_kysely')
      .addColumn('id', flakeIdType('sno'), (col) => col.primaryKey().defaultTo(sql`sno_new(0)`))
      .addColumn('ref', flakeIdType('siq'))
      .addColumn('n', 'integer', (col) => col.notNull())
      .execute();

    const refs = (await sql<{ r: string }>`SELECT siq_new('user')::text AS r FROM generate_series(1, 20)`.execute(db)).rows.map((r) => r.r);
    const inserted = await db.insertInto('client_kysely')
      .values(refs.map((ref, n) => ({ ref, n })))
      .returning(['id', 'n'])
      .execute();
    const ids = inserted.map((r) => r.id);
    ok(ids.length === 20 && ids.every((id) => typeof id === 'string' && id.length === 16) && new Set(ids).size === 20
      && JSON.stringify([...ids].sort()) === JSON.stringify(ids),
    `insertInto().values() without the key: 20 sno keys from the DEFAULT, distinct and increasing (${ids[0]})`);

    const one = await db.selectFrom('client_kysely').selectAll().where('id', '=', ids[3]).executeTakeFirst();
    ok(one !== undefined && one.n === 3 && one.ref === refs[3], 'selectFrom().where(\'id\', \'=\', a sno string)');
    const byRef = await db.selectFrom('client_kysely').select('n').where('ref', '=', flakeId('siq', refs[8])).executeTakeFirst();
    ok(byRef?.n === 8, 'where(\'ref\', \'=\', flakeId(\'siq\', text))');
    const ordered = await db.selectFrom('client_kysely').select('id').orderBy('id', 'desc').execute();
    ok(JSON.stringify(ordered.map((r) => r.id)) === JSON.stringify([...ids].reverse()), 'orderBy(\'id\', \'desc\')');

    const timed = await db.selectFrom('client_kysely').select(idTime('sno', 'id').as('at')).where('id', '=', ids[0]).executeTakeFirstOrThrow();
    ok(timed.at instanceof Date && Math.abs(Date.now() - timed.at.getTime()) < 600000, `idTime('sno', 'id') is a Date of now (${timed.at.toISOString()})`);
    const hourAgo = new Date(Date.now() - 3600000);
    const recent = await db.selectFrom('client_kysely').select('id').where(timeIn('id', hourAgo, null)).execute();
    const older = await db.selectFrom('client_kysely').select('id').where(timeIn('id', null, hourAgo)).execute();
    ok(recent.length === 20 && older.length === 0, 'where(timeIn(\'id\', start, end)): id <@ tstzrange');

    await db.updateTable('client_kysely').set({ n: 100 }).where('id', '=', ids[0]).execute();
    await db.deleteFrom('client_kysely').where('id', '=', ids[19]).execute();
    const left = await db.selectFrom('client_kysely').select(['n']).orderBy('id').execute();
    ok(left.length === 19 && left[0].n === 100, 'updateTable() and deleteFrom() by a sno key');

    try {
      await db.selectFrom('client_kysely').selectAll().where('id', '=', 'not-an-id!').execute();
      ok(false, 'a bad sno string is refused');
    } catch (e) {
      const error = e as DatabaseError;
      ok(error.code === '22P02' && !!error.detail, `a bad sno string is a DatabaseError 22P02 with a DETAIL (${error.detail})`);
    }
    await db.schema.dropTable('client_kysely').execute();
  } finally {
    await db.destroy();
  }
}

// never run: tsc --strict fails the build if the column types allow what they must not
export function typeChecks(db: Kysely<Database>): void {
  // @ts-expect-error: a key filled by its DEFAULT is never updated
  db.updateTable('client_kysely').set({ id: 'brpk4q72xwf2m63l' });
  // @ts-expect-error: an ID is a string, not a number
  db.insertInto('client_kysely').values({ ref: 12, n: 1 });
}

main().then(() => {
  console.log(`1..${count}`);
  process.exit(failed ? 1 : 0);
}, (err: Error) => {
  console.log(`not ok ${count + 1} - Kysely: ${err.message}`);
  console.log(`1..${count + 1}`);
  process.exit(1);
});
