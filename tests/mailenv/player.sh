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
#   bash player.sh demo USER1 USER2 GAME [OPT=VAL...]
#                                             USER1 proposes the game to
#                                             USER2, both accept and play
#                                             it to the end, each mail
#                                             printed (PLAYER_SEED picks
#                                             the moves)
#
# Needs the environment `mailenv start` prints (MAILENV_*), curl and
# base64.  Optional settings:
#   PLAYER_DIR       where fetched mail is kept (default: a fresh temp dir)
#   PLAYER_REFEREE   the referee's address (referee@$MAILENV_DOMAIN)
#   PLAYER_TAG       the word of the subject tag (ludus)
#   PLAYER_POLL      seconds between two looks at unwatched mailboxes (0.1)
#   PLAYER_SEED      seeds the choice of moves of player_play (1)
#   PLAYER_TRACE     1: what the players do, with times, on stderr
#
# Functions: player_send, player_reply, player_wait, player_wait_any,
# player_play, player_watch/player_unwatch, player_poll, player_sync,
# player_queue, player_show, player_last (each described where defined).
#
# Sending: SMTP with STARTTLS (the certificate verified against the
# sandbox's own CA, as the sandbox's name), like contrib/bootstrap.
# Reading, by IMAP with the user's password: curl over IMAPS, or the IDLE
# watchers of player_watch.  A mail is fetched whole, which marks it seen
# on the server, and kept in PLAYER_DIR/USER/queue/N.eml (N its number in
# the mailbox; mail not from the referee goes to other/) until a
# player_wait takes it (it then moves to taken/).  So "the next unseen
# referee mail" is the oldest fetched and not yet taken one.
#
# After player_wait (and player_last) these describe the mail taken:
#   P_USER P_NUM P_FILE    whose, its number in the mailbox, the raw message
#   P_SUBJECT              the subject, encoded words decoded
#   P_MSGID P_REFS         Message-ID (no brackets) and References
#   P_FROM P_REPLYTO       the From and Reply-To addresses
#   P_TEXT                 the first text/plain part, decoded
#   P_GAME P_TOKEN         from the subject tag [TAG #ID TOKEN] ("" if none)
#   P_LEGAL                array: the items of the "Your legal moves:" line
#   P_WAITED_MS            how long the wait took
# player_send sets P_SENT_ID, the Message-ID it gave its mail: made of the
# time and a random number, or with PLAYER_IDS=WORD set the same in every
# run (p.USER.N.WORD@, N counting the user's mails).

PLAYER_REFEREE=${PLAYER_REFEREE:-referee@${MAILENV_DOMAIN:-ludus.test}}
PLAYER_TAG=${PLAYER_TAG:-ludus}
PLAYER_POLL=${PLAYER_POLL:-0.1}
_p_own_dir=""
if [ -z "${PLAYER_DIR:-}" ]; then
	PLAYER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/players.XXXXXX") || return 1 2>/dev/null || exit 1
	_p_own_dir=$PLAYER_DIR
fi

# Few processes: a move is answered within a second or so, and a process
# started costs tens of milliseconds on a loaded machine.  Headers and
# bodies are taken apart in bash; curl and base64 are the only programs
# run per mail.

_p_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# PLAYER_TRACE=1: what the players do, with times (ms), on stderr.
_p_trace() { [ -z "${PLAYER_TRACE:-}" ] || echo "player: ${EPOCHREALTIME} $*" >&2; }

# curl to USER's mailbox over IMAPS: PATH after the host, more curl options.
_p_imap() { # USER PATH [CURL-ARGS...]
	local u=$1 path=$2
	shift 2
	curl -s --max-time 20 --cacert "$MAILENV_CA_FILE" \
	    --resolve "$MAILENV_TLS_NAME:$MAILENV_IMAPS_PORT:$MAILENV_HOST" \
	    -u "$u:$u$MAILENV_PASSWORD_SUFFIX" \
	    "imaps://$MAILENV_TLS_NAME:$MAILENV_IMAPS_PORT/$path" "$@"
}

