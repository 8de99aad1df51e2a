#!/bin/bash
# soak: ludusd against the private Dovecot + Postfix of tests/mailenv for
# a while under steady traffic, watching its memory.
#
#   sudo bench/soak.sh            from a build directory (./ludusd)
#
# Environment: SOAK_SECONDS (default 600), SOAK_RATE messages a second
# (default 5), SOAK_WARMUP seconds before the reference RSS sample
# (default 60), LUDUSD_BIN and LUDUS_GAMES_DIR (default ./ludusd and the
# source tree's games/).  Use a build without --enable-sanitizers: the
# sanitizers' own bookkeeping grows by design.
#
# Four players write to the referee, one connection a second; the
# daemon's RSS (VmRSS) and private memory (Private_Dirty of smaps_rollup)
# are read every 10 s.  At the end: messages sent and answered, the reply
# latency (from the 250 that took a message to the delivery of its reply,
# by the reply file's time in the player's Maildir), and RSS and
# Private_Dirty initial / after the warm-up / last / max.  Memory is
# called flat when the last sample is at most 10% above the one after the
# warm-up (SQLite's page cache and the allocator's arenas fill during the
# first minute).  Exit 0 when every message was answered and both are
# flat, 1 otherwise.
set -u
export TZ=UTC LC_ALL=C
here=$(cd "$(dirname "$0")/.." && pwd)
LUDUSD_BIN=${LUDUSD_BIN:-$PWD/ludusd}
LUDUS_BIN=${LUDUS_BIN:-${LUDUSD_BIN%d}}
export LUDUS_TEMPLATES_DIR=${LUDUS_TEMPLATES_DIR:-$here/templates}
LUDUS_GAMES_DIR=${LUDUS_GAMES_DIR:-$here/games}
secs=${SOAK_SECONDS:-600}
rate=${SOAK_RATE:-5}
warmup=${SOAK_WARMUP:-60}
mailenv=$here/tests/mailenv/mailenv

