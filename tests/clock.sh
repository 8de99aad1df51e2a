#!/bin/sh
# The clocks of games with the fake clock ($LUDUS_NOW, test builds):
# deadlines in board mails, a move one second before and one second after
# the deadline, reminders of two games merged into one mail, downtime
# catch-up, vacations across a deadline and their allowance, a Fischer
# reserve running out, and a timeout that waits for the admins.
set -u
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
. "$(dirname "$0")/fakeclock.sh"
need_test_build clock

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-clock.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
T0=1800000000		# 2027-01-15 08:00 UTC
H=3600 D=86400

# setup [EXTRA-YAML]: a fresh referee in $tmp/NAME
setup() {
	dir=$tmp/$1
	mkdir -p "$dir"
	cat >"$dir/ludus.yaml" <<EOF
referee:
  address: referee@ludus.test
  admins: [admin@ludus.test]
state_dir: $dir
database: $dir/ludus.db
${2:-}
EOF
	export LUDUS_NOW=$T0 LUDUS_SEED=1
	ludus init >/dev/null || bad "init $1"
	nmsg=0 nloop=0
}
# mail FROM GAME BODY: a reply to the game's mails (GAME 0: none)
mail() {
	nmsg=$((nmsg + 1))
	if [ "$2" = 0 ]; then subj="hello"; else
		subj="Re: [ludus #$2 $(ludus token "$2" "$1")] the game"; fi
	printf 'From: %s\nTo: referee@ludus.test\nSubject: %s\nMessage-ID: <m%d.%s@test>\n\n%s\n' \
	    "$1" "$subj" "$nmsg" "$$" "$3" | ludus deliver 2>>"$dir/deliver.log"
}
# bounded: true for the first 60 calls since setup; a move refused would
# otherwise make a play-on loop run for ever
bounded() { nloop=$((nloop + 1)); [ "$nloop" -le 60 ] || { bad "a play-on loop did not end"; return 1; }; }
# the first legal move of a seat
first_move() { ludus moves "$1" --as "$2" | head -n 1; }
# subjects of the mails to ADDRESS written after row N
subjects() { ludus outbox --all | awk -v n="$1" -v to="To: $2" '
    /^=== mail [0-9]+ ===$/ { id = $3 + 0; next }
    id > n && $0 == to { want = 1; next }
    id > n && want && /^Subject: / { sub(/^Subject: /, ""); print; want = 0 }'; }
utc() { date -u -d "@$1" '+%Y-%m-%d %H:%M UTC'; }
# a mancala game between alice and bob, both accepted at T0
mancala() {
	mail alice@ludus.test 0 "new mancala ${1:-} bob@ludus.test"
	g=$(sql "SELECT max(id) FROM games")
	mail alice@ludus.test "$g" accept
	mail bob@ludus.test "$g" accept
}

# --- the deadline, a move one second before and one second after ---------
setup edge
mancala
[ "$(sql "SELECT deadline FROM games WHERE id = 1")" = $((T0 + D)) ] && ok ||
    bad "deadline $(sql "SELECT deadline FROM games WHERE id = 1"), want T0+1d"
ludus outbox --all | grep -q "^Deadline: $(utc $((T0 + D))) (1d 0h 0m left)" && ok ||
    bad "the game-start mail does not show the deadline"
at "T0 + D - 1"
mail alice@ludus.test 1 "$(first_move 1 alice@ludus.test)"
[ "$(sql "SELECT nmoves FROM games WHERE id = 1")" = 1 ] && ok || bad "move 1 s before the deadline refused"
# Mancala may give an extra turn; play on until it is bob's turn.
while [ -n "$(first_move 1 alice@ludus.test)" ] && bounded; do
	mail alice@ludus.test 1 "$(first_move 1 alice@ludus.test)"
done
t_bob=$LUDUS_NOW
[ "$(sql "SELECT deadline FROM games WHERE id = 1")" = $((t_bob + D)) ] && ok ||
    bad "bob's deadline is not a day after his turn began"
n=$(sql "SELECT nmoves FROM games WHERE id = 1")
before=$(lastmail)
at "t_bob + D + 1"
mail bob@ludus.test 1 "$(first_move 1 bob@ludus.test)"
[ "$(sql "SELECT nmoves FROM games WHERE id = 1")" = "$n" ] && ok || bad "a move 1 s after the deadline was played"
[ "$(sql "SELECT status || ' ' || ended FROM games WHERE id = 1")" = "finished timeout" ] && ok ||
    bad "not lost on time: $(sql "SELECT status, ended, result FROM games WHERE id = 1")"
subjects "$before" bob@ludus.test | grep -q "is over: North ran out of time" && ok ||
    bad "no end mail to bob: $(subjects "$before" bob@ludus.test)"
subjects "$before" bob@ludus.test | grep -q "Not done" && ok || bad "the late move got no answer"
[ "$(sql "SELECT count(*) FROM timers")" = 0 ] && ok || bad "timers left after the end"

# --- reminders: two games merged, once per share, downtime catch-up -------
setup remind
mancala
mancala first=bob@ludus.test
# game 2: bob moves first; after his turn both games wait on alice.
at "T0 + H"
while [ -n "$(first_move 2 bob@ludus.test)" ] && bounded; do
	mail bob@ludus.test 2 "$(first_move 2 bob@ludus.test)"
done
before=$(lastmail)
at "T0 + D / 2 + 60"	# past 50% of game 1's day, not yet of game 2's
ludus tick >/dev/null
r=$(subjects "$before" alice@ludus.test | grep -c "^Reminder")
[ "$r" = 1 ] && ok || bad "$r reminder mails at 50%, want 1"
ludus outbox --all | grep -q "^Subject: Reminder: games waiting for your move: 2$" && ok ||
    bad "the reminder does not list both games"
at "T0 + H + D / 2 + 60"	# game 2's 50%: already said
ludus tick >/dev/null
r=$(subjects "$before" alice@ludus.test | grep -c "^Reminder")
[ "$r" = 1 ] && ok || bad "game 2's 50% reminder sent again ($r mails)"
# Downtime: nothing runs until an hour after game 1's deadline.  Game 1's
# 10% reminder is stale and gives way to the timeout; game 2 (deadline
# an hour later) still gets its 10% reminder, once.
before=$(lastmail)
at "T0 + D + 30 * 60"
ludus tick >/dev/null
[ "$(sql "SELECT ended FROM games WHERE id = 1")" = timeout ] && ok || bad "no timeout after downtime"
r=$(subjects "$before" alice@ludus.test | grep -c "^Reminder")
[ "$r" = 1 ] && ok || bad "$r reminders after downtime, want 1 (game 2 only)"
subjects "$before" alice@ludus.test | grep -q "^Reminder: games waiting for your move: 1$" && ok ||
    bad "the catch-up reminder lists game 1 too: $(subjects "$before" alice@ludus.test)"
ludus tick | grep -q "^0 timers fired" && ok || bad "timers fired twice"

# --- vacations ----------------------------------------------------------------
setup vac
mancala
mancala
at "T0 + D - H"
before=$(lastmail)
mail alice@ludus.test 1 "vacation 3"
[ "$(sql "SELECT deadline FROM games WHERE id = 1")" = $((T0 + 4 * D)) ] && ok ||
    bad "vacation did not move the deadline by 3 days"
n=$(subjects "$before" bob@ludus.test | grep -c "on vacation until")
[ "$n" = 1 ] && ok || bad "bob told $n times of the vacation, want once"
at "T0 + D + H"
ludus tick >/dev/null
[ "$(sql "SELECT status FROM games WHERE id = 1")" = active ] && ok || bad "timeout during the vacation"
at "T0 + 2 * D"
mail alice@ludus.test 1 "vacation off"
# Paused from T0+1d-1h to T0+2d: the deadline moves by 1d+1h in all.
[ "$(sql "SELECT deadline FROM games WHERE id = 1")" = $((T0 + 2 * D + H)) ] && ok ||
    bad "vacation off: deadline $(( $(sql "SELECT deadline FROM games WHERE id = 1") - T0 ))"
[ "$(sql "SELECT vacation_used FROM players WHERE address = 'alice@ludus.test'")" = $((D + H)) ] && ok ||
    bad "vacation days used: $(sql "SELECT vacation_used FROM players WHERE address = 'alice@ludus.test'")"
mail alice@ludus.test 1 "vacation 29"
ludus outbox --all | tail -n 12 | grep -q "you have 28 vacation days left this year; 29 asked for" && ok ||
    bad "the allowance is not kept: $(ludus outbox --all | tail -n 6)"
mail alice@ludus.test 1 "vacation 28"
[ "$(sql "SELECT vacation_until FROM players WHERE address = 'alice@ludus.test'")" = $((T0 + 30 * D)) ] && ok ||
    bad "a vacation within the allowance refused"
# A turn that begins during a vacation starts its clock when it ends:
# game 2 is bob's to... alice is seat 0 and moves first; bob's turn comes
# when alice moves (moves by a player on vacation count).
at "T0 + 3 * D"
while [ -n "$(first_move 2 alice@ludus.test)" ] && bounded; do
	mail alice@ludus.test 2 "$(first_move 2 alice@ludus.test)"
done
[ "$(sql "SELECT deadline FROM games WHERE id = 2")" = $((T0 + 4 * D)) ] && ok ||
    bad "bob's deadline moved by alice's vacation"

# --- a Fischer reserve ----------------------------------------------------
setup fischer
mancala clock=1h+10m
[ "$(sql "SELECT reserve FROM seats WHERE game_id = 1 ORDER BY seat" | tr '\n' ' ')" = "3600 3600 " ] && ok ||
    bad "reserves at the start: $(sql "SELECT reserve FROM seats WHERE game_id = 1" | tr '\n' ' ')"
at "T0 + 30 * 60"
while [ -n "$(first_move 1 alice@ludus.test)" ] && bounded; do
	mail alice@ludus.test 1 "$(first_move 1 alice@ludus.test)"
done
# alice used 30 minutes of her hour and gained 10.
[ "$(sql "SELECT reserve FROM seats WHERE game_id = 1 AND seat = 0")" = 2400 ] && ok ||
    bad "alice's reserve $(sql "SELECT reserve FROM seats WHERE game_id = 1 AND seat = 0"), want 2400"
[ "$(sql "SELECT deadline FROM games WHERE id = 1")" = $((T0 + 30 * 60 + 3600)) ] && ok ||
    bad "bob's deadline is not his reserve away"
at "T0 + 30 * 60 + 50 * 60"
while [ -n "$(first_move 1 bob@ludus.test)" ] && bounded; do
	mail bob@ludus.test 1 "$(first_move 1 bob@ludus.test)"
done
[ "$(sql "SELECT reserve FROM seats WHERE game_id = 1 AND seat = 1")" = 1200 ] && ok ||
    bad "bob's reserve $(sql "SELECT reserve FROM seats WHERE game_id = 1 AND seat = 1"), want 1200"
t=$LUDUS_NOW
[ "$(sql "SELECT deadline FROM games WHERE id = 1")" = $((t + 2400)) ] && ok ||
    bad "alice's second deadline is not her reserve of 40 minutes away"
at "t + 2400 + 1"
ludus tick >/dev/null
# The result as stored: English first, then (after U+001D) the form each
# reader's language is made from.
[ "$(sql "SELECT ended || ': ' || substr(result, 1, instr(result || char(29), char(29)) - 1) FROM games WHERE id = 1")" = "timeout: South ran out of time" ] && ok ||
    bad "the reserve ran out without a forfeit: $(sql "SELECT status, result FROM games WHERE id = 1")"

# --- a timeout the admins decide ------------------------------------------
setup notify "clock:
  timeout_action: notify"
mancala
before=$(lastmail)
at "T0 + D + 5"
ludus tick >/dev/null
[ "$(sql "SELECT status || ' ' || ifnull(deadline, 0) FROM games WHERE id = 1")" = "active 0" ] && ok ||
    bad "notify: the game did not wait with its clock stopped"
subjects "$before" admin@ludus.test | grep -q "ran out of time" && ok || bad "the admins were not told"
subjects "$before" bob@ludus.test | grep -q "alice@ludus.test ran out of time" && ok || bad "the seats were not told"
mail admin@ludus.test 0 "admin extend #1 12"
cookie=$(sql "SELECT cookie FROM confirmations ORDER BY created DESC LIMIT 1")
mail admin@ludus.test 0 "confirm $cookie"
[ "$(sql "SELECT deadline FROM games WHERE id = 1")" = $((T0 + D + 5 + 12 * H)) ] && ok ||
    bad "admin extend did not restart the clock"
[ "$(sql "SELECT count(*) FROM timers WHERE game_id = 1 AND kind = 'timeout'")" = 1 ] && ok ||
    bad "no timeout timer after the extension"

echo "clock: $pass passed, $fail failed"
[ "$fail" = 0 ]
