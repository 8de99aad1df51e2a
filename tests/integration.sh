#!/bin/bash
# ludusd as a real process against the private Dovecot + Postfix of
# tests/mailenv: players send real mail over SMTP and read the referee's
# replies over IMAP, matched by In-Reply-To and Message-ID.
#
#   1. a message reaches the daemon through IDLE; its reply is in the
#      sender's INBOX within 5 s, each of five (latencies printed);
#   2. 500 messages in a burst: each processed exactly once, all within
#      100 s (mail that came during a round is not left waiting for the
#      server's next IDLE keep-alive, two minutes later);
#   3. kill -9 of ludusd mid-burst (twice: while reading, while sending)
#      and a restart: nothing lost, nothing applied twice, a resent reply
#      keeps its Message-ID;
#   4. Dovecot stopped and started under the running daemon: it reconnects
#      with backoff and carries on;
#   5. Postfix stopped: the reply waits in the outbox, retried, and is
#      delivered once when Postfix is back;
#   6. an auto-reply to a reply, and a message with our own X-Loop, get no
#      answer;
#   7. servers whose certificates are not trusted: not used, logged as
#      errors, told to the admins once a day, --once exits 75.
#
# Exit 77 only when the servers cannot be had (not root, packages not
# installable).  INTEGRATION_KEEP=DIR copies the daemon's log, the
# database, the mail log and the mailbox listings there at the end.
set -u
export TZ=UTC LC_ALL=C
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
srcdir=${LUDUS_SRCDIR:-.}
mailenv=$srcdir/tests/mailenv/mailenv

. "$srcdir/tests/mailenv/referee.sh"
mailenv_prepare integration

# Short: mailenv's Unix sockets live under it.
tmp=$(mktemp -d /tmp/lit.XXXXXX) || exit 99
chmod 755 "$tmp"	# the servers' own users walk through it to the sandbox
box=$tmp/m
lpid=""
cleanup() {
	if [ -n "$lpid" ]; then
		kill -KILL "$lpid" 2>/dev/null
		wait "$lpid" 2>/dev/null
	fi
	[ -n "${INTEGRATION_KEEP:-}" ] && cp -r "$tmp"/*.log "$tmp"/r? "$tmp"/r?.raw "$tmp"/ludus.db* "$box/pf/maillog" "$INTEGRATION_KEEP"/ 2>/dev/null
	[ -e "$box/env" ] && bash "$mailenv" stop "$box" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mailenv_start integration "$box" "$tmp"

pass=0 fail=0
. "$(dirname "$0")/testlib.sh"
note() { echo "integration: $*"; }
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

REF=referee@$MAILENV_DOMAIN
pw() { echo "$1$MAILENV_PASSWORD_SUFFIX"; }
umask 077
db=$tmp/ludus.db
conf=$tmp/ludus.yaml
mailenv_referee "$tmp"
"$LUDUS_BIN" -c "$conf" init >/dev/null || bad "ludus init"

# --- the players' side: SMTP (or LMTP) in bash, IMAP through curl -------

. "$srcdir/tests/mailenv/smtp.sh"

# MSG= a player's message: ID FROM SUBJECT BODY [EXTRA-HEADER].
mk_msg() {
	local date
	printf -v date '%(%a, %d %b %Y %H:%M:%S +0000)T' -1
	printf -v MSG 'From: %s\r\nTo: Referee <%s>\r\nSubject: %s\r\nMessage-ID: <%s>\r\nDate: %s\r\n%sContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n' \
	    "$2" "$REF" "$3" "$1" "$date" "${5:+$5$'\r\n'}" "$4"
}
# One message over a connection of its own.
send_one() { # ID FROM SUBJECT BODY [EXTRA-HEADER]
	mk_msg "$@"
	smtp_open "$MAILENV_SMTP_PORT" && smtp_send "$2" "$REF" "$MSG" &&
	    smtp_close
}

imap() { # USER COMMAND [MAILBOX]
	curl -s --max-time 20 -u "$1:$(pw "$1")" \
	    --url "imap://127.0.0.1:$MAILENV_IMAP_PORT/${3:-}" -X "$2"
}
# Messages in a user's mailbox (STATUS, no SELECT).
count_of() { # USER [MAILBOX]
	imap "$1" "STATUS ${2:-INBOX} (MESSAGES)" |
	    sed -n 's/.*(MESSAGES \([0-9]*\)).*/\1/p'
}
# "IN-REPLY-TO MESSAGE-ID" of every message in a user's INBOX into FILE
# (NIL where missing); 1 when the mailbox could not be read whole.  The
# two header fields of UIDs 1 to UIDNEXT-1, over one connection (curl's
# URL globbing): curl gives up on a FETCH response of a few kB when it is
# a custom command (-X), as the ENVELOPEs of all would be.
replies_of() { # USER FILE
	local n next
	n=$(count_of "$1")
	next=$(imap "$1" "STATUS INBOX (UIDNEXT)" |
	    sed -n 's/.*(UIDNEXT \([0-9]*\)).*/\1/p')
	[ -n "$n" ] && [ -n "$next" ] || return 1
	: >"$2.raw"
	[ "$next" -le 1 ] ||
	    curl -s --max-time 120 -u "$1:$(pw "$1")" -w 'END\n' \
	    "imap://127.0.0.1:$MAILENV_IMAP_PORT/INBOX;UID=[1-$((next - 1))];SECTION=HEADER.FIELDS%20(IN-REPLY-TO%20MESSAGE-ID)" \
	    >"$2.raw"
	tr -d '\r' <"$2.raw" | awk '
	    tolower($1) == "in-reply-to:" { irt = $2 }
	    tolower($1) == "message-id:" { mid = $2 }
	    $0 == "END" { if (irt != "" || mid != "") print (irt == "" ? "NIL" : irt), (mid == "" ? "NIL" : mid); irt = mid = "" }' |
	    tr -d '<>' >"$2"
	[ "$(wc -l <"$2")" = "$n" ] ||
	    { echo "integration: $1's INBOX not read whole" >&2; return 1; }
}
# The UID of the reply to a message, empty while there is none.
reply_uid() { # USER MESSAGE-ID
	imap "$1" "UID SEARCH HEADER In-Reply-To \"<$2>\"" INBOX | tr -d '\r' |
	    sed -n 's/^\* SEARCH \([0-9]\).*/\1/p' | head -n 1
}

