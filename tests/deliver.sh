#!/bin/sh
# `ludus deliver` and `ludus parse` on a real database file, and `ludusd
# --once` over a Maildir with a sendmail stand-in that keeps what it is
# given: a message is answered once, a duplicate is recognised, bounces,
# auto-replies and loops get no answer, a store that cannot be opened is a
# temporary failure (75) for the MTA, a message naming a game that cannot
# be read is quarantined (exit 0, recorded, not answered).
set -u
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-deliver.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
. "$(dirname "$0")/testlib.sh"

cat >"$tmp/sendmail" <<'SH'
#!/bin/sh
# Keep each message given on stdin as a file; arguments in a side file.
# Mail to perm@ fails for good (EX_NOUSER), to temp@ for now (EX_TEMPFAIL).
case "$*" in
*perm@*) cat >/dev/null; echo "perm@example.org: no such user" >&2; exit 67 ;;
*temp@*) cat >/dev/null; echo "queue full" >&2; exit 75 ;;
esac
n=$(ls "$SENDMAIL_DIR" | wc -l)
cat >"$SENDMAIL_DIR/mail.$n"
echo "$*" >"$SENDMAIL_DIR/args.$n"
SH
chmod +x "$tmp/sendmail"
mkdir -p "$tmp/sent" "$tmp/Maildir/new" "$tmp/Maildir/cur" "$tmp/Maildir/tmp"
export SENDMAIL_DIR="$tmp/sent"

cat >"$tmp/ludus.yaml" <<EOF2
referee:
  address: referee@example.org
  name: Ludus Referee
  admins: [admin@example.org]
state_dir: $tmp
database: $tmp/ludus.db
games_dir: $LUDUS_GAMES_DIR
in:
  maildir:
    path: $tmp/Maildir
out:
  sendmail:
    path: $tmp/sendmail
limits:
  error_replies: 2
EOF2

ludus() { "$LUDUS_BIN" -c "$tmp/ludus.yaml" "$@"; }
ludus init >/dev/null || bad "init"

msg() { # msg ID FROM SUBJECT BODY [EXTRA-HEADER]
	printf 'From: %s\r\nTo: referee@example.org\r\nSubject: %s\r\n' "$2" "$3"
	[ -n "$1" ] && printf 'Message-ID: <%s>\r\n' "$1"
	[ -n "${5:-}" ] && printf '%s\r\n' "$5"
	printf 'Date: Sun, 29 Nov 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n' "$4"
}
waiting() { ludus outbox | head -n 1 | cut -d' ' -f1; }

msg m1@x.org Alice@Example.org "Re: [ludus #3 abcd] your move" "move 3
board

On Sun, Bob wrote:
> old text" >"$tmp/m1"
ludus deliver <"$tmp/m1" 2>"$tmp/err" && ok || bad "deliver m1: $(cat "$tmp/err")"
[ "$(waiting)" = 1 ] && ok || bad "one reply queued, got $(ludus outbox)"
ludus deliver <"$tmp/m1" 2>"$tmp/err" && ok || bad "deliver m1 again"
grep -q "seen before" "$tmp/err" && ok || bad "duplicate not recognised: $(cat "$tmp/err")"
[ "$(waiting)" = 1 ] && ok || bad "duplicate answered twice"
# Someone else reusing that Message-ID does not make the referee skip it.
msg m1@x.org mallet@example.net "hello" "games" >"$tmp/m1-other"
ludus deliver <"$tmp/m1-other" 2>"$tmp/err" && ok || bad "deliver m1-other"
grep -q "seen before" "$tmp/err" && bad "another sender's mail was taken for a duplicate" || ok

ludus parse <"$tmp/m1" >"$tmp/parse" && ok || bad "parse m1"
sed -n '/^== commands ==$/,$p' "$tmp/parse" >"$tmp/cmds"
printf '== commands ==\nmove 3\nboard\n' | cmp -s - "$tmp/cmds" && ok ||
	bad "parse commands: $(cat "$tmp/cmds")"

# `ludus parse` names the failed recipients of a bounce.
ludus parse <"${LUDUS_SRCDIR:-..}/tests/mail/dsn-postfix.eml" >"$tmp/parse" || true
grep -qx 'failed:          bob@example.org' "$tmp/parse" && ok ||
	bad "parse of a bounce: $(cat "$tmp/parse")"

