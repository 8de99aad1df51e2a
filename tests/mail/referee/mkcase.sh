#!/bin/sh
# Write a golden case that plays a whole game by mail (see README here).
#
#   mkcase.sh [--cli-new] [--max N] CASEDIR GAME [OPT=VAL ...] ADDRESS ...
#   mkcase.sh --game ID [--max N] CASEDIR
#
# The case's mails so far (and its setup) are replayed first, as
# tests/golden.sh does.  Then, unless --game names a game that exists by
# now, the first ADDRESS proposes the game by mail (`new GAME OPT=VAL ...
# OTHER-ADDRESSES`) and every seat accepts with its token; with --cli-new
# the game is made by a setup line (`ludus new`, no acceptance) instead.
# Then the seat to move plays, each time, the first legal move `ludus moves
# ID --as ADDRESS` lists, in a reply tagged [ludus #ID TOKEN] whose body is
# the move, until the game ends or N moves (default 400) were written.
# Every mail is delivered as soon as it is written, so the next one can be
# chosen.  At the end the case's expected and expected-db are written and
# files.am is brought up to date: read them through before committing.
#
# When the referee does not do what a step needs (no game after `new`, not
# active after the accepts, a move not played), mkcase.sh stops with the
# referee's last answer and leaves the mails written so far in CASEDIR.
#
# Environment: LUDUS_BIN (a test build of ludus, required), LUDUS_SRCDIR
# (default: this file's source tree), LUDUS_GAMES_DIR (default: its games).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${LUDUS_BIN:?set LUDUS_BIN to a ludus built with --enable-test-clock}"
LUDUS_SRCDIR=${LUDUS_SRCDIR:-$(cd "$here/../../.." && pwd)}
LUDUS_GAMES_DIR=${LUDUS_GAMES_DIR:-$LUDUS_SRCDIR/games}
export LUDUS_BIN LUDUS_SRCDIR LUDUS_GAMES_DIR
. "$LUDUS_SRCDIR/tests/goldenlib.sh"

usage() {
	echo "usage: mkcase.sh [--cli-new] [--max N] CASEDIR GAME [OPT=VAL ...] ADDRESS ..." >&2
	echo "       mkcase.sh --game ID [--max N] CASEDIR" >&2
	exit 64
}
die() {
	echo "mkcase: $*" >&2
	exit 1
}

