#!/bin/sh
# Ratings and ladders by mail, with the fake clock ($LUDUS_NOW, test
# builds): the rating change in the end mail and in `list` (the numbers
# from an independent Glicko-2 computation, see below), unrated and
# aborted games, Aluette players rated one by one; ladder moves for each
# rule; the club list postings (no tokens, no hidden cards, no answer to
# the list's copy); and a season of 200 ladder games whose standings are
# checked against a model of the rules kept here.
set -u
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}"
# What it writes is tested, not how it uses memory: the build without
# sanitizers when there is one (contrib/bootstrap test makes it).
LUDUS_BIN=${LUDUS_PLAIN_BIN:-$LUDUS_BIN}
export LUDUS_GAMES_DIR
. "$(dirname "$0")/fakeclock.sh"
need_test_build ladder

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-ladder.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
T0=1800000000		# 2027-01-15 08:00 UTC
H=3600 D=86400
LIST=club@lists.ludus.test

# setup NAME [EXTRA-YAML]: a fresh referee in $tmp/NAME.  Mail carries a trusted DMARC
# pass, so game commands need no token and admin commands run at once
# (the token and confirmation paths have their own tests).
setup() {
	dir=$tmp/$1
	mkdir -p "$dir"
	cat >"$dir/ludus.yaml" <<EOF
referee:
  address: referee@ludus.test
  admins: [admin@ludus.test]
auth:
  trust_authserv_id: mx.ludus.test
admin:
  auto_accept: true
club:
  lists: [$LIST]
${2:-}
state_dir: $dir
database: $dir/ludus.db
EOF
	export LUDUS_NOW=$T0 LUDUS_SEED=1
	ludus init >/dev/null || bad "init $1"
	nmsg=0
}
# mail FROM BODY: a mail with a DMARC pass for FROM's domain
mail() {
	nmsg=$((nmsg + 1))
	printf 'From: %s\nTo: referee@ludus.test\nSubject: hello\nMessage-ID: <m%d.%s@test>\nAuthentication-Results: mx.ludus.test; dmarc=pass header.from=%s\n\n%s\n' \
	    "$1" "$nmsg" "$$" "${1#*@}" "$2" | ludus deliver 2>>"$dir/deliver.log"
}
# the bodies and headers of the mails to ADDRESS written after row N
mails_to() { ludus outbox --all | awk -v n="$1" -v to="To: $2" '
    /^=== mail [0-9]+ ===$/ { id = $3 + 0; want = 0; next }
    id > n && $0 == to { want = 1 }
    want { print }'; }
lastgame() { sql "SELECT max(id) FROM games"; }
# the standings of LADDER as `ladder LADDER` mails them: one name a line
standings() {
	n0=$(lastmail)
	mail "$2" "ladder $1"
	mails_to "$n0" "$2" | sed -n 's/^  [0-9]*\. \(.*\)  (.*)$/\1/p'
}
rungs() { sql "SELECT group_concat(a, ' ') FROM (SELECT p.address AS a FROM rungs r JOIN players p ON p.id = r.player_id JOIN ladders l ON l.id = r.ladder_id WHERE l.name = '$1' ORDER BY r.position)" | sed 's/@x\.test//g'; }

# --- ratings ----------------------------------------------------------
# Expected values: Glicko-2 as in Glickman's paper (tau 0.5) with the
# deviation before the game capped at 350, computed outside ludus (a
# Python transcription of the paper's steps): two new players, one game:
# 1662.21 and 1337.79, RD 290.23 each (shown as twice the RD, 580); a draw
# leaves both at 1500.  Aluette, the second game with the partnerships
# swapped, against the other side's composite (mean 1500, RD 290.23):
# 1662.21 winning gives 1751.64, 1337.79 winning 1515.51, 1662.21 losing
# 1484.49, 1337.79 losing 1248.36.
setup rate
mail alice@x.test "new mancala bob@x.test"
mail alice@x.test "accept #1"
mail bob@x.test "accept #1"
n0=$(lastmail)
mail alice@x.test "resign #1"
mails_to "$n0" bob@x.test | grep -q '^  bob@x.test: 1500 -> 1662 (+162)$' && ok ||
    bad "the end mail does not show bob's change: $(mails_to "$n0" bob@x.test | grep -A3 Rating)"
mails_to "$n0" alice@x.test | grep -q '^  alice@x.test: 1500 -> 1338 (-162)$' && ok ||
    bad "the end mail does not show alice's change"
[ "$(sql "SELECT count(*) FROM ratings WHERE kind = 'mancala' AND games = 1")" = 2 ] && ok ||
    bad "ratings rows: $(sql 'SELECT * FROM ratings')"
n0=$(lastmail)
mail bob@x.test list
mails_to "$n0" bob@x.test | grep -q '^  Mancala (Kalah): 1662 ±580 after 1 rated games' && ok ||
    bad "list shows no rating: $(mails_to "$n0" bob@x.test | tail -n 3)"
# The deviation grows with inactivity: 30 idle weeks later the RD shown
# is larger (the same value, decayed, is never stored back).
at "T0 + 210 * D"
n0=$(lastmail)
mail bob@x.test list
rd=$(mails_to "$n0" bob@x.test | sed -n 's/^  Mancala (Kalah): 1662 ±\([0-9]*\) after.*/\1/p')
[ -n "$rd" ] && [ "$rd" -gt 580 ] && ok || bad "RD did not grow with inactivity: '$rd'"
[ "$(sql "SELECT round(rd, 2) FROM ratings WHERE player_id = (SELECT id FROM players WHERE address = 'bob@x.test')")" = 290.23 ] && ok ||
    bad "the decayed RD was stored back"
# The public pages show the rating as the mails do, decayed.
ludus site "$dir/www" >/dev/null 2>&1 || bad "ludus site failed"
grep -rqs "1662 ±$rd<" "$dir/www" && ok ||
    bad "the site shows no 1662 ±$rd: $(grep -rho '1662 ±[0-9]*' "$dir/www" | sort -u)"
at T0
# Unrated and aborted games move nothing; an agreed draw is rated.
mail alice@x.test "new mancala rated=no bob@x.test"
g=$(lastgame)
mail alice@x.test "accept #$g"
mail bob@x.test "accept #$g"
n0=$(lastmail)
mail alice@x.test "resign #$g"
mails_to "$n0" bob@x.test | grep -q 'Rating changes' && bad "an unrated game shows ratings" || ok
mail admin@ludus.test "admin new mancala alice@x.test bob@x.test"
g=$(lastgame)
mail admin@ludus.test "admin abort #$g"
[ "$(sql "SELECT sum(games) FROM ratings")" = 2 ] && ok || bad "unrated or aborted games were rated"
mail admin@ludus.test "admin new mancala carol@x.test dave@x.test"
g=$(lastgame)
mail carol@x.test "draw #$g"
n0=$(lastmail)
mail dave@x.test "draw #$g"
mails_to "$n0" carol@x.test | grep -q '^  carol@x.test: 1500 -> 1500 (+0)$' && ok ||
    bad "an agreed draw is not rated: $(mails_to "$n0" carol@x.test | grep -A3 Rating)"
# Aluette: partners win and lose together, but each rating moves on its
# own.  Game 1: alice & carol (seats 1 and 3) beat bob & dave; game 2:
# alice & bob beat carol & dave.
mail admin@ludus.test "admin new aluette teams=fixed first=alice@x.test alice@x.test bob@x.test carol@x.test dave@x.test"
g=$(lastgame)
mail bob@x.test "resign #$g"
mail admin@ludus.test "admin new aluette teams=fixed first=alice@x.test alice@x.test carol@x.test bob@x.test dave@x.test"
g=$(lastgame)
n0=$(lastmail)
mail dave@x.test "resign #$g"
for want in "alice@x.test: 1662 -> 1752 (+90)" "bob@x.test: 1338 -> 1516 (+178)" \
    "carol@x.test: 1662 -> 1484 (-178)" "dave@x.test: 1338 -> 1248 (-90)"; do
	mails_to "$n0" alice@x.test | grep -qF "  $want" && ok ||
	    bad "aluette: no '$want' in $(mails_to "$n0" alice@x.test | grep -A5 Rating)"
done

# --- ladder rules --------------------------------------------------------
setup rules
mail admin@ludus.test "admin ladder create kalah mancala seeds=3 clock=2d reach=2 cap=1 cooldown=5d idle=10d list=$LIST"
[ "$(sql "SELECT options || '|' || clock || '|' || reach || '|' || open_cap || '|' || cooldown || '|' || idle FROM ladders")" = "pits=6 seeds=3 empty_capture=false|2d|2|1|432000|864000" ] && ok ||
    bad "ladder settings: $(sql 'SELECT * FROM ladders')"
for p in a b c d e; do mail $p@x.test "ladder join kalah"; done
[ "$(rungs kalah)" = "a b c d e" ] && ok || bad "join order: $(rungs kalah)"
n0=$(lastmail)
mail a@x.test "ladder join kalah"
mails_to "$n0" a@x.test | grep -q "already on ladder kalah" && ok || bad "joined twice"
# Reach: e (5th) may challenge c (3rd) but not b (2nd); nobody challenges
# downwards.
n0=$(lastmail)
mail e@x.test "challenge b@x.test"
mails_to "$n0" e@x.test | grep -q "3 places above you on ladder kalah; you may challenge up to 2" && ok ||
    bad "reach not enforced: $(mails_to "$n0" e@x.test | tail -n 5)"
n0=$(lastmail)
mail b@x.test "challenge e@x.test kalah"
mails_to "$n0" b@x.test | grep -q "challenge upwards" && ok || bad "a downward challenge was taken"
# The game takes the ladder's variant and clock; the invitation lasts
# the acceptance time.
mail e@x.test "challenge c@x.test"
g=$(lastgame)
[ "$(sql "SELECT options || '|' || clock || '|' || rated || '|' || (expires - $T0) FROM games WHERE id = $g")" = "pits=6 seeds=3 empty_capture=false|2d|1|$((3 * D))" ] && ok ||
    bad "challenge game: $(sql "SELECT options, clock, rated, expires FROM games WHERE id = $g")"
# The open-challenge cap (1 here) holds for both sides.
n0=$(lastmail)
mail e@x.test "challenge d@x.test"
mails_to "$n0" e@x.test | grep -q "you have 1 open challenge on ladder kalah, the most allowed" && ok ||
    bad "cap not enforced for the challenger"
n0=$(lastmail)
mail d@x.test "challenge c@x.test"
mails_to "$n0" d@x.test | grep -q "c@x.test has 1 open challenges on ladder kalah" && ok ||
    bad "cap not enforced for the challenged"
# The challenger wins: e takes c's place, c and d move down one.
n0=$(lastmail)
mail c@x.test "accept #$g"
mail c@x.test "resign #$g"
[ "$(rungs kalah)" = "a b e c d" ] && ok || bad "after a win: $(rungs kalah)"
post=$(mails_to "$n0" "$LIST")
echo "$post" | grep -q "^Subject: \[ludus #$g\] Ladder kalah: e@x.test beat c@x.test$" && ok ||
    bad "result posting subject: $(echo "$post" | grep Subject)"
echo "$post" | grep -q "e@x.test takes place 3; c@x.test moves down to place 4" && ok ||
    bad "result posting: $post"
# A rematch within the cool-down is refused, after it allowed.
at "T0 + D"
n0=$(lastmail)
mail c@x.test "challenge e@x.test"
mails_to "$n0" c@x.test | grep -q "a rematch must wait" && ok || bad "rematch cool-down not enforced"
# A loss and a draw by the challenger change nothing.
mail d@x.test "challenge c@x.test"
g=$(lastgame)
mail c@x.test "accept #$g"
mail d@x.test "resign #$g"
[ "$(rungs kalah)" = "a b e c d" ] && ok || bad "after a loss: $(rungs kalah)"
mail e@x.test "challenge a@x.test"
g=$(lastgame)
mail a@x.test "accept #$g"
mail a@x.test "draw #$g"
mail e@x.test "draw #$g"
[ "$(rungs kalah)" = "a b e c d" ] && ok || bad "after a draw: $(rungs kalah)"
[ "$(sql "SELECT group_concat(status, ' ') FROM (SELECT status FROM challenges ORDER BY id)")" = "won lost drawn" ] && ok ||
    bad "challenge statuses: $(sql 'SELECT status FROM challenges')"
# A declined challenge and an ignored one are forfeits for the challenged.
at "T0 + 6 * D"
mail c@x.test "challenge e@x.test"
g=$(lastgame)
mail e@x.test "decline #$g"
[ "$(rungs kalah)" = "a b c e d" ] && ok || bad "after a decline: $(rungs kalah)"
mail d@x.test "challenge e@x.test"
at "T0 + 9 * D + 1"
ludus tick >/dev/null
[ "$(rungs kalah)" = "a b c d e" ] && ok || bad "after an ignored challenge: $(rungs kalah)"
[ "$(sql "SELECT count(*) FROM challenges WHERE status = 'forfeit'")" = 2 ] && ok ||
    bad "forfeits: $(sql 'SELECT status FROM challenges')"
# Inactivity: a rung idle for 10 days drops one place at the weekly
# round.  At T0+14d a has played nothing since T0+1d (13 days), b since
# T0 (14 days), c since T0+6d, d since T0+9d (its challenge lapsed); e is
# at the bottom.
# Each of a and b drops one place: c a b d e.
at "T0 + 14 * D"
n0=$(lastmail)
ludus tick >/dev/null
[ "$(rungs kalah)" = "c a b d e" ] && ok || bad "idle drop-down: $(rungs kalah)"
post=$(mails_to "$n0" "$LIST")
echo "$post" | grep -q "^Subject: Ladder kalah: the week's standings$" && ok ||
    bad "no weekly standings posting: $post"
echo "$post" | grep -q "dropped one place for playing no game for too long: 2" && ok ||
    bad "the weekly posting does not count the drops"
# Leaving; the admins adjust, remove and close.
mail e@x.test "ladder leave kalah"
[ "$(rungs kalah)" = "c a b d" ] && ok || bad "leave: $(rungs kalah)"
mail admin@ludus.test "admin ladder adjust kalah d@x.test 1"
[ "$(rungs kalah)" = "d c a b" ] && ok || bad "adjust: $(rungs kalah)"
mail admin@ludus.test "admin ladder remove-player kalah b@x.test"
[ "$(rungs kalah)" = "d c a" ] && ok || bad "remove: $(rungs kalah)"
mail admin@ludus.test "admin ladder close kalah"
n0=$(lastmail)
mail c@x.test "challenge a@x.test kalah"
mails_to "$n0" c@x.test | grep -q "ladder kalah is closed" && ok || bad "a closed ladder took a challenge"

# --- partnerships and the club list ---------------------------------------
# The club's ladder defaults apply where the admin says nothing.
# Ladders of the configuration open by themselves (a bad line is logged
# and stops nothing).
setup pairs "ladder:
  reach: 1
  accept: 2d
  idle: 0
  create: ['club mancala seeds=5', 'broken nosuchgame']"
mail admin@ludus.test "admin ladder create duo aluette list=$LIST"
[ "$(sql "SELECT name || ' ' || kind || ' ' || reach || ' ' || options FROM ladders WHERE name = 'club'")" = "club mancala 1 pits=6 seeds=5 empty_capture=false" ] && ok ||
    bad "configured ladder: $(sql 'SELECT * FROM ladders')"
grep -q "ladder.create \`broken nosuchgame\`: there is no game \`nosuchgame\`" "$dir/deliver.log" && ok ||
    bad "a bad configured ladder is not logged: $(tail -n 3 "$dir/deliver.log")"
[ "$(sql "SELECT pairs || ' ' || options FROM ladders WHERE name = 'duo'")" = "1 teams=fixed changer=false mordienne=false signals=partner" ] && ok ||
    bad "pairs ladder: $(sql 'SELECT pairs, options FROM ladders')"
[ "$(sql "SELECT reach || ' ' || accept || ' ' || open_cap || ' ' || cooldown || ' ' || idle FROM ladders WHERE name = 'duo'")" = "1 172800 2 604800 0" ] && ok ||
    bad "ladder defaults from the configuration: $(sql 'SELECT * FROM ladders')"
n0=$(lastmail)
mail a@x.test "ladder join duo"
mails_to "$n0" a@x.test | grep -q "ranks partnerships" && ok || bad "a single joined a pairs ladder"
mail a@x.test "ladder join duo with b@x.test"
mail c@x.test "ladder join duo with d@x.test"
n0=$(lastmail)
mail b@x.test "ladder join duo with e@x.test"
mails_to "$n0" b@x.test | grep -q "already on ladder duo" && ok || bad "one player on two rungs"
mail d@x.test "challenge b@x.test"
g=$(lastgame)
# seats: the challenger, the challenged, their partners; 1st and 3rd
# against 2nd and 4th
[ "$(sql "SELECT group_concat(p.address, ' ') FROM seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = $g ORDER BY s.seat")" = "d@x.test b@x.test c@x.test a@x.test" ] && ok ||
    bad "pair seats: $(sql "SELECT seat, player_id FROM seats WHERE game_id = $g")"
for p in b c a; do mail $p@x.test "accept #$g"; done
[ "$(sql "SELECT status FROM games WHERE id = $g")" = active ] && ok || bad "pair game not active"
# A few moves so hands are dealt and played, then the challenged resign.
i=0
while [ $i -lt 2 ]; do
	for p in a b c d; do
		mv=$(ludus moves "$g" --as $p@x.test 2>/dev/null | head -n 1)
		[ -n "$mv" ] && mail $p@x.test "move #$g $mv"
	done
	i=$((i + 1))
done
n0=$(lastmail)
mail a@x.test "resign #$g"
[ "$(rungs duo)" = "c a" ] && ok || bad "pairs after the challenger's win: $(rungs duo)"
post=$(mails_to "$n0" "$LIST")
echo "$post" | grep -q "Ladder duo: c@x.test & d@x.test beat a@x.test & b@x.test" && ok ||
    bad "pairs posting: $(echo "$post" | head -n 3)"
# The challenger's own side declining voids the challenge, and so does an
# abort; a void challenge is no meeting for the rematch cool-down.
at "T0 + 8 * D"
mail a@x.test "challenge c@x.test"
g2=$(lastgame)
mail b@x.test "decline #$g2"
[ "$(rungs duo)" = "c a" ] && ok || bad "a withdrawn challenge moved rungs: $(rungs duo)"
mail b@x.test "challenge d@x.test"
g2=$(lastgame)
for p in c d a; do mail $p@x.test "accept #$g2"; done
mail admin@ludus.test "admin abort #$g2"
[ "$(rungs duo)" = "c a" ] && ok || bad "an aborted challenge moved rungs: $(rungs duo)"
[ "$(sql "SELECT group_concat(status, ' ') FROM (SELECT status FROM challenges ORDER BY id)")" = "won void void" ] && ok ||
    bad "void challenges: $(sql 'SELECT status FROM challenges')"
# Each of the four ratings moved (winners up, losers down).
[ "$(sql "SELECT count(*) FROM ratings WHERE kind = 'aluette' AND ((r > 1500 AND player_id IN (SELECT id FROM players WHERE address IN ('c@x.test', 'd@x.test'))) OR (r < 1500 AND player_id IN (SELECT id FROM players WHERE address IN ('a@x.test', 'b@x.test'))))")" = 4 ] && ok ||
    bad "pair ratings: $(sql 'SELECT * FROM ratings')"
# The posting carries no token of any seat, no Reply-To, and nothing a
# seat sees that the public does not (the hands).
echo "$post" | grep -q "^Reply-To:" && bad "the posting has a Reply-To" || ok
echo "$post" | grep -q "^Auto-Submitted: auto-generated$" && ok || bad "the posting is not marked auto-generated"
for p in a b c d; do
	tok=$(ludus token "$g" $p@x.test)
	echo "$post" | grep -qF "$tok" && bad "the posting holds $p's token" || ok
done
ludus show "$g" >"$dir/public"
for p in a b c d; do
	ludus show "$g" --as $p@x.test | grep -v '^ *$' | while IFS= read -r line; do
		grep -qxF "$line" "$dir/public" && continue
		echo "$post" | grep -qF "$line" && echo "$line"
	done >"$dir/leak.$p"
	[ -s "$dir/leak.$p" ] && bad "the posting shows what only $p sees: $(cat "$dir/leak.$p")" || ok
done
# The list's copy of the posting comes back: no answer to it.  A
# command a member sends through the list is answered.
n0=$(lastmail)
printf 'From: referee@ludus.test\nTo: %s\nList-Id: Club <club.lists.ludus.test>\nSubject: [ludus #%s] Ladder duo\nMessage-ID: <copy.%s@test>\nAuto-Submitted: auto-generated\n\nLadder duo\n' \
    "$LIST" "$g" "$$" | ludus deliver 2>>"$dir/deliver.log"
printf 'From: b@x.test\nTo: %s\nList-Id: <%s>\nSubject: Re: [ludus #%s] Ladder duo\nMessage-ID: <reply.%s@test>\n\nwell played\n' \
    "$LIST" "$LIST" "$g" "$$" | ludus deliver 2>>"$dir/deliver.log"
[ "$(lastmail)" = "$n0" ] && ok || bad "list traffic was answered: $(mails_to "$n0" b@x.test | head -n 5)"
printf 'From: b@x.test\nTo: referee@ludus.test, %s\nList-Id: <%s>\nSubject: ladder\nMessage-ID: <cmd.%s@test>\nAuthentication-Results: mx.ludus.test; dmarc=pass header.from=x.test\n\nladder duo\n' \
    "$LIST" "$LIST" "$$" | ludus deliver 2>>"$dir/deliver.log"
mails_to "$n0" b@x.test | grep -q "^Subject: Ladder duo: the standings$" && ok ||
    bad "a command through the club list was not answered"

# --- a season of 200 ladder games ------------------------------------------
# Twelve players take turns, one mail each: answers to the challenges
# addressed to them (decline; accept and resign; accept; accept and offer
# a draw), then the second half of their own games (resign, agree the
# draw), then a new challenge of a rung up to 3 places above.  Who
# challenges whom and how each game ends is drawn from a fixed
# pseudo-random sequence.  The model here applies the ladder's rules to a
# plain list in the order the referee reads the commands, and the
# standings the referee mails must agree with it.
setup season
started=$(date +%s)
mail admin@ludus.test "admin ladder create season mancala reach=3 cap=4 cooldown=off idle=off list=$LIST"
model=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	mail p$i@x.test "ladder join season"
	model="$model p$i"
	eval "inbox_p$i='' todo_p$i='' open_p$i=0"
done
model=${model# }
seed=12345
rnd() { seed=$(( (seed * 1103515245 + 12345) % 2147483648 )); r=$(( seed / 65536 % $1 )); }
# pos NAME: its place (1-based) in the model
pos() { k=0; for q in $model; do k=$((k + 1)); [ "$q" = "$1" ] && break; done; }
# up C T: C takes T's place when below it, those between move down one
up() {
	pos "$1"; pc=$k
	pos "$2"; pt=$k
	[ $pc -gt $pt ] || return 0
	new="" k=0
	for q in $model; do
		k=$((k + 1))
		[ $k -eq $pc ] && continue
		[ $k -eq $pt ] && new="$new $1"
		new="$new $q"
	done
	model=${new# }
}
close() { eval "open_$1=\$((open_$1 - 1)) open_$2=\$((open_$2 - 1)) pair_$1_$2=0 pair_$2_$1=0"; }
g=0 planned=0 played=0 forfeits=0 wins=0 losses=0 draws=0 turn=0 pending=0
while [ $planned -lt 200 ] || [ $pending -gt 0 ]; do
	turn=$((turn + 1))
	at "T0 + turn * H"
	P=p$(( (turn - 1) % 12 + 1 ))
	body=""
	eval "ids=\$inbox_$P; inbox_$P=''"
	for id in $ids; do
		eval "c=\$gc_$id out=\$gout_$id"
		case $out in
		forfeit) body="$body
decline #$id"; up "$c" "$P"; close "$c" "$P"
			pending=$((pending - 1)) forfeits=$((forfeits + 1)) ;;
		won) body="$body
accept #$id
resign #$id"; up "$c" "$P"; close "$c" "$P"
			pending=$((pending - 1)) played=$((played + 1)) wins=$((wins + 1)) ;;
		lost) body="$body
