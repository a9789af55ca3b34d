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
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
}

# builds and installs flakeid for the PostgreSQL of PG_CONFIG (default: the
# pg_config on PATH); objects built for another version are cleaned first
build_and_install() {
	local pg_config=${PG_CONFIG:-pg_config} built_for
	built_for=$("$pg_config" --version)
	echo "== building flakeid against $built_for"
	if [ "$(cat .built_for 2>/dev/null)" != "$built_for" ]; then
		make -s clean PG_CONFIG="$pg_config" >/dev/null
	fi
	make -s WERROR=-Werror PG_CONFIG="$pg_config" || return 1
	echo "$built_for" > .built_for
	# scripts of versions no longer in the tree (an unreleased 0.1) would
	# still be installable: the installed set must be exactly the tree's
	$SUDO rm -f "$("$pg_config" --sharedir)"/extension/flakeid--*.sql
	$SUDO make -s install PG_CONFIG="$pg_config"
}

# copy_tree DEST [TAR-OPTION...]: this tree (the current directory) into
# DEST, less what any build or run leaves in it (objects, test binaries,
# fuzz corpora, the clients' node_modules, pg_regress's and the TAP
# harness's output); the options add exclusions (--exclude=./.git)
copy_tree() {
	local dest=$1
	shift
	mkdir -p "$dest" &&
		tar -c --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=./results --exclude=./regression.* \
			--exclude=./.built_for --exclude='./test/unit/test_*[!c]' --exclude='./test/fuzz/fuzz_*' \
			--exclude=./test/fuzz/corpus --exclude=./test/fuzz/crashes --exclude=./test/clients/node_modules \
			--exclude=./tmp_check "$@" . | tar -x -C "$dest"
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
