#!/bin/bash
# An operator's setups, tried against the private Dovecot and Postfix of
# tests/mailenv, each from the files in contrib/ as this build made them
# (only the host, the port, the user and the file names are changed):
#
#   1. `ludusd -n -v` logs in to both servers and out, sending nothing; a
#      wrong password and a refused certificate each fail with a clear
#      error and a non-zero exit;
#   2. the Postfix pipe transport (postfix-master.cf, postfix-main.cf,
#      postfix-transport): mail to the referee reaches `ludus deliver`;
#      while there is no database deliver exits 75, Postfix defers the
#      message and delivers it once the database is back, applied once;
#   3. procmail (procmailrc): 0 when taken, 75 passed on to the MTA;
#   4. fetchmail and ludus-fetch.service (fetchmailrc): the referee's mail
#      is fetched, answered, the answer sent by `ludusd --once`; a message
#      deliver could not take stays on the server for the next run;
#   5. ludus-tick.service: an invitation that lapsed is fired by `tick`
#      and its mail sent by `flush`;
#   6. Dovecot Sieve (dovecot-ludus.conf, ludus.sieve): mail to the
#      referee is piped into deliver and not stored; when deliver fails it
#      is kept in the INBOX.
#
# Needs root (the servers; the recipes run as the sandbox's mail user) and
# procmail, fetchmail and dovecot-sieve (contrib/bootstrap installs them).
set -u
export TZ=UTC LC_ALL=C
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}" "${LUDUS_TEMPLATES_DIR:?}" "${LUDUS_BUILDDIR:?}"
srcdir=${LUDUS_SRCDIR:-.}
mailenv=$srcdir/tests/mailenv/mailenv
. "$srcdir/tests/mailenv/referee.sh"
mailenv_prepare recipes

pass=0 fail=0
. "$(dirname "$0")/testlib.sh"
note() { echo "recipes: $*"; }
missing=
for p in /usr/bin/procmail /usr/bin/fetchmail /usr/lib/dovecot/modules/lib90_sieve_plugin.so; do
	[ -e $p ] || missing="$missing $p"
done
[ -z "$missing" ] || { echo "recipes: missing$missing (contrib/bootstrap installs procmail, fetchmail, dovecot-sieve)"; exit 1; }

