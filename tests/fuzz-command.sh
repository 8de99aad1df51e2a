#!/bin/sh
# A short libFuzzer run over the command parser and its alias file
# (tests/fuzz_command.c), seeded with command lines of every kind and the
# shipped games/commands.yaml.  The parser links alone: command.c with
# its syntax table, and only the pure helpers it reads with (util, the
# address and clock syntax, the YAML walker); no referee, store or mail
# (the link fails if command.c names one).  Needs clang with -fsanitize=fuzzer: without
# one it reports a skip (77).  LUDUS_FUZZ_SECONDS sets the run time
# (default 15).  Run from the build directory (config.h lives there), as
# `make check` does.
secs=15
. "$(dirname "$0")/fuzzlib.sh"

# shellcheck disable=SC2046 # pkg-config output is meant to split
fuzz_build fuzz_command \
	-DCOMMANDS_YAML="\"$srcdir/games/commands.yaml\"" \
	$(pkg-config --cflags yaml-0.1) "$srcdir/src/command.c" \
	"$srcdir/src/util.c" "$srcdir/src/addr.c" "$srcdir/src/confval.c" \
	"$srcdir/src/yamlwalk.c" "$srcdir/src/yamlbuiltin.c" \
	$(pkg-config --libs yaml-0.1 | sed 's/-specs=[^ ]*//g')

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
