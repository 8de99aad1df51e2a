/*
 * robot: built-in players (levels in robot.h).
 *
 * The search is negamax alpha-beta over copies of the engine's fixed-size
 * state: one state buffer and one move list per ply, allocated once per
 * decision.  Scores are from the side to move; a child whose side to move
 * is the same seat (Mancala's extra turn) is searched with the same window
 * and not negated.  A finished game scores ROBOT_WIN less the plies it took
 * (a quick win beats a slow one, a slow loss a quick one).
 *
 * The transposition table is keyed by a 64-bit hash of the state: the
 * engine's hash() where it has one, else of the whole state.  Equal bytes
 * are the same position with the same history, so such an entry never
 * applies to a position whose future differs (Almakleh's generator is
 * inside the state); it only misses the transpositions whose move
 * counters differ.  Alquerque's hash() is of the position alone, not of
 * the steps since the last capture: transpositions share an entry, and a
 * repetition the history makes is met on the state itself, before the
 * table is asked.  A bucket holds two entries: the deepest search seen
 * there and the latest.
 *
 * Moves are tried in this order: the table's best move for the position,
 * then the ply's two killers (the last moves that cut off a sibling), then
 * the rest by the seat's history counters (depth squared added for every
 * cutoff a move made anywhere in the tree, the move's bytes hashed into
 * ROBOT_HISTBITS bits), equal ones in legal()'s order.  Every move after
 * the first is searched with an empty window first (principal variation
 * search), and again with the whole window only when it proves better.
 *
 * A position whose result the engine knows (ops->exact) is a leaf scored
 * by its final margin above or below every evaluation (robot_known), no
 * horizon; in such a game
 * a finished game is scored the same way, by its margin, so that a slow
 * big win beats a quick small one as the database's values do.
 *
 * The budget is checked every ROBOT_CHECK nodes (time) or every node
 * (count).  The first iteration always completes, so there is always a move
 * from a completed depth; a later iteration cut short still counts where a
 * move beat the previous depth's best, which it searched first.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "robot.h"

#define ROBOT_WIN	1000000
#define ROBOT_INF	(ROBOT_WIN + 1)
#define ROBOT_KNOWN	(ROBOT_WIN / 2)	/* a result known by the engine */
#define ROBOT_MARGIN	2048		/* a seed of its margin: up to 200 */
#define ROBOT_TIE	1000		/* the evaluation among equal ones */
#define ROBOT_MAXPLY	64
#define ROBOT_CHECK	1024		/* nodes between looks at the clock */
#define ROBOT_TTMIN	10		/* table size bounds, as bits of the */
#define ROBOT_TTMAX	14		/* number of buckets: 512 KB at most */
#define ROBOT_KILLERS	2		/* cutoff moves kept per ply */
#define ROBOT_HISTBITS	10		/* history counters per seat */

enum { TT_EXACT = 1, TT_LOWER, TT_UPPER };

struct tt_entry {
	uint64_t key;
	int32_t	 score;
	int16_t	 best;		/* index into legal()'s list, -1 none */
	uint8_t	 depth;
	uint8_t	 flag;		/* 0 = empty */
};

/* Two entries share a bucket: the deepest search seen there, and the
 * latest one. */
struct tt_bucket {
	struct tt_entry deep, last;
};

struct search {
	const struct game_ops *ops;
	unsigned char *stack;	/* ROBOT_MAXPLY + 1 states */
	size_t	 stride;	/* their places: state_size rounded up to 64 */
	struct game_move *moves; /* GAME_MAX_MOVES per ply */
	int16_t	*order;		/* per ply: each move's index in legal() */
	struct game_move killer[ROBOT_MAXPLY + 1][ROBOT_KILLERS];
	uint32_t history[GAME_MAX_SEATS][1 << ROBOT_HISTBITS];
	uint32_t *score;	/* per ply: each move's history counter */
	struct tt_bucket *tt;
	uint64_t ttmask;	/* buckets - 1 */
	long	 nodes;
	long	 max_nodes;	/* 0: none */
	long	 next_check;	/* node count of the next look at the clock */
	struct timespec deadline;
	int	 timed;
	int	 depth;		/* iteration under way */
	int	 stop;
	int	 horizon;	/* the iteration scored a position by evaluate() */
};