# _UIDS= the UIDs of USER's INBOX that match an IMAP search key, as the
# server lists them (ascending); 1 when the server could not be asked.
_p_search() { # USER KEY
	local out line
	_UIDS=()
	out=$(_p_imap "$1" INBOX -X "UID SEARCH $2") || return 1
	while IFS= read -r line; do
		line=${line%$'\r'}
		if [[ $line == "* SEARCH"* ]]; then
			read -ra _UIDS <<<"${line#\* SEARCH}"
			return 0
		fi
	done <<<"$out"
	return 1
}

_p_address() { # HEADER-VALUE: _ADDR= the address in it (in <> if any)
	local v=$1
	if [[ $v =~ \<([^\>]*)\> ]]; then
		v=${BASH_REMATCH[1]}
	fi
	v=${v#"${v%%[![:space:]]*}"}
	_ADDR=${v%%[[:space:]]*}
}

# _W= a header value with its RFC 2047 encoded words (UTF-8 or ASCII; B
# and Q) decoded.
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
			while [[ $txt =~ =([0-9A-Fa-f]{2}) ]]; do
				txt=${txt//"${BASH_REMATCH[0]}"/\\x${BASH_REMATCH[1]}}
			done
			printf -v dec '%b' "$txt"
			;;
		esac
		out+=$pre$dec
		last=1
	done
	_W=$out$s
}

# Read a MIME entity (a file): _H= its header fields (lower-case names,
# folded lines joined, the first of each name), _L= its lines without CRs,
# _BODY= the index in _L of the first body line.
declare -gA _H=()
_p_entity() { # FILE
	local i n line cur="" name v
	mapfile -t _L <"$1"
	_L=("${_L[@]%$'\r'}")
	_H=()
	n=${#_L[@]}
	for ((i = 0; i <= n; i++)); do
		line=${_L[i]:-}
		if [[ $i -lt $n && $line == [$' \t']* ]]; then
			cur+=" ${line#"${line%%[![:space:]]*}"}"
			continue
		fi
		if [[ $cur == *:* ]]; then
			name=${cur%%:*}
			name=${name,,}
			v=${cur#*:}
			v=${v#"${v%%[![:space:]]*}"}
			v=${v%"${v##*[![:space:]]}"}
			[[ -v _H[$name] ]] || _H[$name]=$v
		fi
		[[ $i -lt $n && -n $line ]] || break
		cur=$line
	done
	_BODY=$((i + 1))
}

# A parameter of a Content-Type value.
_p_param() { # VALUE NAME
	local re="[; ][[:space:]]*$2=\"([^\"]*)\"" re2="[; ][[:space:]]*$2=([^; ]*)"
	shopt -s nocasematch
	if [[ $1 =~ $re ]] || [[ $1 =~ $re2 ]]; then
		shopt -u nocasematch
		_PARAM=${BASH_REMATCH[1]}
		return 0
	fi
	shopt -u nocasematch
	return 1
}

# _TEXT= the first text/plain part of a MIME entity (a file), decoded;
# 1 when there is none.
_p_text() { # FILE
	local ct cte b i n=0 rc=1 part="" in=0 line
	local -a parts=()
	_p_entity "$1"
	ct=${_H[content-type]:-text/plain}
	cte=${_H[content-transfer-encoding]:-7bit}
	ct=${ct,,}
	cte=${cte,,}
	case $ct in
	multipart/*)
		_p_param "$ct" boundary || return 1
		b=$_PARAM
		# Each part to a file of its own, then the first with text.
		for ((i = _BODY; i < ${#_L[@]}; i++)); do
			line=${_L[i]}
			if [[ $line == "--$b" || $line == "--$b--" ]]; then
				if [ $in = 1 ]; then
					n=$((n + 1))
					printf '%s' "$part" >"$PLAYER_DIR/part.$n"
					parts+=("$PLAYER_DIR/part.$n")
				fi
				[[ $line == "--$b--" ]] && break
				in=1 part=""
				continue
			fi
			[ $in = 1 ] && part+=$line$'\n'
		done
		for part in "${parts[@]}"; do
			if [ $rc = 1 ] && _p_text "$part"; then
				rc=0
			fi
			rm -f "$part"
		done
		return $rc
		;;
	text/plain*) ;;
	*) return 1 ;;
	esac
	case $cte in
	base64)
		_TEXT=$(printf '%s\n' "${_L[@]:_BODY}" | base64 -di 2>/dev/null)
		;;
	quoted-printable)
		_TEXT=""
		for line in "${_L[@]:_BODY}"; do
			line=${line//\\/\\\\}
			while [[ $line =~ =([0-9A-Fa-f]{2}) ]]; do
				line=${line//"${BASH_REMATCH[0]}"/\\x${BASH_REMATCH[1]}}
			done
			if [[ $line == *= ]]; then
				_TEXT+=${line%=}
			else
				_TEXT+=$line$'\n'
			fi
		done
		printf -v _TEXT '%b' "$_TEXT"
		;;
	*)
		printf -v _TEXT '%s\n' "${_L[@]:_BODY}"
		;;
	esac
	_TEXT=${_TEXT//$'\r'/}
	_TEXT=${_TEXT%$'\n'}
	return 0
}

# Fill the P_* variables from a kept message.
_p_load() { # USER NUMBER
	local line
	P_USER=$1
	P_NUM=$2
	P_FILE=$PLAYER_DIR/$1/taken/$2.eml
	[ -f "$P_FILE" ] || P_FILE=$PLAYER_DIR/$1/queue/$2.eml
	_TEXT=""
	_p_text "$P_FILE" || _TEXT=""
	P_TEXT=$_TEXT
	# The top-level header again (a multipart body read its parts').
	_p_entity "$P_FILE"
	_p_words "${_H[subject]:-}"
	P_SUBJECT=$_W
	P_MSGID=${_H[message-id]:-}
	P_MSGID=${P_MSGID//[<> ]/}
	P_REFS=${_H[references]:-}
	_p_address "${_H[from]:-}"
	P_FROM=$_ADDR
	_p_address "${_H[reply-to]:-}"
	P_REPLYTO=$_ADDR
	P_GAME="" P_TOKEN=""
	local re="\\[$PLAYER_TAG #([0-9]+)( ([A-Za-z0-9]+))?\\]"
	if [[ $P_SUBJECT =~ $re ]]; then
		P_GAME=${BASH_REMATCH[1]}
		P_TOKEN=${BASH_REMATCH[3]}
	fi
	P_LEGAL=()
	while IFS= read -r line; do
		line=${line#"${line%%[![:space:]]*}"}
		[[ $line == "Your legal moves:"* ]] || continue
		line=${line#Your legal moves:}
		line=${line#"${line%%[![:space:]]*}"}
		line=${line%.}
		while [[ $line == *", "* ]]; do
			P_LEGAL+=("${line%%, *}")
			line=${line#*, }
		done
		[ -n "$line" ] && P_LEGAL+=("$line")
		break
	done <<<"$P_TEXT"
}

# curl options for USER's mailbox: the rest of a curl command line.
_p_curlargs() { # USER PATH OUTPUT [CURL-ARGS...]
	local u=$1 path=$2 out=$3
	shift 3
	_ARGS+=(--next -s --max-time 20 --cacert "$MAILENV_CA_FILE"
	    --resolve "$MAILENV_TLS_NAME:$MAILENV_IMAPS_PORT:$MAILENV_HOST"
	    -u "$u:$u$MAILENV_PASSWORD_SUFFIX" -o "$out" "$@"
	    "imaps://$MAILENV_TLS_NAME:$MAILENV_IMAPS_PORT/$path")
}

# One curl for several mailboxes at once, in parallel.
_p_curl_all() {
	[ ${#_ARGS[@]} -gt 0 ] || return 0
	curl --parallel --parallel-immediate "${_ARGS[@]:1}" 2>/dev/null
}

# Fetch each USER's new referee mail into their queue (marking it seen on
# the server).  Messages are known by their number in the mailbox, which
# stays as it is since nothing is ever deleted from a player's INBOX.  A
# watched mailbox has said how many messages it holds; the others are
# asked (one curl for all) which are unseen.  One more curl fetches what is
# new, from all the mailboxes at once.
declare -gA _P_HAVE=() _P_EXISTS=()
player_poll() { # USER...
	local u num line n q list f search=$PLAYER_DIR/search
	local -a nums more
	local -A new=()
	_ARGS=()
	for u in "$@"; do
		mkdir -p "$PLAYER_DIR/$u/queue" "$PLAYER_DIR/$u/taken" "$PLAYER_DIR/$u/other"
		[ -n "${_P_WATCHED[$u]:-}" ] && [ -n "${_P_EXISTS[$u]:-}" ] &&
		    [ -z "${_P_FULL:-}" ] && continue
		rm -f "$search.$u"
		_p_curlargs "$u" INBOX "$search.$u" \
		    -X "SEARCH UNSEEN FROM \"$PLAYER_REFEREE\""
	done
	_p_curl_all
	_ARGS=()
	for u in "$@"; do
		q=$PLAYER_DIR/$u/queue
		nums=()
		if [ -n "${_P_WATCHED[$u]:-}" ] && [ -n "${_P_EXISTS[$u]:-}" ]; then
			for ((num = ${_P_HAVE[$u]:-0} + 1; num <= _P_EXISTS[$u]; num++)); do
				nums+=("$num")
			done
		fi
		if [ -f "$search.$u" ]; then
			while IFS= read -r line; do
				line=${line%$'\r'}
				[[ $line == "* SEARCH"* ]] || continue
				read -ra more <<<"${line#\* SEARCH}"
				nums+=("${more[@]}")
				break
			done <"$search.$u"
		fi
		# The 2 s look (_P_FULL): also what a watcher fetched without
		# saying so yet; each number once, in order.
		if [ -n "${_P_FULL:-}" ]; then
			for f in "$PLAYER_DIR/$u/fetched"/*.eml; do
				[ -e "$f" ] || continue
				f=${f##*/}
				nums+=("${f%.eml}")
			done
		fi
		[ ${#nums[@]} = 0 ] ||
		    mapfile -t nums < <(printf '%s\n' "${nums[@]}" | sort -nu)
		list="" n=0
		for num in "${nums[@]}"; do
			[ -e "$q/$num.eml" ] || [ -e "$PLAYER_DIR/$u/taken/$num.eml" ] ||
			    [ -e "$PLAYER_DIR/$u/other/$num.eml" ] && continue
			new[$u]+=${new[$u]:+,}$num
			# What the watcher fetched already.
			if [ -f "$PLAYER_DIR/$u/fetched/$num.eml" ]; then
				mv "$PLAYER_DIR/$u/fetched/$num.eml" "$q/$num.part"
				continue
			fi
			list+=${list:+,}$num
			n=$((n + 1))
		done
		[ $n = 0 ] && continue
		if [ $n = 1 ]; then
			_p_curlargs "$u" "INBOX;MAILINDEX=$list" "$q/$list.part"
		else
			# One connection for them all (curl's URL globbing).
			_p_curlargs "$u" "INBOX;MAILINDEX={$list}" "$q/#1.part"
		fi
	done
	_p_curl_all
	for u in "${!new[@]}"; do
		q=$PLAYER_DIR/$u/queue
		for num in ${new[$u]//,/ }; do
			[ -s "$q/$num.part" ] || { rm -f "$q/$num.part"; break; }
			_P_HAVE[$u]=$num
			_p_entity "$q/$num.part"
			if [[ ${_H[from]:-} != *"$PLAYER_REFEREE"* ]]; then
				mv "$q/$num.part" "$PLAYER_DIR/$u/other/$num.eml"
				continue
			fi
			mv "$q/$num.part" "$q/$num.eml"
			_p_words "${_H[subject]:-}"
			printf '%s\n' "$_W" >"$q/$num.subject"
		done
	done
}

# _Q= USER's queued (fetched, not taken) mail: subjects indexed by number,
# so that "${!_Q[@]}" lists them oldest first.
_p_queue() { # USER
	local f uid
	_Q=()
	for f in "$PLAYER_DIR/$1"/queue/*.subject; do
		[ -e "$f" ] || continue
		uid=${f##*/}
		uid=${uid%.subject}
		IFS= read -r "_Q[$uid]" <"$f"
	done
}

# Queued mail of USER: "N<TAB>SUBJECT" lines, oldest first.
player_queue() { # USER
	local uid
	_p_queue "$1"
	for uid in "${!_Q[@]}"; do
		printf '%s\t%s\n' "$uid" "${_Q[uid]}"
	done
}

# Take USER's oldest queued mail whose subject matches PATTERN.
_p_take() { # USER PATTERN
	local uid
	_p_queue "$1"
	for uid in "${!_Q[@]}"; do
		if [[ ${_Q[uid]} =~ $2 ]]; then
			mv "$PLAYER_DIR/$1/queue/$uid.eml" "$PLAYER_DIR/$1/queue/$uid.subject" \
			    "$PLAYER_DIR/$1/taken/"
			_p_load "$1" "$uid"
			_p_trace "$1 took: $P_SUBJECT"
			return 0
		fi
	done
	return 1
}

# Told rather than polling: player_watch USER... keeps, for each USER, a
# connection to the mailbox in IMAP IDLE, made by a bash process of its own
# (plain IMAP on the loopback, which the sandbox allows).  When the server
# announces new mail the watcher leaves IDLE, fetches it (FETCH BODY[],
# marking it seen) into PLAYER_DIR/USER/fetched/, goes back to IDLE and
# writes "USER COUNT" into a FIFO.  player_wait sleeps on that FIFO instead
# of asking every mailbox again and again with a new login each time, which
# on a small machine would slow the very daemon it waits for.  Without
# watchers (or every 2 s with them) it polls with curl over IMAPS, and
# curl fetches anything a watcher has not.  player_unwatch ends them.
_P_WATCH_PIDS=()
_P_NOTIFY_FD=""
declare -gA _P_WATCHED=() _P_DIRTY=()

_p_watch() { # USER: the watcher's loop, in a background subshell
	local u=$1 line state=login exists=0 have=0 told=0 tag=0 k size body
	local dir=$PLAYER_DIR/$1/fetched re='^\* ([0-9]+) FETCH .*BODY\[\] \{([0-9]+)\}$'
	# Literal sizes are in bytes.
	export LC_ALL=C
	mkdir -p "$dir"
	exec 3<>"/dev/tcp/$MAILENV_HOST/$MAILENV_IMAP_PORT" || { echo "!$u" >&"$_P_NOTIFY_FD"; exit 1; }
	while IFS= read -r line <&3; do
		line=${line%$'\r'}
		case $state/$line in
		*/"* "[0-9]*" EXISTS")
			exists=${line#\* }
			exists=${exists%% *}
			_p_trace "$u told: $line"
			# In IDLE: leave it to fetch what came.
			if [ $state = idling ] && [ "$exists" -gt $have ]; then
				printf 'DONE\r\n' >&3
				state=done
			fi
			;;
		login/"* OK"*)
			printf 'w1 LOGIN %s %s\r\n' "$u" "$u$MAILENV_PASSWORD_SUFFIX" >&3
			state=select
			;;
		select/"w1 OK"*)
			printf 'w2 SELECT INBOX\r\n' >&3
			state=selected
			;;
		selected/"w2 OK"* | done/"w$tag OK"* | fetch/"w$tag OK"*)
			if [ $state = fetch ] || [ $told = 1 ]; then
				echo "$u $have" >&"$_P_NOTIFY_FD"
			fi
			tag=$((tag + 1))
			if [ "$exists" -gt $have ]; then
				printf 'w%d FETCH %d:%d BODY[]\r\n' $tag $((have + 1)) "$exists" >&3
				state=fetch
			else
				printf 'w%d IDLE\r\n' $tag >&3
				state=start
			fi
			;;
		fetch/"* "*)
			[[ $line =~ $re ]] || continue
			k=${BASH_REMATCH[1]}
			size=${BASH_REMATCH[2]}
			IFS= read -r -N "$size" body <&3 || break
			printf '%s' "$body" >"$dir/$k.tmp"
			mv "$dir/$k.tmp" "$dir/$k.eml"
			[ "$k" -le $have ] || have=$k
			;;
		start/"+"*)
			[ $told = 1 ] || echo "+$u $have" >&"$_P_NOTIFY_FD"
			told=1
			state=idling
			if [ "$exists" -gt $have ]; then
				printf 'DONE\r\n' >&3
				state=done
			fi
			;;
		*/"w"[0-9]*" "NO* | */"w"[0-9]*" "BAD* | */"* BYE"*)
			break
			;;
		esac
	done
	echo "!$u" >&"$_P_NOTIFY_FD"
}

