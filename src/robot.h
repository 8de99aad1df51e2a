/*
 * robot: built-in players that choose a move for a seat.
 *
 * Like an engine, this module knows only game.h, rng.h and util.h.  Levels:
 *
 *   1  a legal move with a light preference: a move that wins at once,
 *      then one that captures (the seat's score gains on the opponent's)
 *      or keeps the turn (Mancala's extra turn), chosen at random among
 *      equals; never a move that loses at once when another exists.
 *   2  greedy: every move is played on a copy and the position after it
 *      scored by the engine's evaluate(); the best, at random among equals.
 *   3  alpha-beta search with iterative deepening and a transposition
 *      table, scored by evaluate() at the horizon, within a budget.
 *
 * Where the engine knows a position's exact result (ops->exact: Kalah's
 * endgame database), levels 2 and 3 take it instead of evaluate(), and
 * level 3 ends its search there: known results rank above every
 * evaluation, by their final margin.
 *
 * Levels 2 and 3 look at the positions after a move, so they need the
 * engine's evaluate(), which only perfect-information engines provide.  For
 * an engine without it (the card games) levels 1 and 2 play a uniformly
 * random legal move, decided from legal() alone so that nothing hidden can
 * leak into the choice, and level 3 is refused.
 *
 * The choice depends on the position, the level, the budget and the numbers
 * drawn from the caller's generator.  With a budget in nodes it is fully
 * deterministic; with one in milliseconds the depth reached (and so the
 * move) depends on the machine's speed.
 */
#ifndef LUDUS_ROBOT_H
#define LUDUS_ROBOT_H

#include <stddef.h>

#include "games/game.h"
#include "rng.h"

#define ROBOT_LEVEL_MIN		1
#define ROBOT_LEVEL_MAX		3
#define ROBOT_BUDGET_MS		1000	/* default time per move */

/* What a search did (for benchmarks and tests). */
struct robot_stats {
	long	nodes;		/* positions visited */
	int	depth;		/* last completed iteration (level 3) */
	int	score;		/* its score for the seat, evaluate()'s scale */
};

/*
 * Choose a move for seat (which must be able to act) at the level, within
 * budget_ms milliseconds of wall time (<= 0: ROBOT_BUDGET_MS).  The search
 * stops at the budget and plays the best move of the last completed depth,
 * or one the depth cut short had already found better.
 * rng is the caller's (robots draw from it to break ties).  0 with *out
 * set to a legal move, or -1 with err filled (unknown level, no legal move,
 * level 3 without an evaluate()).
 */
int	robot_choose(const struct game_ops *, const void *state, int seat,
	    int level, long budget_ms, struct rng *, struct game_move *out,
	    char *err, size_t errlen);

/*
 * The same with the budget counted in positions visited (nodes > 0)
 * instead of time, so the move is a function of (state, seat, level,
 * nodes, rng) alone.  stats may be NULL.
 */
int	robot_choose_nodes(const struct game_ops *, const void *state,
	    int seat, int level, long nodes, struct rng *,
	    struct game_move *out, struct robot_stats *stats, char *err,
	    size_t errlen);

/* robot_choose with what the search did in stats (benchmarks). */
int	robot_choose_stats(const struct game_ops *, const void *state,
	    int seat, int level, long budget_ms, struct rng *,
	    struct game_move *out, struct robot_stats *stats, char *err,
	    size_t errlen);

#endif