# No answer to a bounce, an auto-reply, a list, our own loop.
msg b1@x.org MAILER-DAEMON@example.net "Undelivered Mail Returned to Sender" "gone" "Return-Path: <>" >"$tmp/b1"
msg a1@x.org carol@example.org "Out of office" "away" "Auto-Submitted: auto-replied" >"$tmp/a1"
msg l1@x.org dave@example.org "list post" "hello" "List-Id: <chat.lists.example.org>" >"$tmp/l1"
msg x1@x.org eve@example.org "Re: your move" "3" "X-Loop: referee@example.org" >"$tmp/x1"
for f in b1 a1 l1 x1; do
	ludus deliver <"$tmp/$f" 2>"$tmp/err" && ok || bad "deliver $f"
	grep -q "dropped" "$tmp/err" && ok || bad "$f not dropped: $(cat "$tmp/err")"
done
[ "$(waiting)" = 2 ] && ok || bad "a guarded message was answered: $(ludus outbox)"

# A banned address gets no answer (the ban is a players row).
sqlite3 "$tmp/ludus.db" "INSERT INTO players (address, created, banned) VALUES ('mallory@example.org', 0, 1)"
msg ban1@x.org Mallory@Example.org "games" "games" >"$tmp/ban1"
ludus deliver <"$tmp/ban1" 2>"$tmp/err" && ok || bad "deliver ban1"
grep -q "dropped (banned" "$tmp/err" && ok || bad "banned not dropped: $(cat "$tmp/err")"
[ "$(waiting)" = 2 ] && ok || bad "a banned sender was answered"

# Without a Message-ID the digest of the bytes dedupes.
msg "" frank@example.org "hello" "games" >"$tmp/n1"
ludus deliver <"$tmp/n1" 2>/dev/null && ludus deliver <"$tmp/n1" 2>"$tmp/err" && ok || bad "deliver n1"
grep -q "sha256:.*seen before" "$tmp/err" && ok || bad "digest dedupe: $(cat "$tmp/err")"
[ "$(waiting)" = 3 ] && ok || bad "n1 answered once: $(ludus outbox)"

# Unreadable mail gets an error reply, at most error_replies an hour.
for i in 1 2 3; do
	printf 'From: gina@example.org\r\nMessage-ID: <img%s@x.org>\r\nSubject: pic\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n' "$i" |
	    ludus deliver 2>>"$tmp/img-err" || bad "deliver img$i"
done
[ "$(waiting)" = 5 ] && ok || bad "error replies not capped at 2: $(ludus outbox)"
grep -q "rate-limited" "$tmp/img-err" && ok || bad "no rate-limit note"

# A store that cannot be opened is a temporary failure for the MTA.
"$LUDUS_BIN" -c "$tmp/ludus.yaml" -d /nonexistent/x.db deliver <"$tmp/m1" 2>/dev/null
[ $? -eq 75 ] && ok || bad "unusable store should exit 75"

