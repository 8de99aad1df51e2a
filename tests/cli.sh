#!/bin/sh
# The ludus tool end to end on a fresh database file: every subcommand,
# its output, its exit codes.  LUDUS_WRAP (e.g. "valgrind ...") wraps
# every call.
set -u
: "${LUDUS_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
db=$tmp/t.db
pass=0 fail=0

ludus() { ${LUDUS_WRAP:-} "$LUDUS_BIN" -d "$db" "$@"; }

# check NAME EXPECTED_STATUS COMMAND...: run, keep stdout/stderr in files.
check() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL $name: exit $got, want $want"
		sed 's/^/  stdout: /' "$tmp/out"; sed 's/^/  stderr: /' "$tmp/err"
		fail=$((fail + 1))
		return 1
	fi
	return 0
}
# expect NAME PATTERN FILE: FILE contains the fixed string PATTERN.
expect() {
	if grep -qF -- "$2" "$3"; then
		pass=$((pass + 1))
	else
		echo "FAIL $1: no \`$2' in"; sed 's/^/  /' "$3"
		fail=$((fail + 1))
	fi
}
. "$(dirname "$0")/testlib.sh"

# Only init makes a database: anything else says where it looked.
check no-db 1 ludus list && expect no-db "no database at $db (from -d)" "$tmp/err"
[ ! -e "$db" ] && ok || { echo "FAIL no-db: list created $db"; fail=$((fail + 1)); }
check no-db-default 1 env LUDUS_CONFIG="$tmp/none.yaml" sh -c \
    'cd "$1" && exec $2 "$3" outbox' sh "$tmp" "${LUDUS_WRAP:-}" "$LUDUS_BIN" &&
    expect no-db-default "no database at ludus.db (from the default" "$tmp/err"
[ ! -e "$tmp/ludus.db" ] && ok || { echo "FAIL no-db: outbox created ./ludus.db"; fail=$((fail + 1)); }
check no-db-deliver 75 ludus deliver </dev/null
# The configuration's database, named after the configuration is read.
printf 'referee:\n  address: r@example.org\ndatabase: %s/c.db\n' "$tmp" >"$tmp/c.yaml"
check no-db-config 75 "$LUDUS_BIN" -c "$tmp/c.yaml" deliver </dev/null &&
    expect no-db-config "no database at $tmp/c.db (from $tmp/c.yaml)" "$tmp/err"

check init 0 ludus init && expect init "schema version 19" "$tmp/out" &&
	expect init-secret "created (mode 0600)" "$tmp/out"
[ "$(stat -c %a "$db")" = 600 ] && ok || { echo "FAIL db mode"; fail=$((fail + 1)); }
check games 0 ludus games && expect games "pits=3-8 (default 6)" "$tmp/out"
check usage 64 ludus && expect usage "usage: ludus" "$tmp/err"
check unknown-command 64 ludus frobnicate && expect unknown "no command" "$tmp/err"
check help 0 ludus move --help && expect help "ludus [-c CONFIG] [-d DATABASE] move [--quiet] ID ADDRESS MOVE" "$tmp/out"
check new-bad-game 1 ludus new chess a@x.org b@x.org &&
	expect new-bad "no game called \`chess\`" "$tmp/err"
check new-bad-opt 1 ludus new mancala pits=99 a@x.org b@x.org &&
	expect new-bad-opt "pits must be a whole number 3-8, not \`99\`" "$tmp/err"
# --quiet: no game-start mail, so the outbox checks below see only theirs.
check new 0 ludus new --quiet mancala --seed 1 Alice@Example.org bob@example.org &&
	expect new "game #1: Mancala (Kalah) (pits=6 seeds=4 empty_capture=false)" "$tmp/out"
check moves 0 ludus moves 1 && [ "$(tr '\n' ' ' <"$tmp/out")" = "1 2 3 4 5 6 " ] && ok ||
	{ echo "FAIL moves: $(cat "$tmp/out")"; fail=$((fail + 1)); }
check moves-north 0 ludus moves 1 --as bob@example.org && [ ! -s "$tmp/out" ] && ok ||
	{ echo "FAIL moves-north not empty"; fail=$((fail + 1)); }
check move-wrong-turn 1 ludus move --quiet 1 bob@example.org 3 &&
	expect move-wrong-turn "it is South's turn, not North's" "$tmp/err"
