#!/bin/bash
# Games played end to end by real mail: ludusd against the private Dovecot
# and Postfix of tests/mailenv, the players on the other side sending over
# SMTP and reading over IMAP (tests/mailenv/player.sh), answering each mail
# that says it is their move with one of the legal moves it lists.
#
#   a. alice proposes `new mancala bob@...`; both accept (alice in reply to
#      the referee's address with the subject tag, bob through the plus
#      address of the Reply-To alone); they play a whole game, each move
#      picked at random (fixed seed) from the mail's "Your legal moves".
#      Checked: both get the end mail, the database says finished with one
#      moves row per move sent, every seat got a mail per move, the players
#      read every mail the server holds for them and none saying "your
#      move" was left unanswered, no error reply.
#   b. alice, bob, carol and dave: `new aluette ...`, all four accept, and
#      they play the 36 cards of the first hand.  The hand's result on the
#      next board is checked against one computed here from the cards sent
#      (the ranking of ludus-games(7)): the player with most tricks, ties
#      to whoever got there first, one point to their side.
#   c. alice and bob, a small Mancala: alice moves and queues conditional
#      replies in the same mail; bob's move fires one at once, and both are
#      told; bob asks to take back his move (and the reply), alice agrees:
#      the log is one move long again and replays to the stored state.
#   d. carol seeks a Mancala game (confirming by mail: the sandbox gives
#      no DMARC result), dave lists the seeks, takes the seat and confirms:
#      both are told the game begins, and it is active in the database.
#
# Prints timings.  Exit 77 only when the servers cannot be had (not root,
# packages not installable).  E2E_SEED picks the moves (default 7, a Mancala
# game of 23 moves); E2E_DEAL picks the cards (a test build's $LUDUS_SEED,
# the players' Message-IDs made the same every run; default a random number,
# printed); PLAYER_TRACE=1 shows the players at work, with times;
# E2E_KEEP=DIR keeps the daemon's log, the database and the players' mail.
set -u
export TZ=UTC LC_ALL=C
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
srcdir=${LUDUS_SRCDIR:-.}
mailenv=$srcdir/tests/mailenv/mailenv

. "$srcdir/tests/mailenv/referee.sh"
mailenv_prepare e2e

tmp=$(mktemp -d /tmp/le2.XXXXXX) || exit 99
chmod 755 "$tmp"	# the servers' own users walk through it to the sandbox
box=$tmp/m
lpid=""
cleanup() {
	declare -F player_unwatch >/dev/null && player_unwatch
	if [ -n "$lpid" ]; then
		kill -KILL "$lpid" 2>/dev/null
		wait "$lpid" 2>/dev/null
	fi
	[ -n "${E2E_KEEP:-}" ] && mkdir -p "$E2E_KEEP" &&
	    cp -r "$tmp"/ludusd.log "$tmp"/ludus.db* "$tmp"/p "$box/pf/maillog" \
	    "$E2E_KEEP"/ 2>/dev/null
	[ -e "$box/env" ] && bash "$mailenv" stop "$box" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
T0=$(now_ms)
mailenv_start e2e "$box" "$tmp"

pass=0 fail=0
. "$(dirname "$0")/testlib.sh"
note() { echo "e2e: $*"; }
secs() { local ms=$(($(now_ms) - $1)); printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100)); }

D=$MAILENV_DOMAIN
REF=referee@$D
umask 077
db=$tmp/ludus.db
conf=$tmp/ludus.yaml
# As tests/integration.sh, with plus addressing: the sandbox delivers
# referee+ID.TOKEN@ to the referee.
mailenv_referee "$tmp" info "plus_addressing: true"
umask 022

"$LUDUS_BIN" -c "$conf" init >"$tmp/init.out" 2>&1 ||
    { echo "e2e: ludus init failed: $(cat "$tmp/init.out")"; exit 1; }
log=$tmp/ludusd.log
# The deals: reproducible in a test build, where $LUDUS_SEED and the
# mails' Message-IDs make the referee's seeds.
deal=${E2E_DEAL:-$((RANDOM * 32768 + RANDOM))}
if "$LUDUS_BIN" -V | grep -q '^test build'; then
	export LUDUS_SEED=$deal PLAYER_IDS=e2e$deal
	note "deals from E2E_DEAL=$deal (set it to play the same cards again)"
else
	note "not a test build: the deals cannot be played again"