# The daemon, one cycle: the Maildir message is processed and moved, the
# outbox goes through sendmail, each mail once.
msg d1@x.org henry@example.org "[ludus #9 zz] go" "move 4" >"$tmp/Maildir/new/1.eml"
cp "$tmp/m1" "$tmp/Maildir/new/2.eml"
"$LUDUSD_BIN" -c "$tmp/ludus.yaml" --once 2>"$tmp/d.log" && ok || bad "ludusd --once: $(cat "$tmp/d.log")"
[ -z "$(ls "$tmp/Maildir/new")" ] && ok || bad "Maildir new/ not emptied"
[ "$(ls "$tmp/Maildir/.Processed/cur" 2>/dev/null | wc -l)" = 2 ] && ok || bad "not moved to .Processed"
[ "$(ls "$tmp/sent" | grep -c '^mail')" = 6 ] && ok || bad "sendmail got $(ls "$tmp/sent" | grep -c '^mail') mails, want 6"
grep -l "henry@example.org" "$tmp"/sent/mail.* >/dev/null && ok || bad "no reply to henry"
grep -qh "^In-Reply-To: <d1@x.org>" "$tmp"/sent/mail.* && ok || bad "reply not threaded"
grep -qh "^Auto-Submitted: auto-replied" "$tmp"/sent/mail.* && ok || bad "no Auto-Submitted"
grep -qh "^X-Loop: referee@example.org" "$tmp"/sent/mail.* && ok || bad "no X-Loop"
[ "$(waiting)" = 0 ] && ok || bad "outbox not empty after the cycle"
"$LUDUSD_BIN" -c "$tmp/ludus.yaml" --once 2>>"$tmp/d.log" && ok || bad "second cycle"
[ "$(ls "$tmp/sent" | grep -c '^mail')" = 6 ] && ok || bad "second cycle sent again"
"$LUDUSD_BIN" -n -c "$tmp/ludus.yaml" >/dev/null && ok || bad "ludusd -n on a good file"
# ludusd -n finds what the daemon would trip over: each broken path by name.
nbad() { # nbad WHAT EXPECTED-TEXT SED-EXPRESSION
	sed "$3" "$tmp/ludus.yaml" >"$tmp/n.yaml"
	if "$LUDUSD_BIN" -n -c "$tmp/n.yaml" >/dev/null 2>"$tmp/n.err"; then
		bad "ludusd -n passed $1"
	else
		grep -qF "$2" "$tmp/n.err" && ok || bad "ludusd -n on $1: $(cat "$tmp/n.err")"
	fi
}
nbad "a missing Maildir" "maildir $tmp/nomaildir/new: No such file" "s|path: $tmp/Maildir|path: $tmp/nomaildir|"
nbad "a missing sendmail" "sendmail $tmp/nosendmail: No such file" "s|path: $tmp/sendmail|path: $tmp/nosendmail|"
printf 'x\n' >"$tmp/notexec"
nbad "a sendmail that does not run" "sendmail $tmp/notexec: not executable" "s|path: $tmp/sendmail|path: $tmp/notexec|"
nbad "a database nowhere" "database $tmp/nodir: No such file" "s|^database: .*|database: $tmp/nodir/x.db|"
LUDUS_GAMES_DIR= nbad "missing game definitions" "game definitions: $tmp/nogames" "s|^games_dir: .*|games_dir: $tmp/nogames|"
printf 'templates_dir: %s/notemplates\n' "$tmp" >>"$tmp/ludus.yaml"
LUDUS_TEMPLATES_DIR= nbad "missing templates" "templates $tmp/notemplates" "s|x|x|"
sed -i '$d' "$tmp/ludus.yaml"
chmod 644 "$tmp/secret"
nbad "a secret others may read" "secret: " "s|x|x|"
chmod 600 "$tmp/secret"
# ludus config prints the settings in effect, which read back the same.
ludus config >"$tmp/eff.yaml" && ok || bad "ludus config"
grep -q "^  lifetime: 5d$" "$tmp/eff.yaml" && grep -q "^  address: referee@example.org$" "$tmp/eff.yaml" &&
    ok || bad "ludus config: $(cat "$tmp/eff.yaml")"
"$LUDUS_BIN" -c "$tmp/eff.yaml" config >"$tmp/eff2.yaml" &&
    [ "$(sed 1d "$tmp/eff.yaml")" = "$(sed 1d "$tmp/eff2.yaml")" ] && ok ||
    bad "ludus config does not read back: $(diff "$tmp/eff.yaml" "$tmp/eff2.yaml")"
printf 'referee:\n  adress: x@y.org\n' >"$tmp/bad.yaml"
"$LUDUSD_BIN" -n -c "$tmp/bad.yaml" 2>"$tmp/err" && bad "bad config accepted" ||
	{ grep -q "bad.yaml:2" "$tmp/err" && ok || bad "bad config error: $(cat "$tmp/err")"; }

