# Sourced by the scripts that run ludusd against the sandbox
# (tests/integration.sh, tests/e2e.sh, bench/soak.sh and others): the referee's
# configuration, from the environment `mailenv start` printed, and what
# such a script needs before it starts the sandbox.
#
# mailenv_prepare NAME: exit 77 (skip) unless root and curl (the players'
# IMAP client) and sqlite3 (to look into the database apart from the code
# under test) are there; tests install nothing (contrib/bootstrap test
# does, and a skip fails the suite under CI).
mailenv_prepare() {
	[ "$(id -u)" = 0 ] || { echo "$1: needs root for the mail servers"; exit 77; }
	_need=""
	command -v curl >/dev/null || _need="$_need curl"
	command -v sqlite3 >/dev/null || _need="$_need sqlite3"
	[ -z "$_need" ] && return 0
	echo "$1: missing$_need (contrib/bootstrap test installs them)"
	exit 77
}
#
# mailenv_start NAME BOX TMP: start the sandbox in BOX, watching this
# script's process (the servers stop when it dies), its environment
# written to TMP/env and read into this shell; exit 77 when the sandbox
# cannot be had here (its reason printed), 1 when it fails to start.
mailenv_start() {
	MAILENV_WATCH_PID=$$ bash "$mailenv" start "$2" >"$3/env" \
	    2>"$3/mailenv.err"
	_rc=$?
	[ $_rc = 77 ] && { cat "$3/mailenv.err"; exit 77; }
	[ $_rc = 0 ] || {
		echo "$1: mailenv start failed: $(cat "$3/mailenv.err")"
		exit 1
	}
	. "$3/env"
}
#
# mailenv_referee DIR [LOG-LEVEL] [REFEREE-LINE]: write DIR/ludus.yaml and
# DIR/referee.pw for referee@ in the sandbox, the database DIR/ludus.db.
# Mail comes in by IMAP IDLE with polling only every 5 minutes, so an
# answer within seconds can only come through IDLE; it goes out by SMTPS
# with AUTH.  Short retry waits let outages recover within a test.
# REFEREE-LINE is one more setting under `referee:` (e.g.
# "plus_addressing: true").
mailenv_referee() {
	printf 'referee%s\n' "$MAILENV_PASSWORD_SUFFIX" >"$1/referee.pw"
	cat >"$1/ludus.yaml" <<EOF
referee:
  address: referee@$MAILENV_DOMAIN
  name: Ludus Referee
${3:+  $3
}state_dir: $1
database: $1/ludus.db
games_dir: $LUDUS_GAMES_DIR
in:
  imap:
    url: imap://localhost:$MAILENV_IMAP_PORT/INBOX
    user: referee
    password_file: $1/referee.pw
    ca_file: $MAILENV_CA_FILE
    processed: move Processed
    idle: true
    poll_interval: 5m
    timeout: 10s
    retry:
      min: 1s
      max: 4s
out:
  smtp:
    url: smtps://localhost:$MAILENV_SMTPS_PORT
    user: referee
    password_file: $1/referee.pw
    ca_file: $MAILENV_CA_FILE
    timeout: 10s
    retry:
      min: 1s
      max: 4s
# The load tests send hundreds of list and help mails from the same few
# players within the hour: every one of them must be answered.
limits:
  info_replies: 100000
logging:
  to: stderr
  level: ${2:-info}
EOF
}

# mailenv_settled DB: nothing of the referee's mail is on its way: the
# referee's INBOX holds no message (every one is read and moved), DB's
# outbox has nothing unsent and Postfix's queue is empty (the answers are
# in the players' mailboxes).  What a test waits for before it counts,
# rather than a pause that a loaded machine outlasts.
mailenv_settled() {
	[ -z "$(find "$MAILENV_MAILDIRS/referee/Maildir/new" \
	    "$MAILENV_MAILDIRS/referee/Maildir/cur" -type f 2>/dev/null)" ] &&
	[ "$(sqlite3 -cmd '.timeout 10000' "$1" \
	    "SELECT count(*) FROM outbox WHERE sent IS NULL")" = 0 ] &&
	postqueue -c "$MAILENV_DIR/pf/etc" -p 2>/dev/null |
	    grep -q "^Mail queue is empty"
}