tmp=$(mktemp -d /tmp/lrc.XXXXXX) || exit 99
chmod 755 "$tmp"
box=$tmp/m
cleanup() {
	[ -n "${RECIPES_KEEP:-}" ] && cp -r "$tmp"/*.log "$box/pf/maillog" "$box/dc/log" "$RECIPES_KEEP"/ 2>/dev/null
	[ -e "$box/env" ] && bash "$mailenv" stop "$box" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mailenv_start recipes "$box" "$tmp"
. "$srcdir/tests/mailenv/smtp.sh"
eval "$(MAKEFLAGS= make -s -C "$LUDUS_BUILDDIR" --no-print-directory print-paths 2>/dev/null)"
built=$LUDUS_BUILDDIR/contrib
MU=ludusmail	# the sandbox's mail user: the recipes' programs run as it
REF=referee@$MAILENV_DOMAIN
pw() { echo "$1$MAILENV_PASSWORD_SUFFIX"; }
as_mu() { setpriv --reuid=$MU --regid=$MU --init-groups -- "$@"; }
imap() { # USER COMMAND [MAILBOX]
	curl -s --max-time 20 -u "$1:$(pw "$1")" \
	    --url "imap://127.0.0.1:$MAILENV_IMAP_PORT/${3:-}" -X "$2"
}
count_of() { # USER [MAILBOX]
	imap "$1" "STATUS ${2:-INBOX} (MESSAGES)" |
	    sed -n 's/.*(MESSAGES \([0-9]*\)).*/\1/p'
}
has_reply() { # USER MESSAGE-ID: a mail answering it is in USER's INBOX
	imap "$1" "UID SEARCH HEADER In-Reply-To \"<$2>\"" INBOX | tr -d '\r' |
	    grep -q '^\* SEARCH [0-9]'
}
run=$$
umask 077
mk_msg() { # ID FROM BODY
	local date
	printf -v date '%(%a, %d %b %Y %H:%M:%S +0000)T' -1
	printf -v MSG 'From: %s\r\nTo: Referee <%s>\r\nSubject: ludus\r\nMessage-ID: <%s>\r\nDate: %s\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n' \
	    "$2" "$REF" "$1" "$date" "$3"
}
send_one() { # ID FROM BODY: by SMTP to the referee
	mk_msg "$@"
	smtp_open "$MAILENV_SMTP_PORT" && smtp_send "$2" "$REF" "$MSG" && smtp_close
}
waitfor() { # SECONDS COMMAND...: until COMMAND succeeds
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# postfix reload, waited for: master logs it once it has read the new
# configuration (a loaded machine takes longer than any fixed pause).
pf_reload() {
	local n
	n=$(grep -c "postfix/master.*reload" "$MAILENV_MAILLOG")
	touch -d '-1 minute' "$pf/main.cf" "$pf/master.cf"
	postfix -c "$pf" reload >/dev/null 2>&1 || return 1
	waitfor 30 eval '[ "$(grep -c "postfix/master.*reload" "$MAILENV_MAILLOG")" -gt $n ]'
}

# --- 1. ludusd -n -v -------------------------------------------------------
mkdir "$tmp/v"
mailenv_referee "$tmp/v"
"$LUDUS_BIN" -c "$tmp/v/ludus.yaml" init >/dev/null || bad "init"
before=$(count_of referee)
"$LUDUSD_BIN" -n -v -c "$tmp/v/ludus.yaml" >"$tmp/v/ok.out" 2>"$tmp/v/ok.err"
rc=$?
[ $rc = 0 ] && ok || bad "-n -v exited $rc: $(cat "$tmp/v/ok.err")"
grep -q "^imap imap://localhost:$MAILENV_IMAP_PORT: TLS verified, logged in as referee, mailbox INBOX selected, logged out$" "$tmp/v/ok.out" && ok ||
    bad "-n -v, imap: $(cat "$tmp/v/ok.out")"
grep -q "^smtp smtps://localhost:$MAILENV_SMTPS_PORT: TLS verified, logged in, logged out without sending$" "$tmp/v/ok.out" && ok ||
    bad "-n -v, smtp: $(cat "$tmp/v/ok.out")"
grep -q "configuration OK" "$tmp/v/ok.out" && ok || bad "-n -v: no 'configuration OK'"
# The servers saw a login and a logout, and nothing was sent or taken.
grep -q "postfix/qmgr.*from=<referee@" "$MAILENV_MAILLOG" && bad "-n -v sent mail" || ok
grep -q "imap(referee).*Logged out" "$box/dc/log" && ok || bad "no IMAP logout in Dovecot's log"
[ "$(count_of referee)" = "$before" ] && ok || bad "the referee's INBOX changed"
"$LUDUSD_BIN" -v -c "$tmp/v/ludus.yaml" >/dev/null 2>&1
[ $? = 64 ] && ok || bad "-v without -n is no usage error"
# A wrong password: both servers refuse it, by name.
printf 'wrong\n' >"$tmp/v/referee.pw"
"$LUDUSD_BIN" -n -v -c "$tmp/v/ludus.yaml" >"$tmp/v/pw.out" 2>"$tmp/v/pw.err"
rc=$?
[ $rc = 1 ] && ok || bad "-n -v with a wrong password exited $rc"
grep -q "^ludusd: imap imap://localhost:$MAILENV_IMAP_PORT: .*LOGIN" "$tmp/v/pw.err" && ok ||
    bad "wrong password, imap: $(cat "$tmp/v/pw.err")"
grep -qi "^ludusd: smtp smtps://localhost:$MAILENV_SMTPS_PORT: .*\(login denied\|535\)" "$tmp/v/pw.err" && ok ||
    bad "wrong password, smtp: $(cat "$tmp/v/pw.err")"
grep -q "configuration OK" "$tmp/v/pw.out" && bad "a wrong password passed" || ok
pw referee >"$tmp/v/referee.pw"
# No ca_file: the sandbox's self-signed certificate is not trusted.
grep -v "ca_file:" "$tmp/v/ludus.yaml" >"$tmp/v/untrusted.yaml"
"$LUDUSD_BIN" -n -v -c "$tmp/v/untrusted.yaml" >"$tmp/v/ca.out" 2>"$tmp/v/ca.err"
rc=$?
[ $rc = 1 ] && ok || bad "-n -v with an untrusted certificate exited $rc"
grep -q "^ludusd: imap imap://localhost:$MAILENV_IMAP_PORT: certificate not trusted: " "$tmp/v/ca.err" && ok ||
    bad "untrusted, imap: $(cat "$tmp/v/ca.err")"
grep -q "^ludusd: smtp smtps://localhost:$MAILENV_SMTPS_PORT: certificate not trusted: " "$tmp/v/ca.err" && ok ||
    bad "untrusted, smtp: $(cat "$tmp/v/ca.err")"
note "-n -v: $(head -n 1 "$tmp/v/pw.err"); $(head -n 1 "$tmp/v/ca.err")"

# --- a referee fed by ludus deliver, its files the mail user's -------------
# No in: section; out by SMTPS for flush and ludusd --once.
d=$tmp/d
mkdir "$d"
mailenv_referee "$d"
sed -i '/^in:/,/^out:/{/^out:/!d;}' "$d/ludus.yaml"
printf 'templates_dir: %s\n' "$LUDUS_TEMPLATES_DIR" >>"$d/ludus.yaml"
conf=$d/ludus.yaml
db=$d/ludus.db
chown -R $MU: "$d"
as_mu "$LUDUS_BIN" -c "$conf" init >/dev/null || bad "init as $MU"
processed() { sqlite3 "$db" "SELECT count(*) FROM processed WHERE key LIKE '<$1> %'" 2>/dev/null; }
is_processed() { [ "$(processed "$1")" = 1 ]; }
# A recipe's text with this sandbox's names for this build's.
localise() {
	sed -e "s|$bindir/ludus |$LUDUS_BIN |g" -e "s|$sbindir/ludusd |$LUDUSD_BIN |g" \
	    -e "s|$sysconfdir/ludus/ludus.yaml|$conf|g" -e "s|$statedir|$d|g" \
	    -e "s|user=ludus |user=$MU |" -e "s|referee@example.org|$REF|" "$@"
}

# --- 2. the Postfix pipe transport ---------------------------------------
pf=$box/pf/etc
grep -v '^#' "$built/postfix-master.cf" | localise >>"$pf/master.cf"
grep -v '^#' "$srcdir/contrib/postfix-main.cf" | sed "s|/etc/postfix/transport|$pf/transport|" >>"$pf/main.cf"
grep -v '^#' "$srcdir/contrib/postfix-transport" | localise >"$pf/transport"
grep -q "^ludus .* pipe$" "$pf/master.cf" && grep -q "argv=$LUDUS_BIN -c $conf deliver$" "$pf/master.cf" && ok ||
    bad "master.cf: $(tail -n 2 "$pf/master.cf")"
postmap -c "$pf" "$pf/transport" && ok || bad "postmap"
pf_reload || bad "postfix reload"
id1=pipe1.$run@$MAILENV_DOMAIN
send_one "$id1" "alice@$MAILENV_DOMAIN" "help" || bad "send to the pipe"
waitfor 30 is_processed "$id1" && ok || bad "the pipe transport did not deliver: $(grep -E 'ludus|pipe' "$MAILENV_MAILLOG" | tail -n 3)"
# Postfix logs the delivery when deliver has exited, after the commit.
waitfor 30 grep -q "relay=ludus.*status=sent" "$MAILENV_MAILLOG" && ok || bad "no status=sent via ludus in the mail log"
# 75: no database now; Postfix defers and tries again.
mv "$db" "$d/away.db"
id2=pipe2.$run@$MAILENV_DOMAIN
send_one "$id2" "bob@$MAILENV_DOMAIN" "help" || bad "send to the pipe (2)"
waitfor 30 grep -q "relay=ludus.*status=deferred" "$MAILENV_MAILLOG" && ok ||
    bad "no deferral while the database was away: $(grep relay=ludus "$MAILENV_MAILLOG" | tail -n 2)"
[ -e "$db" ] && bad "deliver created a database" || ok
grep -q "status=deferred (temporary failure. Command output: ludus: no database at $db (from $conf)" "$MAILENV_MAILLOG" && ok ||
    bad "the deferral does not say why: $(grep -o 'status=deferred.*' "$MAILENV_MAILLOG" | head -n 1)"
mv "$d/away.db" "$db"
# Postfix tries again by itself within seconds when the machine is quiet;
# under load its queue manager may wait longer, so the queue is flushed
# as an operator would (postqueue -f), every few seconds of the wait.
retried() {
	[ $((SECONDS % 3)) -eq 0 ] && postqueue -c "$pf" -f >/dev/null 2>&1
	is_processed "$1"
}
waitfor 60 retried "$id2" && ok || bad "the deferred message never came: $(grep relay=ludus "$MAILENV_MAILLOG" | tail -n 2)"
note "pipe: $(grep -o 'relay=ludus.*status=deferred.*' "$MAILENV_MAILLOG" | head -n 1)"
# The replies go out with flush, as ludus-tick.service would send them.
as_mu "$LUDUS_BIN" -c "$conf" flush >/dev/null 2>&1 || bad "flush after the pipe"
waitfor 30 has_reply alice "$id1" && ok || bad "alice has no reply through the pipe"
waitfor 30 has_reply bob "$id2" && ok || bad "bob has no reply to the deferred message"
# Postfix back to its own delivery for the rest.
sed -i '/^transport_maps/d' "$pf/main.cf"
pf_reload || bad "postfix reload"

# --- 3. procmail ---------------------------------------------------------
localise "$built/procmailrc" >"$d/procmailrc"
chown $MU: "$d/procmailrc"
id3=procmail.$run@$MAILENV_DOMAIN
mk_msg "$id3" "carol@$MAILENV_DOMAIN" "help"
printf '%s' "$MSG" | tr -d '\r' | (cd "$d" && as_mu procmail -m "$d/procmailrc")
rc=$?
[ $rc = 0 ] && is_processed "$id3" && ok || bad "procmail: exit $rc, processed $(processed "$id3")"
mv "$db" "$d/away.db"
mk_msg "procmail2.$run@$MAILENV_DOMAIN" "carol@$MAILENV_DOMAIN" "help"
printf '%s' "$MSG" | tr -d '\r' | (cd "$d" && as_mu procmail -m "$d/procmailrc") 2>/dev/null
rc=$?
mv "$d/away.db" "$db"
[ $rc = 75 ] && ok || bad "procmail without a database exited $rc, not 75"

# --- 4. fetchmail and ludus-fetch.service -----------------------------------
# The unit's commands, in order, as the unit's user, with its environment.
run_unit() { # UNIT-FILE
	local line cmd ign rc=0
	while IFS= read -r line; do
		case $line in
		Environment=*) eval "export ${line#Environment=}" ;;
		ExecStart=*)
			cmd=${line#ExecStart=}
			ign=0
			case $cmd in -*) ign=1; cmd=${cmd#-} ;; esac
			# shellcheck disable=SC2086
			(cd "$d" && as_mu $cmd) >>"$tmp/unit.log" 2>&1
			rc=$?
			[ $rc = 0 ] || [ $ign = 1 ] || return $rc
			;;
		esac
	done < <(localise "$1")
	return 0
}
localise "$built/fetchmailrc" | sed -e "s|^poll mail.example.org protocol IMAP port 993|poll localhost protocol IMAP port $MAILENV_IMAPS_PORT|" \
    -e "s|password \"SECRET\"|password \"$(pw referee)\"|" \
    -e "s|sslcertck|sslcertck sslcertfile \"$MAILENV_CA_FILE\"|" >"$d/fetchmailrc"
