# Sourced by the browser tests (tests/html.sh, tests/site.sh): headless
# Chromium and side-by-side screenshots.  The caller sets $chromium, $tmp
# (a scratch directory) and $shots (where the PNGs go) and counts failures
# in $fail.

# browser NAME ARGS...: headless Chromium with a fresh profile of its own,
# offline, its console in $tmp/browser.NAME.log; $browser_extra adds
# flags (--force-dark-mode: the pages see prefers-color-scheme dark).
browser() {
	_bn=$1
	shift
	"$chromium" --headless --no-sandbox --disable-gpu --disable-quic \
	    --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync --hide-scrollbars \
	    --enable-logging=stderr --v=0 \
	    --user-data-dir="$tmp/profile.$_bn" ${browser_extra:-} "$@" \
	    2>>"$tmp/browser.$_bn.log"
}

# measure BUDGET: $tmp/measure.html in the browser (BUDGET ms of virtual
# time), its "ok ..." and "FAIL ..." lines into $tmp/results; each FAIL,
# and a browser that did not finish, counted in $fail.
measure() {
	browser measure --allow-file-access-from-files \
	    --virtual-time-budget="$1" --window-size=1100,900 --dump-dom \
	    "file://$tmp/measure.html" >"$tmp/dom" || true
	if ! grep -q '^end$' "$tmp/dom"; then
		echo "FAIL chromium did not measure the pages:" \
		    "$(tail -n 3 "$tmp/browser.measure.log")"
		fail=$((fail + 1))
	fi
	grep -E '^(ok|FAIL) ' "$tmp/dom" |
	    sed 's/&gt;/>/g; s/&lt;/</g; s/&amp;/\&/g' >"$tmp/results"
	grep '^FAIL ' "$tmp/results"
	fail=$((fail + $(grep -c '^FAIL ' "$tmp/results")))
}

# shot NAME URL WIDE HEIGHT: the page at URL (relative to $tmp) at 375 px
# and at WIDE px side by side, HEIGHT px tall, into $shots/NAME.png; a
# failure leaves $tmp/shot-NAME.fail for shots_done.
shot() {
	cat >"$tmp/shot-$1.html" <<SHOT
<!DOCTYPE html><html><head><meta charset="utf-8" /></head>
<body style="margin:0;background:#777"><div style="display:flex;gap:12px;padding:12px;align-items:flex-start">
<iframe src="$2" width="375" height="$4" style="border:0;background:#fff"></iframe>
<iframe src="$2" width="$3" height="$4" style="border:0;background:#fff"></iframe>
</div></body></html>
SHOT
	rm -f "$shots/$1.png"
	browser "$1" --allow-file-access-from-files \
	    --window-size=$((375 + $3 + 36)),$(($4 + 24)) \
	    --screenshot="$shots/$1.png" "file://$tmp/shot-$1.html" \
	    >/dev/null && [ -s "$shots/$1.png" ] ||
	    echo "FAIL $1: no screenshot" >"$tmp/shot-$1.fail"
}

# shot_set NAME WIDE PAGE:HEIGHT...: each page ($tmp/PAGE.html) at 375 px
# and at WIDE px side by side, HEIGHT px tall, a row under its name, into
# $shots/NAME.png: one browser for a set of pages (a browser's start is
# most of a screenshot's time); a failure leaves $tmp/shot-NAME.fail.
shot_set() {
	_sn=$1 _sw=$2 _sh=12
	shift 2
	{
		echo '<!DOCTYPE html><html><head><meta charset="utf-8" /></head>'
		echo '<body style="margin:0;padding-bottom:12px;background:#777;color:#fff;font:14px/18px sans-serif">'
		for _sp in "$@"; do
			echo "<div style=\"height:18px;padding:6px 12px 0\">${_sp%:*}</div>"
			echo '<div style="display:flex;gap:12px;padding:6px 12px;align-items:flex-start">'
			for _w in 375 "$_sw"; do
				echo "<iframe src=\"${_sp%:*}.html\" width=\"$_w\" height=\"${_sp##*:}\" style=\"border:0;background:#fff\"></iframe>"
			done
			echo '</div>'
			_sh=$((_sh + 36 + ${_sp##*:}))
		done
		echo '</body></html>'
	} >"$tmp/shot-$_sn.html"
	rm -f "$shots/$_sn.png"
	browser "$_sn" --allow-file-access-from-files \
	    --window-size=$((375 + _sw + 36)),$_sh \
	    --screenshot="$shots/$_sn.png" "file://$tmp/shot-$_sn.html" \
	    >/dev/null && [ -s "$shots/$_sn.png" ] ||
	    echo "FAIL $_sn: no screenshot" >"$tmp/shot-$_sn.fail"
}

# shot_bg NAME URL WIDE HEIGHT: shot in the background, two browsers at a
# time ($shot_fn=shot_set: shot_set NAME WIDE PAGE:HEIGHT... instead);
# shots_done waits for the last and counts the failed ones.
_shots=0
shot_bg() {
	${shot_fn:-shot} "$@" &
	_shots=$((_shots + 1))
	if [ "$_shots" -ge 2 ]; then
		wait
		_shots=0
	fi
}
shots_done() {
	wait
	for _sf in "$tmp"/shot-*.fail; do
		[ -f "$_sf" ] || continue
		cat "$_sf"
		fail=$((fail + 1))
	done
}
