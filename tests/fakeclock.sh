# Shared by tests/clock.sh, tests/robots.sh and tests/ladder.sh
# (sourced): the counters, the check that ludus is a test build, which
# honours $LUDUS_NOW and $LUDUS_SEED, and the referee in $dir.  Outside
# CI a plain build skips the test (77); under CI=true it is a failure.
pass=0 fail=0
. "$(dirname "$0")/testlib.sh"

# need_test_build NAME
need_test_build() {
	if ! "$LUDUS_BIN" --version | grep -q '^test build:'; then
		echo "$1: $LUDUS_BIN is not a test build (configure --enable-test-clock)"
		[ "${CI:-}" = true ] && { echo "$1: 0 passed, 1 failed"; exit 1; }
		exit 77
	fi
	command -v sqlite3 >/dev/null ||
	    { echo "$1: sqlite3 missing"; echo "$1: 0 passed, 1 failed"; exit 1; }
}

# A referee in $dir (the caller sets it): its tool, the fake clock at
# an arithmetic expression, a query of its database, its last outbox row.
ludus() { "$LUDUS_BIN" -c "$dir/ludus.yaml" "$@"; }
at() { LUDUS_NOW=$(($1)); export LUDUS_NOW; }
sql() { sqlite3 "$dir/ludus.db" "$1"; }
lastmail() { sql "SELECT ifnull(max(id), 0) FROM outbox"; }
