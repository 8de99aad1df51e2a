#!/bin/sh
# What the operator checks and reloads, on a ludusd over a Maildir:
#
#   - SIGHUP with a broken template: logged, the running templates kept
#     (no "reloaded"), and the next mail is answered; fixed and SIGHUP
#     again: reloaded;
#   - SIGHUP with a configuration of two problems: both logged, the
#     running configuration kept, the next mail answered;
#   - ludusd -n opens the database: a damaged one is reported, and with
#     a broken template too both problems are printed.
set -u
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}" "${LUDUS_SRCDIR:?}"
export LUDUS_GAMES_DIR
unset LUDUS_SEED LUDUS_NOW LUDUS_TEMPLATES_DIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-reload.XXXXXX") || exit 99
dpid=""
trap '[ -n "$dpid" ] && kill -KILL $dpid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname "$0")/testlib.sh"
mail_tag=reload

cp -r "$LUDUS_SRCDIR/templates" "$tmp/templates"
maildir_referee "$tmp" 1s
echo "templates_dir: $tmp/templates" >>"$tmp/ludus.yaml"

wait_for() {
	_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt $_end ] || return 1
		sleep 0.1
	done
}
_n=0
drop() {
	_n=$((_n + 1))
	mail "$1" help help >"$tmp/Maildir/tmp/$_n"
	mv "$tmp/Maildir/tmp/$_n" "$tmp/Maildir/new/$_n"
	kill -USR1 "$dpid"
}
sent_is() { [ "$(ls "$tmp/sent" | grep -c "$1")" = "$2" ]; }
logged() { grep -q "$1" "$tmp/d.log"; }

"$LUDUSD_BIN" -n -c "$tmp/ludus.yaml" >"$tmp/out" 2>&1 && ok || bad "ludusd -n: $(cat "$tmp/out")"
"$LUDUSD_BIN" -f -c "$tmp/ludus.yaml" 2>"$tmp/d.log" &
dpid=$!
wait_for 10 logged started || bad "ludusd did not start"

cp "$tmp/templates/en/help.tmpl" "$tmp/help.good"
printf 'Subject: Help\n\n{{#each games}}unclosed\n' >"$tmp/templates/en/help.tmpl"
kill -HUP $dpid
wait_for 10 logged "reload: " && ok || bad "no reload line"
logged "keeping the running" && ok || bad "the broken template not told: $(grep reload "$tmp/d.log")"
logged "reloaded" && bad "reloaded with a broken template"
drop ann@example.org
wait_for 10 sent_is ann@ 1 && ok || bad "help not answered after the failed reload: $(tail -3 "$tmp/d.log")"

cp "$tmp/help.good" "$tmp/templates/en/help.tmpl"
kill -HUP $dpid
wait_for 10 logged "reloaded" && ok || bad "not reloaded once fixed"
drop bob@example.org
wait_for 10 sent_is bob@ 1 && ok || bad "help not answered after the reload"

# A configuration with two problems: each logged with its line, as -n
# prints them, and the running configuration kept.
cp "$tmp/ludus.yaml" "$tmp/ludus.good"
sed -i 's/^  address: .*/&\n  colour: blue/' "$tmp/ludus.yaml"
printf 'limits:\n  info_replies: many\n' >>"$tmp/ludus.yaml"
"$LUDUSD_BIN" -n -c "$tmp/ludus.yaml" >"$tmp/out" 2>&1
[ "$(grep -c 'ludus.yaml:[0-9]' "$tmp/out")" = 2 ] || bad "-n does not print two problems: $(cat "$tmp/out")"
kill -HUP $dpid
wait_for 10 logged "reload: keeping the running configuration" && ok || bad "no reload refusal: $(grep reload "$tmp/d.log")"
logged "reload: .*ludus.yaml:3: unknown setting .referee.colour" && ok || bad "the first problem not logged: $(grep reload "$tmp/d.log")"
logged "reload: .*ludus.yaml:[0-9]*: limits.info_replies" && ok || bad "the second problem not logged: $(grep reload "$tmp/d.log")"
drop carol@example.org
wait_for 10 sent_is carol@ 1 && ok || bad "help not answered after the refused reload"
cp "$tmp/ludus.good" "$tmp/ludus.yaml"
kill -TERM $dpid
wait $dpid
dpid=""

# ludusd -n: every problem, the database's included.
printf 'Subject: Help\n\n{{#each games}}unclosed\n' >"$tmp/templates/en/help.tmpl"
size=$(wc -c <"$tmp/ludus.db")
printf 'damaged%.0s' $(seq 1 2000) | dd of="$tmp/ludus.db" bs=1 seek=4096 conv=notrunc 2>/dev/null
rm -f "$tmp/ludus.db-wal" "$tmp/ludus.db-shm"
"$LUDUSD_BIN" -n -c "$tmp/ludus.yaml" >"$tmp/out" 2>&1 && bad "ludusd -n passed a damaged database"
grep -q "templates" "$tmp/out" && ok || bad "-n: no template problem: $(cat "$tmp/out")"
grep -Eq "database .*(damaged|malformed)" "$tmp/out" && ok || bad "-n: no database problem: $(cat "$tmp/out")"
[ "$size" -gt 0 ] || bad "no database"

echo "reload: $pass passed, $fail failed"
[ $fail = 0 ]
