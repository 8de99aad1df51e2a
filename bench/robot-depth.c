/*
 * bench/robot-depth: how deep level 3 searches, and how fast.
 *
 *   robot-depth [-g GAME] [-o OPTIONS] [-n POSITIONS] [-m MS,... |
 *               -N NODES,...] [-s SEED]
 *
 * From the start of GAME (default almakleh with opening=classic, the
 * classic game's rules; OPTIONS as `ludus new` takes them) and from
 * POSITIONS (default 20) middle-game positions, level 3 chooses a move
 * with each budget (default 100 and 1000 milliseconds); printed for each
 * budget: the depth completed and the positions searched a second from
 * the start, then the median, least and most over the middle-game
 * positions.  A middle-game position is reached by 8 to 15 plies of level
 * 2 from the start of a deal drawn from SEED (default 1) and its number,
 * one move in four at random, kept only while the game goes on.  The
 * robot's clock is the wall clock: run it niced on an otherwise idle
 * machine, and compare builds with the same positions.  With -N the
 * budgets are in positions searched instead, which makes the depths the
 * same on any machine however busy (a search's efficiency, apart from the
 * engine's speed).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gamedef.h"
#include "robot.h"

struct sample {
	int	 depth;
	double	 nps;
};

static int
cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
mover(const struct game_ops *ops, const void *st)
{
	uint32_t m = ops->to_move(st);
	int s;

	for (s = 0; s < GAME_MAX_SEATS; s++)
		if (m & (1u << s))
			return s;
	return -1;
}

static int by_nodes;

static struct sample
measure(const struct game_ops *ops, const void *st, long ms, uint64_t n)
{
	struct robot_stats rs;
	struct game_move mv;
	struct rng r;
	struct sample out;
	unsigned char seed[RNG_SEED_LEN];
	char err[GAME_ERRLEN];
	struct timespec a, b;
	double secs;

	rng_seed_from_u64(seed, n);
	rng_init(&r, seed);
	clock_gettime(CLOCK_MONOTONIC, &a);
	if ((by_nodes ? robot_choose_nodes(ops, st, mover(ops, st), 3, ms,
	    &r, &mv, &rs, err, sizeof(err)) : robot_choose_stats(ops, st,
	    mover(ops, st), 3, ms, &r, &mv, &rs, err, sizeof(err))) == -1) {
		fprintf(stderr, "robot-depth: %s\n", err);
		exit(1);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec -
	    a.tv_nsec) / 1e9;
	out.depth = rs.depth;
	/* A search that ended before its budget (a forced result, every
	 * line searched to its end) says nothing of the speed. */
	out.nps = by_nodes ? (rs.nodes >= ms / 2 ? (double)rs.nodes / secs :
	    -1) : secs * 1000 >= ms / 2 ? (double)rs.nodes / secs : -1;
	return out;
}

/* A middle-game position from seed and i into st; 0, or -1 when the
 * game ended on the way. */
static int
middle(const struct game_ops *ops, const struct game_opts *o, uint64_t seed,
    int i, void *st)
{
	struct game_move moves[GAME_MAX_MOVES], mv;
	unsigned char s[RNG_SEED_LEN];
	char err[GAME_ERRLEN];
	struct rng r;
	int ply, plies, seat, n;

	rng_seed_from_u64(s, seed * 1000 + (uint64_t)i);
	if (ops->create(st, o, s, 2, err, sizeof(err)) == -1) {
		fprintf(stderr, "robot-depth: %s\n", err);
		exit(1);
	}
	rng_init(&r, s);
	plies = 8 + (int)rng_below(&r, 8);
	for (ply = 0; ply < plies; ply++) {
		if ((seat = mover(ops, st)) < 0)
			return -1;
		n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
		if (rng_below(&r, 4) == 0)
			mv = moves[rng_below(&r, (uint32_t)n)];
		else if (robot_choose_nodes(ops, st, seat, 2, 1, &r, &mv, NULL,
		    err, sizeof(err)) == -1) {
			fprintf(stderr, "robot-depth: %s\n", err);
			exit(1);
		}
		ops->apply(st, seat, &mv);
	}
	return mover(ops, st) < 0 ? -1 : 0;
}