# A permanent failure is given up and reported to the admins; a temporary
# one waits for its retry.
msg p1@x.org perm@example.org "games" "games" | ludus deliver 2>/dev/null
msg t1@x.org temp@example.org "games" "games" | ludus deliver 2>/dev/null
ludus flush >"$tmp/flush" 2>&1
[ $? -eq 1 ] && ok || bad "flush with failures should exit 1: $(cat "$tmp/flush")"
grep -q "0 sent, 1 to retry, 1 given up" "$tmp/flush" && ok || bad "flush: $(cat "$tmp/flush")"
ludus outbox >"$tmp/ob"
head -n 1 "$tmp/ob" | grep -q "^2 waiting, 6 sent, 1 given up$" && ok || bad "outbox: $(head -n 1 "$tmp/ob")"
grep -q "to admin@example.org" "$tmp/ob" && ok || bad "no notice to the admin: $(cat "$tmp/ob")"
grep -q "to temp@example.org" "$tmp/ob" && ok || bad "temp@ not waiting: $(cat "$tmp/ob")"
ludus flush >"$tmp/flush" 2>&1
grep -q "1 sent, 0 to retry, 0 given up" "$tmp/flush" && ok || bad "second flush: $(cat "$tmp/flush")"
notice=$(grep -l "^To: admin@example.org" "$tmp"/sent/mail.* | head -n 1)
[ -n "$notice" ] && ok || bad "admin notice not sent"
# 7bit, or quoted-printable whose soft line breaks are undone here.
tr -d '\r' <"$notice" | sed '1,/^$/d' | sed -e ':a' -e '/=$/{N;s/=\n//;ba' -e '}' \
    >"$tmp/notice"
grep -q "To: perm@example.org" "$tmp/notice" && grep -q "no such user" "$tmp/notice" &&
	ok || bad "notice does not say what failed: $(cat "$tmp/notice")"

# The operator's view of the queue: the mail still failing for now, with
# its attempts, local times and last error; retry makes it due, delete
# drops it; past out.lifetime a temporary failure is final.
ludus flush >/dev/null 2>&1
ludus outbox >"$tmp/ob"
grep -q "to temp@example.org" "$tmp/ob" && ok || bad "temp@ not listed: $(cat "$tmp/ob")"
grep -q "1 attempt, next 20[0-9-]* [0-9:]* [A-Z+0-9-]*, last error: queue full" "$tmp/ob" &&
    ok || bad "no attempts, next try or last error: $(cat "$tmp/ob")"
grep -q "given up after 1 attempt: perm@example.org: no such user" "$tmp/ob" &&
    ok || bad "the given-up mail is not shown with its reason: $(cat "$tmp/ob")"
tid=$(awk -F'	' '$3 == "to temp@example.org" { print $1 }' "$tmp/ob")
ludus outbox retry all | grep -q "^1 mail due now$" && ok || bad "outbox retry all"
ludus flush >"$tmp/flush" 2>&1
grep -q "0 sent, 1 to retry, 0 given up" "$tmp/flush" && ok || bad "retried flush: $(cat "$tmp/flush")"
sqlite3 "$tmp/ludus.db" "UPDATE outbox SET created = created - 5 * 86400, next_try = 0 WHERE id = $tid"
ludus flush >"$tmp/flush" 2>&1
grep -q "0 sent, 0 to retry, 1 given up" "$tmp/flush" && ok || bad "lifetime: $(cat "$tmp/flush")"
ludus outbox | grep -q "given up after 3 attempts: still not delivered after 120 h: queue full" &&
    ok || bad "lifetime reason: $(ludus outbox)"
nadmin=$(ludus outbox --all | grep -c "^To: admin@example.org")
[ "$nadmin" = 2 ] && ok || bad "admins told $nadmin times in all (2: perm@, then temp@)"
ludus outbox retry "$tid" | grep -q "^1 mail due now$" && ok || bad "retry of a given-up mail"
ludus outbox | grep -A1 "to temp@example.org" | grep -q "3 attempts, next" && ok ||
    bad "a retried given-up mail waits again: $(ludus outbox)"
ludus outbox delete "$tid" | grep -q "^mail $tid deleted$" && ok || bad "outbox delete"
ludus outbox delete "$tid" 2>"$tmp/err" && bad "deleted twice" ||
    { grep -q "no mail $tid waits" "$tmp/err" && ok || bad "delete of none: $(cat "$tmp/err")"; }
ludus outbox | grep -q "to temp@example.org" && bad "deleted mail still listed" || ok
ludus outbox retry x >/dev/null 2>&1; [ $? -eq 64 ] && ok || bad "outbox retry x: not a usage error"

