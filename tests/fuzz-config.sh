#!/bin/sh
# A short libFuzzer run over the configuration reader (tests/fuzz_config.c),
# seeded with the sample file and the tests' own configurations.  Needs
# clang with -fsanitize=fuzzer: without one it reports a skip (77).
# LUDUS_FUZZ_SECONDS sets the run time (default 15).  Run from the build
# directory (config.h lives there), as `make check` does.
srcdir=${LUDUS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=$(pwd)
cc=${CLANG:-clang}
secs=${LUDUS_FUZZ_SECONDS:-15}

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
	-DLUDUS_GAMES_DIR='"/usr/share/ludus/games"' \
	-DLUDUS_TEMPLATES_DIR='"/usr/share/ludus/templates"' -DLUDUS_SYSCONFDIR='"/etc"' \
	-I"$builddir" -I"$srcdir/src" $(pkg-config --cflags yaml-0.1) \
	"$srcdir/tests/fuzz_config.c" "$srcdir/src/conf.c" "$srcdir/src/util.c" \
	-o "$tmp/fuzz_config" $(pkg-config --libs yaml-0.1) || exit 99

mkdir "$tmp/corpus"
cp "$srcdir/contrib/ludus.yaml.sample" "$tmp/corpus/sample"
printf 'referee:\n  address: r@example.org\n  admins: [a@example.org]\nin:\n  maildir:\n    path: md\nout:\n  smtp:\n    url: smtp://127.0.0.1:2525\n    starttls: off\nclock:\n  move: 7d+1d\n  reminders: [50%%, 10%%]\n' >"$tmp/corpus/small"
printf 'referee: {address: "r@example.org", name: "Ref: #1"}\nclub: {lists: [<l.example.org>]}\n' >"$tmp/corpus/flow"
printf 'referee: {address: "r@example.org", name: "a: b #c :", tag: x}\nstate_dir: "/a:"\nin: {maildir: {path: "- x", processed: "%s"}}\n' "'q\"" >"$tmp/corpus/quoted"
if ! "$tmp/fuzz_config" -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 "$tmp/corpus" \
	>"$tmp/log" 2>&1; then
	tail -n 60 "$tmp/log"
	exit 1
fi
grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$tmp/log"
exit 0
