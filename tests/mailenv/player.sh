# player.sh: the players of a tests/mailenv sandbox, writing to the referee
# over SMTP and reading its mail over IMAP, as a mail program would.
#
# Sourced by bash scripts (tests/e2e.sh), or run for one command:
#
#   bash player.sh send USER TEXT [SUBJECT]   a new mail to the referee
#   bash player.sh reply USER [#ID] TEXT      answer USER's latest referee
#                                             mail (of game ID), keeping
#                                             its subject and thread
#   bash player.sh inbox USER                 list USER's mailbox
#   bash player.sh read USER [UID]            one mail of USER, decoded
#                                             (the latest by default)
#
# Needs the environment `mailenv start` prints (MAILENV_*), curl and
# base64.  Optional settings:
#   PLAYER_DIR       where fetched mail is kept (default: a fresh temp dir)
#   PLAYER_REFEREE   the referee's address (referee@$MAILENV_DOMAIN)
#   PLAYER_TAG       the word of the subject tag (ludus)
#   PLAYER_POLL      seconds between two looks at a mailbox (0.2)
#
# Sending: SMTP with STARTTLS (the certificate verified against the
# sandbox's own CA, as the sandbox's name), like contrib/bootstrap.
# Reading: IMAPS with the user's password; a mail is fetched whole, which
# marks it seen on the server, and kept in PLAYER_DIR/USER/queue/UID.eml
# until a player_wait takes it (it then moves to taken/).  So "the next
# unseen referee mail" is the oldest fetched and not yet taken one.
#
# After player_wait (and player_last) these describe the mail taken:
#   P_USER P_UID P_FILE    whose, its IMAP UID, the raw message kept
#   P_SUBJECT              the subject, encoded words decoded
#   P_MSGID P_REFS         Message-ID (no brackets) and References
#   P_FROM P_REPLYTO       the From and Reply-To addresses
#   P_TEXT                 the first text/plain part, decoded
#   P_GAME P_TOKEN         from the subject tag [TAG #ID TOKEN] ("" if none)
#   P_LEGAL                array: the items of the "Your legal moves:" line
#   P_WAITED_MS            how long the wait took
# player_send sets P_SENT_ID, the Message-ID it gave its mail.

PLAYER_REFEREE=${PLAYER_REFEREE:-referee@${MAILENV_DOMAIN:-ludus.test}}
PLAYER_TAG=${PLAYER_TAG:-ludus}
PLAYER_POLL=${PLAYER_POLL:-0.2}
_p_own_dir=""
if [ -z "${PLAYER_DIR:-}" ]; then
	PLAYER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/players.XXXXXX") || return 1 2>/dev/null || exit 1
	_p_own_dir=$PLAYER_DIR
fi

_p_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

_p_pw() { printf '%s%s' "$1" "$MAILENV_PASSWORD_SUFFIX"; }

# curl to USER's mailbox over IMAPS: PATH after the host, more curl options.
_p_imap() { # USER PATH [CURL-ARGS...]
	local u=$1 path=$2
	shift 2
	curl -s --max-time 20 --cacert "$MAILENV_CA_FILE" \
	    --resolve "$MAILENV_TLS_NAME:$MAILENV_IMAPS_PORT:$MAILENV_HOST" \
	    -u "$u:$(_p_pw "$u")" \
	    "imaps://$MAILENV_TLS_NAME:$MAILENV_IMAPS_PORT/$path" "$@"
}

# The UIDs (ascending) of USER's INBOX that match an IMAP search key.
_p_search() { # USER KEY
	_p_imap "$1" INBOX -X "UID SEARCH $2" | tr -d '\r' |
	    sed -n 's/^\* SEARCH//p' | tr ' ' '\n' | sed '/^$/d' | sort -n
}

