#!/bin/bash
# The paths the documentation names are the build's: configure the source
# tree again with a prefix, sysconfdir and localstatedir of its own, build
# and install it into a scratch root, then read every absolute path in the
# manual pages, the systemd unit, the sample configuration and the recipes
# in contrib/, and compare with what `configure` was given, with what the
# programs use by default (`ludus config`, `ludusd --help`) and with what
# `make install` put there.  A path that is neither one of this build's
# nor on the short list of other programs' paths below fails, and so does
# any /usr/local or /etc/ludus left in a page (the Debian package's own
# section of ludusd(8) excepted: it describes that package's layout).
#
# Slow (a whole build): about a minute on two cores.
set -u
export LC_ALL=C
: "${LUDUS_SRCDIR:?}"
src=$(cd "$LUDUS_SRCDIR" && pwd)
if [ -e "$src/config.status" ]; then
	echo "paths: $src is configured in place; needs a build directory"
	exit 77
fi
pass=0 fail=0
. "$(dirname "$0")/testlib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-paths.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

prefix=/opt/ludus-drift
sysconfdir=/srv/drift-etc
localstatedir=/srv/drift-var
statedir=$localstatedir/lib/ludus
mkdir "$tmp/b" && cd "$tmp/b" || exit 99
# The build's own make, not the suite's jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL
if ! "$src/configure" -q --prefix=$prefix --sysconfdir=$sysconfdir \
    --localstatedir=$localstatedir --with-systemdsystemunitdir=no \
    CFLAGS='-O0' >"$tmp/configure.log" 2>&1; then
	echo "paths: configure failed"; tail -20 "$tmp/configure.log"; exit 1
fi
if ! make -s -j2 >"$tmp/make.log" 2>&1 ||
    ! make -s install DESTDIR="$tmp/root" >>"$tmp/make.log" 2>&1; then
	echo "paths: build failed"; tail -20 "$tmp/make.log"; exit 1
fi
eval "$(make -s --no-print-directory print-paths)"
[ "$sysconfdir" = /srv/drift-etc ] && [ "$statedir" = $statedir ] &&
    [ "$sbindir" = $prefix/sbin ] && ok || bad "print-paths: sysconfdir=$sysconfdir statedir=$statedir sbindir=$sbindir"
root=$tmp/root

# --- the programs' defaults ----------------------------------------------
export LUDUS_CONFIG= LUDUS_DB= LUDUS_GAMES_DIR= LUDUS_TEMPLATES_DIR= LUDUS_LOCALE_DIR=
dconf=$(./ludusd --help 2>&1 | sed -n 's/.*default \([^ )]*\)).*/\1/p' | head -n 1)
[ "$dconf" = "$sysconfdir/ludus/ludus.yaml" ] && ok || bad "ludusd's default configuration: '$dconf'"
# `ludus config` with no file: every default path.
# (The game definitions are read from where they were installed.)
export LUDUS_GAMES_DIR=$root$pkgdatadir/games
LUDUS_CONFIG=$tmp/none.yaml ./ludus config >"$tmp/config" 2>"$tmp/config.err" ||
    bad "ludus config: $(cat "$tmp/config.err")"
want() { # KEY VALUE: the line `KEY: VALUE` of ludus config
	grep -qx "$1: $2" "$tmp/config" && ok || bad "ludus config: $(grep "^$1:" "$tmp/config" || echo "no $1"), not $2"
}
want state_dir "$statedir"
want database "$statedir/ludus.db"
want "  secret_file" "$statedir/secret"
want games_dir "$pkgdatadir/games"
want templates_dir "$pkgdatadir/templates"
# What the programs look for is what make install put there.
[ -f "$root$pkgdatadir/games/mancala.yaml" ] && ok || bad "no $pkgdatadir/games/mancala.yaml installed"
[ -f "$root$pkgdatadir/templates/en/move.tmpl" ] && ok || bad "no $pkgdatadir/templates/en installed"
[ -f "$root$localedir/ru/LC_MESSAGES/ludus.mo" ] && ok || bad "no catalogue in $localedir"