# Start watching USERS' mailboxes; 1 when one could not be watched.  Every
# message already in a watched mailbox counts as new (start on fresh ones).
player_watch() { # USER...
	local u n=0 line end
	if [ -z "$_P_NOTIFY_FD" ]; then
		rm -f "$PLAYER_DIR/notify"
		mkfifo "$PLAYER_DIR/notify" || return 1
		exec {_P_NOTIFY_FD}<>"$PLAYER_DIR/notify"
	fi
	for u in "$@"; do
		_p_watch "$u" &
		_P_WATCH_PIDS+=($!)
	done
	end=$(($(_p_ms) + 15000))
	while [ $n -lt $# ] && [ "$(_p_ms)" -lt $end ]; do
		IFS= read -r -t 1 -u "$_P_NOTIFY_FD" line || continue
		case $line in
		+*)
			u=${line#+}
			_P_WATCHED[${u%% *}]=1
			_p_told "$line"
			n=$((n + 1))
			;;
		!*) echo "player: cannot watch ${line#!}'s mailbox" >&2; return 1 ;;
		*) _p_told "$line" ;;
		esac
	done
	[ $n = $# ] || { echo "player: the mailboxes are not all watched" >&2; return 1; }
}

player_unwatch() {
	local p
	for p in "${_P_WATCH_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	_P_WATCH_PIDS=()
	_P_WATCHED=()
}