static void *
state_at(struct search *s, int ply)
{
	return s->stack + (size_t)ply * s->stride;
}

/* The seat to move, or dflt when the game is over. */
static int
robot_mover(const struct game_ops *ops, const void *st, int dflt)
{
	uint32_t mask = ops->to_move(st);
	int seat;

	for (seat = 0; seat < GAME_MAX_SEATS; seat++)
		if (mask & (1u << seat))
			return seat;
	return dflt;
}

/* The state's 64-bit hash: the engine's, or of all its bytes. */
static uint64_t
robot_hash(const struct game_ops *ops, const void *st)
{
	return ops->hash != NULL ? ops->hash(st) :
	    game_hash_bytes(0, st, ops->state_size);
}

/*
 * A result the engine knows, by its final margin for the seat: any win
 * above every evaluation, a larger one above a smaller one.  Equal
 * results are told apart by the evaluation of the position (tie, within
 * +-ROBOT_TIE, far less than a seed of margin), so that among moves that
 * all keep the result the robot still prefers what its evaluation likes
 * (an extra turn, a capture), which gives an opponent who errs more room.
 */
static int
robot_known(int margin, int tie)
{
	if (tie > ROBOT_TIE)
		tie = ROBOT_TIE;
	if (tie < -ROBOT_TIE)
		tie = -ROBOT_TIE;
	return (margin > 0 ? ROBOT_KNOWN : margin < 0 ? -ROBOT_KNOWN : 0) +
	    margin * ROBOT_MARGIN + tie;
}

/* A finished game for seat, ply plies from the root.  In a game whose
 * engine knows exact results it is scored as they are, by its margin,
 * so that the search compares like with like. */
static int
robot_final(const struct game_ops *ops, const void *st, int seat, int ply)
{
	struct game_result r;
	int i, margin = 0;

	ops->result(st, &r);
	if (ops->exact != NULL && r.over) {
		for (i = 0; i < GAME_MAX_SEATS; i++)
			margin += (i == seat ? 1 : -1) * r.score[i];
		return robot_known(margin, 0);
	}
	if (r.draw || !r.over)
		return 0;
	return r.winners & (1u << seat) ? ROBOT_WIN - ply : -ROBOT_WIN + ply;
}

static int
robot_out_of_budget(struct search *s)
{
	struct timespec now;

	if (s->depth <= 1)
		return 0;
	if (s->max_nodes > 0 && s->nodes >= s->max_nodes)
		return 1;
	if (s->timed && s->nodes >= s->next_check) {
		s->next_check = s->nodes + ROBOT_CHECK;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > s->deadline.tv_sec ||
		    (now.tv_sec == s->deadline.tv_sec &&
		    now.tv_nsec >= s->deadline.tv_nsec))
			return 1;
	}
	return 0;
}

/* Mate scores are stored relative to the node, so they stay true when the
 * same position is met at another distance from the root. */
static int
tt_in(int score, int ply)
{
	if (score > ROBOT_WIN - 1000)
		return score + ply;
	if (score < -ROBOT_WIN + 1000)
		return score - ply;
	return score;
}

static int
tt_out(int score, int ply)
{
	if (score > ROBOT_WIN - 1000)
		return score - ply;
	if (score < -ROBOT_WIN + 1000)
		return score + ply;
	return score;
}

/* Search the child after mv, played by seat me; its score for me. */
static int robot_node(struct search *, int, int, int, int, int);

static int
robot_child(struct search *s, int ply, int depth, int alpha, int beta,
    int me, const struct game_move *mv)
{
	void *child = state_at(s, ply + 1);
	int them;

	memcpy(child, state_at(s, ply), s->ops->state_size);
	s->ops->apply(child, me, mv);
	them = robot_mover(s->ops, child, me);
	if (them == me)
		return robot_node(s, ply + 1, depth - 1, alpha, beta, me);
	return -robot_node(s, ply + 1, depth - 1, -beta, -alpha, them);
}

