#!/bin/sh
# bench/match.sh OLD-LUDUS NEW-LUDUS GAME [GAMES]: the robots of two ludus
# builds play each other, through one `ludus robot --serve` of each.  Games come in
# pairs from the same seed and the same random opening, NEW seated first in
# one and second in the other (Aluette: NEW holds seats 1 and 3 in one,
# 2 and 4 in the other, teams=fixed).  Prints NEW's wins, draws and losses,
# its score with draws as half and the score's 95% Wilson interval.  Both
# builds judge every ply; where their rules part (an older build's rule of
# repetition), NEW's decide, and a game NEW would play on counts a draw.
#
# Settings, from the environment:
#   MATCH_MS       time per move, both sides (default 100 ms)
#   MATCH_NODES    a budget in positions (iterations for the card games)
#                  instead of time: the run is then reproducible
#   MATCH_LEVEL    the level of both sides (3); MATCH_OLD_LEVEL the old's
#   MATCH_OPENING  random plies before the robots play (default 4 in the
#                  games without chance, 0 in the card games)
#   MATCH_CAP      plies after which a game counts as a draw (default 400
#                  in the games without chance, none in the card games)
#   MATCH_SEED     the first game's seed (1); game pair k uses SEED+k
#   MATCH_OPTS     options of the game (Aluette: teams=fixed)
#   MATCH_VERBOSE  set: each game's plies and result on standard error
#   LUDUS_GAMES_DIR  the definitions, as everywhere (both builds read them)
set -eu

usage() {
	echo "usage: bench/match.sh OLD-LUDUS NEW-LUDUS GAME [GAMES]" >&2
	exit 2
}
[ $# -ge 3 ] || usage
old=$1 new=$2 game=$3 games=${4:-200}
[ -x "$old" ] && [ -x "$new" ] || usage
case $game in
aluette|spite)	chance=1 ;;
*)		chance=0 ;;
esac
ms=${MATCH_MS:-100}
nodes=${MATCH_NODES:-}
level=${MATCH_LEVEL:-3}
oldlevel=${MATCH_OLD_LEVEL:-$level}
seed0=${MATCH_SEED:-1}
if [ $chance = 1 ]; then
	opening=${MATCH_OPENING:-0}
	cap=${MATCH_CAP:-0}
else
	opening=${MATCH_OPENING:-4}
	cap=${MATCH_CAP:-400}
fi
if [ "$game" = aluette ]; then
	opts=${MATCH_OPTS:-teams=fixed}
	nseats=4
else
	opts=${MATCH_OPTS:-}
	nseats=2
fi
if [ -n "$nodes" ]; then
	budget="--nodes $nodes"
	what="$nodes nodes"
else
	budget="--ms $ms"
	what="$ms ms"
fi
: "${LUDUS_GAMES_DIR:=$(cd "$(dirname "$0")/../games" && pwd)}"
export LUDUS_GAMES_DIR

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# One robot server per build (`ludus robot --serve`), fed through FIFOs:
# each is told every move, so both keep the game, and their status lines
# must agree after every ply (the two engines read the game alike).
mkfifo "$tmp/o.in" "$tmp/o.out" "$tmp/n.in" "$tmp/n.out"
# shellcheck disable=SC2086
"$old" robot "$game" --serve --level "$oldlevel" $budget $opts \
    <"$tmp/o.in" >"$tmp/o.out" &
# shellcheck disable=SC2086
"$new" robot "$game" --serve --level "$level" $budget $opts \
    <"$tmp/n.in" >"$tmp/n.out" &
exec 3>"$tmp/o.in" 4<"$tmp/o.out" 5>"$tmp/n.in" 6<"$tmp/n.out"

# get WHO: one line from the old (o) or new (n) server into $reply;
# ask WHO LINE: send it LINE first.
get() {
	if [ "$1" = o ]; then
		IFS= read -r reply <&4 || reply=
	else
		IFS= read -r reply <&6 || reply=
	fi
	[ -n "$reply" ] || {
		echo "match: game $((i + 1)), ply $ply: the $1 server stopped" >&2
		exit 1
	}
}
ask() {
	if [ "$1" = o ]; then
		printf '%s\n' "$2" >&3
	else
		printf '%s\n' "$2" >&5
	fi
	get "$1"
}

