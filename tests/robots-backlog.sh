#!/bin/sh
# Robots falling behind, as `ludus outbox` shows them: ludusd over a
# Maildir with three players' moves against level-3 Kalah robots (3 s
# budget) at once: while they think, `ludus outbox` counts three robot
# moves waiting, some thinking, the oldest's age and game; once they are
# answered the line is gone.  A delivery whose robot thinks shows as one
# move thinking; one killed while its robot thinks is not shown.  Real
# time (no $LUDUS_SEED): the robots think for their budget.
set -u
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
unset LUDUS_SEED LUDUS_NOW
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-backlog.XXXXXX") || exit 99
dpid="" bpid=""
trap '[ -n "$dpid" ] && kill -KILL $dpid 2>/dev/null; [ -n "$bpid" ] && kill -KILL $bpid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname "$0")/testlib.sh"

maildir_referee "$tmp" 3s
mail_tag=backlog
# Games 1-3: ann, bob and carol each against a level-3 robot.
g=0
for who in ann bob carol; do
	g=$((g + 1))
	mail $who@example.org hello "new kalah robot:3 first=me" >"$tmp/m"
	ludus deliver <"$tmp/m" 2>/dev/null || bad "new for $who"
	tok=$(ludus token $g 0)
	eval "tok$g=\$tok"
	mail $who@example.org "Re: [ludus #$g $tok]" "accept" >"$tmp/m"
	ludus deliver <"$tmp/m" 2>/dev/null || bad "accept for $who"
done
ludus flush >/dev/null 2>&1 || bad flush
rm -f "$tmp/sent/"*
ludus outbox >"$tmp/out" || bad "outbox"
! grep -q "robot move" "$tmp/out" && ok || bad "robots waiting before any move: $(cat "$tmp/out")"

"$LUDUSD_BIN" -f -c "$tmp/ludus.yaml" 2>"$tmp/d.log" &
dpid=$!
sleep 0.5
g=0
for who in ann bob carol; do
	g=$((g + 1))
	eval "tok=\$tok$g"
	move=$(ludus moves $g | head -n 1)
	mail $who@example.org "Re: [ludus #$g $tok]" "$move" >"$tmp/Maildir/tmp/$g"
	mv "$tmp/Maildir/tmp/$g" "$tmp/Maildir/new/$g"
done
kill -USR1 $dpid
# While they think (3 s a move): three waiting, the oldest's game named.
i=0 seen=""
while [ $i -lt 50 ]; do
	ludus outbox >"$tmp/out" 2>&1
	if grep -q "^3 robot moves waiting" "$tmp/out"; then
		seen=$(grep "robot moves waiting" "$tmp/out")
		break
	fi
	sleep 0.1
	i=$((i + 1))
done
[ -n "$seen" ] && ok || bad "three robot moves waiting, outbox said: $(cat "$tmp/out"); $(tail -n 5 "$tmp/d.log")"
echo "$seen" | grep -Eq '^3 robot moves waiting \(([1-3]) thinking, ([0-2]) for a worker\), the oldest for [0-9]+ s \(game #[1-3]\)$' &&
    ok || bad "the waiting line: $seen"
# Thinking and waiting for a worker add up to three.
t=$(echo "$seen" | sed -n 's/.*(\([0-9]*\) thinking, \([0-9]*\) for.*/\1 \2/p')
[ -n "$t" ] && [ $((${t% *} + ${t#* })) = 3 ] && ok || bad "thinking + waiting: $t"
# The ages grow while they think.
sleep 1.2
ludus outbox >"$tmp/out2" 2>&1
age=$(sed -n 's/.* the oldest for \([0-9]*\) s .*/\1/p' "$tmp/out2")
[ -n "$age" ] && [ "$age" -ge 1 ] && ok || bad "the oldest's age after a second: $(cat "$tmp/out2")"
# All three answered (each move's answer to its player): none waiting.
i=0
while [ "$(ls "$tmp/sent" | wc -l)" -lt 3 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.3
ludus outbox >"$tmp/out" 2>&1
[ "$(ls "$tmp/sent" | wc -l)" -ge 3 ] && ok || bad "answers: $(ls "$tmp/sent" | wc -l); $(tail -n 5 "$tmp/d.log")"
! grep -q "robot move" "$tmp/out" && ok || bad "still waiting after the answers: $(cat "$tmp/out")"
kill -TERM $dpid
wait $dpid && ok || bad "ludusd exit status: $(tail -n 5 "$tmp/d.log")"
dpid=""
grep -q "robot: game #1: [0-9]* moves\? thought" "$tmp/d.log" && ok ||
    bad "no worker's answer in the log"

# A delivery whose robot thinks: one move, thinking.
move=$(ludus moves 1 | head -n 1)
mail ann@example.org "Re: [ludus #1 $tok1]" "$move" >"$tmp/m"
ludus deliver <"$tmp/m" 2>/dev/null &
bpid=$!
i=0 seen=""
while [ $i -lt 25 ]; do
	ludus outbox >"$tmp/out" 2>&1
	if grep -q "robot move waiting" "$tmp/out"; then
		seen=$(grep "robot move waiting" "$tmp/out")
		break
	fi
	sleep 0.1
	i=$((i + 1))
done
echo "$seen" | grep -Eq '^1 robot move waiting \(1 thinking, 0 for a worker\), the oldest for [0-9]+ s \(game #1\)$' &&
    ok || bad "a delivery's robot: $seen"
wait $bpid && ok || bad "the delivery failed"
bpid=""
ludus outbox >"$tmp/out" 2>&1
! grep -q "robot move" "$tmp/out" && ok || bad "still waiting after the delivery: $(cat "$tmp/out")"

# A delivery killed while its robot thinks leaves a row nobody waits on.
move=$(ludus moves 2 | head -n 1)
mail bob@example.org "Re: [ludus #2 $tok2]" "$move" >"$tmp/m"
# Not the shell function: $! is then the delivery itself.
"$LUDUS_BIN" -c "$tmp/ludus.yaml" deliver <"$tmp/m" 2>/dev/null &
bpid=$!
i=0
while ! ludus outbox 2>&1 | grep -q "robot move waiting" && [ $i -lt 25 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ $i -lt 25 ] && ok || bad "the second delivery's robot never showed"
kill -KILL $bpid
wait $bpid 2>/dev/null
bpid=""
ludus outbox >"$tmp/out" 2>&1
! grep -q "robot move" "$tmp/out" && ok || bad "a killed delivery still shown: $(cat "$tmp/out")"

echo "robots-backlog: $pass passed, $fail failed"
[ $fail = 0 ]
