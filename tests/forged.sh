#!/bin/sh
# An attacker's view of the referee: mail whose From is someone else's
# address, with no reply token and no DMARC pass, tries to act in that
# person's name or to make the referee flood them.  Each attack below is
# delivered with `ludus deliver` into a referee set up by proven mail (a
# trusted DMARC pass, tests/goldenlib.sh's fixed clock and secret), and
# the test proves that nothing of the victim changed, that no game
# started, and that the victim and the admins got at most the mails
# ludus-commands(7) states.  The same referee also shows the limits that
# hold for a real player's mail: one mail per opponent per incoming mail,
# and a resent move never applied twice.
#
# Needs a test build (configure --enable-test-clock) and sqlite3.
set -u
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}" "${LUDUS_SRCDIR:?}"
export LUDUS_GAMES_DIR
. "$LUDUS_SRCDIR/tests/goldenlib.sh"
. "$LUDUS_SRCDIR/tests/testlib.sh"

skip() {
	echo "forged: $*"
	[ "${CI:-}" = true ] && { echo "forged: 0 passed, 1 failed"; exit 1; }
	exit 77
}
golden_test_build || skip "$LUDUS_BIN is not a test build"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-forged.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

VIC=vic@example.org
ADMIN=admin@example.org
minute=0

# fresh NAME: a new referee in $tmp/NAME that trusts mx.example.org's
# DMARC results; $d is its directory.
fresh() {
	d=$tmp/$1
	mkdir -p "$d"
	printf 'auth:\n  trust_authserv_id: mx.example.org\n' >"$d/config.yaml"
	golden_init "$d" "$d" || { cat "$d/log"; exit 1; }
	minute=0
}

