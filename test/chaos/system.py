"""The system a chaos history runs against, on loopback: three servers of
one PostgreSQL major (a primary, a synchronous and an asynchronous streaming
standby, made with pg_basebackup -R), pgbouncer in transaction mode in front
of whichever is the primary, each server's clock faked per process
(test/lib/clock_offset.c reading an offset file on every clock read, so a
step lands while the server runs), and test/lib/fsync_fault.c preloaded into
each (flakeid.state's fsyncs fail or stall while a switch file says so).

Everything here is what an operator does: pg_ctl, pg_basebackup, pg_rewind,
ALTER SYSTEM and reloads, SIGKILL.  Runs as the servers' user (postgres).
Every method either does what it says or raises SystemFault with why: the
campaign treats an operation that fails where it must not as a violation
("a fault not asked for")."""

import os
import re
import shutil
import signal
import subprocess
import time

import psycopg

class SystemFault(Exception):
    pass


def free_port(used):
    import socket
    for _ in range(200):
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
        s.close()
        if port not in used:
            used.add(port)
            return port
    raise SystemFault('no free port')


class Node:
    """One server: its data directory, port, clock offset file and fsync
    switch.  `role` is 'primary', 'sync' or 'async' (what the history made it)."""

    def __init__(self, system, name, port):
        self.system = system
        self.name = name
        self.port = port
        self.dir = os.path.join(system.workdir, name)
        self.data = os.path.join(self.dir, 'data')
        self.log = os.path.join(self.dir, 'server.log')
        self.clock_file = os.path.join(self.dir, 'clock')
        self.fault_switch = os.path.join(self.dir, 'fsync_fault')
        self.offset = 0
        self.role = None
        os.makedirs(self.dir, exist_ok=True)
        self.set_offset(0)

    # --- the clock ----------------------------------------------------------
    def set_offset(self, seconds):
        """The node's clock is the real one plus SECONDS, from the next clock
        read of every process of it (a rename: no reader sees half a file)."""
        self.offset = seconds
        tmp = self.clock_file + '.new'
        with open(tmp, 'w') as f:
            f.write('%+d\n' % seconds)
        os.rename(tmp, self.clock_file)

    def set_fsync_fault(self, mode):
        """'eio', a number of seconds to stall, or None to end the fault."""
        if mode is None:
            try:
                os.unlink(self.fault_switch)
            except FileNotFoundError:
                pass
            return
        tmp = self.fault_switch + '.new'
        with open(tmp, 'w') as f:
            f.write('%s\n' % mode)
        os.rename(tmp, self.fault_switch)

    def env(self):
        """The environment of the tools (pg_ctl, pg_rewind, ...): the real clock."""
        env = dict(os.environ)
        for k in list(env):
            if k.startswith('PG') and k not in ('PGTZ',):
                del env[k]
        return env

    def write_wrapper(self):
        """The server runs under a wrapper (pg_ctl -p) that preloads the faked
        clock and the fsync fault into it alone: the tools keep the real
        clock, so that pg_ctl's waits time out when they should.  The clock
        is test/lib/clock_offset.c's, built beside fsync_fault.so (it says
        why not libfaketime: that one aborted backends in malloc)."""
        self.wrapper = os.path.join(self.dir, 'postgres')
        clock = os.path.join(os.path.dirname(self.system.fsync_fault), 'clock_offset.so')
        with open(self.wrapper, 'w') as f:
            f.write('#!/bin/sh\nexport LD_PRELOAD="%s %s" FLAKEID_CLOCK_OFFSET_FILE="%s" '
                    'FLAKEID_FAULT_SWITCH="%s"\nexec "%s" "$@"\n' % (
                        clock, self.system.fsync_fault, self.clock_file,
                        self.fault_switch, self.bin('postgres')))
        os.chmod(self.wrapper, 0o755)

    # --- the server ---------------------------------------------------------
    def bin(self, program):
        return os.path.join(self.system.bindir, program)

    def run(self, args, timeout=120, check=True, env=None):
        try:
            r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env or self.env())
        except subprocess.TimeoutExpired:
            raise SystemFault('%s: %s did not end within %d s' % (self.name, ' '.join(args[:3]), timeout))
        if check and r.returncode != 0:
            raise SystemFault('%s: %s exited %d: %s' % (self.name, os.path.basename(args[0]), r.returncode,
                                                         (r.stderr or r.stdout).strip()[-400:]))
        return r

    def conninfo(self, dbname='postgres', **extra):
        parts = ['host=127.0.0.1', 'port=%d' % self.port, 'dbname=%s' % dbname, 'user=postgres']
        parts += ['%s=%s' % kv for kv in extra.items()]
        return ' '.join(parts)

    def start(self, check=True):
        """Starts the server and waits until it takes connections (a standby:
        once consistent).  Not pg_ctl -w: it takes the start time the
        postmaster writes, by the faked clock, for a stale one's when the
        clock runs behind, and waits out its limit."""
        self.write_wrapper()
        r = self.run([self.bin('pg_ctl'), '-D', self.data, '-l', self.log, '-p', self.wrapper, '-W', 'start'],
                     check=False)
        deadline = time.time() + 90
        while r.returncode == 0 and time.time() < deadline:
            try:
                with psycopg.connect(self.conninfo(connect_timeout=3), autocommit=True) as c:
                    c.execute('SELECT 1')
                return True
            except psycopg.Error:
                pass
            time.sleep(0.2)
            if time.time() > deadline - 85 and not self.running():
                break
        if check:
            raise SystemFault('%s did not start within 90 s (%s; %s): %s' % (
                self.name, (r.stderr or r.stdout).strip()[-200:], self.postmaster_state(), self.log_tail(4)))
        return False

    def stop(self, mode='fast'):
        """Stops the server; one that has not stopped within 60 s is a fault not asked for."""
        r = self.run([self.bin('pg_ctl'), '-D', self.data, '-m', mode, '-w', '-t', '60', 'stop'], check=False)
        if r.returncode != 0 and self.running():
            raise SystemFault('%s did not stop (%s) within 60 s: %s' % (self.name, mode, (r.stderr or '').strip()[-200:]))
        self.wait_gone()

    def postmaster_state(self):
        pid = self.postmaster_pid()
        try:
            with open('/proc/%d/stat' % pid) as f:
                state = f.read().rsplit(')', 1)[1].split()[0]
            with open('/proc/%d/wchan' % pid) as f:
                return 'postmaster %d in state %s, in %s' % (pid, state, f.read())
        except (OSError, TypeError):
            return 'no postmaster running'

    def postmaster_pid(self):
        try:
            with open(os.path.join(self.data, 'postmaster.pid')) as f:
                return int(f.readline())
        except (OSError, ValueError):
            return None

    def running(self):
        pid = self.postmaster_pid()
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False

    def children(self, pid):
        kids = []
        for entry in os.listdir('/proc'):
            if entry.isdigit():
                try:
                    with open('/proc/%s/stat' % entry) as f:
                        fields = f.read().rsplit(')', 1)[1].split()
                    if int(fields[1]) == pid:
                        kids.append(int(entry))
                except (OSError, IndexError, ValueError):
                    pass
        return kids

    def kill_postmaster(self):
        """SIGKILL to the postmaster (the OOM killer's way); its children
        notice and exit on their own, as they do in production: waited for
        up to 10 s, then killed."""
        pid = self.postmaster_pid()
        if pid is None:
            raise SystemFault('%s has no postmaster to kill' % self.name)
        kids = self.children(pid)
        os.kill(pid, signal.SIGKILL)
        deadline = time.time() + 10
        while time.time() < deadline and any(os.path.exists('/proc/%d' % k) for k in kids):
            time.sleep(0.1)
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.wait_gone(pid)

    def wait_gone(self, pid=None):
        """Waits until the postmaster has exited; one still there after 60 s
        is a fault not asked for, named with its state and where it waits."""
        pid = pid or self.postmaster_pid()
        deadline = time.time() + 60
        while pid:
            try:
                with open('/proc/%d/stat' % pid) as f:
                    state = f.read().rsplit(')', 1)[1].split()[0]
                with open('/proc/%d/wchan' % pid) as f:
                    wchan = f.read()
            except OSError:
                return
            if state == 'Z':
                return
            if time.time() > deadline:
                raise SystemFault('%s: its postmaster %d is still there 60 s after it was stopped (state %s, in %s)'
                                  % (self.name, pid, state, wchan))
            time.sleep(0.05)

    def sql(self, query, params=None, timeout=30, dbname='postgres'):
        with psycopg.connect(self.conninfo(dbname, connect_timeout=10), autocommit=True) as c:
            c.execute("SET statement_timeout = '%ds'" % timeout)
            cur = c.execute(query, params)
            return cur.fetchall() if cur.description else None

    def wait_ready(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                self.sql('SELECT 1', timeout=5)
                return
            except psycopg.Error:
                time.sleep(0.2)
        raise SystemFault('%s accepts no connection after %d s' % (self.name, timeout))

    def data_checksums(self):
        """Whether the cluster has data checksums on, by pg_controldata (the server may be stopped)."""
        out = self.run([self.bin('pg_controldata'), '-D', self.data]).stdout
        m = re.search(r'^Data page checksum version:\s*(\d+)', out, re.M)
        if not m:
            raise SystemFault('%s: pg_controldata names no data page checksum version' % self.name)
        return m.group(1) != '0'

    def in_recovery(self):
        return self.sql('SELECT pg_is_in_recovery()')[0][0]

    def log_tail(self, n):
        """The server log's FATAL and PANIC lines among its last 200 (what
        ended a start), then its last n lines."""
        try:
            with open(self.log, errors='replace') as f:
                lines = [line.strip() for line in f.readlines()[-200:]]
        except OSError:
            return '(no log)'
        fatal = [l for l in lines[:-n] if re.search(r'\b(FATAL|PANIC):', l)][-5:]
        return ' | '.join(fatal + lines[-n:])

    def log_errors(self, since, n=2):
        """The last N ERROR lines of the server's log written at or after
        the byte offset SINCE (what a tool run against it was told)."""
        try:
            with open(self.log, errors='replace') as f:
                f.seek(since)
                lines = [line.strip() for line in f if 'ERROR:' in line]
        except OSError:
            return ''
        return ' | '.join(lines[-n:])

    def log_size(self):
        try:
            return os.path.getsize(self.log)
        except OSError:
            return 0

    def set_primary(self, primary):
        """Follow PRIMARY: primary_conninfo (with this node's name as its
        application_name, which synchronous_standby_names lists) in
        postgresql.auto.conf, where pg_basebackup -R and pg_rewind -R put it."""
        auto = os.path.join(self.data, 'postgresql.auto.conf')
        with open(auto) as f:
            lines = [l for l in f if not l.startswith('primary_conninfo')]
        lines.append("primary_conninfo = '%s'\n" % primary.conninfo(application_name=self.name))
        with open(auto, 'w') as f:
            f.writelines(lines)
        open(os.path.join(self.data, 'standby.signal'), 'a').close()


class System:
    """Three nodes and pgbouncer.  `settings` go into every server's
    postgresql.conf (the standbys get them with the base backup, identities
    included, as an operator's copy of the primary's configuration)."""

    def __init__(self, workdir, bindir, fsync_fault, settings, log, checksums=True):
        self.workdir = workdir
        self.checksums = checksums      # initdb --data-checksums (--no-checksums: a negative control's)
        self.bindir = bindir
        self.fsync_fault = fsync_fault
        self.settings = settings
        self.say = log
        self.ports = set()
        self.nodes = [Node(self, n, free_port(self.ports)) for n in ('a', 'b', 'c')]
        self.bouncer_port = free_port(self.ports)
        self.sync_names = ''
        self.named = len(self.nodes)    # servers made so far: a cutover's new one is named by the next letter
        self.retired_logs = []          # the logs of primaries a cutover retired (for their PANICs)
        self.others = []                # servers outside the topology (a cutover's new one, until it takes over)

    def by_role(self, role):
        return next(n for n in self.nodes if n.role == role)

    @property
    def primary(self):
        return self.by_role('primary')

    def build(self):
        a, b, c = self.nodes
        self.initdb(a)
        a.role = 'primary'
        a.start()
        a.sql('CREATE EXTENSION flakeid')
        for node, role in ((b, 'sync'), (c, 'async')):
            since = a.log_size()
            try:
                node.run([node.bin('pg_basebackup'), '-d', a.conninfo(application_name=node.name), '-D', node.data,
                          '-R', '-X', 'stream', '-c', 'fast'])
            except SystemFault as e:
                raise SystemFault('%s; the primary\'s log: %s' % (e, a.log_errors(since) or 'no ERROR'))
            self.write_node_conf(node)
            node.role = role
            node.start()
        self.set_sync_names(b.name)
        self.start_bouncer()

    def initdb(self, node):
        """A cluster of its own for NODE (initdb), with every server's
        configuration: the primary's at the start, a logical-replication
        cutover's new server later (the same settings, identities included)."""
        # (data checksums, 18's initdb default: pg_basebackup and pg_rewind run over them; a negative
        # control on a release whose files a checksummed base backup cannot pass, 1.4, leaves them out
        # with --no-checksums, so that its history gets built, and the fault 'base backup and
        # pg_checksums' enables them)
        node.run([node.bin('initdb'), '-D', node.data, '-A', 'trust', '-U', 'postgres', '--no-sync',
                  '-E', 'UTF8', '--locale=C.UTF-8'] + (['--data-checksums'] if self.checksums else []),
                 env=dict(os.environ))
        conf = dict(listen_addresses="'127.0.0.1'", unix_socket_directories="''",
                    shared_preload_libraries="'flakeid'", wal_level='replica', max_wal_senders=10,
                    wal_keep_size="'512MB'", wal_log_hints='on', hot_standby='on',
                    max_prepared_transactions=40, max_connections=80, shared_buffers="'64MB'",
                    max_wal_size="'1GB'", log_line_prefix="'%m [%p] '", log_min_messages='warning',
                    restart_after_crash='on', wal_receiver_timeout="'5s'", wal_retrieve_retry_interval="'200ms'",
                    max_parallel_workers_per_gather=2)
        # every node is a failover target: promoted, it generates at once with
        # the identities it shares with its primary (docs/OPERATIONS.md, "A
        # promoted standby"); the old primary is gone or follows it
        conf['flakeid.promotion_keeps_identities'] = 'on'
        conf.update(self.settings)
        with open(os.path.join(node.data, 'postgresql.conf'), 'a') as f:
            f.write('\n# the chaos campaign\n')
            for k, v in conf.items():
                f.write('%s = %s\n' % (k, v))
            f.write("include_if_exists = 'node.conf'\n")
        self.write_node_conf(node)

    def write_node_conf(self, node):
        with open(os.path.join(node.data, 'node.conf'), 'w') as f:
            f.write('port = %d\n' % node.port)

    def set_sync_names(self, names):
        """synchronous_standby_names on the primary, reloaded ('' clears it)."""
        self.sync_names = names
        # (names are the nodes' own: a, b, c)
        self.primary.sql("ALTER SYSTEM SET synchronous_standby_names = '%s'" % ("FIRST 1 (%s)" % names if names else ''))
        self.primary.sql('SELECT pg_reload_conf()')

    # --- pgbouncer ----------------------------------------------------------
    def start_bouncer(self):
        d = os.path.join(self.workdir, 'pgbouncer')
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, 'users.txt'), 'w') as f:
            f.write('"postgres" ""\n')
        self.write_bouncer_ini()
        self.bouncer = subprocess.Popen(['pgbouncer', os.path.join(d, 'pgbouncer.ini')],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                with psycopg.connect(self.bouncer_conninfo(connect_timeout=2), autocommit=True) as c:
                    c.execute('SELECT 1')
                return
            except psycopg.Error:
                time.sleep(0.1)
        raise SystemFault('pgbouncer does not answer')

    def write_bouncer_ini(self):
        d = os.path.join(self.workdir, 'pgbouncer')
        p = self.primary
        with open(os.path.join(d, 'pgbouncer.ini.new'), 'w') as f:
            # (a named database: a reload re-points it, where one made from "*" would stay)
            f.write('[databases]\npostgres = host=127.0.0.1 port=%d\n[pgbouncer]\nlisten_addr = 127.0.0.1\n'
                    'listen_port = %d\nunix_socket_dir =\nauth_type = trust\nauth_file = %s/users.txt\n'
                    'pool_mode = transaction\nmax_client_conn = 200\ndefault_pool_size = 6\n'
                    'server_connect_timeout = 3\nquery_wait_timeout = 20\nserver_login_retry = 1\n'
                    'admin_users = postgres\n'
                    'logfile = %s/pgbouncer.log\npidfile = %s/pgbouncer.pid\n'
                    '' % (p.port, self.bouncer_port, d, d, d))
        os.rename(os.path.join(d, 'pgbouncer.ini.new'), os.path.join(d, 'pgbouncer.ini'))

    def repoint_bouncer(self):
        """pgbouncer follows the new primary: its configuration rewritten and
        reloaded (SIGHUP), as an operator's failover script does."""
        self.write_bouncer_ini()
        self.bouncer.send_signal(signal.SIGHUP)

    def bouncer_admin(self, command, timeout=60):
        """A command of pgbouncer's console (PAUSE, RELOAD, RESUME), by psql:
        the console speaks the simple query protocol only.  PAUSE returns
        once every server connection is released (transaction mode: every
        transaction ended)."""
        node = self.nodes[0]
        node.run([node.bin('psql'), '-X', '-q', '-h', '127.0.0.1', '-p', str(self.bouncer_port), '-U', 'postgres',
                  '-d', 'pgbouncer', '-c', command], timeout=timeout)

    def bouncer_conninfo(self, **extra):
        parts = ['host=127.0.0.1', 'port=%d' % self.bouncer_port, 'dbname=postgres', 'user=postgres']
        parts += ['%s=%s' % kv for kv in extra.items()]
        return ' '.join(parts)

    # --- failover -----------------------------------------------------------
    def promote(self, node):
        """NODE becomes the primary: the old one is fenced first (an
        immediate stop), NODE promoted, pgbouncer re-pointed, the third node
        made to follow NODE, the old primary brought back by pg_rewind as a
        standby.  The standby that was not promoted stays synchronous or
        becomes so (the old primary takes the vacant role)."""
        old = self.primary
        other = next(n for n in self.nodes if n is not old and n is not node)
        old.stop('immediate')
        node.run([node.bin('pg_ctl'), '-D', node.data, '-w', '-t', '60', 'promote'])
        node.wait_ready()
        deadline = time.time() + 30
        while node.in_recovery():
            if time.time() > deadline:
                raise SystemFault('%s still in recovery 30 s after its promotion' % node.name)
            time.sleep(0.1)
        vacant = node.role
        old.role, node.role, other_role = 'fenced', 'primary', other.role
        self.repoint_bouncer()
        # (pg_rewind reads the new timeline from the source's control file, which a
        # checkpoint writes: without one it finds nothing to rewind)
        node.sql('CHECKPOINT', timeout=120)
        # the old primary: pg_rewind against the new one (its crash recovery first), then a standby
        self.rewind(old, node)
        old.role = vacant
        # the third node follows the new primary; it may have WAL the new one never had
        other.stop('fast')
        self.rewind(other, node)
        other.role = other_role
        self.set_sync_names(self.by_role('sync').name if self.sync_names else '')
        return old

    def rewind(self, target, source):
        """TARGET follows SOURCE: pg_rewind, or where pg_rewind cannot (a
        target whose WAL ends where the timelines part, say) or the rewound
        server does not start (recovery finding WAL of one timeline after a
        later one's: "according to history file, WAL location … belongs to
        timeline 2, but previous recovered WAL file came from timeline 3",
        seed 2019), a new base backup, as an operator would."""
        if target.running():
            target.stop('fast')
        try:
            target.run([target.bin('pg_rewind'), '-D', target.data, '--source-server', source.conninfo(), '-R'],
                       timeout=300)
        except SystemFault as e:
            self.say('%s: pg_rewind failed, a new base backup instead (%s)' % (target.name, str(e)[-160:]))
            self.copy_anew(target, source)
            return
        target.set_primary(source)
        self.write_node_conf(target)
        try:
            target.start()
        except SystemFault as e:
            self.say('%s: did not start after pg_rewind, a new base backup instead (%s)' % (target.name, str(e)[-300:]))
            self.copy_anew(target, source)

    def copy_anew(self, target, source):
        """TARGET made again from a base backup of SOURCE, then started."""
        if target.running():
            target.stop('immediate')
        shutil.rmtree(target.data)
        target.run([target.bin('pg_basebackup'), '-d', source.conninfo(application_name=target.name), '-D',
                    target.data, '-R', '-X', 'stream', '-c', 'fast'], timeout=300)
        target.set_primary(source)
        self.write_node_conf(target)
        target.start()

    # --- a logical-replication cutover (docs/OPERATIONS.md) --------------------
    def new_cluster(self, offset=0):
        """A server of its own (initdb, not a copy of a data directory), with
        every server's settings and identities, its clock OFFSET seconds off
        the real one, started; not yet in `nodes`."""
        name = 'abcdefghijklmnopqrstuvwxyz'[self.named % 26]
        self.named += 1
        node = Node(self, name, free_port(self.ports))
        node.set_offset(offset)
        shutil.rmtree(node.data, ignore_errors=True)
        self.initdb(node)
        node.role = 'new'
        self.others.append(node)
        node.start()
        return node

    def take_over(self, new):
        """NEW becomes the primary in OLD's place (OLD, the primary until
        now, is stopped by the caller): no synchronous standby until the
        standbys are made again from it.  Returns OLD."""
        old = self.primary
        self.nodes[self.nodes.index(old)] = new
        self.others.remove(new)
        old.role, new.role = 'retired', 'primary'
        self.set_sync_names('')
        return old

    def retire(self, old):
        """OLD goes for good: stopped, its directory removed (its log kept
        beside the history's for the checker), its port freed."""
        if old.running():
            old.stop('fast')
        kept = os.path.join(self.workdir, 'retired-%s.log' % old.name)
        try:
            shutil.move(old.log, kept)
            self.retired_logs.append(kept)
        except OSError:
            pass
        shutil.rmtree(old.dir, ignore_errors=True)
        self.ports.discard(old.port)

    def replication(self):
        return self.primary.sql('SELECT application_name, state, sync_state FROM pg_stat_replication')

    def stop_all(self):
        try:
            self.bouncer.kill()
            self.bouncer.wait()
        except Exception:
            pass
        for n in self.nodes + self.others:
            if n.running():
                try:
                    n.stop('immediate')
                except SystemFault:
                    n.kill_postmaster()


PROBLEM = re.compile(r'PANIC|terminated by signal|terminated by exception|was terminated by')