# A watcher's line: USER has new mail, or (!USER) its watcher is gone and
# polling takes over.
_p_told() { # LINE
	local u=${1#[+!]}
	u=${u%% *}
	case $1 in
	!*)
		unset "_P_WATCHED[$u]"
		echo "player: $u's mailbox is no longer watched" >&2
		;;
	*" "*)
		_P_EXISTS[$u]=${1##* }
		;;
	esac
	_P_DIRTY[$u]=1
}

# Bring USERS' queues up to date: what the watchers said so far, then a
# look into every mailbox.
player_sync() { # USER...
	local line u
	if [ -n "$_P_NOTIFY_FD" ]; then
		while IFS= read -r -t 0.2 -u "$_P_NOTIFY_FD" line; do
			_p_told "$line"
		done
	fi
	for u in "$@"; do
		unset "_P_DIRTY[$u]"
	done
	player_poll "$@"
}

# Wait for the next referee mail to one of USERS whose subject matches
# PATTERN (a bash regular expression); 1 after SECONDS (default 30).
player_wait_any() { # "USERS" PATTERN [SECONDS]
	local users=$1 pat=$2 t0 end u line watched=1 due
	t0=$(_p_ms)
	end=$((t0 + ${3:-30} * 1000))
	for u in $users; do
		mkdir -p "$PLAYER_DIR/$u/queue" "$PLAYER_DIR/$u/taken"
	done
	while :; do
		for u in $users; do
			[ -n "${_P_WATCHED[$u]:-}" ] || watched=0
		done
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
		if [ $watched = 1 ]; then
			# Sleep until a watcher speaks (2 s at most), then look
			# into the mailboxes it named.
			due=""
			for u in $users; do
				[ -n "${_P_DIRTY[$u]:-}" ] && due+=" $u"
			done
			if [ -z "$due" ]; then
				if IFS= read -r -t 2 -u "$_P_NOTIFY_FD" line; then
					_p_told "$line"
					# The referee's mails of one move
					# arrive together: one look for all.
					while IFS= read -r -t 0.1 -u "$_P_NOTIFY_FD" line; do
						_p_told "$line"
					done
				else
					# Nothing said for 2 s: look into the
					# mailboxes themselves too.
					for u in $users; do
						_P_DIRTY[$u]=1
					done
					_P_FULL=1
				fi
				continue
			fi
			for u in $due; do
				unset "_P_DIRTY[$u]"
			done
			_p_trace "poll$due${_P_FULL:+ (all)}"
			# shellcheck disable=SC2086
			player_poll $due
			_P_FULL=""
			_p_trace "polled"
		else
			# shellcheck disable=SC2086
			player_poll $users
			for u in $users; do
				if _p_take "$u" "$pat"; then
					P_WAITED_MS=$(($(_p_ms) - t0))
					return 0
				fi
			done
			sleep "$PLAYER_POLL"
		fi
	done
}

