# Shared by tests/clock.sh and tests/robots.sh (sourced): the counters and
# the check that ludus is a test build, which honours $LUDUS_NOW and
# $LUDUS_SEED.  Outside CI a plain build skips the test (77); under
# CI=true it is a failure.
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

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
