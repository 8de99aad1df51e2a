#!/bin/bash
# Mail handed to ludusd by the real Postfix of tests/mailenv over LMTP,
# with contrib/postfix-lmtp.cf added to its main.cf: a transport_maps
# entry sends the referee's mail to ludusd on a loopback port (the
# players' mail still goes to Dovecot).  Two players play a short Mancala game by mail; then,
# with the drain held back (a test build's LUDUS_INBOUND_HOLD), a mail is
# delivered, ludusd is killed with SIGKILL after Postfix logged the 250,
# and the restarted ludusd answers it once.  Finally Postfix is told 451
# (the database locked) and delivers again on its own.
set -u
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
srcdir=${LUDUS_SRCDIR:-.}
mailenv=$srcdir/tests/mailenv/mailenv

. "$srcdir/tests/mailenv/referee.sh"
mailenv_prepare lmtp-mail
. "$srcdir/tests/goldenlib.sh"
if ! golden_test_build; then
	echo "lmtp-mail: $LUDUS_BIN is not a test build (configure --enable-test-clock)"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi

tmp=$(mktemp -d /tmp/llm.XXXXXX) || exit 99
chmod 755 "$tmp"	# the servers' own users walk through it to the sandbox
box=$tmp/m
lpid=""
cleanup() {
	declare -F player_unwatch >/dev/null && player_unwatch
	if [ -n "$lpid" ]; then
		kill -KILL "$lpid" 2>/dev/null
		wait "$lpid" 2>/dev/null
	fi
	[ -n "${LMTP_KEEP:-}" ] && mkdir -p "$LMTP_KEEP" &&
	    cp -r "$tmp"/ludusd.log "$tmp"/ludus.db* "$box/pf/maillog" \
	    "$LMTP_KEEP"/ 2>/dev/null
	[ -e "$box/env" ] && bash "$mailenv" stop "$box" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mailenv_start lmtp-mail "$box" "$tmp"

pass=0 fail=0
. "$srcdir/tests/testlib.sh"
note() { echo "lmtp-mail: $*"; }
D=$MAILENV_DOMAIN
db=$tmp/ludus.db
conf=$tmp/ludus.yaml
log=$tmp/ludusd.log
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sock=127.0.0.1:$port
pf="$MAILENV_DIR/pf/etc"
sql() { sqlite3 -cmd '.timeout 10000' "$db" "$1"; }

# The referee of the sandbox, its mail coming in by LMTP instead of IMAP.
umask 077
mailenv_referee "$tmp" info
sed -i '/^in:$/,/^out:$/{/^in:$/!{/^out:$/!d}}' "$conf"
sed -i "s|^in:\$|in:\n  lmtp: $sock|" "$conf"
umask 022
grep -q "lmtp: $sock" "$conf" && ! grep -q imap "$conf" ||
    { echo "lmtp-mail: could not write the configuration"; cat "$conf"; exit 1; }
"$LUDUS_BIN" -c "$conf" init >/dev/null 2>&1 || { echo "lmtp-mail: init failed"; exit 1; }

# Postfix: contrib/postfix-lmtp.cf, with the sandbox's domain and port.
grep -v '^#' "$srcdir/contrib/postfix-lmtp.cf" |
    sed "s|referee@example.org|referee@$D|; s|127.0.0.1:2424|$sock|" |
    while IFS= read -r line; do
	[ -n "$line" ] && postconf -c "$pf" -e "$line"
done
postconf -c "$pf" transport_maps | grep -q "lmtp:inet:$sock" ||
    { echo "lmtp-mail: postconf failed"; exit 1; }
touch -d '-1 minute' "$pf/main.cf"
postfix -c "$pf" reload >/dev/null 2>&1 || { echo "lmtp-mail: postfix reload failed"; exit 1; }

start() {
	: >"$log.now"
	"$LUDUSD_BIN" -f -c "$conf" 2>"$log.now" &
	lpid=$!
	local i=0
	until grep -q "lmtp: listening" "$log.now"; do
		i=$((i + 1))
		if [ $i -ge 300 ] || ! kill -0 "$lpid" 2>/dev/null; then
			echo "lmtp-mail: ludusd did not start: $(tail -5 "$log.now")"
			return 1
		fi
		sleep 0.1
	done
}
stop_log() { cat "$log.now" >>"$log"; }

start || exit 1
ok
PLAYER_DIR=$tmp/p
mkdir -p "$PLAYER_DIR"
. "$srcdir/tests/mailenv/player.sh"
player_watch alice bob || { echo "lmtp-mail: cannot watch the mailboxes"; exit 1; }
PLAYER_SEED=7

# --- A short game by mail.
player_send alice "new mancala bob@$D" || bad "alice: sending new"
g=""
for u in alice bob; do
	if player_wait $u "Invitation to" 60; then
		ok
		g=$P_GAME
		player_reply accept || bad "$u: sending accept"
	else
		bad "no invitation to $u"
	fi
done
if [ -n "$g" ]; then
	player_play "$g" "alice bob" 6 || bad "$PLAY_ERROR"
	[ "$PLAY_PLIES" = 6 ] && ok || bad "mancala #$g: $PLAY_PLIES moves played"
	[ "$(sql "SELECT count(*) FROM moves WHERE game_id = $g")" = 6 ] && ok ||
	    bad "mancala #$g: $(sql "SELECT count(*) FROM moves WHERE game_id = $g") moves stored"
	note "mancala #$g: 6 moves by mail through LMTP, $((PLAY_LAT_SUM / 5)) ms a move on average"
fi
# Postfix's log: delivered by LMTP to ludusd.
grep -q "to=<referee@$D>.*relay=127.0.0.1\[127.0.0.1\]:$port.*status=sent (250 2.0.0 Ok, stored)" \
    "$MAILENV_DIR/pf/maillog" && ok || { bad "no LMTP delivery in Postfix's log"; grep "referee@" "$MAILENV_DIR/pf/maillog" | tail -3; }
# Mail for another address of the domain still reaches its mailbox.
player_send -t bob@$D alice "hello bob" "hello" || bad "alice: mail to bob"
i=0
until grep -qs "hello bob" "$PLAYER_DIR"/bob/other/*.eml || [ $i -ge 150 ]; do
	player_sync bob
	sleep 0.2
	i=$((i + 1))
done
grep -qs "hello bob" "$PLAYER_DIR"/bob/other/*.eml && ok || bad "bob's own mail lost"

# --- kill -9 after Postfix heard 250, before the referee read it.
kill "$lpid"; wait "$lpid" 2>/dev/null; stop_log
export LUDUS_INBOUND_HOLD=1
start || exit 1
sent0=$(grep -c "status=sent (250 2.0.0 Ok, stored)" "$MAILENV_DIR/pf/maillog")
player_send alice "games" "kill" || bad "alice: sending games"
i=0
until [ "$(grep -c "status=sent (250 2.0.0 Ok, stored)" "$MAILENV_DIR/pf/maillog")" -gt "$sent0" ] ||
    [ $i -ge 300 ]; do
	sleep 0.1; i=$((i + 1))
done
[ "$(sql "SELECT count(*) FROM inbound")" = 1 ] && ok || bad "inbound: $(sql "SELECT count(*) FROM inbound") rows after the 250"
kill -9 "$lpid"; wait "$lpid" 2>/dev/null; stop_log
unset LUDUS_INBOUND_HOLD
mails() { ls "$PLAYER_DIR"/alice/queue/*.eml "$PLAYER_DIR"/alice/taken/*.eml 2>/dev/null | wc -l; }
player_sync alice
n0=$(mails)
start || exit 1
i=0
until [ "$(mails)" -gt "$n0" ] || [ $i -ge 150 ]; do
	player_sync alice
	sleep 0.2
	i=$((i + 1))
done
sleep 2
player_sync alice
[ "$(mails)" = $((n0 + 1)) ] && ok || bad "alice got $(($(mails) - n0)) answers to one mail that waited across kill -9"
[ "$(sql "SELECT count(*) FROM inbound")" = 0 ] && ok || bad "inbound not drained after the restart"

# --- 451 while the database is locked: Postfix keeps the mail and
# delivers it again.  The lock outlasts two waits of the store's 10 s:
# the daemon's loop may be waiting for it when the mail comes.
sqlite3 -cmd '.timeout 20000' "$db" "BEGIN EXCLUSIVE; SELECT 1;" ".shell sleep 24" "COMMIT;" >/dev/null &
locker=$!
i=0
while sqlite3 "$db" "BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1 && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
player_send bob "help" "locked" || bad "bob: sending help"
wait $locker
i=0
until grep -q "to=<referee@$D>.*status=deferred.*451 4.3.0" "$MAILENV_DIR/pf/maillog" || [ $i -ge 200 ]; do
	sleep 0.1; i=$((i + 1))
done
grep -q "to=<referee@$D>.*status=deferred.*451 4.3.0" "$MAILENV_DIR/pf/maillog" && ok ||
    bad "Postfix did not defer on 451"
postqueue -c "$pf" -f 2>/dev/null
player_wait bob "[Hh]elp|commands" 60 && ok || bad "bob's help mail lost after the 451"

kill "$lpid"; wait "$lpid" 2>/dev/null; stop_log; lpid=""
echo "lmtp-mail: $pass passed, $fail failed"
[ $fail = 0 ]
