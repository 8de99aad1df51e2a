#!/bin/sh
# The ludus tool end to end on a fresh database file: every subcommand,
# its output, its exit codes.  LUDUS_WRAP (e.g. "valgrind ...") wraps
# every call.
set -u
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
db=$tmp/t.db
pass=0 fail=0

ludus() { ${LUDUS_WRAP:-} "$LUDUS_BIN" -d "$db" "$@"; }

# check NAME EXPECTED_STATUS COMMAND...: run, keep stdout/stderr in files.
check() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL $name: exit $got, want $want"
		sed 's/^/  stdout: /' "$tmp/out"; sed 's/^/  stderr: /' "$tmp/err"
		fail=$((fail + 1))
		return 1
	fi
	return 0
}
# expect NAME PATTERN FILE: FILE contains the fixed string PATTERN.
expect() {
	if grep -qF -- "$2" "$3"; then
		pass=$((pass + 1))
	else
		echo "FAIL $1: no \`$2' in"; sed 's/^/  /' "$3"
		fail=$((fail + 1))
	fi
}
ok() { pass=$((pass + 1)); }

check init 0 ludus init && expect init "schema version 3" "$tmp/out" &&
	expect init-secret "created (mode 0600)" "$tmp/out"
[ "$(stat -c %a "$db")" = 600 ] && ok || { echo "FAIL db mode"; fail=$((fail + 1)); }
check games 0 ludus games && expect games "pits=3-8 (default 6)" "$tmp/out"
check usage 64 ludus && expect usage "usage: ludus" "$tmp/err"
check unknown-command 64 ludus frobnicate && expect unknown "no command" "$tmp/err"
check help 0 ludus move --help && expect help "ludus [-d DATABASE] move ID ADDRESS MOVE" "$tmp/out"
check new-bad-game 1 ludus new chess a@x.org b@x.org &&
	expect new-bad "no game called \`chess\`" "$tmp/err"
check new-bad-opt 1 ludus new mancala pits=99 a@x.org b@x.org &&
	expect new-bad-opt "pits must be a whole number 3-8, not \`99\`" "$tmp/err"
check new 0 ludus new mancala --seed 1 Alice@Example.org bob@example.org &&
	expect new "game #1: Mancala (Kalah) (pits=6 seeds=4 empty_capture=false)" "$tmp/out"
check moves 0 ludus moves 1 && [ "$(tr '\n' ' ' <"$tmp/out")" = "1 2 3 4 5 6 " ] && ok ||
	{ echo "FAIL moves: $(cat "$tmp/out")"; fail=$((fail + 1)); }
check moves-north 0 ludus moves 1 --as bob@example.org && [ ! -s "$tmp/out" ] && ok ||
	{ echo "FAIL moves-north not empty"; fail=$((fail + 1)); }
check move-wrong-turn 1 ludus move 1 bob@example.org 3 &&
	expect move-wrong-turn "it is South's turn, not North's" "$tmp/err"
check move-stranger 1 ludus move 1 eve@example.org 3 &&
	expect move-stranger "does not play game #1" "$tmp/err"
check move 0 ludus move 1 alice@example.org 3, 6 && expect move "2 moves played" "$tmp/out"
check move-empty-pit 1 ludus move 1 bob@example.org 9 &&
	expect move-bad "is not a pit" "$tmp/err"
check move-north 0 ludus move 1 BOB@example.org 1
check show 0 ludus show 1 --as bob@example.org &&
	expect show "Last move: bob@example.org (North) sowed pit 1." "$tmp/out" &&
	expect show "alice@example.org (South) to move." "$tmp/out"
check history 0 ludus history 1 && expect history "1. South (alice@example.org) 3" "$tmp/out" &&
	expect history "3. North (bob@example.org) 1" "$tmp/out"
check export 0 ludus export 1 && expect export '"moves":[{"ply":1,"seat":0,"move":"3"' "$tmp/out" &&
	expect export '"seed_sha256":"' "$tmp/out"
grep -q '"seed":' "$tmp/out" && { echo "FAIL export reveals the seed of a running game"; fail=$((fail + 1)); } || ok
check replay 0 ludus replay 1 && expect replay "3 moves replay to the stored state" "$tmp/out"
check list 0 ludus list && expect list "#1	mancala	active	moves 3	alice@example.org v bob@example.org	to move: alice@example.org" "$tmp/out"
check show-missing 1 ludus show 42 && expect show-missing "no game #42" "$tmp/err"
check show-junk 1 ludus show x1 && expect show-junk "not a game number" "$tmp/err"

# A tampered move log no longer replays to the stored state.
if command -v sqlite3 >/dev/null; then
	sqlite3 "$db" "UPDATE moves SET notation = '4' WHERE ply = 3" &&
	check replay-tampered 1 ludus replay 1 &&
	expect replay-tampered "does not replay to the stored state" "$tmp/err"
else
	echo "FAIL sqlite3 shell missing"; fail=$((fail + 1))
fi

# Play a whole game to its end through the tool.
check new2 0 ludus new kalah pits=3 seeds=1 --seed 2 a@x.org b@x.org
for i in $(seq 1 40); do
	m=$(ludus moves 2 | head -n 1)
	[ -n "$m" ] || break
	who=$(ludus list | awk -F'\t' '$1 == "#2" { sub("to move: ", "", $6); print $6 }')
	ludus move 2 "$who" "$m" >/dev/null || { echo "FAIL move $m by $who"; fail=$((fail + 1)); break; }
done
check finished 0 ludus list && expect finished "#2	mancala	finished" "$tmp/out"
check export-finished 0 ludus export 2 && expect export-finished '"seed":"' "$tmp/out"

check perft 0 ludus perft mancala 8 && expect perft "depth 8: 563055" "$tmp/out"
check perft-opts 0 ludus perft mancala 4 pits=4 seeds=3 && expect perft-opts "depth 4: 158" "$tmp/out"
check perft-bad 1 ludus perft mancala 3 colour=red && expect perft-bad "has no option \`colour\`" "$tmp/err"

check db-unwritable 1 "$LUDUS_BIN" -d /nonexistent/dir/x.db list && expect db "/nonexistent/dir/x.db" "$tmp/err"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
