#!/bin/sh
# Robots seated by mail: a whole game of each of the five games played
# through `ludus deliver` by alice against the referee's robots (every
# level), Aluette with three robots at her table.  Each game must end,
# replay from its log, and no mail may go to a robot.  A test build with
# $LUDUS_SEED counts the robots' budget in nodes, so this is reproducible.
set -u
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
. "$(dirname "$0")/fakeclock.sh"
need_test_build robots

dir=$(mktemp -d "${TMPDIR:-/tmp}/ludus-robots.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
cat >"$dir/ludus.yaml" <<EOF
referee:
  address: referee@ludus.test
state_dir: $dir
database: $dir/ludus.db
EOF
export LUDUS_NOW=1800000000 LUDUS_SEED=3
ludus init >/dev/null || bad init
nmsg=0
mail() { # BODY [GAME]
	nmsg=$((nmsg + 1))
	if [ -n "${2:-}" ]; then subj="Re: [ludus #$2 $tok] x"
	else subj=hello; fi
	printf 'From: alice@ludus.test\nTo: referee@ludus.test\nSubject: %s\nMessage-ID: <r%d@test>\n\n%s\n' \
	    "$subj" "$nmsg" "$1" | ludus deliver 2>>"$dir/deliver.log"
}

# play NAME "new ..." MAXMOVES: alice proposes, accepts, and plays her first
# legal move whenever it is her turn until the game ends.
play() {
	name=$1
	mail "$2"
	g=$(sql "SELECT max(id) FROM games")
	tok=$(ludus token "$g" alice@ludus.test)
	mail accept "$g"
	i=0
	# The robots answer within each delivery, so alice always has a
	# move until the game is over.
	while [ $i -lt "$3" ]; do
		m=$(ludus moves "$g" --as alice@ludus.test | head -n 1)
		[ -n "$m" ] || break
		mail "$m" "$g"
		i=$((i + 1))
	done
	[ "$(sql "SELECT status FROM games WHERE id = $g")" = finished ] && ok ||
	    bad "$name: not over after $i moves of alice: $(sql "SELECT status, nmoves FROM games WHERE id = $g")"
	robots=$(sql "SELECT count(*) FROM moves m JOIN seats s ON s.game_id = m.game_id AND s.seat = m.seat
	    JOIN players p ON p.id = s.player_id WHERE m.game_id = $g AND p.address LIKE 'robot.%@ludus.invalid'")
	[ "$robots" -gt 0 ] && ok || bad "$name: the robots made no move"
	ludus replay "$g" >/dev/null 2>&1 && ok || bad "$name: does not replay"
	echo "robots: $name over after $(sql "SELECT nmoves FROM games WHERE id = $g") moves ($robots by robots): $(sql "SELECT result FROM games WHERE id = $g")"
}

play mancala-1 "new mancala robot:1" 60
play mancala-3 "new kalah pits=4 robot:3 first=random" 60
play alquerque-2 "new alquerque robot:2 quiet_limit=16" 300
play almakleh-3 "new almakleh robot:3" 200
play spite-3 "new spite payoff=2 hand=3 target=2 robot:3" 400
play aluette "new aluette robot:2 robot:1 robot:2" 200

[ "$(sql "SELECT count(*) FROM outbox WHERE recipients LIKE '%ludus.invalid%'")" = 0 ] && ok ||
    bad "mail went to a robot"
[ "$(sql "SELECT count(*) FROM outbox WHERE recipients = 'alice@ludus.test'")" -gt 12 ] && ok ||
    bad "alice got too few mails"
# A draw offered to a robot that is not lost is refused by its moves.
mail "new mancala robot:3"
g=$(sql "SELECT max(id) FROM games")
tok=$(ludus token "$g" alice@ludus.test)
mail accept "$g"
mail draw "$g"
[ "$(sql "SELECT status FROM games WHERE id = $g")" = active ] && ok || bad "a robot took a draw in an even position"
mail "help robots"
ludus outbox --all | grep -q "^Robots play any of the games against you by mail" && ok || bad "help robots"

echo "robots: $pass passed, $fail failed"
[ "$fail" = 0 ]
