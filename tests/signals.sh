#!/bin/sh
# Aluette signals tell nothing to those who may not see them.  The same
# game is played by mail twice, into two referees: once without signals
# (world A), once with one partnership signalling now and then (world B):
# in a separate mail, in turn or out of it, during the changer round, the
# discards and the tricks, and in the same line as a discard or a card.
# Every other mail is the same mail, with the same Message-ID and time.
#
#   signals=partner  every mail to each seat of the other partnership and
#                    to the observer is byte for byte the same in A and B;
#                    so is every CLI view of them after every step (show
#                    --as, moves --as, history --as), and the public ones
#                    (list, show, moves); the admin's history differs only
#                    by the signal lines.
#   signals=off      the signals are refused: only the signaller's error
#                    replies differ; every other mail and every view, the
#                    signallers' own included, is the same.
#   signals=table    everyone sees the signals: with the signals taken out
#                    of the text (the line of signals, `signal X, ` in a
#                    line of moves) and the mails a lone signal makes left
#                    out, every mail's text and every view is the same:
#                    move numbers, counts and lists do not change.
#
# With signals=partner each partnership signals in a world of its own, so
# every seat is both a signaller and a reader who may not see.  A last
# pair of worlds seats a robot: what it plays must not depend on signals
# either (it numbers its generator by plies).
set -u
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}" "${LUDUS_SRCDIR:?}"
# What it writes is tested, not how it uses memory: the build without
# sanitizers when there is one (contrib/bootstrap test makes it).
LUDUS_BIN=${LUDUS_PLAIN_BIN:-$LUDUS_BIN}
export LUDUS_GAMES_DIR
. "$LUDUS_SRCDIR/tests/goldenlib.sh"
if ! golden_test_build; then
	echo "signals: $LUDUS_BIN is not a test build (configure --enable-test-clock)"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi
command -v sqlite3 >/dev/null || { echo "signals: no sqlite3"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-signals.XXXXXX") || exit 99
[ -n "${SIGNALS_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
. "$(dirname "$0")/testlib.sh"

seats="ann@example.org ben@example.org cat@example.org dan@example.org"
observer=obi@example.org
signames="madame aces-2 useless borgne mordienne aces-1 vache petit-neuf"

seat_of() {
	case $1 in
	ann@*) echo 0 ;; ben@*) echo 1 ;; cat@*) echo 2 ;; dan@*) echo 3 ;;
	*) echo -1 ;;
	esac
}

# world DIR NEWLINE...: a fresh referee with game #1 started by the tool
# (no acceptance needed) and observed by obi; with a `new` mail instead
# when NEWLINE is `mail:BODY` (robots are seated by mail).
world() {
	mkdir -p "$1/views" "$1/mails"
	golden_init "$1" || { cat "$1/log"; return 1; }
	: >"$1/steps"
	echo 0 >"$1/last"
	case $2 in
	mail:*)
		deliver "$1" "$GOLDEN_BASE" ann@example.org new "${2#mail:}" ""
		for _s in ann ben cat; do
			deliver "$1" "$GOLDEN_BASE" "$_s@example.org" "accept-$_s" \
			    accept 1 || return 1
		done ;;
	*)
		# shellcheck disable=SC2086
		golden_run "$1" new $2 >>"$1/log" 2>&1 || return 1 ;;
	esac
	deliver "$1" "$GOLDEN_BASE" "$observer" observe "observe #1" ""
}

# deliver DIR TIME FROM ID BODY [GAME]: one mail, from the seat's reply
# when GAME is given; the mails it made are kept, by recipient, in
# DIR/mails (raw, as hex, and as `ludus outbox --all` reads them), with
# the kind of step (ID) that made them.
deliver() {
	if [ -n "${6:-}" ]; then
		_subj="Re: [ludus #$6 $(golden_token "$1" "$6" "$(seat_of "$3")")]"
	else
		_subj=ludus
	fi
	printf 'From: %s\nTo: referee@example.org\nSubject: %s\nMessage-ID: <%s@example.org>\nDate: Fri, 01 Jan 2027 00:00:00 +0000\nContent-Type: text/plain; charset=utf-8\n\n%s\n' \
	    "$3" "$_subj" "$4" "$5" >"$1/msg"
	LUDUS_NOW=$2 LUDUS_SEED=$GOLDEN_SEED golden_ludus "$1" deliver \
	    <"$1/msg" >>"$1/log" 2>&1 || { echo "deliver $4 failed" >&2; return 1; }
	_last=$(cat "$1/last")
	sqlite3 "$1/ludus.db" "SELECT id, recipients FROM outbox WHERE id > $_last ORDER BY id" |
	    while IFS='|' read -r _id _to; do
		echo "$_id $_to $4" >>"$1/steps"
	done
	sqlite3 "$1/ludus.db" "SELECT ifnull(max(id), 0) FROM outbox" >"$1/last"
}