check move-stranger 1 ludus move 1 eve@example.org 3 &&
	expect move-stranger "does not play game #1" "$tmp/err"
check move 0 ludus move --quiet 1 alice@example.org 3, 6 && expect move "2 moves played" "$tmp/out"
check move-empty-pit 1 ludus move --quiet 1 bob@example.org 9 &&
	expect move-bad "is not a pit" "$tmp/err"
check move-north 0 ludus move 1 BOB@example.org 1 --quiet
check show 0 ludus show 1 --as bob@example.org &&
	expect show "Last move: bob@example.org (North) sowed pit 1." "$tmp/out" &&
	expect show "alice@example.org (South) to move." "$tmp/out"
check history 0 ludus history 1 && expect history "1. South (alice@example.org) 3" "$tmp/out" &&
	expect history "3. North (bob@example.org) 1" "$tmp/out"
check export 0 ludus export 1 && expect export '"moves":[{"ply":1,"seat":0,"move":"3"' "$tmp/out" &&
	expect export '"seed_sha256":"' "$tmp/out"
grep -q '"seed":' "$tmp/out" && { echo "FAIL export reveals the seed of a running game"; fail=$((fail + 1)); } || ok
check replay 0 ludus replay 1 && expect replay "3 moves replay to the stored state" "$tmp/out"
check list 0 ludus list && expect list "#1	mancala	active	moves 3	alice@example.org v bob@example.org	to move: alice@example.org" "$tmp/out"
check show-missing 1 ludus show 42 && expect show-missing "no game #42" "$tmp/err"
check show-junk 1 ludus show x1 && expect show-junk "not a game number" "$tmp/err"

# A tampered move log no longer replays to the stored state.
if command -v sqlite3 >/dev/null; then
	sqlite3 "$db" "UPDATE moves SET notation = '4' WHERE ply = 3" &&
	check replay-tampered 1 ludus replay 1 &&
	expect replay-tampered "does not replay to the stored state" "$tmp/err"
else
	echo "FAIL sqlite3 shell missing"; fail=$((fail + 1))
fi

# Play a whole game to its end through the tool.
check new2 0 ludus new --quiet kalah pits=3 seeds=1 --seed 2 a@x.org b@x.org
for i in $(seq 1 40); do
	m=$(ludus moves 2 | head -n 1)
	[ -n "$m" ] || break
	who=$(ludus list | awk -F'\t' '$1 == "#2" { sub("to move: ", "", $6); print $6 }')
	ludus move --quiet 2 "$who" "$m" >/dev/null || { echo "FAIL move $m by $who"; fail=$((fail + 1)); break; }
done
check finished 0 ludus list && expect finished "#2	mancala	finished" "$tmp/out"
# --quiet queued nothing.
check quiet-outbox 0 ludus outbox && [ "$(cat "$tmp/out")" = "0 waiting, 0 sent, 0 given up" ] && ok ||
	{ echo "FAIL --quiet moves queued mail: $(cat "$tmp/out")"; fail=$((fail + 1)); }

# A move entered by the operator goes the referee's way: the seats are
# told (each their own view, the other's turn with its token), and a
# robot seat answers at once.
ndb=$tmp/n.db
"$LUDUS_BIN" -d "$ndb" init >/dev/null
"$LUDUS_BIN" -d "$ndb" new mancala --seed 3 ann@example.org bob@example.org >/dev/null
# Without the templates the move is not made, and the error says so.
mkdir -p "$tmp/notemplates"
check move-no-templates 1 env LUDUS_TEMPLATES_DIR="$tmp/notemplates" \
    "$LUDUS_BIN" -d "$ndb" move 1 ann@example.org 1 &&
	expect move-no-templates "nothing changed" "$tmp/err"
check move-told 0 "$LUDUS_BIN" -d "$ndb" move 1 ann@example.org 1 &&
	expect move-told "1 move played" "$tmp/out"
check move-told-outbox 0 "$LUDUS_BIN" -d "$ndb" outbox &&
	expect move-told-ann "ann@example.org" "$tmp/out" &&
	expect move-told-bob "bob@example.org" "$tmp/out"
