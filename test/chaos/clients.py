"""The clients of a chaos history: writers, pollers, a resolver of prepared
transactions, a monitor, and a watchdog that cancels calls.  Every one
records what it saw into the Recorder, which is all the checker reads:

* every ID any call returned (live or back-filled), with the backend that
  returned it (port, postmaster start, pid), a global sequence number and
  its transaction;
* each transaction's outcome: committed, rolled back, prepared then
  committed or rolled back, none (a plain SELECT), or unknown (the
  connection went during COMMIT);
* each poll: the rows it delivered, its horizon and the server's clock, and
  whether its cursor moved (accepted);
* each back-fill call: its unit's class and the SQLSTATE it ended with
  (and the class by its transaction, which names a repeat's back-fill);
* each call's start, the cancel sent to it and its end (stuck calls);
* the generators' clock-regression counters, sampled on the primary.

The formats come from test/lib/formats.tsv: a new stateful format is a row
there, not code here."""

import bisect
import contextlib
import itertools
import random
import threading
import time

import psycopg

# each stateful generator's back-fill pool per unit (test/t/017 measures these)
POOL = {'sno': 65536, 'siq': 2048, 'kuid': 16384, 'kuid96': 16384, 'snowflake': 4096}

# the live IDs kept for 'earlier' back-fill (Workload.note_live): per format, the first and last ID
# of each call in the last EARLIER_KEEP entries, and those of each server lifetime's first
# LIFETIME_HEAD seconds (at most HEAD_ENTRIES of them) for the last HEAD_LIFETIMES lifetimes
EARLIER_KEEP = 8192
LIFETIME_HEAD = 5.0
HEAD_ENTRIES = 400
HEAD_LIFETIMES = 24
REFUSED_KEEP = 256     # per format: the latest 'earlier' back-fills refused with 55000, tried again later
# 'earlier' back-fill's share of one unit over a history: a sixteenth of its pool, asked for across
# every live ID of the unit.  Back-fill counts a past unit down from the top of its pool and live IDs
# count up, and the server keeps no record of a past unit's live IDs, so the two may meet once
# together, with what restarts set aside, they reach the pool (docs/OPERATIONS.md, "Past units count
# down"): a documented repeat.  The 25-minute run of 2026-11-28 (seeds 65007, 65019) drew the first
# seconds of a server lifetime again and again, back-filled one unit to its pool's end through
# many of its live IDs, and met them; its 54000s (65004, 65005) were those units' ends
EARLIER_SHARE = 16


def read_formats(path):
    rows = []
    header = None
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        fields = line.rstrip('\n').split('\t')
        if header is None:
            header = fields
        else:
            rows.append(dict(zip(header, fields)))
    return rows


def schema_sql(formats):
    """One outbox table and one README poller (poll_outbox, with its cursor
    in a table) per format with a horizon, and a table for parallel back-fill."""
    parts = ['CREATE TABLE cursors (reader text PRIMARY KEY, last text NOT NULL);',
             'CREATE TABLE par AS SELECT g FROM generate_series(1, 4000) g;',
             'ALTER TABLE par SET (parallel_workers = 2);',
             # transaction IDs used up between checkpoints, in bursts (the burner)
             'CREATE PROCEDURE burn_xids(n int) LANGUAGE plpgsql AS $$ BEGIN '
             'FOR i IN 1 .. n LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END $$;']
    for f in formats:
        parts.append('CREATE TABLE t_{format} (id {type} NOT NULL DEFAULT {new}, client int, txn bigint);'
                     'CREATE INDEX ON t_{format} (id);'.format(**f))
        if f['stateful'] != 't':
            continue
        parts.append('''
CREATE FUNCTION poll_{format}(who text)
    RETURNS TABLE (id text, horizon text, clock timestamptz, horizon_time timestamptz, cursor_at text)
    LANGUAGE plpgsql AS $$
DECLARE
    h {type} := {format}_horizon();   -- first: the statements below see every ID under it
    c {type};
BEGIN
    SELECT last::{type} INTO c FROM cursors WHERE reader = who FOR UPDATE;
    RETURN QUERY SELECT t.id::text, NULL::text, NULL::timestamptz, NULL::timestamptz, NULL::text
        FROM t_{format} t WHERE t.id >= c AND t.id < h ORDER BY t.id;
    UPDATE cursors SET last = greatest(c, h)::text WHERE reader = who;
    RETURN QUERY SELECT NULL::text, h::text, clock_timestamp(), {time}(h), c::text;
END $$;'''.format(**f))
    return '\n'.join(parts)


class Recorder:
    def __init__(self):
        self.seq = itertools.count()
        self.lock = threading.Lock()
        self.ids = []            # (format, id, how, origin, seq, t, txn)
        self.outcome = {}        # txn -> committed | rolled back | none | unknown | prepared ...
        self.polls = []          # (poller, format, t, rows, horizon, clock, horizon_time, accepted)
        self.backfills = []      # (format, unit class, unit key, n, sqlstate, t)
        self.backfill_kind = {}  # txn -> unit class of a back-fill's transaction (the checker names repeats by it)
        self.calls = []          # [desc, start, cancel_at, end]
        self.samples = []        # (t, port, postmaster start, {generator: clock_regressions})
        self.memory = []         # (t, node, process, pid, private resident kB)
        self.availability = []   # (fault kind, t fault ended, seconds until every generator issued, or None, what failed)
        self.errors = {}         # sqlstate or class -> count
        self.internal = []       # (t, sqlstate) of each call ended with a SQLSTATE of class XX
        self.notes = []          # (t, text): unexpected client-side troubles

    def error(self, e):
        key = getattr(e, 'sqlstate', None) or type(e).__name__
        with self.lock:
            self.errors[key] = self.errors.get(key, 0) + 1
            if key.startswith('XX'):
                self.internal.append((time.time(), key))