/*
 * The child after the i-th move tried: the first with the whole window,
 * every later one first with the empty window above alpha, which only
 * asks whether it is better; only a move that is gets searched again
 * with the whole window (principal variation search).
 */
static int
robot_pvs(struct search *s, int ply, int depth, int alpha, int beta, int me,
    const struct game_move *mv, int i)
{
	int v;

	if (i == 0 || beta - alpha <= 1)
		return robot_child(s, ply, depth, alpha, beta, me, mv);
	v = robot_child(s, ply, depth, alpha, alpha + 1, me, mv);
	if (v > alpha && v < beta && !s->stop)
		v = robot_child(s, ply, depth, alpha, beta, me, mv);
	return v;
}

static int
robot_same_move(const struct game_move *a, const struct game_move *b)
{
	int i;

	if (a->len != b->len)
		return 0;
	for (i = 0; i < a->len && i < (int)sizeof(a->d); i++)
		if (a->d[i] != b->d[i])
			return 0;
	return 1;
}

/* Bring moves[i] (with its index in order[]) to place k. */
static void
robot_promote(struct game_move *moves, int16_t *order, int i, int k)
{
	struct game_move t = moves[i];
	int16_t o = order[i];

	moves[i] = moves[k];
	order[i] = order[k];
	moves[k] = t;
	order[k] = o;
}

/*
 * The order moves are tried in: the transposition table's best move
 * first, then the ply's killers (moves that cut off a sibling), then the
 * rest as legal() gave them.
 */
/* A move's history counter for the seat: the moves' bytes hashed. */
static uint32_t *
robot_history(struct search *s, int seat, const struct game_move *mv)
{
	uint32_t h = 2166136261u;
	int i;

	for (i = 0; i < mv->len && i < (int)sizeof(mv->d); i++)
		h = (h ^ mv->d[i]) * 16777619u;
	return &s->history[seat][(h ^ h >> 16) & ((1u << ROBOT_HISTBITS) - 1)];
}

/* A cutoff at depth: the counters are halved before they could wrap. */
static void
robot_credit(struct search *s, int seat, const struct game_move *mv,
    int depth)
{
	uint32_t *h = robot_history(s, seat, mv);
	int i;

	if (*h > UINT32_MAX / 2)
		for (i = 0; i < 1 << ROBOT_HISTBITS; i++)
			s->history[seat][i] /= 2;
	*h += (uint32_t)(depth * depth);
}

static void
robot_order(struct search *s, int ply, int me, struct game_move *moves,
    int16_t *order, int n, int ttbest)
{
	uint32_t *score = s->score + (size_t)ply * GAME_MAX_MOVES, sv;
	struct game_move mv;
	int i, j, k, next = 0;
	int16_t o;

	for (i = 0; i < n; i++)
		order[i] = (int16_t)i;
	if (ttbest >= 0 && ttbest < n)
		robot_promote(moves, order, ttbest, next++);
	for (k = 0; k < ROBOT_KILLERS; k++) {
		if (s->killer[ply][k].len == 0)
			break;
		for (i = next; i < n; i++)
			if (robot_same_move(&moves[i], &s->killer[ply][k])) {
				robot_promote(moves, order, i, next++);
				break;
			}
	}
	/* The rest by their history counters, higher first; equal ones
	 * keep legal()'s order. */
	for (i = next; i < n; i++)
		score[i] = *robot_history(s, me, &moves[i]);
	for (i = next + 1; i < n; i++) {
		sv = score[i];
		if (sv <= score[i - 1])
			continue;
		mv = moves[i];
		o = order[i];
		for (j = i; j > next && score[j - 1] < sv; j--) {
			moves[j] = moves[j - 1];
			order[j] = order[j - 1];
			score[j] = score[j - 1];
		}
		moves[j] = mv;
		order[j] = o;
		score[j] = sv;
	}
}

static void
robot_killer(struct search *s, int ply, const struct game_move *mv)
{
	struct game_move *k = s->killer[ply];

	if (robot_same_move(&k[0], mv))
		return;
	memmove(k + 1, k, (ROBOT_KILLERS - 1) * sizeof(*k));
	k[0] = *mv;
}

/*
 * The score for me (the seat to move, or the seat that just moved when the
 * game is over) of the position at ply, searched depth plies more.
 */
