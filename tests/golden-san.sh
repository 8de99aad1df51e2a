#!/bin/sh
# A sample of the golden cases (tests/mail/referee/README) replayed by the
# build under test, which the test command builds with ASan and UBSan:
# tests/golden.sh replays every case by the build without sanitizers,
# which starts several times faster.  The sample reaches every game, in
# three languages, robots, seeks, conditional moves, takebacks, mistakes,
# the admins' commands, remarks and the HTML of errors (check_referee
# plays whole card games under the sanitizers).
: "${LUDUS_SRCDIR:?}"
LUDUS_PLAIN_BIN= GOLDEN_NAME=golden-san exec sh "$LUDUS_SRCDIR/tests/golden.sh" \
    game-kalah-3-pits game-alquerque-ar game-almakleh-ru game-spite-ar \
    aluette-say-signal seek-aluette-four robot-answers conditional-fires \
    takeback-accepted move-errors admin-game-actions html-errors \
    remarks-around-moves
