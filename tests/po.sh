#!/bin/sh
# The catalogues (po/): the template is what the sources and games/*.yaml
# say now, every message is translated in every language, none is fuzzy,
# and msgfmt -c (format strings, plural forms, header) is clean.
set -u
src=${LUDUS_SRCDIR:?} yamlpot=${LUDUS_YAMLPOT:?}
command -v msgfmt >/dev/null 2>&1 || { echo "no msgfmt: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

if ! sh "$src/po/mkpot.sh" "$src" "$yamlpot" "$tmp/ludus.pot"; then
	echo "FAIL: cannot make the template"; exit 1
fi
if ! diff -u "$src/po/ludus.pot" "$tmp/ludus.pot" > "$tmp/pot.diff"; then
	echo "FAIL: po/ludus.pot is stale: run make update-po"
	cat "$tmp/pot.diff"; fail=1
fi
for l in ru ar; do
	po=$src/po/$l.po
	if ! msgfmt -c --statistics -o /dev/null "$po" 2> "$tmp/stat"; then
		echo "FAIL: msgfmt -c $l.po"; cat "$tmp/stat"; fail=1
	fi
	if ! msgcmp "$po" "$tmp/ludus.pot" 2> "$tmp/cmp"; then
		echo "FAIL: $l.po lacks messages of the template"
		cat "$tmp/cmp"; fail=1
	fi
	# Only "N translated messages.": no fuzzy, no untranslated.
	if ! grep -Eq '^[0-9]+ translated messages?\.$' "$tmp/stat"; then
		echo "FAIL: $l.po is not complete:"; cat "$tmp/stat"
		msgattrib --untranslated --no-obsolete "$po"
		msgattrib --only-fuzzy --no-obsolete "$po"; fail=1
	fi
	n=$(msgattrib --only-obsolete "$po" | grep -c '^#~ msgid ' || true)
	[ "$n" -gt 0 ] && { echo "FAIL: $l.po: $n obsolete messages (msgattrib --no-obsolete)"; fail=1; }
	cat "$tmp/stat"
done
exit $fail