echo "$game: $new (level $level) against $old (level $oldlevel)," \
    "$games games, $what per move, $opening random opening plies," \
    "cap ${cap:-none} plies, seeds from $seed0${opts:+, $opts}"

win=0 draw=0 loss=0 capped=0 plies=0 apart=0
start=$(date +%s)
i=0
while [ $i -lt "$games" ]; do
	seed=$((seed0 + i / 2))
	# NEW's seats: bit mask.  Even games seat 1 (and 3), odd seat 2
	# (and 4).
	if [ $((i % 2)) = 0 ]; then
		mine=$([ $nseats = 4 ] && echo 5 || echo 1)
	else
		mine=$([ $nseats = 4 ] && echo 10 || echo 2)
	fi
	ply=0
	ask o "new $seed"
	state=$reply
	ask n "new $seed"
	[ "$reply" = "$state" ] || {
		echo "match: seed $seed deals apart: old $state, new $reply" >&2
		exit 1
	}
	while :; do
		case $state in
		over*)	break ;;
		next*)	seat=${state#next } ;;
		*)	echo "match: game $((i + 1)), ply $ply: $state" >&2
			exit 1 ;;
		esac
		if [ "$cap" -gt 0 ] && [ $ply -ge "$cap" ]; then
			capped=$((capped + 1))
			break
		fi
		if [ $ply -lt "$opening" ]; then
			who=n other=o go="go 0"
		elif [ $(((mine >> seat) & 1)) = 1 ]; then
			who=n other=o go=go
		else
			who=o other=n go=go
		fi
		ask $who "$go"
		move=$reply
		get $who
		state=$reply
		ask $other "$move"
		if [ "$reply" != "$state" ]; then
			# The builds' rules part (an older build's rule of
			# repetition, say): NEW's, the rules as they are now,
			# decide; where NEW plays on and OLD cannot, a draw.
			apart=$((apart + 1))
			[ -z "${MATCH_VERBOSE:-}" ] || echo "match: game" \
			    "$((i + 1)), ply $ply: after \`$move' $who says" \
			    "$state, $other $reply" >&2
			[ $other = n ] && state=$reply
			case $state in
			over*)	;;
			*)	state="over 1 - the builds' rules part" ;;
			esac
		fi
		ply=$((ply + 1))
	done
	plies=$((plies + ply))
	[ -z "${MATCH_VERBOSE:-}" ] || echo "game $((i + 1)), seed $seed," \
	    "new's seats $mine, $ply plies: $state" >&2
	case $state in
	over\ 1*)
		draw=$((draw + 1)) ;;
	over\ 0\ *)
		w=${state#over 0 }
		w=${w%% *}
		if [ $((w & mine)) != 0 ]; then
			win=$((win + 1))
		else
			loss=$((loss + 1))
		fi ;;
	*)	draw=$((draw + 1)) ;;	# capped
	esac
	i=$((i + 1))
	if [ $((i % 10)) = 0 ]; then
		echo "$i games: $win-$draw-$loss" >&2
	fi
done
end=$(date +%s)
exec 3>&- 5>&-
wait
awk -v w=$win -v d=$draw -v l=$loss -v c=$capped -v a=$apart -v n="$games" \
    -v p=$plies -v s=$((end - start)) 'BEGIN {
	z = 1.959964
	k = w + d / 2
	q = k / n
	den = 1 + z * z / n
	mid = (q + z * z / (2 * n)) / den
	h = z * sqrt(q * (1 - q) / n + z * z / (4 * n * n)) / den
	printf "new: %d wins, %d draws, %d losses (%d capped, %d where " \
	    "the builds\047 rules part)\n", w, d, l, c, a
	printf "score (draws half) %.3f, 95%% Wilson interval [%.3f, %.3f]\n",
	    q, mid - h, mid + h
	printf "%d plies in %d s\n", p, s
}'
