#!/bin/bash
# logging.level: debug against the mail sandbox (tests/mailenv): ludusd
# traces its IMAP and SMTP conversations and the referee's decision on
# each line, and neither the password (as typed, or as AUTH PLAIN/LOGIN
# carry it in base64) nor a seat token (in a player's reply, fetched by
# IMAP) ever reaches the log; the line of each message names the sender
# once, the game and the outcome; `ludus stats` has the last IMAP contact.
# ludusd -n -v says "TLS verified" only for a connection that used TLS.
set -u
export TZ=UTC LC_ALL=C
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
unset LUDUS_NOW LUDUS_SEED
srcdir=${LUDUS_SRCDIR:-.}
mailenv=$srcdir/tests/mailenv/mailenv
. "$srcdir/tests/mailenv/referee.sh"
mailenv_prepare trace

tmp=$(mktemp -d /tmp/ltr.XXXXXX) || exit 99
chmod 755 "$tmp"	# the servers' own users walk through it to the sandbox
box=$tmp/m
dpid=""
cleanup() {
	[ -n "$dpid" ] && { kill -KILL "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; }
	[ -e "$box/env" ] && bash "$mailenv" stop "$box" >/dev/null 2>&1
	[ -n "${KEEP:-}" ] && cp "$tmp/d.log" "$KEEP/" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mailenv_start trace "$box" "$tmp"

pass=0 fail=0
. "$srcdir/tests/testlib.sh"
. "$srcdir/tests/mailenv/smtp.sh"
REF=referee@$MAILENV_DOMAIN
A=alice@$MAILENV_DOMAIN B=bob@$MAILENV_DOMAIN
waitfor() { # SECONDS COMMAND...: until COMMAND succeeds
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}
send_one() { # ID FROM SUBJECT BODY
	local msg
	printf -v msg 'From: %s\r\nTo: <%s>\r\nSubject: %s\r\nMessage-ID: <%s>\r\nDate: %(%a, %d %b %Y %H:%M:%S +0000)T\r\n\r\n%s\r\n' \
	    "$2" "$REF" "$3" "$1" -1 "$4"
	smtp_open "$MAILENV_SMTP_PORT" && smtp_send "$2" "$REF" "$msg" && smtp_close
}
logged() { grep -q -- "$1" "$tmp/d.log"; }
umask 077
mailenv_referee "$tmp" debug
ludus() { "$LUDUS_BIN" -c "$tmp/ludus.yaml" "$@"; }
ludus init >/dev/null || bad "ludus init"
pw=$(cat "$tmp/referee.pw")

# --- ludusd -n -v: TLS as the connections used it ------------------------
"$LUDUSD_BIN" -n -v -c "$tmp/ludus.yaml" >"$tmp/v.out" 2>&1
grep -q "^imap imap://localhost:$MAILENV_IMAP_PORT: TLS verified, logged in" "$tmp/v.out" && ok ||
    bad "-n -v, imap with STARTTLS: $(cat "$tmp/v.out")"
grep -q "^smtp smtps://localhost:$MAILENV_SMTPS_PORT: TLS verified, logged in" "$tmp/v.out" && ok ||
    bad "-n -v, smtps: $(cat "$tmp/v.out")"
# Plain IMAP and SMTP on the loopback interface: no TLS, and said so.
sed -e '/^in:/,/^out:/s|    ca_file:.*|    starttls: off|' \
    -e "s|smtps://localhost:$MAILENV_SMTPS_PORT|smtp://localhost:$MAILENV_SMTP_PORT|" \
    -e '/^out:/,/^limits:/{/user:/d;/password_file:/d;s|    ca_file:.*|    starttls: off|}' \
    "$tmp/ludus.yaml" >"$tmp/plain.yaml"
"$LUDUSD_BIN" -n -v -c "$tmp/plain.yaml" >"$tmp/p.out" 2>&1
grep -q "^imap imap://localhost:$MAILENV_IMAP_PORT: no TLS, logged in" "$tmp/p.out" && ok ||
    bad "-n -v, plain imap: $(cat "$tmp/p.out")"
grep -q "^smtp smtp://localhost:$MAILENV_SMTP_PORT: no TLS, no AUTH" "$tmp/p.out" && ok ||
    bad "-n -v, plain smtp: $(cat "$tmp/p.out")"
grep -q "TLS verified" "$tmp/p.out" && bad "-n -v claims TLS: $(cat "$tmp/p.out")" || ok

# --- the daemon at debug ---------------------------------------------------
"$LUDUSD_BIN" -f -c "$tmp/ludus.yaml" 2>"$tmp/d.log" &
dpid=$!
waitfor 60 logged "imap: connected" || bad "ludusd did not connect: $(tail -n 5 "$tmp/d.log")"
send_one "t1.$$@$MAILENV_DOMAIN" "$A" "game" "new kalah $B" || bad "send t1"
waitfor 60 logged "outbox: [1-9][0-9]* sent" || bad "no answer sent: $(tail -n 5 "$tmp/d.log")"
tok=$(ludus token 1 "$B")
[ -n "$tok" ] && ok || bad "no token for game 1"
# Bob's reply carries his seat's token in the subject: fetched by IMAP.
send_one "t2.$$@$MAILENV_DOMAIN" "$B" "Re: [ludus #1 $tok]" "accept" || bad "send t2"
waitfor 60 logged "<t2.$$@$MAILENV_DOMAIN> from" || bad "t2 not taken: $(tail -n 5 "$tmp/d.log")"
waitfor 60 eval '[ "$(grep -c "outbox: [1-9][0-9]* sent" "$tmp/d.log")" -ge 2 ]' ||
    bad "no answer to t2: $(tail -n 5 "$tmp/d.log")"
kill -TERM $dpid
wait $dpid || bad "ludusd exit status: $(tail -n 3 "$tmp/d.log")"
dpid=""

# The conversations, both ways.
# libetpan marks its LOGIN command private: hidden whole.
for want in 'imap C: \([A-Za-z0-9]* LOGIN (arguments hidden)\|(private data hidden)\)$' \
    'imap S: [A-Za-z0-9]* OK' 'imap C: [A-Za-z0-9]* UID SEARCH' \
    'imap C: [A-Za-z0-9]* UID FETCH' 'imap S: ([0-9]* bytes of a message, not shown)' \
    'imap C: [A-Za-z0-9]* IDLE' 'smtp S: 220 ' 'smtp C: EHLO ' \
    'smtp C: AUTH [A-Z0-9-]* (arguments hidden)$' 'smtp S: 235 ' \
    "smtp C: MAIL FROM:<referee" "smtp C: RCPT TO:<$A>" 'smtp S: 250 ' \
    "referee: $A: 1 line, game tag #0, no seat token" \
    "referee: \`new kalah $B\`: applied" \
    "referee: $B: 1 line, game tag #1, seat token valid" \
    'referee: `accept`: applied'; do
	grep -q -- "debug: $want" "$tmp/d.log" && ok || bad "not traced: $want"
done
# Nothing that opens a mailbox or the seats.
grep -qF -- "$pw" "$tmp/d.log" && bad "the password is in the log" || ok
for secret in "$(printf '\0referee\0%s' "$pw" | base64)" \
    "$(printf 'referee\0referee\0%s' "$pw" | base64)" \
    "$(printf '%s' "$pw" | base64)" "$tok" "$(ludus token 1 "$A")"; do
	grep -qF -- "$secret" "$tmp/d.log" && bad "a secret in the log: $secret" || ok
done
grep -q 'Subject:' "$tmp/d.log" && bad "a mail's header in the log" || ok

# The line of each message: the sender once, the game, the outcome.
grep -q "info: <t1.$$@$MAILENV_DOMAIN> from $A, game #1: 1 applied$" "$tmp/d.log" && ok ||
    bad "message line: $(grep "t1\.$$" "$tmp/d.log" | grep -v debug)"
grep -q "info: <t2.$$@$MAILENV_DOMAIN> from $B, game #1: 1 applied$" "$tmp/d.log" && ok ||
    bad "message line: $(grep "t2\.$$" "$tmp/d.log" | grep -v debug)"

# The last IMAP contact, within the test's own time.
c=$(ludus stats | sed -n 's/^last IMAP contact: .* (\([0-9]*\) s ago)$/\1/p')
[ -n "$c" ] && [ "$c" -le "$SECONDS" ] && ok || bad "last IMAP contact: $(ludus stats | grep IMAP)"
[ "$(ludus stats | sed -n 's/^messages applied: //p')" = 2 ] && ok ||
    bad "stats: $(ludus stats | head -n 3)"

echo "trace: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
