#!/bin/sh
# No game knowledge outside the engines: in src/ outside src/games/, no
# code names a game.  The names are the games' and their aliases from
# games/*.yaml.  Comments and the words of messages may speak of a game;
# code may not: no identifier holds a game's name (G_SPITE, aluette_view,
# a `case` on it), and no string literal is a game's name or alias (a
# strcmp() against it, a table keyed by it).  What robots and the
# referee need to know of a game comes through the engine's game_ops
# hooks (src/games/game.h).
#
# The one exception is the configuration's `almakleh:` section
# (almakleh.cycle_deck in ludus.yaml(5)), a setting's name that happens
# to be a game's: its row in the settings table and its member in
# struct conf.
#
# With a directory argument the check reads that tree instead of
# $LUDUS_SRCDIR (to show that it fails on a tree that breaks the rule).
set -u
. "${LUDUS_SRCDIR:?}/tests/testlib.sh"
src=${1:-$LUDUS_SRCDIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The games' names and aliases, one a line, lower case (Latin only: the
# code is written in ASCII).
for y in "$src"/games/*.yaml; do
	[ "$(basename "$y")" = commands.yaml ] && continue
	sed -n -e 's/^name: *//p' -e 's/^aliases: *\[\(.*\)\]/\1/p' "$y"
done | tr 'A-Z,' 'a-z\n' | tr -d ' \t' | grep '^[a-z0-9&-]*$' |
    grep -v '^$' | sort -u >"$tmp/names"
[ -s "$tmp/names" ] || { bad "no game names read from $src/games"; }
alt=$(paste -sd'|' "$tmp/names" | sed 's/&/\\&/g')

# Each source file without its comments, as FILE:LINE:CODE; string
# literals are kept, character literals become ' ', and a literal that
# goes on from the one before it ("seek " "mancala") is marked with a +.
strip() {
	awk -v f="$1" '
	{
		out = ""
		n = length($0)
		for (i = 1; i <= n; i++) {
			ch = substr($0, i, 1)
			nx = substr($0, i + 1, 1)
			if (state == "block") {
				if (ch == "*" && nx == "/") { state = ""; i++ }
				continue
			}
			if (state == "str") {
				out = out ch
				if (ch == "\\") { out = out nx; i++ }
				else if (ch == "\"") { state = ""; after = 1 }
				continue
			}
			if (state == "chr") {
				if (ch == "\\") i++
				else if (ch == "\047") state = ""
				continue
			}
			if (ch == "/" && nx == "*") { state = "block"; i++; continue }
			if (ch == "/" && nx == "/") break
			if (ch == "\"") {
				state = "str"
				out = out (after ? "+" : "")
			} else if (ch == "\047") {
				state = "chr"
				out = out "\047 \047"
				after = 0
				continue
			} else if (ch != " " && ch != "\t")
				after = 0
			out = out ch
		}
		print f ":" FNR ":" out
	}' "$1"
}

n=0
for c in "$src"/src/*.c "$src"/src/*.h; do
	[ -f "$c" ] || continue
	n=$((n + 1))
	strip "$c"
done >"$tmp/code"
[ "$n" -gt 0 ] || bad "no sources in $src/src"

# The allowed exception, by its exact text.
allow='(\{ "almakleh", 0, |O\(almakleh\.|->almakleh\.|^	\} almakleh;$)'

# Identifiers holding a game's name, outside string literals (an alias
# spelt with - or & would be spelt with _ there).
ids=$(tr '&-' '__' <"$tmp/names" | sort -u | paste -sd'|')
sed 's/"\([^"\\]\|\\.\)*"/""/g' "$tmp/code" |
    grep -iE "^[^:]*:[0-9]+:.*($ids)" >"$tmp/ident" || :
# String literals that are a game's name or alias.
grep -iE "(^|[^+])\"($alt)\"" "$tmp/code" >"$tmp/lit" || :

for kind in ident lit; do
	while IFS= read -r line; do
		code=${line#*:*:}
		if printf '%s\n' "$code" | grep -qE "$allow"; then
			ok
			continue
		fi
		bad "a game named in code outside src/games: $line"
	done <"$tmp/$kind"
done
ok

echo "engine-names: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