[ -x "$LUDUSD_BIN" ] || { echo "soak: no $LUDUSD_BIN (run from a build directory or set LUDUSD_BIN)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "soak: needs root for the mail servers" >&2; exit 2; }

tmp=$(mktemp -d /tmp/lsk.XXXXXX) || exit 1
chmod 755 "$tmp"
box=$tmp/m
lpid=""
cleanup() {
	if [ -n "$lpid" ]; then
		kill -KILL "$lpid" 2>/dev/null
		wait "$lpid" 2>/dev/null
	fi
	[ -e "$box/env" ] && MAILENV_KEEP=${SOAK_KEEP:-0} bash "$mailenv" stop "$box" >/dev/null 2>&1
	[ -n "${SOAK_KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

MAILENV_WATCH_PID=$$ bash "$mailenv" start "$box" >"$tmp/env" ||
    { echo "soak: mailenv start failed" >&2; exit 1; }
. "$tmp/env"

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
REF=referee@$MAILENV_DOMAIN
umask 077
. "$here/tests/mailenv/referee.sh"
mailenv_referee "$tmp" "${SOAK_LOG_LEVEL:-warning}"
"$LUDUS_BIN" -c "$tmp/ludus.yaml" init >/dev/null || exit 1

. "$here/tests/mailenv/smtp.sh"

rss_kb() {
	local k v rest
	while read -r k v rest; do
		[ "$k" = VmRSS: ] && { echo "$v"; return 0; }
	done <"/proc/$lpid/status"
	return 1
}
# The daemon's own memory: what it wrote, shared with nobody.
dirty_kb() {
	local k v rest
	while read -r k v rest; do
		[ "$k" = Private_Dirty: ] && { echo "$v"; return 0; }
	done <"/proc/$lpid/smaps_rollup"
	return 1
}

"$LUDUSD_BIN" -f -c "$tmp/ludus.yaml" 2>"$tmp/ludusd.log" &
lpid=$!
sleep 2
kill -0 "$lpid" 2>/dev/null || { echo "soak: ludusd died: $(cat "$tmp/ludusd.log")" >&2; exit 1; }

players=(alice bob carol dave)
echo "soak: ${secs}s at $rate msg/s, ludusd pid $lpid"
: >"$tmp/sent"
: >"$tmp/rss"
start=$(now_ms)
n=0 errors=0
for ((s = 0; s < secs; s++)); do
	# Wait for second s, so the rate holds however long sending takes.
	while [ $(($(now_ms) - start)) -lt $((s * 1000)) ]; do sleep 0.05; done
	if ((s % 10 == 0)); then
		kill -0 "$lpid" 2>/dev/null || { echo "soak: ludusd died at ${s}s" >&2; break; }
		echo "$s $(rss_kb) $(dirty_kb)" >>"$tmp/rss"
	fi
	if ! smtp_open "$MAILENV_SMTP_PORT"; then
		errors=$((errors + 1))
		continue
	fi
	printf -v date '%(%a, %d %b %Y %H:%M:%S +0000)T' -1
	for ((i = 0; i < rate; i++)); do
		n=$((n + 1))
		p=${players[n % 4]}
		id=s.$n.$$@soak.$MAILENV_DOMAIN
		printf -v msg 'From: %s@%s\r\nTo: %s\r\nSubject: soak %d\r\nMessage-ID: <%s>\r\nDate: %s\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nlist\r\n' \
		    "$p" "$MAILENV_DOMAIN" "$REF" $n "$id" "$date" $((n % 6 + 1))
		if smtp_send "$p@$MAILENV_DOMAIN" "$REF" "$msg"; then
			echo "$id $(now_ms)" >>"$tmp/sent"
		else
			errors=$((errors + 1))
		fi
	done
	smtp_close
done
nsent=$(wc -l <"$tmp/sent")

# Let the last replies arrive in the players' INBOXes: at most a minute.
inboxes=()
for p in "${players[@]}"; do inboxes+=("$MAILENV_MAILDIRS/$p/Maildir/new"); done
replies() { find "${inboxes[@]}" -type f 2>/dev/null | wc -l; }
end=$(($(now_ms) + 60000))
while [ "$(replies)" -lt "$nsent" ] && [ "$(now_ms)" -lt $end ]; do sleep 1; done
echo "$secs $(rss_kb) $(dirty_kb)" >>"$tmp/rss"
kill -TERM "$lpid"
wait "$lpid"
rc=$?
lpid=""

# Each reply: its In-Reply-To and the time its file was written.
find "${inboxes[@]}" -type f -printf '%T@ %p\n' 2>/dev/null |
    while read -r t f; do
	    while IFS= read -r line; do
		    line=${line%$'\r'}
		    case $line in
		    [Ii]n-[Rr]eply-[Tt]o:*) irt=${line#*<}; echo "${irt%>} $t"; break ;;
		    "") break ;;
		    esac
	    done <"$f"
    done >"$tmp/got"

# Latency per message answered; further replies to a message are counted.
awk -v sentf="$tmp/sent" -v latf="$tmp/lat" '
	BEGIN { while ((getline l < sentf) > 0) { split(l, a, " "); sent[a[1]] = a[2]; ns++ } }
	!($1 in sent) { next }
	{ if (got[$1]++) dup++; else { nl++; print int($2 * 1000) - sent[$1] > latf } }
	END { printf "sent %d, answered %d, duplicates %d\n", ns, nl, dup
	      for (id in sent) if (!(id in got) && miss++ < 5) printf "  not answered: %s\n", id }' \
	"$tmp/got" >"$tmp/summary"
sort -n "$tmp/lat" >"$tmp/lat.sorted"
nl=$(wc -l <"$tmp/lat.sorted")
pct() { local k=$(((nl * $1 + 99) / 100)); sed -n "$((k > 0 ? k : 1))p" "$tmp/lat.sorted"; }
[ "$nl" -gt 0 ] && echo "latency ms: p50 $(pct 50), p90 $(pct 90), p99 $(pct 99), max $(tail -n 1 "$tmp/lat.sorted")" >>"$tmp/summary"
cat "$tmp/summary"
answered=$(sed -n 's/.*answered \([0-9]*\).*/\1/p' "$tmp/summary")

awk -v warm="$warmup" '
	$2 == "" { next }
	{ if (first == "") { first = $2; dfirst = $3 }
	  if (ref == "" && $1 >= warm) { ref = $2; dref = $3; reft = $1 }
	  if ($2 > max) max = $2
	  if ($3 > dmax) dmax = $3
	  last = $2; dlast = $3 }
	END {
	  if (ref == "") { ref = first; dref = dfirst; reft = 0 }
	  printf "rss kB: initial %d, at %ds %d, last %d, max %d; ", first, reft, ref, last, max
	  flat = last <= ref * 1.10
	  printf "memory %s\n", flat ? "flat" : "GREW"
	  printf "private dirty kB: initial %d, at %ds %d, last %d, max %d (%.2f MiB); ", dfirst, reft, dref, dlast, dmax, dmax / 1024
	  dflat = dlast <= dref * 1.10
	  printf "%s\n", dflat ? "flat" : "GREW"
	  exit !(flat && dflat)
	}' "$tmp/rss"
flat=$?
echo "samples (s, rss kB, private dirty kB): $(tr '\n' ',' <"$tmp/rss")"
echo "send errors $errors; ludusd exit status $rc; log lines: $(wc -l <"$tmp/ludusd.log")"
grep -m 5 . "$tmp/ludusd.log"
[ "$answered" = "$nsent" ] && [ $flat = 0 ] && [ $rc = 0 ]