fi
"$LUDUSD_BIN" -f -c "$conf" 2>>"$log" &
lpid=$!
end=$(($(now_ms) + 20000))
until grep -q "imap: connected" "$log"; do
	if [ "$(now_ms)" -ge $end ] || ! kill -0 "$lpid" 2>/dev/null; then
		echo "e2e: ludusd did not connect: $(tail -5 "$log")"
		echo "e2e: $pass passed, 1 failed"
		exit 1
	fi
	sleep 0.1
done
ok
note "sandbox and ludusd up in $(secs "$T0")"

PLAYER_DIR=$tmp/p
mkdir -p "$PLAYER_DIR"
. "$srcdir/tests/mailenv/player.sh"
# Each mailbox in IDLE: the players are told of new mail, not polling.
player_watch alice bob carol dave || { echo "e2e: cannot watch the mailboxes"; exit 1; }
# The moves' choice (player_play): seed 7 makes a Mancala game of 23
# moves.
PLAYER_SEED=${E2E_SEED:-7}

sql() { sqlite3 -cmd '.timeout 10000' "$db" "$1"; }

# The referee's mails of game ID that USER has fetched (taken or not)
# whose subject matches PATTERN.
count_mail() { # USER ID PATTERN
	local f n=0 s
	for f in "$PLAYER_DIR/$1"/taken/*.subject "$PLAYER_DIR/$1"/queue/*.subject; do
		[ -e "$f" ] || continue
		s=$(cat "$f")
		[[ $s == *"#$2 "* ]] && [[ $s =~ $3 ]] && n=$((n + 1))
	done
	echo $n
}

# Every mail already delivered to USERS fetched (as many as the server
# counts), then: none of game ID still says "your move" unanswered, none
# is an error reply.
check_answered() { # ID "USERS"
	local u q n have end
	# The last round's mail on its way: wait until it has arrived.
	end=$(($(now_ms) + 120000))
	until mailenv_settled "$db"; do
		[ "$(now_ms)" -lt $end ] || { bad "mail still on its way after 120 s"; break; }
		sleep 0.1
	done
	player_sync $2
	for u in $2; do
		n=$(_p_imap "$u" "" -X "STATUS INBOX (MESSAGES)" |
		    sed -n 's/.*(MESSAGES \([0-9]*\)).*/\1/p')
		have=$(ls "$PLAYER_DIR/$u"/queue/*.eml "$PLAYER_DIR/$u"/taken/*.eml \
		    "$PLAYER_DIR/$u"/other/*.eml 2>/dev/null | wc -l)
		[ -n "$n" ] && [ "$n" = "$have" ] && ok ||
		    bad "$u's INBOX holds ${n:-?} mails, the player read $have"
		q=$(player_queue "$u" | grep -F "#$1 " | grep -i "your move")
		[ -z "$q" ] && ok || bad "game $1: $u left unanswered: $q"
		q=$(player_queue "$u" | grep "Not done")
		[ -z "$q" ] && ok || bad "game $1: $u got an error reply: $q"
	done
}

# Invitations: USERS each wait for theirs, all for the same game; each
# accepts.  The first replies to the referee's own address, keeping the
# subject (the tag authenticates); the others reply to the Reply-To only
# (the plus address authenticates), subject "accept".  Sets GAME.
invite_accept() { # "USERS"
	local u first=1 tokens=""
	GAME=""
	for u in $1; do
		if ! player_wait "$u" "Invitation to" 30; then
			bad "no invitation to $u"
			return 1
		fi
		[ -n "$P_GAME" ] && [ -n "$P_TOKEN" ] && ok ||
		    bad "invitation to $u without a tag: $P_SUBJECT"
		[ -z "$GAME" ] && GAME=$P_GAME
		[ "$P_GAME" = "$GAME" ] && ok || bad "$u invited to game #$P_GAME, not #$GAME"
		case " $tokens " in
		*" $P_TOKEN "*) bad "$u got another seat's token $P_TOKEN" ;;
		*) ok ;;
		esac
		tokens="$tokens $P_TOKEN"
		grep -q "reply to this mail with the word:  accept" <<<"$P_TEXT" && ok ||
		    bad "invitation to $u does not say how to accept: $P_TEXT"
		if [ $first = 1 ]; then
			player_reply -t "$REF" accept || bad "$u: sending accept"
			first=0
		elif [ "$P_REPLYTO" = "referee+$P_GAME.$P_TOKEN@$D" ]; then
			player_reply -s accept accept || bad "$u: sending accept"
		else
			bad "invitation to $u: Reply-To '$P_REPLYTO', want referee+$P_GAME.$P_TOKEN@$D"
			player_reply accept || bad "$u: sending accept"
		fi
	done
	[ -n "$GAME" ]
}

# Each of USERS gets the mail saying game ID begins; the one saying "your
# move" goes back to the queue for player_play to answer.
wait_start() { # ID "USERS"
	local u
	for u in $2; do
		if player_wait "$u" "#$1 .*begins" 30; then
			ok
			grep -qi "your move" <<<"$P_SUBJECT" &&
			    mv "$P_FILE" "$PLAYER_DIR/$u/taken/$P_NUM.subject" \
			    "$PLAYER_DIR/$u/queue/"
		else
			bad "$u: no mail saying game #$1 begins"
		fi
	done
}

# --- a. Mancala, two players, a whole game ---------------------------------
ta=$(now_ms)
player_send alice "new mancala bob@$D" || bad "alice: sending new"
if invite_accept "alice bob"; then
	g=$GAME
	note "mancala #$g: invited and accepted in $(secs "$ta")"
	wait_start "$g" "alice bob"
	tg=$(now_ms)
	player_play "$g" "alice bob" 400 || bad "$PLAY_ERROR"
	[ $PLAY_ENDED = 1 ] && ok || bad "mancala #$g: not over after $PLAY_PLIES moves"
	first_end=$P_USER
	note "mancala #$g: $PLAY_PLIES moves by mail in $(secs "$tg"), per move $((PLAY_LAT_SUM / (PLAY_PLIES > 1 ? PLAY_PLIES - 1 : 1))) ms on average, $PLAY_LAT_MAX ms at most"
	if [ $PLAY_ENDED = 1 ]; then
		grep -q "^Result: " <<<"$P_TEXT" && ok || bad "end mail without a result: $P_TEXT"
		other=alice
		[ "$first_end" = alice ] && other=bob
		player_wait "$other" "#$g .*is over" 30 && ok || bad "$other: no end mail"
		st=$(sql "SELECT status FROM games WHERE id = $g")
		[ "$st" = finished ] && ok || bad "mancala #$g: status '$st' in the database"
		nm=$(sql "SELECT count(*) FROM moves WHERE game_id = $g")
		[ "$nm" = "$PLAY_PLIES" ] && ok || bad "mancala #$g: $nm moves rows, $PLAY_PLIES moves sent"
		check_answered "$g" "alice bob"
		# One mail per turn to each seat (an extra turn is one turn,
		# heard of once): the last turn's may be the end mail alone.
		turns=$(sql "SELECT seat FROM moves WHERE game_id = $g ORDER BY ply" | uniq | wc -l)
		for u in alice bob; do
			n=$(count_mail "$u" "$g" "played")
			[ "$n" -ge $((turns - 1)) ] && [ "$n" -le "$PLAY_PLIES" ] && ok ||
			    bad "mancala #$g: $u got $n move mails for $turns turns ($PLAY_PLIES moves)"
		done
	fi
fi
note "a. mancala: $(secs "$ta") in all"

# --- b. Aluette, four players, one hand --------------------------------------
# The ranking of ludus-games(7): the lower, the higher the card.
card_rank() { # CARD
	local c=$1
	case $c in
	3co) echo 1 ;; 3cu) echo 2 ;; 2co) echo 3 ;; 2cu) echo 4 ;;
	9cu) echo 5 ;; 9co) echo 6 ;; 2cl) echo 7 ;; 2sw) echo 8 ;;
	[1A]??) echo 9 ;; K??) echo 10 ;; C??) echo 11 ;; J??) echo 12 ;;
	9??) echo 13 ;; 8??) echo 14 ;; 7??) echo 15 ;; 6??) echo 16 ;;
	5??) echo 17 ;; 4??) echo 18 ;; 3??) echo 19 ;;
	*) echo 99 ;;
	esac
}
declare -A TRICKS=() REACHED=()
trick=() ntricks=0 spoiled=0
# The four cards of a trick in the order played: who won it, if anyone.
aluette_hook() { # USER MOVE
	local card=$2 best=99 r i n=0 w=""
	card=${card#play }
	trick+=("$1" "$card")
	[ ${#trick[@]} = 8 ] || return 0
	for ((i = 0; i < 8; i += 2)); do
		r=$(card_rank "${trick[i + 1]}")
		[ "$r" != 99 ] || { bad "aluette: cannot rank ${trick[i + 1]}"; return 1; }
		if [ "$r" -lt $best ]; then
			best=$r n=1 w=${trick[i]}
		elif [ "$r" = $best ]; then
			n=$((n + 1))
		fi
	done
	ntricks=$((ntricks + 1))
	if [ $n = 1 ]; then
		TRICKS[$w]=$((${TRICKS[$w]:-0} + 1))
		# Order of reaching a count: the trick number.
		REACHED[$w]=$ntricks
	else
		spoiled=$((spoiled + 1))
	fi
	trick=()
}

tb=$(now_ms)
player_send alice "new aluette bob@$D carol@$D dave@$D" || bad "alice: sending new aluette"
if invite_accept "alice bob carol dave"; then
	g=$GAME
	note "aluette #$g: invited and accepted in $(secs "$tb")"
	wait_start "$g" "alice bob carol dave"
	tg=$(now_ms)
	player_play "$g" "alice bob carol dave" 36 aluette_hook || bad "$PLAY_ERROR"
	[ $PLAY_ENDED = 0 ] && [ $PLAY_PLIES = 36 ] && ok ||
	    bad "aluette #$g: $PLAY_PLIES cards played, ended=$PLAY_ENDED"
	note "aluette #$g: $PLAY_PLIES cards by mail in $(secs "$tg"), per card $((PLAY_LAT_SUM / (PLAY_PLIES > 1 ? PLAY_PLIES - 1 : 1))) ms on average, $PLAY_LAT_MAX ms at most"
	# The board of the next mail, continuation lines joined.
	board=$(awk '/^  / && prev != "" { prev = prev " " substr($0, 3); next }
	    { if (NR > 1) print prev; prev = $0 } END { print prev }' <<<"$P_TEXT")
	grep -q "^Aluette, hand 2 of 5" <<<"$board" && ok ||
	    bad "aluette #$g: after 36 cards no board of hand 2: $P_TEXT"
	hand1=$(grep "^Hand 1: " <<<"$board")
	# The winner: most tricks, the first to reach that number on a tie.
	w="" wn=0
	for u in alice bob carol dave; do
		n=${TRICKS[$u]:-0}
		if [ "$n" -gt $wn ] || { [ "$n" = $wn ] && [ $n -gt 0 ] &&
		    [ "${REACHED[$u]}" -lt "${REACHED[$w]}" ]; }; then
			w=$u wn=$n
		fi
	done
	if [ -z "$w" ]; then
		grep -q "all nine tricks spoiled, no point" <<<"$hand1" && ok ||
		    bad "aluette #$g: nine spoiled tricks here, the board says: $hand1"
	else
		# "Hand 1: alice, 3 tricks, +1 North-South." (the board names
		# players by their addresses' local parts)
		[[ $hand1 =~ ^Hand\ 1:\ $w(@[^,]*)?,\ $wn\ tricks?,\ \+1\ (North-South|East-West) ]] && ok ||
		    bad "aluette #$g: $w won $wn tricks here (${TRICKS[*]}, $spoiled spoiled), the board says: '$hand1'"
		# The winner's partnership, from the seat the table line gives
		# (a compass point: the seats' list says "(you)" of the reader).
		seat=$(tr '\n' ' ' <<<"$board" |
		    grep -o "$w\(@[^ ]*\)\? (\(North\|South\|East\|West\))" |
		    head -n 1 | sed 's/.*(\(.*\))/\1/')
		case $seat in
		North|South) want="North-South 1, East-West 0" ;;
		*) want="North-South 0, East-West 1" ;;
		esac
		pts=$(grep -o "Points: North-South [0-9]*, East-West [0-9]*" <<<"$board" | head -n 1)
		if [ -n "$pts" ]; then
			[ "$pts" = "Points: $want" ] && ok ||
			    bad "aluette #$g: '$pts' after $w ($seat) won the hand"
		else
			bad "aluette #$g: no points line: $P_TEXT"
		fi
	fi
	note "aluette #$g: hand 1 here: ${w:-nobody} with $wn tricks, $spoiled spoiled; the board: ${hand1:-?}"
	nm=$(sql "SELECT count(*) FROM moves WHERE game_id = $g")
	[ "$nm" = 36 ] && ok || bad "aluette #$g: $nm moves rows, 36 cards sent"
	st=$(sql "SELECT status FROM games WHERE id = $g")
	[ "$st" = active ] && ok || bad "aluette #$g: status '$st' after one hand"
	# The mail left in P_* says "your move" and stays unanswered on purpose.
	check_answered "$g" "alice bob carol dave"
fi
note "b. aluette: $(secs "$tb") in all"

# --- c. Mancala: a conditional reply, then a takeback ---------------------------
tc=$(now_ms)
player_send alice "new mancala pits=3 seeds=2 first=me bob@$D" ||
    bad "alice: sending new mancala"
if invite_accept "alice bob"; then
	g=$GAME
	wait_start "$g" "alice bob"
	if player_wait alice "#$g .*[Yy]our move" 30; then
		player_reply $'1\nif 1 then 3 if 2 then 2' || bad "alice: sending 1"
	else
		bad "alice: no mail saying it is her move in #$g"
	fi
	if player_wait bob "#$g .*Your move: .*played 1" 30; then
		player_reply 1 || bad "bob: sending 1"
	else
		bad "bob: no move mail in #$g"
	fi
	player_wait alice "#$g .*you played 3" 30 &&
	    grep -q "That was your conditional move, played at once in answer to 1" \
	    <<<"$P_TEXT" && ok || bad "alice: not told her reply was played: $P_TEXT"
	if player_wait bob "#$g .*Your move: .*played 3" 30; then
		grep -q "It was alice's conditional move, played at once" <<<"$P_TEXT" &&
		    ok || bad "bob: not told of a conditional move: $P_TEXT"
		player_reply takeback || bad "bob: sending takeback"
	else
		bad "bob: no mail with alice's conditional reply"
	fi
	if player_wait alice "#$g .*asks to take back 1, 3" 30; then
		player_reply takeback || bad "alice: sending takeback"
	else
		bad "alice: no takeback request in #$g"
	fi
	for u in alice bob; do
		player_wait "$u" "#$g .*Taken back: .*back to move 2" 30 && ok ||
		    bad "$u: no mail saying the moves are taken back"
	done
	nm=$(sql "SELECT count(*) FROM moves WHERE game_id = $g")
	[ "$nm" = 1 ] && ok || bad "mancala #$g: $nm moves rows after the takeback, want 1"
	"$LUDUS_BIN" -c "$conf" replay "$g" >/dev/null 2>&1 && ok ||
	    bad "mancala #$g: the log does not replay after the takeback"
fi
note "c. conditional move and takeback: $(secs "$tc") in all"

# --- d. An open seek taken by another player ---------------------------------------
# No DMARC result in the sandbox: seeking and taking a seat each go
# through the confirmation round trip.
td=$(now_ms)
# confirm_last USER WHAT: USER answers the "Please confirm: WHAT" mail.
confirm_last() {
	local code
	if ! player_wait "$1" "Please confirm: $2" 30; then
		bad "$1: no confirmation asked for '$2'"
		return 1
	fi
	code=$(sed -n 's/^ *confirm \([0-9a-f]\{8,\}\)$/\1/p' <<<"$P_TEXT" | head -n 1)
	[ -n "$code" ] || { bad "$1: no code in: $P_TEXT"; return 1; }
	player_reply "confirm $code" || { bad "$1: sending confirm"; return 1; }
}
player_send carol "seek mancala pits=3 seeds=1" "a game, anyone?" ||
    bad "carol: sending seek"
sid=
if confirm_last carol "seek mancala" &&
    player_wait carol "^Done" 30; then
	sid=$(sed -n 's/.*seek #\([0-9]*\) is open.*/\1/p' <<<"$P_TEXT" | head -n 1)
	[ -n "$sid" ] && ok || bad "carol: no seek number in: $P_TEXT"
fi
if [ -n "$sid" ]; then
	player_send dave "seeks" "seeks?" || bad "dave: sending seeks"
	player_wait dave "^Open seeks" 30 && grep -q "#$sid Mancala" <<<"$P_TEXT" &&
	    ok || bad "dave: seek #$sid not listed: $P_TEXT"
	player_send dave "accept #$sid" "me" || bad "dave: sending accept"
	confirm_last dave "accept #$sid"
	for u in carol dave; do
		player_wait "$u" "#$sid .*begins" 30 && ok ||
		    bad "$u: no mail saying game #$sid begins"
	done
	st=$(sql "SELECT status FROM games WHERE id = $sid")
	[ "$st" = active ] && ok || bad "seek #$sid: game status '$st', want active"
fi
note "d. a seek taken: $(secs "$td") in all"

# --- the end -------------------------------------------------------------------
kill -0 "$lpid" 2>/dev/null && ok || bad "ludusd died: $(tail -5 "$log")"
kill -TERM "$lpid"
wait "$lpid"
rc=$?
lpid=""
[ $rc = 0 ] && ok || bad "ludusd exit status $rc after SIGTERM: $(tail -20 "$log")"
grep -q "ERROR: AddressSanitizer\|runtime error:" "$log" && bad "sanitizer report in the log" || ok
note "whole test $(secs "$T0")"
echo "e2e: $pass passed, $fail failed"
[ $fail -eq 0 ]
