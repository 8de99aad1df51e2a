#!/bin/sh
# Conditional moves stay secret: the same game played twice, once with
# ann queueing conditional lines (cleared by a move none expected, then
# queued again) and once without, must give ben byte-identical mails, his
# own commands (board, history, list, conditions) included, until one of
# ann's replies is played; then ben's mail says so, and only in the game
# with the queue.  The log with the reply played for ann replays exactly.
# Runs the referee as tests/golden.sh does (tests/goldenlib.sh).
set -u
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}" "${LUDUS_SRCDIR:?}"
export LUDUS_GAMES_DIR
. "$LUDUS_SRCDIR/tests/goldenlib.sh"
if ! golden_test_build; then
	echo "conditional: not a test build (configure --enable-test-clock)"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-conditional.XXXXXX") || exit 99
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail=0

# mail CASE NN FROM SEAT LINE...: a reply to game #1 from FROM's seat.
mail() {
	_c=$1 _n=$2 _w=$3 _s=$4
	shift 4
	{
		printf 'From: %s@example.org\nTo: referee@example.org\n' "$_w"
		printf 'Subject: Re: [ludus #1 @TOKEN(1,%s)@]\n' "$_s"
		printf 'Message-ID: <conditional.%s@example.org>\n' "$_n"
		printf 'Date: Fri, 01 Jan 2027 00:%s:00 +0000\n' "$_n"
		printf 'Content-Type: text/plain; charset=utf-8\n\n'
		printf '%s\n' "$@"
	} >"$tmp/$_c/$_n-mail.eml"
}

# make CASE QUEUE(0|1) FIRE(0|1): the case's directory.
make_case() {
	mkdir -p "$tmp/$1"
	echo "new kalah pits=3 seeds=2 ann@example.org ben@example.org" \
	    >"$tmp/$1/setup"
	if [ "$2" = 1 ]; then
		mail "$1" 01 ann 0 1 "if 1 then 3 if 2 then 2" "if 2, 1 then 3"
		mail "$1" 05 ann 0 "if 1, 2 then 1" "if 1, 3, 2 then 1"
	else
		mail "$1" 01 ann 0 1
		mail "$1" 05 ann 0 conditions
	fi
	mail "$1" 02 ben 1 board history list
	mail "$1" 03 ben 1 3
	mail "$1" 04 ann 0 2
	mail "$1" 06 ben 1 board history
	mail "$1" 07 ben 1 conditions
	if [ "$3" = 1 ]; then
		mail "$1" 08 ben 1 "1, 2"
	fi
}

# run CASE: the referee's mails, decoded, into $tmp/CASE.out.
run() {
	mkdir -p "$tmp/$1.work"
	golden_replay "$tmp/$1.work" "$tmp/$1" &&
	    golden_dump "$tmp/$1.work" "$tmp/$1.out" || {
		echo "FAIL $1: the referee failed"
		cat "$tmp/$1.work/log"
		return 1
	}
}

# to WHO CASE: the mails to WHO, without the numbers of the dump (which
# count everyone's mails).
to() {
	awk -v who="To: $1@example.org" '
	    /^=== mail [0-9]+ ===$/ { keep = 0; head = 1; next }
	    head { keep = $0 == who; head = 0 }
	    keep' "$tmp/$2.out"
}

check() {
	if eval "$2"; then
		echo "ok $1"
	else
		echo "FAIL $1"
		fail=1
	fi
}

make_case queued 1 0
make_case plain 0 0
make_case queued-fires 1 1
make_case plain-fires 0 1
for c in queued plain queued-fires plain-fires; do
	run "$c" || exit 1
done

to ben queued >"$tmp/ben.queued"
to ben plain >"$tmp/ben.plain"
check "ann's queue reached her" \
    'grep -q "queued in game #1: 2 conditional lines" "$tmp/queued.out"'
check "a move none expected cleared it, and ann was told" \
    'grep -q "Your conditional moves are cleared" "$tmp/queued.out"'
check "ben's mails are the same with and without ann's queue" \
    'cmp -s "$tmp/ben.queued" "$tmp/ben.plain"'
check "ben's mails are not empty" '[ -s "$tmp/ben.plain" ]'
[ "$fail" = 0 ] || diff "$tmp/ben.plain" "$tmp/ben.queued" | head -40

# The firing mail: ben's mails up to it are still the same; the last one
# says a conditional reply was played, in the game with the queue alone.
to ben queued-fires >"$tmp/ben.qf"
to ben plain-fires >"$tmp/ben.pf"
check "ben's mails before the reply are the same" \
    'head -n "$(wc -l <"$tmp/ben.queued")" "$tmp/ben.qf" | cmp -s - \
    "$tmp/ben.queued"'
check "ben is told of the conditional reply" \
    'grep -q "It was ann.s conditional move, played at once in answer to 1, 2" \
    "$tmp/ben.qf"'
check "without a queue nothing is played for ann" \
    '! grep -q "conditional move, played at once" "$tmp/ben.pf"'
check "ann is told her reply was played" \
    'grep -q "That was your conditional move" "$tmp/queued-fires.out"'
check "the log with the reply replays to the stored state" \
    'golden_ludus "$tmp/queued-fires.work" replay 1 >/dev/null'
last_move() {
	golden_ludus "$tmp/queued-fires.work" history 1 2>/dev/null | tail -n 1
}
check "the reply is in the log as ann's move" \
    'last_move | grep -q "^6\. South (ann@example.org) 1 "'
exit "$fail"
