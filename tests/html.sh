#!/bin/sh
# The HTML parts of the referee's mails in a real browser engine.  For
# every game, its start, move, end and error mail (taken from the golden
# cases' expected outputs, which tests/golden.sh keeps equal to what the
# referee writes) must be well-formed XML, reference nothing outside the
# mail, and, laid out by headless Chromium at a phone's 375 px and at a
# desktop's 1024 px, have no board line that wraps or overflows its box
# and no page wider than the window.  One screenshot per game and mail
# kind (both widths side by side) goes to $LUDUS_SHOTS_DIR (default
# ./screenshots): `make screenshots` writes them too.
#
# Needs chromium and xmllint (Debian's chromium and libxml2-utils); skips
# without them, except under CI.
set -u
: "${LUDUS_SRCDIR:?}"
cases=$LUDUS_SRCDIR/tests/mail/referee
shots=${LUDUS_SHOTS_DIR:-$PWD/screenshots}
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
fail=0

missing=
[ -n "$chromium" ] || missing="chromium"
command -v xmllint >/dev/null 2>&1 || missing="$missing xmllint"
if [ -n "$missing" ]; then
	echo "html: not installed:$missing"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-html.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$shots" || exit 99

. "$(dirname "$0")/browserlib.sh"

# pick FILE REGEX: the HTML part of the first mail in a golden expected
# file whose Subject matches REGEX and that has one.
pick() {
	awk -v re="$2" '
		/^=== mail [0-9]+ ===$/ { subj = ""; html = 0; next }
		/^Subject: / { subj = $0; next }
		/^--- text\/html ---$/ { if (subj ~ re) html = 1; next }
		html { print }
		html && /^<\/html>$/ { exit }
	' "$1"
}

# The pages: GAME-KIND.html.
pages=
for spec in kalah:game-kalah-3-pits:1 alquerque:game-alquerque:2 \
    almakleh:game-almakleh:3 aluette:game-aluette:4 spite:game-spite:5; do
	game=${spec%%:*}
	rest=${spec#*:}
	case=${rest%%:*}
	id=${rest#*:}
	for kind in start move end error; do
		case $kind in
		start) src=$cases/$case/expected re='Your move: .* begins' ;;
		move) src=$cases/$case/expected re='Your move: .* played ' ;;
		end) src=$cases/$case/expected re=' is over' ;;
		error) src=$cases/html-errors/expected re="#$id [a-z0-9]+\\] Not done" ;;
		esac
		pick "$src" "$re" >"$tmp/$game-$kind.html"
		if [ ! -s "$tmp/$game-$kind.html" ]; then
			echo "FAIL $game $kind: no mail with an HTML part in ${src#"$LUDUS_SRCDIR"/}"
			fail=$((fail + 1))
			continue
		fi
		pages="$pages $game-$kind"
	done
done

# The same games read right to left (the Arabic golden games): the text
# dir="rtl", the boards and notation left to right, and no board line
# that wraps or overflows either.
for game in kalah alquerque almakleh aluette spite; do
	case=game-$game-ar
	for kind in start move end; do
		case $kind in
		start) re='دورك: بدأت' ;;
		move) re='دورك: .*، لعب' ;;
		end) re='\] انتهت ' ;;
		esac
		pick "$cases/$case/expected" "$re" >"$tmp/$game-ar-$kind.html"
		if [ ! -s "$tmp/$game-ar-$kind.html" ]; then
			echo "FAIL $game-ar $kind: no mail with an HTML part in $case"
			fail=$((fail + 1))
			continue
		fi
		grep -q '<html lang="ar" dir="rtl">' "$tmp/$game-ar-$kind.html" || {
			echo "FAIL $game-ar $kind: the page is not right to left"
			fail=$((fail + 1))
		}
		pages="$pages $game-ar-$kind"
	done
done

# Every HTML part of every golden case, not only the pages above, must
# parse strictly too.
mkdir "$tmp/all"
for f in "$cases"/*/expected; do
	c=${f%/expected}
	c=${c##*/}
	awk -v dir="$tmp/all" -v c="$c" '
		/^--- text\/html ---$/ { n++; out = dir "/" c "." n ".html"; next }
		out { print > out }
		out && /^<\/html>$/ { close(out); out = "" }
	' "$f"
done
nall=$(find "$tmp/all" -name '*.html' | wc -l)
if [ "$nall" -gt 0 ] &&
    ! find "$tmp/all" -name '*.html' -exec xmllint --noout --nonet {} + \
    >"$tmp/xml.log" 2>&1; then
	echo "FAIL golden HTML parts that are not well-formed:"
	sed 's/^/  /' "$tmp/xml.log" | head -n 10
	fail=$((fail + 1))