int
main(int argc, char **argv)
{
	const char *game = "almakleh", *opts = "opening=classic";
	char *mslist = NULL, *p, err[GAME_ERRLEN];
	struct gamedef *defs;
	const struct gamedef *def;
	const struct game_ops *ops;
	struct game_opts o;
	struct sample s, *mid;
	long budgets[8];
	int ndefs, npos = 20, nb = 0, c, b, i, k, full, *depths;
	uint64_t seed = 1;
	unsigned char start[RNG_SEED_LEN];
	double *nps;
	void *st;

	while ((c = getopt(argc, argv, "g:o:n:m:N:s:")) != -1)
		switch (c) {
		case 'g': game = optarg; break;
		case 'o': opts = optarg; break;
		case 'n': npos = atoi(optarg); break;
		case 'm': mslist = optarg; break;
		case 'N': mslist = optarg; by_nodes = 1; break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: robot-depth [-g GAME] "
			    "[-o OPTIONS] [-n POSITIONS] [-m MS,... | "
			    "-N NODES,...] [-s SEED]\n");
			return 2;
		}
	if (mslist == NULL) {
		budgets[nb++] = 100;
		budgets[nb++] = 1000;
	} else
		for (p = strtok(mslist, ","); p != NULL && nb < 8;
		    p = strtok(NULL, ","))
			budgets[nb++] = atol(p);
	if (npos < 1 || npos > 1000 || nb == 0) {
		fprintf(stderr, "robot-depth: 1-1000 positions, a budget\n");
		return 2;
	}
	if (gamedef_load_dir(gamedef_default_dir(), &defs, &ndefs, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "robot-depth: %s\n", err);
		return 1;
	}
	if ((def = gamedef_find(defs, ndefs, game)) == NULL ||
	    gamedef_opts_parse(def, opts, &o, err, sizeof(err)) == -1) {
		fprintf(stderr, "robot-depth: %s: %s\n", game,
		    def == NULL ? "no such game" : err);
		return 1;
	}
	ops = def->ops;
	st = xcalloc(1, ops->state_size);
	mid = xcalloc((size_t)npos, sizeof(*mid));
	depths = xcalloc((size_t)npos, sizeof(*depths));
	nps = xcalloc((size_t)npos, sizeof(*nps));
	for (b = 0; b < nb; b++) {
		rng_seed_from_u64(start, seed);
		if (ops->create(st, &o, start, 2, err, sizeof(err)) == -1) {
			fprintf(stderr, "robot-depth: %s\n", err);
			return 1;
		}
		s = measure(ops, st, budgets[b], seed);
		printf("%s %s, %ld %s: start depth %d, %.2f M positions/s\n",
		    game, opts, budgets[b], by_nodes ? "positions" : "ms",
		    s.depth, s.nps / 1e6);
		for (i = k = 0; k < npos && i < 100 * npos; i++) {
			if (middle(ops, &o, seed, i, st) == -1)
				continue;
			mid[k] = measure(ops, st, budgets[b], seed + (uint64_t)i);
			depths[k] = mid[k].depth;
			nps[k] = mid[k].nps;
			k++;
		}
		qsort(depths, (size_t)k, sizeof(*depths), cmp_int);
		qsort(nps, (size_t)k, sizeof(*nps), cmp_double);
		for (full = 0; full < k && nps[full] < 0; full++)
			;
		printf("%s %s, %ld %s: %d middle-game positions: depth median "
		    "%d (%d-%d); %d ended early (a result forced); the others "
		    "%.2f M positions/s median (%.2f-%.2f)\n", game, opts,
		    budgets[b], by_nodes ? "positions" : "ms", k, depths[k / 2], depths[0], depths[k - 1],
		    full, full < k ? nps[full + (k - full) / 2] / 1e6 : 0,
		    full < k ? nps[full] / 1e6 : 0, nps[k - 1] / 1e6);
		fflush(stdout);
	}
	free(st);
	free(mid);
	free(depths);
	free(nps);
	gamedef_free_all(defs, ndefs);
	return 0;
}
