#!/bin/sh
# A short libFuzzer run over the mail read path (tests/fuzz_mail.c), seeded
# with tests/mail/*.eml.  Needs clang with -fsanitize=fuzzer: without one it
# reports a skip (77).  LUDUS_FUZZ_SECONDS sets the run time (default 20).
# Run from the build directory (config.h lives there), as `make check` does.
srcdir=${LUDUS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=$(pwd)
cc=${CLANG:-clang}
secs=${LUDUS_FUZZ_SECONDS:-20}

command -v "$cc" >/dev/null 2>&1 || { echo "no $cc: skipped"; exit 77; }
[ -f "$builddir/config.h" ] || { echo "no config.h in $builddir: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-fuzz.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
if ! "$cc" -fsanitize=fuzzer "$tmp/probe.c" -o "$tmp/probe" >/dev/null 2>&1; then
	echo "$cc cannot build libFuzzer targets: skipped"
	exit 77
fi

# shellcheck disable=SC2046 # pkg-config output is meant to split
"$cc" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-I"$builddir" -I"$srcdir/src" $(pkg-config --cflags libetpan libxml-2.0) \
	"$srcdir/tests/fuzz_mail.c" "$srcdir/src/mail.c" \
	"$srcdir/src/mailtext.c" "$srcdir/src/util.c" \
	-o "$tmp/fuzz_mail" $(pkg-config --libs libetpan libxml-2.0 | sed 's/-specs=[^ ]*//g') || exit 99

mkdir "$tmp/corpus"
cp "$srcdir"/tests/mail/*.eml "$tmp/corpus/"
if ! "$tmp/fuzz_mail" -max_total_time="$secs" -max_len=65536 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 "$tmp/corpus" \
	>"$tmp/log" 2>&1; then
	tail -n 60 "$tmp/log"
	exit 1
fi
grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$tmp/log"
exit 0
