/*
 * Robot players: legal moves at every level in random positions of every
 * game, the obvious moves found in positions worked by hand, immediate wins
 * taken and immediate losses avoided in positions found by brute force,
 * determinism under a node budget, the engines' evaluate() functions, and
 * the transposition table's keys (Alquerque's hash(), game_hash_bytes).
 * Every search here has a budget in nodes, never in time.
 */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "robot.h"
#include "testutil.h"

#define NODES	2000		/* level 3's budget in most tests */

struct variant {
	const char *game;
	const char *opts;
	int	 seats;
};

static const struct variant variants[] = {
	{ "mancala", "", 2 },
	{ "mancala", "pits=4 seeds=3 empty_capture=true", 2 },
	{ "alquerque", "", 2 },
	{ "alquerque", "quiet_limit=20", 2 },
	{ "almakleh", "", 2 },
	{ "almakleh", "cards=discard centre=true", 2 },
	{ "almakleh", "opening=classic centre=true", 2 },
	{ "aluette", "", 4 },
	{ "spite", "", 2 },
};

static const struct game_ops *
ops_of(const char *game)
{
	return tu_def(game)->ops;
}

static int
seat_to_move(const struct game_ops *ops, const void *st)
{
	uint32_t mask = ops->to_move(st);
	int seat;

	for (seat = 0; seat < GAME_MAX_SEATS; seat++)
		if (mask & (1u << seat))
			return seat;
	return -1;
}

static int
same_move(const struct game_move *a, const struct game_move *b)
{
	return a->len == b->len && memcmp(a->d, b->d, a->len) == 0;
}

/* Is mv among the seat's legal moves? */
static int
is_legal(const struct game_ops *ops, const void *st, int seat,
    const struct game_move *mv)
{
	struct game_move moves[GAME_MAX_MOVES];
	int n = ops->legal(st, seat, moves, GAME_MAX_MOVES), i;

	for (i = 0; i < n; i++)
		if (same_move(&moves[i], mv))
			return 1;
	return 0;
}

static void
rng_for(struct rng *rng, uint64_t n)
{
	unsigned char seed[RNG_SEED_LEN];

	rng_seed_from_u64(seed, n);
	rng_init(rng, seed);
}

/* Play k random moves from the start (fewer if the game ends). */
static void *
random_position(const struct variant *v, uint64_t seed, int k,
    struct rng *rng)
{
	const struct game_ops *ops = ops_of(v->game);
	struct game_move moves[GAME_MAX_MOVES];
	void *st = tu_new(v->game, v->opts, seed, v->seats);
	int i, n, seat;

	for (i = 0; i < k && (seat = seat_to_move(ops, st)) >= 0; i++) {
		n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
		ck_assert_int_gt(n, 0);
		ops->apply(st, seat, &moves[rng_below(rng, (uint32_t)n)]);
	}
	return st;
}

static int
robot_move(const struct game_ops *ops, const void *st, int seat, int level,
    long nodes, uint64_t seed, struct game_move *mv)
{
	struct rng rng;
	char err[GAME_ERRLEN];
	int rc;

	rng_for(&rng, seed);
	rc = robot_choose_nodes(ops, st, seat, level, nodes, &rng, mv, NULL,
	    err, sizeof(err));
	ck_assert_msg(rc == 0, "%s level %d: %s", ops->name, level, err);
	return rc;
}

static char *
move_text(const struct game_ops *ops, const void *st, int seat,
    const struct game_move *mv)
{
	char text[GAME_MOVE_TEXT];

	ops->format_move(st, seat, mv, text, sizeof(text));
	return xstrdup(text);
}

/*
 * Every level in positions after 0-79 random moves of each variant: the
 * move returned is one legal() lists for the seat.  The card games have no
 * level 3 and say so.
 */
START_TEST(robot_moves_are_legal)
{
	const struct variant *v = &variants[_i];
	const struct game_ops *ops = ops_of(v->game);
	struct game_move mv;
	struct rng walk, rng;
	char err[GAME_ERRLEN];
	int pos, level, seat, checked = 0;

	rng_for(&walk, 1000 + (uint64_t)_i);
	for (pos = 0; pos < 60; pos++) {
		void *st = random_position(v, (uint64_t)pos,
		    (int)rng_below(&walk, 80), &walk);

		if ((seat = seat_to_move(ops, st)) < 0) {
			free(st);
			continue;
		}
		for (level = 1; level <= 3; level++) {
			rng_for(&rng, (uint64_t)pos);
			if (ops->evaluate == NULL && level == 3) {
				ck_assert_int_eq(robot_choose_nodes(ops, st,
				    seat, level, NODES, &rng, &mv, NULL, err,
				    sizeof(err)), -1);
				ck_assert_ptr_nonnull(strstr(err, "level 3"));
				continue;
			}
			robot_move(ops, st, seat, level, level == 3 ? 400 : 1,
			    (uint64_t)pos, &mv);
			ck_assert_msg(is_legal(ops, st, seat, &mv),
			    "%s level %d played an illegal move", v->game,
			    level);
			checked++;
		}
		free(st);
	}
	ck_assert_int_gt(checked, 30);
}
END_TEST

