#!/bin/sh
# The HTML parts of the referee's mails in a real browser engine.  For
# every game, its start, move, end and error mail (taken from the golden
# cases' expected outputs, which tests/golden.sh keeps equal to what the
# referee writes) must be well-formed XML, reference nothing outside the
# mail, and, laid out by headless Chromium at a phone's 375 px and at a
# desktop's 1024 px, have no board line that wraps or overflows its box
# and no page wider than the window.  One screenshot per game and
# language (each mail kind a row, both widths side by side; and dark) goes
# to $LUDUS_SHOTS_DIR (default ./screenshots): `make screenshots` writes
# them too.
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

# And in Russian.
for game in kalah alquerque almakleh aluette spite; do
	case=game-$game-ru
	for kind in start move end; do
		case $kind in
		start) re='Ваш ход: .*начал' ;;
		move) re='Ваш ход: .*, ' ;;
		end) re='\] .*(окончен|завершен|конец)' ;;
		esac
		pick "$cases/$case/expected" "$re" >"$tmp/$game-ru-$kind.html"
		[ -s "$tmp/$game-ru-$kind.html" ] && pages="$pages $game-ru-$kind"
	done
done

# Right to left, compared with English: the same games replayed with the
# referee's language set to Arabic, each pair of mails laid out below
# ("Order").
. "$LUDUS_SRCDIR/tests/goldenlib.sh"
# What it writes is tested, not how it uses memory: the build without
# sanitizers when there is one (contrib/bootstrap test makes it).
LUDUS_BIN=${LUDUS_PLAIN_BIN:-$LUDUS_BIN}
export LUDUS_GAMES_DIR
orders=
if golden_test_build; then
	for case in game-spite game-aluette robot-answers; do
		for lang in en ar; do
			mkdir -p "$tmp/$case.$lang/ref" "$tmp/$case.$lang/case"
			for f in "$cases/$case"/*; do
				ln -s "$f" "$tmp/$case.$lang/case/"
			done
			rm -f "$tmp/$case.$lang/case/referee.yaml"
			{
				[ -f "$cases/$case/referee.yaml" ] &&
				    cat "$cases/$case/referee.yaml"
				echo "language: $lang"
			} >"$tmp/$case.$lang/case/referee.yaml"
			golden_replay "$tmp/$case.$lang/ref" "$tmp/$case.$lang/case" &&
			    golden_dump "$tmp/$case.$lang/ref" "$tmp/$case.$lang/out" || {
				echo "FAIL $case in $lang: the replay failed"
				fail=$((fail + 1))
			}
			# Each mail's text and HTML parts: N.txt, N.html.
			awk -v d="$tmp/$case.$lang" '
				/^=== mail [0-9]+ ===$/ { n = $3; part = "txt"; body = 0; next }
				/^--- text\/html ---$/ { part = "html"; next }
				/^$/ && part == "txt" && !body { body = 1; next }
				part == "txt" && body { print > (d "/" n ".txt") }
				part == "html" { print > (d "/" n ".html") }
			' "$tmp/$case.$lang/out"
		done
		for h in "$tmp/$case.ar"/*.html; do
			[ -f "$h" ] || continue
			n=${h##*/}
			n=${n%.html}
			[ -f "$tmp/$case.en/$n.html" ] || continue
			cp "$h" "$tmp/order-$case-$n-ar.html"
			cp "$tmp/$case.en/$n.html" "$tmp/order-$case-$n-en.html"
			# The runs the Arabic text part isolates (U+2066 ...
			# U+2069) of two words or more, or with a bracket, that
			# the English text part has too: names, hands, tricks.
			# A full stop the text part's wrapping took into a
			# continued run ends the Arabic sentence, not the run.
			grep -o '⁦[^⁩]*⁩' "$tmp/$case.ar/$n.txt" | sed 's/^⁦//; s/⁩$//; s/[.;:]$//' |
			    awk 'index($0, " ") || index($0, "(")' | sort -u |
			    while IFS= read -r run; do
				if grep -qF -- "$run" "$tmp/$case.en/$n.txt"; then
					printf '%s\n' "$run"
				fi
			done >"$tmp/order-$case-$n.runs"
			orders="$orders order-$case-$n"
		done
	done
