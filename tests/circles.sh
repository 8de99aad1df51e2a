#!/bin/sh
# No two files of src/ call each other in a circle: the graph of the
# library's objects (libludus.a), a file an edge to each file whose
# function or data it uses (nm), has no strongly connected group of
# files beyond the ones still named below, and none of those grows.
# Each group named here is one to take apart; the list only shrinks.
set -u
build=${LUDUS_BUILDDIR:?} src=${LUDUS_SRCDIR:?}
command -v nm >/dev/null 2>&1 || { echo "circles: no nm: skipped"; exit 77; }
. "$src/tests/testlib.sh"
lib=$build/libludus.a
[ -f "$lib" ] || { echo "FAIL: no $lib"; exit 1; }

# The groups still known, one a line.
known='refclock refcond refcore refdeck refeff refladder reflife refrobot refview site'

# "FILE SYMBOL" for each symbol a member defines (D) or uses (U).
nm -A "$lib" 2>/dev/null | awk '
    { split($1, a, ":"); f = a[2]; sub(/\.o$/, "", f); sub(/^libludus_a-/, "", f) }
    NF == 3 && $2 ~ /^[TDBRCV]$/ { print "D", f, $3; next }
    NF == 3 && $2 == "U" { print "U", f, $3 }' > "${TMPDIR:-/tmp}/circles.$$"
groups=$(awk '
    $1 == "D" { def[$3] = $2; files[$2] = 1; next }
    { use[NR] = $2 " " $3 }
    END {
	for (i in use) {
		split(use[i], u, " ")
		if ((u[2] in def) && def[u[2]] != u[1])
			r[u[1], def[u[2]]] = 1
	}
	n = 0
	for (f in files) name[++n] = f
	# Floyd-Warshall closure: a few dozen files.
	for (k = 1; k <= n; k++)
		for (i = 1; i <= n; i++)
			if ((name[i], name[k]) in r)
				for (j = 1; j <= n; j++)
					if ((name[k], name[j]) in r)
						r[name[i], name[j]] = 1
	for (i = 1; i <= n; i++) {
		if (name[i] in seen) continue
		g = name[i]; m = 1
		for (j = 1; j <= n; j++)
			if (j != i && ((name[i], name[j]) in r) &&
			    ((name[j], name[i]) in r)) {
				g = g " " name[j]; seen[name[j]] = 1; m++
			}
		if (m > 1) print g
	}
    }' "${TMPDIR:-/tmp}/circles.$$")
rm -f "${TMPDIR:-/tmp}/circles.$$"
nfiles=$(nm -A "$lib" 2>/dev/null | awk -F: '{ print $2 }' | sort -u | wc -l)
[ "$nfiles" -ge 40 ] && ok || bad "only $nfiles objects read from $lib"

# Each group found must lie inside one known group.
echo "$groups" | while read -r g; do
	[ -n "$g" ] || continue
	inside=0
	while read -r k; do
		all=1
		for f in $g; do
			case " $k " in *" $f "*) ;; *) all=0 ;; esac
		done
		[ $all = 1 ] && inside=1
	done <<KNOWN
$known
KNOWN
	[ $inside = 1 ] && echo ok || echo "bad files calling each other in a circle: $(echo "$g" | tr ' ' '\n' | sort | tr '\n' ' ')"
done > "${TMPDIR:-/tmp}/circles.out.$$"
while read -r verdict rest; do
	if [ "$verdict" = ok ]; then ok; else bad "$rest"; fi
done < "${TMPDIR:-/tmp}/circles.out.$$"
rm -f "${TMPDIR:-/tmp}/circles.out.$$"
echo "circles: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