static int
robot_node(struct search *s, int ply, int depth, int alpha, int beta, int me)
{
	const void *st = state_at(s, ply);
	struct game_move *moves = s->moves + (size_t)ply * GAME_MAX_MOVES;
	int16_t *order = s->order + (size_t)ply * GAME_MAX_MOVES;
	struct tt_bucket *b;
	struct tt_entry *e = NULL;
	uint64_t key;
	int n, i, v, best = -ROBOT_INF, besti = -1, alpha0 = alpha;

	s->nodes++;
	if (s->ops->to_move(st) == 0)
		return robot_final(s->ops, st, me, ply);
	/* A position the engine knows is no horizon. */
	if (s->ops->exact != NULL && s->ops->exact(st, me, &v))
		return robot_known(v, s->ops->evaluate(st, me));
	if (depth <= 0 || ply >= ROBOT_MAXPLY) {
		s->horizon = 1;
		return s->ops->evaluate(st, me);
	}
	if (robot_out_of_budget(s)) {
		s->stop = 1;
		return 0;
	}

	key = robot_hash(s->ops, st);
	b = &s->tt[key & s->ttmask];
	if (b->deep.flag && b->deep.key == key)
		e = &b->deep;
	else if (b->last.flag && b->last.key == key)
		e = &b->last;
	if (e != NULL && e->depth >= depth) {
		v = tt_out(e->score, ply);
		/* What the entry saw is unknown: count it as a horizon. */
		if (e->flag == TT_EXACT ||
		    (e->flag == TT_LOWER && v >= beta) ||
		    (e->flag == TT_UPPER && v <= alpha)) {
			s->horizon = 1;
			return v;
		}
	}

	n = s->ops->legal(st, me, moves, GAME_MAX_MOVES);
	if (n <= 0)
		return s->ops->evaluate(st, me);
	robot_order(s, ply, me, moves, order, n, e != NULL ? e->best : -1);
	for (i = 0; i < n; i++) {
		v = robot_pvs(s, ply, depth, alpha, beta, me, &moves[i], i);
		if (s->stop)
			return 0;
		if (v > best) {
			best = v;
			besti = i;
		}
		if (v > alpha)
			alpha = v;
		if (alpha >= beta) {
			robot_killer(s, ply, &moves[i]);
			robot_credit(s, me, &moves[i], depth);
			break;
		}
	}

	/* The deeper search keeps its place; the other goes in the latest
	 * one's. */
	e = b->deep.flag == 0 || b->deep.key == key ||
	    depth >= b->deep.depth ? &b->deep : &b->last;
	if (e == &b->deep && b->deep.flag && b->deep.key != key)
		b->last = b->deep;
	e->key = key;
	e->score = tt_in(best, ply);
	e->best = order[besti];
	e->depth = (uint8_t)depth;
	e->flag = best <= alpha0 ? TT_UPPER : best >= beta ? TT_LOWER :
	    TT_EXACT;
	return best;
}

static void
robot_search_init(struct search *s, const struct game_ops *ops,
    const void *state, long budget_ms, long nodes)
{
	int bits;

	memset(s, 0, sizeof(*s));
	s->ops = ops;
	/* Each state on cache lines of its own, as perft keeps them: how
	 * fast a copy is must not depend on where the heap put it. */
	s->stride = (ops->state_size + 63) / 64 * 64;
	if ((s->stack = aligned_alloc(64, (ROBOT_MAXPLY + 1) * s->stride)) ==
	    NULL)
		fatal("out of memory");
	s->moves = xreallocarray(NULL, (size_t)(ROBOT_MAXPLY + 1) *
	    GAME_MAX_MOVES, sizeof(*s->moves));
	s->order = xreallocarray(NULL, (size_t)(ROBOT_MAXPLY + 1) *
	    GAME_MAX_MOVES, sizeof(*s->order));
	s->score = xreallocarray(NULL, (size_t)(ROBOT_MAXPLY + 1) *
	    GAME_MAX_MOVES, sizeof(*s->score));
	/* About a bucket per node the budget allows (a time budget: a
	 * million nodes a second), within the bounds: a table that stays in
	 * the cache searches deeper in the same time than a larger one
	 * (measured), since most of what a probe costs is the miss. */
	for (bits = ROBOT_TTMIN; bits < ROBOT_TTMAX &&
	    ((long)1 << bits) < (nodes > 0 ? nodes : budget_ms * 1000); bits++)
		;
	s->ttmask = ((uint64_t)1 << bits) - 1;
	s->tt = xcalloc((size_t)1 << bits, sizeof(*s->tt));
	memcpy(state_at(s, 0), state, ops->state_size);
	if (nodes > 0)
		s->max_nodes = nodes;
	else {
		s->timed = 1;
		clock_gettime(CLOCK_MONOTONIC, &s->deadline);
		s->deadline.tv_sec += budget_ms / 1000;
		s->deadline.tv_nsec += (budget_ms % 1000) * 1000000L;
		if (s->deadline.tv_nsec >= 1000000000L) {
			s->deadline.tv_sec++;
			s->deadline.tv_nsec -= 1000000000L;
		}
	}
}