fi

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
if [ "$nall" -gt 0 ] && grep -Eil '<(script|link|img|iframe|object|embed|form|base)[ >/]|[ "]src=|url\(|@import|href="[^mh#]|href="m[^a]|href="h[^t]|javascript:' \
    "$tmp"/all/*.html >"$tmp/refs"; then
	echo "FAIL golden HTML parts that reference something outside the mail:"
	sed "s|^$tmp/all/|  |" "$tmp/refs" | head -n 10
	fail=$((fail + 1))
fi

# Every link is an answer or the game's page: a mailto: whose subject
# carries the game's tag with the seat's token (so the reply it starts is
# read as that seat's) and whose body is the answer, or an http(s) address
# under the case's site.url (ludus-templates(5), "HTML PART").
nlinks=0
: >"$tmp/badlinks"
for h in "$tmp"/all/*.html; do
	[ -f "$h" ] || continue
	c=${h##*/}
	c=${c%%.*}
	site=$(awk '/^site:/ { s = 1; next } /^[^ ]/ { s = 0 }
	    s && $1 == "url:" { print $2 }' "$cases/$c/config.yaml" 2>/dev/null)
	grep -o 'href="[^"]*"' "$h" | sed 's/^href="//; s/"$//' >"$tmp/links"
	nlinks=$((nlinks + $(wc -l <"$tmp/links")))
	while read -r u; do
		case $u in
		mailto:*)
			printf '%s\n' "$u" | grep -Eq '[?]subject=Re%3A%20%5Bludus%20%23[0-9]+%20[a-z0-9]+%5D[^&]*&amp;body=[^&]' ||
			    echo "$c: $u" >>"$tmp/badlinks" ;;
		http://* | https://*)
			case $u in
			"$site"?*) [ -n "$site" ] || echo "$c: $u" >>"$tmp/badlinks" ;;
			*) echo "$c: $u" >>"$tmp/badlinks" ;;
			esac ;;
		*) echo "$c: $u" >>"$tmp/badlinks" ;;
		esac
	done <"$tmp/links"
done
if [ -s "$tmp/badlinks" ]; then
	echo "FAIL links that are neither an answer carrying the game's tag nor the club's site:"
	sed 's/^/  /' "$tmp/badlinks" | head -n 10
	fail=$((fail + 1))
fi