# send FROM SUBJECT BODY [proven]: deliver one mail a minute after the
# last; with a fourth argument the mail carries a DMARC pass for its
# From.  BODY may hold several lines (\n).
send() {
	minute=$((minute + 1))
	{
		printf 'From: %s\n' "$1"
		if [ $# -ge 4 ]; then
			printf 'Authentication-Results: mx.example.org; dmarc=pass header.from=example.org\n'
		fi
		printf 'To: referee@example.org\nSubject: %s\n' "$2"
		printf 'Message-ID: <forged.%s.%d@example.org>\n' "${1%@*}" "$minute"
		printf 'Date: Fri, 01 Jan 2027 00:00:00 +0000\n'
		printf 'Content-Type: text/plain; charset=utf-8\n\n'
		printf '%b\n' "$3"
	} >"$d/in"
	LUDUS_NOW=$(golden_time "$minute") LUDUS_SEED=$GOLDEN_SEED \
	    golden_ludus "$d" deliver <"$d/in" >>"$d/log" 2>&1 ||
	    bad "deliver from $1 failed: $(tail -n 2 "$d/log")"
}

# as_op ARGS...: a ludus command of the operator, at the current minute.
as_op() {
	LUDUS_NOW=$(golden_time "$minute") LUDUS_SEED=$GOLDEN_SEED \
	    golden_ludus "$d" "$@" >>"$d/log" 2>&1 || bad "ludus $*"
}

q() {
	sqlite3 "$d/ludus.db" "$1"
}

# mails ADDRESS: how many mails the referee wrote to ADDRESS so far.
mails() {
	q "SELECT count(*) FROM outbox WHERE recipients LIKE '%$1%'"
}

# text ADDRESS: the mails written to ADDRESS, decoded, their plain text
# parts only.
text() {
	golden_ludus "$d" outbox --all 2>>"$d/log" |
	    awk -v a="$1" '/^=== mail/ || /^--- text\/html/ { on = 0 }
		/^To: / { on = index($0, a) > 0 } on'
}

# victim: everything of the victim's that a forged mail must not change.
victim() {
	q "SELECT name, language, notify, timezone, public_address,
	       vacation_start, vacation_until, vacation_used, banned
	   FROM players WHERE address = '$VIC';
	   SELECT 'rung', ladder_id, position, active FROM rungs
	    WHERE player_id = (SELECT id FROM players WHERE address = '$VIC');
	   SELECT 'observes', game_id FROM observers
	    WHERE player_id = (SELECT id FROM players WHERE address = '$VIC');
	   SELECT 'seek', id FROM seeks WHERE player_id =
	    (SELECT id FROM players WHERE address = '$VIC');
	   SELECT 'challenge', id, status FROM challenges;
	   SELECT 'report', id FROM reports;
	   SELECT 'active', count(*) FROM games WHERE status = 'active';"
}

# expect WHAT WANT GOT
expect() {
	if [ "$2" = "$3" ]; then ok; else bad "$1: want $2, got $3"; fi
}
# at_most WHAT MAX GOT
at_most() {
	if [ "$3" -le "$2" ]; then ok; else bad "$1: at most $2, got $3"; fi
}

# The club: a ladder with ann, ben and the victim on it, the victim on
# vacation, every setting made by proven mail; and 20 games between ann
# and ben.
club() {
	fresh "$1"
	send $ADMIN admin 'admin ladder create club kalah pits=3' proven
	send ann@example.org join 'ladder join club' proven
	send ben@example.org join 'ladder join club' proven
	send $VIC join 'ladder join club\nset name Victor\nvacation 5' proven
	i=0
	while [ $i -lt 20 ]; do
		as_op new kalah pits=3 ann@example.org ben@example.org
		i=$((i + 1))
	done
	before=$(victim)
	vic0=$(mails $VIC)
	admin0=$(mails $ADMIN)
}

# ---- 1. Invitation flood: 20 `new` lines from one made-up sender, then
# from five more; the victim gets 3 invitations and one notice a day.
fresh invitations
vic0=$(mails $VIC)
lines=
i=0
while [ $i -lt 20 ]; do
	lines="${lines}new kalah pits=3 $VIC\n"
	i=$((i + 1))
done
send x1@evil.example spam "$lines"
for s in x2 x3 x4 x5 x6; do
	send $s@evil.example spam "$lines"
done
expect "invitations: games active" 0 \
    "$(q "SELECT count(*) FROM games WHERE status = 'active'")"
# One mail per reader per incoming mail: the first forged mail brings
# the victim one mail, the others none.
at_most "invitations: mails to the victim" 4 $(($(mails $VIC) - vic0))
expect "invitations: invitations mailed" 3 \
    "$(text $VIC | grep -c 'invites you to a game')"
expect "invitations: the notice" 1 \
    "$(text $VIC | grep -c 'invitations came for you today')"
# The held ones are not lost: the victim's own `bump` mails them, in one
# answer.
n=$(mails $VIC)
send $VIC fetch 'bump' proven
expect "invitations: bump is one answer" 1 $(($(mails $VIC) - n))
expect "invitations: bump mails the held ones" 123 \
    "$(text $VIC | grep -c 'invites you to a game')"
# A proven proposer is not held back.
n=$(mails $VIC)
send ann@example.org game "new kalah pits=3 $VIC" proven
expect "invitations: a proven proposer's invitation" 1 $(($(mails $VIC) - n))

# ---- 2. Forged observe of 20 games, with a report in the same mail.
club observe
lines=
i=1
while [ $i -le 20 ]; do
	lines="${lines}observe #$i\n"
	i=$((i + 1))
done
send $VIC watch "${lines}observe #1\nobserve #2\nobserve #3\nobserve #4\nobserve #5\nreport #1 ann cheats"
# Three moves in each game: nothing of them reaches the victim.
i=1
while [ $i -le 20 ]; do
	for m in "ann@example.org 1" "ben@example.org 1" "ann@example.org 2"; do
		# shellcheck disable=SC2086
		as_op move $i $m
	done
	i=$((i + 1))
done
expect "observe: the victim's state" "$before" "$(victim)"
expect "observe: mails to the victim (one answer)" 1 $(($(mails $VIC) - vic0))
expect "observe: mails to the admins" 0 $(($(mails $ADMIN) - admin0))
expect "observe: confirmations asked" 3 \
    "$(q "SELECT count(*) FROM confirmations WHERE used IS NULL")"

# ---- 3. Forged report alone (the victim observes nothing: refused),
# and from a real observer's address.
send $VIC complaint 'report #2 ann is rude'
expect "report: mails to the admins" 0 $(($(mails $ADMIN) - admin0))
expect "report: no report" "" "$(q "SELECT id FROM reports")"

# ---- 4. Forged challenge, ladder leave, ladder join.
club ladder
send $VIC duel 'challenge ann@example.org club'
send $VIC bye 'ladder leave club'
send zed@example.org hi 'ladder join club'
expect "ladder: the victim's state" "$before" "$(victim)"
expect "ladder: no game made" 20 "$(q "SELECT count(*) FROM games")"
expect "ladder: zed is on no ladder" 0 \
    "$(q "SELECT count(*) FROM rungs r JOIN players p ON p.id = r.player_id
          WHERE p.address = 'zed@example.org'")"
expect "ladder: no mail to the challenged" 0 \
    "$(q "SELECT count(*) FROM outbox WHERE recipients LIKE '%ann@example.org%'
          AND created > $(golden_time 4)")"
at_most "ladder: mails to the victim (an answer each)" 2 \
    $(($(mails $VIC) - vic0))

# ---- 5. Forged settings that act against their owner.
club settings
n=$(q "SELECT count(*) FROM outbox WHERE recipients LIKE '%ann@example.org%'")
send $VIC back 'vacation off'
send $VIC away 'vacation 30'
send $VIC public 'set public-address yes'
send $VIC rename 'set name Mallory'
send $VIC lang 'set language ar\nset notify off\nset timezone Asia/Tokyo'
expect "settings: the victim's state" "$before" "$(victim)"
expect "settings: no mail to the victim's opponents" "$n" \
    "$(q "SELECT count(*) FROM outbox WHERE recipients LIKE '%ann@example.org%'")"
# Three confirmations wait: the fourth and fifth mail are refused.
expect "settings: confirmations waiting" 3 \
    "$(q "SELECT count(*) FROM confirmations WHERE used IS NULL")"
at_most "settings: mails to the victim" 5 $(($(mails $VIC) - vic0))

# ---- 6. Confirmations are rate-limited: 30 forged seeks.
club seeks
i=0
while [ $i -lt 30 ]; do
	send $VIC seek 'seek kalah pits=3'
	i=$((i + 1))
done
expect "seeks: the victim's state" "$before" "$(victim)"
expect "seeks: confirmations mailed" 3 \
    "$(text $VIC | grep -c '^  confirm [0-9a-f]')"
# 3 confirmations, then error replies up to limits.error_replies (5).
at_most "seeks: mails to the victim" 8 $(($(mails $VIC) - vic0))
expect "seeks: mails to the admins" 0 $(($(mails $ADMIN) - admin0))

# ---- 7. The real victim still gets through: a reply with a game's
# token proves the sender; the confirmation round trip works.
send $VIC back "vacation off" proven
expect "proven: vacation ended" "" \
    "$(q "SELECT vacation_until FROM players WHERE address = '$VIC'")"

# ---- 8. One mail per opponent per incoming mail: a move and 19 `say`
# lines (20 commands, the most one mail carries) make one mail to the
# opponent.
fresh say
as_op new kalah pits=3 ann@example.org ben@example.org
lines='move 1\n'
i=0
while [ $i -lt 19 ]; do
	lines="${lines}say hello $i\n"
	i=$((i + 1))
done
tok=$(golden_token "$d" 1 0)
n=$(mails ben@example.org)
send ann@example.org "Re: [ludus #1 $tok]" "$lines"
expect "say: mails to the opponent" 1 $(($(mails ben@example.org) - n))
expect "say: every line in it" 19 \
    "$(text ben@example.org | grep -c 'hello [0-9]')"

# ---- 9. A resent move (the same body, a new Message-ID) inside a turn
# of several plies is not played twice: in Kalah with 3 pits of 10
# seeds, South's pit 1 ends in the store (an extra turn) and gets a seed
# back, so `1` is legal again.
fresh resend
as_op new kalah pits=3 seeds=10 ann@example.org ben@example.org
tok=$(golden_token "$d" 1 0)
send ann@example.org "Re: [ludus #1 $tok]" "move 1. 1"
expect "resend: the first copy is played" 1 \
    "$(q "SELECT count(*) FROM moves WHERE game_id = 1")"
send ann@example.org "Re: [ludus #1 $tok]" "move 1. 1"
expect "resend: the second copy is not" 1 \
    "$(q "SELECT count(*) FROM moves WHERE game_id = 1")"
expect "resend: refused as stale" 1 \
    "$(text ann@example.org | grep -c 'move number 1 is stale: game #1 is at move 1.2')"
# The ply the mail shows is the one the guard takes.
send ann@example.org "Re: [ludus #1 $tok]" "move 1.2. 1"
expect "resend: 1.2 is played" 2 \
    "$(q "SELECT count(*) FROM moves WHERE game_id = 1")"

# ---- 10. `set language ar` where the Arabic catalogue is missing: the
# answer lists the languages there are, without ar.
if [ -d "${LUDUS_LOCALE_DIR:-}/ru" ]; then
	fresh language
	mkdir -p "$d/locale"
	cp -R "$LUDUS_LOCALE_DIR/ru" "$d/locale/"
	was=$LUDUS_LOCALE_DIR
	LUDUS_LOCALE_DIR=$d/locale
	send $VIC lang 'set language ar' proven
	LUDUS_LOCALE_DIR=$was
	expect "language: the languages there are" 1 \
	    "$(text $VIC | grep -c 'does not write in .ar.; it writes in en, ru$')"
else
	bad "language: no catalogues in \$LUDUS_LOCALE_DIR (run under make check)"
fi

echo "forged: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
