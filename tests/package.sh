#!/bin/sh
# The Debian package: `dpkg-buildpackage -us -uc -b` on a copy of the
# source tree, lintian with no error and no warning, then installed with
# dpkg -i on this machine: the programs run, `ludusd -n` passes on the
# packaged configuration, the installed manuals name the package's paths,
# and `dpkg -r` leaves nothing behind but the configuration and the
# backups, and `dpkg --purge` removes the configuration too, with the
# password files ludusd(8) has the operator write, and keeps the backups.
# Needs root (it installs the package); an installed ludus package is
# never touched (the test is skipped).
set -u
: "${LUDUS_SRCDIR:?}"
pass=0 fail=0
. "$(dirname "$0")/testlib.sh"
finish() { echo "package: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

if [ "$(id -u)" -ne 0 ]; then
	echo "package: needs root to install the package"
	[ "${CI:-}" = true ] && { echo "package: 0 passed, 1 failed"; exit 1; }
	exit 77
fi
for t in dpkg-buildpackage dh lintian fakeroot; do
	command -v "$t" >/dev/null || { bad "$t missing (contrib/bootstrap installs it)"; finish; }
done
# An operator's own ludus is never replaced: skipped (a failure under CI,
# whose machine is fresh).
if dpkg-query -W -f='${Status}' ludus 2>/dev/null | grep -q "ok installed"; then
	echo "package: a ludus package is installed here already: not replacing it"
	[ "${CI:-}" = true ] && { echo "package: 0 passed, 1 failed"; exit 1; }
	exit 77
fi
had_user=0
getent passwd ludus >/dev/null && had_user=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-package.XXXXXX") || exit 99
installed=0
cleanup() {
	[ "$installed" = 1 ] && dpkg --purge ludus >/dev/null 2>&1
	rm -f /var/lib/ludus/backup/package-test.db
	rmdir /var/lib/ludus/backup /var/lib/ludus 2>/dev/null
	[ "$had_user" = 0 ] && getent passwd ludus >/dev/null &&
	    deluser --system ludus >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

mkdir "$tmp/src"
(cd "$LUDUS_SRCDIR" && tar -cf - --exclude='*.o' --exclude='*.a' \
    --exclude='*.log' --exclude='*.trs' Makefile.am configure.ac README.md \
    .ci bench contrib debian games m4 man po src templates tests) |
    tar -xf - -C "$tmp/src" || { bad "copy the source tree"; finish; }
if (cd "$tmp/src" && dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
	ok
else
	bad "dpkg-buildpackage failed:"; tail -n 30 "$tmp/build.log"; finish
fi
deb=$(ls "$tmp"/ludus_*_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] && ok || { bad "no .deb built"; finish; }
lintian --fail-on error,warning "$tmp"/ludus_*.changes >"$tmp/lintian.log" 2>&1 && ok ||
    bad "lintian: $(grep -v 'root privileges' "$tmp/lintian.log")"
grep -v 'root privileges' "$tmp/lintian.log" | grep -q . &&
    bad "lintian says: $(grep -v 'root privileges' "$tmp/lintian.log")" || ok

dpkg -i "$deb" >"$tmp/install.log" 2>&1 && installed=1 && ok ||
    { bad "dpkg -i: $(cat "$tmp/install.log")"; finish; }
dpkg -L ludus | sort >"$tmp/files"
# A first installation says nothing it would have the operator act on.
grep -i "warn" "$tmp/install.log" && bad "dpkg -i warned: $(cat "$tmp/install.log")" || ok
# Where the pages say: the sample uncompressed, the backups' directory.
[ -f /usr/share/doc/ludus/ludus.yaml.sample ] && ok ||
    bad "no /usr/share/doc/ludus/ludus.yaml.sample: $(ls /usr/share/doc/ludus)"
[ "$(stat -c '%U:%G %a' /var/lib/ludus/backup 2>&1)" = "ludus:ludus 700" ] && ok ||
    bad "/var/lib/ludus/backup: $(stat -c '%U:%G %a' /var/lib/ludus/backup 2>&1)"
# Not enabled: the shipped address is a placeholder.
ls /etc/systemd/system/*.wants/ludusd.service >/dev/null 2>&1 &&
    bad "the unit is enabled on installation" || ok
/usr/bin/ludus -V | grep -q "^ludus " && ok || bad "ludus -V: $(/usr/bin/ludus -V 2>&1)"
/usr/bin/ludus -V | grep -q "test build" && bad "the package is a test build" || ok
/usr/sbin/ludusd -n -c /etc/ludus/ludus.yaml >"$tmp/n.log" 2>&1 && ok ||
    bad "ludusd -n on the packaged configuration: $(cat "$tmp/n.log")"
[ "$(stat -c '%U:%G %a' /var/lib/ludus)" = "ludus:ludus 700" ] && ok ||
    bad "/var/lib/ludus: $(stat -c '%U:%G %a' /var/lib/ludus 2>&1)"
[ "$(stat -c '%G %a' /etc/ludus/ludus.yaml)" = "ludus 640" ] && ok ||
    bad "/etc/ludus/ludus.yaml: $(stat -c '%G %a' /etc/ludus/ludus.yaml)"
grep -qx "/lib/systemd/system/ludusd.service" "$tmp/files" && ok || bad "no unit in the package"
grep -q "^ExecStart=/usr/sbin/ludusd -f -c /etc/ludus/ludus.yaml$" /lib/systemd/system/ludusd.service && ok ||
    bad "the unit: $(grep ExecStart= /lib/systemd/system/ludusd.service)"
zcat /usr/share/man/man8/ludusd.8.gz | grep -q "/etc/ludus/ludus.yaml" && ok ||
    bad "ludusd(8) does not name /etc/ludus/ludus.yaml"
zcat /usr/share/man/man1/ludus.1.gz /usr/share/man/man8/ludusd.8.gz \
    /usr/share/man/man5/ludus.yaml.5.gz | grep -q "/usr/local" &&
    bad "installed manuals still name /usr/local" || ok
# The packaged tool works against a database of its own (not the
# packaged configuration's, whose secret is the daemon's to make).
export LUDUS_CONFIG="$tmp/none.yaml"
/usr/bin/ludus -d "$tmp/t.db" init >/dev/null && /usr/bin/ludus -d "$tmp/t.db" games | grep -q mancala &&
    ok || bad "the packaged ludus cannot list its games"

# What ludusd(8) has the operator make: the password files, a backup.
printf 'pw\n' >/etc/ludus/imap.password
printf 'pw\n' >/etc/ludus/smtp.password
chmod 600 /etc/ludus/imap.password /etc/ludus/smtp.password
cp /usr/share/doc/ludus/ludus.yaml.sample /var/lib/ludus/backup/package-test.db
dpkg -r ludus >"$tmp/remove.log" 2>&1 && ok || bad "dpkg -r: $(cat "$tmp/remove.log")"
left=
while read -r f; do
	[ -d "$f" ] && continue
	case $f in /etc/ludus/ludus.yaml) continue ;; esac
	[ -e "$f" ] && left="$left $f"
done <"$tmp/files"
[ -z "$left" ] && ok || bad "left after dpkg -r:$left"
[ -f /etc/ludus/ludus.yaml ] && ok || bad "dpkg -r removed the configuration"
[ -f /var/lib/ludus/backup/package-test.db ] && ok || bad "dpkg -r removed a backup"
dpkg --purge ludus >/dev/null 2>&1 && installed=0 && ok || bad "dpkg --purge"
[ ! -e /etc/ludus ] && ok || bad "dpkg --purge left /etc/ludus: $(ls -la /etc/ludus)"
[ -f /var/lib/ludus/backup/package-test.db ] && ok || bad "dpkg --purge removed the backups"
[ "$(ls -A /var/lib/ludus)" = backup ] && ok || bad "dpkg --purge left in /var/lib/ludus: $(ls -A /var/lib/ludus)"
rm -f /var/lib/ludus/backup/package-test.db
rmdir /var/lib/ludus/backup /var/lib/ludus
finish
