#!/bin/bash
# A plain vacation responder against ludusd in the mail sandbox of
# tests/mailenv: bob's mailbox answers every mail from the referee, until
# the referee falls silent (3 minutes at most), to its Reply-To with "Re: " and its subject (the seat's tag and
# token), "I am on vacation" and the first line quoted, and no
# Auto-Submitted or Precedence header: remarks and no command.  The
# referee answers such mail at most limits.error_replies times an hour per
# sender and game (5 here), whatever limits.info_replies allows (100000 in
# the sandbox's configuration), so the exchange stops in both directions:
#
#   - the referee answers bob's remarks at most 5 times, and sends him
#     nothing else but the game's start and alice's move;
#   - the responder sends at most one more than it received;
#   - the exchange ends: 20 s pass without a referee mail, within 3
#     minutes.
#
# Exit 77 only when the servers cannot be had (not root, packages not
# installable).  VACATION_KEEP=DIR keeps the daemon's log and the mail.
set -u
export TZ=UTC LC_ALL=C
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
srcdir=${LUDUS_SRCDIR:-.}
mailenv=$srcdir/tests/mailenv/mailenv

. "$srcdir/tests/mailenv/referee.sh"
mailenv_prepare vacation

tmp=$(mktemp -d /tmp/lva.XXXXXX) || exit 99
chmod 755 "$tmp"	# the servers' own users walk through it to the sandbox
box=$tmp/m
lpid=""
cleanup() {
	declare -F player_unwatch >/dev/null && player_unwatch
	if [ -n "$lpid" ]; then
		kill -KILL "$lpid" 2>/dev/null
		wait "$lpid" 2>/dev/null
	fi
	[ -n "${VACATION_KEEP:-}" ] && mkdir -p "$VACATION_KEEP" &&
	    cp -r "$tmp"/ludusd.log "$tmp"/p "$box/pf/maillog" "$VACATION_KEEP"/ 2>/dev/null
	[ -e "$box/env" ] && bash "$mailenv" stop "$box" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
mailenv_start vacation "$box" "$tmp"

pass=0 fail=0
. "$(dirname "$0")/testlib.sh"
note() { echo "vacation: $*"; }

umask 077
conf=$tmp/ludus.yaml
mailenv_referee "$tmp" info
umask 022
"$LUDUS_BIN" -c "$conf" init >"$tmp/init.out" 2>&1 ||
    { echo "vacation: ludus init failed: $(cat "$tmp/init.out")"; exit 1; }
log=$tmp/ludusd.log
"$LUDUSD_BIN" -f -c "$conf" 2>>"$log" &
lpid=$!
end=$(($(now_ms) + 20000))
until grep -q "imap: connected" "$log"; do
	if [ "$(now_ms)" -ge $end ] || ! kill -0 "$lpid" 2>/dev/null; then
		echo "vacation: ludusd did not connect: $(tail -5 "$log")"
		echo "vacation: $pass passed, 1 failed"
		exit 1
	fi
	sleep 0.1
done

PLAYER_DIR=$tmp/p
mkdir -p "$PLAYER_DIR"
. "$srcdir/tests/mailenv/player.sh"
player_watch alice bob || { echo "vacation: cannot watch the mailboxes"; exit 1; }

# The game, bob to move after alice's first move.
player_send alice "new mancala bob@$MAILENV_DOMAIN" || bad "alice's proposal"
for u in alice bob; do
	player_wait "$u" "Invitation to" 60 && player_reply accept ||
	    bad "$u's invitation"
done
player_wait alice "[Yy]our move" 60 || bad "alice's first board"
player_reply "${P_LEGAL[0]:-}" || bad "alice's move"
[ "$fail" = 0 ] || { echo "vacation: $pass passed, $fail failed"; exit 1; }

# bob's responder: every referee mail answered, a line in $tmp/times each
# way (r: received, s: sent) with the time in ms, until 20 s pass without
# a referee mail (the loop has ended), or 3 minutes (it has not).  Events,
# not a fixed minute: on a loaded machine the exchange takes longer.
t0=$(now_ms)
cap=$((t0 + 180000))
last=$t0
: >"$tmp/times"
while [ "$(now_ms)" -lt $cap ] && [ $(($(now_ms) - last)) -lt 20000 ]; do
	player_wait bob "." 2 2>/dev/null || continue
	last=$(now_ms)
	echo "r $last $P_SUBJECT" >>"$tmp/times"
	first=${P_TEXT%%$'\n'*}
	player_reply "I am on vacation until next month and will read your mail when I am back.

> $first" || bad "the responder's mail"
	echo "s $(now_ms)" >>"$tmp/times"
done
got=$(grep -c '^r ' "$tmp/times")
sent=$(grep -c '^s ' "$tmp/times")
note "bob received $got referee mails and sent $sent answers in $((($(now_ms) - t0) / 1000)) s"
remarks=$(grep -c '^r .*Not read' "$tmp/times")
[ "$remarks" -ge 1 ] && ok || bad "the referee never answered the responder"
[ "$remarks" -le 5 ] && ok || bad "the referee answered the responder $remarks times (at most 5)"
[ $((got - remarks)) -le 2 ] && ok ||
    bad "bob got $((got - remarks)) mails of the game (its start, alice's move)"
[ "$sent" -le $((got + 1)) ] && ok || bad "the responder sent $sent"
[ $(($(now_ms) - last)) -ge 20000 ] && ok ||
    bad "a referee mail every 20 s for 3 minutes: the loop goes on"
grep -q "answer rate-limited" "$log" && ok || bad "no rate-limited remarks in the log"

echo "vacation: $pass passed, $fail failed"
[ "$fail" = 0 ]
