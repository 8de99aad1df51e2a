#!/bin/sh
# ludusd's LMTP door against hostile and pipelined input: a real ludusd on
# a Unix socket (and one on a loopback TCP port), a socket client that
# writes each script in one piece, the database read with sqlite3.
#
#   - the whole transaction pipelined: one answer per command, one per
#     accepted recipient after the data, 550 for others, +detail accepted
#   - what is stored is the message dot-unstuffed, CR LF kept, and only
#     CR LF . CR LF ends it (a bare LF . LF is data)
#   - a second DATA, commands out of order, HELO, VRFY, overlong lines,
#     NUL, too many recipients, too large (SIZE= and after the data)
#   - a connection dropped mid-DATA, or without the final dot: nothing
#   - the same message twice: stored once, answered once
#   - a store that stays locked: 451 4.3.0, then 250 once it is free
#   - an idle connection is closed (421 4.4.2)
#   - kill -9 after the 250 and before the referee read it: read at the
#     restart, answered once
#   - in.lmtp refused off loopback; --once reads what waits, opens no socket
set -u
: "${LUDUSD_BIN:?}" "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}" "${LUDUS_SRCDIR:?}"
. "$LUDUS_SRCDIR/tests/goldenlib.sh"
if ! golden_test_build; then
	echo "lmtp: $LUDUS_BIN is not a test build (configure --enable-test-clock)"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi
for p in python3 sqlite3; do
	command -v $p >/dev/null || { echo "lmtp: no $p"; exit 77; }
done
tmp=$(mktemp -d /tmp/lmtp.XXXXXX) || exit 99
pid=""
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0
. "$LUDUS_SRCDIR/tests/testlib.sh"
# The system's python3 starts in a tenth of the time of a version manager's.
py=/usr/bin/python3
[ -x $py ] || py=python3
client="$py $LUDUS_SRCDIR/tests/lmtp-client.py"

# A referee on $tmp with its mail written to $tmp/sent, mail in by LMTP.
cat >"$tmp/sendmail" <<'SH'
#!/bin/sh
cat >"$SENT_DIR/$(date +%s%N).$$.eml"
SH
chmod +x "$tmp/sendmail"
mkdir "$tmp/sent"
export SENT_DIR="$tmp/sent"
conf() { # LISTEN [EXTRA-LINE]
	cat >"$tmp/ludus.yaml" <<EOF
referee:
  address: referee@example.org
state_dir: $tmp
database: $tmp/ludus.db
games_dir: $LUDUS_GAMES_DIR
in:
  lmtp: "$1"
out:
  sendmail:
    path: $tmp/sendmail
limits:
  message_size: 4k
${2:-}
logging:
  to: stderr
  level: info
EOF
}
sock=unix:$tmp/l.sock
conf "$sock"
"$LUDUS_BIN" -c "$tmp/ludus.yaml" init >/dev/null || bad init

start() {
	[ -f "$tmp/log" ] && cat "$tmp/log" >>"$tmp/log.old"
	: >"$tmp/log"
	"$LUDUSD_BIN" -c "$tmp/ludus.yaml" -f 2>>"$tmp/log" &
	pid=$!
	i=0
	until grep -q "lmtp: listening" "$tmp/log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] || { bad "ludusd did not start"; cat "$tmp/log"; return 1; }
		sleep 0.1
	done
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null; pid=""; }
q() { sqlite3 -cmd '.timeout 20000' "$tmp/ludus.db" "$1"; }
# talk NAME [MODE]: $tmp/NAME.in to the server, its answers in NAME.out.
talk() { $client "$sock" "$tmp/$1.in" ${2:-} >"$tmp/$1.out" 2>&1; }
# expect NAME TEXT: the answers of NAME, one a line, are TEXT.
expect() {
	if [ "$(cat "$tmp/$1.out")" = "$2" ]; then ok; else
		bad "$1: got"; cat "$tmp/$1.out"; echo "--- wanted"; echo "$2"
	fi
}
sent_count() { ls "$tmp/sent" | wc -l; }
wait_sent() { # N
	i=0
	while [ "$(sent_count)" -lt "$1" ] && [ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1))
	done
}
crlf() { printf '%s\r\n' "$@"; }
head_lines() { # FROM SUBJECT [MESSAGE-ID]
	crlf "From: $1" "To: referee@example.org" "Subject: $2"
	[ -n "${3:-}" ] && crlf "Message-ID: <$3>"
	crlf "Date: Sun, 29 Nov 2026 10:00:00 +0000" ""
}