_p_address() { # HEADER-VALUE: the address in it (the part in <> if any)
	local v=$1
	if [[ $v =~ \<([^\>]*)\> ]]; then
		v=${BASH_REMATCH[1]}
	fi
	v=${v#"${v%%[![:space:]]*}"}
	printf '%s' "${v%%[[:space:]]*}"
}

# RFC 2047 encoded words (UTF-8 or ASCII; B and Q) of a header value.
_p_words() { # VALUE
	local s=$1 out="" pre w enc txt dec last=0
	local re='=\?([^?]+)\?([bBqQ])\?([^?]*)\?='
	while [[ $s =~ $re ]]; do
		w=${BASH_REMATCH[0]}
		enc=${BASH_REMATCH[2]}
		txt=${BASH_REMATCH[3]}
		pre=${s%%"$w"*}
		s=${s#*"$w"}
		# Blanks between two encoded words are not text.
		if [ $last = 1 ] && [ -z "${pre//[[:space:]]/}" ]; then
			pre=""
		fi
		case $enc in
		[bB]) dec=$(printf '%s' "$txt" | base64 -d 2>/dev/null) ;;
		*)
			txt=${txt//_/ }
			txt=${txt//\\/\\\\}
			txt=$(printf '%s' "$txt" | sed 's/=\([0-9A-Fa-f][0-9A-Fa-f]\)/\\x\1/g')
			dec=$(printf '%b' "$txt")
			;;
		esac
		out+=$pre$dec
		last=1
	done
	printf '%s' "$out$s"
}

# The header of a message file, CRs dropped and folded lines joined.
_p_header() { # FILE
	tr -d '\r' <"$1" | sed '/^$/q' | awk '
	    /^[ \t]/ { sub(/^[ \t]+/, " "); cur = cur $0; next }
	    { if (cur != "") print cur; cur = $0 }
	    END { if (cur != "") print cur }'
}

# One field of an unfolded header (on stdin), the first one.
_p_field() { # NAME
	awk -v n="$1" 'BEGIN { n = tolower(n) ":" }
	    tolower(substr($0, 1, length(n))) == n {
		v = substr($0, length(n) + 1); sub(/^[ \t]+/, "", v)
		sub(/[ \t]+$/, "", v); print v; exit }'
}

# A parameter of a Content-Type value.
_p_param() { # VALUE NAME
	local re="[; ][[:space:]]*$2=\"([^\"]*)\"" re2="[; ][[:space:]]*$2=([^; ]*)"
	shopt -s nocasematch
	if [[ $1 =~ $re ]] || [[ $1 =~ $re2 ]]; then
		shopt -u nocasematch
		printf '%s' "${BASH_REMATCH[1]}"
		return 0
	fi
	shopt -u nocasematch
	return 1
}

# The first text/plain part of a MIME entity (file), decoded, on stdout;
# 1 when there is none.
_p_text() { # FILE
	local hdr ct cte b f n i rc
	hdr=$(_p_header "$1")
	ct=$(_p_field Content-Type <<<"$hdr")
	cte=$(_p_field Content-Transfer-Encoding <<<"$hdr")
	ct=${ct:-text/plain}
	shopt -s nocasematch
	case $ct in
	multipart/*)
		shopt -u nocasematch
		b=$(_p_param "$ct" boundary) || return 1
		f=$(mktemp "$PLAYER_DIR/part.XXXXXX")
		# Each part to its own file, then the first that has text.
		n=$(tr -d '\r' <"$1" | sed '1,/^$/d' | awk -v b="--$b" -v f="$f" '
		    $0 == b || $0 == b "--" { if (n) close(f "." n); if ($0 == b "--") exit; n++; next }
		    n { print > (f "." n) }
		    END { print n + 0 }')
		rc=1
		for ((i = 1; i <= n; i++)); do
			if [ $rc = 1 ] && _p_text "$f.$i"; then
				rc=0
			fi
			rm -f "$f.$i"
		done
		rm -f "$f"
		return $rc
		;;
	text/plain*) ;;
	*)
		shopt -u nocasematch
		return 1
		;;
	esac
	case $cte in
	base64)
		shopt -u nocasematch
		tr -d '\r' <"$1" | sed '1,/^$/d' | base64 -di 2>/dev/null | tr -d '\r'
		;;
	quoted-printable)
		shopt -u nocasematch
		tr -d '\r' <"$1" | sed '1,/^$/d' | sed -e 's/\\/\\\\/g' \
		    -e ':a' -e '/=$/{N;s/=\n//;ba' -e '}' \
		    -e 's/=\([0-9A-Fa-f][0-9A-Fa-f]\)/\\x\1/g' |
		    while IFS= read -r line; do printf '%b\n' "$line"; done
		;;
	*)
		shopt -u nocasematch
		tr -d '\r' <"$1" | sed '1,/^$/d'
		;;
	esac
}

# Fill the P_* variables from a kept message.
_p_load() { # USER UID
	local hdr line
	P_USER=$1
	P_UID=$2
	P_FILE=$PLAYER_DIR/$1/taken/$2.eml
	[ -f "$P_FILE" ] || P_FILE=$PLAYER_DIR/$1/queue/$2.eml
	hdr=$(_p_header "$P_FILE")
	P_SUBJECT=$(_p_words "$(_p_field Subject <<<"$hdr")")
	P_MSGID=$(_p_field Message-ID <<<"$hdr" | tr -d '<> ')
	P_REFS=$(_p_field References <<<"$hdr")
	P_FROM=$(_p_address "$(_p_field From <<<"$hdr")")
	P_REPLYTO=$(_p_address "$(_p_field Reply-To <<<"$hdr")")
	P_TEXT=$(_p_text "$P_FILE")
	P_GAME="" P_TOKEN=""
	local re="\\[$PLAYER_TAG #([0-9]+)( ([A-Za-z0-9]+))?\\]"
	if [[ $P_SUBJECT =~ $re ]]; then
		P_GAME=${BASH_REMATCH[1]}
		P_TOKEN=${BASH_REMATCH[3]}
	fi
	P_LEGAL=()
	line=$(sed -n 's/^[[:space:]]*Your legal moves:[[:space:]]*//p' <<<"$P_TEXT" | head -n 1)
	if [ -n "$line" ]; then
		line=${line%.}
		local IFS=$'\n'
		# shellcheck disable=SC2207
		P_LEGAL=($(sed 's/, /\n/g' <<<"$line"))
	fi
}

# Fetch USER's unseen referee mail into the queue (marks it seen).
player_poll() { # USER
	local u=$1 uids uid list="" n=0 s
	mkdir -p "$PLAYER_DIR/$u/queue" "$PLAYER_DIR/$u/taken"
	uids=$(_p_search "$u" "UNSEEN FROM \"$PLAYER_REFEREE\"") || return 1
	for uid in $uids; do
		[ -e "$PLAYER_DIR/$u/queue/$uid.eml" ] ||
		    [ -e "$PLAYER_DIR/$u/taken/$uid.eml" ] && continue
		list+=${list:+,}$uid
		n=$((n + 1))
	done
	[ $n = 0 ] && return 0
	if [ $n = 1 ]; then
		_p_imap "$u" "INBOX;UID=$list" -o "$PLAYER_DIR/$u/queue/$list.part" || return 1
	else
		# One connection for them all (curl's URL globbing).
		_p_imap "$u" "INBOX;UID={$list}" -o "$PLAYER_DIR/$u/queue/#1.part" || return 1
	fi
	for uid in ${list//,/ }; do
		[ -s "$PLAYER_DIR/$u/queue/$uid.part" ] || { rm -f "$PLAYER_DIR/$u/queue/$uid.part"; continue; }
		mv "$PLAYER_DIR/$u/queue/$uid.part" "$PLAYER_DIR/$u/queue/$uid.eml"
		_p_words "$(_p_header "$PLAYER_DIR/$u/queue/$uid.eml" | _p_field Subject)" \
		    >"$PLAYER_DIR/$u/queue/$uid.subject"
	done
}

# Queued (fetched, not taken) mail of USER: "UID<TAB>SUBJECT" lines.
player_queue() { # USER
	local f uid
	for f in "$PLAYER_DIR/$1"/queue/*.eml; do
		[ -e "$f" ] || continue
		uid=${f##*/}
		uid=${uid%.eml}
		printf '%s\t%s\n' "$uid" "$(cat "${f%.eml}.subject")"
	done | sort -n
}

# Take USER's oldest queued mail whose subject matches PATTERN.
_p_take() { # USER PATTERN
	local uid subj
	while IFS=$'\t' read -r uid subj; do
		if [[ $subj =~ $2 ]]; then
			mv "$PLAYER_DIR/$1/queue/$uid.eml" "$PLAYER_DIR/$1/taken/"
			mv "$PLAYER_DIR/$1/queue/$uid.subject" "$PLAYER_DIR/$1/taken/"
			_p_load "$1" "$uid"
			return 0
		fi
	done < <(player_queue "$1")
	return 1
}

# Wait for the next referee mail to one of USERS whose subject matches
# PATTERN (a bash regular expression); 1 after SECONDS (default 30).
player_wait_any() { # "USERS" PATTERN [SECONDS]
	local users=$1 pat=$2 t0 end u
	t0=$(_p_ms)
	end=$((t0 + ${3:-30} * 1000))
	for u in $users; do
		mkdir -p "$PLAYER_DIR/$u/queue" "$PLAYER_DIR/$u/taken"
	done
	while :; do
		for u in $users; do
			if _p_take "$u" "$pat"; then
				P_WAITED_MS=$(($(_p_ms) - t0))
				return 0
			fi
		done
		if [ "$(_p_ms)" -ge $end ]; then
			echo "player: no mail to $users matching /$pat/ in ${3:-30} s" >&2
			return 1
		fi
		for u in $users; do
			player_poll "$u"
		done
		for u in $users; do
			if _p_take "$u" "$pat"; then
				P_WAITED_MS=$(($(_p_ms) - t0))
				return 0
			fi
		done
		sleep "$PLAYER_POLL"
	done
}

player_wait() { player_wait_any "$1" "$2" "${3:-30}"; } # USER PATTERN [SECONDS]

# Send a mail as USER: TEXT is the body (lines), SUBJECT defaults to its
# first line.  Options: -t TO (default the referee), -r IN-REPLY-TO,
# -R REFERENCES.
player_send() { # [-t TO] [-r ID] [-R REFS] USER TEXT [SUBJECT]
	local to=$PLAYER_REFEREE irt="" refs="" OPTIND=1 o
	while getopts t:r:R: o; do
		case $o in
		t) to=$OPTARG ;;
		r) irt=$OPTARG ;;
		R) refs=$OPTARG ;;
		*) return 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	local u=$1 text=$2 subj=${3:-${2%%$'\n'*}} from date f
	from=$u@$MAILENV_DOMAIN
	printf -v date '%(%a, %d %b %Y %H:%M:%S +0000)T' -1
	P_SENT_ID=p.$u.${EPOCHREALTIME/./}.$RANDOM@player.$MAILENV_DOMAIN
	mkdir -p "$PLAYER_DIR/$u/sent"
	f=$PLAYER_DIR/$u/sent/${P_SENT_ID%%@*}.eml
	{
		printf 'From: %s <%s>\r\n' "$u" "$from"
		printf 'To: %s\r\n' "$to"
		printf 'Subject: %s\r\n' "$subj"
		printf 'Message-ID: <%s>\r\n' "$P_SENT_ID"
		[ -n "$irt" ] && printf 'In-Reply-To: <%s>\r\n' "$irt"
		[ -n "$refs" ] && printf 'References: %s\r\n' "$refs"
		printf 'Date: %s\r\n' "$date"
		printf 'MIME-Version: 1.0\r\n'
		printf 'Content-Type: text/plain; charset=utf-8\r\n'
		printf 'Content-Transfer-Encoding: 8bit\r\n\r\n'
		printf '%s\n' "$text" | sed 's/$/\r/'
	} >"$f"
	curl -sS --max-time 30 --ssl-reqd --cacert "$MAILENV_CA_FILE" \
	    --resolve "$MAILENV_TLS_NAME:$MAILENV_SMTP_PORT:$MAILENV_HOST" \
	    --url "smtp://$MAILENV_TLS_NAME:$MAILENV_SMTP_PORT" \
	    --mail-from "$from" --mail-rcpt "$to" -T "$f"
}

