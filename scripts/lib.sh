# Shared by scripts/demo and scripts/test: dependencies, build, cluster hygiene.

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

build_and_install() {
	echo "== building flakeid against $(pg_config --version)"
	make -s WERROR=-Werror
	$SUDO make -s install
}

# pg_virtualenv (as root) uses a system-wide cluster named "regress"; one
# left behind by an interrupted run makes the next pg_virtualenv refuse.
drop_stale_virtualenv() {
	local dir
	for dir in /etc/postgresql/*/regress; do
		[ -f "$dir/.by_pg_virtualenv" ] || continue
		local version
		version=$(basename "$(dirname "$dir")")
		echo "== dropping cluster $version/regress left by an interrupted run"
		$SUDO pg_dropcluster --stop "$version" regress 2>/dev/null || true
		$SUDO rm -rf "$dir"
	done
}
