#!/usr/bin/env python3
"""The horizon, <type>_horizon(): for each generator, an open transaction's
ID holds the horizon below IDs committed after it; once every transaction
has ended the horizon lies above every issued ID; IDs minted after a call
are at or above its value.  Savepoints, parallel workers, prepared
transactions (across their backend's exit and a restart), a clock step
back (sno and kuid), and the poller model check: WRITERS writers of ROWS
rows each with random sleeps before commit, read by the README's poller,
directly (and a quarter as many through pgbouncer in transaction mode),
must give every
committed row exactly once; a naive "after the last ID seen" poller running
alongside must miss some (the negative control).  TAP output; the libpq
environment names a server with flakeid preloaded and
max_prepared_transactions > 0 (test/t/in_cluster.pl).
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import psycopg

WRITERS = int(os.environ.get("WRITERS", "16"))
ROWS = int(os.environ.get("ROWS", "4000"))
GENERATORS = {  # name: (SQL type, the generator call)
    "sno": ("sno", "sno_new(0)"),
    "siq": ("siq", "siq_new('user')"),
    "kuid": ("kuid", "kuid_new()"),
    "kuid96": ("kuid96", "kuid96_new()"),
    "snowflake": ("bigint", "snowflake_new()"),
}
count = failed = 0


def ok(passed, description, diagnostic=None):
    global count, failed
    count += 1
    failed += 0 if passed else 1
    print(("ok" if passed else "not ok") + f" {count} - {description}", flush=True)
    if not passed and diagnostic:
        print("# " + str(diagnostic).replace("\n", "\n# "), flush=True)


def skip(description, why):
    global count
    count += 1
    print(f"ok {count} - {description} # skip {why}", flush=True)


def connect(**kwargs):
    return psycopg.connect(autocommit=True, **kwargs)


def one(conn, query, params=None):
    return conn.execute(query, params).fetchone()[0]


def below(conn, sql_type, a, b):
    """a < b in the type's own order"""
    return one(conn, f"SELECT %s::{sql_type} < %s::{sql_type}", (a, b))


def server_ctl(*args):
    subprocess.run(["bash", "-c", '. test/lib/tap.sh; server_ctl "$@"', "server_ctl", *args], check=True)


observer = connect()

# --- the contract, generator by generator ---------------------------------------------
for name, (sql_type, call) in GENERATORS.items():
    horizon = f"{name}_horizon()::text"
    holder = psycopg.connect()  # a transaction left open
    held = one(holder, f"SELECT {call}::text")
    committed = one(observer, f"SELECT {call}::text")
    h = one(observer, f"SELECT {horizon}")
    ok(not below(observer, sql_type, held, h),
       f"{name}: an open transaction's ID holds the horizon at or below it", f"held {held}, horizon {h}")
    ok(below(observer, sql_type, h, committed) or h == held,
       f"{name}: so an ID committed after it lies at or above the horizon", f"{committed} vs {h}")
    holder.commit()
    holder.close()
    h = one(observer, f"SELECT {horizon}")
    ok(below(observer, sql_type, committed, h) and below(observer, sql_type, held, h),
       f"{name}: once every transaction has ended, the horizon lies above every issued ID", h)
    after = one(observer, f"SELECT {call}::text")
    ok(not below(observer, sql_type, after, h), f"{name}: an ID minted after the call is at or above it",
       f"{after} vs {h}")
    ok(one(observer, f"SELECT pg_typeof({name}_horizon())::text") == ("bigint" if name == "snowflake" else name),
       f"{name}_horizon() returns {sql_type}")

# siq's kinds have counters of their own: an idle kind does not hold the horizon back
siq_a = one(observer, "SELECT siq_new('message')::text")
time.sleep(0.05)
ok(below(observer, "siq", siq_a, one(observer, "SELECT siq_horizon()::text")),
   "siq: the horizon passes an idle kind's last ID")

# --- savepoints and parallel workers ---------------------------------------------------
for how, statements in (("released savepoint", ["SAVEPOINT a", "SELECT sno_new(0)::text", "RELEASE a"]),
                        ("rolled-back savepoint", ["SAVEPOINT a", "SELECT sno_new(0)::text", "ROLLBACK TO a"])):
    holder = psycopg.connect()
    held = None
    for statement in statements:
        row = holder.execute(statement).fetchone() if statement.startswith("SELECT") else holder.execute(statement)
        held = row[0] if statement.startswith("SELECT") else held
    ok(not below(observer, "sno", held, one(observer, "SELECT sno_horizon()::text")),
       f"sno: an ID minted in a {how} still holds the horizon until the transaction ends")
    holder.rollback()
    holder.close()