# --- The stored bytes: held (test builds: the drain waits) to be read.
export LUDUS_INBOUND_HOLD=1
start
{
	crlf "LHLO mx" "MAIL FROM:<alice@example.org> SIZE=300 BODY=8BITMIME" \
	    "RCPT TO:<referee@example.org>" "RCPT TO:<bob@example.org>" \
	    "RCPT TO:<Referee+x7@EXAMPLE.ORG>" "DATA"
	head_lines alice@example.org "no id" ""
	crlf "games" "..dot stuffed" "..." "x"
	printf 'bare\n.\nMAIL FROM:<evil@example.org>\r\n'
	crlf "." "DATA" "QUIT"
} >"$tmp/pipe.in"
talk pipe
expect pipe "220 ludusd LMTP ready
250-ludusd
250-PIPELINING
250-ENHANCEDSTATUSCODES
250-8BITMIME
250 SIZE 73728
250 2.1.0 Ok
250 2.1.5 Ok
550 5.1.1 <bob@example.org>: not the referee here
250 2.1.5 Ok
354 go ahead, end with <CR><LF>.<CR><LF>
250 2.0.0 Ok, stored
250 2.0.0 Ok, stored
503 5.5.1 no valid recipients
221 2.0.0 bye"
# What the server must have kept: unstuffed, CR LF as sent, the bare
# LF lines as data.
{
	head_lines alice@example.org "no id" ""
	crlf "games" ".dot stuffed" ".." "x"
	printf 'bare\n.\nMAIL FROM:<evil@example.org>\r\n'
} >"$tmp/want.eml"
want=$(od -An -tx1 "$tmp/want.eml" | tr -d ' \n' | tr a-f A-F)
got=$(q "SELECT hex(raw) FROM inbound")
[ "$got" = "$want" ] && ok || bad "stored bytes: $got, wanted $want"
key=sha256:$(sha256sum "$tmp/want.eml" | cut -d' ' -f1)
[ "$(q "SELECT key || ' ' || route || ' ' || state FROM inbound")" = \
    "$key alice@example.org waiting" ] && ok || bad "row: $(q "SELECT key, route, state FROM inbound")"

# The route of a message about a game is its game.
{
	crlf "LHLO mx" "MAIL FROM:<bob@example.org>" \
	    "RCPT TO:<referee@example.org>" "DATA"
	head_lines bob@example.org "Re: [ludus #12 ab12cd] your move" g12@x
	crlf "resign" "." "QUIT"
} >"$tmp/route.in"
talk route
[ "$(q "SELECT route FROM inbound WHERE key LIKE '<g12@x>%'")" = "game #12" ] &&
    ok || bad "route of a game's mail: $(q "SELECT route FROM inbound")"
q "DELETE FROM inbound WHERE key LIKE '<g12@x>%'"

# --- Hostile and out-of-order commands, each connection on its own.
long=$(head -c 600 /dev/zero | tr '\0' x)
{
	crlf "MAIL FROM:<a@example.org>" "HELO mx" "EHLO mx" "LHLO" "LHLO mx" \
	    "RCPT TO:<referee@example.org>" "DATA" "VRFY referee" \
	    "NOOP $long" "NOOP" "MAIL FROM:<a@example.org> SIZE=999999" \
	    "MAIL FROM:a@example.org" "MAIL FROM:<a@example.org>" \
	    "MAIL FROM:<b@example.org>" "RSET" "DATA" "FOO" "QUIT"
} >"$tmp/bad.in"
talk bad
expect bad "220 ludusd LMTP ready
503 5.5.1 LHLO first
500 5.5.1 this is LMTP: LHLO
500 5.5.1 this is LMTP: LHLO
501 5.5.4 syntax: LHLO hostname
250-ludusd
250-PIPELINING
250-ENHANCEDSTATUSCODES
250-8BITMIME
250 SIZE 73728
503 5.5.1 MAIL first
503 5.5.1 no valid recipients
502 5.5.1 VRFY command is disabled
500 5.5.2 line too long
250 2.0.0 Ok
552 5.3.4 message size exceeds the limit of 73728
501 5.5.4 syntax: MAIL FROM:<address>
250 2.1.0 Ok
503 5.5.1 nested MAIL command
250 2.0.0 Ok
503 5.5.1 no valid recipients
500 5.5.2 command not recognised
221 2.0.0 bye"

