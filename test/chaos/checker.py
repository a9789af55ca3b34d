"""The checker of a chaos history: pure Python over what the clients
recorded (clients.Recorder), the fault log and the final tables.  It knows
nothing of servers; test/chaos/checker_test.py feeds it made-up histories,
one per violation, and random clean ones.

A history's promises (test/chaos/README.md):
* repeated: no ID returned twice by any call of any server.  The one
  documented exception (docs/OPERATIONS.md, failover): after a promotion
  that was not synchronous (the asynchronous standby, or the synchronous
  one while synchronous_standby_names had been cleared), IDs the old
  primary handed out may come again; with flakeid.mark_synchronous off, so
  may the ones of its transactions that did not commit.  Those are counted
  apart as excused, and only across such a promotion.
* missed: every row in the final tables delivered exactly once to every
  poller; across a promotion that was not fully covered, rows minted after
  it may be missed and rows before it delivered twice (excused, counted).
* stuck: no call still running 2 s after its cancel (through pgbouncer,
  calls queued while the primary was down are pgbouncer's, not ours:
  excused, counted).  The watchdog reads each such call's backend from
  pg_stat_activity every 0.25 s until it ends, and a stuck call is named
  with what it was seen doing; one seen in I/O at every read (a write or
  fsync, flakeid's or the WAL's, which no cancel ends: IO_LWLOCKS too)
  and ended within 30 s is a loaded disk's, excused and counted.
* horizon past the clock: no horizon's time more than HORIZON_LEAD ahead of
  the server's clock in the same call.
* refused: back-fill of a unit this history gave few or no IDs never ends
  with 54000 (the pool used up), at the present neither (a unit a horizon
  closed goes to the ledger: 1.3 refused it).  sno at the present near a
  step back of the clock may be refused the safe way (docs/OPERATIONS.md,
  "Back-fill": a unit its earlier tick-tock may have reached): counted
  apart.  At the present, 55000 (a unit the live generator reached ahead
  of the clock: docs/OPERATIONS.md) is counted apart within CATCH_UP of a
  fault that may move a clock (a step back, a restart, a promotion, a
  cutover's advance), and a violation anywhere else.  Back-fill at the time
  of a live ID the history recorded ('earlier'): 55000 is the documented
  refusal (a unit the live generator may have filled ahead of the clock, in
  this lifetime, an earlier one or on the old primary; or before a floor: a
  fresh start's, a cutover's) and 22023 a time the live generator is not at
  yet (sno's toggle after a step back, the mark an asynchronous promotion
  lost): 55000 counted apart where the live ID was recorded within
  CATCH_UP of a fault that may move a clock (the only times a counter runs
  ahead), 22023 within CATCH_UP of its recording (the clocks' spread), a
  violation elsewhere; 54000 is a violation (a few IDs in a
  unit given few).  What it returns is checked as any ID: one equal to a
  live ID of any server is repeated (named 'backfill (earlier)').
* available: after every fault is healed, every server accepts a
  connection and the primary issues an ID of every format within
  AVAILABLE_WITHIN (campaign.py) seconds.
* bounded memory: the private resident memory (RssAnon) of each server's
  postmaster, startup process and renewer grows by at most MEMORY_BOUND_KB
  over its life in the history, from its first sample.
* no internal error: no call ends with a SQLSTATE of class XX (internal
  error, data corrupted: a horizon refused as damaged is one), but while a
  fault has damaged a state file on purpose and until its hint is followed.
* false clock regression: a generator's clock_regressions counter does not
  grow while no clock stepped back and no server restarted or was promoted.
* order: one backend's live IDs of one ordered format strictly increase
  (sno: except across a step back of that server's clock, or a restart or
  promotion that resumed above a clock left behind: its spec toggles).
* order across a cutover: after a logical-replication cutover's step
  (flakeid_advance_past_all on the new server), every live ID of an
  ordered format sorts above the largest the new server received.
* tool failed: pg_basebackup (plain or tar, checksums verified),
  pg_verifybackup and pg_checksums (--check, --disable, --enable on a node
  stopped cleanly) succeed beside flakeid's files (docs/OPERATIONS.md).
* clone: a standby made by pg_basebackup and promoted while its original
  runs, with its original's identities, refuses every generator but flax
  (55000); with its identities set apart it generates every one but kuid
  (55000 still).  Its IDs are any server's: one equal to its original's
  is repeated.
* clock excursion: after one server's clock went minutes forward and came
  back (a restart between), a generator that minted in the excursion
  resumes after what it issued, and every other mints within OTHERS_LEAD
  of the clock (1.4 resumed siq, kuid and snowflake after one shared mark,
  and their rows stayed above the horizon as long).  The ones that went
  ahead are excused, until the clock has made the excursion up, their
  clock regressions, sno its toggle, and back-fill its 55000 there; the
  campaign gives their pollers until then at the end.
* refused after a restart: after read-only temporary files (flakeid.state.tmp,
  ...) were left in the primary's data directory, a clean stop and a start,
  the server generates every stateful format, past its mark.
"""