cli_new=0 game='' max=400
while [ $# -gt 0 ]; do
	case $1 in
	--cli-new) cli_new=1 ;;
	--game) [ $# -ge 2 ] || usage; game=${2#\#}; shift ;;
	--max) [ $# -ge 2 ] || usage; max=$2; shift ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
if [ -n "$game" ]; then
	[ $# -ge 1 ] || usage
	case_dir=$1 kind=${2:-}
	shift
	[ $# -eq 0 ] || shift
else
	[ $# -ge 2 ] || usage
	case_dir=$1 kind=$2
	shift 2
fi
opts='' addrs=''
for w in "$@"; do
	case $w in
	*=*) opts="$opts $w" ;;
	*) addrs="$addrs $w" ;;
	esac
done
[ -n "$addrs" ] || [ -n "$game" ] || usage
case ${max:-x} in *[!0-9]*) usage ;; esac
golden_test_build || die "$LUDUS_BIN is not a test build (configure --enable-test-clock)"
command -v sqlite3 >/dev/null || die "needs the sqlite3 shell"

mkdir -p "$case_dir" || exit 1
case_dir=$(cd "$case_dir" && pwd)
name=${case_dir##*/}
work=$(mktemp -d "${TMPDIR:-/tmp}/ludus-mkcase.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
golden_replay "$work" "$case_dir" || die "replaying the case failed"

# The number of the next mail, written as wide as the case's first one.
last=$(golden_steps "$case_dir" | tail -n 1)
if [ -n "$last" ]; then
	first=$(golden_steps "$case_dir" | head -n 1)
	first=${first##*/}
	width=${first%%-*}
	width=${#width}
	seq=$(golden_index "$last")
else
	width=3 seq=0
fi

q() { golden_ludus "$work" "$@" 2>>"$work/log"; }

# look ID: read the game's `ludus list` line; field N: its field N (3
# status, 4 "moves K", 6 "to move: ...") as last read.
look() {
	line=$(q list | awk -F '\t' -v id="#$1" '$1 == id')
}
field() {
	echo "$line" | awk -F '\t' -v n="$1" '{ print $n }'
}
newest_game() { q list | head -n 1 | cut -f 1 | tr -d '#'; }
# The seats' addresses in seat order, one per line.
seats() {
	q export "$1" | grep -o '"players":\[[^]]*\]' |
	    grep -o '"address":"[^"]*"' | sed 's/^"address":"//; s/"$//'
}
# The latest referee mail to ADDRESS about game ID: its Message-ID.
last_mail_to() {
	q outbox --all | awk -v to="To: $1" -v tag="#$2 " '
	    /^=== mail / { inhead = 1; t = 0; s = 0; next }
	    inhead && /^$/ { inhead = 0; if (t && s && id != "") last = id; next }
	    inhead && $0 == to { t = 1 }
	    inhead && /^Subject: / && index($0, tag) { s = 1 }
	    inhead && /^Message-ID: / { id = $2 }
	    END { print last }'
}
# The text of the referee's last mail, for when something went wrong.
last_answer() {
	q outbox --all | awk '/^=== mail / { buf = "" } { buf = buf $0 "\n" }
	    END { printf "%s", buf }' | sed 's/^/  | /'
}

# write SLUG FROM SUBJECT BODY [IN-REPLY-TO]: the next mail, delivered.
write() {
	seq=$((seq + 1))
	nn=$(printf "%0${width}d" "$seq")
	f=$case_dir/$nn-$1.eml
	[ -e "$f" ] && die "$f exists"
	{
		printf 'From: %s\n' "$2"
		printf 'To: referee@example.org\n'
		printf 'Subject: %s\n' "$3"
		printf 'Message-ID: <%s.%s@mkcase.example>\n' "$name" "$nn"
		[ -n "${5:-}" ] && printf 'In-Reply-To: %s\n' "$5"
		printf 'Date: %s\n' "$(date -u -R -d "@$(golden_time "$seq")")"
		printf 'Content-Type: text/plain; charset=utf-8\n\n%s\n' "$4"
	} >"$f"
	echo "${f##*/}: $4"
	golden_deliver "$work" "$f" || die "delivering ${f##*/} failed"
}

# A move whose first word is a command keyword goes after `move`; any
# other is the whole body, as a player would reply.
body_of() {
	set -f
	# shellcheck disable=SC2086
	set -- $1
	set +f
	case $(echo "$1" | tr '[:upper:]' '[:lower:]') in
	help | commands | games | new | accept | decline | move | preview | \
	board | history | resign | concede | draw | signal | observe | watch | \
	unobserve | unwatch | list | bump | set | vacation | say | thanks | \
	thank | thx | report | confirm | admin)
		echo "move $*" ;;
	*) echo "$*" ;;
	esac
}

# The game.
if [ -n "$game" ]; then
	look "$game"
	[ -n "$(field 3)" ] || die "there is no game #$game"
elif [ $cli_new = 1 ]; then
	before=$(newest_game)
	# shellcheck disable=SC2086
	echo "new $kind$opts$addrs" >>"$case_dir/setup"
	set -f
	# shellcheck disable=SC2086
	golden_run "$work" new $kind $opts $addrs >>"$work/log" 2>&1 ||
	    die "ludus new $kind$opts$addrs failed: $(tail -n 1 "$work/log")"
	set +f
	game=$(newest_game)
	[ "$game" != "$before" ] || die "ludus new made no game"
	echo "setup: new $kind$opts$addrs (game #$game)"
else
	before=$(newest_game)
	# shellcheck disable=SC2086
	set -- $addrs
	proposer=$1
	shift
	write new "$proposer" "new $kind" "new $kind$opts${*:+ $*}"
	game=$(newest_game)
	[ -n "$game" ] && [ "$game" != "$before" ] || {
		last_answer >&2
		die "the referee made no game from \`new $kind$opts $*\`"
	}
fi
all_seats=$(seats "$game")
[ -n "$all_seats" ] || die "game #$game has no players"
look "$game"

# seat_of ADDRESS: its seat number.
seat_of() {
	echo "$all_seats" | awk -v a="$1" '$0 == a { print NR - 1; exit }'
}

# The invitation: every seat that has not accepted does.
if [ "$(field 3)" = invited ]; then
	s=0
	for a in $all_seats; do
		acc=$(sqlite3 "$work/ludus.db" "SELECT accepted FROM seats WHERE game_id = $game AND seat = $s")
		if [ "$acc" = 0 ]; then
			write "accept-${a%%@*}" "$a" "Re: [ludus #$game @TOKEN($game,$s)@]" \
			    accept "$(last_mail_to "$a" "$game")"
		fi
		s=$((s + 1))
	done
	look "$game"
	[ "$(field 3)" = active ] || {
		last_answer >&2
		die "game #$game is $(field 3) after every seat accepted"
	}
fi

# The moves.
n=0
while [ "$(field 3)" = active ]; do
	[ "$n" -lt "$max" ] || { echo "mkcase: stopped after $max moves"; break; }
	who=$(field 6)
	who=${who#to move: }
	who=${who%%,*}
	[ -n "$who" ] && [ "$who" != - ] || die "game #$game: nobody to move"
	s=$(seat_of "$who")
	[ -n "$s" ] || die "game #$game: $who has no seat"
	move=$(q moves "$game" --as "$who" | head -n 1)
	[ -n "$move" ] || die "game #$game: no legal move for $who"
	plies=$(field 4)
	write "move-${who%%@*}" "$who" "Re: [ludus #$game @TOKEN($game,$s)@]" \
	    "$(body_of "$move")" "$(last_mail_to "$who" "$game")"
	n=$((n + 1))
	look "$game"
	if [ "$(field 4)" = "$plies" ] && [ "$(field 3)" = active ]; then
		last_answer >&2
		die "the referee did not play \`$move\` for $who (seat $s) of game #$game"
	fi
done
echo "game #$game: $(field 3) after $(field 4)"

# What the referee wrote becomes the expectation, to be read through.
golden_dump "$work" "$case_dir/expected" || die "ludus outbox --all failed"
golden_db "$work" "$case_dir/expected-db" || die "reading the database failed"
case $case_dir in
"$here"/*) golden_files_am "$here" ;;
esac
echo "wrote $case_dir/expected and expected-db"