chown $MU: "$d/fetchmailrc"
chmod 600 "$d/fetchmailrc"
sed -e "s|$sysconfdir/ludus/fetchmailrc|$d/fetchmailrc|" "$built/ludus-fetch.service" >"$tmp/fetch.service"
grep -q "^ExecStart=-/usr/bin/fetchmail -f $d/fetchmailrc$" "$tmp/fetch.service" && ok ||
    bad "fetch unit: $(grep ExecStart= "$tmp/fetch.service")"
id4=fetch.$run@$MAILENV_DOMAIN
# Straight into the referee's INBOX (IMAP APPEND), whatever Postfix's
# transport does while it reloads.
mk_msg "$id4" "dave@$MAILENV_DOMAIN" "help"
printf '%s' "$MSG" >"$tmp/m4"
curl -s --max-time 20 -u "referee:$(pw referee)" -T "$tmp/m4" \
    "imap://127.0.0.1:$MAILENV_IMAP_PORT/INBOX" || bad "APPEND for fetchmail"
[ "$(count_of referee)" -ge 1 ] || bad "nothing in the referee's INBOX to fetch"
# A message that deliver cannot take stays on the server...
mv "$db" "$d/away.db"
(cd "$d" && FETCHMAILHOME=$d as_mu fetchmail -f "$d/fetchmailrc") >"$tmp/fetch0.log" 2>&1
mv "$d/away.db" "$db"
[ "$(count_of referee)" -ge 1 ] && ok || bad "fetchmail deleted a message deliver did not take"
is_processed "$id4" && bad "processed without a database?" || ok
# ...and the next run takes it, answers, sends.
: >"$tmp/unit.log"
run_unit "$tmp/fetch.service" && ok || bad "ludus-fetch.service failed: $(tail -n 5 "$tmp/unit.log")"
is_processed "$id4" && ok || bad "fetchmail's run did not deliver: $(tail -n 5 "$tmp/unit.log")"
[ "$(count_of referee)" = 0 ] && ok || bad "fetchmail left $(count_of referee) messages on the server"
waitfor 30 has_reply dave "$id4" && ok || bad "dave has no reply from ludusd --once"

