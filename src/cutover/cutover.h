/*
 * cutover.h — what flakeid_advance_past_read (cutover_read.c) checks before
 * and after its locks, and which tables it reads (cutover_checks.c)
 */
#ifndef FLAKEID_CUTOVER_H
#define FLAKEID_CUTOVER_H

#include "nodes/pg_list.h"
#include "storage/lockdefs.h"

#include "format/format.h"

/* schema.table, quoted as SQL needs them, for a message an operator may paste */
extern char *cutover_qualified_name(Oid relid);

/*
 * The table and every table under it, each locked with lockmode, breadth
 * first, detach-pending partitions included; *apart says of each whether
 * its own privileges apply (cutover_checks.c says why).
 */
extern List *cutover_members(Oid relid, LOCKMODE lockmode, List **apart);

/* the SQL an operator runs to read a foreign table's largest ID themselves */
extern char *cutover_read_hint(const char *column, Oid relid, Oid base, const FlakeFormat *as);

/* each raises: 55000 for a table dropped or changed since it was listed, 42501 for what the caller may not read */
extern void cutover_refuse_dropped(Oid relid);
extern void cutover_refuse_changed(Oid relid, const char *column);
extern void cutover_refuse_unreadable(Oid relid, const char *column, AttrNumber attnum, bool apart);
extern void cutover_refuse_rls(Oid relid);

/* the caller's privileges, and that column is still user column colnum of type coltype (else 55000) */
extern void cutover_checked_column(Oid relid, const char *column, AttrNumber colnum, Oid coltype);

/* the format a uuid column is read as: 22023 for a type with no UUIDv8 embedding, 42804 for a column not of uuid */
extern const FlakeFormat *cutover_uuid_read_as(Oid as_type, Oid elem_base);

#endif