static void
robot_search_free(struct search *s)
{
	free(s->stack);
	free(s->moves);
	free(s->order);
	free(s->score);
	free(s->tt);
}

/*
 * Level 3.  The root's moves are shuffled once (ties go to whichever comes
 * first) and each iteration starts with the previous one's best.
 */
static int
robot_deepen(const struct game_ops *ops, const void *state, int seat,
    long budget_ms, long nodes, struct rng *rng, struct game_move *out,
    struct robot_stats *stats)
{
	struct search s;
	struct game_move *root;
	int n, i, depth, v, alpha, besti, best = 0, bestv = 0;

	robot_search_init(&s, ops, state, budget_ms, nodes);
	root = s.moves;
	n = ops->legal(state, seat, root, GAME_MAX_MOVES);
	rng_shuffle(rng, root, (size_t)n, sizeof(*root));
	for (depth = 1; n > 1 && depth < ROBOT_MAXPLY; depth++) {
		s.depth = depth;
		s.horizon = 0;
		alpha = -ROBOT_INF;
		besti = 0;
		for (i = 0; i < n; i++) {
			v = robot_pvs(&s, 0, depth, alpha, ROBOT_INF, seat,
			    &root[i], i);
			if (s.stop)
				break;
			if (v > alpha) {
				alpha = v;
				besti = i;
			}
		}
		/* Cut short: a move that beat the last depth's best (searched
		 * first) at this depth is better still. */
		if (s.stop && besti > 0)
			best = besti;
		if (s.stop)
			break;
		if (besti > 0) {
			struct game_move t = root[besti];

			memmove(root + 1, root, (size_t)besti * sizeof(*root));
			root[0] = t;
		}
		best = 0;
		bestv = alpha;
		if (stats != NULL)
			stats->depth = depth;
		/* A forced result, or a tree searched to its every end, needs
		 * no deeper look. */
		if (alpha > ROBOT_WIN - 1000 || alpha < -ROBOT_WIN + 1000 ||
		    !s.horizon)
			break;
	}
	*out = root[best];
	if (stats != NULL) {
		stats->nodes = s.nodes;
		stats->score = bestv;
	}
	robot_search_free(&s);
	return 0;
}

/* Keep the k-th of several equal candidates with probability 1/k. */
static int
robot_take_tie(struct rng *rng, int *ties)
{
	return rng_below(rng, (uint32_t)++*ties) == 0;
}

/* Level 1's class of a move: 3 wins, 2 captures or keeps the turn, 1 is
 * quiet or draws, 0 loses at once. */
static int
robot_class(const struct game_ops *ops, const void *before, const void *after,
    int seat)
{
	struct game_result r0, r1;
	int i, gain = 0;

	ops->result(before, &r0);
	ops->result(after, &r1);
	if (r1.over && !r1.draw)
		return r1.winners & (1u << seat) ? 3 : 0;
	if (r1.over)
		return 1;
	for (i = 0; i < GAME_MAX_SEATS; i++)
		gain += (i == seat ? 1 : -1) * (r1.score[i] - r0.score[i]);
	return gain > 0 || (ops->to_move(after) & (1u << seat)) ? 2 : 1;
}

