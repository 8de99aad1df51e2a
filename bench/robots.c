/*
 * bench/robots: robot against robot, to measure the levels' strength.
 *
 *   robots [-n GAMES] [-m MS | -N NODES] [-s SEED] [-o PLIES] [-c CAP]
 *          [-g GAME] [PAIR ...]
 *
 * For each game (Mancala, Alquerque, Almakleh, or the one -g names, with
 * its default options) and each level pair A:B (default 3:2 3:1 2:1 3:0
 * 2:0 1:0; level 0 is a uniformly random legal move), plays
 * GAMES games (default 200): in pairs from the same random opening of
 * PLIES random moves (default 2), A seated first in one and second in the
 * other.  A game still going after CAP plies (default 400) counts as a draw.
 * The search budget is MS milliseconds per move (default 1000), or NODES
 * positions per move, which makes the whole run reproducible.  Prints wins,
 * draws and losses of A, A's score with draws as half and its 95% Wilson
 * interval, and the mean time per level-A move.
 * Definitions come from $LUDUS_GAMES_DIR like everywhere else.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gamedef.h"
#include "robot.h"

struct bench {
	long	 games;
	long	 ms;
	long	 nodes;
	uint64_t seed;
	int	 opening;
	int	 cap;
};

struct tally {
	long	 win, draw, loss, capped;
	double	 secs;		/* in A's moves */
	long	 moves;		/* A's moves */
};

static double
bench_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int
bench_mover(const struct game_ops *ops, const void *st)
{
	uint32_t mask = ops->to_move(st);

	return mask == 0 ? -1 : (mask & 1) ? 0 : 1;
}

static void
bench_die(const char *what, const char *err)
{
	fprintf(stderr, "robots: %s: %s\n", what, err);
	exit(1);
}

/*
 * One game: level[seat] plays seat.  Returns 1 when seat `a` won, 0 for a
 * draw (or the cap), -1 when it lost.
 */
static int
bench_game(const struct bench *b, const struct gamedef *def,
    const struct game_opts *o, uint64_t n, const int level[2], int a,
    struct tally *t)
{
	const struct game_ops *ops = def->ops;
	unsigned char seed[RNG_SEED_LEN];
	struct game_move moves[GAME_MAX_MOVES], mv;
	struct game_result r;
	struct rng opening, robot;
	char err[GAME_ERRLEN];
	void *st = xcalloc(1, ops->state_size);
	int ply, seat, k;
	double t0;

	rng_seed_from_u64(seed, b->seed * 1000003u + n);
	if (ops->create(st, o, seed, 2, err, sizeof(err)) == -1)
		bench_die(def->name, err);
	rng_init_sub(&opening, seed, "bench-opening");
	rng_init_sub(&robot, seed, a == 0 ? "bench-robot-0" : "bench-robot-1");
	for (ply = 0; ply < b->cap && (seat = bench_mover(ops, st)) >= 0;
	    ply++) {
		if (ply < b->opening) {
			k = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			mv = moves[rng_below(&opening, (uint32_t)k)];
		} else {
			t0 = bench_now();
			if (level[seat] == 0) {
				k = ops->legal(st, seat, moves, GAME_MAX_MOVES);
				mv = moves[rng_below(&robot, (uint32_t)k)];
			} else if ((b->nodes > 0 ? robot_choose_nodes(ops, st,
			    seat, level[seat], b->nodes, &robot, &mv, NULL, err,
			    sizeof(err)) : robot_choose(ops, st, seat,
			    level[seat], b->ms, &robot, &mv, err,
			    sizeof(err))) == -1)
				bench_die(def->name, err);
			if (seat == a) {
				t->secs += bench_now() - t0;
				t->moves++;
			}
		}
		ops->apply(st, seat, &mv);
	}
	ops->result(st, &r);
	free(st);
	if (!r.over) {
		t->capped++;
		return 0;
	}
	if (r.draw)
		return 0;
	return r.winners & (1u << a) ? 1 : -1;
}

/* Wilson score interval for k successes in n trials, 95%. */
static void
wilson(double k, long n, double *lo, double *hi)
{
	const double z = 1.959964;
	double p = k / (double)n, d = 1 + z * z / (double)n,
	    c = (p + z * z / (2.0 * (double)n)) / d,
	    h = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n *
	    (double)n)) / d;

	*lo = c - h;
	*hi = c + h;
}

