#!/bin/sh
# The referee's command table is the only way in: a file that runs the
# commands (a run, prior, remark or timer step named in the tables of
# src/refcmd.c) is called back by none of the files it runs them in, only
# refcmd.c runs them, and no ref*.c calls into referee.c, the message
# level that hands each line to the table.  Read from the objects' symbols (nm): which
# functions each src/ref*.o defines and which it calls.
set -u
src=${LUDUS_SRCDIR:?} build=${LUDUS_BUILDDIR:?}
command -v nm >/dev/null 2>&1 || { echo "no nm: skipped"; exit 77; }
. "$src/tests/testlib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# defs: "SYMBOL FILE" for every function a ref*.o defines; uses: "FILE
# SYMBOL" for every symbol it needs from elsewhere.
: > "$tmp/defs"
: > "$tmp/uses"
n=0
for o in "$build"/src/ref*.o "$build"/src/*-ref*.o; do
	[ -f "$o" ] || continue
	f=$(basename "$o" .o)
	f=${f#*-}
	nm -g --defined-only "$o" | awk -v f="$f" '$2 == "T" { print $3, f }' \
	    >> "$tmp/defs"
	nm -u "$o" | awk -v f="$f" '{ print f, $NF }' >> "$tmp/uses"
	n=$((n + 1))
done
[ "$n" -ge 8 ] || { echo "FAIL: no referee objects under $build/src"; exit 1; }

# The steps: every identifier in the initialisers of refcmd.c's tables
# that a ref*.o defines as a function.
sed -n '/^const struct command_entry command_table\[\] = {/,/^};/p
    /^} timers\[\] = {/,/^};/p' "$src/src/refcmd.c" |
    grep -o '\bref[a-z]*_[a-z_]*\b' | sort -u > "$tmp/named"
awk 'NR == FNR { d[$1] = 1; next } ($1 in d)' "$tmp/defs" "$tmp/named" \
    > "$tmp/steps"
if [ "$(wc -l < "$tmp/steps")" -ge 40 ]; then ok; else
	bad "only $(wc -l < "$tmp/steps") run steps found in src/refcmd.c"
fi

# dispatch: "CALLER CALLEE STEP" for every step one file calls in another.
awk 'FILENAME == ARGV[1] { s[$1] = 1; next }
    FILENAME == ARGV[2] { d[$1] = $2; next }
    ($2 in s) && ($2 in d) && d[$2] != $1 { print $1, d[$2], $2 }' \
    "$tmp/steps" "$tmp/defs" "$tmp/uses" > "$tmp/dispatch"
if grep -q '^refcmd refgame ' "$tmp/dispatch"; then ok; else
	bad "refcmd.o runs no step of refgame.o: is the table read?"
fi

# Only the table's file runs the steps.
while read -r caller callee step; do
	[ "$caller" = refcmd ] && continue
	bad "$caller.c calls $step, a step of $callee.c, past the table"
done < "$tmp/dispatch"

# No file calls back into a file that runs its commands.
awk '{ print $1, $2 }' "$tmp/dispatch" | sort -u > "$tmp/edges"
while read -r caller callee; do
	back=$(awk -v f="$callee" -v c="$caller" '
	    FILENAME == ARGV[1] { if ($2 == c) d[$1] = 1; next }
	    $1 == f && ($2 in d) { print $2 }' "$tmp/defs" "$tmp/uses" |
	    sort -u | tr '\n' ' ')
	if [ -n "$back" ]; then
		bad "$callee.c calls $caller.c, which runs its commands: $back"
	else
		ok
	fi
done < "$tmp/edges"

# Nor into the message level, which hands the lines to the table.
back=$(awk 'FILENAME == ARGV[1] { if ($2 == "referee") d[$1] = 1; next }
    $1 != "referee" && ($2 in d) { print $1 ".c: " $2 }' \
    "$tmp/defs" "$tmp/uses" | sort -u | tr '\n' ' ')
if [ -z "$back" ]; then ok; else bad "calls into referee.c: $back"; fi

echo "callgraph: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
