#!/bin/sh
# The referee, mail in and mail out (golden files).  Each directory under
# tests/mail/referee/ is a case: its mails NN-*.eml go through `ludus
# deliver`, in name order, into a fresh referee with a fixed secret, clock
# and seed; every mail the referee wrote, decoded (`ludus outbox --all`),
# must equal the case's `expected`, and the games and their moves the
# case's `expected-db` when there is one.  tests/mail/referee/README says
# how to write a case.
#
#   tests/golden.sh [CASE ...]       the named cases, or all
#   GOLDEN_UPDATE=1 tests/golden.sh  write what the referee does now into
#                                    the expected files (and files.am)
#   GOLDEN_JOBS=N                    cases run at once (default: the CPUs)
#
# Needs a test build (configure --enable-test-clock): anywhere else the
# times and deals are not fixed and there is nothing to compare.
set -u
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}" "${LUDUS_SRCDIR:?}"
# Every case, by the build without sanitizers when there is one
# (contrib/bootstrap test makes it): tests/golden-san.sh replays a sample
# by the build under test, which has them there.
LUDUS_BIN=${LUDUS_PLAIN_BIN:-$LUDUS_BIN}
name=${GOLDEN_NAME:-golden}
export LUDUS_GAMES_DIR
. "$LUDUS_SRCDIR/tests/goldenlib.sh"
cases=$LUDUS_SRCDIR/tests/mail/referee
update=${GOLDEN_UPDATE:-0}
pass=0 fail=0

if ! golden_test_build; then
	echo "$name: $LUDUS_BIN is not a test build (configure" \
	    "--enable-test-clock): \$LUDUS_NOW and \$LUDUS_SEED would be ignored"
	if [ "${CI:-}" = true ]; then
		echo "$name: 0 passed, 1 failed"
		exit 1
	fi
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-golden.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# compare NAME WANT GOT: ok, or the difference.
compare() {
	if [ "$update" = 1 ]; then
		cmp -s "$2" "$3" || { cp "$3" "$2" && echo "updated $1: ${2##*/}"; }
		return 0
	fi
	[ -f "$2" ] || { echo "  no ${2##*/} (GOLDEN_UPDATE=1 writes it)"; return 1; }
	cmp -s "$2" "$3" && return 0
	diff -u "$2" "$3" | sed '1,2d; s/^/  /' | head -n 200
	return 1
}

if [ $# -eq 0 ]; then
	# Case names are lower case, digits and dashes: no quoting needed.
	# shellcheck disable=SC2046
	set -- $(cd "$cases" && for d in */; do [ -d "$d" ] && echo "${d%/}"; done)
fi
[ $# -gt 0 ] || { echo "$name: no cases in $cases"; fail=1; }

# run_case NAME: replay one case and compare; prints `ok NAME` or `FAIL
# NAME` and what differs, and fails in the second case.
run_case() {
	dir=$cases/$1
	work=$tmp/$1
	mkdir -p "$work"
	if [ ! -d "$dir" ]; then
		echo "FAIL $1: no such case"
		return 1
	fi
	if [ -z "$(golden_steps "$dir")" ]; then
		echo "FAIL $1: no NN-*.eml mails"
		return 1
	fi
	if ! golden_replay "$work" "$dir" 2>"$work/why"; then
		echo "FAIL $1"
		sed 's/^/  /' "$work/why"
		return 1
	fi
	good=1
	if golden_dump "$work" "$work/got"; then
		compare "$1" "$dir/expected" "$work/got" >"$work/diff" || good=0
	else
		echo "  ludus outbox --all failed" >"$work/diff"
		good=0
	fi
	if [ -f "$dir/expected-db" ]; then
		{ golden_db "$work" "$work/got-db" &&
		    compare "$1" "$dir/expected-db" "$work/got-db"; } >>"$work/diff" ||
		    good=0
	fi
	if [ $good = 1 ]; then
		echo "ok $1"
		cat "$work/diff"
		return 0
	fi
	echo "FAIL $1"
	cat "$work/diff"
	return 1
}

# The cases are independent: they run in $jobs lanes at once, reported in
# order.  One whole game is most of the mails, so the lanes are balanced
# by the number of steps, the longest cases first, rather than filled in
# turn.
jobs=${GOLDEN_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac
for name in "$@"; do
	echo "$(golden_steps "$cases/$name" | wc -l) $name"
done | sort -k1,1nr -k2 | awk -v jobs="$jobs" '
	{
		best = 0
		for (i = 1; i < jobs; i++)
			if (load[i] < load[best])
				best = i
		load[best] += $1 + 1
		print best, $2
	}' >"$tmp/lanes"
lane=0
while [ "$lane" -lt "$jobs" ]; do
	(
		for name in $(awk -v l="$lane" '$1 == l { print $2 }' "$tmp/lanes"); do
			run_case "$name" >"$tmp/$name.report" 2>&1
			echo $? >"$tmp/$name.rc"
		done
	) &
	lane=$((lane + 1))
done
wait
for name in "$@"; do
	cat "$tmp/$name.report"
	if [ "$(cat "$tmp/$name.rc" 2>/dev/null)" = 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done

# Every case file goes into the distribution.
[ "$update" = 1 ] && golden_files_am "$cases"
missing=$(golden_unlisted "$cases")
if [ -n "$missing" ]; then
	echo "FAIL files.am: not listed in tests/mail/referee/files.am" \
	    "(GOLDEN_UPDATE=1 rewrites it):"
	echo "$missing" | sed 's/^/  /'
	fail=$((fail + 1))
fi

echo "$name: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