# Strict parsing, and nothing from outside the mail.
for p in $pages; do
	if ! xmllint --noout --nonet "$tmp/$p.html" >"$tmp/xml.log" 2>&1; then
		echo "FAIL $p: not well-formed:"
		sed 's/^/  /' "$tmp/xml.log" | head -n 5
		fail=$((fail + 1))
	fi
	if grep -Eiq '<(script|link|img|iframe|object|embed|form|base)[ >/]|[ "]src=|url\(|@import|href="[^mh#]|href="m[^a]|href="h[^t]|javascript:' \
	    "$tmp/$p.html"; then
		echo "FAIL $p: references something outside the mail:"
		grep -Eio '<(script|link|img|iframe|object|embed|form|base)[ >/]|[ "]src=[^ ]*|url\([^)]*|@import|href="[^m#][^"]*|javascript:' \
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
		/* A game's board is drawn (tables of class lx-board) and, on
		 * a phone, at least 80% of the window wide, inside it. */
		var widest = 0;
		d.querySelectorAll("table.lx-board").forEach(function (t) {
			var r = t.getBoundingClientRect();
			widest = Math.max(widest, r.width);
			if (r.right > w.innerWidth + 1 || r.left < -1)
				bad.push("a drawn board leaves the window (" + Math.round(r.left) + " to " + Math.round(r.right) + " px)");
		});
		/* (Aluette's end mail has no cards left to draw: no trick
		 * on the table, no hand.) */
		if (/-(start|move|end)$/.test(f.dataset.page) && f.width == 375 &&
		    !/^aluette-(..-)?end$/.test(f.dataset.page) &&
		    widest < 0.8 * 375)
			bad.push("no drawn board 80% of the phone's width (widest " + Math.round(widest) + " px)");
		/* Dark: a reader who prefers it gets a dark page. */
		if (w.matchMedia("(prefers-color-scheme: dark)").matches) {
			var bg = w.getComputedStyle(d.body).backgroundColor.match(/\d+/g);
			if (!bg || (+bg[0] + +bg[1] + +bg[2]) / 3 > 80)
				bad.push("dark scheme but a light page (" + w.getComputedStyle(d.body).backgroundColor + ")");
		}
		if (d.documentElement.scrollWidth > w.innerWidth + 1)
			bad.push("the page is wider than the window (" + d.documentElement.scrollWidth + " px)");
		if (w.performance.getEntriesByType("resource").length > 0)
			bad.push("it loaded " + w.performance.getEntriesByType("resource")[0].name);
		if (d.querySelectorAll("script,link,img,iframe,object,embed,form,[src],body style").length > 0)
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
cp "$tmp/results" "$tmp/results.light"
browser_extra=--force-dark-mode
measure 10000
browser_extra=
sed 's/^\(ok\|FAIL\) \([^ ]*\)/\1 \2 (dark)/' "$tmp/results" >>"$tmp/results.light"
mv "$tmp/results.light" "$tmp/results"

# Order: each Arabic mail and its English twin at 760 px.  The text as it
# is laid out is read back line by line, left to right, from the place of
# every character; every run of notation, cards and names the two text
# parts share reads the same in both, and the cards of each drawn grid
# (hands, tricks, piles) come in the same order.
if [ -n "$orders" ]; then
	cp "$tmp/results" "$tmp/results.pages"
	{
		echo '<!DOCTYPE html><html><head><meta charset="utf-8" /></head><body>'
		echo '<pre id="out">pending</pre>'
		for o in $orders; do
			for l in en ar; do
				echo "<iframe src=\"$o-$l.html\" data-page=\"$o\" data-lang=\"$l\" width=\"760\" height=\"6000\" style=\"border:0\"></iframe>"
			done
			printf '<script type="text/plain" class="runs" data-page="%s">' "$o"
			sed 's/&/\&amp;/g; s/</\&lt;/g' "$tmp/$o.runs"
			echo '</script>'
		done
		cat <<'EOF'
<script>
/* The lines of a page as laid out: characters by their boxes, a line the
 * characters whose boxes share a middle, read left to right; a gap wider
 * than a third of the font size is a space. */
function visual(d) {
	var chars = [], walker = d.createTreeWalker(d.body, NodeFilter.SHOW_TEXT);
	var node, i, r, range = d.createRange();
	while ((node = walker.nextNode())) {
		for (i = 0; i < node.data.length; i++) {
			if (/\s/.test(node.data[i]))
				continue;
			range.setStart(node, i);
			range.setEnd(node, i + 1);
			r = range.getBoundingClientRect();
			if (r.width > 0)
				chars.push({ c: node.data[i], x: r.left, r: r.right, y: (r.top + r.bottom) / 2, h: r.height });
		}
	}
	chars.sort(function (a, b) { return a.y - b.y; });
	var lines = [], line = [];
	chars.forEach(function (ch) {
		if (line.length && Math.abs(ch.y - line[0].y) > line[0].h / 2) {
			lines.push(line);
			line = [];
		}
		line.push(ch);
	});
	if (line.length)
		lines.push(line);
	return lines.map(function (l) {
		l.sort(function (a, b) { return a.x - b.x; });
		var s = "";
		l.forEach(function (ch, k) {
			if (k && ch.x - l[k - 1].r > l[k - 1].h / 3)
				s += " ";
			s += ch.c;
		});
		return s;
	});
}
function squash(s) { return s.replace(/[\s,]+/g, " ").trim(); }
/* Each drawn grid's cells, row by row, left to right as laid out. */
function grids(d) {
	var out = [];
	d.querySelectorAll("table.lx-board").forEach(function (t) {
		var cells = [];
		t.querySelectorAll("td").forEach(function (td) {
			if (td.querySelector("td") || !td.textContent.trim())
				return;
			var r = td.getBoundingClientRect();
			cells.push({ t: td.textContent.trim(), x: r.left, y: Math.round(r.top) });
		});
		cells.sort(function (a, b) { return a.y - b.y || a.x - b.x; });
		out.push(cells.map(function (c) { return c.t; }).join(" "));
	});
	return out;
}
window.addEventListener("load", function () {
	var out = [], pages = {};
	document.querySelectorAll("iframe").forEach(function (f) {
		var p = pages[f.dataset.page] = pages[f.dataset.page] || {};
		p[f.dataset.lang] = f;
	});
	document.querySelectorAll("script.runs").forEach(function (s) {
		var name = s.dataset.page, p = pages[name], bad = [], n = 0;
		var en = p.en.contentDocument, ar = p.ar.contentDocument;
		var ven = visual(en).map(squash).join("\n");
		var van = visual(ar).map(squash).join("\n");
		s.textContent.split("\n").forEach(function (run) {
			run = squash(run);
			if (!run || ven.indexOf(run) < 0)
				return;	/* drawn, not written, in this mail */
			n++;
			if (van.indexOf(run) < 0)
				bad.push("\"" + run + "\" reads otherwise in Arabic");
		});
		var ge = grids(en), ga = grids(ar);
		if (ge.join("|") !== ga.join("|"))
			bad.push("the drawn cards differ: " + ge.join(" / ") + " against " + ga.join(" / "));
		out.push((bad.length ? "FAIL " : "ok ") + name + " order: " + n +
		    " runs, " + ga.length + " grids" + (bad.length ? ": " + bad.join("; ") : ""));
	});
	document.getElementById("out").textContent = "\n" + out.join("\n") + "\nend\n";
});
</script></body></html>
EOF
	} >"$tmp/measure.html"
	measure 20000
	mv "$tmp/results" "$tmp/results.order"
	mv "$tmp/results.pages" "$tmp/results"