# Reply as P_USER to the mail taken last, as a mail program does: to its
# Reply-To (else its From), "Re: " and its subject, in its thread.
# -t TO and -s SUBJECT override the address and the subject.
player_reply() { # [-t TO] [-s SUBJECT] TEXT
	local to=${P_REPLYTO:-$P_FROM} subj OPTIND=1 o refs
	case $P_SUBJECT in
	[Rr][Ee]:*) subj=$P_SUBJECT ;;
	*) subj="Re: $P_SUBJECT" ;;
	esac
	while getopts t:s: o; do
		case $o in
		t) to=$OPTARG ;;
		s) subj=$OPTARG ;;
		*) return 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	refs="${P_REFS:+$P_REFS }<$P_MSGID>"
	player_send -t "$to" -r "$P_MSGID" -R "$refs" "$P_USER" "$1" "$subj"
}

# Print the mail taken last: its subject and decoded text.
player_show() {
	printf 'Subject: %s\n\n%s\n' "$P_SUBJECT" "$P_TEXT"
}

# Fetch USER's referee mail (all of it, or of game ID) and load the latest
# into P_*, without the queue: for one-off commands.
player_last() { # USER [ID]
	local u=$1 uids uid
	mkdir -p "$PLAYER_DIR/$u/taken"
	uids=$(_p_search "$u" "FROM \"$PLAYER_REFEREE\"${2:+ SUBJECT \"#$2 \"}") || return 1
	uid=$(tail -n 1 <<<"$uids")
	[ -n "$uid" ] || { echo "player: no referee mail to $u${2:+ about game #$2}" >&2; return 1; }
	_p_imap "$u" "INBOX;UID=$uid" -o "$PLAYER_DIR/$u/taken/$uid.eml" || return 1
	_p_load "$u" "$uid"
}