# An overlong line with no end at all, then a NUL: the connection
# survives both.
{
	crlf "LHLO mx"
	head -c 3000 /dev/zero | tr '\0' y
	printf '\r\nNO\000OP\r\nNOOP\r\nQUIT\r\n'
} >"$tmp/long.in"
talk long
[ "$(sed -n '7,$p' "$tmp/long.out")" = "500 5.5.2 line too long
500 5.5.2 NUL in a command
250 2.0.0 Ok
221 2.0.0 bye" ] && ok || { bad "overlong line"; cat "$tmp/long.out"; }

# Twenty mistakes end the connection.
{
	crlf "LHLO mx"
	i=0
	while [ $i -lt 25 ]; do crlf "BOGUS $i"; i=$((i + 1)); done
	crlf "NOOP"
} >"$tmp/mistakes.in"
talk mistakes
[ "$(grep -c '^500 5.5.2' "$tmp/mistakes.out")" = 20 ] &&
[ "$(tail -n 1 "$tmp/mistakes.out")" = "421 4.7.0 too many errors, closing" ] &&
    ok || { bad "mistakes"; tail -n 3 "$tmp/mistakes.out"; }

# At most 64 connections at once: the next is told 421 and closed.
$py - "$tmp/l.sock" >"$tmp/conns.out" 2>&1 <<'PY2'
import socket, sys
held = []
for i in range(64):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    s.settimeout(10)
    assert s.recv(100).startswith(b"220"), "greeting %d" % i
    held.append(s)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(10)
print(s.recv(100).decode().strip())
print(repr(s.recv(100)))
PY2
[ "$(cat "$tmp/conns.out")" = "421 4.3.2 too many connections, try again later
b''" ] && ok || { bad "connection limit"; cat "$tmp/conns.out"; }

# Many recipients: 100 taken, the rest 452; one answer each after the data.
{
	crlf "LHLO mx" "MAIL FROM:<carol@example.org>"
	i=0
	while [ $i -lt 105 ]; do crlf "RCPT TO:<referee+$i@example.org>"; i=$((i + 1)); done
	crlf "DATA"
	head_lines carol@example.org many many@x
	crlf "games" "." "QUIT"
} >"$tmp/many.in"
talk many
[ "$(grep -c '^250 2.1.5' "$tmp/many.out")" = 100 ] &&
[ "$(grep -c '^452 4.5.3' "$tmp/many.out")" = 5 ] &&
[ "$(grep -c '^250 2.0.0 Ok, stored' "$tmp/many.out")" = 100 ] &&
    ok || { bad "many recipients"; sort "$tmp/many.out" | uniq -c; }

# Too large for the SIZE the server gave: 552 after the data, nothing kept.
{
	crlf "LHLO mx" "MAIL FROM:<dave@example.org>" \
	    "RCPT TO:<referee@example.org>" "DATA"
	head_lines dave@example.org big big@x
	i=0
	while [ $i -lt 2000 ]; do crlf "games games games games games games games games"; i=$((i + 1)); done
	crlf "." "QUIT"
} >"$tmp/big.in"
talk big
[ "$(tail -2 "$tmp/big.out")" = "552 5.3.4 message size exceeds the limit of 73728
221 2.0.0 bye" ] && ok || { bad "too large"; tail -3 "$tmp/big.out"; }

# Dropped mid-DATA, and a DATA that never ends before QUIT's close.
{
	crlf "LHLO mx" "MAIL FROM:<erin@example.org>" \
	    "RCPT TO:<referee@example.org>" "DATA"
	head_lines erin@example.org dropped dropped@x
	printf 'games\r\n.'
} >"$tmp/drop.in"
talk drop drop
{
	crlf "LHLO mx" "MAIL FROM:<erin@example.org>" \
	    "RCPT TO:<referee@example.org>" "DATA"
	head_lines erin@example.org unended unended@x
	crlf "games" "QUIT"
} >"$tmp/unended.in"
talk unended drop
sleep 1
[ "$(q "SELECT count(*) FROM inbound WHERE key LIKE '<dropped@x>%' OR key LIKE '<unended@x>%' OR key LIKE '<big@x>%'")" = 0 ] &&
    ok || bad "a half-received message was stored"

# The same message delivered twice: 250 both times, one row.
{
	crlf "LHLO mx" "MAIL FROM:<carol@example.org>" \
	    "RCPT TO:<referee@example.org>" "DATA"
	head_lines carol@example.org many many@x
	crlf "games" "." "QUIT"
} >"$tmp/again.in"
talk again
grep -q '^250 2.0.0 Ok, stored' "$tmp/again.out" && ok || bad "again: $(cat "$tmp/again.out")"
[ "$(q "SELECT count(*) FROM inbound")" = 2 ] && ok || bad "rows: $(q "SELECT count(*) FROM inbound")"

# --- kill -9 after the 250s, before the referee read anything.
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=""
unset LUDUS_INBOUND_HOLD
[ "$(sent_count)" = 0 ] && ok || bad "answered while held"
start
wait_sent 2
sleep 1
# alice's mail (games, error replies) and carol's (games): two answers.
[ "$(sent_count)" = 2 ] && ok || bad "after the restart: $(sent_count) mails sent"
[ "$(q "SELECT count(*) FROM inbound")" = 0 ] && ok || bad "inbound not drained"
[ "$(q "SELECT count(*) FROM processed")" = 2 ] && ok || bad "processed: $(q "SELECT count(*) FROM processed")"
grep -q "^To: carol@example.org" "$tmp"/sent/* && grep -q "^To: alice@example.org" "$tmp"/sent/* &&
    ok || bad "answers not to alice and carol"
# Delivered again after it was read: 250, and nothing applied twice.
talk again
i=0
until [ "$(q "SELECT value FROM counters WHERE name = 'messages.duplicate'")" = 1 ] ||
    [ $i -ge 300 ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 0.5
[ "$(sent_count)" = 2 ] && ok || bad "a message delivered again was answered again"
"$LUDUS_BIN" -c "$tmp/ludus.yaml" stats >"$tmp/stats"
grep -q "^messages duplicate: 1$" "$tmp/stats" && grep -q "^inbound waiting: 0$" "$tmp/stats" &&
    ok || { bad "stats"; cat "$tmp/stats"; }

# --- A store that stays locked longer than its busy timeout: 451.
{
	crlf "LHLO mx" "MAIL FROM:<frank@example.org>" \
	    "RCPT TO:<referee@example.org>" "DATA"
	head_lines frank@example.org locked locked@x
	crlf "games" "." "QUIT"
} >"$tmp/locked.in"
sqlite3 -cmd '.timeout 20000' "$tmp/ludus.db" "BEGIN EXCLUSIVE; SELECT count(*) FROM players;" \
    ".shell sleep 25" "COMMIT;" >/dev/null &
locker=$!
# Until the lock is held (the daemon may be writing when it asks).
i=0
while sqlite3 "$tmp/ludus.db" "BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1 &&
    [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
$client "$sock" "$tmp/locked.in" slow >"$tmp/locked.out" 2>&1
grep -q "^451 4.3.0" "$tmp/locked.out" && ok || { bad "locked store"; cat "$tmp/locked.out"; }
wait $locker
talk locked
grep -q "^250 2.0.0 Ok, stored" "$tmp/locked.out" && ok || { bad "after the lock"; cat "$tmp/locked.out"; }
wait_sent 3
[ "$(sent_count)" = 3 ] && ok || bad "frank's mail not answered"

# --- A move against a robot: the message waits for it (parked), the
# sender's next message behind it, both answered, in order.
ludus() { "$LUDUS_BIN" -c "$tmp/ludus.yaml" "$@"; }
mail_tag=robot
# Not in a pipe: mail counts the Message-IDs in this shell.
mail hank@example.org hello "new kalah robot:1 first=me" >"$tmp/m"
ludus deliver <"$tmp/m" 2>/dev/null || bad "new robot game"
gid=$(q "SELECT max(id) FROM games")
tok=$(ludus token "$gid" 0)
mail hank@example.org "Re: [ludus #$gid $tok]" accept >"$tmp/m"
ludus deliver <"$tmp/m" 2>/dev/null || bad accept
ludus flush >/dev/null 2>&1
mv_=$(ludus moves "$gid" | head -n 1)
n0=$(sent_count)
plies0=$(q "SELECT count(*) FROM moves WHERE game_id = $gid")
{
	crlf "LHLO mx" "MAIL FROM:<hank@example.org>" "RCPT TO:<referee@example.org>" "DATA"
	head_lines hank@example.org "Re: [ludus #$gid $tok]" rmove@x
	crlf "$mv_" "." "MAIL FROM:<hank@example.org>" "RCPT TO:<referee@example.org>" "DATA"
	head_lines hank@example.org "Re: [ludus #$gid $tok]" rboard@x
	crlf "board" "." "QUIT"
} >"$tmp/robot.in"
talk robot
[ "$(grep -c '^250 2.0.0 Ok, stored' "$tmp/robot.out")" = 2 ] && ok || { bad "robot: $(cat "$tmp/robot.out")"; }
wait_sent $((n0 + 2))
[ "$(sent_count)" = $((n0 + 2)) ] && ok || bad "robot game: $(($(sent_count) - n0)) answers"
[ "$(q "SELECT count(*) FROM moves WHERE game_id = $gid")" -ge $((plies0 + 2)) ] && ok ||
    bad "robot game: no robot move after hank's"
[ "$(q "SELECT count(*) FROM inbound")" = 0 ] && ok || bad "robot game: inbound not drained"
grep -q "robot: applied" "$tmp/log" && ok || { bad "the move did not wait for its robot"; tail -n 12 "$tmp/log"; }
# The board answers the position after the robot's move: after the move.
last2=$(ls "$tmp/sent" | sort -n | tail -n 2)
grep -q "rmove@x" "$tmp/sent/$(echo "$last2" | head -n 1)" && ok ||
    bad "robot game: the answers out of order"
stop

# --- A message that keeps failing (the store refuses it: a trigger) is
# set aside after its attempts (3 here, a test build's
# LUDUS_INBOUND_ATTEMPTS); the sender's next message waits behind it
# until then, and is answered after; `ludus inbound retry` puts it back.
q "CREATE TRIGGER poison BEFORE INSERT ON processed WHEN NEW.key LIKE '<poison@x>%' BEGIN SELECT RAISE(ABORT, 'poisoned'); END;"
export LUDUS_INBOUND_ATTEMPTS=3
start
n0=$(sent_count)
{
	crlf "LHLO mx" "MAIL FROM:<ivan@example.org>" "RCPT TO:<referee@example.org>" "DATA"
	head_lines ivan@example.org first poison@x
	crlf "games" "." "MAIL FROM:<ivan@example.org>" "RCPT TO:<referee@example.org>" "DATA"
	head_lines ivan@example.org second after-poison@x
	crlf "games" "." "QUIT"
} >"$tmp/poison.in"
talk poison
[ "$(grep -c '^250 2.0.0 Ok, stored' "$tmp/poison.out")" = 2 ] && ok || bad "poison: $(cat "$tmp/poison.out")"
sleep 0.5
[ "$(q "SELECT count(*) FROM processed WHERE key LIKE '<after-poison@x>%'")" = 0 ] && ok ||
    bad "the message behind a failing one of its sender went first"
i=0
until [ "$(q "SELECT state FROM inbound WHERE key LIKE '<poison@x>%'")" = dead ] || [ $i -ge 150 ]; do
	sleep 0.1; i=$((i + 1))
done
wait_sent $((n0 + 1))
[ "$(q "SELECT state || ' ' || attempts FROM inbound WHERE key LIKE '<poison@x>%'")" = "dead 3" ] && ok ||
    bad "poison: $(q "SELECT state, attempts, cause FROM inbound")"
[ "$(q "SELECT count(*) FROM processed WHERE key LIKE '<after-poison@x>%'")" = 1 ] && ok ||
    bad "the message behind the one set aside was not taken"
grep -q "error: inbound: message [0-9]* (ivan@example.org) set aside after 3 attempts" "$tmp/log" && ok ||
    bad "no error logged for the message set aside"
ludus inbound >"$tmp/inbound.out"
grep -q "ivan@example.org .* bytes, set aside, 3 attempts: .*poisoned" "$tmp/inbound.out" && ok ||
    { bad "ludus inbound"; cat "$tmp/inbound.out"; }
ludus stats | grep -q "^inbound set aside: 1$" && ok || bad "stats: $(ludus stats | grep inbound)"
q "DROP TRIGGER poison"
pid_row=$(q "SELECT id FROM inbound WHERE key LIKE '<poison@x>%'")
ludus inbound retry "$pid_row" | grep -q "message $pid_row waits again" && ok || bad "inbound retry"
ludus inbound retry "$pid_row" >/dev/null 2>&1 && bad "a second retry of a waiting message" || ok
wait_sent $((n0 + 2))
[ "$(q "SELECT count(*) FROM inbound")" = 0 ] && ok || bad "the message put back was not taken"
[ "$(sent_count)" = $((n0 + 2)) ] && ok || bad "poison: $(($(sent_count) - n0)) answers, not 2"
stop
unset LUDUS_INBOUND_ATTEMPTS

# --- Idle connections are closed.
export LUDUS_LMTP_IDLE_MS=1000
start
printf '' >"$tmp/idle.in"
talk idle idle
expect idle "220 ludusd LMTP ready
421 4.4.2 idle too long, closing"
stop
unset LUDUS_LMTP_IDLE_MS

# --- TCP on loopback; anything else refused by the configuration.
port=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
conf "127.0.0.1:$port"
sock=127.0.0.1:$port
start
crlf "LHLO mx" "QUIT" >"$tmp/tcp.in"
talk tcp
grep -q "^221 2.0.0" "$tmp/tcp.out" && ok || { bad "tcp"; cat "$tmp/tcp.out"; }
stop
for where in 0.0.0.0:24 192.0.2.1:24 "[2001:db8::1]:24" unix:relative 127.0.0.1 127.0.0.1:99999; do
	conf "$where"
	if "$LUDUSD_BIN" -c "$tmp/ludus.yaml" -n >"$tmp/n.out" 2>&1; then
		bad "in.lmtp $where accepted"
	else
		grep -q "in.lmtp" "$tmp/n.out" && ok || { bad "in.lmtp $where: $(cat "$tmp/n.out")"; }
	fi
done

# --- --once: no socket, but what waits is read.
conf "$sock"
{
	printf 'INSERT INTO inbound (key, route, arrived, raw) VALUES '
	printf "('<once@x> gina@example.org', 'gina@example.org', 0, CAST('"
	head_lines gina@example.org once once@x | sed "s/'/''/g"
	printf "games\r\n' AS BLOB));\n"
} >"$tmp/once.sql"
sqlite3 "$tmp/ludus.db" <"$tmp/once.sql"
"$LUDUSD_BIN" -c "$tmp/ludus.yaml" --once 2>"$tmp/once.log"
[ "$(q "SELECT count(*) FROM inbound")" = 0 ] && ok || bad "--once left the inbound row"
! grep -q "lmtp: listening" "$tmp/once.log" && ok || bad "--once listened"
n1=$(grep -l "^To: gina@example.org" "$tmp"/sent/* 2>/dev/null | wc -l)
[ "$n1" = 1 ] && ok || bad "--once: $n1 answers to gina"

echo "lmtp: $pass passed, $fail failed"
[ $fail = 0 ]
