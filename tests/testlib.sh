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
