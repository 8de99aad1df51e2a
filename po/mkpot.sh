#!/bin/sh
# mkpot.sh SRCDIR YAMLPOT [OUT]: write the catalogue template (po/ludus.pot)
# from the sources listed in po/POTFILES and the game definitions' texts
# (games/*.yaml, read by the yamlpot tool).  The header carries no date, so
# the file changes only when a string does; tests/po.sh compares it.
set -eu
src=$1 yamlpot=$2 out=${3:-$1/po/ludus.pot}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$yamlpot" "$src/games" > "$tmp/games.pot"
(cd "$src" && xgettext --from-code=UTF-8 --language=C --add-comments=TRANSLATORS \
    --keyword=_ --keyword=N_ --keyword=P_:1,2 --flag=P_:1:c-format \
    --flag=P_:2:c-format --flag=util_err:3:c-format --flag=ref_fail:2:c-format \
    --flag=cmd_err:3:c-format --flag=buf_printf:2:c-format \
    --package-name=ludus --no-wrap --sort-by-file --add-location=file \
    -f po/POTFILES -o "$tmp/src.pot")
msgcat --no-wrap --add-location=file --use-first -o "$tmp/all.pot" "$tmp/src.pot" "$tmp/games.pot"
sed -e '/^"POT-Creation-Date:/d' -e 's/^"Content-Type: text\/plain; charset=CHARSET/"Content-Type: text\/plain; charset=UTF-8/' \
    "$tmp/all.pot" > "$tmp/out.pot"
mv "$tmp/out.pot" "$out"
