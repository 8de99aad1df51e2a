#!/bin/sh
# Backups, restores and one daemon per database, against a running ludusd
# over a Maildir:
#
#   1. `ludus backup` refuses the database itself (by any name, a hard
#      link included), its -wal and -shm; the moves the daemon applies
#      afterwards are all still there after its stop;
#   2. it refuses the secret (and a target whose FILE.secret would be it);
#      the secret is unchanged;
#   3. `ludus restore` refuses while the daemon runs, naming its pid; after
#      a crash (kill -9, the WAL left full), it puts the backup in place:
#      the backup's moves, not the crashed state, integrity ok, the stale
#      WAL kept aside with the replaced file; a damaged backup or one
#      without its secret is refused and changes nothing; a changed
#      secret is put back and the other kept aside;
#   4. a second ludusd on the same database refuses to start and names the
#      first's pid; `ludus deliver` and the CLI still work beside it.
set -u
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
unset LUDUS_SEED LUDUS_NOW
command -v sqlite3 >/dev/null || { echo "backup: no sqlite3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-backup.XXXXXX") || exit 99
dpid=""
trap '[ -n "$dpid" ] && kill -KILL $dpid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname "$0")/testlib.sh"
mail_tag=backup

maildir_referee "$tmp" 1s
db=$tmp/ludus.db
secret=$tmp/secret
mkdir "$tmp/b"