# Retention: message keys older than retention.processed, mail sent or
# given up queued before retention.outbox and error-reply counts older
# than a day go; newer ones and waiting mail stay.
q() { sqlite3 "$tmp/ludus.db" "$1"; }
t=$(date +%s)
q "UPDATE processed SET received = $t - 31 * 86400 WHERE key LIKE '<b1@x.org>%'"
q "UPDATE outbox SET created = $t - 15 * 86400 WHERE id = (SELECT min(id) FROM outbox WHERE sent IS NOT NULL)"
q "INSERT INTO outbox (message_id, envelope_from, recipients, data, created, next_try) VALUES ('old-waiting@x', 'r@x', 'w@x', 'x', $t - 20 * 86400, $t + 3600)"
q "INSERT INTO replies (sender, at) VALUES ('old@x.org', $t - 2 * 86400)"
np=$(q "SELECT count(*) FROM processed") no=$(q "SELECT count(*) FROM outbox") nr=$(q "SELECT count(*) FROM replies")
ludus prune | grep -q "^3 old records deleted$" && ok || bad "prune: $(ludus prune)"
[ "$(q "SELECT count(*) FROM processed")" = $((np - 1)) ] && ok || bad "prune: processed keys"
[ "$(q "SELECT count(*) FROM outbox")" = $((no - 1)) ] && ok || bad "prune: outbox rows"
[ "$(q "SELECT count(*) FROM outbox WHERE message_id = 'old-waiting@x'")" = 1 ] && ok ||
    bad "prune deleted a mail still waiting"
[ "$(q "SELECT count(*) FROM replies")" = $((nr - 1)) ] && ok || bad "prune: reply counts"
q "UPDATE processed SET received = $t - 40 * 86400 WHERE key LIKE '<a1@x.org>%'"
[ "$(q "SELECT count(*) FROM processed WHERE received < $t - 30 * 86400")" = 1 ] || bad "no old key to prune"
"$LUDUSD_BIN" -c "$tmp/ludus.yaml" --once 2>"$tmp/d.log" && ok || bad "ludusd --once"
[ "$(q "SELECT count(*) FROM processed WHERE received < $t - 30 * 86400")" = 0 ] && ok ||
    bad "ludusd did not prune: $(cat "$tmp/d.log")"