n0=$(grep -c . "$tmp/out")
check move-quiet 0 "$LUDUS_BIN" -d "$ndb" move --quiet 1 bob@example.org 1
"$LUDUS_BIN" -d "$ndb" outbox >"$tmp/out"
[ "$(grep -c . "$tmp/out")" = "$n0" ] && ok ||
	{ echo "FAIL move --quiet queued mail"; fail=$((fail + 1)); }
"$LUDUS_BIN" -d "$ndb" new mancala --seed 4 ann@example.org robot.1.1@ludus.invalid >/dev/null
check move-robot 0 "$LUDUS_BIN" -d "$ndb" move --quiet 2 ann@example.org 1 &&
	expect move-robot "2 moves played" "$tmp/out"
check move-robot-answered 0 "$LUDUS_BIN" -d "$ndb" list &&
	expect move-robot-answered "#2	mancala	active	moves 2" "$tmp/out"
# `ludus new` goes the referee's way: the game begins as when its last
# seat accepts by mail, so a robot in the first seat has its clock
# running, moves at once, and the person is mailed the game-start mail.
rdb=$tmp/r.db
"$LUDUS_BIN" -d "$rdb" init >/dev/null
check new-robot 0 "$LUDUS_BIN" -d "$rdb" new mancala --seed 5 robot:3 ann@example.org &&
	expect new-robot "South: robot.3.0@ludus.invalid" "$tmp/out"
check new-robot-moved 0 "$LUDUS_BIN" -d "$rdb" list &&
	expect new-robot-moved "to move: ann@example.org" "$tmp/out"
grep -q "	moves 0	" "$tmp/out" && { echo "FAIL new-robot: the robot did not move"; fail=$((fail + 1)); } || ok
[ "$(sqlite3 "$rdb" 'SELECT deadline > 0 FROM games WHERE id = 1')" = 1 ] && ok ||
	{ echo "FAIL new-robot: no clock"; fail=$((fail + 1)); }
check new-robot-mail 0 "$LUDUS_BIN" -d "$rdb" outbox --all &&
	expect new-robot-mail "To: ann@example.org" "$tmp/out" &&
	expect new-robot-mail "Subject: [ludus #1 " "$tmp/out" &&
	expect new-robot-mail "Mancala (Kalah) begins" "$tmp/out" &&
	expect new-robot-mail "Deadline: " "$tmp/out"
[ "$(grep -c '^=== mail' "$tmp/out")" = 1 ] && ok ||
	{ echo "FAIL new-robot: $(grep -c '^=== mail' "$tmp/out") mails, want the one to ann"; fail=$((fail + 1)); }
check new-robot-quiet 0 "$LUDUS_BIN" -d "$rdb" new --quiet mancala robot:3 ann@example.org
check new-robot-quiet-outbox 0 "$LUDUS_BIN" -d "$rdb" outbox &&
	expect new-robot-quiet-outbox "1 waiting" "$tmp/out"
check new-robot-bad 1 "$LUDUS_BIN" -d "$rdb" new mancala robot:9 ann@example.org &&
	expect new-robot-bad "a robot's level is 1 to" "$tmp/err"
check export-finished 0 ludus export 2 && expect export-finished '"seed":"' "$tmp/out"

# verify: the revealed seed against the commitment, and the replay.  The
# seed of `--seed 2` and its SHA-256 are computed apart from ludus:
#   printf ludus-seed:2 | sha256sum   (the seed, as rng_seed_from_u64 makes it)
#   and the SHA-256 of those 32 bytes (the commitment).
seed2=$(printf ludus-seed:2 | sha256sum | cut -c1-64)
hash2=$(printf '%s' "$seed2" | xxd -r -p | sha256sum | cut -c1-64)
check verify 0 ludus verify 2 && expect verify "the seed's SHA-256 is the published commitment $hash2" "$tmp/out" &&
	expect verify "replay from the seed to the final position" "$tmp/out"
check verify-given 0 ludus verify 2 "$seed2" "$hash2"
check verify-wrong-seed 1 ludus verify 2 "$(printf x | sha256sum | cut -c1-64)" "$hash2" &&
	expect verify-wrong-seed "not the commitment" "$tmp/out"
check verify-other-seed 1 ludus verify 2 "$(printf x | sha256sum | cut -c1-64)" &&
	expect verify-other-seed "not the published" "$tmp/out"
