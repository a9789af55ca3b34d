# Shared by scripts/demo, scripts/test and bench/run: dependencies, build, PostgreSQL versions.

PG_MAJOR=${PG_MAJOR:-15}
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# Debian packages the build and the tests need; installed only when missing.
ensure_deps() {   # ensure_deps [EXTRA-PACKAGE...]
	local pkgs=(build-essential "postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR"
		"postgresql-$PG_MAJOR-pgtap" libtap-parser-sourcehandler-pgtap-perl postgresql-common libssl-dev zlib1g-dev "$@")
	local missing=()
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "== installing: ${missing[*]}"
		$SUDO apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null || return 1
		# (what this call installed, for a caller that reports it: scripts/demo)
		ENSURE_DEPS_INSTALLED="${ENSURE_DEPS_INSTALLED:+$ENSURE_DEPS_INSTALLED }${missing[*]}"
	fi
}

# builds flakeid for the PostgreSQL of PG_CONFIG (default: the pg_config on
# PATH); objects built for another version are cleaned first
build_flakeid() {
	local pg_config=${PG_CONFIG:-pg_config} built_for
	built_for=$("$pg_config" --version)
	echo "== building flakeid against $built_for"
	if [ "$(cat .built_for 2>/dev/null)" != "$built_for" ]; then
		make -s clean PG_CONFIG="$pg_config" >/dev/null
	fi
	make -s WERROR=-Werror PG_CONFIG="$pg_config" || return 1
	echo "$built_for" > .built_for
}

# builds and installs flakeid for the PostgreSQL of PG_CONFIG (default: the
# pg_config on PATH), into that installation itself
build_and_install() {
	local pg_config=${PG_CONFIG:-pg_config}
	build_flakeid || return 1
	# scripts of versions no longer in the tree (an unreleased 0.1) would
	# still be installable: the installed set must be exactly the tree's
	$SUDO rm -f "$("$pg_config" --sharedir)"/extension/flakeid--*.sql
	$SUDO make -s install PG_CONFIG="$pg_config"
}

# private_install ROOT: a private copy of Debian's PostgreSQL PG_MAJOR under
# ROOT (its /usr/lib/postgresql/MAJOR and /usr/share/postgresql/MAJOR, which
# PostgreSQL finds from where its programs are), with flakeid built and
# installed into it; the system's PostgreSQL is not touched.  Its programs
# are in ROOT/usr/lib/postgresql/MAJOR/bin (scripts/with_cluster's PG_BINDIR).
private_install() {
	local root=$1 pg_config=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
	mkdir -p "$root/usr/lib/postgresql" "$root/usr/share/postgresql" &&
		cp -a "/usr/lib/postgresql/$PG_MAJOR" "$root/usr/lib/postgresql/" &&
		cp -a "/usr/share/postgresql/$PG_MAJOR" "$root/usr/share/postgresql/" || return 1
	# (exactly this tree's scripts: none the system's copy had)
	rm -f "$root/usr/share/postgresql/$PG_MAJOR/extension/flakeid"* "$root/usr/lib/postgresql/$PG_MAJOR/lib/flakeid.so"
	PG_CONFIG=$pg_config build_flakeid || return 1
	make -s install PG_CONFIG="$pg_config" DESTDIR="$root"
}

# copy_tree DEST [TAR-OPTION...]: this tree (the current directory) into
# DEST, less what any build or run leaves in it (objects, test binaries,
# fuzz corpora, the clients' node_modules, pg_regress's and the TAP
# harness's output); the options add exclusions (--exclude=./.git)
# (tar's status 1, "file changed as we read it", is taken: a clone made with
# `git clone /path` shares its objects' inodes with the origin, whose link
# counts, and so ctimes, change whenever another clone of it is made; CI's
# run of 4e6e5de stopped here so.  The contents read are whole either way:
# git never rewrites an object.)
copy_tree() {
	local dest=$1 status
	shift
	mkdir -p "$dest" || return 1
	tar -c --warning=no-file-changed --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=./results --exclude=./regression.* \
		--exclude=./.built_for --exclude='./test/unit/test_*[!c]' --exclude='./test/fuzz/fuzz_*' \
		--exclude=./test/fuzz/corpus --exclude=./test/fuzz/crashes --exclude=./test/clients/node_modules \
		--exclude=./tmp_check "$@" . | tar -x -C "$dest"
	status=("${PIPESTATUS[@]}")
	[ "${status[0]}" -le 1 ] && [ "${status[1]}" -eq 0 ]
}