import re
from collections import defaultdict

HORIZON_LEAD = 30          # seconds: clock steps back are at most a few seconds each
STUCK_AFTER_CANCEL = 2     # seconds
STUCK_IN_IO_WITHIN = 30    # seconds: a call seen only in I/O after its cancel may end this late
MEMORY_BOUND_KB = 16 * 1024   # growth of one process's private resident memory over a history
QUIET_AROUND = 5           # seconds before a fault that may move a clock-regression counter
CATCH_UP = 21              # seconds after it: the offsets' spread (16 s), the marks' reserve (2 s) and 3 s
POOL_OF = {'sno': 65536, 'siq': 2048, 'kuid': 16384, 'kuid96': 16384, 'snowflake': 4096}   # (clients.POOL)
FLOOR_AHEAD = 64           # a fresh start's back-fill floor: 62 s past its start (docs/OPERATIONS.md), and 2 s
# (the formats that share a generator's marks: an excursion takes both ahead)
MARK_OF = {'kuid96': 'kuid'}
EXCURSION_SLACK = 2        # seconds: a lead read after a clock excursion, against the time its IDs were minted at
OTHERS_LEAD = 45           # seconds a generator that took no part in a clock excursion may lie ahead after it
                           # (the servers' offsets spread 16 s, the marks' reserve 2 s; the excursions: 90 s and more)
# a promoted clone (campaign.py): the formats it generates with its original's identities, and once
# they are set apart (kuid carries none); every other is refused, 55000 (docs/OPERATIONS.md, "A promoted standby")
CLONE_GENERATES = {"the original's": ('flax',), 'set apart': ('flax', 'sno', 'siq', 'kuid96', 'snowflake')}


class Violations:
    def __init__(self):
        self.by_kind = defaultdict(list)

    def add(self, kind, text):
        self.by_kind[kind].append(text)

    def count(self, kind):
        return len(self.by_kind.get(kind, []))

    def first(self):
        for kind, texts in self.by_kind.items():
            if texts:
                return '%s: %s' % (kind, texts[0])
        return None

    def total(self):
        return sum(len(v) for v in self.by_kind.values())


def id_key(fmt, text):
    """The sort key of an ID's text: flakeid's own types sort as their text
    (COLLATE "C"), snowflakes are bigints."""
    return int(text) if fmt == 'snowflake' else text


def era_of(t, promotions):
    """How many promotions had fenced their old primary by time T."""
    return sum(1 for p in promotions if p['fence'] <= t)


def steps_back_windows(faults):
    """(from, to, port) around each fault that may step a clock back or
    restart a server (port None: every server); for sno alone (its toggle,
    its back-fill refused the safe way), so after a clock excursion sno
    minted in, until the clock has made it up (ahead_end)."""
    return [(f['t0'] - 1, max(f['t1'] + (10 if f.get('down') else 1 + abs(f.get('delta') or 0)),
                               ahead_end(f, 'sno')), f.get('port'))
            for f in faults if f.get('steps_back') or f.get('down')]


def ahead_end(f, fmt=None):
    """Until when the generators that went ahead in a clock excursion (the
    fault F; FMT's, if given) may still lie ahead of the clock: until it has
    made up the excursion since they minted, and CATCH_UP (0: none did)."""
    went = f.get('went ahead', ())
    return f['minted at'] + f['excursion'] + CATCH_UP if went and (fmt is None or fmt in went) else 0


