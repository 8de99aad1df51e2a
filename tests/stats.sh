#!/bin/sh
# The operator's figures: `ludus stats` counts each message by its
# outcome (through ludus deliver, into the database that ludusd shares),
# the queue and the age of its oldest mail, every failed sending attempt,
# the mails given up and the games being played; ludusd's metrics.socket
# serves the same figures as OpenMetrics text, to a plain reader and to an
# HTTP GET, and is gone when ludusd stops.
set -u
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
unset LUDUS_SEED
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-stats.XXXXXX") || exit 99
dpid=""
trap '[ -n "$dpid" ] && kill -KILL $dpid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname "$0")/testlib.sh"
"$LUDUS_BIN" -V | grep -q "^test build" ||
    { echo "stats: needs a test build (--enable-test-clock) for \$LUDUS_NOW"; exit 77; }
command -v python3 >/dev/null ||
    { echo "stats: python3 reads the metrics socket"; exit 77; }
T0=1796000000
export LUDUS_NOW=$T0

maildir_referee "$tmp" 1s
figure() { # NAME: its value in `ludus stats`
	ludus stats | sed -n "s/^$1: //p"
}
want() { # NAME VALUE
	got=$(figure "$1")
	[ "$got" = "$2" ] && ok || bad "$1: '$got', want '$2'"
}

# One message of each outcome, one of them twice.
deliver() { # ID SUBJECT HEADER BODY
	printf 'From: ann@example.org\r\nTo: referee@example.org\r\nSubject: %s\r\nMessage-ID: <%s@example.org>\r\n%s\r\n%s\r\n' \
	    "$2" "$1" "$3" "$4" | ludus deliver 2>>"$tmp/deliver.err"
}
deliver a1 "" "" "new kalah bob@example.org"
deliver a1 "" "" "new kalah bob@example.org"
deliver a2 "" "" "resign 42"
deliver a3 "" "" "new kalah carol@example.org
resign 42"
# A reply to game 1 that holds remarks only.
deliver a4 "Re: [ludus #1 $(ludus token 1 ann@example.org)]" "" "I am away this week."
deliver a5 "" "Auto-Submitted: auto-replied
" "help"
deliver a6 "" "" ""
# The log line of a message: the sender once, the game, what came of it.
grep -qx 'ludus: <a1@example.org> from ann@example.org, game #1: 1 applied' "$tmp/deliver.err" && ok ||
    bad "log line: $(head -n 1 "$tmp/deliver.err")"
grep -q '^ludus: <a3@example.org> from ann@example.org, game #2: 1 applied; `resign 42` failed: ' "$tmp/deliver.err" && ok ||
    bad "log line: $(grep a3 "$tmp/deliver.err")"
grep -q '^ludus: <a4@example.org> from ann@example.org, game #1: 0 applied, 1 set aside$' "$tmp/deliver.err" && ok ||
    bad "log line: $(grep a4 "$tmp/deliver.err")"
grep 'ann@example.org.*ann@example.org' "$tmp/deliver.err" && bad "a sender named twice" || ok
want "messages applied" 1
want "messages failed" 2
want "messages remarks" 1
want "messages dropped" 1
want "messages duplicate" 1
want "messages unreadable" 1
want "messages quarantined" 0

# Mail waits: 100 s later the oldest is 100 s old.  A sendmail that
# fails for now counts an attempt a mail; one that refuses gives up.
n=$(sqlite3 "$tmp/ludus.db" "SELECT count(*) FROM outbox WHERE sent IS NULL" 2>/dev/null ||
    ludus outbox | grep -c '^[0-9]')
[ "$n" -ge 3 ] && ok || bad "only $n mails queued"
export LUDUS_NOW=$((T0 + 100))
want queue "$n"
want "queue oldest age" "100 s"
want "send failures" 0
cat >"$tmp/sendmail" <<'SH'
#!/bin/sh
cat >/dev/null
exit 75
SH
ludus flush >/dev/null 2>&1
want "send failures" "$n"
want queue "$n"
export LUDUS_NOW=$((T0 + 3 * 86400))
ludus flush >/dev/null 2>&1
f=$(figure "send failures")
[ "$f" -gt "$n" ] && ok || bad "send failures $f after a second round, want more than $n"
printf '#!/bin/sh\ncat >/dev/null\nexit 67\n' >"$tmp/sendmail"
export LUDUS_NOW=$((T0 + 6 * 86400))
ludus outbox retry all >/dev/null 2>&1
ludus flush >/dev/null 2>&1
want "given up" "$n"
want queue 0
want "queue oldest age" "0 s"
want "games active" 0
ludus new --quiet kalah dan@example.org eve@example.org >/dev/null
want "games active" 1
want "robot backlog" 0
want "last IMAP contact" never

# The socket serves the same figures (at the same time).
sed -i "s|^logging:|metrics:\n  socket: $tmp/m.sock\nlogging:|" "$tmp/ludus.yaml"
ludus stats --openmetrics >"$tmp/want.om"
grep -q '^ludus_messages_total{outcome="failed"} 2$' "$tmp/want.om" && ok ||
    bad "openmetrics: $(cat "$tmp/want.om")"
tail -n 1 "$tmp/want.om" | grep -qx '# EOF' && ok || bad "openmetrics: no # EOF last"
"$LUDUSD_BIN" -f -c "$tmp/ludus.yaml" 2>"$tmp/d.log" &
dpid=$!
i=0
until [ -S "$tmp/m.sock" ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$tmp/m.sock" ] && ok || bad "no socket: $(cat "$tmp/d.log")"
[ "$(stat -c %a "$tmp/m.sock")" = 660 ] && ok || bad "socket mode $(stat -c %a "$tmp/m.sock")"
read_sock() { # REQUEST: what the socket answers
	python3 - "$tmp/m.sock" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(20)
s.connect(sys.argv[1])
if sys.argv[2]:
    s.sendall(sys.argv[2].encode())
out = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    out += b
sys.stdout.write(out.decode())
PY
}
read_sock "" >"$tmp/got.om"
cmp -s "$tmp/want.om" "$tmp/got.om" && ok ||
    bad "socket: $(diff "$tmp/want.om" "$tmp/got.om")"
read_sock "GET /metrics HTTP/1.1
Host: x

" >"$tmp/http.om"
head -n 1 "$tmp/http.om" | grep -q '^HTTP/1.0 200 OK' && ok || bad "http: $(head -n 3 "$tmp/http.om")"
grep -qi '^Content-Type: application/openmetrics-text' "$tmp/http.om" && ok || bad "http: no content type"
sed '1,/^\r$/d' "$tmp/http.om" | cmp -s - "$tmp/want.om" && ok || bad "http body differs"
kill -TERM $dpid
wait $dpid || bad "ludusd exit status: $(tail -n 3 "$tmp/d.log")"
dpid=""
[ ! -e "$tmp/m.sock" ] && ok || bad "the socket outlived ludusd"

echo "stats: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