fi
if [ "$nall" -gt 0 ] && grep -Eil '<(script|link|img|iframe|object|embed|style|form|base)[ >/]|[ "]src=|url\(|@import|href="[^m#]|href="m[^a]|javascript:' \
    "$tmp"/all/*.html >"$tmp/refs"; then
	echo "FAIL golden HTML parts that reference something outside the mail:"
	sed "s|^$tmp/all/|  |" "$tmp/refs" | head -n 10
	fail=$((fail + 1))
fi

# Strict parsing, and nothing from outside the mail.
for p in $pages; do
	if ! xmllint --noout --nonet "$tmp/$p.html" >"$tmp/xml.log" 2>&1; then
		echo "FAIL $p: not well-formed:"
		sed 's/^/  /' "$tmp/xml.log" | head -n 5
		fail=$((fail + 1))
	fi
	if grep -Eiq '<(script|link|img|iframe|object|embed|style|form|base)[ >/]|[ "]src=|url\(|@import|href="[^m#]|href="m[^a]|javascript:' \
	    "$tmp/$p.html"; then
		echo "FAIL $p: references something outside the mail:"
		grep -Eio '<(script|link|img|iframe|object|embed|style|form|base)[ >/]|[ "]src=[^ ]*|url\([^)]*|@import|href="[^m#][^"]*|javascript:' \
		    "$tmp/$p.html" | head -n 3 | sed 's/^/  /'
		fail=$((fail + 1))
	fi
done

# Layout: every page at both widths in one browser, measured in the page.
{
	echo '<!DOCTYPE html><html><head><meta charset="utf-8" /></head><body>'
	echo '<pre id="out">pending</pre>'
	for p in $pages; do
		for w in 375 1024; do
			echo "<iframe src=\"$p.html\" data-page=\"$p\" width=\"$w\" height=\"8000\" style=\"border:0\"></iframe>"
		done
	done
	cat <<'EOF'
<script>
window.addEventListener("load", function () {
	var out = [];
	document.querySelectorAll("iframe").forEach(function (f) {
		var w = f.contentWindow, d = f.contentDocument, bad = [];
		var name = f.dataset.page + " " + f.width + "px";
		if (!d || !d.body) {
			out.push("FAIL " + name + ": not loaded");
			return;
		}
		d.querySelectorAll("pre").forEach(function (pre, i) {
			var cs = w.getComputedStyle(pre);
			var lines = pre.textContent.split("\n").length;
			var lh = parseFloat(cs.lineHeight);
			var h = pre.clientHeight - parseFloat(cs.paddingTop) -
			    parseFloat(cs.paddingBottom);
			var r = pre.getBoundingClientRect();
			if (cs.whiteSpace !== "pre")
				bad.push("board " + (i + 1) + " may wrap (white-space " + cs.whiteSpace + ")");
			if (h > lines * lh + lh / 2)
				bad.push("board " + (i + 1) + " wraps (" + Math.round(h / lh) + " lines for " + lines + ")");
			if (pre.scrollWidth > pre.clientWidth + 1)
				bad.push("board " + (i + 1) + " overflows its box (" + pre.scrollWidth + " > " + pre.clientWidth + " px)");
			if (r.right > w.innerWidth + 1)
				bad.push("board " + (i + 1) + " ends outside the window (" + Math.round(r.right) + " px)");
		});
		if (d.documentElement.scrollWidth > w.innerWidth + 1)
			bad.push("the page is wider than the window (" + d.documentElement.scrollWidth + " px)");
		if (w.performance.getEntriesByType("resource").length > 0)
			bad.push("it loaded " + w.performance.getEntriesByType("resource")[0].name);
		if (d.querySelectorAll("script,link,img,iframe,object,embed,style,form,[src]").length > 0)
			bad.push("it has an element that loads something");
		d.querySelectorAll("a[href]").forEach(function (a) {
			if (a.getAttribute("href").indexOf("mailto:") !== 0)
				bad.push("a link leaves the mail: " + a.getAttribute("href"));
		});
		if (!d.querySelector('meta[name="color-scheme"]'))
			bad.push("no color-scheme meta");
		out.push((bad.length ? "FAIL " : "ok ") + name + " height " +
		    Math.ceil(d.body.getBoundingClientRect().height) +
		    (bad.length ? ": " + bad.join("; ") : ""));
	});
	document.getElementById("out").textContent = "\n" + out.join("\n") + "\nend\n";
});
</script></body></html>
EOF
} >"$tmp/measure.html"
measure 10000

# Screenshots: each page at 375 px and 760 px side by side.
for p in $pages; do
	h=$(awk -v p="$p" '$2 == p && $4 == "height" { if ($5 > m) m = $5 }
	    END { print m ? m + 24 : 1200 }' "$tmp/results")
	shot_bg "$p" "$p.html" 760 "$h"
done
shots_done

n=$(echo $pages | wc -w)
echo "html: $nall HTML parts parsed; $n pages at 2 widths, $(grep -c '^ok ' "$tmp/results") fit;" \
    "screenshots in $shots; $fail failed"
[ "$fail" -eq 0 ]