def ahead_after_excursion(fmt, t, faults):
    """Whether FMT's generator went ahead in a clock excursion and may still
    lie ahead of the clock at T."""
    return any(fmt in f.get('went ahead', ()) and f['t0'] - QUIET_AROUND <= t <= ahead_end(f) for f in faults)


def check(history):
    """HISTORY: dict with ids, outcome, polls, backfills, calls, samples (as
    clients.Recorder keeps them), promotions [{fence, coverage: all |
    committed | none}], faults [{t0, t1, kind, node, port, down, steps_back}],
    final {format: [id text]}, ordered {format: bool}, problems [text] (the
    servers' logs and the campaign's own: faults not asked for), end (time).
    Returns (Violations, stats)."""
    v = Violations()
    stats = defaultdict(int)
    promotions = sorted(history['promotions'], key=lambda p: p['fence'])
    outcome = history['outcome']
    faults = history['faults']
    kinds = history.get('backfill_kinds', {})     # txn -> the unit class of a back-fill (clients.py)

    def how(rec):
        return '%s (%s)' % (rec[2], kinds[rec[6]]) if rec[2] == 'backfill' and rec[6] in kinds else rec[2]

    # --- repeated ---------------------------------------------------------
    seen = {}
    first_record = {}
    for rec in history['ids']:
        fmt, ident = rec[0], rec[1]
        key = (fmt, ident)
        stats['ids'] += 1
        earlier = seen.get(key)
        if earlier is None:
            seen[key] = rec
            first_record[key] = rec
            continue
        reason = excuse_repeat(earlier, rec, promotions, outcome)
        if reason:
            stats['repeated, excused (%s)' % reason] += 1
        else:
            stats['repeated: %s then %s' % (how(earlier), how(rec))] += 1
            between = [f for f in faults if earlier[5] <= f['t1'] and f['t0'] <= rec[5]]
            v.add('repeated', '%s %s returned twice: %s by %s (txn %s, %s) and %s by %s (txn %s, %s), %.1f s '
                  'later; the faults between them: %s' % (
                      fmt, ident, how(earlier), describe(earlier[3]), earlier[6], outcome.get(earlier[6]),
                      how(rec), describe(rec[3]), rec[6], outcome.get(rec[6]), rec[5] - earlier[5],
                      ', '.join('%s at %+.1f s' % (f.get('kind', '?'), f['t0'] - rec[5]) for f in between)
                      or 'none'))
        seen[key] = rec

    # --- missed -----------------------------------------------------------
    not_all = [p['fence'] for p in promotions if p['coverage'] != 'all']
    delivered = defaultdict(lambda: defaultdict(int))     # poller -> id -> times
    pollers_of = defaultdict(set)
    for name, fmt, t, ids, h, clock, h_time, accepted in history['polls']:
        if accepted is not None or ids:     # (a bare horizon reading is None, and delivers nothing)
            pollers_of[fmt].add(name)
        stats['polls'] += 1
        if h_time is not None and clock is not None:
            lead = (h_time - clock).total_seconds()
            if lead > HORIZON_LEAD:
                v.add('horizon past the clock', '%s gave horizon %s (%s), %.0f s past its clock %s' % (
                    name, h, h_time, lead, clock))
        if accepted:
            for ident in ids:
                delivered[name][ident] += 1
    for fmt, rows in history['final'].items():
        for name in sorted(pollers_of[fmt]):
            got = delivered[name]
            for ident in rows:
                times = got.get(ident, 0)
                stats['rows checked'] += 1
                if times == 1:
                    continue
                rec = first_record.get((fmt, ident))
                t = rec[5] if rec else None
                if times == 0:
                    if t is not None and any(f <= t for f in not_all):
                        stats['missed, excused (after a failover not covered)'] += 1
                    else:
                        stats['missed: rows of transactions %s' % (outcome.get(rec[6]) if rec else '?')] += 1
                        v.add('missed', '%s never delivered %s %s (returned at %s by %s, its transaction %s)' % (
                            name, fmt, ident, t, describe(rec[3]) if rec else '?',
                            outcome.get(rec[6]) if rec else '?'))
                else:
                    if t is not None and any(f >= t for f in not_all):
                        stats['delivered twice, excused (before a failover not covered)'] += 1
                    else:
                        v.add('missed', '%s delivered %s %s %d times' % (name, fmt, ident, times))

    # --- stuck ------------------------------------------------------------
    down = [(f['t0'], f['t1']) for f in faults if f.get('down')]
    for desc, start, cancel_at, end, *seen in history['calls']:
        if cancel_at is None:
            continue
        stats['calls cancelled'] += 1
        ended = end is not None
        end = end if ended else history['end']
        if end - cancel_at <= STUCK_AFTER_CANCEL:
            continue
        # (pgbouncer queues a call while it cannot reach the server, up to its
        # query_wait_timeout of 20 s, and a cancel does not reach a queued call)
        if desc.endswith('(bouncer)') and any(a - 1 <= end and cancel_at <= b + 21 for a, b in down):
            stats['stuck in pgbouncer\'s queue while the primary was down, excused'] += 1
            continue
        # (a write or fsync in progress, flakeid's own or the WAL's, ends before the cancel is
        # served, in PostgreSQL's commits too: a loaded disk, not a wait of ours; only when every
        # sample of the backend after the cancel saw it there, and it ended)
        if ended and seen and in_io_only(seen[0]) and end - cancel_at <= STUCK_IN_IO_WITHIN:
            stats['running after its cancel in a write or fsync, which no cancel ends, excused'] += 1
            continue
        v.add('stuck', '%s still running %.1f s after its cancel (started %.1f s before it)%s' % (
            desc, end - cancel_at, cancel_at - start, describe_waits(seen[0] if seen else [])))

    # --- refused back-fill --------------------------------------------------
    # 'earlier' (clients.py, earlier_at): a live generator runs ahead of the clock only after a clock
    # step back, a restart, a promotion or an advance, so a unit refused as filled ahead holds a
    # live ID recorded near such a fault; one recorded elsewhere is a false refusal (the round-2
    # review of 4ee81ec: excused anywhere, a back-fill refused everywhere would have passed)
    def recorded_at(unit, t):
        m = re.search(r'recorded at ([0-9.]+)', unit or '')
        return float(m.group(1)) if m else t

    def near_clock_fault(at):
        return any(f['t0'] - QUIET_AROUND <= at <= f['t1'] + CATCH_UP for f in faults if f.get('moves_clock'))

    # (a live ID minted at such a floor, ahead of the clock, and back-filled before the clock gets
    # there: 55000 too, since the review of 9c528f7; 22023 before it, "not reached", a false reason
    # that the 10-minute run's seed 66003 met and a first rule here excused)
    # a back-fill floor (55000 too, "holds no record of the IDs back-filled before ..."): a fresh start
    # an operator's hint led to, or a cutover's step, refuses back-fill before the instant the
    # generators resumed at, 62 s past that start (hour run seed 50023: 5 such refusals of 'earlier'
    # back-fills, read as false ones by the first version of the rule above)
    floors = [f for f in faults if 'start afresh' in f.get('hints followed', ()) or f.get('kind') == 'logical cutover']

    def before_a_floor(at, t):
        return any(f['t0'] <= t and at <= f['t1'] + FLOOR_AHEAD for f in floors)

    # IDs 'earlier' back-fills were given in each unit: early in a history few live IDs are
    # recorded, and one unit may be back-filled to its pool's end (hour run seed 50043: 54000 after a
    # restart, "back-fill before the last restart took 4096 of this unit's", its deep entry at 0).
    # Counted by the unit's time (clients.py, earlier_share), so that back-fills through several
    # live IDs of one unit add up: counted by live ID, the 25-minute run of 2026-11-28 took the end
    # of a unit's pool (seeds 65004, 65005: "took 16384 of this unit's") for a false refusal
    given_at = defaultdict(int)

    def earlier_id(unit):
        m = re.search(r' in unit (.+)$', unit or '') or re.match(r'\S+ of (\S+)', unit or '')
        return m.group(1) if m else unit

    for fmt, kind, unit, n, state, t in history['backfills']:
        if state == 'share spent':
            stats['\'earlier\' back-fills not asked: the unit\'s share spent (clients.py)'] += 1
            continue
        stats['back-fill calls'] += 1
        if kind == 'earlier' and state == 'ok':
            given_at[(fmt, earlier_id(unit))] += n
        stats['back-fill calls (%s): %s' % (kind, state)] += 1
        if state == '54000' and kind == 'present' and fmt == 'sno' and any(
                a - QUIET_AROUND <= t <= b + CATCH_UP for a, b, _ in steps_back_windows(faults)):
            stats['sno back-fill at the present refused near a step back, the safe way'] += 1
        elif state == '55000' and kind == 'present' and any(
                f['t0'] - QUIET_AROUND <= t <= f['t1'] + CATCH_UP for f in faults if f.get('moves_clock')):
            stats['back-fill at the present refused (55000, the live generator ahead of the clock) near a fault, excused'] += 1
        elif state == '55000' and kind == 'present' and ahead_after_excursion(fmt, t, faults):
            stats['back-fill at the present refused (55000: the live generator went ahead in a clock excursion), '
                  'excused'] += 1
        elif state == '55000' and kind == 'present' and before_a_floor(t, t):
            stats['back-fill at the present refused (55000: before the floor of a fresh start or a cutover), '
                  'excused'] += 1
        elif state == '55000' and kind == 'present':
            v.add('refused', '%s back-fill of %d IDs at the present was refused (55000) with no clock step, restart, '
                  'promotion or advance before it' % (fmt, n))
        elif state == '55000' and kind == 'earlier' and before_a_floor(recorded_at(unit, t), t):
            stats['back-fill at an earlier live ID\'s time refused (55000: before the floor of a fresh start or a '
                  'cutover), excused'] += 1
        elif state == '55000' and kind == 'earlier' and near_clock_fault(recorded_at(unit, t)):
            stats['back-fill at an earlier live ID\'s time refused (55000: the live generator may have run ahead '
                  'there, near a clock step, restart or promotion), excused'] += 1
        elif state == '55000' and kind == 'earlier' and ahead_after_excursion(fmt, recorded_at(unit, t), faults):
            stats['back-fill at an earlier live ID\'s time refused (55000: the live generator went ahead in a '
                  'clock excursion there), excused'] += 1
        elif state == '55000' and kind == 'earlier':
            v.add('refused', '%s back-fill of %d IDs at the time of a live ID minted with no clock step, restart, '
                  'promotion or advance near it was refused (55000): %s' % (fmt, n, unit))
        elif state == '22023' and kind == 'earlier' and fmt == 'kuid96' and any(
                f.get('kind') == 'restart with a refused setting' and f['t0'] <= t <= f['t1'] + QUIET_AROUND
                for f in faults):
            # (the fault's refused flakeid.kuid_node: kuid96 refuses, 22023, as *_new() does; hour run seed 50035)
            stats['back-fill refused while flakeid.kuid_node was refused (22023, an operator\'s fault), excused'] += 1
        elif state == '22023' and kind == 'earlier' and t - recorded_at(unit, t) <= CATCH_UP:
            stats['back-fill at an earlier live ID\'s time refused (22023: the live %s generator is not there '
                  'yet, within the clocks\' spread), excused' % fmt] += 1
        elif state == '22023' and kind == 'earlier':
            v.add('refused', '%s back-fill of %d IDs at the time of a live ID recorded more than %d s before was '
                  'refused as a time the live generator has not reached (22023): %s' % (fmt, n, CATCH_UP, unit))
        elif state == '54000' and kind == 'earlier' and given_at[(fmt, earlier_id(unit))] * 4 >= POOL_OF[fmt] * 3:
            # (a unit is saved a quarter deeper than back-fill went: docs/OPERATIONS.md, "Back-fill")
            stats['back-fill at an earlier live ID\'s time refused (54000: three quarters of its pool given '
                  'there before), excused'] += 1
        elif state == '54000' and kind in ('fresh', 'again', 'present', 'deep', 'earlier'):
            v.add('refused', '%s back-fill of %d IDs at %s (%s unit) was refused: the pool used up' % (
                fmt, n, unit or 'the present', kind))

    # --- false clock regressions ------------------------------------------------
    # a generator counts a regression for every ID it issues with its clock behind its last unit:
    # after a step back, a restart or a promotion, until the clock catches up, which takes up to
    # the spread of the servers' offsets (at most 16 s: they stay within 8 s of the real clock)
    # and the marks' reserve of 2 s
    excusing = [(f['t0'] - QUIET_AROUND, f['t1'] + CATCH_UP) for f in faults if f.get('moves_clock')]
    # (and a fresh start's lead, 62 s past it (docs/OPERATIONS.md, "Starting afresh"), which a
    # standby replays with the marks and keeps once promoted: after a start afresh on the primary
    # and a promotion within its lead, the promoted server's siq and kuid counted regressions until
    # the lead was made up, past the promotion's CATCH_UP; counted true, by the counter's
    # definition, and excused as the fresh start's own (seed 19805), on the server that started
    # afresh and on those that took its lead within it: promoted from it, or the new server of a
    # logical cutover from it, advanced past its generators' last units (campaign.py, step 3);
    # and so on from those: on no other)
    excusing_on = []
    for f in faults:
        if 'start afresh' not in f.get('hints followed', ()):
            continue
        end = f['t1'] + FLOOR_AHEAD + CATCH_UP
        holders, ports = {f.get('node')}, {f.get('port')}
        for g in sorted((g for g in faults if 'old' in g or 'new' in g), key=lambda g: g['t0']):
            if not f['t0'] <= g['t0'] <= end:
                continue
            if 'old' in g and g['old'] in holders:
                holders.add(g.get('node'))
                ports.add(g.get('port'))
            if 'new' in g and g.get('node') in holders:
                holders.add(g['new'])
                ports.add(g.get('new port'))
        excusing_on += [(f['t0'] - QUIET_AROUND, end, port) for port in ports]
    last = {}
    for t, port, started, counters in history['samples']:
        prev = last.get((port, started))
        last[(port, started)] = (t, counters)
        if prev is None:
            continue
        t0, before = prev
        if any(a <= t and t0 <= b for a, b in excusing) or \
                any(a <= t and t0 <= b and port == on for a, b, on in excusing_on):
            continue
        for gen, n in counters.items():
            # (a generator that went ahead in a clock excursion counts one for every ID until the clock
            # catches up with it: 'siq user' is siq's)
            if any(gen.split()[0] in f.get('went ahead', ()) and f['t0'] - QUIET_AROUND <= t and t0 <= ahead_end(f)
                   for f in faults):
                continue
            if n is not None and before.get(gen) is not None and n > before[gen]:
                v.add('false clock regression', '%s counted %d clock regressions between %.1f and %.1f '
                      'with no clock step, restart or promotion near' % (gen, n - before[gen], t0, t))

    # --- order within a backend ---------------------------------------------
    # sno's spec toggles its tick-tock when its clock is behind its last unit (spec 5.1), and its IDs
    # then sort lower: after a step back, and after a restart or a promotion that resumes above a
    # clock left behind, until the clock catches up (a few seconds: the marks' reserve is 2 s).  A step
    # back of d seconds: until the clock has made up the d, as sno counts on above a horizon's floor
    # until its clock reaches it, then toggles (seed 2038 met a toggle 1.6 s after a 2 s step)
    steps_back = steps_back_windows(faults)
    last_of = {}
    for rec in history['ids']:
        fmt, ident, how, origin = rec[0], rec[1], rec[2], rec[3]
        if how != 'live' or not history['ordered'].get(fmt):
            continue
        key = (fmt, origin)
        prev = last_of.get(key)
        last_of[key] = rec
        if prev is None:
            continue
        if id_key(fmt, ident) > id_key(fmt, prev[1]):
            continue
        if fmt == 'sno' and any(a <= rec[5] and prev[5] <= b and p in (None, origin[0]) for a, b, p in steps_back):
            stats['sno order broken across a clock step, restart or promotion, as its spec says'] += 1
            continue
        v.add('order', '%s: %s then %s from one backend (%s)' % (fmt, prev[1], ident, describe(origin)))

    # --- order across a cutover --------------------------------------------------
    # a logical-replication cutover (docs/OPERATIONS.md): every live ID of an ordered format the
    # system returns after its step sorts above the largest of that format the new server received
    # (the fault records both); nothing excused, sno neither
    for f in faults:
        cut = f.get('cutover')
        if not cut:
            continue
        for rec in history['ids']:
            fmt, ident, how, t = rec[0], rec[1], rec[2], rec[5]
            top = cut['maxima'].get(fmt)
            if how != 'live' or t <= cut['step'] or top is None or not history['ordered'].get(fmt):
                continue
            stats['live IDs checked against a cutover'] += 1
            if id_key(fmt, ident) <= id_key(fmt, top):
                v.add('order across a cutover', '%s %s (returned at %.1f by %s) sorts at or below %s, the largest '
                      'replicated by the cutover at %.1f' % (fmt, ident, t, describe(rec[3]), top, cut['step']))

    # --- available ---------------------------------------------------------------
    for kind, ended, seconds, failed in history.get('availability', []):
        stats['availability probes'] += 1
        if seconds is None:
            v.add('unavailable', 'after %s (healed at %.1f): %s' % (kind, ended, failed))
        else:
            stats['slowest availability after a fault, s'] = max(stats['slowest availability after a fault, s'],
                                                                 int(seconds + 0.999))

    # --- bounded memory -------------------------------------------------------------
    first, last = {}, {}
    for t, node, what, pid, kb in history.get('memory', []):
        first.setdefault((node, what, pid), kb)
        last[(node, what, pid)] = max(kb, last.get((node, what, pid), 0))
    for key, kb in last.items():
        grew = kb - first[key]
        stats['largest memory growth of a process, kB'] = max(stats['largest memory growth of a process, kB'], grew)
        if grew > MEMORY_BOUND_KB:
            v.add('memory', '%s\'s %s (pid %d) grew from %d kB to %d kB' % (key[0], key[1], key[2], first[key], kb))

    # --- internal errors ------------------------------------------------------------
    # (while an operator's fault has damaged a state file, until its hint is followed, generation or
    # the horizon is refused as damaged by design: docs/OPERATIONS.md, "Starting afresh")
    damaged = [(f['t0'], f['t1']) for f in faults if f.get('damages_state')]
    outside = defaultdict(int)
    for t, state in history.get('internal', []):
        if any(a <= t <= b for a, b in damaged):
            stats['refused as damaged while a state file was (an operator\'s fault), excused'] += 1
        else:
            outside[state] += 1
    for state, count in sorted(outside.items()):
        v.add('internal error', '%d calls ended with SQLSTATE %s' % (count, state))

    # --- an operator's tools, a clone, a clock excursion, a restart -----------------
    # (campaign.py's faults record what the operator saw; docs/OPERATIONS.md promises each)
    floors = [g for g in faults if 'start afresh' in g.get('hints followed', ()) or g.get('kind') == 'logical cutover']

    def others_lead(f):
        """How far ahead a generator that took no part in an excursion may lie after it: OTHERS_LEAD,
        or what a fresh start or cutover shortly before still leaves of its floor (62 s past it:
        every generator resumes after the floor, docs/OPERATIONS.md, "Starting afresh")."""
        lead = OTHERS_LEAD
        for g in floors:
            if g is not f and g['t0'] <= f['t0']:
                lead = max(lead, FLOOR_AHEAD - (f['t0'] - g['t1']))
        return lead

    for f in faults:
        kind = f.get('kind', '?')
        if f.get('tool failed'):
            # pg_basebackup, pg_verifybackup, pg_checksums: "pass over flakeid's files"
            v.add('tool failed', '%s (at %.1f): %s' % (kind, f['t0'], f['tool failed']))
        if f.get('refused after the restart'):
            # leftover temporary files, then a clean stop and a start: it must come back generating
            v.add('refused after a restart', '%s (at %.1f; left %s): %s' % (
                kind, f['t0'], ', '.join(f.get('left', ())), f['refused after the restart']))
        for phase in f.get('clone phases', ()):
            generates = CLONE_GENERATES[phase['identities']]
            for fmt in phase.get('formats', ()):
                if fmt not in phase['clone']:
                    # (a minting thread that died or never ended: nothing says the clone refused it)
                    v.add('clone', 'a promoted clone with identities %s has no result for %s' % (
                        phase['identities'], fmt))
            for fmt, got in sorted(phase['clone'].items()):
                if fmt in generates and got != 'ok':
                    v.add('clone', 'a promoted clone with identities %s refused %s (%s), which it must generate' % (
                        phase['identities'], fmt, got))
                elif fmt not in generates and got == 'ok':
                    v.add('clone', 'a promoted clone with identities %s, beside its original, generated %s (%d IDs), '
                          'which it must refuse (55000)' % (phase['identities'], fmt,
                                                            phase.get('clone issued', {}).get(fmt, 0)))
                elif fmt not in generates and got != '55000':
                    v.add('clone', 'a promoted clone with identities %s refused %s with %s, not 55000' % (
                        phase['identities'], fmt, got))
        if f.get('leads') is not None and 'minted at' in f:
            # the generators that went ahead resume after what they minted; every other mints at the clock
            for fmt, lead in sorted(f['leads'].items()):
                if not isinstance(lead, (int, float)):
                    continue      # (a refusal: the availability probe after the fault reads it)
                # (counted from when the first insert of its marks' formats began, whose IDs lie at least
                # the excursion ahead of that instant; not from 'minted at', after every format's insert,
                # which a loaded machine made later than its IDs: CI's stress run of 4c0596c, sno 97.2 s
                # ahead 1.1 s after 'minted at' but 3.0 s after its own insert began)
                began = [t for g, t in f.get('minting from', {}).items() if MARK_OF.get(g, g) == MARK_OF.get(fmt, fmt)]
                since = f['measured at'] - (min(began) if began else f['minted at'])
                if fmt in f.get('still ahead', ()) and fmt not in f['went ahead']:
                    stats['leads after a clock excursion of generators an earlier one took ahead, not read'] += 1
                    continue
                if fmt in f['went ahead'] and lead < f['excursion'] - since - EXCURSION_SLACK:
                    v.add('clock excursion', '%s, which minted %d s ahead of the clock in an excursion (at %.1f), '
                          'resumed only %.1f s ahead %.1f s later: below what it issued' % (
                              fmt, f['excursion'], f['t0'], lead, since))
                elif fmt not in f['went ahead'] and lead > others_lead(f):
                    v.add('clock excursion', '%s minted %.1f s ahead of the clock after a clock excursion of %d s '
                          '(at %.1f) in which it issued nothing (went ahead: %s): its rows lie above its horizon '
                          'that long' % (fmt, lead, f['excursion'], f['t0'], ', '.join(f['went ahead']) or 'none'))
                else:
                    stats['leads read after a clock excursion'] += 1

    # --- faults not asked for -------------------------------------------------
    for text in history['problems']:
        v.add('fault not asked for', text)
    return v, stats