class Call:
    """One statement in flight, for the watchdog: it cancels calls that run
    past their limit (and some at random), and marks stuck the ones still
    running 2 s after the cancel."""

    def __init__(self, recorder, conn, desc, limit):
        # (a call through pgbouncer says so: the checker excuses its queue while the primary is down)
        self.rec = ['%s (%s)' % (desc, getattr(conn, 'chaos_via', 'direct')), time.time(), None, None, []]
        self.conn = conn
        self.limit = limit
        self.sampling = False
        recorder.calls.append(self.rec)

    def done(self):
        self.rec[3] = time.time()


class Workload:
    """The clients of one history.  `system` says which node is the primary
    now; `rng` is the history's seeded generator (each client gets its own,
    derived from it, so a replay makes the same choices)."""

    def __init__(self, system, formats, rec, seed, options):
        self.system = system
        self.formats = [f for f in formats if f['stateful'] == 't']
        self.all_formats = formats
        self.rec = rec
        self.seed = seed
        self.opt = options
        self.stop_writing = threading.Event()
        self.stop_polling = threading.Event()
        self.stop_all = threading.Event()
        self.inflight = {}
        self.inflight_lock = threading.Lock()
        self.prepared = []       # [due time, gid, decision, txn]
        self.prepared_lock = threading.Lock()
        self.txn_numbers = itertools.count(1)
        self.backfill_units = {f['format']: [] for f in self.formats}
        self.full_units = {f['format']: 0 for f in self.formats}
        self.deep_units = {}
        # live IDs this history recorded, for 'earlier' back-fill (note_live, earlier_id)
        self.live_lock = threading.Lock()
        self.live_recent = {f['format']: [] for f in self.formats}    # [(t, id, lifetime)], in the order noted
        self.live_heads = {f['format']: {} for f in self.formats}     # lifetime -> [first t, [(t, id)]]
        self.live_refused = {f['format']: [] for f in self.formats}   # [(t, id, lifetime that refused it)]
        self.earlier_given = {}     # (format, unit's time) -> IDs 'earlier' back-fill asked for there
        self.threads = []
        self.final_pending = {}
        self.local = threading.local()   # each thread's seeded generator (writer, poller)
        # the gate of the clients that connect to the primary directly (an operator stops them
        # before a cutover; pgbouncer's PAUSE holds the others): see passage()
        self.gate = threading.Condition()
        self.held = False
        self.active = 0
        # while set, nothing holds the oldest running transaction ID back for long: the burner
        # skips its bursts and the writers prepare nothing (a logical slot's first snapshot, below)
        self.long_xacts_held = threading.Event()

    # --- the gate: stopping the clients that do not go through pgbouncer ----------
    @contextlib.contextmanager
    def passage(self, via='direct'):
        """One unit of a client's work on the primary directly (a writer's
        transaction, a poll, a burst of the burner, a round of resolving
        prepared transactions): it waits while the gate is held, and the
        holder waits for the units under way.  Through pgbouncer, nothing
        (PAUSE holds those)."""
        if via != 'direct':
            yield
            return
        with self.gate:
            while self.held and not self.stop_all.is_set():
                self.gate.wait(0.5)
            self.active += 1
        try:
            yield
        finally:
            with self.gate:
                self.active -= 1
                self.gate.notify_all()

    def hold(self, timeout=60):
        """Closes the gate and waits until no direct client is under way:
        True, or False after TIMEOUT seconds (the gate stays closed)."""
        deadline = time.time() + timeout
        with self.gate:
            self.held = True
            while self.active:
                if time.time() > deadline:
                    return False
                self.gate.wait(0.2)
        return True

    def release(self):
        with self.gate:
            self.held = False
            self.gate.notify_all()

    # --- connections and calls -------------------------------------------
    def connect(self, via, autocommit=False):
        """A connection to the primary as it is now, directly or through
        pgbouncer; None while there is none to be had."""
        try:
            if via == 'bouncer':
                c = psycopg.connect(self.system.bouncer_conninfo(connect_timeout=3), autocommit=autocommit,
                                    prepare_threshold=None)
            else:
                c = psycopg.connect(self.system.primary.conninfo(connect_timeout=3), autocommit=autocommit)
            c.chaos_via = via
            return c
        except psycopg.Error as e:
            self.rec.error(e)
            return None

    def call(self, conn, desc, sql, params=None, limit=None):
        """SQL on CONN, watched: returns its rows (or None)."""
        rng = getattr(self.local, 'rng', None) or random.Random(0)
        if limit is None:
            # most calls are cancelled only when they hang; a few at random, early, to cancel waits
            limit = rng.uniform(0.05, 0.4) if rng.random() < self.opt['early_cancel'] else self.opt['cancel_after']
        # Watched until the server has answered: execute() returns with the whole result received.
        # Its rows are made Python objects after that, outside the watch: for a deep call's 164,000
        # rows that takes 1.3 s on a quiet machine (pure-Python psycopg), and far more beside a test
        # command and the GIL of 30 threads, long after the backend ended (seed 8018's two 'stuck'
        # calls, whose cancels named a backend a crash restart had already ended).
        cur = self.watched(conn, desc, limit, lambda: conn.execute(sql, params))
        return cur.fetchall() if cur.description else None

    def commit(self, conn, desc):
        """COMMIT, watched as a call (a wait for the synchronous standby is cancelled like any)."""
        return self.watched(conn, desc, self.opt['cancel_after'], conn.commit)

    def watched(self, conn, desc, limit, action):
        c = Call(self.rec, conn, desc, limit)
        with self.inflight_lock:
            self.inflight[id(c)] = c
        try:
            return action()
        finally:
            c.done()
            with self.inflight_lock:
                del self.inflight[id(c)]

    def watchdog(self):
        while not self.stop_all.is_set():
            now = time.time()
            with self.inflight_lock:
                calls = list(self.inflight.values())
            for c in calls:
                start, cancel_at = c.rec[1], c.rec[2]
                if cancel_at is None and now - start > c.limit:
                    c.rec[2] = now
                    try:
                        c.conn.cancel()
                    except Exception:
                        pass
                elif cancel_at is not None and now - cancel_at > 2 and int(now - cancel_at) % 2 == 0:
                    try:
                        c.conn.cancel()   # again: a cancel that lands between statements is lost
                    except Exception:
                        pass
                if cancel_at is not None and now - cancel_at > 1.5 and not c.sampling:
                    c.sampling = True
                    threading.Thread(target=self.sample_backend, args=(c,), daemon=True).start()
            time.sleep(0.02)

    def sample_backend(self, c):
        """What a call still running 1.5 s after its cancel is doing, read
        every 0.25 s from pg_stat_activity on its server until it ends (the
        checker names it with a stuck call): (seconds after the cancel,
        state, wait_event_type, wait_event).  Only a direct connection's
        backend is known."""
        try:
            info = c.conn.info
            pid, conninfo = info.backend_pid, 'host=%s port=%s dbname=%s user=%s connect_timeout=2' % (
                info.host, info.port, info.dbname, info.user)
            if getattr(c.conn, 'chaos_via', 'direct') != 'direct':
                return
            with psycopg.connect(conninfo, autocommit=True) as s:
                while c.rec[3] is None and len(c.rec[4]) < 200:
                    row = s.execute('SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE pid = %s',
                                    (pid,)).fetchone()
                    c.rec[4].append([round(time.time() - c.rec[2], 2)] + (list(row) if row else ['gone', None, None]))
                    time.sleep(0.25)
        except Exception as e:
            c.rec[4].append([round(time.time() - c.rec[2], 2), 'not read: %s' % type(e).__name__, None, None])

    # --- writers ------------------------------------------------------------
    def origin(self, conn):
        pid, port, started = conn.execute(
            'SELECT pg_backend_pid(), inet_server_port(), pg_postmaster_start_time()::text').fetchone()
        return (port, started, pid)

    def record_ids(self, fmt, rows, how, origin, txn):
        t = time.time()
        for r in rows:
            self.rec.ids.append((fmt, r[0], how, origin, next(self.rec.seq), t, txn))
        if how == 'live' and rows:
            self.note_live(fmt, rows, origin, t)

    # --- live IDs kept for 'earlier' back-fill ------------------------------------
    def note_live(self, fmt, rows, origin, t):
        """Keeps the first and last live ID of a call (bounded, per format):
        among the latest EARLIER_KEEP, and among the first LIFETIME_HEAD
        seconds of its server lifetime (port, postmaster start), when a
        counter resumed at a saved mark runs ahead of the clock."""
        if fmt not in self.live_recent:
            return
        lifetime = (origin[0], origin[1]) if origin else None
        picked = [rows[0][0]] + ([rows[-1][0]] if len(rows) > 1 else [])
        with self.live_lock:
            recent = self.live_recent[fmt]
            recent.extend((t, ident, lifetime) for ident in picked)
            if len(recent) > 2 * EARLIER_KEEP:
                del recent[:-EARLIER_KEEP]
            heads = self.live_heads[fmt]
            head = heads.get(lifetime)
            if head is None:
                head = heads[lifetime] = [t, []]
                while len(heads) > HEAD_LIFETIMES:
                    del heads[next(iter(heads))]     # (the oldest lifetime noted)
            if t - head[0] <= LIFETIME_HEAD and len(head[1]) < HEAD_ENTRIES:
                head[1].extend((t, ident) for ident in picked)

    def note_refused(self, fmt, ident, t, lifetime):
        """An 'earlier' back-fill at the time of live ID IDENT (recorded at T)
        refused with 55000 by server lifetime LIFETIME: the live generator
        ran ahead of the clock there.  A loader tries it again later."""
        with self.live_lock:
            refused = self.live_refused[fmt]
            refused.append((t, ident, lifetime))
            del refused[:-REFUSED_KEEP]

    def earlier_id(self, rng, fmt, lifetime):
        """A live ID this history recorded, whose time 'earlier' back-fill
        takes: 25 % one whose back-fill a server lifetime other than
        LIFETIME (the connection's) refused with 55000, tried again after the
        restart, crash or promotion (a loader's retry); 25 % from the first
        seconds of a lifetime other than LIFETIME; 35 % recorded 2 to 60 s
        ago; 15 % in the last 2 s (where the counter may run ahead now: the
        refusals retried later).  (id, the time it was recorded), or None."""
        way = rng.choices(['retry', 'lifetime', 'ago', 'recent'], weights=[25, 25, 35, 15])[0]
        with self.live_lock:
            if way == 'retry':
                others = [r for r in self.live_refused[fmt] if r[2] != lifetime]
                if others:
                    t, ident, _ = rng.choice(others)
                    return ident, t
                way = 'lifetime'
            if way == 'lifetime':
                others = [h for lt, h in self.live_heads[fmt].items() if lt != lifetime and h[1]]
                if others:
                    t, ident = rng.choice(rng.choice(others)[1])
                    return ident, t
                way = 'ago'
            recent = self.live_recent[fmt]
            if not recent:
                return None
            age = rng.uniform(2, 60) if way == 'ago' else rng.uniform(0, 2)
            i = bisect.bisect_left(recent, (time.time() - age,))
            t, ident, _ = recent[min(i, len(recent) - 1)]
            return ident, t

    def writer(self, n):
        rng = random.Random('%s/writer/%d' % (self.seed, n))
        self.local.rng = rng
        via = 'bouncer' if n % 3 == 2 else 'direct'
        conn = None
        while not self.stop_writing.is_set():
            with self.passage(via):
                conn = self.write_once(conn, rng, n, via)
            with self.passage('direct'):     # (resolve_due connects to the primary directly)
                self.resolve_due()
        if conn is not None:
            conn.close()

    def write_once(self, conn, rng, n, via):
        """One operation of writer N; returns its connection (None: none now)."""
        fresh = False
        if conn is None or conn.closed or rng.random() < 0.02:   # reconnects
            if conn is not None:
                conn.close()
            conn = self.connect(via)
            if conn is None:
                time.sleep(0.2)
                return None
            fresh = True
        op = rng.choices(['insert', 'prepare', 'select', 'backfill', 'alternate', 'parallel', 'horizons', 'deep',
                          'burst'], weights=[50, 6, 8, 20, 4, 3, 4, 1, 4])[0]
        try:
            if fresh:
                # a server lifetime this writer has not met (a restart, a crash, a promotion): half
                # the time a burst first, while the counter may still run ahead of the clock
                lifetime = self.origin(conn)[:2]
                if getattr(self.local, 'lifetime', None) not in (None, lifetime) and rng.random() < 0.5:
                    op = 'burst'
                self.local.lifetime = lifetime
            getattr(self, 'op_' + op)(conn, rng, n)
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                # (a back-fill whose units' share was spent, or that found no live ID, returns with the
                # transaction of its first reads open: through pgbouncer that held a server connection
                # while the writer waited at the gate, and PAUSE waited for it for good, the first run of
                # the fault 'clock excursion that returns', seed 203)
                conn.rollback()
        except psycopg.Error as e:
            self.rec.error(e)
            try:
                conn.rollback()
            except psycopg.Error:
                conn.close()
            if isinstance(e, psycopg.OperationalError):
                conn.close()
                time.sleep(0.05)
        return conn

    def op_insert(self, conn, rng, n, prepare=False):
        txn = next(self.txn_numbers)
        origin = self.origin(conn)
        self.rec.outcome[txn] = 'open'
        for f in rng.sample(self.all_formats, rng.randint(1, 3)):
            rows = rng.randint(1, 50)
            sql = 'INSERT INTO t_%s (client, txn) SELECT %d, %d FROM generate_series(1, %d) RETURNING id::text' % (
                f['format'], n, txn, rows)
            sub = rng.random() < 0.2
            if sub:
                conn.execute('SAVEPOINT s')
            got = self.call(conn, 'insert', sql)
            self.record_ids(f['format'], got, 'live', origin, txn)
            if sub:
                conn.execute('ROLLBACK TO SAVEPOINT s' if rng.random() < 0.5 else 'RELEASE SAVEPOINT s')
        if prepare:
            # registered before PREPARE, as a transaction manager logs it: a PREPARE whose
            # answer is lost (a crash, a cancelled wait) may still have prepared it
            gid = 'chaos_%s_%d' % (self.seed, txn)
            self.rec.outcome[txn] = 'preparing'
            with self.prepared_lock:
                self.prepared.append([time.time() + rng.uniform(0.3, 6), gid,
                                      'COMMIT' if rng.random() < 0.8 else 'ROLLBACK', txn])
            try:
                self.call(conn, 'prepare', "PREPARE TRANSACTION '%s'" % gid)
                self.rec.outcome[txn] = 'prepared'
            except psycopg.Error:
                self.rec.outcome[txn] = 'unknown'
                raise
        elif rng.random() < 0.15:
            conn.rollback()
            self.rec.outcome[txn] = 'rolled back'
        else:
            self.rec.outcome[txn] = 'unknown'
            self.commit(conn, 'commit')
            # (a cancelled wait for the synchronous standby commits locally, with a warning)
            self.rec.outcome[txn] = 'committed'

    def burner(self):
        """Transaction IDs used up in bursts of 20,000 to 40,000 between
        checkpoints, beside the two-phase writers: 1.3 could not start
        again after a crash when a saved holding named a transaction whose
        commit-log page was not on disk yet."""
        rng = random.Random('%s/burner' % self.seed)
        while not self.stop_writing.wait(rng.uniform(3, 15)):
            if self.long_xacts_held.is_set():
                continue
            with self.passage('direct'):
                try:
                    with psycopg.connect(self.system.primary.conninfo(connect_timeout=3), autocommit=True) as c:
                        c.execute("SET synchronous_commit = off; SET statement_timeout = '30s'")
                        c.execute('CALL burn_xids(%d)' % rng.randint(20000, 40000))
                except psycopg.Error as e:
                    self.rec.error(e)

    def op_prepare(self, conn, rng, n):
        self.op_insert(conn, rng, n, prepare=not self.long_xacts_held.is_set())

    def op_select(self, conn, rng, n):
        txn = next(self.txn_numbers)
        f = rng.choice(self.formats)
        origin = self.origin(conn)
        got = self.call(conn, 'select', 'SELECT %s::text FROM generate_series(1, %d)' % (f['new'], rng.randint(1, 200)))
        # recorded before the rollback: through pgbouncer, another client's transaction may take this
        # server backend as soon as it ends, and its IDs, recorded first, would read as issued first
        # (1.3's seed 784: "order: snowflake ... from one backend")
        self.record_ids(f['format'], got, 'live', origin, txn)
        conn.rollback()
        self.rec.outcome[txn] = 'none'

    def backfill_time(self, rng, fmt, lifetime=None):
        """A unit to back-fill and its class: a fresh one (never given here
        before), one given before (kept to a quarter of its pool in all), a
        full one (its whole pool, in a region of its own so that deep units
        never span the others), the present, or the unit of a live ID this
        history recorded (earlier: often one an earlier server lifetime
        issued, before a restart or a promotion; LIFETIME is the
        connection's, see earlier_id)."""
        pool = POOL[fmt]
        kind = rng.choices(['fresh', 'again', 'full', 'present', 'between', 'earlier'],
                           weights=[55, 20, 2, 23, 8, 45])[0]
        if kind == 'earlier':
            got = self.earlier_at(rng, fmt, lifetime)
            if got is not None:
                return (kind,) + got
            kind = 'fresh'
        if kind == 'again' and not self.backfill_units[fmt]:
            kind = 'fresh'
        if kind == 'between':
            # a fresh unit among the deep ones (op_deep): 1.3 merged its 33rd deep range with the
            # closest, and after a restart refused every unit between them (a 'fresh' refusal)
            if not self.deep_units.get(fmt):
                kind = 'fresh'
            else:
                unit = self.deep_time(rng)
                self.backfill_units[fmt].append(unit)
                return 'fresh', "'%s'" % unit, unit, rng.randint(1, pool // 64)
        if kind == 'full' and self.full_units[fmt] >= self.opt['full_units']:
            kind = 'fresh'
        if kind == 'present':
            return kind, 'clock_timestamp()', None, rng.randint(1, 300)
        if kind == 'again':
            unit = rng.choice(self.backfill_units[fmt])
            return kind, "'%s'" % unit, unit, rng.randint(1, pool // 64)
        if kind == 'full':
            self.full_units[fmt] += 1
            t = 1580515200 + rng.randint(0, 120 * 86400)      # 2020-02-01 and 120 days on
            unit = '%s.%03d+00' % (time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(t)), rng.randint(0, 999))
            return kind, "'%s'" % unit, unit, pool
        t = 1609459200 + rng.randint(0, 3 * 365 * 86400)      # 2021 to 2023
        unit = '%s.%03d+00' % (time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(t)), rng.randint(0, 999))
        self.backfill_units[fmt].append(unit)
        return kind, "'%s'" % unit, unit, rng.randint(1, pool // 16)

    def earlier_at(self, rng, fmt, lifetime):
        """An 'earlier' back-fill: (the time of a live ID earlier_id picks, its
        description, how many), or None.  Its time comes from the ID itself,
        in SQL (a unit the counter ran ahead of the clock in is not the wall
        time it was recorded at).  Few IDs: live and back-filled IDs of a
        unit the counter issued in at the clock stay well within its pool
        (docs/OPERATIONS.md, "Past units count down"); in one it filled
        ahead of the clock, the first back-filled one repeats a live ID
        unless the server refuses (55000)."""
        got = self.earlier_id(rng, fmt, lifetime)
        self.local.earlier = got
        if got is None:
            return None
        ident, t = got
        f = next(f for f in self.formats if f['format'] == fmt)
        # (the checker reads the time it was recorded at: a refusal is judged by the faults near it)
        unit = '%s of %s (recorded at %.3f, %.1f s before)' % (f['time'], ident, t, time.time() - t)
        return "%s('%s'::%s)" % (f['time'], ident, f['type']), unit, rng.randint(1, POOL[fmt] // 64)

    def earlier_share(self, conn, f, at, unit, count):
        """An 'earlier' back-fill of COUNT IDs at AT (a live ID's time, in
        SQL) within its unit's share (EARLIER_SHARE): the unit's time read
        first (every ID of a unit gives the same), so that back-fill through
        any of the unit's live IDs counts against one share.  (AT as that
        time, UNIT's text with it, the count allowed: 0 when the share is
        spent.)"""
        (when,), = self.call(conn, 'backfill', 'SELECT %s::text' % at, limit=self.opt['cancel_after'])
        key = (f['format'], when)
        with self.live_lock:
            given = self.earlier_given.get(key, 0)
            allowed = max(0, min(count, POOL[f['format']] // EARLIER_SHARE - given))
            self.earlier_given[key] = given + allowed
        return "'%s'" % when, '%s in unit %s' % (unit, when), allowed

    def earlier_refund(self, fmt, unit, count):
        """A call refused whole (55000, 22023) gave nothing in its unit: its
        share is given back, so that the units a counter filled ahead of the
        clock, which 'retry' and 'lifetime' draw again after each restart,
        are tried again however often they were refused (the review of
        2aed1c4).  A cancelled or lost call keeps its charge."""
        key = (fmt, unit.rsplit(' in unit ', 1)[-1])
        with self.live_lock:
            self.earlier_given[key] = max(0, self.earlier_given.get(key, 0) - count)

    DEEP_FORMATS = ('snowflake', 'siq', 'kuid')   # (small pools: a deep unit costs a quarter of one)

    @staticmethod
    def deep_time(rng):
        """A millisecond in the first half of 2019, the deep units' own region."""
        t = 1546300800 + rng.randint(0, 180 * 86400)
        return '%s.%03d+00' % (time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(t)), rng.randint(0, 999))

    def op_deep(self, conn, rng, n):
        """40 deep units of one format in one statement (a quarter of the pool
        and one each: deeper than a slot's low-water may go), so that a
        history holds more than 1.3's 32 deep ranges; 'between' back-fills
        then fall among them."""
        fmt = rng.choice([f for f in self.formats if f['format'] in self.DEEP_FORMATS])
        units = [self.deep_time(rng) for _ in range(40)]
        count = POOL[fmt['format']] // 4 + 1
        origin = self.origin(conn)
        txn = next(self.txn_numbers)
        self.rec.backfill_kind[txn] = 'deep'
        sql = "SELECT %s::text FROM unnest(%%s::timestamptz[]) u(t), generate_series(1, %d)" % (
            fmt['new_at'] % 'u.t', count)
        state = 'ok'
        try:
            got = self.call(conn, 'deep', sql, (units,), limit=max(self.opt['cancel_after'], 20))
            self.record_ids(fmt['format'], got, 'backfill', origin, txn)
            self.deep_units.setdefault(fmt['format'], []).extend(units)
        except psycopg.Error as e:
            state = getattr(e, 'sqlstate', None) or 'connection'
            raise
        finally:
            self.rec.backfills.append((fmt['format'], 'deep', None, count * len(units), state, time.time()))
            self.rec.outcome[txn] = 'none'
        conn.rollback()

    def op_backfill(self, conn, rng, n, parallel=False):
        f = rng.choice(self.formats)
        origin = self.origin(conn)
        kind, at, unit, count = self.backfill_time(rng, f['format'], origin[:2])
        # 'earlier': 1 to 10 of them, each at another recorded ID's time and in a transaction of its
        # own, as a loader goes through its rows; one refused, the loader goes on with the next
        rounds = rng.randint(1, 10) if kind == 'earlier' else 1
        for r in range(rounds):
            if r:
                origin = self.origin(conn)     # (through pgbouncer, another server backend perhaps)
                got = self.earlier_at(rng, f['format'], origin[:2])
                if got is None:
                    break
                at, unit, count = got
            if kind == 'earlier':
                at, unit, count = self.earlier_share(conn, f, at, unit, count)
                if not count:
                    # (the unit has had its share: the loader goes on with its next row; counted)
                    self.rec.backfills.append((f['format'], kind, unit, 0, 'share spent', time.time()))
                    continue
            try:
                self.backfill_once(conn, f, kind, at, unit, count, origin, parallel and r == 0)
            except psycopg.Error as e:
                if r == rounds - 1 or isinstance(e, psycopg.OperationalError) or conn.closed:
                    raise
                self.rec.error(e)
                conn.rollback()

    def backfill_once(self, conn, f, kind, at, unit, count, origin, parallel):
        txn = next(self.txn_numbers)
        self.rec.backfill_kind[txn] = kind
        if parallel:
            conn.execute('SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0; '
                         'SET LOCAL min_parallel_table_scan_size = 0')
            sql = 'SELECT %s::text FROM par WHERE g <= %d' % (f['new_at'] % at, min(count, 4000))
        else:
            sql = 'SELECT %s::text FROM generate_series(1, %d)' % (f['new_at'] % at, count)
        state = 'ok'
        try:
            got = self.call(conn, 'backfill', sql, limit=max(self.opt['cancel_after'], 20))
            self.record_ids(f['format'], got, 'backfill', origin, txn)
        except psycopg.Error as e:
            state = getattr(e, 'sqlstate', None) or 'connection'
            raise
        finally:
            self.rec.backfills.append((f['format'], kind, unit, count, state, time.time()))
            self.rec.outcome[txn] = 'none'
            if kind == 'earlier' and state == '55000':
                self.note_refused(f['format'], self.local.earlier[0], self.local.earlier[1], origin[:2])
            if kind == 'earlier' and state in ('55000', '22023'):
                self.earlier_refund(f['format'], unit, count)    # (refused whole: nothing given there)
        conn.rollback()

    BURST_FORMATS = ('siq', 'siq', 'siq', 'snowflake')   # (the small pools; siq's the smallest)

    def op_burst(self, conn, rng, n):
        """Live IDs of siq (3 in 4) or snowflake in one statement, siq half
        to all of a unit's pool, snowflake a quarter to a half: at the clock
        they spread over many units (a siq unit is 15 us; a snowflake one is
        1 ms, and a backend issues about 400 in it on this machine), but
        where the counter runs ahead of the clock (just after a restart or a
        promotion that resumed at a saved mark, after a clock step back) it
        leaves a unit only once its pool is used up, and a burst or two fill
        one whole: a unit 'earlier' back-fill may take after the next
        restart."""
        txn = next(self.txn_numbers)
        fmt = rng.choice(self.BURST_FORMATS)
        f = next(f for f in self.formats if f['format'] == fmt)
        origin = self.origin(conn)
        got = self.call(conn, 'burst', 'SELECT %s::text FROM generate_series(1, %d)' % (
            f['new'], rng.randint(POOL[fmt] // 2, POOL[fmt]) if fmt == 'siq' else
            rng.randint(POOL[fmt] // 4, POOL[fmt] // 2)))
        self.record_ids(fmt, got, 'live', origin, txn)    # (before the rollback: op_select)
        conn.rollback()
        self.rec.outcome[txn] = 'none'

    def op_horizons(self, conn, rng, n):
        """Horizons in a burst beside the writers, each with the clock read
        after it (1.2's horizon, read twice, jumped to 2079 now and then)."""
        f = rng.choice(self.formats)
        got = self.call(conn, 'horizons', 'SELECT h::text, clock_timestamp(), %s(h) FROM (SELECT %s_horizon() h '
                        'FROM generate_series(1, %d)) s' % (f['time'], f['format'], rng.randint(50, 500)))
        conn.rollback()
        t = time.time()
        for h, clock, h_time in got:
            # (a poll that delivers nothing: the checker reads its horizon against the clock)
            self.rec.polls.append(('horizons', f['format'], t, [], h, clock, h_time, None))

    def op_parallel(self, conn, rng, n):
        self.op_backfill(conn, rng, n, parallel=True)

    def op_alternate(self, conn, rng, n):
        """Back-fill at the present beside sno's live generator, row by row
        (1.2 counted false clock regressions and toggled the tick-tock)."""
        txn = next(self.txn_numbers)
        origin = self.origin(conn)
        got = self.call(conn, 'alternate', 'SELECT sno_new_at(clock_timestamp())::text, sno_new()::text '
                        'FROM generate_series(1, %d)' % rng.randint(10, 100))
        self.record_ids('sno', [(r[0],) for r in got], 'backfill', origin, txn)
        self.record_ids('sno', [(r[1],) for r in got], 'live', origin, txn)    # (before the rollback: op_select)
        conn.rollback()
        self.rec.outcome[txn] = 'none'

    # --- prepared transactions ------------------------------------------------
    def resolve_due(self, everything=False):
        """COMMIT or ROLLBACK PREPARED, on the primary as it is now, of the
        prepared transactions whose time has come (all, at the end)."""
        now = time.time()
        with self.prepared_lock:
            due = [p for p in self.prepared if everything or p[0] <= now]
            for p in due:
                self.prepared.remove(p)
        if not due:
            return
        conn = self.connect('direct', autocommit=True)
        for p in due:
            _, gid, decision, txn = p
            try:
                if conn is None:
                    raise psycopg.OperationalError('no primary')
                self.call(conn, 'resolve', "%s PREPARED '%s'" % (decision, gid), limit=self.opt['cancel_after'])
                self.rec.outcome[txn] = 'committed prepared' if decision == 'COMMIT' else 'rolled back'
            except psycopg.Error as e:
                self.rec.error(e)
                if getattr(e, 'sqlstate', None) == '42704' and self.rec.outcome.get(txn) != 'preparing':
                    # never prepared, resolved by an earlier try, or lost with an asynchronous failover
                    self.rec.outcome[txn] = 'unknown'
                    continue
                p[0] = time.time() + 0.5
                with self.prepared_lock:
                    self.prepared.append(p)
                if conn is not None and conn.closed:
                    conn = None
        if conn is not None:
            conn.close()

    # --- pollers ----------------------------------------------------------
    def poll_once(self, conn, fmt, name):
        """One poll_outbox call and its commit.  Rows count as delivered once
        the commit is known: after a lost connection the cursor says whether
        it moved (read on the next connection, before anything else)."""
        rows = self.call(conn, 'poll', 'SELECT * FROM poll_%s(%%s)' % fmt, (name,), limit=self.opt['cancel_after'])
        ids = [r[0] for r in rows[:-1]]
        _, h, clock, h_time, cursor_at = rows[-1]
        record = [name, fmt, time.time(), ids, h, clock, h_time, None]
        self.rec.polls.append(record)
        try:
            self.commit(conn, 'poll commit')
            record[7] = True
        except psycopg.OperationalError:
            self.local.pending = (record, cursor_at)
            raise
        except psycopg.Error:
            record[7] = False
            raise

    def settle_pending(self, conn):
        pending = getattr(self.local, 'pending', None)
        if pending is None:
            return
        record, cursor_at = pending
        fmt, h = record[1], record[4]
        moved = conn.execute('SELECT last = greatest(%%s::%s, %%s::%s)::text FROM cursors WHERE reader = %%s'
                             % (self.type_of(fmt), self.type_of(fmt)), (cursor_at, h, record[0])).fetchone()[0]
        conn.commit()
        record[7] = bool(moved)
        self.local.pending = None

    def poll_round(self, conn, fmt, name):
        """What a poll left unknown is settled on the next connection, before it polls again."""
        self.settle_pending(conn)
        self.poll_once(conn, fmt, name)

    def poller(self, f, via):
        """The README's poller: poll_outbox by horizon, its cursor in a table."""
        name = '%s_%s' % (f['format'], via)
        rng = random.Random('%s/poller/%s' % (self.seed, name))
        self.local.rng = rng
        self.local.pending = None
        conn = None
        while not self.stop_polling.is_set():
            with self.passage(via):
                if conn is None or conn.closed:
                    conn = self.connect(via)
                if conn is None:
                    time.sleep(0.2)
                    continue
                try:
                    self.poll_round(conn, f['format'], name)
                except psycopg.Error as e:
                    self.rec.error(e)
                    conn.close()
                    time.sleep(0.05)
            time.sleep(rng.uniform(0.005, 0.05))
        if conn is not None:
            conn.close()
        self.final_pending[name] = getattr(self.local, 'pending', None)

    def poll_until(self, fmt, via, deadline):
        """At the end, writers stopped: polls until no row is left at or
        above the cursor."""
        name = '%s_%s' % (fmt, via)
        self.local.rng = random.Random(0)
        self.local.pending = self.final_pending.get(name)
        while time.time() < deadline:
            conn = self.connect(via)
            if conn is None:
                time.sleep(0.2)
                continue
            try:
                self.poll_round(conn, fmt, name)
                left = conn.execute('SELECT count(*) FROM t_%s WHERE id >= (SELECT last FROM cursors '
                                    'WHERE reader = %%s)::%s' % (fmt, self.type_of(fmt)), (name,)).fetchone()[0]
                conn.commit()
                if left == 0:
                    return True
            except psycopg.Error as e:
                self.rec.error(e)
            finally:
                conn.close()
            time.sleep(0.05)
        return False

    def type_of(self, fmt):
        return next(f['type'] for f in self.formats if f['format'] == fmt)

    # --- the monitor ----------------------------------------------------------
    WATCHED = (('startup', 'startup'), ('flakeid mark renewer', 'renewer'))

    def sample_memory(self):
        """The private resident memory (RssAnon: shared memory left out) of
        each server's postmaster, startup process and renewer."""
        t = time.time()
        for n in self.system.nodes:
            pm = n.postmaster_pid()
            if pm is None:
                continue
            for pid in [pm] + n.children(pm):
                try:
                    title = open('/proc/%d/cmdline' % pid, 'rb').read().replace(b'\0', b' ').decode(errors='replace')
                    rss = next(int(line.split()[1]) for line in open('/proc/%d/status' % pid)
                               if line.startswith('RssAnon:'))
                except (OSError, StopIteration, ValueError, IndexError):
                    continue
                what = 'postmaster' if pid == pm else next((w for key, w in self.WATCHED if key in title), None)
                if what:
                    self.rec.memory.append((t, n.name, what, pid, rss))

    def monitor(self):
        k = 0
        while not self.stop_all.is_set():
            k += 1
            if k % 4 == 0:
                self.sample_memory()
            try:
                p = self.system.primary
                with psycopg.connect(p.conninfo(connect_timeout=2), autocommit=True) as c:
                    rows = c.execute('SELECT pg_postmaster_start_time()::text, generator, clock_regressions '
                                     'FROM flakeid_generators').fetchall()
                self.rec.samples.append((time.time(), p.port, rows[0][0] if rows else None,
                                         {r[1]: r[2] for r in rows}))
            except psycopg.Error:
                pass
            time.sleep(0.5)

    # --- running them ---------------------------------------------------------
    def start(self, writers):
        def run(target, *args):
            t = threading.Thread(target=target, args=args, daemon=True)
            t.start()
            self.threads.append(t)
        run(self.watchdog)
        run(self.monitor)
        for f in self.formats:
            for via in ('direct', 'bouncer'):
                run(self.poller, f, via)
        for n in range(writers):
            run(self.writer, n)
        run(self.burner)

    def setup_cursors(self, conn):
        for f in self.formats:
            for via in ('direct', 'bouncer'):
                conn.execute("INSERT INTO cursors VALUES (%%s, %s_lower_bound(now() - interval '1 day')::text)"
                             % f['format'], ('%s_%s' % (f['format'], via),))
