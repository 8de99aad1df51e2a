#!/bin/sh
# Every statement a move, help, list and the rest of a game run uses an
# index: golden cases (whole games of each kind, help, list, bans,
# time-outs, observers, vacations) are replayed through `ludus deliver`
# with $LUDUS_SQL_TRACE collecting the text of each statement the store
# runs, the outbox is flushed, the timers ticked and retention applied;
# then `EXPLAIN QUERY PLAN` of each distinct statement must show no SCAN of
# a table, except over a partial index (which holds only the rows its
# WHERE names, such as the banned players).  A test build only: the trace
# is compiled into those.
set -u
export LC_ALL=C
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}" "${LUDUS_SRCDIR:?}"
# What it writes is tested, not how it uses memory: the build without
# sanitizers when there is one (contrib/bootstrap test makes it).
LUDUS_BIN=${LUDUS_PLAIN_BIN:-$LUDUS_BIN}
. "$LUDUS_SRCDIR/tests/goldenlib.sh"
golden_test_build || { echo "queryplan: not a test build"; exit 77; }
command -v sqlite3 >/dev/null || { echo "queryplan: no sqlite3 (the sqlite3 package)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-qp.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
cases="game-kalah-3-pits game-alquerque game-almakleh game-aluette game-spite
mancala-extra-turn help games-help-game list-bump-name-language move-errors
admin-ban admin-game-actions invitation-expires move-timeout observe vacation
draw-agreed resign plus-address say-thanks"
fail=0
for c in $cases; do
	rm -rf "$tmp/r" && mkdir "$tmp/r"
	[ -d "$LUDUS_SRCDIR/tests/mail/referee/$c" ] || { echo "FAIL no case $c"; fail=$((fail + 1)); continue; }
	# The schema is made without the trace: only the work is read.
	LUDUS_SQL_TRACE=$tmp/trace golden_replay "$tmp/r" "$LUDUS_SRCDIR/tests/mail/referee/$c" 2>"$tmp/err" ||
	    { echo "FAIL replay $c: $(tail -n 3 "$tmp/err")"; fail=$((fail + 1)); }
	# The daemon's work besides mail (the admin's `ludus list` and
	# `ludus outbox` read whole tables by design).
	for cmd in tick prune flush; do
		LUDUS_SQL_TRACE=$tmp/trace LUDUS_NOW=$((GOLDEN_BASE + 30 * 86400)) \
		    golden_ludus "$tmp/r" $cmd >/dev/null 2>&1
	done
done
# The same statement with its parameters is one statement.
grep -Ev '^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA|CREATE|ALTER|DROP|ANALYZE)' "$tmp/trace" |
    sort -u >"$tmp/stmts"
n=$(wc -l <"$tmp/stmts")
[ "$n" -ge 40 ] || { echo "FAIL only $n statements traced"; fail=$((fail + 1)); }
db=$tmp/r/ludus.db
sqlite3 "$db" "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '% WHERE %'" >"$tmp/partial"
scans=0
while IFS= read -r q; do
	plan=$(sqlite3 "$db" "EXPLAIN QUERY PLAN $q" 2>&1) || {
		echo "FAIL cannot explain: $q: $plan"; fail=$((fail + 1)); continue; }
	echo "$plan" | grep -E 'SCAN [a-z_]+' | grep -v 'SCAN CONSTANT ROW' >"$tmp/scan" || continue
	while IFS= read -r line; do
		idx=$(echo "$line" | sed -n 's/.*USING \(COVERING \)\{0,1\}INDEX \([a-z_0-9]*\).*/\2/p')
		if [ -n "$idx" ] && grep -qx "$idx" "$tmp/partial"; then
			continue
		fi
		echo "FAIL a full scan: $q"
		echo "  $line"
		scans=$((scans + 1))
	done <"$tmp/scan"
done <"$tmp/stmts"
echo "queryplan: $n statements, $scans full scans"
[ "$fail" -eq 0 ] && [ "$scans" -eq 0 ]