check verify-running 1 ludus verify 1 && expect verify-running "revealed when it ends" "$tmp/err"
check verify-junk 1 ludus verify 2 xyz && expect verify-junk "64 hex digits" "$tmp/err"

check perft 0 ludus perft mancala 8 && expect perft "depth 8: 563055" "$tmp/out"
check perft-opts 0 ludus perft mancala 4 pits=4 seeds=3 && expect perft-opts "depth 4: 158" "$tmp/out"
check perft-bad 1 ludus perft mancala 3 colour=red && expect perft-bad "has no option \`colour\`" "$tmp/err"
# robot: the move after a log, then who is next; the same nodes give the
# same move; a finished game is "over" alone; a bad log is refused.
printf '0 3\n' >"$tmp/log"
check robot 0 ludus robot mancala --level 3 --nodes 2000 <"$tmp/log" &&
    expect robot-move "0 " "$tmp/out" && expect robot-next "next " "$tmp/out" &&
    cp "$tmp/out" "$tmp/robot1" &&
    check robot-again 0 ludus robot mancala --level 3 --nodes 2000 <"$tmp/log" &&
    expect robot-same "$(head -n 1 "$tmp/robot1")" "$tmp/out"
check robot-status 0 ludus robot mancala --status </dev/null &&
    expect robot-status "next 0" "$tmp/out"
printf '0 b2-c3\n1 d4xb2\n' >"$tmp/log"
check robot-random 0 ludus robot alquerque --level 0 <"$tmp/log" &&
    expect robot-random "next " "$tmp/out"
check robot-card 0 ludus robot spite --seed 3 --nodes 50 </dev/null &&
    expect robot-card "next " "$tmp/out"
printf '1 3\n' >"$tmp/log"
check robot-bad 1 ludus robot mancala <"$tmp/log" &&
    expect robot-bad "move 1 (\`3\`)" "$tmp/err"
check robot-usage 64 ludus robot mancala --level 4 </dev/null
# robot --serve: a game kept between lines; the robot's move as the
# one-shot form plays it after the same moves.
printf 'new 1\n0 3\n0 3\n' >"$tmp/log"
check robot-serve-bad 1 ludus robot mancala --serve <"$tmp/log" &&
    expect robot-serve-bad "move 2 (\`3\`)" "$tmp/err"
printf 'new 4\n0 3\ngo\n' >"$tmp/log"
check robot-serve 0 ludus robot mancala --serve --nodes 2000 <"$tmp/log" &&
    expect robot-serve "next 0" "$tmp/out" && cp "$tmp/out" "$tmp/serve" &&
    printf '0 3\n' >"$tmp/log" &&
    check robot-oneshot 0 ludus robot mancala --seed 4 --nodes 2000 \
    <"$tmp/log" && expect robot-serve-same "$(sed -n 3p "$tmp/serve")" \
    "$tmp/out"
# robot --serve as a match partner: a deal given with `new`, the robot's
# side, its time; it answers the opponent's move with its own (a card of
# the hand dealt to it) before the status, and waits when told `side none`.
printf 'new 3 opening=classic deal=heron,otter,newt/yak,lemur\nside 1\nthink 50\n0 heron c1-c2\n' >"$tmp/log"
check robot-serve-side 0 ludus robot almakleh --serve <"$tmp/log" &&
    [ "$(head -3 "$tmp/out")" = "$(printf 'next 0\nnext 0\nnext 0')" ] &&
    ok || bad "robot-serve-side: not one status a line"
case "$(sed -n 4p "$tmp/out")" in
"1 yak "*|"1 lemur "*) ok ;;
*) bad "robot-serve-side: line 4 is not a move of North's cards" ;;
esac
[ "$(sed -n 5p "$tmp/out")" = "next 0" ] && ok ||
    bad "robot-serve-side: no status after the robot's move"
printf 'new 3 deal=heron,otter,newt/yak\n' >"$tmp/log"
check robot-serve-baddeal 1 ludus robot almakleh --serve <"$tmp/log" &&
    expect robot-serve-baddeal "new: " "$tmp/err"
printf 'new 3\nthink 0\n' >"$tmp/log"
check robot-serve-think 1 ludus robot almakleh --serve <"$tmp/log" &&
    expect robot-serve-think "think takes milliseconds" "$tmp/err"
