#!/bin/sh
# A short libFuzzer run over the mail read path (tests/fuzz_mail.c), seeded
# with tests/mail/*.eml and tests/mail/kinds/*.eml.  Needs clang with
# -fsanitize=fuzzer: without one it reports a skip (77).  LUDUS_FUZZ_SECONDS sets the run time (default 20).
# Run from the build directory (config.h lives there), as `make check` does.
secs=20
. "$(dirname "$0")/fuzzlib.sh"

# shellcheck disable=SC2046 # pkg-config output is meant to split
fuzz_build fuzz_mail $(pkg-config --cflags libetpan libxml-2.0) \
	"$srcdir/src/mail.c" "$srcdir/src/mailtext.c" "$srcdir/src/util.c" \
	"$srcdir/src/addr.c" \
	$(pkg-config --libs libetpan libxml-2.0 | sed 's/-specs=[^ ]*//g')

cp "$srcdir"/tests/mail/*.eml "$srcdir"/tests/mail/kinds/*.eml "$tmp/corpus/"
fuzz_run fuzz_mail 65536
