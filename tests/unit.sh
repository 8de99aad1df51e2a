#!/bin/sh
# The systemd unit as built: its programs and configuration are where this
# build installs them and where ludusd looks by default, and systemd's own
# review scores its exposure at most 2.0, with the sendmail drop-in too.
set -u
: "${LUDUS_BUILDDIR:?}" "${LUDUS_SRCDIR:?}" "${LUDUSD_BIN:?}"
pass=0 fail=0
. "$(dirname "$0")/testlib.sh"
unit=$LUDUS_BUILDDIR/contrib/ludusd.service
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-unit.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

MAKEFLAGS= make -s -C "$LUDUS_BUILDDIR" contrib/ludusd.service >/dev/null || bad "make the unit"
eval "$(MAKEFLAGS= make -s -C "$LUDUS_BUILDDIR" --no-print-directory print-paths 2>/dev/null)"
conf=$(LUDUS_CONFIG= "$LUDUSD_BIN" --help 2>&1 | sed -n 's/.*default \([^ )]*ludus\.yaml\).*/\1/p' | head -n 1)
[ "$conf" = "$sysconfdir/ludus/ludus.yaml" ] && ok ||
    bad "ludusd's default configuration is '$conf', not $sysconfdir/ludus/ludus.yaml"
grep -q "^ExecStart=$sbindir/ludusd -f -c $sysconfdir/ludus/ludus.yaml$" "$unit" && ok ||
    bad "ExecStart: $(grep ExecStart= "$unit")"
grep -q "^ExecStartPre=$sbindir/ludusd -n -c $sysconfdir/ludus/ludus.yaml$" "$unit" && ok ||
    bad "ExecStartPre: $(grep ExecStartPre= "$unit")"
# No credential in the unit itself: a LoadCredential= naming a file that
# is not there fails the unit, and a configuration may use none; ludusd(8)
# gives the drop-in for those a configuration names.
grep -q "^LoadCredential=" "$unit" && bad "the unit names credentials: $(grep "^LoadCredential=" "$unit")" || ok
grep -q "LoadCredential=imap.password:$sysconfdir/ludus/imap.password$" "$LUDUS_BUILDDIR/man/ludusd.8" && ok ||
    bad "ludusd(8) gives no credentials drop-in"
# The robots' workers are reniced (setpriority, in @resources): allowed,
# and a refused call fails rather than killing the daemon.
grep -q "^SystemCallFilter=setpriority$" "$unit" && grep -q "^SystemCallErrorNumber=EPERM$" "$unit" && ok ||
    bad "setpriority not allowed: $(grep "^SystemCall" "$unit")"
grep -q "@[a-z]*@" "$unit" && bad "unsubstituted: $(grep "@[a-z]*@" "$unit")" || ok
# The state directory the unit makes (systemd's StateDirectory= under
# /var/lib, else an install -d before the check) and opens for writing is
# the one ludusd uses by default.
sd=$(sed -n 's/^StateDirectory=//p' "$unit")
if [ -n "$sd" ]; then
	sd=/var/lib/$sd
else
	sd=$(sed -n 's/^ExecStartPre=+\/usr\/bin\/install -d -o ludus -g ludus -m 0700 //p' "$unit")
fi
[ -n "$sd" ] && [ "$sd" = "$statedir" ] && ok ||
    bad "the unit makes the state directory '$sd', not $statedir"
grep -qx "ReadWritePaths=$statedir" "$unit" && ok ||
    bad "ReadWritePaths: $(grep ReadWritePaths= "$unit")"
LUDUS_CONFIG="$tmp/none" "$LUDUS_BUILDDIR/ludus" config | grep -qx "state_dir: $sd" && ok ||
    bad "state_dir default is not $sd: $(LUDUS_CONFIG="$tmp/none" "$LUDUS_BUILDDIR/ludus" config | grep state_dir)"
grep -q '^#define HAVE_SYSTEMD 1' "$LUDUS_BUILDDIR/config.h" && {
	grep -q "^Type=notify$" "$unit" && ok || bad "a libsystemd build without Type=notify"
}

if ! command -v systemd-analyze >/dev/null; then
	bad "systemd-analyze missing (the systemd package)"
else
	score() { # UNIT-FILE: the overall exposure
		systemd-analyze security --offline=yes "$1" 2>&1 |
		    sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'
	}
	cp "$unit" "$tmp/ludusd.service"
	s=$(score "$tmp/ludusd.service")
	echo "unit: exposure $s"
	[ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s <= 2.0) }' && ok ||
	    bad "exposure ${s:-unknown} > 2.0: $(systemd-analyze security --offline=yes "$tmp/ludusd.service" 2>&1 | tail -n 5)"
	# With the sendmail drop-in merged (later lines win, empty ones reset).
	sed '/^\[Install\]/,$d' "$unit" >"$tmp/ludusd.service"
	grep -v '^\[Service\]' "$LUDUS_SRCDIR/contrib/ludusd-sendmail.conf" >>"$tmp/ludusd.service"
	s=$(score "$tmp/ludusd.service")
	echo "unit: exposure with the sendmail drop-in $s"
	[ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s <= 2.0) }' && ok ||
	    bad "exposure with sendmail ${s:-unknown} > 2.0"
fi
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