# --- 5. ludus-tick.service -------------------------------------------------
# Days pass on the test clock ($LUDUS_NOW): a build without it skips this.
if "$LUDUS_BIN" -V | grep -q '^test build'; then
	id5=tick.$run@$MAILENV_DOMAIN
	mk_msg "$id5" "alice@$MAILENV_DOMAIN" "new mancala carol@$MAILENV_DOMAIN"
	printf '%s' "$MSG" | as_mu "$LUDUS_BIN" -c "$conf" deliver 2>/dev/null || bad "deliver an invitation"
	rows=$(sqlite3 "$db" "SELECT count(*) FROM outbox")
	# Eight days on, the invitation has lapsed: tick fires it, flush sends.
	export LUDUS_NOW=$(( $(date +%s) + 8 * 86400 ))
	: >"$tmp/unit.log"
	run_unit "$built/ludus-tick.service" && ok || bad "ludus-tick.service failed: $(tail -n 5 "$tmp/unit.log")"
	unset LUDUS_NOW
	[ "$(sqlite3 "$db" "SELECT count(*) FROM outbox")" -gt "$rows" ] && ok || bad "tick fired nothing"
	[ "$(sqlite3 "$db" "SELECT count(*) FROM outbox WHERE sent IS NULL")" = 0 ] && ok ||
	    bad "flush left mail unsent: $(as_mu "$LUDUS_BIN" -c "$conf" outbox 2>&1 | head -n 4)"
