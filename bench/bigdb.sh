#!/bin/bash
# A database of many finished games: its size, the cost of a finished game
# beyond its move log, and the cost of a move on it against a small one.
#
#   bench/bigdb.sh [GAMES] [CASE]    (defaults: 100000 game-aluette)
#
# Run from a build directory of a test build (--enable-test-clock), or
# with LUDUS_BIN, LUDUS_GAMES_DIR and LUDUS_SRCDIR set.
#
# 1. One real game: the golden case CASE (tests/mail/referee/CASE, by
#    default a whole Aluette game, 4 players and 180 moves, the longest of
#    the golden games) is played through `ludus deliver`, its mail sent by
#    `ludus flush`, and retention applied 40 days later by `ludus prune`,
#    as the daemon would (processed keys after 30 days, sent mail after 14).
# 2. Its rows (the game, its seats, moves, events, ratings changes) are
#    copied by SQL into GAMES-1 more games between GAMES/5 players
#    (players' rows copied from the real ones with new addresses) in one
#    database, and into 9 more in another: rows of the shape the referee
#    writes, as many as it would have written.
# 3. Sizes: the file, and per finished game (the difference between the two
#    databases over the difference in games), split into its move log (the
#    moves table and its index) and the rest, from SQLite's dbstat.
# 4. Moves: in each database 40 Mancala games (pits=3, seeds=1) are
#    started with `ludus new` and their moves delivered as mail through
#    `ludus deliver`, one mail to the small database, then the same to the
#    big one, and so on (the page cache warm for both, after a first
#    pass); the medians and means of the wall time of each deliver, side by
#    side.
set -u
export LC_ALL=C TZ=UTC
N=${1:-100000}
CASE=${2:-game-aluette}
here=$(pwd)
: "${LUDUS_BIN:=$here/ludus}" "${LUDUS_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${LUDUS_GAMES_DIR:=$LUDUS_SRCDIR/games}"
export LUDUS_BIN LUDUS_SRCDIR LUDUS_GAMES_DIR
. "$LUDUS_SRCDIR/tests/goldenlib.sh"
golden_test_build || { echo "bigdb: $LUDUS_BIN is not a test build"; exit 1; }
w=$(mktemp -d "${BIGDB_DIR:-/var/tmp}/ludus-bigdb.XXXXXX") || exit 1
trap 'rm -rf "$w"' EXIT
mkdir "$w/t"
t0=$SECONDS

# --- 1. one real finished game, after retention ----------------------------
golden_replay "$w/t" "$LUDUS_SRCDIR/tests/mail/referee/$CASE" || exit 1
LUDUS_NOW=$((GOLDEN_BASE + 86400)) golden_ludus "$w/t" flush >/dev/null 2>&1 || exit 1
# What retention takes away: kept for 30 days (processed keys) and 14
# (sent mail), a cost of traffic, not of the finished game.
echo "before retention, for this game: $(sqlite3 "$w/t/ludus.db" "SELECT count(*) || ' mails, ' || sum(length(data)) || ' bytes of mail' FROM outbox"), $(sqlite3 "$w/t/ludus.db" "SELECT sum(pgsize) FROM dbstat WHERE name IN ('outbox', 'outbox_due', 'outbox_done', 'sqlite_autoindex_outbox_1', 'processed', 'processed_received', 'sqlite_autoindex_processed_1', 'replies', 'replies_at', 'replies_sender')") bytes of pages in outbox, processed, replies"
LUDUS_NOW=$((GOLDEN_BASE + 40 * 86400)) golden_ludus "$w/t" prune >/dev/null || exit 1
tdb=$w/t/ludus.db
[ "$(sqlite3 "$tdb" "SELECT count(*) FROM games WHERE status = 'finished'")" = 1 ] ||
    { echo "bigdb: $CASE does not finish one game"; exit 1; }
echo "template: $CASE, $(sqlite3 "$tdb" "SELECT count(*) FROM moves") moves," \
    "$(sqlite3 "$tdb" "SELECT count(*) FROM seats") seats; left after retention:" \
    "outbox $(sqlite3 "$tdb" "SELECT count(*) FROM outbox"), processed $(sqlite3 "$tdb" "SELECT count(*) FROM processed")"