grep -q "retention: 1 old record deleted" "$tmp/d.log" && ok || bad "retention not logged: $(cat "$tmp/d.log")"
# Under systemd: levels as "<N>" prefixes when stderr is the journal's
# stream, and readiness told to $NOTIFY_SOCKET (a build with libsystemd).
: >"$tmp/j.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/j.log") "$LUDUSD_BIN" -c "$tmp/ludus.yaml" --once 2>>"$tmp/j.log"
grep -q "^<6>info: started: ludusd .*, database" "$tmp/j.log" && ok || bad "no journal priorities: $(head -3 "$tmp/j.log")"
grep -q "^20[0-9-]*T" "$tmp/j.log" && bad "time stamps for the journal" || ok
if grep -q '^#define HAVE_SYSTEMD 1' "${LUDUS_BUILDDIR:-.}/config.h" 2>/dev/null; then
	socat -u "UNIX-RECV:$tmp/notify" - >"$tmp/notified" 2>/dev/null &
	spid=$!
	i=0; while [ ! -S "$tmp/notify" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	NOTIFY_SOCKET=$tmp/notify "$LUDUSD_BIN" -c "$tmp/ludus.yaml" --once 2>/dev/null
	sleep 0.3
	kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
	grep -q "READY=1" "$tmp/notified" && grep -q "STOPPING=1" "$tmp/notified" && ok ||
	    bad "sd_notify: got $(cat "$tmp/notified")"
fi

# Each statement pruning uses an index, not a scan of a growing table.
for stmt in "SELECT rowid FROM processed WHERE received < 1 LIMIT 5" \
    "SELECT id FROM outbox WHERE created < 1 AND (sent IS NOT NULL OR failed IS NOT NULL) LIMIT 5" \
    "SELECT rowid FROM replies WHERE at < 1 LIMIT 5"; do
	q "EXPLAIN QUERY PLAN $stmt" | grep -q "USING.*INDEX" && ok ||
	    bad "full scan: $stmt: $(q "EXPLAIN QUERY PLAN $stmt")"
done

# A stored game that cannot be read is a broken invariant: the message
# naming it is quarantined (exit 0, the cause on standard error and in
# its record), not answered, and not applied when it comes again.
ludus new mancala qa@example.org qb@example.org >"$tmp/qnew" || bad "new for quarantine"
qid=$(sed -n 's/^game #\([0-9]*\):.*/\1/p' "$tmp/qnew")
q "UPDATE games SET state = 'junk' WHERE id = $qid"
before=$(waiting)
msg q1@x.org qa@example.org "board" "board #$qid" >"$tmp/q1"
ludus deliver <"$tmp/q1" 2>"$tmp/q1-err"
[ $? -eq 0 ] && ok || bad "a quarantined message should exit 0"
grep -q "quarantined: game #$qid cannot be read" "$tmp/q1-err" && ok ||
    bad "no cause on stderr: $(cat "$tmp/q1-err")"
[ "$(waiting)" = "$before" ] && ok || bad "a quarantined message was answered"
q "SELECT outcome FROM processed WHERE key LIKE '<q1@x.org>%'" | grep -q "^quarantined: game #$qid" &&
    ok || bad "no quarantine record: $(q "SELECT key, outcome FROM processed WHERE key LIKE '<q1@%'")"
ludus deliver <"$tmp/q1" 2>"$tmp/q1-err"
grep -q "seen before" "$tmp/q1-err" && ok || bad "quarantined message tried again: $(cat "$tmp/q1-err")"

# Templates that cannot be read: the mail is left for the MTA to retry,
# nothing of it applied, and the log says why in place of a store error.
before=$(waiting)
msg t1@x.org frank@example.org "hello" "games" >"$tmp/t1"
LUDUS_TEMPLATES_DIR=$tmp/notemplates ludus deliver <"$tmp/t1" 2>"$tmp/err"
[ $? -eq 75 ] && ok || bad "unreadable templates should exit 75"
grep -q "t1@x.org> from frank@example.org: not applied, will retry (the error above)" "$tmp/err" &&
    grep -q "notemplates/en/games.tmpl" "$tmp/err" && ok ||
    bad "unreadable templates: $(cat "$tmp/err")"
[ "$(waiting)" = "$before" ] && ok || bad "unreadable templates answered: $(ludus outbox)"
ludus deliver <"$tmp/t1" 2>"$tmp/err" && ok || bad "t1 again: $(cat "$tmp/err")"
[ "$(waiting)" = $((before + 1)) ] && ok || bad "t1 not answered once templates are back"

# One durable sync a delivery, the WAL's: the delivery that makes the WAL
# also syncs the directory it is in (and SQLite the new WAL's header), the
# next ones do not (SQLite would, at every process's first sync, for a WAL
# it always opens O_CREAT).
if command -v strace >/dev/null 2>&1; then
	syncs() { grep -c 'sync(' "$tmp/st"; }
	dirsyncs() { grep -c "openat(.*\"$tmp\", O_RDONLY" "$tmp/st"; }
	sqlite3 "$tmp/ludus.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
	[ ! -e "$tmp/ludus.db-wal" ] && ok || bad "the WAL is still there"
	msg s1@x.org frank@example.org "hello" "games" >"$tmp/s1"
	msg s2@x.org frank@example.org "hello" "games" >"$tmp/s2"
	# A delivery of mail $1, its syncs and opens in $tmp/st
	# (LeakSanitizer cannot run under a tracer).
	traced() {
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		    strace -f -o "$tmp/st" -e trace=fsync,fdatasync,openat \
		    "$LUDUS_BIN" -c "$tmp/ludus.yaml" deliver <"$1" 2>/dev/null
	}
	traced "$tmp/s1" && [ "$(dirsyncs)" = 1 ] && ok ||
	    bad "the delivery that made the WAL: $(dirsyncs) directory syncs"
	traced "$tmp/s2" && [ "$(dirsyncs)" = 0 ] && [ "$(syncs)" = 1 ] && ok ||
	    bad "a delivery into the WAL: $(syncs) syncs, $(dirsyncs) of the directory"
else
	echo "deliver: strace not available: the syncs are not counted"
	[ "${CI:-}" = true ] && bad "strace is missing under CI"
fi

echo "deliver: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