_p_cli() {
	local cmd=${1:-} u=${2:-} id=""
	case $cmd in
	send)
		[ $# -ge 3 ] || { echo "usage: player.sh send USER TEXT [SUBJECT]" >&2; return 2; }
		player_send "$u" "$3" "${4:-}" && echo "sent to the referee as $u: $3"
		;;
	reply)
		[ $# -ge 3 ] || { echo "usage: player.sh reply USER [#ID] TEXT" >&2; return 2; }
		if [ $# -ge 4 ]; then
			id=${3#\#}
			shift
		fi
		player_last "$u" "$id" || return 1
		player_reply "$3" && echo "$u replied '$3' to: $P_SUBJECT"
		;;
	inbox)
		[ $# = 2 ] || { echo "usage: player.sh inbox USER" >&2; return 2; }
		local next
		next=$(_p_imap "$u" "" -X "STATUS INBOX (UIDNEXT)" |
		    sed -n 's/.*(UIDNEXT \([0-9]*\)).*/\1/p')
		[ -n "$next" ] || { echo "player: cannot read $u's mailbox" >&2; return 1; }
		[ "$next" -gt 1 ] || { echo "($u's mailbox is empty)"; return 0; }
		_p_imap "$u" "INBOX;UID=[1-$((next - 1))];SECTION=HEADER.FIELDS%20(SUBJECT%20DATE)" \
		    -w 'END %{url}\n' | tr -d '\r' | awk '
		    /^Subject:/ { s = substr($0, 10) }
		    /^Date:/ { d = substr($0, 7) }
		    /^END / { u = $2; sub(/.*UID=/, "", u); sub(/;.*/, "", u)
			if (s != "") printf "%5s  %s  %s\n", u, d, s; s = d = "" }'
		;;
	read)
		[ $# -ge 2 ] || { echo "usage: player.sh read USER [UID]" >&2; return 2; }
		if [ -n "${3:-}" ]; then
			mkdir -p "$PLAYER_DIR/$u/taken"
			_p_imap "$u" "INBOX;UID=$3" -o "$PLAYER_DIR/$u/taken/$3.eml" &&
			    [ -s "$PLAYER_DIR/$u/taken/$3.eml" ] ||
			    { echo "player: no mail $3 for $u" >&2; return 1; }
			_p_load "$u" "$3"
		else
			player_last "$u" || return 1
		fi
		player_show
		;;
	*)
		echo "usage: player.sh send|reply|inbox|read USER ..." >&2
		return 2
		;;
	esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	: "${MAILENV_DOMAIN:?the environment of mailenv start is needed}"
	[ -z "$_p_own_dir" ] || trap 'rm -rf "$_p_own_dir"' EXIT
	_p_cli "$@"
	exit
fi
