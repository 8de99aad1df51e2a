#!/bin/sh
# Engine speed against independent perfts: for each game, `ludus perft` and
# a small C perft of the same game written apart from the engines
# (bench/perft-GAME.c, built here with $CC -O2, sharing no code with
# src/games/) run alternately at the same position and depth, RUNS times
# each; the counts must agree at every depth.  Prints the leaves per second
# of both (medians of CPU time, user + system) and their ratio: above 1.0
# the engine is the faster.  Not part of the test suite.
#
#   bench/perft.sh [BUILD-DIR] [GAME ...]
#
# BUILD-DIR is an optimised build (default build-run, as contrib/bootstrap
# run leaves it: configure without --enable-test-clock, -O2).  RUNS
# (default 5) sets the runs per side.  LUDUS_BEFORE=PATH names another
# ludus binary (an earlier build) to run in the same alternation, for a
# column of its leaves per second and the speed-up.  The card games start from the deal
# of seed 1, which `ludus deal GAME SEED --json` hands the independent
# perft; those perfts stop with an error rather than guess if the tree
# reaches a reshuffle or a new deal, which the depths here never do.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build-run}
[ $# -gt 0 ] && shift
bin=$build/ludus
export LUDUS_GAMES_DIR="$top/games"
runs=${RUNS:-5}
before=${LUDUS_BEFORE:-}
[ -x "$bin" ] || { echo "no $bin: build first (sh contrib/bootstrap run)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for g in mancala almakleh alquerque aluette spite; do
	${CC:-cc} -O2 -Wall -Wextra -o "$tmp/perft-$g" "$top/bench/perft-$g.c"
done
seed1=$(printf ludus-seed:1 | sha256sum | cut -c1-64)

# CPU seconds (user + system) of a command, its output in FILE.
cpu() { # FILE CMD...
	out=$1
	shift
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$out"
	awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/time"
}

median() { sort -n | awk '{ v[NR] = $1 } END {
	if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One side-by-side comparison: LABEL, the ludus perft arguments, then --
# and the independent perft's command line.
compare() {
	label=$1
	shift
	largs=
	while [ "$1" != -- ]; do
		largs="$largs $1"
		shift
	done
	shift
	: >"$tmp/tl"
	: >"$tmp/tb"
	: >"$tmp/t0"
	i=0
	while [ $i -lt "$runs" ]; do
		# shellcheck disable=SC2086
		cpu "$tmp/ol" "$bin" perft $largs >>"$tmp/tl"
		cpu "$tmp/ob" "$@" >>"$tmp/tb"
		for o in "$tmp/ob" ${before:+"$tmp/o0"}; do
			if [ "$o" = "$tmp/o0" ]; then
				# shellcheck disable=SC2086
				cpu "$o" "$before" perft $largs >>"$tmp/t0"
			fi
			if ! cmp -s "$tmp/ol" "$o"; then
				echo "$label: the counts differ" >&2
				diff "$tmp/ol" "$o" >&2 || true
				exit 1
			fi
		done
		i=$((i + 1))
	done
	leaves=$(tail -n 1 "$tmp/ol" | sed 's/.*: //')
	tl=$(median <"$tmp/tl")
	tb=$(median <"$tmp/tb")
	t0=$( [ -n "$before" ] && median <"$tmp/t0" || echo 0)
	awk -v l="$label" -v n="$leaves" -v a="$tl" -v b="$tb" -v z="$t0" \
	    'BEGIN {
		if (a <= 0) a = 0.001
		if (b <= 0) b = 0.001
		printf "%-31s %11s  ludus %6.1f M/s  independent %6.1f M/s" \
		    "  ratio %.2f", l, n, n / a / 1e6, n / b / 1e6, b / a
		if (z > 0)
			printf "  (before %6.1f M/s, ratio %.2f, x%.2f)", \
			    n / z / 1e6, b / z, z / a
		printf "\n" }'
}

# The offsets of an Almakleh card side, from the deck in the definition.
card() {
	awk -v n="$1" '$1 == "card" {
		sub(/^ *card /, "")
		k = split($0, side, /\|/)
		for (i = 1; i <= k; i++) {
			m = split(side[i], w, " ")
			if (w[1] == n) {
				s = ""
				for (j = 2; j <= m; j++)
					s = s (j > 2 ? " " : "") w[j]
				print s
			}
		}
	}' "$top/games/almakleh.yaml"
}

want() { for w in $games; do [ "$w" = "$1" ] && return 0; done; return 1; }
games=${*:-mancala almakleh alquerque aluette spite}

printf '%-31s %11s  (medians of %d alternating runs each, CPU time)\n' \
    "game, depth" leaves "$runs"
if want mancala; then
	compare "mancala 6x4 depth 12" mancala 12 -- "$tmp/perft-mancala" 12
fi
if want almakleh; then
	deal=yak,badger,scorpion/zebra,bison
	compare "almakleh classic deal depth 8" almakleh 8 deal=$deal \
	    opening=classic -- "$tmp/perft-almakleh" 8 classic \
	    "$(card yak)" "$(card badger)" "$(card scorpion)" \
	    "$(card zebra)" "$(card bison)"
	# The published perft table of the classic game for its cards ox,
	# boar / horse, elephant / crab (the same patterns as yak, badger /
	# zebra, bison / scorpion), as tests/check_almakleh.c pins it.
	published="10 130 1989 28509 487780"
	d=1
	for n in $published; do
		got=$(sed -n "s/^depth $d: //p" "$tmp/ol")
		[ "$got" = "$n" ] || { echo "almakleh depth $d: $got, the published table says $n" >&2; exit 1; }
		d=$((d + 1))
	done
	echo "  (depths 1-5 are the published Onitama perft counts for ox, boar / horse, elephant / crab: $published)"
fi
if want alquerque; then
	compare "alquerque depth 14" alquerque 14 -- "$tmp/perft-alquerque" 14
fi
if want aluette; then
	"$bin" deal aluette "$seed1" --json >"$tmp/aluette.json"
	compare "aluette seed 1 depth 10" aluette 10 --seed 1 -- \
	    "$tmp/perft-aluette" 10 "$tmp/aluette.json"
fi
if want spite; then
	"$bin" deal spite "$seed1" --json >"$tmp/spite.json"
	compare "spite seed 1 depth 7" spite 7 --seed 1 -- \
	    "$tmp/perft-spite" 7 "$tmp/spite.json"
fi
