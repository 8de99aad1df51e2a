#!/bin/sh
# A short libFuzzer run over the command parser and its alias file
# (tests/fuzz_command.c), seeded with command lines of every kind and the
# shipped games/commands.yaml.  The parser reads the command table
# (src/referee/refcmd.c), which names each command's run step: the rest of the
# referee comes from this build's libludus.a, uninstrumented.  Needs clang with -fsanitize=fuzzer: without
# one it reports a skip (77).  LUDUS_FUZZ_SECONDS sets the run time
# (default 15).  Run from the build directory (config.h lives there), as
# `make check` does.
secs=15
. "$(dirname "$0")/fuzzlib.sh"

# shellcheck disable=SC2046 # pkg-config output is meant to split
fuzz_build fuzz_command \
	-DCOMMANDS_YAML="\"$srcdir/games/commands.yaml\"" \
	-DLUDUS_GAMES_DIR='"/usr/share/ludus/games"' \
	-DLUDUS_TEMPLATES_DIR='"/usr/share/ludus/templates"' -DLUDUS_SYSCONFDIR='"/etc"' -DLUDUS_STATEDIR='"/var/lib/ludus"' \
	$(pkg-config --cflags yaml-0.1) "$srcdir/src/command.c" \
	"$srcdir/src/conf.c" "$srcdir/src/util.c" \
	"$builddir/libludus.a" \
	$(pkg-config --libs yaml-0.1 sqlite3 libcrypto libetpan |
	    sed 's/-specs=[^ ]*//g') -lm

n=0
for line in 'move #12 7. 3, 6' '3' 'b2-c3' 'crab b1-b2' 'p c1, 2 c1' '3co' \
    'new mancala pits=4 clock=3d first=me rated=no bob@example.org robot:2' \
    'admin adjudicate #5 South lost on time' 'admin extend #5 48h' \
    'set language ru' 'set notify turn' 'vacation 7' 'say #3 good game' \
    'СДАЮСЬ #4' 'новая игра манкала bob@example.org' '#8 4. 3' \
    'admin resolve 3 done' 'confirm ab12' 'signal madame' 'draw?'; do
	n=$((n + 1))
	printf '%s' "$line" >"$tmp/corpus/line$n"
done
{ printf 'Y'; cat "$srcdir/games/commands.yaml"; } >"$tmp/corpus/aliases"
fuzz_run fuzz_command 4096