sql() { sqlite3 -cmd '.timeout 10000' "$db" "$1"; }

# Poll until a command succeeds; 1 after SECONDS seconds.
wait_for() { # SECONDS COMMAND...
	local end=$(($(now_ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(now_ms)" -lt $end ] || return 1
		sleep 0.1
	done
}

# --- the daemon -----------------------------------------------------------

log=$tmp/ludusd.log
start_ludusd() {
	"$LUDUSD_BIN" -f -c "$conf" 2>>"$log" &
	lpid=$!
}
connects() { grep -c "imap: connected" "$log"; }
# Connected, and with settle the first round, which reads the INBOX and
# sends the outbox, is over (tests/mailenv/referee.sh).
more_connects() { [ "$(connects)" -gt "$prev" ]; }
wait_connected() { # PREVIOUS-COUNT [settle]
	prev=$1
	wait_for 30 more_connects || return 1
	[ -z "${2:-}" ] || wait_for 60 mailenv_settled "$db" || true
}
# Nothing on its way: what a late duplicate would be is in the mailboxes.
settle() { # WHAT
	wait_for 120 mailenv_settled "$db" || bad "$1: mail still on its way after 120 s"
}
alive() { kill -0 "$lpid" 2>/dev/null; }

start_ludusd
if wait_connected 0 settle; then ok; else
	bad "ludusd did not connect: $(tail -5 "$log")"
	echo "integration: $pass passed, $fail failed"
	exit 1
fi
grep -q "uidvalidity [0-9]*, IDLE" "$log" && ok || bad "IDLE not offered or not seen"

run=$$
# --- 1. IDLE: a reply within 2 s --------------------------------------------
# Each latency: from the 250 that took the player's message to the reply
# file's arrival in the player's INBOX (her Maildir, watched every 20 ms
# without starting a process: an IMAP login 20 times a second would load
# the very servers measured); the reply is then looked up by IMAP, by its
# In-Reply-To.  Five messages:
# each must be within 5 s; the median is printed.  (Dovecot
# here looks for new mail to announce in IDLE once a second.)  On a
# machine busier than its CPUs the 5 s grow with the load average per
# CPU, as every process's share of the CPU shrinks.
bound=$(awk -v n="$(nproc)" '{ f = $1 / n; if (f < 1) f = 1; printf "%d\n", 5000 * f }' /proc/loadavg)
lat_all=""
: >"$tmp/lat"
shopt -s nullglob
inbox=$MAILENV_MAILDIRS/alice/Maildir
files=("$inbox"/new/* "$inbox"/cur/*)
before=${#files[@]}
for i in 1 2 3 4 5; do
	id=t1.$i.$run@integ.$MAILENV_DOMAIN
	mk_msg "$id" "alice@$MAILENV_DOMAIN" "first $i" "list"
	smtp_open "$MAILENV_SMTP_PORT" && smtp_send "alice@$MAILENV_DOMAIN" "$REF" "$MSG" ||
	    bad "send $id"
	t0=$(now_ms)
	smtp_close
	lat=""
	while :; do
		files=("$inbox"/new/* "$inbox"/cur/*)
		t=${EPOCHREALTIME/./}
		t=$((t / 1000 - t0))
		[ ${#files[@]} -gt $before ] && { lat=$t; break; }
		[ $t -lt $((3 * bound)) ] || break
		sleep 0.02
	done
	uid=$(reply_uid alice "$id")
	files=("$inbox"/new/* "$inbox"/cur/*)
	before=${#files[@]}
	if [ -z "$lat" ] || [ -z "$uid" ]; then
		bad "no reply to $id in $((3 * bound)) ms"
		continue
	fi
	lat_all="$lat_all ${lat}ms"
	echo $lat >>"$tmp/lat"
	[ $lat -le $bound ] && ok || bad "reply to $id took $lat ms (> $bound ms)"
	[ $i = 1 ] || continue
	curl -s --max-time 20 -u "alice:$(pw alice)" \
	    --url "imap://127.0.0.1:$MAILENV_IMAP_PORT/INBOX;UID=$uid" |
	    tr -d '\r' >"$tmp/reply1"
	# 7bit, or quoted-printable with its soft line breaks undone.
	sed '1,/^$/d' "$tmp/reply1" | sed -e ':a' -e '/=$/{N;s/=\n//;ba' -e '}' \
	    >"$tmp/reply1.text"
	grep -q "^From: Ludus Referee <$REF>" "$tmp/reply1" && ok || bad "reply From: $(grep '^From' "$tmp/reply1")"
	grep -q "^Subject: Your games" "$tmp/reply1" && ok || bad "reply Subject"
	grep -q "^In-Reply-To: <$id>" "$tmp/reply1" && ok || bad "reply In-Reply-To"
	grep -q "^Auto-Submitted: auto-replied" "$tmp/reply1" && ok || bad "reply Auto-Submitted"
	grep -q "^X-Loop: $REF" "$tmp/reply1" && ok || bad "reply X-Loop"
	tr -d '\r' <"$tmp/reply1.text" | grep -q "^Waiting on you:$" &&
	    ok || bad "reply is not the answer to list: $(cat "$tmp/reply1")"
	reply1_id=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/p' "$tmp/reply1")
	[ -n "$reply1_id" ] && ok || bad "reply without Message-ID"
done
# Each reply within 5 s is the requirement (checked above); the median
# is reported, not judged: under make -j it shares the CPU with the
# sanitized tests running beside it.
median=$(sort -n "$tmp/lat" | sed -n 3p)
note "IDLE reply latency:$lat_all (median ${median:-?} ms, bound $bound ms at load $(cut -d' ' -f1 /proc/loadavg))"

# --- 2. a burst of 500 ----------------------------------------------------
n2=500
t0=$(now_ms)
smtp_open "$MAILENV_SMTP_PORT" || bad "smtp open for the burst"
for i in $(seq 1 $n2); do
	mk_msg "b2.$i.$run@integ.$MAILENV_DOMAIN" "bob@$MAILENV_DOMAIN" "burst $i" "list"
	smtp_send "bob@$MAILENV_DOMAIN" "$REF" "$MSG" || { bad "burst send $i"; break; }
done
smtp_close
t_sent=$(($(now_ms) - t0))
wait_for 100 eval '[ "$(count_of bob)" -ge $n2 ]' || bad "burst: only $(count_of bob) replies of $n2 after 100 s"
t_done=$(($(now_ms) - t0))
settle burst
replies_of bob "$tmp/r2" || bad "reading bob's INBOX"
total=$(wc -l <"$tmp/r2")
distinct_irt=$(cut -d' ' -f1 "$tmp/r2" | grep -c "^b2\.[0-9]*\.$run@")
distinct_irt_u=$(cut -d' ' -f1 "$tmp/r2" | grep "^b2\.[0-9]*\.$run@" | sort -u | wc -l)
distinct_mid=$(cut -d' ' -f2 "$tmp/r2" | sort -u | wc -l)
[ "$total" = $n2 ] && ok || bad "burst: $total replies, want $n2"
[ "$distinct_irt_u" = $n2 ] && [ "$distinct_irt" = $n2 ] && ok ||
    bad "burst: $distinct_irt replies for $distinct_irt_u distinct messages, want $n2 each"
[ "$distinct_mid" = $n2 ] && ok || bad "burst: $distinct_mid distinct reply Message-IDs"
rows=$(sql "SELECT count(*) FROM processed WHERE key LIKE '<b2.%'")
[ "$rows" = $n2 ] && ok || bad "burst: $rows processed rows, want $n2"
orows=$(sql "SELECT count(*) FROM outbox WHERE recipients = 'bob@$MAILENV_DOMAIN'")
[ "$orows" = $n2 ] && ok || bad "burst: $orows outbox rows, want $n2"
note "burst: $n2 sent by SMTP in ${t_sent} ms, all $total answered after ${t_done} ms"

# --- 3. kill -9 mid-burst, twice ------------------------------------------
n3=300
(
	smtp_open "$MAILENV_SMTP_PORT" || exit 1
	for i in $(seq 1 $n3); do
		mk_msg "c3.$i.$run@integ.$MAILENV_DOMAIN" "carol@$MAILENV_DOMAIN" "crash $i" "list"
		smtp_send "carol@$MAILENV_DOMAIN" "$REF" "$MSG" || exit 1
	done
	smtp_close
) &
spid=$!
processed3() { sql "SELECT count(*) FROM processed WHERE key LIKE '<c3.%'"; }
# First while reading: a third of the messages taken in.
wait_for 120 eval '[ "$(processed3)" -ge $((n3 / 3)) ]' || bad "crash: reading did not start"
kill -KILL "$lpid"
wait "$lpid" 2>/dev/null
k1=$(processed3)
c=$(connects)
start_ludusd
wait_connected "$c" || bad "no reconnect after the first kill"
# Then while sending: Postfix has taken more of our mail than the
# database says was sent.  A batch is 50 mails; try for a while.
# Counted from the restart: a reply sent before the first kill and not
# recorded is sent again, and recorded, after it.
handed() { grep -c "cleanup.*message-id=<ludus\." "$MAILENV_MAILLOG"; }
recorded() { sql "SELECT count(*) FROM outbox WHERE sent IS NOT NULL"; }
h0=$(handed)
r0=$(recorded)
k2=""
end=$(($(now_ms) + 60000))
while [ "$(now_ms)" -lt $end ]; do
	if [ $(($(handed) - h0)) -gt $(($(recorded) - r0)) ]; then
		kill -KILL "$lpid"
		wait "$lpid" 2>/dev/null
		k2=$(recorded)
		break
	fi
	[ "$(sql "SELECT count(*) FROM outbox WHERE sent IS NULL")" = 0 ] &&
	    [ "$(processed3)" = $n3 ] && break
done
if [ -n "$k2" ]; then
	c=$(connects)
	start_ludusd
	wait_connected "$c" || bad "no reconnect after the second kill"
fi
wait "$spid" && ok || bad "crash: the sender failed"
wait_for 180 eval '[ "$(count_of carol)" -ge $n3 ]' || bad "crash: only $(count_of carol) replies of $n3"
settle crash
replies_of carol "$tmp/r3" || bad "reading carol's INBOX"
total=$(wc -l <"$tmp/r3")
irt=$(cut -d' ' -f1 "$tmp/r3" | grep "^c3\.[0-9]*\.$run@" | sort -u | wc -l)
# One Message-ID per incoming message, however often it was delivered.
pairs=$(sort -u "$tmp/r3" | wc -l)
mids=$(cut -d' ' -f2 "$tmp/r3" | sort -u | wc -l)
[ "$irt" = $n3 ] && ok || bad "crash: replies to $irt messages, want $n3 (lost)"
[ "$pairs" = $n3 ] && [ "$mids" = $n3 ] && ok ||
    bad "crash: $pairs (In-Reply-To, Message-ID) pairs and $mids Message-IDs, want $n3: a resend changed its Message-ID"
dups=$((total - n3))
rows=$(sql "SELECT count(*) FROM processed WHERE key LIKE '<c3.%'")
[ "$rows" = $n3 ] && ok || bad "crash: $rows processed rows, want $n3"
orows=$(sql "SELECT count(*) FROM outbox WHERE recipients = 'carol@$MAILENV_DOMAIN'")
[ "$orows" = $n3 ] && ok || bad "crash: $orows outbox rows, want $n3 (applied twice?)"
seen=$(grep -c "<c3\.[0-9]*\.$run@.*seen before" "$log")
if [ -n "$k2" ]; then
	k2="second while sending, $k2 sent recorded"
else
	k2="second not caught while sending"
fi
note "kill -9: first after $k1 of $n3 read, $k2; $seen re-read and recognised; $total deliveries, $dups duplicate(s) with the same Message-ID"

# --- 4. Dovecot stopped and started --------------------------------------
c=$(connects)
retries0=$(grep -c "imap: next attempt in" "$log")
bash "$mailenv" stop-imap "$box" || bad "stop-imap"
# Three attempts take 1 + 2 + 4 s; a busy machine may take longer to
# notice the server gone, so wait for them rather than a fixed time.
more_waits() {
	[ "$(grep -c "imap: next attempt in" "$log")" -ge $((retries0 + 3)) ]
}
wait_for 40 more_waits
alive && ok || bad "ludusd died without Dovecot"
waits=$(grep "imap: next attempt in" "$log" | tail -n +$((retries0 + 1)) |
    sed 's/.*next attempt in \([0-9]*\) s.*/\1/' | tr '\n' ' ')
# Capped exponential backoff: 1 2 4 4 ... with retry 1s..4s.
echo "$waits" | awk '{ w = 1; for (i = 1; i <= NF; i++) { if ($i != w) exit 1
    w = w * 2 > 4 ? 4 : w * 2 } exit NF < 2 }' && ok ||
    bad "reconnection waits '${waits}', want 1 2 4 4 ..."
bash "$mailenv" start-imap "$box" || bad "start-imap"
prev=$c
wait_for 20 more_connects && ok || bad "ludusd did not reconnect to Dovecot"
id=t4.$run@integ.$MAILENV_DOMAIN
send_one "$id" "alice@$MAILENV_DOMAIN" "after the outage" "list" || bad "send $id"
wait_for 20 eval '[ -n "$(reply_uid alice "$id")" ]' && ok || bad "no reply after Dovecot came back"
note "Dovecot outage: reconnection waits ${waits}s"

# --- 5. Postfix stopped ------------------------------------------------------
bash "$mailenv" stop-smtp "$box" || bad "stop-smtp"
# With Postfix gone the player's mail comes in by LMTP, as Postfix would
# hand it to Dovecot.
id=t5.$run@integ.$MAILENV_DOMAIN
mk_msg "$id" "dave@$MAILENV_DOMAIN" "while the post is down" "list"
smtp_open "$MAILENV_LMTP_PORT" LHLO && smtp_send "dave@$MAILENV_DOMAIN" "$REF" "$MSG" &&
    smtp_close || bad "lmtp $id"
attempts() {
	"$LUDUS_BIN" -c "$conf" outbox 2>/dev/null | awk -v to="to dave@$MAILENV_DOMAIN" '
	    found { sub(/ attempts?,.*/, ""); sub(/.*, /, ""); print; exit }
	    index($0, to) { found = 1 }'
}
wait_for 20 eval '[ "$(attempts)" -ge 2 ] 2>/dev/null' && ok ||
    bad "reply not retried: $("$LUDUS_BIN" -c "$conf" outbox 2>&1)"
"$LUDUS_BIN" -c "$conf" outbox >"$tmp/outbox5" 2>&1
grep -q "^1 waiting" "$tmp/outbox5" && ok || bad "outbox: $(cat "$tmp/outbox5")"
note "outbox while Postfix is down: $(head -n 1 "$tmp/outbox5"), $(attempts) attempts"
bash "$mailenv" start-smtp "$box" || bad "start-smtp"
wait_for 30 eval '[ -n "$(reply_uid dave "$id")" ]' && ok || bad "reply not delivered after Postfix came back"
settle "Postfix back"
replies_of dave "$tmp/r5" || bad "reading dave's INBOX"
n=$(grep -c "^$id " "$tmp/r5")
[ "$n" = 1 ] && ok || bad "reply delivered $n times after the outage"
"$LUDUS_BIN" -c "$conf" outbox 2>&1 | grep -q "^0 waiting" && ok || bad "outbox not empty"

# --- 6. mail loops --------------------------------------------------------
a=t6a.$run@integ.$MAILENV_DOMAIN
x=t6x.$run@integ.$MAILENV_DOMAIN
m=t6m.$run@integ.$MAILENV_DOMAIN
send_one "$a" "alice@$MAILENV_DOMAIN" "Auto: Re: first 1" "I am away until Monday." \
    "Auto-Submitted: auto-replied"$'\r\n'"In-Reply-To: <${reply1_id:-none}>" || bad "send $a"
send_one "$x" "alice@$MAILENV_DOMAIN" "Re: first 1" "move 2" "X-Loop: $REF" || bad "send $x"
send_one "$m" "alice@$MAILENV_DOMAIN" "marker" "list" || bad "send $m"
wait_for 20 eval '[ -n "$(reply_uid alice "$m")" ]' && ok || bad "no reply to the marker"
# The dedupe key is "<Message-ID> sender".
loops_read() { [ "$(sql "SELECT count(*) FROM processed WHERE key LIKE '<$a> %' OR key LIKE '<$x> %'")" = 2 ]; }
wait_for 30 loops_read ||
    bad "loop messages not processed"
settle loops
[ -z "$(reply_uid alice "$a")" ] && ok || bad "the auto-reply was answered"
[ -z "$(reply_uid alice "$x")" ] && ok || bad "the X-Loop message was answered"
sql "SELECT outcome FROM processed WHERE key LIKE '<$a> %'" | grep -q "^dropped" && ok ||
    bad "auto-reply outcome: $(sql "SELECT outcome FROM processed WHERE key LIKE '<$a> %'")"
sql "SELECT outcome FROM processed WHERE key LIKE '<$x> %'" | grep -q "^dropped" && ok ||
    bad "X-Loop outcome: $(sql "SELECT outcome FROM processed WHERE key LIKE '<$x> %'")"

# --- 7. servers whose certificates are not trusted ------------------------
# A second referee trusting only the system store: neither server is
# used, each refusal is logged as an error and told to the admins once a
# day, and --once says the cycle fell short (75).  Then trusting the
# sandbox's CA for SMTP alone (no mailbox), it sends and exits 0.
mkdir -p "$tmp/u"
mailenv_referee "$tmp/u" info "admins: [dave@$MAILENV_DOMAIN]"
grep -v "ca_file:" "$tmp/u/ludus.yaml" >"$tmp/u/untrusted.yaml"
"$LUDUS_BIN" -c "$tmp/u/untrusted.yaml" init >/dev/null || bad "init the second referee"
usql() { sqlite3 "$tmp/u/ludus.db" "$1"; }
mk_msg "t7.$run@integ.$MAILENV_DOMAIN" "carol@$MAILENV_DOMAIN" "help" "help"
printf '%s' "$MSG" | "$LUDUS_BIN" -c "$tmp/u/untrusted.yaml" deliver 2>/dev/null || bad "deliver to the second referee"
for i in 1 2; do
	"$LUDUSD_BIN" -c "$tmp/u/untrusted.yaml" --once >"$tmp/u/once$i.log" 2>&1
	rc=$?
	[ $rc = 75 ] && ok || bad "--once with untrusted servers exited $rc (75): $(tail -5 "$tmp/u/once$i.log")"
done
grep -q "error: imap: the certificate of imap://localhost:$MAILENV_IMAP_PORT.* is not trusted" "$tmp/u/once1.log" && ok ||
    bad "IMAP refusal not logged as an error: $(cat "$tmp/u/once1.log")"
grep -q "error: smtp: the certificate of smtps://localhost:$MAILENV_SMTPS_PORT is not trusted" "$tmp/u/once1.log" && ok ||
    bad "SMTP refusal not logged as an error: $(cat "$tmp/u/once1.log")"
[ "$(usql "SELECT count(*) FROM outbox WHERE message_id LIKE 'ludus.notice.tls.imap.%' AND recipients = 'dave@$MAILENV_DOMAIN'")" = 1 ] && ok ||
    bad "IMAP notices: $(usql "SELECT message_id FROM outbox")"
[ "$(usql "SELECT count(*) FROM outbox WHERE message_id LIKE 'ludus.notice.tls.smtp.%'")" = 1 ] && ok ||
    bad "SMTP notices after two cycles: $(usql "SELECT message_id FROM outbox")"
[ "$(usql "SELECT count(*) FROM outbox WHERE sent IS NOT NULL")" = 0 ] && ok || bad "sent to an untrusted server"
"$LUDUS_BIN" -c "$tmp/u/untrusted.yaml" outbox retry all >/dev/null || bad "outbox retry all"
sed -n '/^out:/,$p' "$tmp/u/ludus.yaml" >"$tmp/u/smtp-only.yaml"
sed -n '1,/^games_dir:/p' "$tmp/u/ludus.yaml" | cat - "$tmp/u/smtp-only.yaml" >"$tmp/u/trusted.yaml"
"$LUDUSD_BIN" -c "$tmp/u/trusted.yaml" --once >"$tmp/u/once3.log" 2>&1
rc=$?
[ $rc = 0 ] && ok || bad "--once with a trusted server exited $rc: $(tail -5 "$tmp/u/once3.log")"
[ "$(usql "SELECT count(*) FROM outbox WHERE sent IS NULL")" = 0 ] && ok ||
    bad "mail left after the trusted cycle: $(usql "SELECT message_id, last_error FROM outbox WHERE sent IS NULL")"

# --- the end: everything processed, moved, and a clean stop ----------------
settle end
[ "$(count_of referee)" = 0 ] && ok || bad "referee INBOX still holds $(count_of referee)"
all=$(sql "SELECT count(*) FROM processed")
[ "$(count_of referee Processed)" = "$all" ] && ok ||
    bad "Processed holds $(count_of referee Processed), $all processed"
kill -TERM "$lpid"
wait "$lpid"
rc=$?
lpid=""
[ $rc = 0 ] && ok || bad "ludusd exit status $rc after SIGTERM: $(tail -20 "$log")"
grep -q "ERROR: AddressSanitizer\|runtime error:" "$log" && bad "sanitizer report in the log" || ok

echo "integration: $pass passed, $fail failed"
[ $fail -eq 0 ]
