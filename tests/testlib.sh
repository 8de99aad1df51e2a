# Sourced by the shell tests: the counters every one of them keeps and the
# two ways a check ends.  A script prints "NAME: N passed, N failed" at the
# end from $pass and $fail (contrib/bootstrap sums those lines).
pass=${pass:-0}
fail=${fail:-0}
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# mail FROM SUBJECT BODY: the text of a mail to referee@example.org, with
# a Message-ID of its own each time (<$mail_tag.N@example.org>).  Not in
# a pipe or a subshell where the count must go on.
_mailn=0
mail() {
	_mailn=$((_mailn + 1))
	printf 'From: %s\r\nTo: referee@example.org\r\nSubject: %s\r\nMessage-ID: <%s.%d@example.org>\r\nDate: Sun, 29 Nov 2026 10:00:00 +0000\r\n\r\n%s\r\n' \
	    "$1" "$2" "${mail_tag:-test}" $_mailn "$3"
}

# maildir_referee DIR BUDGET: a referee in DIR reading DIR/Maildir, its
# robots thinking BUDGET a move, its mail kept by a sendmail of its own
# as one file a message in DIR/sent (named by the time it came, in ms,
# and its reader); defines ludus() for it and runs `ludus init`.
maildir_referee() {
	cat >"$1/sendmail" <<'SH'
#!/bin/sh
t=$(date +%s%3N)
to=$(echo "$*" | sed 's/.* //')
cat >"$SENDMAIL_DIR/$t.$$.$to"
SH
	chmod +x "$1/sendmail"
	mkdir -p "$1/sent" "$1/Maildir/new" "$1/Maildir/cur" "$1/Maildir/tmp"
	export SENDMAIL_DIR="$1/sent"
	cat >"$1/ludus.yaml" <<CONF
referee:
  address: referee@example.org
state_dir: $1
database: $1/ludus.db
games_dir: $LUDUS_GAMES_DIR
robots:
  budget: $2
in:
  maildir:
    path: $1/Maildir
out:
  sendmail:
    path: $1/sendmail
logging:
  to: stderr
  level: info
CONF
	_referee_conf=$1/ludus.yaml
	ludus() { "$LUDUS_BIN" -c "$_referee_conf" "$@"; }
	ludus init >/dev/null || bad init
}
