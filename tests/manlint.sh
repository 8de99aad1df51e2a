#!/bin/sh
# The manuals as groff reads them (preconv for their UTF-8, every warning
# on but for lines too long to break, which a long install prefix makes):
# not one warning, in the pages this build made and the shipped ones.
set -u
: "${LUDUS_BUILDDIR:?}" "${LUDUS_SRCDIR:?}"
pass=0 fail=0
. "$(dirname "$0")/testlib.sh"
command -v groff >/dev/null || { echo "manlint: groff missing"; exit 77; }
MAKEFLAGS= make -s -C "$LUDUS_BUILDDIR" man/ludus.1 man/ludusd.8 \
    man/ludus.yaml.5 man/ludus-templates.5 >/dev/null || bad "make the manuals"
for m in "$LUDUS_BUILDDIR"/man/ludus.1 "$LUDUS_BUILDDIR"/man/ludusd.8 \
    "$LUDUS_BUILDDIR"/man/ludus.yaml.5 "$LUDUS_BUILDDIR"/man/ludus-templates.5 \
    "$LUDUS_SRCDIR"/man/ludus-commands.7 "$LUDUS_SRCDIR"/man/ludus-games.7; do
	w=$(LC_ALL=C.UTF-8 groff -k -mandoc -ww -Wbreak -z -Tutf8 "$m" 2>&1)
	[ -z "$w" ] && ok || bad "${m##*/}: $w"
done
echo "manlint: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