def excuse_repeat(a, b, promotions, outcome):
    """Why the second return of an ID is the documented exception, or None."""
    ea, eb = era_of(a[5], promotions), era_of(b[5], promotions)
    if ea == eb:
        return None
    for p in promotions[ea:eb]:
        if p['coverage'] == 'none':
            return 'asynchronous failover'
        if p['coverage'] == 'committed' and outcome.get(a[6]) not in ('committed', 'prepared', 'committed prepared'):
            return 'failover with mark_synchronous off, not committed'
    return None


# wait events of a backend in I/O: type IO (flakeid's files since 1.4, core's), or queued on the
# lock of a WAL flush under way
IO_LWLOCKS = ('WALWrite', 'WALWriteLock', 'WALInsert')


def in_io_only(samples):
    """Whether a call's backend was seen in I/O at every sample after its cancel."""
    return bool(samples) and all(kind == 'IO' or (kind == 'LWLock' and event in IO_LWLOCKS)
                                 for _, _, kind, event in samples)


def describe_waits(samples):
    """A stuck call's backend as the watchdog read it after the cancel
    (clients.py, sample_backend): each state and wait event, with the
    seconds after the cancel it was first and last seen."""
    if not samples:
        return ''
    spans = []
    for t, state, kind, event in samples:
        what = '%s%s' % (state, ' %s/%s' % (kind, event) if kind else '')
        if spans and spans[-1][0] == what:
            spans[-1][2] = t
        else:
            spans.append([what, t, t])
    return '; its backend: ' + ', '.join('%s at %.2f-%.2f s' % tuple(s) for s in spans)


def describe(origin):
    if origin is None:
        return '?'
    port, started, pid = origin
    return 'backend %s of the server on port %s started %s' % (pid, port, started)
