# Shared by tests/golden.sh and tests/mail/referee/mkcase.sh: one referee
# in a temporary directory with a fixed secret, mails delivered at fixed
# times with fixed game seeds, and what it wrote read back.  Needs
# LUDUS_BIN, LUDUS_GAMES_DIR and LUDUS_SRCDIR; LUDUS_WRAP (e.g. "valgrind
# ...") wraps every call of ludus.

# 2027-01-01 00:00:00 UTC: mail NN of a case arrives GOLDEN_BASE + 60 * NN.
GOLDEN_BASE=1798761600
# The server secret of every case, so the reply tokens never change.
GOLDEN_SECRET=5eed5eed5eed5eed0123456789abcdef0123456789abcdef5eed5eed5eed5eed
# $LUDUS_SEED for every call: new games deal the same cards each run.
GOLDEN_SEED=1
# Time added by `sleep` lines of the case's NN-*.cmd steps so far.
GOLDEN_OFFSET=0

# golden_ludus DIR ARGS...: ludus on the referee in DIR.
golden_ludus() {
	_gd=$1
	shift
	${LUDUS_WRAP:-} "$LUDUS_BIN" -c "$_gd/ludus.yaml" "$@"
}

# golden_test_build: 0 when ludus honours $LUDUS_NOW and $LUDUS_SEED.
golden_test_build() {
	"$LUDUS_BIN" --version 2>/dev/null | grep -q '^test build:'
}

# golden_init DIR [CASEDIR]: a fresh referee in the empty directory DIR;
# the lines of CASEDIR/referee.yaml, when there is one, are added to the
# referee: section of its configuration (`plus_addressing: true`), those
# of CASEDIR/config.yaml at its top level (`auth:` and its keys).
golden_init() {
	_gd=$1
	_gx=
	_gt=
	if [ -n "${2:-}" ] && [ -f "$2/referee.yaml" ]; then
		_gx=$(sed 's/^/  /' "$2/referee.yaml")
	fi
	if [ -n "${2:-}" ] && [ -f "$2/config.yaml" ]; then
		_gt=$(cat "$2/config.yaml")
	fi
	printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' >"$_gd/sendmail"
	chmod +x "$_gd/sendmail"
	cat >"$_gd/ludus.yaml" <<EOF
referee:
  address: referee@example.org
  name: Ludus Referee
  admins: [admin@example.org]
${_gx}
state_dir: $_gd
database: $_gd/ludus.db
games_dir: $LUDUS_GAMES_DIR
templates_dir: $LUDUS_SRCDIR/templates
out:
  sendmail:
    path: $_gd/sendmail
${_gt}
EOF
	(umask 077 && echo "$GOLDEN_SECRET" >"$_gd/secret")
	GOLDEN_OFFSET=0
	: >"$_gd/tokens"
	: >"$_gd/log"
	golden_ludus "$_gd" init >>"$_gd/log" 2>&1
}

# golden_index FILE: the number NN a mail's name NN-*.eml starts with.
golden_index() {
	_gn=${1##*/}
	_gn=${_gn%%-*}
	case $_gn in
	'' | *[!0-9]*) return 1 ;;
	esac
	_gn=$(echo "$_gn" | sed 's/^0*//')
	echo "${_gn:-0}"
}

# golden_time NN: when step NN of a case happens.
golden_time() {
	echo $((GOLDEN_BASE + 60 * $1 + GOLDEN_OFFSET))
}

# golden_seconds DURATION: 90s, 30m, 12h or 8d in seconds.
golden_seconds() {
	case $1 in
	'' | *[!0-9]*[smhd] | [!0-9]* | *[!smhd]) return 1 ;;
	*s) echo "${1%s}" ;;
	*m) echo $((${1%m} * 60)) ;;
	*h) echo $((${1%h} * 3600)) ;;
	*d) echo $((${1%d} * 86400)) ;;
	esac
}

# golden_token DIR GAME SEAT: the reply token, remembered per referee.
golden_token() {
	_gt=$(awk -v k="$2,$3" '$1 == k { print $2; exit }' "$1/tokens")
	if [ -z "$_gt" ]; then
		_gt=$(golden_ludus "$1" token "$2" "$3" 2>>"$1/log") || return 1
		echo "$2,$3 $_gt" >>"$1/tokens"
	fi
	echo "$_gt"
}

# golden_subst DIR IN OUT: IN with each @TOKEN(GAME,SEAT)@ replaced by
# that seat's token.
golden_subst() {
	# Never empty: awk would take the mail itself for the map.
	echo "# placeholder token" >"$1/map"
	for _gp in $(grep -o '@TOKEN([^) ]*)@' "$2" | sort -u); do
		_ga=${_gp#@TOKEN(}
		_ga=${_ga%)@}
		_gt=$(golden_token "$1" "${_ga%%,*}" "${_ga#*,}") || {
			echo "$2: no token for $_gp" >&2
			return 1
		}
		printf '%s %s\n' "$_gp" "$_gt" >>"$1/map"
	done
	awk 'NR == FNR { map[$1] = $2; next }
	    {
		out = ""
		while ((i = index($0, "@TOKEN(")) > 0) {
			rest = substr($0, i)
			j = index(rest, ")@")
			key = j > 0 ? substr(rest, 1, j + 1) : ""
			if (!(key in map)) {
				out = out substr($0, 1, i)
				$0 = substr($0, i + 1)
				continue
			}
			out = out substr($0, 1, i - 1) map[key]
			$0 = substr(rest, j + 2)
		}
		print out $0
	    }' "$1/map" "$2" >"$3"
}