accept #$id"; eval "todo_$c=\"\$todo_$c $id\"" ;;
		drawn) body="$body
accept #$id
draw #$id"; eval "todo_$c=\"\$todo_$c $id\"" ;;
		esac
	done
	eval "ids=\$todo_$P; todo_$P=''"
	for id in $ids; do
		eval "t=\$gt_$id out=\$gout_$id"
		if [ "$out" = lost ]; then
			body="$body
resign #$id"; losses=$((losses + 1))
		else
			body="$body
draw #$id"; draws=$((draws + 1))
		fi
		close "$P" "$t"
		pending=$((pending - 1)) played=$((played + 1))
	done
	pos "$P"; ci=$k
	if [ $planned -lt 200 ] && [ $ci -ge 2 ]; then
		reach=3; [ $((ci - 1)) -lt $reach ] && reach=$((ci - 1))
		rnd $reach; ti=$((ci - 1 - r))
		set -- $model
		eval "T=\${$ti}"
		eval "busy=\${pair_${P}_$T:-0} oc=\$open_$P ot=\$open_$T"
		if [ "$busy" = 0 ] && [ "$oc" -lt 4 ] && [ "$ot" -lt 4 ]; then
			g=$((g + 1))
			rnd 20
			if [ $r -lt 2 ]; then out=forfeit
			elif [ $r -lt 11 ]; then out=won
			elif [ $r -lt 17 ]; then out=lost
			else out=drawn; fi
			[ $out = forfeit ] || planned=$((planned + 1))
			eval "gc_$g=$P gt_$g=$T gout_$g=$out inbox_$T=\"\$inbox_$T $g\""
			eval "open_$P=\$((open_$P + 1)) open_$T=\$((open_$T + 1)) pair_${P}_$T=1 pair_${T}_$P=1"
			pending=$((pending + 1))
			body="$body
