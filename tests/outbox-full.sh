#!/bin/sh
# A full disk while mail waits in the outbox: the server takes a mail but
# the store cannot mark it sent.  ludusd must not send it again (no storm
# of copies), must wait before retrying, and must mark it once the disk
# has room again; then the rest goes out, each mail at most twice in all.
# Needs root for a small tmpfs of its own.
set -u
: "${LUDUS_BIN:?}" "${LUDUSD_BIN:?}" "${LUDUS_GAMES_DIR:?}"
export LUDUS_GAMES_DIR
pass=0 fail=0
. "$(dirname "$0")/testlib.sh"
done_() { echo "outbox-full: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

if [ "$(id -u)" -ne 0 ]; then
	echo "outbox-full: needs root to mount a tmpfs"
	[ "${CI:-}" = true ] && { echo "outbox-full: 0 passed, 1 failed"; exit 1; }
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-full.XXXXXX") || exit 99
disk=$tmp/disk
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	umount "$disk" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$disk" "$tmp/sent" "$tmp/Maildir/new" "$tmp/Maildir/cur" \
    "$tmp/Maildir/tmp"
if ! mount -t tmpfs -o size=4m tmpfs "$disk"; then
	bad "cannot mount a tmpfs"
	done_
fi

# The sendmail stand-in keeps each message's Message-ID; the first time it
# runs it fills the disk first, as if the disk filled up while it sent.
cat >"$tmp/sendmail" <<'SH'
#!/bin/sh
if [ -f "$FULL_FLAG" ]; then
	rm -f "$FULL_FLAG"
	dd if=/dev/zero of="$FULL_DISK/fill" bs=4k 2>/dev/null
	dd if=/dev/zero of="$FULL_DISK/fill2" bs=1 2>/dev/null
fi
sed -n 's/^Message-ID: *//p' | head -n 1 >>"$SENT_LOG"
SH
chmod +x "$tmp/sendmail"
export SENT_LOG="$tmp/sent.log" FULL_FLAG="$tmp/fill-on-send" FULL_DISK="$disk"
: >"$SENT_LOG"

cat >"$tmp/ludus.yaml" <<EOF2
referee:
  address: referee@example.org
  admins: [admin@example.org]
state_dir: $disk
database: $disk/ludus.db
games_dir: $LUDUS_GAMES_DIR
in:
  maildir:
    path: $tmp/Maildir
out:
  sendmail:
    path: $tmp/sendmail
EOF2
ludus() { "$LUDUS_BIN" -c "$tmp/ludus.yaml" "$@"; }
ludus init >/dev/null || bad "init"
for who in ann ben cat; do
	printf 'From: %s@example.org\r\nTo: referee@example.org\r\nSubject: help\r\nMessage-ID: <%s.full@example.org>\r\nDate: Sun, 29 Nov 2026 10:00:00 +0000\r\n\r\nhelp\r\n' \
	    "$who" "$who" | ludus deliver >/dev/null || bad "deliver $who"
done
[ "$(ludus outbox | head -n 1 | cut -d' ' -f1)" = 3 ] && ok ||
    bad "three mails waiting: $(ludus outbox | head -n 1)"

touch "$FULL_FLAG"
"$LUDUSD_BIN" -c "$tmp/ludus.yaml" -f >"$tmp/ludusd.log" 2>&1 &
pid=$!
# Backoff of 1, 2 and 4 s: three attempts to mark while the disk is full.
sleep 8
[ ! -f "$FULL_FLAG" ] && ok || bad "the first send never ran"
grep -q "but the store failed to mark it" "$tmp/ludusd.log" && ok ||
    bad "the mark did not fail: the disk was not full (nothing tested)"
n=$(wc -l <"$SENT_LOG")
[ "$n" -eq 1 ] && ok || bad "$n mails sent while the disk was full (1 expected)"
grep -q "next attempt to send" "$tmp/ludusd.log" && ok ||
    bad "no backoff logged"

rm -f "$disk/fill" "$disk/fill2"
i=0
while [ "$i" -lt 40 ] && [ "$(wc -l <"$SENT_LOG")" -lt 3 ]; do
	sleep 1
	i=$((i + 1))
done
kill "$pid" && wait "$pid" 2>/dev/null
pid=
n=$(sort -u "$SENT_LOG" | wc -l)
[ "$n" -eq 3 ] && ok || bad "$n distinct mails sent after the disk had room (3)"
max=$(sort "$SENT_LOG" | uniq -c | sort -rn | head -n 1 | awk '{print $1}')
[ "${max:-0}" -le 2 ] && ok || bad "a mail was sent $max times"
[ "$(wc -l <"$SENT_LOG")" -eq 3 ] && ok ||
    bad "$(wc -l <"$SENT_LOG") sends for 3 mails (the unmarked one went again)"
[ "$(ludus outbox | head -n 1 | cut -d' ' -f1)" = 0 ] && ok ||
    bad "mails still waiting: $(ludus outbox | head -n 1)"
grep -q "marked 1 mail sent while the store failed" "$tmp/ludusd.log" && ok ||
    bad "the unmarked mail was not marked from memory"
[ "$fail" -eq 0 ] || { echo "  ludusd log:"; sed 's/^/    /' "$tmp/ludusd.log" | tail -n 30; }
done_
