# A real streaming replica of the PG* primary, for TAP scripts (source it
# after tap.sh): pg_basebackup -R into DIR/data, the primary's configuration
# (identities included, as an operator's copy would have them) with the
# replica's own port and socket, and REPLICA.conf for the settings of each
# start.  The replica runs as postgres; replica_cleanup stops it.
REPLICA_BIN=$(pg_config --bindir)

replica_create() {   # replica_create DIR PORT: takes the base backup and starts the replica
	REPLICA_DIR=$1
	REPLICA_PORT=$2
	REPLICA_PSQL=("${PSQL[@]}" -h "$REPLICA_DIR" -p "$REPLICA_PORT" -U "${PGUSER:-postgres}" -d postgres)
	[ "$(id -u)" -ne 0 ] || chown postgres: "$REPLICA_DIR"
	as_postgres "$REPLICA_BIN/pg_basebackup" -h "$PGHOST" -p "$PGPORT" -U "${PGUSER:-postgres}" \
		-D "$REPLICA_DIR/data" -R -X stream -c fast >"$REPLICA_DIR/basebackup.log" 2>&1 || return 1
	cat >> "$REPLICA_DIR/data/postgresql.conf" <<CONF
# the replica's own
port = $REPLICA_PORT
listen_addresses = ''
unix_socket_directories = '$REPLICA_DIR'
hot_standby = on
include_if_exists = 'replica.conf'
CONF
	touch "$REPLICA_DIR/data/replica.conf"
	[ "$(id -u)" -ne 0 ] || chown -R postgres: "$REPLICA_DIR/data"
	as_postgres "$REPLICA_BIN/pg_ctl" -D "$REPLICA_DIR/data" -l "$REPLICA_DIR/log" -w -t 60 start >/dev/null
}

replica() { "${REPLICA_PSQL[@]}" "$@"; }
replica_sqlstate() { local PSQL=("${REPLICA_PSQL[@]}"); sqlstate "$1"; }
replica_message_of() { local PSQL=("${REPLICA_PSQL[@]}"); message_of "$1"; }

replica_restart() {   # replica_restart [SETTING=VALUE...]: the settings of this start
	printf '%s\n' "$@" > "$REPLICA_DIR/data/replica.conf"
	[ "$(id -u)" -ne 0 ] || chown postgres: "$REPLICA_DIR/data/replica.conf"
	as_postgres "$REPLICA_BIN/pg_ctl" -D "$REPLICA_DIR/data" -l "$REPLICA_DIR/log" -w -t 60 restart >/dev/null
}

replica_wait_for() {   # replica_wait_for LSN: until the replica has replayed it (60 s at most)
	local i
	for i in $(seq 600); do
		[ "$(replica -c "SELECT pg_last_wal_replay_lsn() >= '$1'::pg_lsn")" = t ] && return 0
		sleep 0.1
	done
	return 1
}

replica_cleanup() {
	[ -n "${REPLICA_DIR:-}" ] || return 0
	as_postgres "$REPLICA_BIN/pg_ctl" -D "$REPLICA_DIR/data" -w -m immediate stop >/dev/null 2>&1
	rm -rf "$REPLICA_DIR"
}