/* Whole games robot against robot: every move legal, every game ends (or
 * reaches the ply cap, for Almakleh's possible endless shuffling). */
START_TEST(robot_whole_games)
{
	static const struct variant *const g[] = { &variants[0],
		&variants[2], &variants[4] };
	const struct variant *v = g[_i];
	const struct game_ops *ops = ops_of(v->game);
	struct game_move mv;
	int game, ply, seat;

	for (game = 0; game < 2; game++) {
		void *st = tu_new(v->game, v->opts, (uint64_t)game, 2);

		for (ply = 0; ply < 200 && (seat = seat_to_move(ops, st)) >= 0;
		    ply++) {
			int level = seat == game ? 3 : 1 + ply % 2;

			robot_move(ops, st, seat, level, 300, (uint64_t)ply,
			    &mv);
			ck_assert(is_legal(ops, st, seat, &mv));
			ops->apply(st, seat, &mv);
		}
		ck_assert_int_gt(ply, 4);
		free(st);
	}
}
END_TEST

START_TEST(robot_refuses_what_it_cannot_do)
{
	const struct game_ops *ops = ops_of("mancala");
	void *st = tu_new("mancala", "", 1, 2);
	struct game_move mv;
	struct rng rng;
	char err[GAME_ERRLEN];

	rng_for(&rng, 1);
	ck_assert_int_eq(robot_choose_nodes(ops, st, 0, 0, NODES, &rng, &mv,
	    NULL, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "robot level 0: levels are 1-3");
	ck_assert_int_eq(robot_choose_nodes(ops, st, 0, 4, NODES, &rng, &mv,
	    NULL, err, sizeof(err)), -1);
	/* North may not move first. */
	ck_assert_int_eq(robot_choose_nodes(ops, st, 1, 2, NODES, &rng, &mv,
	    NULL, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "the robot's seat has no move to make");
	ck_assert_int_eq(robot_choose_nodes(ops, st, 0, 3, 0, &rng, &mv,
	    NULL, err, sizeof(err)), -1);
	free(st);
	st = tu_new("spite", "", 1, 2);
	ck_assert_int_eq(robot_choose(ops_of("spite"), st,
	    seat_to_move(ops_of("spite"), st), 3, 10, &rng, &mv, err,
	    sizeof(err)), -1);
	ck_assert_str_eq(err, "Spite & Malice has no level 3 robot yet");
	free(st);
}
END_TEST

/* The wall-clock entry point returns a legal move within about its
 * budget (generous bounds: the machine may be busy). */
START_TEST(robot_time_budget)
{
	const struct game_ops *ops = ops_of("alquerque");
	void *st = tu_new("alquerque", "", 1, 2);
	struct game_move mv;
	struct rng rng;
	struct timespec t0, t1;
	char err[GAME_ERRLEN];
	double secs;

	rng_for(&rng, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(robot_choose(ops, st, 0, 3, 200, &rng, &mv, err,
	    sizeof(err)), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert(is_legal(ops, st, 0, &mv));
	ck_assert_msg(secs >= 0.15 && secs < 5.0, "took %.3f s", secs);
	free(st);
}
END_TEST

/* Same (state, seed, level, nodes): same move, same node count; the count
 * stays within the budget (plus one node's children). */
START_TEST(robot_deterministic_with_node_budget)
{
	static const struct variant *const g[] = { &variants[0],
		&variants[2], &variants[4] };
	const struct variant *v = g[_i];
	const struct game_ops *ops = ops_of(v->game);
	struct robot_stats s1, s2;
	struct game_move m1, m2;
	struct rng walk, r1, r2;
	char err[GAME_ERRLEN];
	int pos, seat, level, differ = 0;

	rng_for(&walk, 77);
	for (pos = 0; pos < 12; pos++) {
		void *st = random_position(v, (uint64_t)pos, 6 + pos, &walk);

		if ((seat = seat_to_move(ops, st)) < 0) {
			free(st);
			continue;
		}
		for (level = 1; level <= 3; level++) {
			rng_for(&r1, (uint64_t)pos);
			rng_for(&r2, (uint64_t)pos);
			ck_assert_int_eq(robot_choose_nodes(ops, st, seat,
			    level, 3000, &r1, &m1, &s1, err, sizeof(err)), 0);
			ck_assert_int_eq(robot_choose_nodes(ops, st, seat,
			    level, 3000, &r2, &m2, &s2, err, sizeof(err)), 0);
			ck_assert(same_move(&m1, &m2));
			ck_assert_int_eq(s1.nodes, s2.nodes);
			ck_assert_int_eq(s1.depth, s2.depth);
			ck_assert_int_eq(s1.score, s2.score);
			ck_assert_int_le(s1.nodes, 3000 + GAME_MAX_MOVES);
			/* The generators were drawn from alike. */
			ck_assert_uint_eq(rng_u32(&r1), rng_u32(&r2));
		}
		/* A bigger budget searches deeper. */
		rng_for(&r1, (uint64_t)pos);
		ck_assert_int_eq(robot_choose_nodes(ops, st, seat, 3, 200,
		    &r1, &m1, &s1, err, sizeof(err)), 0);
		rng_for(&r2, (uint64_t)pos);
		ck_assert_int_eq(robot_choose_nodes(ops, st, seat, 3, 20000,
		    &r2, &m2, &s2, err, sizeof(err)), 0);
		if (s1.depth > 0)
			ck_assert_int_ge(s2.depth, s1.depth);
		differ += s2.nodes > s1.nodes;
		free(st);
	}
	ck_assert_int_gt(differ, 0);
}
END_TEST

/* The final margin for seat (the seat to move, or any seat once the game
 * is over) with perfect play by both, by plain alpha-beta on the engine's
 * moves: a search that shares nothing with the endgame database. */
static int
exhaustive(const struct game_ops *ops, const void *st, int seat, int alpha,
    int beta)
{
	struct game_move moves[GAME_MAX_MOVES];
	struct game_result r;
	unsigned char child[256];
	int n, i, v, best = INT_MIN, next;

	if (ops->to_move(st) == 0) {
		ops->result(st, &r);
		return r.score[seat] - r.score[!seat];
	}
	n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
	for (i = 0; i < n; i++) {
		memcpy(child, st, ops->state_size);
		ops->apply(child, seat, &moves[i]);
		next = seat_to_move(ops, child);
		v = next == -1 || next == seat ?
		    exhaustive(ops, child, seat, alpha, beta) :
		    -exhaustive(ops, child, next, -beta, -alpha);
		if (v > best)
			best = v;
		if (v > alpha)
			alpha = v;
		if (alpha >= beta)
			break;
	}
	return best;
}

/* The final margin for seat after it plays mv in st, with perfect play
 * from there. */
static int
exhaustive_after(const struct game_ops *ops, const void *st, int seat,
    const struct game_move *mv)
{
	unsigned char child[256];
	int next;

	memcpy(child, st, ops->state_size);
	ops->apply(child, seat, mv);
	next = seat_to_move(ops, child);
	return next == -1 || next == seat ?
	    exhaustive(ops, child, seat, INT_MIN + 1, INT_MAX) :
	    -exhaustive(ops, child, next, INT_MIN + 1, INT_MAX);
}


/* Does the seat win at once by playing mv?  Does it lose at once (the
 * opponent, to move next, has a move that wins)? */
static int
wins_now(const struct game_ops *ops, const void *st, int seat,
    const struct game_move *mv)
{
	struct game_result r;
	void *c = xmalloc(ops->state_size);

	memcpy(c, st, ops->state_size);
	ops->apply(c, seat, mv);
	ops->result(c, &r);
	free(c);
	return r.over && !r.draw && (r.winners & (1u << seat));
}

static int
loses_next(const struct game_ops *ops, const void *st, int seat,
    const struct game_move *mv)
{
	struct game_move replies[GAME_MAX_MOVES];
	void *c = xmalloc(ops->state_size);
	int opp, n, i, lost = 0;

	memcpy(c, st, ops->state_size);
	ops->apply(c, seat, mv);
	opp = seat_to_move(ops, c);
	if (opp >= 0 && opp != seat) {
		n = ops->legal(c, opp, replies, GAME_MAX_MOVES);
		for (i = 0; i < n && !lost; i++)
			lost = wins_now(ops, c, opp, &replies[i]);
	}
	free(c);
	return lost;
}

/* Does mv win by at least the margin of every move among moves[0..n)
 * that wins at once? */
static int
wins_by_more(const struct game_ops *ops, const void *st, int seat,
    const struct game_move *mv, const struct game_move *moves, int n)
{
	int i, best = 1, got = exhaustive_after(ops, st, seat, mv);

	for (i = 0; i < n; i++)
		if (wins_now(ops, st, seat, &moves[i]) &&
		    exhaustive_after(ops, st, seat, &moves[i]) > best)
			best = exhaustive_after(ops, st, seat, &moves[i]);
	return got >= best;
}

/*
 * Positions from random playouts where the side to move can win at once:
 * every level takes a win.  Positions where some moves lose at once and
 * others do not (checked here by trying every reply): level 3 plays one
 * that does not.  Both kinds must turn up often enough to mean something.
 */
START_TEST(robot_wins_now_and_avoids_losing_next)
{
	static const struct variant *const g[] = { &variants[0],
		&variants[2], &variants[4], &variants[6] };
	const struct variant *v = g[_i];
	const struct game_ops *ops = ops_of(v->game);
	struct game_move moves[GAME_MAX_MOVES], mv;
	struct rng walk;
	int game, seat, n, i, level, win, lose, safe, wins = 0, traps = 0;
	int check_traps = strcmp(v->game, "mancala") != 0;

	rng_for(&walk, 5);
	for (game = 0; game < 40 && (wins < 15 || traps < 15); game++) {
		void *st = tu_new(v->game, v->opts, (uint64_t)game, 2);
		int ply;

		for (ply = 0; ply < 400 && (seat = seat_to_move(ops, st)) >= 0;
		    ply++) {
			n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			win = lose = safe = 0;
			for (i = 0; i < n; i++) {
				if (wins_now(ops, st, seat, &moves[i]))
					win++;
				else if (check_traps &&
				    loses_next(ops, st, seat, &moves[i]))
					lose++;
				else
					safe++;
			}
			if (win > 0 && win < n) {
				wins++;
				for (level = 1; level <= 3; level++) {
					robot_move(ops, st, seat, level, NODES,
					    (uint64_t)ply, &mv);
					/* Where the engine knows exact results
					 * (Kalah's endgames), levels 2 and 3
					 * may win later by more. */
					ck_assert_msg(wins_now(ops, st, seat,
					    &mv) || (level >= 2 &&
					    ops->exact != NULL &&
					    wins_by_more(ops, st, seat, &mv,
					    moves, n)), "%s level %d missed a "
					    "win", v->game, level);
				}
			} else if (win == 0 && lose > 0 && safe > 0) {
				traps++;
				robot_move(ops, st, seat, 3, NODES,
				    (uint64_t)ply, &mv);
				ck_assert_msg(!loses_next(ops, st, seat, &mv),
				    "%s level 3 walked into a loss", v->game);
			}
			ops->apply(st, seat, &moves[rng_below(&walk,
			    (uint32_t)n)]);
		}
		free(st);
	}
	/* Alquerque's compulsory captures make a win with an alternative
	 * rare: most positions with a winning capture have nothing else. */
	ck_assert_int_ge(wins, 3);
	if (check_traps)
		ck_assert_int_ge(traps, 5);
}
END_TEST

/*
 * A small match: level 3 (on a small budget) against level 1, four games
 * per board game, each seat twice, from two random opening moves.  The full
 * measurement is bench/robots; this only catches a search gone wrong.
 */
START_TEST(robot_level3_beats_level1)
{
	static const struct variant *const g[] = { &variants[0],
		&variants[2], &variants[4] };
	const struct variant *v = g[_i];
	const struct game_ops *ops = ops_of(v->game);
	struct game_move moves[GAME_MAX_MOVES], mv;
	struct game_result r;
	struct rng walk;
	int game, ply, seat, n, strong, won = 0;

	rng_for(&walk, 11);
	for (game = 0; game < 4; game++) {
		void *st = tu_new(v->game, v->opts, (uint64_t)(game / 2), 2);

		strong = game % 2;
		for (ply = 0; ply < 300 && (seat = seat_to_move(ops, st)) >= 0;
		    ply++) {
			if (ply < 2) {
				n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
				mv = moves[rng_below(&walk, (uint32_t)n)];
			} else
				robot_move(ops, st, seat, seat == strong ? 3 :
				    1, NODES, (uint64_t)ply, &mv);
			ops->apply(st, seat, &mv);
		}
		ops->result(st, &r);
		won += r.over && !r.draw && (r.winners & (1u << strong));
		free(st);
	}
	ck_assert_msg(won >= 3, "%s: level 3 won %d of 4", v->game, won);
}
END_TEST

/* Mancala, South to move: pit 4's three seeds end in the store (an extra
 * turn); pit 2's two end on pit 4 and do nothing. */
START_TEST(robot_mancala_takes_extra_turn)
{
	const struct game_ops *ops = ops_of("mancala");
	void *st = tu_state(ops, "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 0 2 0 3 0 0 store 20\n"
	    "north 1 1 1 1 1 1 store 17\n"
	    "turn=0 over=0 ply=20 last=1:3\n");
	struct game_move mv;
	int level;
	uint64_t seed;

	for (level = 1; level <= 3; level++)
		for (seed = 0; seed < 8; seed++) {
			char *t;

			robot_move(ops, st, 0, level, NODES, seed, &mv);
			t = move_text(ops, st, 0, &mv);
			ck_assert_msg(strcmp(t, "4") == 0, "level %d: %s",
			    level, t);
			free(t);
		}
	free(st);
}
END_TEST

/* Mancala, South to move: pit 1's seed lands in empty pit 2 and takes the
 * 8 seeds opposite (North's pit 5); pit 6's three seeds pass the store and
 * give the turn away.  The capture wins (the stores make the board's 48
 * seeds), so the endgame database agrees with it. */
START_TEST(robot_mancala_takes_capture)
{
	const struct game_ops *ops = ops_of("mancala");
	void *st = tu_state(ops, "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 1 0 0 0 0 3 store 20\n"
	    "north 1 1 1 1 8 1 store 11\n"
	    "turn=0 over=0 ply=20 last=1:3\n");
	struct game_move mv;
	int level;
	uint64_t seed;

	for (level = 2; level <= 3; level++)
		for (seed = 0; seed < 8; seed++) {
			char *t;

			robot_move(ops, st, 0, level, NODES, seed, &mv);
			t = move_text(ops, st, 0, &mv);
			ck_assert_msg(strcmp(t, "1") == 0, "level %d: %s",
			    level, t);
			free(t);
		}
	free(st);
}
END_TEST

/*
 * Kalah endgames: positions drawn across the robots' endgame database
 * (every count of seeds in the pits up to its limit, spread at random
 * over both rows, either seat to move, stores at random), for each rule
 * of capture and two board sizes.  The engine's exact value agrees with
 * an exhaustive search, and the move of levels 2 and 3 keeps it: the
 * margin after the move is the best one.
 */
START_TEST(robot_mancala_endgame_perfect)
{
	static const int sizes[][2] = { { 6, 0 }, { 6, 1 }, { 4, 0 }, { 4, 1 } };
	const struct game_ops *ops = ops_of("mancala");
	const int pits = sizes[_i][0], ec = sizes[_i][1];
	struct rng rng;
	struct game_move mv;
	struct buf b;
	unsigned char st[256];
	int k, i, seeds, total, limit, seat, level, want, got, margin;
	int south, north;
	uint8_t cells[16];
	void *p;

	ck_assert_uint_le(ops->state_size, sizeof(st));
	rng_for(&rng, 3700 + (uint64_t)_i);
	limit = pits == 6 ? 10 : 16;	/* the database's, from its size */
	for (k = 0; k < 48; k++) {
		/* A count of seeds, then each seed into a random pit; both
		 * rows keep at least one. */
		total = 2 + (int)rng_below(&rng, (uint32_t)limit - 1);
		do {
			memset(cells, 0, sizeof(cells));
			for (seeds = 0; seeds < total; seeds++)
				cells[rng_below(&rng, 2u * (uint32_t)pits)]++;
			south = north = 0;
			for (i = 0; i < pits; i++) {
				south += cells[i];
				north += cells[pits + i];
			}
		} while (south == 0 || north == 0);
		seat = (int)rng_below(&rng, 2);
		memset(&b, 0, sizeof(b));
		buf_printf(&b, "mancala pits=%d seeds=4 empty_capture=%d\n",
		    pits, ec);
		buf_adds(&b, "south");
		for (i = 0; i < pits; i++)
			buf_printf(&b, " %d", cells[i]);
		buf_printf(&b, " store %u\nnorth", rng_below(&rng, 30));
		for (i = pits; i < 2 * pits; i++)
			buf_printf(&b, " %d", cells[i]);
		buf_printf(&b, " store %u\nturn=%d over=0 ply=30 last=0:0\n",
		    rng_below(&rng, 30), seat);
		p = tu_state(ops, b.s);
		memcpy(st, p, ops->state_size);
		free(p);
		buf_free(&b);

		want = exhaustive(ops, st, seat, INT_MIN + 1, INT_MAX);
		ck_assert_msg(ops->exact(st, seat, &margin) == 1,
		    "%d seeds not in the database", total);
		ck_assert_int_eq(margin, want);
		ck_assert(ops->exact(st, !seat, &margin) == 1 &&
		    margin == -want);
		for (level = 2; level <= 3; level++) {
			robot_move(ops, st, seat, level, NODES, (uint64_t)k,
			    &mv);
			got = exhaustive_after(ops, st, seat, &mv);
			ck_assert_msg(got == want, "pits=%d empty_capture=%d "
			    "position %d level %d: margin %d, best %d", pits,
			    ec, k, level, got, want);
		}
	}
}
END_TEST

/*
 * Alquerque, White to move, from five rows (rank 5 first).  White a1 can
 * take a2 and a4 in one chain (a1xa3xa5); White e1 can take only e2.  The
 * history key is written from the documented format: White's points as
 * bits 0-24, Black's as bits 25-49.
 */
START_TEST(robot_alquerque_takes_longer_chain)
{
	const struct game_ops *ops = ops_of("alquerque");
	unsigned long long key = (1ull << 0) | (1ull << 4) |
	    (1ull << (25 + 5)) | (1ull << (25 + 15)) | (1ull << (25 + 9)) |
	    (1ull << (25 + 24));
	char text[512];
	void *st;
	struct game_move mv;
	int level;
	uint64_t seed;

	snprintf(text, sizeof(text), "alquerque quiet_limit=0\n"
	    "5 ....B\n4 B....\n3 .....\n2 B...B\n1 W...W\n"
	    "turn=White ply=0 quiet=0 end=none\nlast=-\nhistory %013llx\n",
	    key);
	st = tu_state(ops, text);
	for (level = 2; level <= 3; level++)
		for (seed = 0; seed < 8; seed++) {
			char *t;

			robot_move(ops, st, 0, level, NODES, seed, &mv);
			t = move_text(ops, st, 0, &mv);
			ck_assert_msg(strcmp(t, "a1xa3xa5") == 0,
			    "level %d: %s", level, t);
			free(t);
		}
	free(st);
}
END_TEST

/* The evaluation is antisymmetric between the seats in every position of
 * random playouts, and 0 in Alquerque's symmetric opening (Mancala counts
 * the move as an advantage; Almakleh's cards differ). */
START_TEST(robot_evaluate_antisymmetric)
{
	static const struct variant *const g[] = { &variants[0],
		&variants[1], &variants[2], &variants[3], &variants[4],
		&variants[5] };
	const struct variant *v = g[_i];
	const struct game_ops *ops = ops_of(v->game);
	struct game_move moves[GAME_MAX_MOVES];
	struct rng walk;
	int game, seat, n, seen = 0;

	ck_assert_ptr_nonnull(ops->evaluate);
	rng_for(&walk, 9);
	for (game = 0; game < 20; game++) {
		void *st = tu_new(v->game, v->opts, (uint64_t)game, 2);
		int ply;

		if (strcmp(v->game, "alquerque") == 0)
			ck_assert_int_eq(ops->evaluate(st, 0), 0);
		for (ply = 0; ply < 120; ply++) {
			int e0 = ops->evaluate(st, 0), e1 = ops->evaluate(st, 1);

			ck_assert_int_eq(e0, -e1);
			ck_assert_int_lt(e0 < 0 ? -e0 : e0, 500000);
			seen++;
			if ((seat = seat_to_move(ops, st)) < 0)
				break;
			n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			ops->apply(st, seat, &moves[rng_below(&walk,
			    (uint32_t)n)]);
		}
		free(st);
	}
	ck_assert_int_gt(seen, 200);
}
END_TEST

/* Mancala: more seeds in one's store is better; having the move is
 * better; a position and its mirror (rows and stores swapped, the other
 * seat to move) score the same for their owners. */
START_TEST(robot_evaluate_mancala_prefers_better)
{
	const struct game_ops *ops = ops_of("mancala");
	void *even = tu_state(ops, "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 2 2 2 2 2 2 store 12\n"
	    "north 2 2 2 2 2 2 store 12\n"
	    "turn=0 over=0 ply=20 last=1:3\n");
	void *ahead = tu_state(ops, "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 2 2 2 2 2 2 store 20\n"
	    "north 2 2 2 2 2 2 store 4\n"
	    "turn=0 over=0 ply=20 last=1:3\n");
	void *pos = tu_state(ops, "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 5 0 1 0 3 0 store 11\n"
	    "north 2 0 0 4 1 2 store 19\n"
	    "turn=0 over=0 ply=20 last=1:3\n");
	void *mirror = tu_state(ops, "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 2 0 0 4 1 2 store 19\n"
	    "north 5 0 1 0 3 0 store 11\n"
	    "turn=1 over=0 ply=20 last=0:3\n");

	ck_assert_int_gt(ops->evaluate(even, 0), 0);
	ck_assert_int_gt(ops->evaluate(ahead, 0), ops->evaluate(even, 0));
	ck_assert_int_lt(ops->evaluate(ahead, 1), 0);
	ck_assert_int_eq(ops->evaluate(pos, 0), ops->evaluate(mirror, 1));
	ck_assert_int_lt(ops->evaluate(pos, 0), 0);
	free(even);
	free(ahead);
	free(pos);
	free(mirror);
}
END_TEST

/* Alquerque: a stone up is better (White a1, b1, c3 against Black a5,
 * b5; the history key from the documented format, as above). */
START_TEST(robot_evaluate_alquerque_prefers_better)
{
	const struct game_ops *ops = ops_of("alquerque");
	unsigned long long key = (1ull << 0) | (1ull << 1) | (1ull << 12) |
	    (1ull << (25 + 20)) | (1ull << (25 + 21));
	char text[512];
	void *st;

	snprintf(text, sizeof(text), "alquerque quiet_limit=0\n"
	    "5 BB...\n4 .....\n3 ..W..\n2 .....\n1 WW...\n"
	    "turn=White ply=0 quiet=0 end=none\nlast=-\nhistory %013llx\n",
	    key);
	st = tu_state(ops, text);
	ck_assert_int_gt(ops->evaluate(st, 0), 50);
	ck_assert_int_lt(ops->evaluate(st, 1), -50);
	free(st);
}
END_TEST

/* Alquerque: a capture the side to move must make is played out with
 * the captures it allows, so a free capture counts as the stone it wins
 * and one the opponent takes back as the even trade it is (White c1 must
 * jump c2 in both; in the second, c4 jumps back, four stones a side). */
START_TEST(robot_evaluate_alquerque_plays_captures_out)
{
	const struct game_ops *ops = ops_of("alquerque");
	void *free_take = tu_state(ops, "alquerque quiet_limit=0\n"
	    "5 B...B\n4 .....\n3 .....\n2 ..B..\n1 W.W.W\n"
	    "turn=White ply=0 quiet=0 end=none\nlast=-\nhistory\n");
	void *trade = tu_state(ops, "alquerque quiet_limit=0\n"
	    "5 ..B.B\n4 ..B..\n3 W....\n2 ..B..\n1 W.W.W\n"
	    "turn=White ply=0 quiet=0 end=none\nlast=-\nhistory\n");

	ck_assert_int_gt(ops->evaluate(free_take, 0), 150);
	ck_assert_int_lt(ops->evaluate(free_take, 1), -150);
	ck_assert_int_lt(ops->evaluate(trade, 0), 60);
	ck_assert_int_gt(ops->evaluate(trade, 0), -60);
	free(free_take);
	free(trade);
}
END_TEST

/* Alquerque: where the side to move must capture, its evaluation is the
 * best of the captures' by negamax (the play-out is exact), in every such
 * position of random games whose captures do not end the game at once. */
START_TEST(robot_evaluate_alquerque_negamax_of_captures)
{
	const struct game_ops *ops = ops_of("alquerque");
	struct game_move moves[GAME_MAX_MOVES];
	struct game_result r0, r;
	struct rng walk;
	void *st, *child = xmalloc(ops->state_size);
	int game, ply, seat, n, i, best, v, over, quiet, seen = 0;

	rng_for(&walk, 11);
	for (game = 0; game < 40; game++) {
		st = tu_new("alquerque", "", (uint64_t)game, 2);
		for (ply = 0; ply < 200 && (seat = seat_to_move(ops, st)) >= 0;
		    ply++) {
			n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			ops->result(st, &r0);
			best = INT_MIN;
			over = quiet = 0;
			for (i = 0; i < n; i++) {
				memcpy(child, st, ops->state_size);
				ops->apply(child, seat, &moves[i]);
				ops->result(child, &r);
				over |= r.over;
				/* Captures are compulsory: all or none. */
				quiet |= r.score[!seat] == r0.score[!seat];
				v = -ops->evaluate(child, !seat);
				if (v > best)
					best = v;
			}
			/* A play-out that ends the game counts a ply less
			 * the further down it does. */
			v = ops->evaluate(st, seat);
			if (!quiet && !over && (v > 20000 || v < -20000))
				ck_assert_int_eq(v, best + (v > 0 ? -1 : 1));
			else if (!quiet && !over)
				ck_assert_int_eq(v, best);
			seen += !quiet && !over;
			ops->apply(st, seat, &moves[rng_below(&walk,
			    (uint32_t)n)]);
		}
		free(st);
	}
	free(child);
	ck_assert_int_gt(seen, 100);
}
END_TEST

#define ALM_HEAD	"cards=pass centre=0 opening=normal redeals=0 asked=0"

static char alm_deck[2048], alm_rng[160];

static void *
alm_pos(const char *body)
{
	const struct game_ops *ops = ops_of("almakleh");
	char *text, *line, *p;
	void *st;

	if (alm_deck[0] == '\0') {
		st = tu_new("almakleh", "", 1, 2);
		text = tu_serialise(ops, st);
		for (line = text; line && *line; line = p) {
			if ((p = strchr(line, '\n')) != NULL)
				p++;
			if (strncmp(line, "card ", 5) == 0)
				strncat(alm_deck, line, (size_t)(p - line));
			else if (strncmp(line, "rng ", 4) == 0)
				util_strlcpy(alm_rng, line, sizeof(alm_rng));
		}
		free(text);
		free(st);
	}
	text = xasprintf("almakleh %s\n%s%s%s", ALM_HEAD, alm_deck, body,
	    alm_rng);
	st = tu_state(ops, text);
	free(text);
	return st;
}

/* Almakleh: a pawn up is better; a master nearer the enemy portal is
 * better; South's master on c4 walks onto North's portal c5 at every
 * level. */
START_TEST(robot_almakleh_evaluate_and_portal)
{
	const struct game_ops *ops = ops_of("almakleh");
	static const char cards[] = "south badger scorpion zebra\n"
	    "north panther swan\n"
	    "fresh zebra\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=0 ply=10 over=0 winner=0 how=0 hold=-1:0 "
	    "last=1:0:-1:0:0:0\n";
	char *body;
	void *even, *up, *near, *far, *st;
	struct game_move mv;
	int level;

	body = xasprintf("board PPMPP ..... ..... ..... ppmpp\n%s", cards);
	even = alm_pos(body);
	free(body);
	body = xasprintf("board PPMPP ..... ..... ..... p.mpp\n%s", cards);
	up = alm_pos(body);
	free(body);
	body = xasprintf("board PP.PP ..... ..... ..M.. ppmpp\n%s", cards);
	near = alm_pos(body);
	free(body);
	body = xasprintf("board PP.PP .M... ..... ..... ppmpp\n%s", cards);
	far = alm_pos(body);
	free(body);
	ck_assert_int_gt(ops->evaluate(up, 0), ops->evaluate(even, 0));
	ck_assert_int_gt(ops->evaluate(up, 0), 50);
	ck_assert_int_lt(ops->evaluate(up, 1), -50);
	ck_assert_int_gt(ops->evaluate(near, 0), ops->evaluate(far, 0));

	body = xasprintf("board ..... ..... ..... ..M.. m...p\n%s", cards);
	st = alm_pos(body);
	free(body);
	for (level = 1; level <= 3; level++) {
		robot_move(ops, st, 0, level, NODES, 3, &mv);
		ck_assert(wins_now(ops, st, 0, &mv));
	}
	free(even);
	free(up);
	free(near);
	free(far);
	free(st);
}
END_TEST

/* A state of the board text with its last lines. */
static void *
alq_state(const char *tail)
{
	char *text = xasprintf("alquerque quiet_limit=0\n"
	    "5 ....B\n4 .....\n3 .....\n2 .....\n1 W....\n%s", tail);
	void *st = tu_state(ops_of("alquerque"), text);

	free(text);
	return st;
}

/*
 * The table's key in Alquerque: the position (the stones and the side to
 * move), and the count of quiet moves only where quiet_limit makes it
 * decide the game; not the last move, the ply or the steps since the last
 * capture, so that a position reached by moves in another order (or back
 * again) finds its entry (the search sees a repetition on the state
 * itself, before it asks the table); and a state read back hashes as it
 * was, along random games.
 */
START_TEST(robot_alquerque_hash)
{
	const struct game_ops *ops = ops_of("alquerque");
	const struct variant *v = &variants[2];
	struct game_move moves[GAME_MAX_MOVES];
	struct rng rng;
	void *a, *b, *c, *st, *back;
	char *text;
	int game, i, n, seat;

	ck_assert_ptr_nonnull(ops->hash);
	a = alq_state("turn=White ply=0 quiet=0 end=none\nlast=-\nhistory\n");
	b = alq_state("turn=White ply=9 quiet=0 end=none\nlast=e3xe5\n"
	    "history\n");
	ck_assert(memcmp(a, b, ops->state_size) != 0);
	ck_assert(ops->hash(a) == ops->hash(b));
	free(b);
	b = alq_state("turn=White ply=4 quiet=4 end=none\nlast=e4-e5\n"
	    "history a1-a2 e5-e4 a2-a1 e4-e5\n");
	c = alq_state("turn=White ply=4 quiet=4 end=none\nlast=d5-e5\n"
	    "history a1-b1 e5-d5 b1-a1 d5-e5\n");
	ck_assert(ops->hash(a) == ops->hash(b));
	ck_assert(ops->hash(c) == ops->hash(b));
	free(c);
	free(b);
	b = alq_state("turn=Black ply=0 quiet=0 end=none\nlast=-\nhistory\n");
	ck_assert(ops->hash(a) != ops->hash(b));
	free(b);
	b = tu_state(ops, "alquerque quiet_limit=0\n"
	    "5 ...B.\n4 .....\n3 .....\n2 .....\n1 W....\n"
	    "turn=White ply=0 quiet=0 end=none\nlast=-\nhistory\n");
	ck_assert(ops->hash(a) != ops->hash(b));
	free(b);
	free(a);
	/* With quiet_limit, the moves left before the draw are part of the
	 * position. */
	a = tu_state(ops, "alquerque quiet_limit=20\n"
	    "5 ....B\n4 .....\n3 .....\n2 .....\n1 W....\n"
	    "turn=White ply=0 quiet=0 end=none\nlast=-\nhistory\n");
	b = tu_state(ops, "alquerque quiet_limit=20\n"
	    "5 ....B\n4 .....\n3 .....\n2 .....\n1 W....\n"
	    "turn=White ply=4 quiet=4 end=none\nlast=e4-e5\n"
	    "history a1-a2 e5-e4 a2-a1 e4-e5\n");
	ck_assert(ops->hash(a) != ops->hash(b));
	free(b);
	free(a);

	for (game = 0; game < 10; game++) {
		rng_for(&rng, (uint64_t)game);
		st = tu_new(v->game, v->opts, (uint64_t)game, v->seats);
		for (i = 0; i < 150 && (seat = seat_to_move(ops, st)) >= 0;
		    i++) {
			text = tu_serialise(ops, st);
			back = tu_state(ops, text);
			ck_assert_msg(ops->hash(back) == ops->hash(st),
			    "game %d ply %d: %s", game, i, text);
			free(back);
			free(text);
			n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			ops->apply(st, seat, &moves[rng_below(&rng,
			    (uint32_t)n)]);
		}
		free(st);
	}
}
END_TEST

/* The engines' hash helper: every byte counts, on either side of the
 * length where it turns to four lanes. */
START_TEST(robot_hash_bytes_every_byte)
{
	unsigned char buf[300];
	uint64_t h0, h;
	size_t len, i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7);
	for (len = 1; len <= sizeof(buf); len += 13) {
		h0 = game_hash_bytes(0, buf, len);
		ck_assert(h0 != game_hash_bytes(1, buf, len));
		ck_assert(h0 != game_hash_bytes(0, buf, len - 1));
		for (i = 0; i < len; i++) {
			buf[i] ^= 0x10;
			h = game_hash_bytes(0, buf, len);
			buf[i] ^= 0x10;
			ck_assert_msg(h != h0, "len %zu byte %zu", len, i);
		}
	}
}
END_TEST

static Suite *
robot_suite(void)
{
	Suite *s = suite_create("robot");
	TCase *tc = tcase_create("robot");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, robot_moves_are_legal, 0,
	    (int)nitems(variants));
	tcase_add_loop_test(tc, robot_whole_games, 0, 3);
	tcase_add_test(tc, robot_refuses_what_it_cannot_do);
	tcase_add_test(tc, robot_time_budget);
	tcase_add_loop_test(tc, robot_deterministic_with_node_budget, 0, 3);
	tcase_add_loop_test(tc, robot_wins_now_and_avoids_losing_next, 0, 4);
	tcase_add_loop_test(tc, robot_level3_beats_level1, 0, 3);
	tcase_add_test(tc, robot_mancala_takes_extra_turn);
	tcase_add_test(tc, robot_mancala_takes_capture);
	tcase_add_loop_test(tc, robot_mancala_endgame_perfect, 0, 4);
	tcase_add_test(tc, robot_alquerque_takes_longer_chain);
	tcase_add_loop_test(tc, robot_evaluate_antisymmetric, 0, 6);
	tcase_add_test(tc, robot_evaluate_mancala_prefers_better);
	tcase_add_test(tc, robot_evaluate_alquerque_prefers_better);
	tcase_add_test(tc, robot_evaluate_alquerque_plays_captures_out);
	tcase_add_test(tc, robot_evaluate_alquerque_negamax_of_captures);
	tcase_add_test(tc, robot_almakleh_evaluate_and_portal);
	tcase_add_test(tc, robot_alquerque_hash);
	tcase_add_test(tc, robot_hash_bytes_every_byte);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(robot_suite());
}