# collect DIR: each recipient's mails in order, raw (DIR/mails/raw.TO) and
# decoded, text part only (DIR/mails/text.TO); mails made by a step whose
# ID starts with `signal-` are in DIR/mails/sig.TO instead.
collect() {
	golden_ludus "$1" outbox --all >"$1/outbox" 2>>"$1/log"
	awk -v dir="$1/mails" '
	    /^=== mail [0-9]+ ===$/ { id = $3; html = 0; next }
	    /^--- text\/html ---$/ { html = 1; next }
	    !html { print > (dir "/dec." id) }' "$1/outbox"
	while read -r _id _to _step; do
		case $_step in
		signal-*) _kind=sig ;;
		*) _kind=text ;;
		esac
		cat "$1/mails/dec.$_id" >>"$1/mails/$_kind.$_to"
		echo "--" >>"$1/mails/$_kind.$_to"
		[ "$_kind" = text ] || continue
		sqlite3 "$1/ludus.db" "SELECT hex(data) FROM outbox WHERE id = $_id" \
		    >>"$1/mails/raw.$_to"
	done <"$1/steps"
}

# views DIR NAME: every CLI view now, into DIR/views/NAME.*
views() {
	_v=$1/views/$2
	for _s in $seats; do
		golden_ludus "$1" show 1 --as "$_s" >"$_v.show.$_s" 2>&1
		golden_ludus "$1" moves 1 --as "$_s" >"$_v.moves.$_s" 2>&1
		golden_ludus "$1" history 1 --as "$_s" >"$_v.history.$_s" 2>&1
	done
	golden_ludus "$1" list >"$_v.list" 2>&1
	golden_ludus "$1" show 1 >"$_v.show" 2>&1
	golden_ludus "$1" moves 1 >"$_v.moves" 2>&1
	golden_ludus "$1" history 1 | grep -v ' signal ' >"$_v.history" 2>&1
}

# to_move DIR: the addresses to move, one a line.
to_move() {
	golden_ludus "$1" list | awk -F '\t' '{ sub(/^to move: /, "", $6); print $6 }' |
	    tr ',' '\n'
}