# deliver FROM SUBJECT BODY: one mail through `ludus deliver`.
deliver() {
	mail "$1" "$2" "$3" >"$tmp/m"
	ludus deliver <"$tmp/m" 2>>"$tmp/cli.log" || bad "deliver $3"
}
# drop FROM SUBJECT BODY: one mail into the daemon's Maildir.
_n=0
drop() {
	_n=$((_n + 1))
	mail "$1" "$2" "$3" >"$tmp/Maildir/tmp/$_n"
	mv "$tmp/Maildir/tmp/$_n" "$tmp/Maildir/new/$_n"
	[ -z "$dpid" ] || kill -USR1 "$dpid"
}
moves() { sqlite3 -cmd '.timeout 10000' "$db" 'SELECT count(*) FROM moves'; }
# wait_moves N: until game 1 has N moves (10 s at most).
wait_moves() {
	_i=0
	while [ "$(moves)" -lt "$1" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ "$(moves)" -ge "$1" ]
}
# play N: N moves in game 1 through the daemon, each by whoever is to
# move, waiting for each.
play() {
	_k=0
	while [ $_k -lt "$1" ]; do
		_before=$(moves)
		for _who in ann@example.org bob@example.org; do
			_m=$(ludus moves 1 --as "$_who" 2>/dev/null | head -n 1)
			[ -n "$_m" ] || continue
			_seat=0
			[ "$_who" = bob@example.org ] && _seat=1
			drop "$_who" "Re: [ludus #1 $(ludus token 1 $_seat)]" "$_m"
			break
		done
		wait_moves $((_before + 1)) || { bad "move $((_before + 1)) not applied"; return 1; }
		_k=$((_k + 1))
	done
}
# start: ludusd, waiting for its start line (which follows its lock).
start() {
	_started=$(grep -c "started" "$tmp/d.log" 2>/dev/null)
	"$LUDUSD_BIN" -f -c "$tmp/ludus.yaml" 2>>"$tmp/d.log" &
	dpid=$!
	_i=0
	until [ "$(grep -c "started" "$tmp/d.log")" -gt "${_started:-0}" ] ||
	    [ $_i -ge 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}
stop() {
	kill -"${1:-TERM}" "$dpid"
	wait "$dpid" 2>/dev/null
	dpid=""
}
inode() { ls -i "$1" | cut -d ' ' -f 1; }

deliver ann@example.org hello "new kalah bob@example.org"
deliver bob@example.org "Re: [ludus #1 $(ludus token 1 1)]" accept
deliver ann@example.org "Re: [ludus #1 $(ludus token 1 0)]" accept
ludus list | grep -q active && ok || bad "no game: $(cat "$tmp/cli.log")"

start
play 2
ino=$(inode "$db")
sum=$(sha256sum <"$secret")

# --- 1. the database and its own files --------------------------------------
ln "$db" "$tmp/b/hardlink.db"
for target in "$db" "$tmp/./ludus.db" "$tmp/b/../ludus.db" "$db-wal" \
    "$db-shm" "$tmp/b/hardlink.db"; do
	if ludus backup "$target" >"$tmp/out" 2>&1; then
		bad "backup onto $target accepted"
	else
		grep -q "one of its own files" "$tmp/out" && ok ||
		    bad "backup onto $target: $(cat "$tmp/out")"
	fi
done
[ "$(inode "$db")" = "$ino" ] && ok || bad "the database was replaced"
play 2
stop
[ "$(moves)" = 4 ] && ok || bad "4 moves applied, $(moves) left after the stop"

# --- 2. the secret ------------------------------------------------------------
ludus backup "$secret" >"$tmp/out" 2>&1 && bad "backup onto the secret accepted"
grep -q "the secret" "$tmp/out" && ok || bad "backup onto the secret: $(cat "$tmp/out")"
# FILE.secret would be the secret: $tmp/secret is FILE.secret of $tmp/secret's stem.
ln -s "$secret" "$tmp/b/link.secret"
ludus backup "$tmp/b/link" >"$tmp/out" 2>&1 && bad "backup whose FILE.secret is the secret accepted"
grep -q "the secret" "$tmp/out" && ok || bad "FILE.secret onto the secret: $(cat "$tmp/out")"
[ "$(sha256sum <"$secret")" = "$sum" ] && ok || bad "the secret changed"
[ ! -e "$tmp/b/link" ] && ok || bad "a database was written beside a refused secret"
head -c 15 "$secret" | grep -q 'SQLite' && bad "the secret is an SQLite file"

# --- 4. one daemon per database ------------------------------------------------
start
"$LUDUSD_BIN" -f -c "$tmp/ludus.yaml" >"$tmp/out2" 2>&1 &
p2=$!
_i=0
while kill -0 $p2 2>/dev/null && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
if kill -0 $p2 2>/dev/null; then
	bad "a second ludusd runs on the same database"
	kill -KILL $p2
	wait $p2 2>/dev/null
else
	wait $p2 && bad "the second ludusd exited 0"
	grep -q "in use by ludusd (pid $dpid)" "$tmp/out2" && ok ||
	    bad "the refusal does not name pid $dpid: $(cat "$tmp/out2")"
fi
# The CLI and deliver beside the daemon.
deliver cat@example.org help help
ludus list >/dev/null 2>&1 && ok || bad "ludus list beside the daemon"

# --- 3. restore ------------------------------------------------------------------
ludus backup "$tmp/b/good" >"$tmp/out" 2>&1 && ok || bad "backup: $(cat "$tmp/out")"
[ -f "$tmp/b/good.secret" ] && ok || bad "no FILE.secret"
ludus restore "$tmp/b/good" >"$tmp/out" 2>&1 && bad "restore while ludusd runs accepted"
grep -q "pid $dpid" "$tmp/out" && ok || bad "restore while running: $(cat "$tmp/out")"
play 2
tok=$(ludus token 1 0)
# A crash: the daemon killed with its WAL holding the last moves.  The
# files are kept as the crash left them: the checks below are the WAL's
# last readers and would checkpoint it away.
stop KILL
[ -s "$db-wal" ] && ok || bad "no WAL after the crash"
mkdir "$tmp/crash"
cp "$db" "$db-wal" "$tmp/crash/"
[ "$(moves)" = 6 ] && ok || bad "6 moves before the crash, $(moves)"
crashed() {
	cp "$tmp/crash/ludus.db" "$tmp/crash/ludus.db-wal" "$tmp/"
	rm -f "$db-shm"
}

# A damaged backup, and one without its secret: refused, nothing changed.
crashed
cp "$tmp/b/good" "$tmp/b/bad"
cp "$tmp/b/good.secret" "$tmp/b/bad.secret"
size=$(wc -c <"$tmp/b/bad")
printf 'damaged%.0s' $(seq 1 600) | dd of="$tmp/b/bad" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
ino=$(inode "$db")
ludus restore "$tmp/b/bad" >"$tmp/out" 2>&1 && bad "a damaged backup restored"
grep -Eq "damaged|malformed|not a database" "$tmp/out" && ok || bad "damaged backup: $(cat "$tmp/out")"
cp "$tmp/b/good" "$tmp/b/nosecret"
ludus restore "$tmp/b/nosecret" >"$tmp/out" 2>&1 && bad "a backup without its secret restored"
grep -q "nosecret.secret" "$tmp/out" && ok || bad "no secret: $(cat "$tmp/out")"
[ "$(inode "$db")" = "$ino" ] && [ "$(moves)" = 6 ] && ok ||
    bad "a refused restore changed the database"
ls "$tmp" | grep -q replaced && bad "a refused restore kept files aside"

crashed
ludus restore "$tmp/b/good" >"$tmp/out" 2>&1 && ok || bad "restore: $(cat "$tmp/out")"
[ "$(moves)" = 4 ] && ok || bad "restored: 4 moves expected, $(moves)"
[ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] && ok || bad "restored database damaged"
aside=$(ls "$tmp" | grep '^ludus\.db\.replaced-[0-9TZ]*$')
[ -n "$aside" ] && [ -s "$tmp/$aside-wal" ] && ok ||
    bad "the replaced database and its WAL not kept aside: $(ls "$tmp")"
[ "$(sqlite3 "$tmp/$aside" 'SELECT count(*) FROM moves')" = 6 ] && ok ||
    bad "the replaced files do not open as they were"
[ "$(sha256sum <"$secret")" = "$sum" ] && ok || bad "the same secret changed"
[ "$(ludus token 1 0)" = "$tok" ] && ok || bad "the tokens changed"
ludus replay 1 >/dev/null 2>&1 && ok || bad "game 1 does not replay"
# The daemon goes on from the backup.
start
play 1
stop
[ "$(moves)" = 5 ] && ok || bad "a move after the restore: $(moves)"

# A backup whose secret differs from the running one: put back, the
# running one kept aside.
mv "$secret" "$tmp/b/other"
ludus init >/dev/null 2>&1
[ "$(sha256sum <"$secret")" != "$sum" ] || bad "ludus init made the same secret"
ludus restore "$tmp/b/good" >"$tmp/out" 2>&1 && ok || bad "restore 2: $(cat "$tmp/out")"
[ "$(sha256sum <"$secret")" = "$sum" ] && ok || bad "the backup's secret not restored"
[ "$(stat -c %a "$secret")" = 600 ] && ok || bad "secret mode $(stat -c %a "$secret")"
ls "$tmp" | grep -q '^secret\.replaced-' && ok || bad "the replaced secret not kept aside"

echo "backup: $pass passed, $fail failed"
[ $fail = 0 ]
