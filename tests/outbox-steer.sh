#!/bin/sh
# The operator drives the queue of a running ludusd (over a Maildir, its
# sendmail failing while $tmp/down exists):
#
#   - `ludus outbox retry all` makes the waiting mail due and wakes the
#     daemon, which sends it at once, not at the end of its backoff; the
#     command names the daemon's pid;
#   - `outbox hold ID` keeps a mail back through `retry all`; the list says
#     held; `outbox release ID` sends it at once;
#   - `outbox delete all` drops every mail not sent.
set -u
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
unset LUDUS_SEED LUDUS_NOW
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-steer.XXXXXX") || exit 99
dpid=""
trap '[ -n "$dpid" ] && kill -KILL $dpid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname "$0")/testlib.sh"
mail_tag=steer

maildir_referee "$tmp" 1s
# A sendmail that fails (75, try again) while $tmp/down exists.
mv "$tmp/sendmail" "$tmp/sendmail.real"
cat >"$tmp/sendmail" <<SH
#!/bin/sh
[ -e "$tmp/down" ] && { cat >/dev/null; exit 75; }
exec "$tmp/sendmail.real" "\$@"
SH
chmod +x "$tmp/sendmail"
touch "$tmp/down"

_n=0
drop() {
	_n=$((_n + 1))
	mail "$1" help help >"$tmp/Maildir/tmp/$_n"
	mv "$tmp/Maildir/tmp/$_n" "$tmp/Maildir/new/$_n"
	kill -USR1 "$dpid"
}
sent() { ls "$tmp/sent" | grep -c "$1"; }
# wait_for SECONDS COMMAND...: until it succeeds.
wait_for() {
	_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt $_end ] || return 1
		sleep 0.1
	done
}
waiting() { ludus outbox | head -n 1 | cut -d ' ' -f 1; }
waiting_is() { [ "$(waiting)" = "$1" ]; }
sent_is() { [ "$(sent "$1")" = "$2" ]; }

"$LUDUSD_BIN" -f -c "$tmp/ludus.yaml" 2>"$tmp/d.log" &
dpid=$!
wait_for 10 grep -q started "$tmp/d.log" || bad "ludusd did not start"

drop ann@example.org
drop bob@example.org
wait_for 10 waiting_is 2 || bad "two mails waiting: $(ludus outbox)"
wait_for 10 grep -q "to retry" "$tmp/d.log" || bad "no failed attempt: $(tail -3 "$tmp/d.log")"
id_bob=$(ludus outbox | awk '/bob@/ { print $1 }')
ludus outbox hold "$id_bob" >"$tmp/out" 2>&1 && ok || bad "hold: $(cat "$tmp/out")"
ludus outbox | grep -A1 "bob@" | grep -q ", held" && ok ||
    bad "the list does not say held: $(ludus outbox)"

# The server is back; the daemon's backoff is 5 minutes or more away.
rm "$tmp/down"
sleep 1
[ "$(sent ann@)" = 0 ] || bad "sent before the retry"
ludus outbox retry all >"$tmp/out" 2>&1 && ok || bad "retry: $(cat "$tmp/out")"
grep -q "ludusd (pid $dpid) told to send now" "$tmp/out" && ok ||
    bad "retry does not say it woke the daemon: $(cat "$tmp/out")"
wait_for 5 sent_is ann@ 1 && ok || bad "ann's mail not sent within 5 s of the retry"
sleep 1
[ "$(sent bob@)" = 0 ] && ok || bad "the held mail was sent"
ludus outbox release "$id_bob" >"$tmp/out" 2>&1 && ok || bad "release: $(cat "$tmp/out")"
grep -q "told to send now" "$tmp/out" && ok || bad "release: $(cat "$tmp/out")"
wait_for 5 sent_is bob@ 1 && ok || bad "bob's mail not sent within 5 s of the release"
ludus outbox release "$id_bob" >/dev/null 2>&1 && bad "a mail not held released"

# delete all.
touch "$tmp/down"
drop cat@example.org
drop dan@example.org
wait_for 10 waiting_is 2 || bad "two mails waiting again: $(ludus outbox)"
ludus outbox delete all >"$tmp/out" 2>&1 && ok || bad "delete all: $(cat "$tmp/out")"
grep -q "2 mails deleted" "$tmp/out" && ok || bad "delete all: $(cat "$tmp/out")"
waiting_is 0 && ok || bad "mail left after delete all: $(ludus outbox)"

kill -TERM $dpid
wait $dpid && ok || bad "ludusd exit status"
dpid=""
# Without a daemon: retry says how to send.
ludus outbox retry all >"$tmp/out" 2>&1
grep -q "told" "$tmp/out" && bad "retry claims to have told a daemon: $(cat "$tmp/out")"

echo "outbox-steer: $pass passed, $fail failed"
[ $fail = 0 ]