/* Levels 1 and 2: every move played once on a copy. */
static void
robot_greedy(const struct game_ops *ops, const void *state, int seat,
    int level, const struct game_move *moves, int n, struct rng *rng,
    struct game_move *out, struct robot_stats *stats)
{
	void *child = xmalloc(ops->state_size);
	int i, v, best = 0, bestv = 0, ties = 0;

	for (i = 0; i < n; i++) {
		memcpy(child, state, ops->state_size);
		ops->apply(child, seat, &moves[i]);
		if (level == 1)
			v = robot_class(ops, state, child, seat);
		else if (ops->to_move(child) == 0)
			v = robot_final(ops, child, seat, 1);
		else if (ops->exact != NULL && ops->exact(child, seat, &v))
			v = robot_known(v, ops->evaluate(child, seat));
		else
			v = ops->evaluate(child, seat);
		if (i == 0 || v > bestv) {
			best = i;
			bestv = v;
			ties = 1;
		} else if (v == bestv && robot_take_tie(rng, &ties))
			best = i;
	}
	free(child);
	*out = moves[best];
	if (stats != NULL) {
		stats->nodes = n;
		stats->depth = 1;
		stats->score = bestv;
	}
}

static int
robot_run(const struct game_ops *ops, const void *state, int seat, int level,
    long budget_ms, long nodes, struct rng *rng, struct game_move *out,
    struct robot_stats *stats, char *err, size_t errlen)
{
	struct game_move *moves;
	int n;

	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	if (level < ROBOT_LEVEL_MIN || level > ROBOT_LEVEL_MAX) {
		util_err(err, errlen, "robot level %d: levels are %d-%d",
		    level, ROBOT_LEVEL_MIN, ROBOT_LEVEL_MAX);
		return -1;
	}
	if (level == 3 && ops->evaluate == NULL) {
		util_err(err, errlen, "%s has no level 3 robot yet",
		    ops->title);
		return -1;
	}
	moves = xreallocarray(NULL, GAME_MAX_MOVES, sizeof(*moves));
	n = seat >= 0 && seat < GAME_MAX_SEATS &&
	    (ops->to_move(state) & (1u << seat)) ?
	    ops->legal(state, seat, moves, GAME_MAX_MOVES) : 0;
	if (n <= 0) {
		free(moves);
		util_err(err, errlen, "the robot's seat has no move to make");
		return -1;
	}
	if (ops->evaluate == NULL) {
		/* Nothing but legal(): the hidden cards stay out of it. */
		*out = moves[rng_below(rng, (uint32_t)n)];
		if (stats != NULL)
			stats->nodes = 1;
	} else if (level < 3)
		robot_greedy(ops, state, seat, level, moves, n, rng, out,
		    stats);
	else
		robot_deepen(ops, state, seat, budget_ms, nodes, rng, out,
		    stats);
	free(moves);
	return 0;
}

int
robot_choose(const struct game_ops *ops, const void *state, int seat,
    int level, long budget_ms, struct rng *rng, struct game_move *out,
    char *err, size_t errlen)
{
	if (budget_ms <= 0)
		budget_ms = ROBOT_BUDGET_MS;
	return robot_run(ops, state, seat, level, budget_ms, 0, rng, out,
	    NULL, err, errlen);
}

int
robot_choose_stats(const struct game_ops *ops, const void *state, int seat,
    int level, long budget_ms, struct rng *rng, struct game_move *out,
    struct robot_stats *stats, char *err, size_t errlen)
{
	if (budget_ms <= 0)
		budget_ms = ROBOT_BUDGET_MS;
	return robot_run(ops, state, seat, level, budget_ms, 0, rng, out,
	    stats, err, errlen);
}

int
robot_choose_nodes(const struct game_ops *ops, const void *state, int seat,
    int level, long nodes, struct rng *rng, struct game_move *out,
    struct robot_stats *stats, char *err, size_t errlen)
{
	if (nodes <= 0) {
		util_err(err, errlen, "a node budget must be positive");
		return -1;
	}
	return robot_run(ops, state, seat, level, 0, nodes, rng, out, stats,
	    err, errlen);
}
