#!/bin/sh
# The club's public pages (`ludus site`) in a real browser.  The golden
# cases below are replayed (tests/goldenlib.sh) and each one's site is
# written; then:
#
#   - every page is well-formed XML, holds no script and references
#     nothing outside the site; every href resolves (a page of the site,
#     an id of the page it points into, or mailto:);
#   - nothing hidden: no seat's reply token anywhere, no player's address
#     unless the player set public-address, no line of a seat's own view
#     (`ludus show --as`) that the public view lacks (Aluette and Spite &
#     Malice, the games with hidden cards); the board of a game
#     page is, byte for byte, the board of the last mail its observer got;
#     while a Spite & Malice turn goes on, the game's page stays what it
#     was when the turn began (observers hear of the turn when it ends);
#   - laid out by headless Chromium at a phone's 375 px and a desktop's
#     1024 px, every page loads without a console message, loads nothing,
#     is no wider than the window, no table scrolls sideways (a phone
#     stacks the wide ones), no board wraps; the stepper shows one
#     position, the one the address names (the last without a fragment);
#   - screenshots of each kind of page (both widths side by side) go to
#     $LUDUS_SHOTS_DIR/site (default ./screenshots/site).
#
# Needs a test build, chromium, xmllint and sqlite3; skips without them,
# except under CI.
set -u
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}" "${LUDUS_SRCDIR:?}"
# What it writes is tested, not how it uses memory: the build without
# sanitizers when there is one (contrib/bootstrap test makes it).
LUDUS_BIN=${LUDUS_PLAIN_BIN:-$LUDUS_BIN}
export LUDUS_GAMES_DIR
. "$LUDUS_SRCDIR/tests/goldenlib.sh"
. "$LUDUS_SRCDIR/tests/browserlib.sh"
cases=$LUDUS_SRCDIR/tests/mail/referee
shots=${LUDUS_SHOTS_DIR:-$PWD/screenshots}/site
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
fail=0

missing=
[ -n "$chromium" ] || missing="chromium"
command -v xmllint >/dev/null 2>&1 || missing="$missing xmllint"
command -v sqlite3 >/dev/null 2>&1 || missing="$missing sqlite3"
golden_test_build || missing="$missing a-test-build"
if [ -n "$missing" ]; then
	echo "site: not available:$missing"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-site.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$shots" || exit 99
bad() {
	echo "FAIL $*"
	fail=$((fail + 1))
}

# The sites: one per case, in $tmp/www/CASE; game-spite-ar's in Arabic.
sites="site-ladder game-kalah-3-pits game-alquerque game-almakleh game-aluette
    game-spite observe say-thanks draw-agreed game-spite-ar"
mkdir "$tmp/www"
for c in $sites; do
	w=$tmp/work/$c
	mkdir -p "$w"
	if ! golden_replay "$w" "$cases/$c" 2>"$w/why"; then
		bad "$c: the case does not replay: $(head -n 3 "$w/why")"
		continue
	fi
	# An open seek, for the index's list of them.
	if [ "$c" = site-ladder ]; then
		cat >"$w/90-cat-seeks.eml" <<'EOF'
From: cat@example.org
To: referee@example.org
Subject: a game, anyone?
Message-ID: <site.90@example.org>
Date: Fri, 01 Jan 2027 01:30:00 +0000
Authentication-Results: mx.example.org; dmarc=pass header.from=example.org
Content-Type: text/plain; charset=utf-8

seek kalah pits=4 rating=1400-1800
EOF
		golden_deliver "$w" "$w/90-cat-seeks.eml" 2>"$w/why" ||
		    bad "$c: the seek was not taken: $(head -n 3 "$w/why")"
	fi
	if [ "$c" = game-spite-ar ]; then
		sed 's/^referee:$/referee:\n  language: ar/' "$w/ludus.yaml" \
		    >"$w/ar.yaml" && mv "$w/ar.yaml" "$w/ludus.yaml"
	fi
	golden_ludus "$w" site "$tmp/www/$c" >"$w/site.out" 2>&1 ||
	    bad "$c: ludus site failed: $(cat "$w/site.out")"
done
# The index lists the open seek: its number, the game and its words, who
# may take it and how (and the other sites say none is open).
idx=$tmp/www/site-ladder/index.html
grep -q 'Open seeks' "$idx" && grep -q 'pits=4' "$idx" &&
    grep -q 'rating 1400 to 1800' "$idx" &&
    grep -q 'the line accept #NUMBER' "$idx" ||
    bad "site-ladder: the index does not list the open seek"
