/*
 * cardbot: robot players for the card games with hidden cards (Aluette,
 * Spite & Malice).
 *
 * A robot decides from its seat's view only.  cardbot_choose() first
 * copies the state and has the engine's determinize() replace every card
 * the seat cannot see with a random deal drawn from the robot's own
 * generator; nothing else of the given state is ever read.  Since
 * determinize() yields a state that depends only on the seat's view and
 * the numbers drawn, the decision for a given generator state is the same
 * whatever the hidden cards really are.
 *
 * Levels: 1 plays a legal move with a light preference, 2 looks one action
 * ahead with a hand-written evaluation, 3 runs information-set Monte Carlo
 * tree search (one tree for the robot's information sets; every iteration
 * samples a fresh deal consistent with the seat's view).
 */
#ifndef LUDUS_CARDBOT_H
#define LUDUS_CARDBOT_H

#include <stddef.h>

#include "games/game.h"
#include "rng.h"

#define CARDBOT_MAXLEVEL	3
#define CARDBOT_DEFAULT_MS	1000

/* The search budget of level 3.  With iterations > 0 exactly that many
 * iterations run, whatever the time (tests, benchmarks: reproducible);
 * otherwise the search stops after millis milliseconds of wall time
 * (CARDBOT_DEFAULT_MS when 0). */
struct cardbot_budget {
	long	iterations;
	long	millis;
};

/* Whether the engine has a card robot: determinize() and the cardbot
 * hooks (struct game_cardbot in games/game.h). */
int	cardbot_supports(const struct game_ops *);

/*
 * Choose a move for seat at level 1..3 into *move: one legal move of the
 * seat (for Spite & Malice a single action).  st is only read: it is
 * copied and the copy determinized for the seat before anything looks at
 * it.  budget may be NULL (the default wall time).  rng is the robot's own
 * generator and advances.  0, or -1 with err filled (no such level, a game
 * without a card robot, the seat may not act).
 */
int	cardbot_choose(const struct game_ops *, const void *st, int seat,
	    int level, const struct cardbot_budget *budget, struct rng *rng,
	    struct game_move *move, char *err, size_t errlen);

#endif