# deal: the start of a game from a revealed seed, checked against the
# commitment and the first hand of tests/mail/referee/game-spite.
seed=ec37a7ac67c988c100c0a82deb36628183a6874f981bb83769449eb38005bfea
check deal 0 ludus deal spite $seed payoff=1 hand=2 target=2 &&
    expect deal "seed SHA-256 876f5143ed52ff8860007049edfd29b46dcf59f52903239e7a1aae3fea18242d" "$tmp/out" &&
    expect deal-hand "Your hand: A 5" "$tmp/out"
check deal-bad 1 ludus deal spite 1234 && expect deal-bad "the seed is 64 hex digits" "$tmp/err"
# --json: the same deal with every card, the opponent's hand included.
check deal-json 0 ludus deal spite $seed payoff=1 hand=2 target=2 --json &&
    expect deal-json '"game":"spite"' "$tmp/out" &&
    expect deal-json-hand '"hand":["A","5"]' "$tmp/out"

check db-unwritable 1 "$LUDUS_BIN" -d /nonexistent/dir/x.db list && expect db "/nonexistent/dir/x.db" "$tmp/err"

# Reply tokens from a known secret.  The expected tokens were computed
# apart from ludus: HMAC-SHA256 of "1:0" (game:seat) under the key, base32,
# the first 10 characters, lower case:
#   printf 1:0 | openssl dgst -sha256 -mac HMAC -macopt hexkey:KEY -binary |
#   base32 | cut -c1-10
key=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
rm -f "$tmp/ludus.secret"
(umask 077 && echo "$key" >"$tmp/ludus.secret")
check token 0 ludus token 1 0 && [ "$(cat "$tmp/out")" = hfxf7ximf4 ] && ok ||
	{ echo "FAIL token 1 0: $(cat "$tmp/out")"; fail=$((fail + 1)); }
check token-seat1 0 ludus token '#1' 1 && [ "$(cat "$tmp/out")" = p2cjjl4uju ] && ok ||
	{ echo "FAIL token 1 1: $(cat "$tmp/out")"; fail=$((fail + 1)); }
check token-address 0 ludus token 1 Bob@Example.org && [ "$(cat "$tmp/out")" = p2cjjl4uju ] && ok ||
	{ echo "FAIL token by address: $(cat "$tmp/out")"; fail=$((fail + 1)); }
check token-no-seat 1 ludus token 1 2 && expect token-no-seat "has seats 0-1" "$tmp/err"
check token-stranger 1 ludus token 1 eve@example.org && expect token-stranger "does not play game #1" "$tmp/err"
check token-no-game 1 ludus token 42 0 && expect token-no-game "no game #42" "$tmp/err"
# A backup: the database as it is, complete, 0600, and the secret beside
# it; taken while other processes write to the database.
for i in 1 2 3 4 5 6 7 8; do
	"$LUDUS_BIN" -d "$db" new --quiet mancala "w$i@example.org" "v$i@example.org" >/dev/null 2>&1
done &
writer=$!
check backup 0 ludus backup "$tmp/b.db" &&
    expect backup "backed up to $tmp/b.db.secret" "$tmp/out"
wait "$writer"
[ "$(sqlite3 "$tmp/b.db" 'PRAGMA integrity_check')" = ok ] && ok ||
    { echo "FAIL backup: integrity"; fail=$((fail + 1)); }
[ "$(stat -c %a "$tmp/b.db")" = 600 ] && [ "$(stat -c %a "$tmp/b.db.secret")" = 600 ] && ok ||
    { echo "FAIL backup: modes $(stat -c %a "$tmp/b.db" "$tmp/b.db.secret")"; fail=$((fail + 1)); }
cmp -s "$tmp/b.db.secret" "$tmp/ludus.secret" && ok ||
    { echo "FAIL backup: the secret differs"; fail=$((fail + 1)); }
check backup-again 0 ludus backup "$tmp/b.db"
[ "$(sqlite3 "$tmp/b.db" 'SELECT count(*) FROM games')" = "$(sqlite3 "$db" 'SELECT count(*) FROM games')" ] && ok ||
    { echo "FAIL backup: games differ after the writer stopped"; fail=$((fail + 1)); }