challenge $T@x.test season"
		fi
	fi
	[ -n "$body" ] && mail $P@x.test "${body#?}"
done
got=$(standings season p1@x.test | sed 's/@x\.test//' | tr '\n' ' ')
[ "${got% }" = "$model" ] && ok || bad "season standings: $got, model $model"
[ "$(sql "SELECT count(*) FROM games WHERE status = 'finished'")" = $played ] && ok ||
    bad "season games finished: $(sql "SELECT status, count(*) FROM games GROUP BY status"), $played played"
[ "$(sql "SELECT sum(games) FROM ratings WHERE kind = 'mancala'")" = $((2 * played)) ] && ok ||
    bad "season ratings: $(sql "SELECT sum(games) FROM ratings") rated seats, $played games"
[ "$(sql "SELECT count(*) FROM challenges WHERE status = 'won'")/$(sql "SELECT count(*) FROM challenges WHERE status = 'lost'")/$(sql "SELECT count(*) FROM challenges WHERE status = 'drawn'")/$(sql "SELECT count(*) FROM challenges WHERE status = 'forfeit'")" = "$wins/$losses/$draws/$forfeits" ] && ok ||
    bad "season outcomes: $(sql "SELECT status, count(*) FROM challenges GROUP BY status"), want $wins/$losses/$draws/$forfeits"
# every decided challenge was posted to the list, and the weekly
# standings once; no posting carries a token
posts=$(ludus outbox --all | grep -c "^To: $LIST$")
[ "$posts" -eq $((played + forfeits + 1)) ] && ok || bad "season postings: $posts, want $((played + forfeits + 1))"
ludus outbox --all | awk -v to="To: $LIST" '/^=== mail/ { l = 0 } $0 == to { l = 1 } l && /^Subject: / { print }' |
    grep -q '\[ludus #[0-9]* [a-z0-9]*\]' && bad "a list posting carries a token" || ok
echo "ladder: season of $played games ($wins won, $losses lost, $draws drawn by the challengers; $forfeits forfeits), $turn mails, in $(( $(date +%s) - started )) s"

echo "ladder: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
