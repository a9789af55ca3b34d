#!/usr/bin/env python3
"""Every flakeid type (and the snowflake bigints) through psycopg 3, in text
and binary result formats: insert with DEFAULT generators, read back, send
the values back as parameters, cast, read *_time() as datetimes, order,
time ranges, bad literals, COPY and a kuid96[] clock; through pgbouncer when
FLAKEID_PGBOUNCER (host:port) names one.  TAP output.  Connection settings
come from the libpq environment (test/clients/run).
"""
import datetime
import os
import uuid

import psycopg

from tap import Tap

tap = Tap("psycopg")
WIDTHS = {"sno": 10, "flax": 12, "siq": 14, "kuid": 8, "kuid96": 12}
DEFAULTS = {"sno": "sno_new()", "flax": "flax_new()", "siq": "siq_new('user')",
            "kuid": "kuid_new()", "kuid96": "kuid96_new()", "snowflake": "snowflake_new()"}


with psycopg.connect(autocommit=True) as conn:
    conn.execute("CREATE EXTENSION IF NOT EXISTS flakeid")
    conn.execute("DROP TABLE IF EXISTS client_psycopg")
    columns = ", ".join(f"{t} {'bigint' if t == 'snowflake' else t} NOT NULL DEFAULT {d}" for t, d in DEFAULTS.items())
    conn.execute(f"CREATE TABLE client_psycopg (n int PRIMARY KEY, {columns})")

    for binary in (False, True):
        mode = "binary" if binary else "text"
        with conn.cursor(binary=binary) as cur:
            cur.execute("INSERT INTO client_psycopg (n) SELECT n FROM generate_series(%s::int, %s::int) n RETURNING *",
                        (1000 if binary else 1, 1099 if binary else 100))
            rows = cur.fetchall()
            names = [c.name for c in cur.description]
            tap.ok(len(rows) == 100, f"{mode}: 100 rows inserted with every DEFAULT generator, returned")
            for t in DEFAULTS:
                values = [r[names.index(t)] for r in rows]
                if t == "snowflake":
                    tap.ok(all(isinstance(v, int) for v in values) and len(set(values)) == 100,
                       f"{mode}: snowflake comes back as 100 distinct Python ints")
                    wanted = values
                elif binary:
                    # unknown types come back as their binary representation: the ID's bytes
                    tap.ok(all(isinstance(v, bytes) and len(v) == WIDTHS[t] for v in values),
                       f"{mode}: {t} comes back as its {WIDTHS[t]} bytes")
                    cur.execute(f"SELECT {t}::bytea FROM client_psycopg WHERE n BETWEEN 1000 AND 1099 ORDER BY n")
                    tap.ok([r[0] for r in cur.fetchall()] == values, f"{mode}: {t} bytes equal {t}::bytea")
                    wanted = values
                else:
                    tap.ok(all(isinstance(v, str) for v in values), f"{mode}: {t} comes back as text")
                    cur.execute(f"SELECT {t}::text FROM client_psycopg WHERE n BETWEEN 1 AND 100 ORDER BY n")
                    tap.ok([r[0] for r in cur.fetchall()] == values, f"{mode}: {t} text equals {t}::text")
                    wanted = values
                # the values back as parameters: text as-is, bytes through bytea
                cast = "%s" if t == "snowflake" else ("%s::bytea::" + t if binary else "%s::" + t)
                lo, hi = (1000, 1099) if binary else (1, 100)
                hits = 0
                for n, v in zip(range(lo, hi + 1), wanted):
                    cur.execute(f"SELECT n FROM client_psycopg WHERE {t} = {cast}", (v,))
                    hits += cur.fetchone()[0] == n
                tap.ok(hits == 100, f"{mode}: each {t} sent back as a parameter finds its row ({hits}/100)")
                # times as datetimes, and the uuid cast as uuid.UUID
                cur.execute(f"SELECT {t}_time({t}), extract(epoch FROM {t}_time({t})) FROM client_psycopg WHERE n = %s", (lo,))
                when, epoch = cur.fetchone()
                tap.ok(isinstance(when, datetime.datetime) and when.tzinfo is not None
                   and abs(when.timestamp() - float(epoch)) < 1e-6
                   and abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) < 600,
                   f"{mode}: {t}_time() is an aware datetime of now")
                if t != "snowflake":
                    cur.execute(f"SELECT {t}::uuid, {t}::uuid::{t} = {t} FROM client_psycopg WHERE n = %s", (lo,))
                    as_uuid, back = cur.fetchone()
                    tap.ok(isinstance(as_uuid, uuid.UUID) and as_uuid.version == 8 and back,
                       f"{mode}: {t}::uuid is a version-8 uuid.UUID that casts back")
    # order, time ranges, bad literals, COPY and arrays, in text
    with conn.cursor() as cur:
        for t in DEFAULTS:
            cur.execute(f"SELECT {t}{'' if t == 'snowflake' else '::text'} FROM client_psycopg WHERE n <= 100 ORDER BY n")
            inserted = [r[0] for r in cur.fetchall()]
            cur.execute(f"SELECT {t}{'' if t == 'snowflake' else '::text'} FROM client_psycopg WHERE n <= 100 ORDER BY {t}")
            ordered = [r[0] for r in cur.fetchall()]
            tap.ok(ordered == sorted(inserted) and (t == "flax" or ordered == inserted),
               f"ORDER BY {t} is Python's order of the values" + ("" if t == "flax" else ", and insertion order"))
            now = datetime.datetime.now(datetime.timezone.utc)
            # snowflakes are bigints: their range is between the bounds
            cur.execute(f"SELECT count(*) FROM client_psycopg WHERE {t} "
                        + ("<@ tstzrange(%s, %s)" if t != "snowflake" else "BETWEEN snowflake_lower_bound(%s) AND snowflake_upper_bound(%s)"),
                        (now - datetime.timedelta(hours=1), now + datetime.timedelta(hours=1)))
            tap.ok(cur.fetchone()[0] == 200, f"{t}: a time range with datetime bounds finds every row")
            try:
                cur.execute(f"SELECT %s::{'bigint' if t == 'snowflake' else t}", ("not-an-id!",))
                tap.ok(False, f"a bad {t} literal is refused")
            except psycopg.errors.InvalidTextRepresentation as e:
                tap.ok(e.sqlstate == "22P02" and (t == "snowflake" or bool(e.diag.message_detail)),
                   f"a bad {t} literal is 22P02" + ("" if t == "snowflake" else f" with a DETAIL ({e.diag.message_detail})"))
        cur.execute("CREATE TEMP TABLE copied (LIKE client_psycopg)")
        rows = conn.execute("SELECT n, sno::text, flax::text, siq::text, kuid::text, kuid96::text, snowflake FROM client_psycopg").fetchall()
        with cur.copy("COPY copied (n, sno, flax, siq, kuid, kuid96, snowflake) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        cur.execute("SELECT count(*) FROM copied JOIN client_psycopg USING (n, sno, flax, siq, kuid, kuid96, snowflake)")
        tap.ok(cur.fetchone()[0] == 200, "cursor.copy() of the IDs' text: 200 rows equal their source")
        cur.execute("SELECT kuid96_vclock()::text[]")
        clock = cur.fetchone()[0]
        cur.execute("SELECT kuid96_vclock_descends(kuid96_vclock(%s::text[]::kuid96[]), %s::text[]::kuid96[])", (clock, clock))
        tap.ok(isinstance(clock, list) and len(clock) == 1 and len(clock[0]) == 16 and cur.fetchone()[0],
           "a kuid96[] vector clock as a list of str through text[], ticked, descends")
    # masks (issue 64): a token is plain text both ways; test/clients/run gives the server a key
    with conn.cursor() as cur:
        for t in DEFAULTS:
            cur.execute(f"SELECT n, {t}_mask({t}, 'orders') FROM client_psycopg WHERE n BETWEEN 1 AND 20 ORDER BY n")
            tokens = cur.fetchall()
            hits = 0
            for n, token in tokens:
                cur.execute(f"SELECT n FROM client_psycopg WHERE {t} = {t}_unmask(%s, 'orders')", (token,))
                hits += cur.fetchone()[0] == n
            tap.ok(all(isinstance(k, str) for _, k in tokens) and len({k for _, k in tokens}) == 20 and hits == 20,
                   f"{t}_mask gives str tokens, and each sent back as a str parameter to {t}_unmask finds its row ({hits}/20)")
    conn.execute("DROP TABLE client_psycopg")

bouncer = os.environ.get("FLAKEID_PGBOUNCER")
if bouncer:
    # pgbouncer 1.18 in transaction mode keeps no prepared statement across
    # transactions: prepare_threshold=None keeps psycopg from preparing any
    host, port = bouncer.split(":")
    conns = [psycopg.connect(host=host, port=port, autocommit=True, prepare_threshold=None) for _ in range(3)]
    conns[0].execute("CREATE TABLE client_psycopg_pooled (n int PRIMARY KEY, id sno NOT NULL DEFAULT sno_new())")
    # in rounds, the three clients' transactions overlap, so that pgbouncer
    # hands each its own server connection: the IDs come from 3 backends
    returned = []
    for n in range(0, 60, 3):
        for i, c in enumerate(conns):
            c.execute("BEGIN")
            returned.append(c.execute("INSERT INTO client_psycopg_pooled (n) VALUES (%s) RETURNING id::text, pg_backend_pid()",
                                      (n + i,)).fetchone())
        for c in conns:
            c.execute("COMMIT")
    inserted = [r[0] for r in returned]
    backends = len({r[1] for r in returned})
    tap.ok(len(set(inserted)) == 60 and sorted(inserted) == inserted and backends == 3,
       "through pgbouncer (transaction mode, prepare_threshold=None): 60 DEFAULT sno_new() from 3 clients in overlapping"
       f" transactions on {backends} server backends, distinct and in the order they were made")
    hits = sum(conns[i % 3].execute("SELECT n FROM client_psycopg_pooled WHERE id = %s::sno", (v,)).fetchone()[0] == i
               for i, v in enumerate(inserted))
    tap.ok(hits == 60, f"through pgbouncer: the same statement 60 times finds each row from any client ({hits}/60)")
    conns[0].execute("DROP TABLE client_psycopg_pooled")
    for c in conns:
        c.close()

tap.finish()
