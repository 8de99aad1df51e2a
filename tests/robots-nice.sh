#!/bin/sh
# A robot thinks at the referee's priority while no other message waits,
# and steps back while one does: ludusd over a Maildir, ann against a
# level-3 Kalah robot with a 3 s budget.  Alone, the robot's worker runs
# at the daemon's nice value; bob's mail taken in while it thinks sends
# it to nice 10, and with nothing left to read it comes back (root may
# lower a nice value again).  A level-1 robot, which does not search,
# chooses at once in the daemon, without a worker.
set -u
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
unset LUDUS_SEED LUDUS_NOW
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-nice.XXXXXX") || exit 99
dpid=""
trap '[ -n "$dpid" ] && kill -KILL $dpid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname "$0")/testlib.sh"
ms() { date +%s%3N; }
wait_for() { # SECONDS CMD...
	_end=$(($(ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(ms)" -lt $_end ] || return 1
		sleep 0.02
	done
}

maildir_referee "$tmp" 3s
sed -i 's/^  level: info$/  level: debug/' "$tmp/ludus.yaml"
mail_tag=nice
mail ann@example.org hello "new kalah robot:3 first=me" >"$tmp/m"
ludus deliver <"$tmp/m" 2>/dev/null || bad "new"
tok=$(ludus token 1 0)
mail ann@example.org "Re: [ludus #1 $tok]" "accept" >"$tmp/m"
ludus deliver <"$tmp/m" 2>/dev/null || bad "accept"
ludus flush >/dev/null 2>&1 || bad flush
rm -f "$tmp/sent/"*
move=$(ludus moves 1 | head -n 1)

"$LUDUSD_BIN" -f -c "$tmp/ludus.yaml" 2>"$tmp/d.log" &
dpid=$!
started() { grep -q "started:" "$tmp/d.log"; }
wait_for 30 started || bad "ludusd did not start"
mail ann@example.org "Re: [ludus #1 $tok]" "$move" >"$tmp/Maildir/tmp/1"
mv "$tmp/Maildir/tmp/1" "$tmp/Maildir/new/1"
worker() { pgrep -P $dpid | head -n 1; }
thinking() { [ -n "$(worker)" ]; }
wait_for 20 thinking || bad "no robot worker: $(tail -n 5 "$tmp/d.log")"
w=$(worker)
nice0=$(ps -o ni= -p $w 2>/dev/null | tr -d ' ')
mine=$(ps -o ni= -p $dpid | tr -d ' ')
[ -n "$nice0" ] && [ "$nice0" = "$mine" ] && ok ||
    bad "alone, the robot thinks at nice '$nice0', the daemon at $mine"
mail bob@example.org help help >"$tmp/Maildir/tmp/2"
mv "$tmp/Maildir/tmp/2" "$tmp/Maildir/new/2"
back() { grep -q "worker $w at nice 10 (a message waits)" "$tmp/d.log"; }
wait_for 20 back && ok || bad "bob's mail did not send the robot back: $(grep robot: "$tmp/d.log")"
up() { grep -q "worker $w at nice 0 (no message waits)" "$tmp/d.log"; }
if [ "$(id -u)" = 0 ]; then
	wait_for 20 up && ok || bad "the robot did not come back: $(grep robot: "$tmp/d.log")"
fi
answered() { [ "$(ls "$tmp/sent" | wc -l)" -ge 2 ]; }
wait_for 30 answered && ok || bad "answers: $(ls "$tmp/sent")"

# A robot that does not search (level 1) chooses at once in the daemon:
# no worker to wait for, and carol's move is answered with the robot's.
mail carol@example.org hello "new kalah robot:1 first=me" >"$tmp/m"
ludus deliver <"$tmp/m" 2>/dev/null || bad "new level 1"
tok2=$(ludus token 2 0)
mail carol@example.org "Re: [ludus #2 $tok2]" "accept" >"$tmp/m"
ludus deliver <"$tmp/m" 2>/dev/null || bad "accept level 1"
move2=$(ludus moves 2 | head -n 1)
mail carol@example.org "Re: [ludus #2 $tok2]" "$move2" >"$tmp/Maildir/tmp/3"
mv "$tmp/Maildir/tmp/3" "$tmp/Maildir/new/3"
kill -USR1 $dpid
inline() { grep -q "robot: game #2: [0-9]* moves\{0,1\} chosen at once" "$tmp/d.log"; }
wait_for 30 inline && ok || bad "level 1 not chosen at once: $(grep 'game #2' "$tmp/d.log")"
grep -q "game #2: .* thought (budget" "$tmp/d.log" && bad "a worker thought for level 1"
applied() { grep -q "from carol@example.org, game #2: 1 applied" "$tmp/d.log"; }
wait_for 30 applied && ok || bad "carol's move not applied: $(grep carol "$tmp/d.log")"
kill -TERM $dpid
wait $dpid && ok || bad "ludusd exit status: $(tail -n 5 "$tmp/d.log")"
dpid=""
echo "robots-nice: $pass passed, $fail failed"
[ $fail = 0 ]
