#!/bin/sh
# Engine speed: leaves per second of `ludus perft` for each game, from an
# optimised build.  Not part of the test suite.
#
#   bench/perft.sh [BUILD-DIR]     (default build-run, as contrib/bootstrap
#                                   run leaves it)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$top/build-run}/ludus
export LUDUS_GAMES_DIR="$top/games"
[ -x "$bin" ] || { echo "no $bin: build first (sh contrib/bootstrap run)" >&2; exit 1; }

run() { # LABEL GAME DEPTH [ARGS...]
	label=$1
	shift
	start=$(date +%s.%N)
	leaves=$("$bin" perft "$@" | tail -n 1 | sed 's/.*: //')
	end=$(date +%s.%N)
	awk -v l="$label" -v n="$leaves" -v s="$start" -v e="$end" 'BEGIN {
		t = e - s; if (t <= 0) t = 1e-9
		printf "%-34s %12d leaves %8.3f s %12.0f leaves/s\n", l, n, t, n / t }'
}

run "mancala 6x4 depth 10" mancala 10
run "alquerque depth 12" alquerque 12
run "almakleh classic deal depth 6" almakleh 6 deal=yak,badger,scorpion/zebra,bison opening=classic
run "aluette seed 1 depth 5" aluette 5 --seed 1
run "spite seed 1 depth 5" spite 5 --seed 1
