# Shared by the short libFuzzer runs (fuzz-short.sh, fuzz-config.sh):
# find clang with libFuzzer (or report a skip, 77), make a scratch
# directory, build a harness, run it for LUDUS_FUZZ_SECONDS.  Sourced, not
# run; the caller sets secs (its default run time) first.
srcdir=${LUDUS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=$(pwd)
cc=${CLANG:-clang}
secs=${LUDUS_FUZZ_SECONDS:-$secs}

command -v "$cc" >/dev/null 2>&1 || { echo "no $cc: skipped"; exit 77; }
[ -f "$builddir/config.h" ] || { echo "no config.h in $builddir: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ludus-fuzz.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
if ! "$cc" -fsanitize=fuzzer "$tmp/probe.c" -o "$tmp/probe" >/dev/null 2>&1; then
	echo "$cc cannot build libFuzzer targets: skipped"
	exit 77
fi
mkdir "$tmp/corpus"

# fuzz_build NAME [cc arguments...]: build tests/NAME.c into $tmp/NAME.
fuzz_build() {
	name=$1
	shift
	"$cc" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	    -I"$builddir" -I"$srcdir/src" "$srcdir/tests/$name.c" "$@" \
	    -o "$tmp/$name" || exit 99
}

# fuzz_run NAME MAXLEN: run it over $tmp/corpus for $secs seconds.
fuzz_run() {
	if ! "$tmp/$1" -max_total_time="$secs" -max_len="$2" -timeout=10 \
	    -rss_limit_mb=2048 -print_final_stats=1 "$tmp/corpus" \
	    >"$tmp/log" 2>&1; then
		tail -n 60 "$tmp/log"
		exit 1
	fi
	grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$tmp/log"
	exit 0
}