# --- every path in the documents -----------------------------------------
docs="$root$mandir/man1/ludus.1 $root$mandir/man5/ludus.yaml.5
$root$mandir/man5/ludus-templates.5 $root$mandir/man7/ludus-games.7
$root$mandir/man7/ludus-commands.7 $root$mandir/man8/ludusd.8"
for f in "$root$docdir"/*; do docs="$docs $f"; done
n=0
for f in $docs; do
	[ -f "$f" ] || { bad "not installed: $f"; continue; }
	n=$((n + 1))
	grep -n '@[a-z]*dir@' "$f" >/dev/null &&
	    bad "unsubstituted in $f: $(grep -o '@[a-z]*dir@' "$f" | head -n 1)"
	# The Debian package's section of ludusd(8) has its own layout.
	# roff's \(xx characters are no paths.
	sed -e '/^\.Ss The Debian package/,/^\.S[hs] /{/^\.S[hs] /!d;}' \
	    -e 's/\\(..//g' "$f" |
	    grep -oE '(^|[[:space:]"(=:,;<>])/[A-Za-z0-9._/*+-]+' |
	    sed -e 's/^[^/]*//' -e 's/[.,:;]*$//' | sort -u |
	    sed "s|^|$(basename "$f") |"
done >"$tmp/paths"
[ "$n" -ge 9 ] && ok || bad "only $n documents installed"
while read -r doc p; do
	case $p in
	//*|/) continue ;;	# URLs (imaps://HOST), a lone slash
	esac
	case $p in
	"$sysconfdir"/ludus|"$sysconfdir"/ludus/*|"$statedir"|"$statedir"/*)
		;;	# the configuration and the state: the operator's
	"$sbindir"/ludusd|"$bindir"/ludus)
		[ -x "$root$p" ] || bad "$doc names $p, not installed" ;;
	"$sbindir"|"$bindir") ;;
	"$pkgdatadir"|"$pkgdatadir"/*|"$localedir"/*|"$docdir"|"$docdir"/*)
		f=$(echo "$p" | sed 's|/LANG/|/ru/|')
		# shellcheck disable=SC2086
		ls -d "$root"$f >/dev/null 2>&1 || bad "$doc names $p, not installed" ;;
	# Other programs' paths a page may name.
	/usr/sbin/sendmail|/usr/sbin/postdrop|/usr/sbin/postfix) ;;
	/var/spool/postfix|/var/spool/postfix/*) ;;
	/etc/postfix/*|/usr/lib/dovecot/*|/etc/dovecot/*) ;;
	/etc/systemd/system|/etc/systemd/system/*|/run/ludus/*|/home|/home/*|/bin/kill) ;;
	/usr/bin/install|/usr/bin/fetchmail|/usr/bin/mbsync|/usr/bin/procmail) ;;
	/dev/null|/usr/share/zoneinfo) ;;
	/PATH) ;;	# the placeholder of a form (unix:/PATH)
	# systemd makes state directories only under /var/lib; a site for
	# the web server.
	/var|/var/lib|/var/www/*) ;;
	*) bad "$doc names $p: no directory of this build ($prefix, $sysconfdir, $localstatedir)" ;;
	esac
done <"$tmp/paths"
[ "$(wc -l <"$tmp/paths")" -ge 30 ] && ok || bad "only $(wc -l <"$tmp/paths") paths found"

# The unit: its programs, configuration and state directory.
unit=contrib/ludusd.service
grep -qx "ExecStart=$sbindir/ludusd -f -c $sysconfdir/ludus/ludus.yaml" $unit && ok ||
    bad "unit: $(grep ^ExecStart= $unit)"
grep -qx "ExecStartPre=+/usr/bin/install -d -o ludus -g ludus -m 0700 $statedir" $unit && ok ||
    bad "unit: the state directory $statedir is not made: $(grep -E '^(StateDirectory|ExecStartPre)=' $unit)"
grep -qx "ReadWritePaths=$statedir" $unit && ok || bad "unit: $(grep ReadWritePaths= $unit)"
# The sample as installed loads, and names this build's files.
grep -q "password_file: \"$sysconfdir/ludus/imap.password\"" "$root$docdir/ludus.yaml.sample" && ok ||
    bad "sample: $(grep password_file "$root$docdir/ludus.yaml.sample" | head -n 1)"
./ludus -c "$root$docdir/ludus.yaml.sample" config >"$tmp/s.log" 2>&1 && ok ||
    bad "the installed sample does not load: $(head -n 3 "$tmp/s.log")"

echo "paths: $pass passed, $fail failed ($(wc -l <"$tmp/paths") paths read)"
[ "$fail" -eq 0 ]
