#!/bin/sh
# When ludusd wakes.  A Maildir is watched: a message put into new/ is
# answered at once, not at the next poll interval (1m here).  An IMAP
# server that takes longer to fail than the wait before the next attempt
# (it accepts, says nothing for 1.5 s and hangs up) is tried again after
# the wait the log announces, not at the next poll interval.
set -u
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
unset LUDUS_SEED LUDUS_NOW
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-wake.XXXXXX") || exit 99
dpid="" spid=""
trap '[ -n "$dpid" ] && kill -KILL $dpid 2>/dev/null
    [ -n "$spid" ] && kill -KILL $spid 2>/dev/null
    [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname "$0")/testlib.sh"
ms() { date +%s%3N; }
# wait_for SECONDS CMD...: until CMD succeeds; 1 when time ran out.
wait_for() {
	_end=$(($(ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(ms)" -lt $_end ] || return 1
		sleep 0.05
	done
}

# --- A Maildir: answered when the message comes ------------------------
maildir_referee "$tmp" 1s
"$LUDUSD_BIN" -f -c "$tmp/ludus.yaml" 2>"$tmp/d.log" &
dpid=$!
started() { grep -q "started:" "$tmp/d.log"; }
wait_for 30 started || bad "ludusd did not start: $(cat "$tmp/d.log")"
# Let the first cycle end and the daemon go to sleep.
sleep 1
mail_tag=wake
mail ann@example.org hello help >"$tmp/Maildir/tmp/1"
t0=$(ms)
mv "$tmp/Maildir/tmp/1" "$tmp/Maildir/new/1"
answered() { [ -n "$(ls "$tmp/sent")" ]; }
if wait_for 20 answered; then
	t=$(($(ls "$tmp/sent" | head -n 1 | cut -d. -f1) - t0))
	# Well under the poll interval, with room for a loaded machine.
	[ $t -lt 10000 ] && ok || bad "maildir: answered after $t ms"
else
	bad "maildir: no answer in 20 s (poll interval 1m): $(tail -n 5 "$tmp/d.log")"
fi
kill -TERM $dpid
wait $dpid || bad "ludusd exit status: $(tail -n 5 "$tmp/d.log")"
dpid=""

# --- IMAP: reconnecting when the log says ------------------------------
if ! command -v socat >/dev/null 2>&1; then
	# Half the test did not run: a skip (a failure under CI).
	echo "wakeups: socat is missing (contrib/bootstrap test installs it)"
	[ "${CI:-}" = true ] && { echo "wakeups: $pass passed, $((fail + 1)) failed"; exit 1; }
	exit 77
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + $$ % 20000)))
socat TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork SYSTEM:'sleep 1.5' \
    2>"$tmp/socat.log" &
spid=$!
printf 'x\n' >"$tmp/imap.password"
chmod 600 "$tmp/imap.password"
cat >"$tmp/imap.yaml" <<CONF
referee:
  address: referee@example.org
state_dir: $tmp
database: $tmp/ludus.db
games_dir: $LUDUS_GAMES_DIR
in:
  imap:
    url: imap://127.0.0.1:$port
    user: referee
    password_file: $tmp/imap.password
    starttls: off
    poll_interval: 1m
    timeout: 10s
    retry:
      min: 1s
      max: 1s
out:
  sendmail:
    path: $tmp/sendmail
logging:
  to: stderr
  level: info
CONF
: >"$tmp/i.log"
"$LUDUSD_BIN" -f -c "$tmp/imap.yaml" 2>"$tmp/i.log" &
dpid=$!
# Each attempt takes 1.5 s and is followed by a wait of 1 s: four
# attempts in about 10 s.  Falling back to the poll interval, one.
attempts() { grep -c "imap: next attempt in 1 s" "$tmp/i.log"; }
four() { [ "$(attempts)" -ge 4 ]; }
t0=$(ms)
wait_for 40 four || true
t=$(($(ms) - t0))
n=$(attempts)
[ "$n" -ge 4 ] && ok ||
    bad "imap: $n attempts in $t ms, each 1 s after the last failed: $(tail -n 4 "$tmp/i.log")"
kill -TERM $dpid
wait $dpid || bad "ludusd exit status: $(tail -n 5 "$tmp/i.log")"
dpid=""
echo "wakeups: $pass passed, $fail failed"
[ $fail = 0 ]