check backup-nowhere 1 ludus backup /nonexistent/dir/b.db && expect backup-nowhere "/nonexistent/dir/b.db.tmp" "$tmp/err"

chmod 644 "$tmp/ludus.secret"
check token-open-secret 1 ludus token 1 0 && expect token-open-secret "chmod 600" "$tmp/err"

check version 0 "$LUDUS_BIN" --version && expect version "ludus " "$tmp/out"
# The version is X.Y.Z, and a build from a git checkout adds the commit
# as git describe names it (whether the tree was clean may change while
# the suite runs, so "-dirty" is left out of the comparison).
v=$(head -n 1 "$tmp/out")
if ! printf '%s\n' "$v" | grep -Eqx 'ludus [0-9]+\.[0-9]+\.[0-9]+( \(git [0-9A-Za-z._-]+\))?'; then
	echo "FAIL version-format: $v"; fail=$((fail + 1))
elif [ -e "${LUDUS_SRCDIR:-/nonexistent}/.git" ] &&
    d=$(cd "$LUDUS_SRCDIR" && git describe --always 2>/dev/null); then
	case $v in
	"ludus "*" (git $d)"|"ludus "*" (git $d-dirty)") pass=$((pass + 1)) ;;
	*) echo "FAIL version-git: '$v' does not end in (git $d)"
	   fail=$((fail + 1)) ;;
	esac
else
	case $v in
	*"(git "*) echo "FAIL version-git: '$v' outside a checkout"
	   fail=$((fail + 1)) ;;
	*) pass=$((pass + 1)) ;;
	esac
fi

# Every outbox row, decoded: an encoded subject, a folded header, a base64
# UTF-8 text part with CR LF line ends beside an HTML one (both shown, with
# their transfer encodings), a sent row as well as a waiting one.
if command -v sqlite3 >/dev/null; then
	m1=$(printf 'From: Referee <referee@example.org>\r\nTo: Ann <Ann@Example.org>\r\nSubject: =?UTF-8?B?0J3Rgw==?= [ludus #1 abc]\r\nMessage-ID: <r1@example.org>\r\nIn-Reply-To: <p1@example.org>\r\nReferences: <p0@example.org> <p1@example.org>\r\nAuto-Submitted: auto-replied\r\nReply-To: referee+1@example.org\r\nList-Id: <game-1.example.org>\r\nList-Unsubscribe:\r\n <mailto:referee@example.org?subject=stop>\r\nDate: Sun, 29 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\nSMOpbGxvIHfDtnJsZA0KbGluZSB0d28NCg==\r\n--b\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n<pre>board</pre>\r\n--b--\r\n')
	m2=$(printf 'From: referee@example.org\r\nTo: bob@example.org\r\nSubject: plain\r\nMessage-ID: <r2@example.org>\r\n\r\nno newline at the end')
	sqlite3 "$db" "INSERT INTO outbox (message_id, envelope_from, recipients, data, created, next_try, sent) VALUES ('r2@example.org', 'referee@example.org', 'bob@example.org', '$m2', 1, 1, 2)" &&
	sqlite3 "$db" "INSERT INTO outbox (message_id, envelope_from, recipients, data, created, next_try) VALUES ('r1@example.org', 'referee@example.org', 'ann@example.org', '$m1', 1, 1)" || {
		echo "FAIL outbox rows not inserted"; fail=$((fail + 1)); }
	cat >"$tmp/want" <<'EOF'
=== mail 1 ===
To: bob@example.org
Subject: plain
Message-ID: <r2@example.org>
Parts: text/plain 7bit

no newline at the end

