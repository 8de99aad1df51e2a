#!/bin/sh
# The store's unit tests (tests/check_store) on PostgreSQL: the same cases
# as on SQLite, each in a new database of a private cluster
# (tests/pgenv/pgenv), plus PostgreSQL's own (a newer schema refused, bad
# connection strings named, a serialization conflict counted and retried).
# Skipped (77) only when no PostgreSQL server can be had here.
set -u
: "${LUDUS_SRCDIR:?}"
. "$LUDUS_SRCDIR/tests/testlib.sh"
pgenv="$LUDUS_SRCDIR/tests/pgenv/pgenv"
check=${LUDUS_BUILDDIR:-.}/tests/check_store
command -v createdb >/dev/null 2>&1 || { echo "store-pg: no createdb: skipped"; exit 77; }
[ -x "$check" ] || { echo "store-pg: no $check"; exit 99; }
# A build without libpq refuses postgresql:// (check_config tests that).
grep -q '^#define HAVE_LIBPQ 1' "${LUDUS_BUILDDIR:-.}/config.h" 2>/dev/null ||
    { echo "store-pg: built without libpq: skipped"; exit 77; }

dir=$(mktemp -d /tmp/pg.XXXXXX) || exit 99
trap 'bash "$pgenv" stop "$dir" >/dev/null 2>&1; rm -f "$dir.env" "$dir.err"' EXIT
bash "$pgenv" start "$dir" >"$dir.env" 2>"$dir.err"
rc=$?
if [ $rc = 77 ]; then cat "$dir.err"; exit 77; fi
[ $rc = 0 ] || { cat "$dir.err"; exit 99; }
set -a
. "$dir.env"
set +a

out=$(LUDUS_TEST_PG=1 "$check" 2>&1)
rc=$?
echo "$out" | grep -v '^NOTICE:'
[ $rc = 0 ] && ok || bad "check_store on PostgreSQL failed"
# Every case ran, none skipped: the summary names them all.
echo "$out" | grep -q '^100%: Checks: [1-9][0-9]*, Failures: 0, Errors: 0' &&
    ok || bad "check_store's summary is not all passed"
echo "store-pg: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