player_wait() { player_wait_any "$1" "$2" "${3:-30}"; } # USER PATTERN [SECONDS]

# Play game ID among USERS: whoever gets a mail of the game saying "your
# move" answers it with one of the legal moves it lists, chosen by a
# linear congruential generator seeded with PLAYER_SEED (bash's RANDOM is
# drawn on elsewhere), until a mail saying the game "is over"
# (PLAY_ENDED=1) or, after MAX moves, the next "your move" mail
# (PLAY_ENDED=0); either is left in P_*.  HOOK USER MOVE runs before each
# move is sent; a hook failing stops the play.  Sets PLAY_PLIES, PLAY_LAT_SUM
# and PLAY_LAT_MAX (ms from a move sent to the next mail taken); on
# failure (1) PLAY_ERROR says why.  An error reply ("Not done") stops it.
PLAYER_SEED=${PLAYER_SEED:-1}
player_play() { # ID "USERS" MAX [HOOK]
	local id=$1 users=$2 max=$3 hook=${4:-:} mv n
	PLAY_PLIES=0 PLAY_LAT_SUM=0 PLAY_LAT_MAX=0 PLAY_ENDED=0 PLAY_ERROR=""
	while :; do
		if ! player_wait_any "$users" "#$id [A-Za-z0-9]+\\] .*([Yy]our move|is over)|Not done" 60; then
			PLAY_ERROR="game $id stalled after $PLAY_PLIES moves"
			return 1
		fi
		if [ $PLAY_PLIES -gt 0 ]; then
			PLAY_LAT_SUM=$((PLAY_LAT_SUM + P_WAITED_MS))
			[ "$P_WAITED_MS" -le $PLAY_LAT_MAX ] || PLAY_LAT_MAX=$P_WAITED_MS
		fi
		case $P_SUBJECT in
		*"Not done"*)
			PLAY_ERROR="game $id: error reply to $P_USER after $PLAY_PLIES moves: $P_TEXT"
			return 1
			;;
		*"is over"*)
			PLAY_ENDED=1
			return 0
			;;
		esac
		if [ "$P_GAME" != "$id" ] || [ -z "$P_TOKEN" ]; then
			PLAY_ERROR="game $id: the tag of '$P_SUBJECT'"
			return 1
		fi
		n=${#P_LEGAL[@]}
		if [ "$n" = 0 ]; then
			PLAY_ERROR="game $id: '$P_SUBJECT' to $P_USER lists no legal moves: $P_TEXT"
			return 1
		fi
		[ $PLAY_PLIES -lt "$max" ] || return 0
		PLAYER_SEED=$(((PLAYER_SEED * 1103515245 + 12345) % 2147483648))
		mv=${P_LEGAL[(PLAYER_SEED >> 16) % n]}
		$hook "$P_USER" "$mv" || { PLAY_ERROR=${PLAY_ERROR:-"game $id: stopped by $hook"}; return 1; }
		if ! player_reply "$mv"; then
			PLAY_ERROR="game $id: $P_USER could not send $mv"
			return 1
		fi
		PLAY_PLIES=$((PLAY_PLIES + 1))
	done
}

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
	mkdir -p "$PLAYER_DIR/$u/sent"
	if [ -n "${PLAYER_IDS:-}" ]; then
		# The same Message-IDs every run (the referee's test seeds
		# derive from them): numbered by the mails already sent, which
		# a subshell's counter would forget.
		f=("$PLAYER_DIR/$u/sent"/*.eml)
		[ -e "${f[0]}" ] || f=()
		P_SENT_ID=p.$u.$((${#f[@]} + 1)).$PLAYER_IDS@player.$MAILENV_DOMAIN
	else
		P_SENT_ID=p.$u.${EPOCHREALTIME/./}.$RANDOM@player.$MAILENV_DOMAIN
	fi
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
	_p_trace "$P_USER replies: $1"
	player_send -t "$to" -r "$P_MSGID" -R "$refs" "$P_USER" "$1" "$subj" || return 1
	_p_trace "sent"
}

# Print the mail taken last: its subject and decoded text.
player_show() {
	printf 'Subject: %s\n\n%s\n' "$P_SUBJECT" "$P_TEXT"
}

# Fetch USER's referee mail (all of it, or of game ID) and load the latest
# into P_*, without the queue: for one-off commands.
player_last() { # USER [ID]
	local u=$1 uid
	mkdir -p "$PLAYER_DIR/$u/taken"
	_p_search "$u" "FROM \"$PLAYER_REFEREE\"${2:+ SUBJECT \"#$2 \"}" || return 1
	uid=${_UIDS[-1]:-}
	[ -n "$uid" ] || { echo "player: no referee mail to $u${2:+ about game #$2}" >&2; return 1; }
	_p_imap "$u" "INBOX;UID=$uid" -o "$PLAYER_DIR/$u/taken/$uid.eml" || return 1
	_p_load "$u" "$uid"
}

# The demo of contrib/bootstrap: USER1 proposes GAME (with its options) to
# USER2, both accept, and they play it to the end by mail; every mail that
# asks for a move, and the last one, is printed as it arrives.
_p_show_move() { # USER MOVE
	printf '\n==> to %s: %s\n\n%s\n\n==> %s replies: %s\n' "$1" "$P_SUBJECT" \
	    "$P_TEXT" "$1" "$2"
}
player_demo() { # USER1 USER2 GAME [OPT=VAL...]
	local a=$1 b=$2 u g="" t0
	shift 2
	t0=$(_p_ms)
	player_send "$a" "new $* $b@$MAILENV_DOMAIN" || return 1
	echo "==> $a to the referee: new $* $b@$MAILENV_DOMAIN"
	for u in "$a" "$b"; do
		player_wait "$u" "Invitation to" 30 || return 1
		g=${g:-$P_GAME}
		echo "==> to $u: $P_SUBJECT"
		player_reply accept || return 1
		echo "==> $u replies: accept"
	done
	for u in "$a" "$b"; do
		player_wait "$u" "#$g .*begins" 30 || return 1
		# The one saying "your move" is answered by player_play.
		[[ ${P_SUBJECT,,} == *"your move"* ]] &&
		    mv "$P_FILE" "$PLAYER_DIR/$u/taken/$P_NUM.subject" "$PLAYER_DIR/$u/queue/"
	done
	if ! player_play "$g" "$a $b" 500 _p_show_move; then
		echo "player: $PLAY_ERROR" >&2
		return 1
	fi
	printf '\n==> to %s: %s\n\n%s\n\n' "$P_USER" "$P_SUBJECT" "$P_TEXT"
	echo "==> game #$g: $PLAY_PLIES moves by mail in $((($(_p_ms) - t0) / 1000)) s"
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
		    /^[ \t]/ { if (f == "s") s = s $0; next }
		    /^Subject:/ { s = substr($0, 10); f = "s"; next }
		    /^Date:/ { d = substr($0, 7) }
		    { f = "" }
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
	demo)
		[ $# -ge 4 ] || { echo "usage: player.sh demo USER1 USER2 GAME [OPT=VAL...]" >&2; return 2; }
		shift
		player_watch "$1" "$2" || return 1
		player_demo "$@"
		;;
	*)
		echo "usage: player.sh send|reply|inbox|read|demo USER ..." >&2
		return 2
		;;
	esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	: "${MAILENV_DOMAIN:?the environment of mailenv start is needed}"
	trap 'player_unwatch; [ -z "$_p_own_dir" ] || rm -rf "$_p_own_dir"' EXIT
	_p_cli "$@"
	exit
fi