static void
bench_pair(const struct bench *b, const struct gamedef *def, int la, int lb)
{
	struct game_opts o;
	struct tally t;
	char err[GAME_ERRLEN];
	int level[2], a, res;
	double lo, hi;
	long i;

	if (gamedef_opts_parse(def, "", &o, err, sizeof(err)) == -1)
		bench_die(def->name, err);
	memset(&t, 0, sizeof(t));
	for (i = 0; i < b->games; i++) {
		/* Games 2k and 2k+1 share an opening, with the seats swapped. */
		a = (int)(i % 2);
		level[a] = la;
		level[!a] = lb;
		res = bench_game(b, def, &o, (uint64_t)(i / 2), level, a, &t);
		if (res > 0)
			t.win++;
		else if (res < 0)
			t.loss++;
		else
			t.draw++;
	}
	wilson((double)t.win + (double)t.draw / 2, b->games, &lo, &hi);
	printf("%-10s level %d vs %d: %4ld games  W %4ld  D %4ld  L %4ld  "
	    "win %5.1f%%  score %.3f [%.3f, %.3f]  (capped %ld, %.1f ms per "
	    "level-%d move)\n", def->name, la, lb, b->games, t.win, t.draw,
	    t.loss, 100.0 * (double)t.win / (double)b->games,
	    ((double)t.win + (double)t.draw / 2) / (double)b->games, lo, hi,
	    t.capped, t.moves ? 1000.0 * t.secs / (double)t.moves : 0.0, la);
	fflush(stdout);
}

static void
bench_usage(void)
{
	fprintf(stderr, "usage: robots [-n games] [-m ms | -N nodes] "
	    "[-s seed] [-o plies] [-c cap] [-g game] [A:B ...]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const char *const games[] = { "mancala", "alquerque",
		"almakleh" };
	static const char *const pairs[] = { "3:2", "3:1", "2:1", "3:0",
		"2:0", "1:0" };
	struct bench b = { 200, ROBOT_BUDGET_MS, 0, 1, 2, 400 };
	struct gamedef *defs;
	const struct gamedef *def;
	const char *only = NULL;
	char err[512];
	int ndefs, c, g, p, la, lb;

	while ((c = getopt(argc, argv, "n:m:N:s:o:c:g:")) != -1)
		switch (c) {
		case 'n':
			b.games = atol(optarg);
			break;
		case 'm':
			b.ms = atol(optarg);
			break;
		case 'N':
			b.nodes = atol(optarg);
			break;
		case 's':
			b.seed = strtoull(optarg, NULL, 10);
			break;
		case 'o':
			b.opening = atoi(optarg);
			break;
		case 'c':
			b.cap = atoi(optarg);
			break;
		case 'g':
			only = optarg;
			break;
		default:
			bench_usage();
		}
	if (b.games < 2 || b.ms <= 0 || b.nodes < 0 || b.opening < 0 ||
	    b.cap <= 0)
		bench_usage();
	if (gamedef_load_dir(gamedef_default_dir(), &defs, &ndefs, err,
	    sizeof(err)) == -1)
		bench_die("game definitions", err);
	if (b.nodes > 0)
		printf("budget %ld nodes per move", b.nodes);
	else
		printf("budget %ld ms per move", b.ms);
	printf(", %d random opening plies, cap %d plies, seed %llu\n",
	    b.opening, b.cap, (unsigned long long)b.seed);
	for (g = 0; g < 3; g++) {
		if (only != NULL && strcmp(only, games[g]) != 0)
			continue;
		if ((def = gamedef_find(defs, ndefs, games[g])) == NULL)
			bench_die(games[g], "no definition");
		for (p = 0; p < (optind < argc ? argc - optind :
		    (int)(sizeof(pairs) / sizeof(pairs[0]))); p++) {
			const char *pair = optind < argc ? argv[optind + p] :
			    pairs[p];

			if (sscanf(pair, "%d:%d", &la, &lb) != 2)
				bench_usage();
			bench_pair(&b, def, la, lb);
		}
	}
	gamedef_free_all(defs, ndefs);
	return 0;
}