fi

# Screenshots: one a game and language, each mail kind a row at 375 px
# and 760 px side by side; light, and dark for the start and end mails.
height() {
	awk -v p="$1" '$2 == p && $4 == "height" { if ($5 > m) m = $5 }
	    END { print m ? m + 24 : 1200 }' "$tmp/results"
}
shot_fn=shot_set
for game in kalah alquerque almakleh aluette spite; do
	for set in "$game" "$game-ar" "$game-ru"; do
		light= dark=
		for p in $pages; do
			case $p in
			"$set"-start | "$set"-end) dark="$dark $p:$(height "$p")" ;;
			esac
			case $p in
			"$set"-start | "$set"-move | "$set"-end | "$set"-error)
				light="$light $p:$(height "$p")" ;;
			esac
		done
		[ -n "$light" ] || continue
		# shellcheck disable=SC2086
		shot_bg "$set" 760 $light
		browser_extra=--force-dark-mode
		# shellcheck disable=SC2086
		[ -z "$dark" ] || shot_bg "$set-dark" 760 $dark
		browser_extra=
	done
done
shots_done

n=$(echo $pages | wc -w)
echo "html: $(echo $orders | wc -w) Arabic mails read in their English" \
    "twins' order; $(grep -c '^ok ' "$tmp/results.order" 2>/dev/null) alike"
echo "html: $nlinks links checked"
echo "html: $nall HTML parts parsed; $n pages at 2 widths, $(grep -c '^ok ' "$tmp/results") fit;" \
    "screenshots in $shots; $fail failed"
[ "$fail" -eq 0 ]
