#!/bin/sh
# What a spam filter makes of the referee's mail: a few golden cases are
# replayed (tests/goldenlib.sh), no body of any mail they produce may be
# base64, and SpamAssassin (Debian's spamassassin, local tests only: no
# network, no Bayes) must score one mail of each kind below 1.0.
#
# Needs a test build (configure --enable-test-clock), sqlite3 and
# spamassassin; skips without them, except under CI.
set -u
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}" "${LUDUS_SRCDIR:?}"
export LUDUS_GAMES_DIR
. "$LUDUS_SRCDIR/tests/goldenlib.sh"
cases=$LUDUS_SRCDIR/tests/mail/referee
fail=0

skip() {
	echo "spam: $*"
	[ "${CI:-}" = true ] && exit 1
	exit 77
}
golden_test_build || skip "$LUDUS_BIN is not a test build"
command -v spamassassin >/dev/null 2>&1 || skip "spamassassin is not installed"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-spam.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# Every mail of the cases, raw, as $tmp/CASE/mail.N in the order written.
n=0
for c in game-kalah-3-pits html-errors move-timeout list-bump-name-language \
    game-kalah-ru game-kalah-ar; do
	mkdir -p "$tmp/$c"
	golden_replay "$tmp/$c" "$cases/$c" 2>"$tmp/why" ||
	    { echo "FAIL $c: the case does not replay"; cat "$tmp/why"; exit 1; }
	sqlite3 "$tmp/$c/ludus.db" \
	    "SELECT writefile('$tmp/$c/mail.' || id, data) FROM outbox" >/dev/null
	for f in "$tmp/$c"/mail.*; do
		n=$((n + 1))
		echo "$f" >>"$tmp/all"
	done
done

# No base64 body anywhere: they carry no attachments.
while read -r f; do
	if grep -qi '^Content-Transfer-Encoding: *base64' "$f"; then
		echo "FAIL ${f#"$tmp"/}: a base64 body"
		fail=$((fail + 1))
	fi
done <"$tmp/all"

# subject FILE: the raw Subject header, unfolded.
subject() {
	tr -d '\r' <"$1" | awk '/^$/ { exit } s && /^[ \t]/ { s = s $0; next }
	    s { exit } /^Subject:/ { s = $0 } END { print s }'
}

# No subject names its own reader's address (SpamAssassin's TO_IN_SUBJ):
# the mover's copy says "you played", a timeout names the seat.
while read -r f; do
	to=$(sed -n 's/^To: *\([^ \r]*\).*/\1/p' "$f" | head -n 1)
	if subject "$f" | grep -qF -- "$to"; then
		echo "FAIL ${f#"$tmp"/}: the subject names its reader, $to"
		fail=$((fail + 1))
	fi
done <"$tmp/all"

# One mail of each kind: the first whose subject matches.
: >"$tmp/chosen"
for spec in 'invitation:Invitation to' 'start: begins' \
    'move:Your move: .* played ' 'board:, the board' 'error:Not done' \
    'reminder:^Subject: Reminder' 'end: is over' 'done:^Subject: Done' \
    'list:^Subject: Your games' \
    'russian:^Subject: =\?UTF-8\?'; do
	kind=${spec%%:*}
	re=${spec#*:}
	f=$(while read -r f; do
		subject "$f" | grep -Eq -- "$re" || continue
		echo "$f"
		break
	done <"$tmp/all")
	if [ -z "$f" ]; then
		echo "FAIL $kind: no mail in the cases"
		fail=$((fail + 1))
		continue
	fi
	echo "$kind $f" >>"$tmp/chosen"
done

# A board mail (with its HTML part) in Russian and in Arabic.
for spec in russian-board:game-kalah-ru arabic-board:game-kalah-ar; do
	f=$(grep -l '^Content-Type: text/html' "$tmp/${spec#*:}"/mail.* 2>/dev/null |
	    head -n 1)
	if [ -z "$f" ]; then
		echo "FAIL ${spec%%:*}: no board mail in ${spec#*:}"
		fail=$((fail + 1))
	else
		echo "${spec%%:*} $f" >>"$tmp/chosen"
	fi
done

# One spamassassin for all of them: an mbox, each mail labelled with its
# kind (spamassassin does not keep the order).
while read -r kind f; do
	echo "From referee@example.org Fri Jan  1 00:00:00 2027"
	echo "X-Ludus-Kind: $kind $f"
	tr -d '\r' <"$f" | sed 's/^From />From /'
	echo
done <"$tmp/chosen" >"$tmp/mbox"
printf 'use_bayes 0\nbayes_auto_learn 0\nuse_auto_whitelist 0\n' >"$tmp/prefs"
HOME=$tmp spamassassin -L -p "$tmp/prefs" --mbox <"$tmp/mbox" \
    >"$tmp/scored" 2>"$tmp/sa.log"
awk 'function flush() { if (kind != "") print kind, status; kind = status = "" }
    /^From / { flush(); inhdr = 1; next }
    inhdr && /^$/ { inhdr = 0; cont = 0; next }
    !inhdr { next }
    cont && /^[ \t]/ { sub(/^[ \t]+/, status ~ /,$/ ? "" : " ")
	status = status $0; next }
    { cont = 0 }
    /^X-Ludus-Kind:/ { kind = $2 " " $3 }
    /^X-Spam-Status:/ { status = $0; cont = 1 }
    END { flush() }' "$tmp/scored" >"$tmp/status"
if [ "$(wc -l <"$tmp/status")" -ne "$(wc -l <"$tmp/chosen")" ]; then
	echo "FAIL spamassassin scored $(wc -l <"$tmp/status") of" \
	    "$(wc -l <"$tmp/chosen") mails"
	tail -n 5 "$tmp/sa.log"
	exit 1
fi
while read -r kind f rest; do
	score=$(echo "$rest" | sed -n 's/.*score=\([-0-9.]*\).*/\1/p')
	tests=$(echo "$rest" | sed -n 's/.*tests=\([^ ]*\).*/\1/p')
	if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s < 1.0) }'; then
		echo "ok $kind: $score ($tests)"
	else
		echo "FAIL $kind: ${score:-no score} ($tests), ${f#"$tmp"/}: $(subject "$f")"
	fi
done <"$tmp/status" >"$tmp/report"
cat "$tmp/report"
fail=$((fail + $(grep -c '^FAIL' "$tmp/report")))
echo "spam: $n mails, $(grep -c '^ok' "$tmp/report") kinds scored below 1.0;" \
    "$fail failed"
[ "$fail" -eq 0 ]
