#!/usr/bin/env python3
"""Every flakeid type (and the snowflake bigints) through psycopg 3, in text
and binary result formats: insert with DEFAULT generators, read back, send
the values back as parameters, cast, and read *_time() as datetimes.  TAP
output.  Connection settings come from the libpq environment (scripts/with_cluster).
"""
import datetime
import uuid

import psycopg

WIDTHS = {"sno": 10, "flax": 12, "siq": 14, "kuid": 8, "kuid96": 12}
DEFAULTS = {"sno": "sno_new()", "flax": "flax_new()", "siq": "siq_new('user')",
            "kuid": "kuid_new()", "kuid96": "kuid96_new()", "snowflake": "snowflake_new()"}
count = 0
failed = 0


def ok(passed, description):
    global count, failed
    count += 1
    if not passed:
        failed += 1
    print(("ok" if passed else "not ok") + f" {count} - psycopg: {description}", flush=True)


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
            ok(len(rows) == 100, f"{mode}: 100 rows inserted with every DEFAULT generator, returned")
            for t in DEFAULTS:
                values = [r[names.index(t)] for r in rows]
                if t == "snowflake":
                    ok(all(isinstance(v, int) for v in values) and len(set(values)) == 100,
                       f"{mode}: snowflake comes back as 100 distinct Python ints")
                    wanted = values
                elif binary:
                    # unknown types come back as their binary representation: the ID's bytes
                    ok(all(isinstance(v, bytes) and len(v) == WIDTHS[t] for v in values),
                       f"{mode}: {t} comes back as its {WIDTHS[t]} bytes")
                    cur.execute(f"SELECT {t}::bytea FROM client_psycopg WHERE n BETWEEN 1000 AND 1099 ORDER BY n")
                    ok([r[0] for r in cur.fetchall()] == values, f"{mode}: {t} bytes equal {t}::bytea")
                    wanted = values
                else:
                    ok(all(isinstance(v, str) for v in values), f"{mode}: {t} comes back as text")
                    cur.execute(f"SELECT {t}::text FROM client_psycopg WHERE n BETWEEN 1 AND 100 ORDER BY n")
                    ok([r[0] for r in cur.fetchall()] == values, f"{mode}: {t} text equals {t}::text")
                    wanted = values
                # the values back as parameters: text as-is, bytes through bytea
                cast = "%s" if t == "snowflake" else ("%s::bytea::" + t if binary else "%s::" + t)
                lo, hi = (1000, 1099) if binary else (1, 100)
                hits = 0
                for n, v in zip(range(lo, hi + 1), wanted):
                    cur.execute(f"SELECT n FROM client_psycopg WHERE {t} = {cast}", (v,))
                    hits += cur.fetchone()[0] == n
                ok(hits == 100, f"{mode}: each {t} sent back as a parameter finds its row ({hits}/100)")
                # times as datetimes, and the uuid cast as uuid.UUID
                cur.execute(f"SELECT {t}_time({t}), extract(epoch FROM {t}_time({t})) FROM client_psycopg WHERE n = %s", (lo,))
                when, epoch = cur.fetchone()
                ok(isinstance(when, datetime.datetime) and when.tzinfo is not None
                   and abs(when.timestamp() - float(epoch)) < 1e-6
                   and abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) < 600,
                   f"{mode}: {t}_time() is an aware datetime of now")
                if t != "snowflake":
                    cur.execute(f"SELECT {t}::uuid, {t}::uuid::{t} = {t} FROM client_psycopg WHERE n = %s", (lo,))
                    as_uuid, back = cur.fetchone()
                    ok(isinstance(as_uuid, uuid.UUID) and as_uuid.version == 8 and back,
                       f"{mode}: {t}::uuid is a version-8 uuid.UUID that casts back")
    conn.execute("DROP TABLE client_psycopg")

print(f"1..{count}")
raise SystemExit(1 if failed else 0)