# --- 2. GAMES copies by SQL ----------------------------------------------
# Columns of TABLE as a select list, with game_id shifted by k.n and the
# player references mapped onto the copied players.
cols() { sqlite3 "$tdb" "SELECT group_concat(name, ',') FROM pragma_table_info('$1')"; }
sel() { # TABLE
	local c out= sep=
	for c in $(cols "$1" | tr , ' '); do
		case $c in
		game_id) c="game_id + k.n" ;;
		player_id|inviter|to_player|from_player)
			c="CASE WHEN $c IS NULL THEN NULL ELSE (SELECT np.id FROM np WHERE np.old = $c AND np.k = k.n % np.copies) END" ;;
		esac
		out="$out$sep$c"
		sep=,
	done
	echo "$out"
}
replicate() { # DB GAMES
	local db=$1 n=$2 players copies t
	cp "$tdb" "$db"
	players=$(sqlite3 "$db" "SELECT count(*) FROM players")
	copies=$(( n / 5 / players )); [ $copies -ge 1 ] || copies=1
	{
		echo "PRAGMA journal_mode = WAL; BEGIN;"
		# np: template player, copy number, its copy's id.
		echo "CREATE TEMP TABLE np (old INTEGER, k INTEGER, id INTEGER, copies INTEGER, PRIMARY KEY (old, k));"
		echo "WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < $copies - 1)"
		echo "INSERT INTO np SELECT p.id, k.n, CASE WHEN k.n = 0 THEN p.id ELSE (SELECT max(id) FROM players) + (k.n - 1) * $players + p.id END, $copies FROM players p, k;"
		pc=$(cols players | sed 's/^id,//; s/,address,/,/')
		echo "INSERT INTO players (id, address, ${pc#address,}) SELECT np.id, 'p' || np.id || '@bench.example.org', $(echo "${pc#address,}" | sed 's/\([a-z_][a-z_]*\)/p.\1/g') FROM np JOIN players p ON p.id = np.old WHERE np.k > 0;"
		echo "CREATE TEMP TABLE k (n INTEGER PRIMARY KEY);"
		echo "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < $n - 1) INSERT INTO k SELECT n FROM r;"
		gc=$(cols games)
		echo "INSERT INTO games ($gc) SELECT $(echo "$gc" | sed 's/^id,/id + k.n,/; s/,inviter,/,CASE WHEN inviter IS NULL THEN NULL ELSE (SELECT np.id FROM np WHERE np.old = inviter AND np.k = k.n % np.copies) END,/') FROM games, k WHERE games.id = 1;"
		for t in seats moves events rating_changes observers thanks timers; do
			echo "INSERT INTO $t ($(cols $t)) SELECT $(sel $t) FROM $t, k WHERE $t.game_id = 1;"
		done
		echo "COMMIT;"
	} >"$w/rep.sql"
	sqlite3 "$db" <"$w/rep.sql" >/dev/null || { echo "bigdb: replication failed"; exit 1; }
	sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
}
small=$w/small.db big=$w/big.db
replicate "$small" 10
replicate "$big" "$N"
echo "built: 10 and $N games in $((SECONDS - t0)) s"

# --- 3. sizes --------------------------------------------------------------
size() { stat -c %s "$1"; }
part() { # DB: bytes of the move log, bytes of everything else
	sqlite3 "$1" "SELECT sum(CASE WHEN name IN ('moves', 'sqlite_autoindex_moves_1') THEN pgsize ELSE 0 END), sum(CASE WHEN name IN ('moves', 'sqlite_autoindex_moves_1') THEN 0 ELSE pgsize END) FROM dbstat"
}
IFS='|' read -r sm so <<<"$(part "$small")"
IFS='|' read -r bm bo <<<"$(part "$big")"
d=$((N - 10))
echo "size: $N games $(size "$big") bytes ($(awk -v b="$(size "$big")" 'BEGIN { printf "%.3f", b / 1073741824 }') GiB); 10 games $(size "$small") bytes"
echo "per finished game: $(( (bm + bo - sm - so) / d )) bytes, of which the move log $(( (bm - sm) / d )) and the rest $(( (bo - so) / d ))"
sqlite3 "$big" "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 8" | sed 's/^/  /'

# --- 4. a move on each, side by side --------------------------------------
mkconf() { # DIR DB
	golden_init "$1"
	sed -i "s|^database: .*|database: $2|" "$1/ludus.yaml"
}
mkdir "$w/s" "$w/b"
mkconf "$w/s" "$small"
mkconf "$w/b" "$big"
G=40
ids_s= ids_b=
for i in $(seq 1 $G); do
	ids_s="$ids_s $(golden_ludus "$w/s" new mancala pits=3 seeds=1 ann$i@example.org ben$i@example.org | sed -n 's/^game #\([0-9]*\).*/\1/p')"
	ids_b="$ids_b $(golden_ludus "$w/b" new mancala pits=3 seeds=1 ann$i@example.org ben$i@example.org | sed -n 's/^game #\([0-9]*\).*/\1/p')"
done
set -- $ids_s; ids_s=("$@")
set -- $ids_b; ids_b=("$@")
moves=$(sed -n 's/^move | 1 | [0-9]* | \([0-9]\) | \(.*\)$/\1 \2/p' "$LUDUS_SRCDIR/tests/mail/referee/game-kalah-3-pits/expected-db")
msg() { # DIR GAME SEAT MOVE SERIAL
	local who tok
	who=$([ "$3" = 0 ] && echo ann || echo ben)
	tok=$(golden_ludus "$1" token "$2" "$3")
	printf 'From: %s@example.org\nTo: referee@example.org\nSubject: Re: [ludus #%s %s]\nMessage-ID: <bench.%s@example.org>\nDate: Fri, 01 Jan 2027 00:00:00 +0000\nContent-Type: text/plain; charset=utf-8\n\n%s\n' \
	    "$who$4" "$2" "$tok" "$5" "$6"
}
: >"$w/times"
serial=0
for i in $(seq 0 $((G - 1))); do
	while read -r seat mv; do
		serial=$((serial + 1))
		for side in s b; do
			if [ $side = s ]; then id=${ids_s[$i]}; else id=${ids_b[$i]}; fi
			msg "$w/$side" "$id" "$seat" "$((i + 1))" "$side$serial" "$mv" >"$w/m"
			a=${EPOCHREALTIME/./}
			LUDUS_NOW=$GOLDEN_BASE golden_ludus "$w/$side" deliver <"$w/m" 2>>"$w/deliver.log" ||
			    { echo "bigdb: deliver failed: $(tail -n 2 "$w/deliver.log")"; exit 1; }
			b=${EPOCHREALTIME/./}
			# The first game warms the caches: not counted.
			[ "$i" -gt 0 ] && echo "$side $((b - a))" >>"$w/times"
		done
	done <<<"$moves"
done
applied_s=$(sqlite3 "$small" "SELECT count(*) FROM moves WHERE game_id >= ${ids_s[0]}")
applied_b=$(sqlite3 "$big" "SELECT count(*) FROM moves WHERE game_id >= ${ids_b[0]}")
[ "$applied_s" = "$applied_b" ] && [ "$applied_s" -gt 0 ] ||
    { echo "bigdb: moves applied: small $applied_s, big $applied_b"; exit 1; }
stats() { # SIDE
	awk -v s="$1" '$1 == s { print $2 }' "$w/times" | sort -n |
	    awk '{ v[NR] = $1; t += $1 } END { printf "%d %d %d", v[int((NR + 1) / 2)], t / NR, NR }'
}
read -r ms as ns <<<"$(stats s)"
read -r mb ab nb <<<"$(stats b)"
echo "move ($ns each, $applied_s moves applied in each): 10 games median ${ms} us mean ${as} us; $N games median ${mb} us mean ${ab} us"
echo "ratio $N/10 games: median $(awk -v a="$mb" -v b="$ms" 'BEGIN { printf "%.3f", a / b }'), mean $(awk -v a="$ab" -v b="$as" 'BEGIN { printf "%.3f", a / b }')"
echo "total $((SECONDS - t0)) s"