else
	note "ludus-tick.service not tried: not a test build (configure --enable-test-clock)"
	[ "${CI:-}" = true ] && bad "ludus-tick.service needs a test build under CI"
fi

# --- 6. Dovecot Sieve with vnd.dovecot.pipe -------------------------------
dc=$box/dc/dovecot.conf
mkdir -p "$tmp/sieve-pipe"
chmod 755 "$tmp/sieve-pipe"
ln -s "$LUDUS_BIN" "$tmp/sieve-pipe/ludus"
sed "s|/usr/lib/dovecot/sieve-pipe|$tmp/sieve-pipe|" "$built/dovecot-ludus.conf" >"$box/dc/90-ludus.conf"
# The private Dovecot reads no conf.d: the Debian default of 90-sieve.conf
# (~/.dovecot.sieve is the active script) comes with the recipe.
# (No address space limit for the programs Sieve runs: a build with
# AddressSanitizer reserves terabytes of it.)
cat >>"$dc" <<EOF
default_vsz_limit = 0
plugin {
  sieve = file:~/sieve;active=~/.dovecot.sieve
}
!include $box/dc/90-ludus.conf
EOF
home=$box/mail/referee
mkdir -p "$home"
localise "$built/ludus.sieve" >"$home/.dovecot.sieve"
chown -R $MU: "$home"
bash "$mailenv" stop-imap "$box" && bash "$mailenv" start-imap "$box" || bad "restart Dovecot with Sieve"
n0=$(count_of referee)
id6=sieve.$run@$MAILENV_DOMAIN
send_one "$id6" "bob@$MAILENV_DOMAIN" "help" || bad "send through Sieve"
waitfor 30 is_processed "$id6" && ok || bad "Sieve did not pipe: $(grep -i sieve "$box/dc/log" | tail -n 3)"
sleep 1
[ "$(count_of referee)" = "$n0" ] && ok || bad "Sieve kept a message deliver took"
mv "$db" "$d/away.db"
id7=sieve2.$run@$MAILENV_DOMAIN
send_one "$id7" "bob@$MAILENV_DOMAIN" "help" || bad "send through Sieve (2)"
more_than() { [ "$(count_of referee)" -gt "$1" ]; }
waitfor 30 more_than "$n0" && ok ||
    bad "a message deliver failed on is not in the INBOX: $(grep -i sieve "$box/dc/log" | tail -n 3)"
mv "$d/away.db" "$db"
is_processed "$id7" && bad "processed without a database?" || ok
note "sieve: $(grep -i "pipe action" "$box/dc/log" | tail -n 1)"

echo "recipes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
