#!/bin/sh
# Robots apart from the daemon's critical path: ludusd over a Maildir,
# ann against a level-3 Kalah robot with a 2 s budget.  ann's move waits for the
# robot's thinking (in a worker process) while bob's `help`, sent after
# it, is answered at once; ann's next mail is answered after her move;
# the robot moves once, and the move is applied once.  Real time (no
# $LUDUS_SEED): the robot thinks for its budget.
set -u
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
unset LUDUS_SEED LUDUS_NOW
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-apart.XXXXXX") || exit 99
dpid=""
trap '[ -n "$dpid" ] && kill -KILL $dpid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname "$0")/testlib.sh"
ms() { date +%s%3N; }

maildir_referee "$tmp" 2s
mail_tag=apart
# Not in a pipe: mail counts the Message-IDs in this shell.
mail ann@example.org hello "new kalah robot:3 first=me" >"$tmp/m"
ludus deliver <"$tmp/m" 2>/dev/null || bad "new"
tok=$(ludus token 1 0)
mail ann@example.org "Re: [ludus #1 $tok]" "accept" >"$tmp/m"
ludus deliver <"$tmp/m" 2>/dev/null || bad "accept"
ludus flush >/dev/null 2>&1 || bad flush
rm -f "$tmp/sent/"*
move=$(ludus moves 1 | head -n 1)
[ -n "$move" ] && ok || bad "no legal move for ann"
before=$(ludus history 1 | grep -c .)

"$LUDUSD_BIN" -f -c "$tmp/ludus.yaml" 2>"$tmp/d.log" &
dpid=$!
# Started, its signal handlers set (SIGUSR1 before them would kill it):
# waited for, as a loaded machine takes longer than any fixed pause.
i=0
until grep -q "started:" "$tmp/d.log" || [ $i -ge 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
t0=$(ms)
mail ann@example.org "Re: [ludus #1 $tok]" "$move" >"$tmp/Maildir/tmp/1"
mv "$tmp/Maildir/tmp/1" "$tmp/Maildir/new/1"
mail ann@example.org "Re: [ludus #1 $tok]" "board" >"$tmp/Maildir/tmp/2"
mv "$tmp/Maildir/tmp/2" "$tmp/Maildir/new/2"
kill -USR1 $dpid
sleep 0.2
mail bob@example.org help help >"$tmp/Maildir/tmp/3"
mv "$tmp/Maildir/tmp/3" "$tmp/Maildir/new/3"
kill -USR1 $dpid
# Wait for three answers: bob's help, ann's move, ann's board.
i=0
while [ "$(ls "$tmp/sent" | wc -l)" -lt 3 ] && [ $i -lt 150 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -TERM $dpid
wait $dpid && ok || bad "ludusd exit status: $(tail -n 5 "$tmp/d.log")"
dpid=""
ls "$tmp/sent" | sort -n >"$tmp/order"
[ "$(wc -l <"$tmp/order")" = 3 ] && ok ||
    bad "three answers, got: $(cat "$tmp/order"); $(tail -n 20 "$tmp/d.log")"
help_t=$(grep -m 1 'bob@' "$tmp/order" | cut -d. -f1)
move_t=$(grep -m 1 'ann@' "$tmp/order" | cut -d. -f1)
[ -n "$help_t" ] && [ -n "$move_t" ] || bad "answers to bob and ann: $(cat "$tmp/order")"
if [ -n "$help_t" ] && [ -n "$move_t" ]; then
	# The robot thinks for 2 s; help waits for none of it.
	[ $((help_t - t0)) -lt 1500 ] && ok ||
	    bad "help answered $((help_t - t0)) ms after ann's move"
	[ "$help_t" -lt "$move_t" ] && ok || bad "help answered after the robot"
	[ $((move_t - t0)) -ge 1500 ] && ok ||
	    bad "the robot answered in $((move_t - t0)) ms (budget 2 s)"
fi
# ann's answers in the order she wrote: the move's (with the robot's
# answer) before the board's.
first=$(grep -m 1 'ann@' "$tmp/order")
second=$(grep 'ann@' "$tmp/order" | sed -n 2p)
! grep -q "Subject:.*the board" "$tmp/sent/$first" && ok ||
    bad "ann's first answer is not her move's: $(grep -m1 Subject: "$tmp/sent/$first")"
[ -n "$second" ] && grep -q "Subject:.*the board" "$tmp/sent/$second" && ok ||
    bad "ann's second answer: $(grep -m1 Subject: "$tmp/sent/$second" 2>/dev/null)"
# ann's move and one robot move: applied once.
after=$(ludus history 1 | grep -c .)
[ "$after" -gt "$before" ] && ok || bad "no move recorded"
[ "$(ludus moves 1 --as ann@example.org | grep -c .)" -gt 0 ] && ok ||
    bad "ann is not to move after the robot"
grep -Eq "robot: game #1: [0-9]+ moves? thought" "$tmp/d.log" && ok ||
    bad "no worker's answer in the log: $(grep robot "$tmp/d.log")"
ludus replay 1 >/dev/null && ok || bad "game 1 does not replay"

echo "robots-apart: $pass passed, $fail failed"
[ $fail = 0 ]