# golden_run DIR ARGS...: a ludus command at the start time (a case's
# setup line).
golden_run() {
	_gd=$1
	shift
	LUDUS_NOW=$GOLDEN_BASE LUDUS_SEED=$GOLDEN_SEED golden_ludus "$_gd" "$@"
}

# golden_setup DIR FILE [TIME]: run each line of a case's setup file (or
# of an NN-*.cmd step) as ludus arguments at TIME (default the start);
# `sleep DURATION` lets time pass for the rest of the case instead.  Blank
# lines and # comments are skipped.
golden_setup() {
	_gnow=${3:-$GOLDEN_BASE}
	_gl=0
	while IFS= read -r _gline || [ -n "$_gline" ]; do
		_gl=$((_gl + 1))
		case $_gline in
		'' | '#'*) continue ;;
		'sleep '*)
			_gs=$(golden_seconds "${_gline#sleep }") || {
				echo "$2:$_gl: \`${_gline#sleep }\` is not a duration (90s, 30m, 12h, 8d)" >&2
				return 1
			}
			GOLDEN_OFFSET=$((GOLDEN_OFFSET + _gs))
			_gnow=$((_gnow + _gs))
			continue ;;
		esac
		echo "== ${2##*/}: $_gline" >>"$1/log"
		set -f
		# shellcheck disable=SC2086
		LUDUS_NOW=$_gnow LUDUS_SEED=$GOLDEN_SEED golden_ludus "$1" $_gline \
		    >>"$1/log" 2>&1 || {
			set +f
			echo "$2:$_gl: ludus $_gline failed:" >&2
			tail -n 5 "$1/log" >&2
			return 1
		}
		set +f
	done <"$2"
}

# golden_deliver DIR FILE: deliver one mail of a case at its time.
golden_deliver() {
	_gi=$(golden_index "$2") || {
		echo "$2: the name does not start with a number" >&2
		return 1
	}
	golden_subst "$1" "$2" "$1/msg" || return 1
	echo "== ${2##*/}" >>"$1/log"
	LUDUS_NOW=$(golden_time "$_gi") LUDUS_SEED=$GOLDEN_SEED \
	    golden_ludus "$1" deliver <"$1/msg" >>"$1/log" 2>&1 || {
		echo "${2##*/}: ludus deliver failed:" >&2
		tail -n 5 "$1/log" >&2
		return 1
	}
}

# golden_mails CASEDIR: the case's mails in name order, one per line;
# golden_steps CASEDIR: its mails and NN-*.cmd steps.
golden_mails() {
	for _gf in "$1"/[0-9]*.eml; do
		[ -f "$_gf" ] && echo "$_gf"
	done | LC_ALL=C sort
}
golden_steps() {
	for _gf in "$1"/[0-9]*.eml "$1"/[0-9]*.cmd; do
		[ -f "$_gf" ] && echo "$_gf"
	done | LC_ALL=C sort
}

# golden_replay DIR CASEDIR: a fresh referee in DIR given the case.
golden_replay() {
	golden_init "$1" "$2" || { cat "$1/log" >&2; return 1; }
	if [ -f "$2/setup" ]; then
		golden_setup "$1" "$2/setup" || return 1
	fi
	for _gm in $(golden_steps "$2"); do
		case $_gm in
		*.cmd)
			_gi=$(golden_index "$_gm") || {
				echo "$_gm: the name does not start with a number" >&2
				return 1
			}
			golden_setup "$1" "$_gm" "$(golden_time "$_gi")" || return 1 ;;
		*) golden_deliver "$1" "$_gm" || return 1 ;;
		esac
	done
}

# golden_dump DIR OUT: every mail the referee wrote, decoded.
golden_dump() {
	golden_ludus "$1" outbox --all >"$2" 2>>"$1/log"
}

# golden_db DIR OUT: the games and their move logs.
golden_db() {
	sqlite3 -separator ' | ' "$1/ludus.db" \
	    "SELECT 'game', id, kind, status, ifnull(substr(result, 1,
	       instr(result || char(29), char(29)) - 1), '-') FROM games ORDER BY id;
	     SELECT 'move', game_id, ply, seat, notation FROM moves ORDER BY game_id, ply;" \
	    >"$2" 2>>"$1/log"
}

# golden_files CASES: every file of the golden tests, as listed for the
# distribution (paths from the source tree's top).
golden_files() {
	(cd "$1/../../.." && find tests/mail/referee -type f ! -name '*~' ! -name '*.tmp' |
	    LC_ALL=C sort)
}

# golden_files_am CASES: rewrite CASES/files.am from what is there.
golden_files_am() {
	{
		echo "# Generated by GOLDEN_UPDATE=1 tests/golden.sh: every file of the"
		echo "# referee's golden cases, for the distribution; golden.sh fails"
		echo "# when one is missing here."
		{ golden_files "$1"; echo tests/mail/referee/files.am; } |
		    LC_ALL=C sort -u | sed 's/^/EXTRA_DIST += /'
	} >"$1/files.am.tmp" && mv "$1/files.am.tmp" "$1/files.am"
}

# golden_unlisted CASES: the files missing from CASES/files.am, if any.
golden_unlisted() {
	golden_files "$1" | while IFS= read -r _gf; do
		grep -qxF "EXTRA_DIST += $_gf" "$1/files.am" 2>/dev/null ||
		    echo "$_gf"
	done
}