# play_a DIR STEPS: world A's game, the seat to move playing its first
# legal move (`change` in the changer round; three discards a mail, the
# two changers taking turns); the steps are written to DIR/script as
# `TIME FROM LINE`, with the views after each.
play_a() {
	: >"$1/script"
	views "$1" 0
	_k=1
	while [ "$_k" -le "$2" ]; do
		_movers=$(to_move "$1")
		_n=$(echo "$_movers" | grep -c .)
		[ "$_n" -gt 0 ] || break
		_from=$(echo "$_movers" | sed -n "$(( (_k % _n) + 1 ))p")
		_line=$(golden_ludus "$1" moves 1 --as "$_from" | head -n 3 |
		    awk '/^discard / { printf "%s%s", n++ ? ", " : "", $0; next }
			NR == 1 { print; exit }')
		_t=$((GOLDEN_BASE + 60 * _k))
		echo "$_t $_from $_line" >>"$1/script"
		deliver "$1" "$_t" "$_from" "step-$_k" "$_line" 1 || return 1
		views "$1" "$_k"
		_k=$((_k + 1))
	done
}

# play_b DIR SCRIPT SIGNALLERS MODE [nodiscards]: world A's steps, with signals by the two
# SIGNALLERS (a partnership): a separate mail before steps 1, 3, 5, ...
# (from each in turn, whoever is to move) and, the first time one of them
# moves in the discards and in the tricks, in the same line.  The views
# after a separate signal are named after the step before; the views are
# taken after each signal and after the last step.
play_b() {
	_k=1 _ns=0 _inl_d=0 _inl_p=0 _mode=$4 _nod=${5:-}
	_steps=$(wc -l <"$2")
	# The two signallers, one word each.
	# shellcheck disable=SC2086
	set -- "$1" "$2" $3
	views "$1" 0
	while read -r _t _from _line; do
		if [ $((_k % 2)) -eq 1 ]; then
			_ns=$((_ns + 1))
			_sig=$(echo "$signames" | cut -d ' ' -f $(( (_ns - 1) % 8 + 1 )))
			if [ $((_ns % 2)) -eq 1 ]; then _who=$3; else _who=$4; fi
			deliver "$1" $((_t - 30)) "$_who" "signal-$_k" \
			    "signal $_sig" 1 || return 1
			views "$1" "$((_k - 1)).sig"
		fi
		_body=$_line
		if [ "$_from" = "$3" ] || [ "$_from" = "$4" ]; then
			case $_line in
			discard*)
				if [ $_inl_d = 0 ]; then
					_body="signal aces-3, $_line" _inl_d=1
				fi ;;
			change | nochange) ;;
			*)
				if [ $_inl_p = 0 ]; then
					_body="$_line, signal grand-neuf" _inl_p=1
				fi ;;
			esac
		fi
		# With signals=off the whole line is refused: it is sent
		# before the line itself, which then goes as in A.
		if [ "$_body" != "$_line" ] && [ "$_mode" = off ]; then
			deliver "$1" $((_t - 10)) "$_from" "signal-in-$_k" \
			    "$_body" 1 || return 1
			views "$1" "$((_k - 1)).sig"
			_body=$_line
		fi
		deliver "$1" "$_t" "$_from" "step-$_k" "$_body" 1 || return 1
		# The views after a step that carried a signal and after the
		# last (world A has them after every step; every mail is
		# compared whatever the step).
		if [ "$_body" != "$_line" ] || [ "$_k" -eq "$_steps" ]; then
			views "$1" "$_k"
		fi
		_k=$((_k + 1))
	done <"$2"
	[ $_inl_d = 1 ] || [ "$_nod" = nodiscards ] ||
	    bad "$1: no signal in a line of discards"
	[ $_inl_p = 1 ] || bad "$1: no signal in a line with a card"
}

# Signals taken out of a text, for signals=table.
# A subject names the last move: it is cut after `played`, since a long
# one is shortened and a signal makes it longer.
unsignal() {
	awk '/^Signals this hand: / { skip = 1; next }
	    skip && /^  / { next }
	    { skip = 0 }
	    /^   \(.* signal [a-z0-9-]+\)  \[/ { next }
	    /^Subject: / { sub(/ played .*/, " played") }
	    { gsub(/signal [a-z0-9-]+, /, ""); gsub(/, signal [a-z0-9-]+/, "");
	      print }' "$1"
}

# same WHAT FILE_A FILE_B [filter]
same() {
	if [ "${4:-}" = unsignal ]; then
		unsignal "$2" >"$tmp/a"
		unsignal "$3" >"$tmp/b"
		set -- "$1" "$tmp/a" "$tmp/b"
	fi
	if cmp -s "$2" "$3"; then
		ok
	else
		bad "$1 differs"
		diff "$2" "$3" | head -n 20 | sed 's/^/  /'
	fi
}

# compare A B MODE SIGNALLERS: the checks above for one pair of worlds.
compare() {
	_a=$1 _b=$2 _mode=$3
	shift 3
	collect "$_b"
	for _r in $seats $observer; do
		_sees=0
		for _s in "$@"; do [ "$_s" = "$_r" ] && _sees=1; done
		[ "$_mode" = table ] && _sees=1
		if [ "$_sees" = 0 ]; then
			[ ! -s "$_b/mails/sig.$_r" ] && ok ||
			    bad "$_b: $_r got mail from a signal it may not see"
		fi
		case $_mode in
		table)
			same "$_b: mails to $_r (signals taken out)" \
			    "$_a/mails/text.$_r" "$_b/mails/text.$_r" unsignal ;;
		off)
			same "$_b: raw mails to $_r" "$_a/mails/raw.$_r" \
			    "$_b/mails/raw.$_r" ;;
		*)
			[ "$_sees" = 1 ] || same "$_b: raw mails to $_r" \
			    "$_a/mails/raw.$_r" "$_b/mails/raw.$_r" ;;
		esac
	done
	for _f in "$_b"/views/*; do
		_name=${_f##*/}
		_step=${_name%%.*}
		_rest=${_name#*.}
		case $_rest in sig.*) _rest=${_rest#sig.} ;; esac
		_fa=$_a/views/$_step.$_rest
		_who=${_rest#*.}
		case $_mode in
		table) same "$_name" "$_fa" "$_f" unsignal; continue ;;
		off) same "$_name" "$_fa" "$_f"; continue ;;
		esac
		case $_who in
		show | moves | list | history) same "$_b: view $_name" "$_fa" "$_f"; continue ;;
		esac
		_sees=0
		for _s in "$@"; do [ "$_s" = "$_who" ] && _sees=1; done
		[ "$_sees" = 1 ] || same "$_b: view $_name" "$_fa" "$_f"
	done
}