# the bindir of PostgreSQL MAJOR: Debian's package for the version Debian 12
# ships, a cached source build (scripts/build_postgres) for the others
pg_bindir() {   # pg_bindir MAJOR
	if [ "$1" = "$PG_MAJOR" ]; then
		echo "/usr/lib/postgresql/$1/bin"
	else
		bash scripts/build_postgres "$1"
	fi
}

# The archive that serves this machine's own Debian release, from apt's
# configuration (no host is named here).
debian_archive() {
	local codename
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 'Identifier: Packages' |
		awk -v suite="$codename" '$2 == suite && $3 == "main" { print $1; exit }'
}

# limited LIMIT WHAT COMMAND...: COMMAND, in a session of its own, for at
# most LIMIT seconds.  Past it, a failing TAP line says how long it ran and
# what it was doing (the processes of its session still running, with their
# ages), then they are killed; the status is then 124.  Otherwise COMMAND's.
# It waits for COMMAND's end, looking once a second: never a fixed sleep.
limited() {
	local limit=$1 what=$2 pid began=$SECONDS status
	shift 2
	# (a script's background job leads no process group, so setsid makes
	# the session in that process, and $! is its id)
	setsid "$@" &
	pid=$!
	# (this shell killed meanwhile, by a lane's backstop say: the session
	# goes with it, as the child of timeout(1) did)
	trap 'kill -TERM -- "-$pid" 2>/dev/null; exit 143' TERM INT
	while kill -0 "$pid" 2>/dev/null; do
		if [ $((SECONDS - began)) -ge "$limit" ]; then
			echo "not ok 1 - $what did not end within its limit of $limit s: killed after $((SECONDS - began)) s; it was running:"
			ps -o pid=,etimes=,time=,args= --forest -s "$pid" 2>/dev/null | head -40 | sed 's/^/#   /'
			kill -TERM -- "-$pid" 2>/dev/null
			# (up to 30 s for every process of the session to end: a TAP
			# file's teardown stops its servers)
			local grace=$SECONDS
			while pgrep -s "$pid" >/dev/null 2>&1 && [ $((SECONDS - grace)) -lt 30 ]; do sleep 1; done
			pkill -KILL -s "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			trap - TERM INT
			return 124
		fi
		sleep 1
	done
	wait "$pid"
	status=$?
	trap - TERM INT
	return $status
}

# measured LABEL WHAT COMMAND...: COMMAND (a function too) in a cgroup of its
# own (cgroup v1's cpuacct, where the machine has it and this is root), and
# a line "LABEL<TAB>WHAT<TAB>WALL-S<TAB>CPU-S<TAB>cgroup" in
# FLAKEID_MEASURE_DIR for scripts/cost_report: the CPU time of every
# process it made, but those that moved to a cgroup of their own (each TAP
# file does: test/lib/FlakeidMeasure.pm), so that nothing is counted twice.
# Its exit status is COMMAND's; whatever it cannot measure, it leaves out.
measured() {
	local label=$1 what=$2 began=$SECONDS status cpu=- how=wall
	local cg=/sys/fs/cgroup/cpuacct/flakeid-part.$BASHPID.$RANDOM
	shift 2
	if [ -n "${FLAKEID_MEASURE_DIR:-}" ] && [ -d /sys/fs/cgroup/cpuacct ] && mkdir "$cg" 2>/dev/null; then
		( echo "$BASHPID" > "$cg/cgroup.procs" 2>/dev/null; "$@" )
		status=$?
		if [ -r "$cg/cpuacct.usage" ]; then
			cpu=$(awk '{ printf "%.1f", $1 / 1e9 }' "$cg/cpuacct.usage")
			how=cgroup
		fi
		rmdir "$cg" 2>/dev/null   # (a process it left running keeps it: its CPU was counted up to now)
	else
		"$@"
		status=$?
	fi
	[ -z "${FLAKEID_MEASURE_DIR:-}" ] ||
		printf '%s\t%s\t%d\t%s\t%s\n' "$label" "$what" $((SECONDS - began)) "$cpu" "$how" \
			>> "$FLAKEID_MEASURE_DIR/costs.parts.$BASHPID" 2>/dev/null
	return $status
}

# cpu_busy_ticks: the CPU time the machine has spent busy since boot, in clock ticks (every CPU, /proc/stat)
cpu_busy_ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