grep -q 'Nobody is looking for an opponent' "$tmp/www/observe/index.html" ||
    bad "observe: the index does not say no seek is open"
grep -q '<html lang="ar" dir="rtl">' "$tmp/www/game-spite-ar/index.html" 2>/dev/null ||
    bad "game-spite-ar: the Arabic site does not read right to left"

# Every page: well-formed, nothing from outside, every link resolves.
find "$tmp/www" -name '*.html' | LC_ALL=C sort >"$tmp/pages"
npages=$(wc -l <"$tmp/pages")
[ "$npages" -gt 20 ] || bad "only $npages pages were written"
while IFS= read -r f; do
	p=${f#"$tmp/www/"}
	xmllint --noout --nonet "$f" >"$tmp/xml.log" 2>&1 ||
	    bad "$p: not well-formed: $(head -n 3 "$tmp/xml.log")"
	if grep -Eiq '<(script|link|img|iframe|object|embed|form|base)[ >/]|[ "]src=|url\(|@import|javascript:' "$f"; then
		bad "$p: loads something or runs a script"
	fi
	dir=${f%/*}
	grep -o 'href="[^"]*"' "$f" | sed 's/^href="//; s/"$//' | LC_ALL=C sort -u |
	    while IFS= read -r h; do
		case $h in
		mailto:*) continue ;;
		\#*) target=$f frag=${h#\#} ;;
		*://* | //* | /*) echo "$h leaves the site"; continue ;;
		*\#*) target=$dir/${h%%#*} frag=${h#*#} ;;
		*) target=$dir/$h frag= ;;
		esac
		if [ ! -f "$target" ]; then
			echo "$h: no such page"
		elif [ -n "$frag" ] && ! grep -q "id=\"$frag\"" "$target"; then
			echo "$h: no such place on the page"
		fi
	    done >"$tmp/links"
	[ -s "$tmp/links" ] && bad "$p: broken links: $(head -n 3 "$tmp/links" | tr '\n' ' ')"
done <"$tmp/pages"

# text FILE: a page's text, tags out, entities read.
text() {
	sed 's/<[^>]*>//g; s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/'"'"'/g; s/&#160;/ /g; s/&amp;/\&/g' "$1"
}

# Nothing hidden.
for c in $sites; do
	w=$tmp/work/$c
	site=$tmp/www/$c
	[ -f "$w/ludus.db" ] && [ -d "$site" ] || continue
	cat "$site"/*.html "$site"/*/*.html >"$tmp/all.html"
	text "$tmp/all.html" >"$tmp/all.txt"
	# Tokens: none of any seat of any game.
	sqlite3 -separator ' ' "$w/ludus.db" \
	    "SELECT game_id, seat FROM seats ORDER BY game_id, seat" |
	    while read -r g s; do
		t=$(golden_ludus "$w" token "$g" "$s" 2>/dev/null) || continue
		grep -qF "$t" "$tmp/all.html" && echo "the token of seat $s of game #$g"
	    done >"$tmp/leaks"
	# Addresses: only of players who made theirs public (the referee's
	# own is on every page).
	sqlite3 "$w/ludus.db" "SELECT address FROM players WHERE public_address = 0" |
	    while read -r a; do
		grep -qiF "$a" "$tmp/all.html" && echo "the address $a"
	    done >>"$tmp/leaks"
	# What a seat sees and the public does not, in the games with hidden
	# cards (elsewhere a seat's view is the public one turned round).
	for g in $(sqlite3 "$w/ludus.db" "SELECT id FROM games WHERE status <> 'invited' AND kind IN ('aluette', 'spite') ORDER BY id"); do
		[ -f "$site/game/$g.html" ] || continue
		text "$site/game/$g.html" >"$tmp/game.txt"
		golden_ludus "$w" show "$g" >"$tmp/public" 2>/dev/null
		for a in $(sqlite3 "$w/ludus.db" "SELECT p.address FROM seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = $g"); do
			golden_ludus "$w" show "$g" --as "$a" 2>/dev/null |
			    sed 's/^ *//; s/ *$//' | grep -v '^$' |
			    while IFS= read -r line; do
				grep -qF -- "$line" "$tmp/public" && continue
				grep -qF -- "$line" "$tmp/game.txt" &&
				    echo "game #$g shows what only $a sees: $line"
			    done
		done
	done >>"$tmp/leaks"
	[ -s "$tmp/leaks" ] && bad "$c: the site shows $(head -n 3 "$tmp/leaks" | tr '\n' ';')"
done

# The board of a game's page is the board of its observer's last mail:
# the same view through the same renderer.
for spec in site-ladder:dan@example.org:1 observe:cat@example.org:1 \
    say-thanks:cat@example.org:1; do
	c=${spec%%:*}
	rest=${spec#*:}
	who=${rest%%:*}
	g=${rest#*:}
	w=$tmp/work/$c
	[ -f "$w/ludus.db" ] || continue
	golden_dump "$w" "$w/outbox"
	awk -v to="To: $who" '
		/^=== mail [0-9]+ ===$/ { want = 0; html = 0; next }
		$0 == to { want = 1; n++; next }
		want && /^--- text\/html ---$/ { html = 1; next }
		want && html && /<pre|<table[^>]*lx-board/ && !inb { cur = ""; inb = 1; d = 0 }
		want && html && inb {
			cur = cur $0 "\n"
			d += gsub(/<table/, "&") - gsub(/<\/table>/, "&")
			if (d <= 0 && /<\/pre>|<\/table>/) { inb = 0; last = cur }
		}
		END { printf "%s", last }
	' "$w/outbox" | sed 's/<[^>]*>//g; s/[[:space:]]//g' | grep . >"$tmp/mailboard"
	awk '
		/<section class="pos cur"/ { s = 1 }
		s && /<pre|<table[^>]*lx-board/ && !inb { inb = 1; d = 0 }
		s && inb {
			printf "%s\n", $0
			d += gsub(/<table/, "&") - gsub(/<\/table>/, "&")
			if (d <= 0 && /<\/pre>|<\/table>/) exit
		}
	' "$tmp/www/$c/game/$g.html" | sed 's/<[^>]*>//g; s/[[:space:]]//g' | grep . >"$tmp/siteboard"
	if [ ! -s "$tmp/mailboard" ]; then
		bad "$c: no board in the mails to $who"
	elif ! cmp -s "$tmp/mailboard" "$tmp/siteboard"; then
		bad "$c: game #$g's page shows another board than $who's last mail:"
		diff "$tmp/mailboard" "$tmp/siteboard" | head -n 8
	fi
done

# A turn that goes on: the page stays as it was when the turn began.
w=$tmp/work/turn
mkdir -p "$w"
golden_init "$w" "$cases/spite-turn" || bad "spite-turn: no referee"
step=0
for m in $(golden_mails "$cases/spite-turn"); do
	golden_deliver "$w" "$m" || bad "spite-turn: ${m##*/} not delivered"
	step=$((step + 1))
	golden_ludus "$w" site "$w/www" >/dev/null 2>&1 || bad "spite-turn: ludus site failed"
	cp "$w/www/game/1.html" "$w/page.$step" 2>/dev/null
done
# 05: ben's turn is over, ann to move; 06: ann plays and goes on; 07:
# ann's turn ends.
if [ ! -f "$w/page.7" ]; then
	bad "spite-turn: no page of the game"
elif ! cmp -s "$w/page.5" "$w/page.6"; then
	bad "spite-turn: the page changed while ann's turn went on:"
	diff "$w/page.5" "$w/page.6" | head -n 6
elif cmp -s "$w/page.6" "$w/page.7"; then
	bad "spite-turn: the page did not change when ann's turn ended"
fi

# The browser: every page at both widths, measured inside the page; the
# stepper also with a position named.
site_ladder_game=$(ls "$tmp/www/site-ladder/game" | head -n 1)
{
	echo '<!DOCTYPE html><html><head><meta charset="utf-8" /></head><body>'
	echo '<pre id="out">pending</pre>'
	while IFS= read -r f; do
		p=${f#"$tmp/www/"}
		for wd in 375 1024; do
			echo "<iframe src=\"www/$p\" data-page=\"$p\" width=\"$wd\" height=\"3000\" style=\"border:0\"></iframe>"
		done
	done <"$tmp/pages"
	for p in site-ladder/game/1.html#p2 game-spite/game/1.html#p3; do
		echo "<iframe src=\"www/$p\" data-page=\"$p\" data-want=\"${p#*#}\" width=\"375\" height=\"3000\" style=\"border:0\"></iframe>"
	done
	cat <<'EOF'
<script>
window.addEventListener("load", function () {
	var out = [];
	document.querySelectorAll("iframe").forEach(function (f) {
		var w = f.contentWindow, d = f.contentDocument, bad = [];
		var name = f.dataset.page + " " + f.width + "px";
		if (!d || !d.body || !d.querySelector("main")) {
			out.push("FAIL " + name + ": not loaded");
			return;
		}
		d.querySelectorAll("pre").forEach(function (pre, i) {
			var cs = w.getComputedStyle(pre);
			if (pre.offsetParent === null)
				return;
			var lines = pre.textContent.split("\n").length;
			var lh = parseFloat(cs.lineHeight);
			var h = pre.clientHeight - parseFloat(cs.paddingTop) -
			    parseFloat(cs.paddingBottom);
			if (h > lines * lh + lh / 2)
				bad.push("board " + (i + 1) + " wraps");
			if (pre.getBoundingClientRect().right > w.innerWidth + 1)
				bad.push("board " + (i + 1) + " ends outside the window");
		});
		if (d.documentElement.scrollWidth > w.innerWidth + 1)
			bad.push("the page is wider than the window (" + d.documentElement.scrollWidth + " px)");
		d.querySelectorAll(".wide").forEach(function (t, i) {
			if (t.scrollWidth > t.clientWidth + 1)
				bad.push("table " + (i + 1) + " scrolls sideways (" + t.scrollWidth + " px in " + t.clientWidth + ")");
		});
		if (w.performance.getEntriesByType("resource").length > 0)
			bad.push("it loaded " + w.performance.getEntriesByType("resource")[0].name);
		var pos = d.querySelectorAll("section.pos"), shown = [];
		pos.forEach(function (s) {
			if (w.getComputedStyle(s).display !== "none")
				shown.push(s.id);
		});
		if (pos.length > 0) {
			var want = f.dataset.want || pos[pos.length - 1].id;
			if (shown.length !== 1 || shown[0] !== want)
				bad.push("the stepper shows " + (shown.join(",") || "nothing") + ", not " + want);
		}
		var svg = d.querySelector("svg[role=img]");
		if (svg && !(svg.querySelector("title") && svg.querySelector("desc") &&
		    svg.getBoundingClientRect().width > 100))
			bad.push("the plot has no title, no description or no size");
		out.push((bad.length ? "FAIL " : "ok ") + name + " height " +
		    Math.ceil(d.documentElement.getBoundingClientRect().height) +
		    (bad.length ? ": " + bad.join("; ") : ""));
	});
	document.getElementById("out").textContent = "\n" + out.join("\n") + "\nend\n";
});
</script></body></html>
EOF
} >"$tmp/measure.html"
measure 20000
measured=$(grep -c '^ok ' "$tmp/results")
# Console messages of the site's pages (the measuring page's own script
# logs nothing).
if grep 'CONSOLE' "$tmp/browser.measure.log" | grep -v 'measure.html' >"$tmp/console"; then
	bad "console messages: $(head -n 3 "$tmp/console")"
fi

# Screenshots: each kind of page at 375 px and 1024 px side by side.
for spec in site-ladder/index.html:index site-ladder/ladder/1.html:ladder \
    site-ladder/player/2.html:player site-ladder/game/4.html:game-going-on \
    site-ladder/game/1.html#p2:game-stepper \
    game-kalah-3-pits/game/1.html:game-kalah game-alquerque/game/1.html:game-alquerque \
    game-almakleh/game/1.html:game-almakleh game-aluette/game/1.html:game-aluette \
    game-spite/game/1.html:game-spite game-spite-ar/game/1.html:game-spite-ar \
    game-spite-ar/index.html:index-ar; do
	_sp=${spec%:*}
	h=$(awk -v p="${_sp%%#*}" '$2 == p && $4 == "height" { if ($5 > m) m = $5 }
	    END { print m ? m + 24 : 1600 }' "$tmp/results")
	shot_bg "${spec##*:}" "www/$_sp" 1024 "$h"
done
shots_done

echo "site: $npages pages in $(echo $sites | wc -w) sites, $measured layouts fine;" \
    "screenshots in $shots; $fail failed"
[ "$fail" -eq 0 ]