observer.execute("DROP TABLE IF EXISTS horizon_rows; CREATE TABLE horizon_rows AS SELECT g FROM generate_series(1, 200000) g")
observer.execute("ANALYZE horizon_rows")
holder = psycopg.connect()
holder.execute("SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
               " SET max_parallel_workers_per_gather = 2")
plan = "\n".join(r[0] for r in holder.execute(
    "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) CREATE TABLE horizon_parallel AS SELECT sno_new(0) AS id FROM horizon_rows").fetchall())
launched = [int(line.split(":")[1]) for line in plan.splitlines() if "Workers Launched" in line]
lowest = one(holder, "SELECT min(id)::text FROM horizon_parallel")
if launched and launched[0] > 0:
    ok(not below(observer, "sno", lowest, one(observer, "SELECT sno_horizon()::text")),
       f"sno: IDs minted by {launched[0]} parallel workers hold the horizon after the workers exit, until the leader commits")
else:
    skip("sno: IDs minted by parallel workers hold the horizon", f"no parallel worker was launched:\n{plan}")
holder.rollback()
holder.close()
ok(below(observer, "sno", lowest, one(observer, "SELECT sno_horizon()::text")),
   "sno: the leader's end releases what its workers held")

# --- prepared transactions -----------------------------------------------------------------
for ending in ("COMMIT PREPARED", "ROLLBACK PREPARED"):
    preparer = psycopg.connect()
    prepared = one(preparer, "SELECT sno_new(0)::text")
    preparer.execute("PREPARE TRANSACTION 'horizon_2pc'")
    preparer.close()  # its backend exits
    later = one(observer, "SELECT sno_new(0)::text")
    ok(not below(observer, "sno", prepared, one(observer, "SELECT sno_horizon()::text")),
       f"sno: a prepared transaction holds the horizon after its backend exits ({ending} case)")
    if ending == "COMMIT PREPARED":
        observer.close()
        server_ctl("restart", "-m", "fast")
        observer = connect()
        ok(not below(observer, "sno", prepared, one(observer, "SELECT sno_horizon()::text")),
           "sno: ... and across a restart")
    observer.execute(f"{ending} 'horizon_2pc'")
    h = one(observer, "SELECT sno_horizon()::text")
    ok(below(observer, "sno", later, h) and below(observer, "sno", prepared, h),
       f"sno: {ending} releases it: the horizon lies above every issued ID")

# --- a clock step back -------------------------------------------------------------------
# kuid counts on from its last unit: the contract holds
before = one(observer, "SELECT kuid_horizon()::text")
stepped = connect()
stepped.execute("SET flakeid.debug_clock_offset_ms = -60000")
minted = one(stepped, "SELECT kuid_new()::text")
ok(not below(observer, "kuid", minted, before), "kuid: after the clock steps back a minute, new IDs are still at or above the horizon")
# sno toggles its tick-tock and issues in the earlier units: IDs below a horizon already given
before = one(observer, "SELECT sno_horizon()::text")
minted = one(stepped, "SELECT sno_new(0)::text")
ok(below(observer, "sno", minted, before) and one(observer, "SELECT sno_ticktock(%s::sno)", (minted,)) == 1,
   "sno: after the clock steps back a minute, an ID with the other tick-tock lies below the horizon given before (README: re-read after a toggle)",
   f"{minted} vs {before}")
after = one(stepped, "SELECT sno_horizon()::text")
ok(not below(observer, "sno", one(stepped, "SELECT sno_new(0)::text"), after),
   "sno: a horizon taken after the toggle bounds the IDs minted after it again")
stepped.close()
observer.execute("SELECT pg_sleep(0.2)")

# --- the poller model check ------------------------------------------------------------------