=== mail 2 ===
To: ann@example.org
Subject: Ну [ludus #1 abc]
Message-ID: <r1@example.org>
In-Reply-To: <p1@example.org>
References: <p0@example.org> <p1@example.org>
Auto-Submitted: auto-replied
Reply-To: referee+1@example.org
List-Id: <game-1.example.org>
List-Unsubscribe: <mailto:referee@example.org?subject=stop>
Content-Type: multipart/alternative
Parts: text/plain base64, text/html 7bit

Héllo wörld
line two
--- text/html ---
<pre>board</pre>
EOF
	check outbox-all 0 ludus outbox --all && cmp -s "$tmp/want" "$tmp/out" && ok ||
		{ echo "FAIL outbox --all:"; diff -u "$tmp/want" "$tmp/out"; fail=$((fail + 1)); }
	check outbox-bad 64 ludus outbox --al && expect outbox-bad "usage: ludus" "$tmp/err"
fi

# ludus config as postconf: -n the settings the file gives, KEY one
# setting or a section's.
cat >"$tmp/pc.yaml" <<EOF
referee:
  address: referee@example.org
in:
  maildir:
    path: $tmp/Maildir
logging:
  level: debug
EOF
printf 'referee:\n  address: referee@example.org\nin:\n  maildir:\n    path: %s/Maildir\nlogging:\n  level: debug\n' "$tmp" >"$tmp/want"
check config-n 0 "$LUDUS_BIN" -c "$tmp/pc.yaml" config -n &&
    cmp -s "$tmp/want" "$tmp/out" && ok ||
    { echo "FAIL config -n:"; diff -u "$tmp/want" "$tmp/out"; fail=$((fail + 1)); }
check config-key 0 "$LUDUS_BIN" -c "$tmp/pc.yaml" config logging.level limits.info_replies &&
    expect config-key "logging.level: debug" "$tmp/out" &&
    expect config-key "limits.info_replies: " "$tmp/out"
check config-section 0 "$LUDUS_BIN" -c "$tmp/pc.yaml" config in.maildir &&
    expect config-section "in.maildir.path: $tmp/Maildir" "$tmp/out" &&
    expect config-section "in.maildir.processed: Processed" "$tmp/out"
check config-nokey 1 "$LUDUS_BIN" -c "$tmp/pc.yaml" config no.such &&
    expect config-nokey "no setting or section no.such" "$tmp/err"
# Every usage line names -c: each command's --help, and the programs'.
nousage=
for cmd in $("$LUDUS_BIN" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p'); do
	"$LUDUS_BIN" "$cmd" --help 2>&1 | grep "usage:" | grep -qv -- "-c " &&
	    nousage="$nousage $cmd"
done
{ "$LUDUS_BIN" --help; "${LUDUSD_BIN:-$(dirname "$LUDUS_BIN")/ludusd}" --help; } 2>&1 |
    grep "usage:" | grep -qv -- "-c " && nousage="$nousage (the programs)"
[ -z "$nousage" ] && ok || { echo "FAIL usage lines without -c:$nousage"; fail=$((fail + 1)); }
# A configuration this user may not read: said so, whatever the command,
# not passed over for a database in the working directory.
cp "$tmp/pc.yaml" "$tmp/secret.yaml"
chmod 600 "$tmp/secret.yaml"
chmod 755 "$tmp"
if [ "$(id -u)" = 0 ]; then
	as_other() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
else
	as_other() { "$@"; }
	chmod 000 "$tmp/secret.yaml"
fi
(cd / && LUDUS_CONFIG="$tmp/secret.yaml" as_other "$LUDUS_BIN" list) >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] && ok || { echo "FAIL unreadable configuration: exit status"; fail=$((fail + 1)); }
expect unreadable "$tmp/secret.yaml: Permission denied" "$tmp/err"
grep -q "init" "$tmp/err" && { echo "FAIL unreadable: $(cat "$tmp/err")"; fail=$((fail + 1)); } || ok

# ludusd -n names every problem of the file, each at its line.
if [ -n "${LUDUSD_BIN:-}" ]; then
	printf 'referee:\n  address: referee@example.org\n  colour: blue\nlimits:\n  lines: many\nlogging:\n  level: loud\n' >"$tmp/three.yaml"
	check ludusd-n-all 1 "$LUDUSD_BIN" -n -c "$tmp/three.yaml" &&
	    expect ludusd-n-all "ludusd: $tmp/three.yaml:3: unknown setting \`referee.colour\`" "$tmp/err" &&
	    expect ludusd-n-all "ludusd: $tmp/three.yaml:5: limits.lines: " "$tmp/err" &&
	    expect ludusd-n-all "ludusd: $tmp/three.yaml:7: logging.level: " "$tmp/err" &&
	    [ "$(wc -l <"$tmp/err")" = 3 ] && ok ||
	    { echo "FAIL ludusd-n-all: $(cat "$tmp/err")"; fail=$((fail + 1)); }
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
