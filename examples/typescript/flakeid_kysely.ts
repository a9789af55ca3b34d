// flakeid columns in Kysely (tested with Kysely 0.27 and node-postgres).
//
// IDs are strings, their canonical text; node-postgres sends and reads them
// as text, so no registration is needed.  A table whose key the database
// fills from its DEFAULT:
//
//   interface Database { events: { id: FlakeIdDefault; ref: FlakeId | null; name: string } }
//   await db.schema.createTable('events')
//     .addColumn('id', flakeIdType('sno'), (col) => col.primaryKey().defaultTo(sql`sno_new(0)`))
//     .addColumn('ref', flakeIdType('siq'))
//     .addColumn('name', 'text', (col) => col.notNull())
//     .execute();
//   const { id } = await db.insertInto('events').values({ name: 'a' }).returning('id').executeTakeFirstOrThrow();
//   await db.selectFrom('events').selectAll().where(timeIn('id', start, end)).execute();
import { ColumnType, Expression, RawBuilder, sql } from 'kysely';

export type FlakeIdTypeName = 'sno' | 'flax' | 'siq' | 'kuid' | 'kuid96';

/** An ID column: a string everywhere. */
export type FlakeId = string;

/** An ID column with a DEFAULT generator: optional on insert, never updated. */
export type FlakeIdDefault = ColumnType<string, string | undefined, never>;

/** The column type for the schema builder: addColumn('id', flakeIdType('sno'), ...). */
export function flakeIdType(type: FlakeIdTypeName): RawBuilder<unknown> {
  return sql.raw(type);
}

/** A string as an ID of the type, for comparisons where the type is not known from a column. */
export function flakeId(type: FlakeIdTypeName, text: string): RawBuilder<string> {
  return sql<string>`${text}::${sql.raw(type)}`;
}

/** <type>_time(column): the ID's time, a Date through node-postgres. */
export function idTime(type: FlakeIdTypeName, column: string): RawBuilder<Date> {
  return sql<Date>`${sql.raw(type)}_time(${sql.ref(column)})`;
}

/** column <@ tstzrange(start, end): IDs whose time is in [start, end); null leaves a side open. */
export function timeIn(column: string, start: Date | null, end: Date | null): Expression<boolean> {
  return sql<boolean>`${sql.ref(column)} <@ tstzrange(${start}, ${end})`;
}