def model_check(label, dsn_kwargs, rows=ROWS):
    setup = connect()
    setup.execute("DROP TABLE IF EXISTS horizon_feed; CREATE TABLE horizon_feed (id sno PRIMARY KEY DEFAULT sno_new(0), writer int, n int)")
    setup.close()
    committed = []
    lock = threading.Lock()
    done = threading.Event()
    errors = []

    def writer(w):
        try:
            rng = random.Random(w)
            with psycopg.connect(**dsn_kwargs) as conn:
                for n in range(rows):
                    with conn.transaction():
                        row = conn.execute("INSERT INTO horizon_feed (writer, n) VALUES (%s, %s) RETURNING id::text", (w, n)).fetchone()
                        time.sleep(rng.random() * 0.002)
                    with lock:
                        committed.append(row[0])
        except Exception as e:  # noqa: BLE001 - reported as a failure below
            errors.append(repr(e))

    def poller(read, state):
        # an error here would end the thread quietly and look like missed rows: it is reported
        try:
            with psycopg.connect(autocommit=True, **dsn_kwargs) as conn:
                while True:
                    finished = done.is_set()
                    read(conn, state)
                    state["reads"] += 1
                    if finished:
                        return
                    time.sleep(0.005)
        except Exception as e:  # noqa: BLE001 - reported as a failure below
            state["error"] = repr(e)

    def horizon_read(conn, state):
        # the README's pattern: the horizon, then the rows in [last, horizon)
        h = one(conn, "SELECT sno_horizon()::text")
        rows = conn.execute("SELECT id::text FROM horizon_feed WHERE id >= %s::sno AND id < %s::sno",
                            (state["last"], h)).fetchall()
        state["seen"].extend(r[0] for r in rows)
        state["horizons"].append(h)
        state["last"] = h

    def naive_read(conn, state):
        rows = conn.execute("SELECT id::text FROM horizon_feed WHERE id > %s::sno ORDER BY id",
                            (state["last"],)).fetchall()
        state["seen"].extend(r[0] for r in rows)
        if rows:
            state["last"] = rows[-1][0]

    zero = "2222222222222222"  # the smallest sno
    exact = {"last": zero, "seen": [], "reads": 0, "error": None, "horizons": []}
    naive = {"last": zero, "seen": [], "reads": 0, "error": None}
    writers = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
    pollers = [threading.Thread(target=poller, args=(horizon_read, exact)),
               threading.Thread(target=poller, args=(naive_read, naive))]
    started = time.time()
    for t in writers + pollers:
        t.start()
    for t in writers:
        t.join()
    done.set()
    for t in pollers:
        t.join()
    ok(not errors and len(committed) == WRITERS * rows,
       f"{label}: {WRITERS} writers committed {WRITERS * rows} rows with random sleeps before commit ({time.time() - started:.0f} s)",
       errors[:3])
    ok(exact["error"] is None and naive["error"] is None,
       f"{label}: both pollers ran to the end ({exact['reads']} and {naive['reads']} reads)",
       f"horizon poller: {exact['error']}; naive poller: {naive['error']}")
    ok(len(exact["seen"]) == len(set(exact["seen"])), f"{label}: the horizon poller read no row twice")
    missed = set(committed) - set(exact["seen"])
    ok(not missed and set(exact["seen"]) == set(committed),
       f"{label}: the horizon poller read every committed row ({len(exact['seen'])})",
       f"missed {len(missed)}, the lowest {min(missed) if missed else None}; the last horizons {exact['horizons'][-3:]}; "
       f"the highest committed {max(committed) if committed else None}")
    naive_missed = len(set(committed) - set(naive["seen"]))
    ok(naive_missed > 0, f"{label}: the naive poller (after the last ID seen) missed {naive_missed} rows: the negative control")


model_check("direct", {})

pgbouncer = shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer" if os.path.exists("/usr/sbin/pgbouncer") else None)
if pgbouncer is None:
    skip("through pgbouncer in transaction mode: the model check", "pgbouncer is not installed")
else:
    with tempfile.TemporaryDirectory() as tmp:
        port = int(os.environ["PGPORT"]) + 1000
        user = one(observer, "SELECT current_user")
        host = os.environ.get("PGHOST", "localhost")
        with open(f"{tmp}/pgbouncer.ini", "w") as f:
            f.write(f"""[databases]
* = host={host} port={os.environ['PGPORT']}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {tmp}/users.txt
pool_mode = transaction
max_client_conn = 100
default_pool_size = 4
logfile = {tmp}/pgbouncer.log
pidfile = {tmp}/pgbouncer.pid
""")
        with open(f"{tmp}/users.txt", "w") as f:
            f.write(f'"{user}" ""\n')
        bouncer = subprocess.Popen([pgbouncer, f"{tmp}/pgbouncer.ini"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(50):
                try:
                    psycopg.connect(host="127.0.0.1", port=port, connect_timeout=1).close()
                    break
                except psycopg.OperationalError:
                    time.sleep(0.1)
            # the writers share 4 server connections: their transactions interleave on pooled backends
            model_check("through pgbouncer (transaction mode, 4 server connections)",
                        {"host": "127.0.0.1", "port": port, "prepare_threshold": None}, rows=ROWS // 4)
        finally:
            bouncer.terminate()
            bouncer.wait()

observer.close()
print(f"1..{count}")
sys.exit(1 if failed else 0)
