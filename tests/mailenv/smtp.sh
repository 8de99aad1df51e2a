# A minimal SMTP (or LMTP) client in bash on file descriptor 5, for the
# players' side of tests/integration.sh and bench/soak.sh.  Sourced, not
# run; needs bash (/dev/tcp) and MAILENV_DOMAIN.

# Read one (possibly multi-line) reply on fd 5; 0 when its code is $1.
smtp_expect() {
	local line
	while :; do
		IFS= read -r -t 30 -u 5 line ||
		    { echo "smtp: no answer (want $1)" >&2; return 1; }
		line=${line%$'\r'}
		case $line in
		"$1"-*) ;;
		"$1" | "$1 "*) return 0 ;;
		*) echo "smtp: want $1, got: $line" >&2; return 1 ;;
		esac
	done
}
smtp_open() { # PORT [LHLO]
	exec 5<>/dev/tcp/127.0.0.1/"$1" || return 1
	smtp_expect 220 || return 1
	printf '%s player.%s\r\n' "${2:-EHLO}" "$MAILENV_DOMAIN" >&5
	smtp_expect 250
}
# The text and the final dot in one write: two small writes would wait
# for a delayed ACK (Nagle), 40 ms a message.
smtp_send() { # FROM TO TEXT (CRLF lines, none starting with a dot)
	printf 'MAIL FROM:<%s>\r\n' "$1" >&5 && smtp_expect 250 &&
	    printf 'RCPT TO:<%s>\r\n' "$2" >&5 && smtp_expect 250 &&
	    printf 'DATA\r\n' >&5 && smtp_expect 354 &&
	    printf '%s' "$3."$'\r\n' >&5 && smtp_expect 250
}
smtp_close() { printf 'QUIT\r\n' >&5; smtp_expect 221; exec 5>&-; }
