#!/bin/sh
# A short libFuzzer run over the configuration reader (tests/fuzz_config.c),
# seeded with the sample file and the tests' own configurations.  Needs
# clang with -fsanitize=fuzzer: without one it reports a skip (77).
# LUDUS_FUZZ_SECONDS sets the run time (default 15).  Run from the build
# directory (config.h lives there), as `make check` does.
secs=15
. "$(dirname "$0")/fuzzlib.sh"

# shellcheck disable=SC2046 # pkg-config output is meant to split
fuzz_build fuzz_config \
	-DLUDUS_GAMES_DIR='"/usr/share/ludus/games"' \
	-DLUDUS_TEMPLATES_DIR='"/usr/share/ludus/templates"' -DLUDUS_SYSCONFDIR='"/etc"' -DLUDUS_STATEDIR='"/var/lib/ludus"' \
	$(pkg-config --cflags yaml-0.1) "$srcdir/src/conf.c" "$srcdir/src/util.c" \
	"$srcdir/src/confval.c" "$srcdir/src/confgen.c" "$srcdir/src/addr.c" \
	"$srcdir/src/yamlwalk.c" "$srcdir/src/lmtp.c" "$srcdir/src/log.c" \
	$(pkg-config --libs yaml-0.1)

cp "$srcdir/contrib/ludus.yaml.sample.in" "$tmp/corpus/sample"
printf 'referee:\n  address: r@example.org\n  admins: [a@example.org]\nin:\n  maildir:\n    path: md\nout:\n  smtp:\n    url: smtp://127.0.0.1:2525\n    starttls: off\nclock:\n  move: 7d+1d\n  reminders: [50%%, 10%%]\n' >"$tmp/corpus/small"
printf 'referee: {address: "r@example.org", name: "Ref: #1"}\nclub: {lists: [<l.example.org>]}\n' >"$tmp/corpus/flow"
printf 'referee: {address: "r@example.org", name: "a: b #c :", tag: x}\nstate_dir: "/a:"\nin: {maildir: {path: "- x", processed: "%s"}}\n' "'q\"" >"$tmp/corpus/quoted"
fuzz_run fuzz_config 4096