# SIGNALS_PARTS: the parts to run (all by default).
parts=${SIGNALS_PARTS:-partner off table robot}
for mode in $parts; do
	[ "$mode" = robot ] && continue
	a=$tmp/$mode-a
	world "$a" "aluette teams=fixed changer=true signals=$mode $seats" || exit 1
	play_a "$a" 12 || exit 1
	collect "$a"
	grep -q ' discard' "$a/script" && ok || bad "$mode: no discards played"
	grep -q ' [0-9JCK][a-z][a-z]$' "$a/script" && ok || bad "$mode: no card played"
	# With signals=partner each partnership signals in a world of its
	# own; with off and table every seat reads alike, and one does.
	teams="ann@example.org cat@example.org"
	[ "$mode" = partner ] && teams="$teams,ben@example.org dan@example.org"
	IFS=,
	for team in $teams; do
		unset IFS
		b=$tmp/$mode-b-${team%%@*}
		world "$b" "aluette teams=fixed changer=true signals=$mode $seats" || exit 1
		play_b "$b" "$a/script" "$team" "$mode" || exit 1
		# shellcheck disable=SC2086
		compare "$a" "$b" "$mode" $team
		# Not vacuous: the signals were logged, or refused.
		n=$(sqlite3 "$b/ludus.db" "SELECT count(*) FROM moves WHERE notation LIKE 'signal %'")
		if [ "$mode" = off ]; then
			[ "$n" = 0 ] && ok || bad "$b: $n signals logged with signals=off"
		else
			[ "$n" -ge 8 ] && ok || bad "$b: only $n signals logged"
		fi
	done
done

# A robot (dan, level 1, which plays at random among equals): the cards
# it plays do not depend on signals, its partner's or its opponents'.  A
# robot sends no mail, so its partner signals alone.
case " $parts " in *" robot "*) ;; *) echo "signals: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit ;; esac
newline="mail:new aluette teams=fixed signals=partner ben@example.org cat@example.org robot:1"
a=$tmp/robot-a
world "$a" "$newline" || exit 1
robot=$(sqlite3 "$a/ludus.db" "SELECT p.address FROM seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = 1 AND s.seat = 3")
seats="ann@example.org ben@example.org cat@example.org $robot"
play_a "$a" 9 || exit 1
collect "$a"
sqlite3 "$a/ludus.db" "SELECT notation FROM moves WHERE seat = 3" >"$tmp/robot-a.moves"
[ -s "$tmp/robot-a.moves" ] && ok || bad "robot: no robot move"
for team in "ann@example.org cat@example.org" "ben@example.org ben@example.org"; do
	b=$tmp/robot-b-${team%%@*}
	world "$b" "$newline" || exit 1
	play_b "$b" "$a/script" "$team" partner nodiscards || exit 1
	# shellcheck disable=SC2086
	compare "$a" "$b" partner $team $robot
	sqlite3 "$b/ludus.db" "SELECT notation FROM moves WHERE seat = 3" >"$tmp/robot-b.moves"
	same "$b: the robot's moves" "$tmp/robot-a.moves" "$tmp/robot-b.moves"
done

echo "signals: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
