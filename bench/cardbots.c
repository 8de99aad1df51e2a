/*
 * cardbots: card robots of two levels play each other and the result is
 * printed with a 95% confidence interval.
 *
 *   bench/cardbots [-g spite|aluette] [-n MATCHES] [-a LEVEL] [-b LEVEL]
 *       [-i ITERATIONS | -t MILLIS] [-o "OPT=VAL ..."] [-s SEED]
 *
 * Matches come in pairs on the same deal with the seats swapped, so that
 * neither level profits from the cards or from moving first.  Aluette is
 * two robots of level A partnering each other against two of level B
 * (teams=fixed, so the partnerships are known before the deal).  Level 0
 * is a uniformly random legal move.  The game definitions are read from
 * $LUDUS_GAMES_DIR (else the installed ones).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cardbot.h"
#include "gamedef.h"

/* Wilson score interval for k successes in n trials, 95%. */
static void
wilson(double k, int n, double *lo, double *hi)
{
	const double z = 1.959964;
	double p, d, c, h;

	if (n == 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = k / n;
	d = 1 + z * z / n;
	c = (p + z * z / (2.0 * n)) / d;
	h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
	*lo = c - h;
	*hi = c + h;
}

static void
usage(void)
{
	fprintf(stderr, "usage: cardbots [-g spite|aluette] [-n matches] "
	    "[-a level] [-b level] [-i iterations | -t millis] "
	    "[-o options] [-s seed]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	const char *game = "spite", *optext = NULL;
	struct cardbot_budget budget = { 0, 0 };
	struct gamedef *defs;
	const struct gamedef *def;
	const struct game_ops *ops;
	struct game_opts opts;
	struct game_result res;
	static struct game_move rmoves[GAME_MAX_MOVES];
	struct game_move m;
	struct rng bots[GAME_MAX_SEATS];
	unsigned char seed[RNG_SEED_LEN];
	char err[512], label[32];
	void *st;
	int ch, nmatch = 200, la = 3, lb = 1, ndefs, i, s, nseats, wins = 0,
	    draws = 0, losses = 0, level[GAME_MAX_SEATS], aseats, mover;
	long plies = 0;
	unsigned long long base = 1;
	double lo, hi, slo, shi, t0;
	struct timespec ts;
	uint32_t mask;

	while ((ch = getopt(argc, argv, "g:n:a:b:i:t:o:s:")) != -1) {
		switch (ch) {
		case 'g':
			game = optarg;
			break;
		case 'n':
			nmatch = atoi(optarg);
			break;
		case 'a':
			la = atoi(optarg);
			break;
		case 'b':
			lb = atoi(optarg);
			break;
		case 'i':
			budget.iterations = atol(optarg);
			break;
		case 't':
			budget.millis = atol(optarg);
			break;
		case 'o':
			optext = optarg;
			break;
		case 's':
			base = strtoull(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	if (nmatch < 1 || la < 0 || la > CARDBOT_MAXLEVEL || lb < 0 ||
	    lb > CARDBOT_MAXLEVEL)
		usage();
	if (gamedef_load_dir(gamedef_default_dir(), &defs, &ndefs, err,
	    sizeof(err)) == -1)
		fatal("game definitions: %s", err);
	if ((def = gamedef_find(defs, ndefs, game)) == NULL ||
	    !cardbot_supports(def->ops))
		fatal("%s: no card robot for it", game);
	ops = def->ops;
	if (optext == NULL) {
		/* Fixed partnerships where the game lets them be chosen, so
		 * that robots of one level partner each other. */
		optext = "";
		for (i = 0; i < def->nopts; i++)
			if (strcmp(def->opts[i].name, "teams") == 0)
				optext = "teams=fixed";
	}
	if (gamedef_opts_parse(def, optext, &opts, err, sizeof(err)) == -1)
		fatal("options: %s", err);
	nseats = def->seats;
	st = xmalloc(ops->state_size);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (double)ts.tv_sec + ts.tv_nsec / 1e9;

	for (i = 0; i < nmatch; i++) {
		/* Even matches: level A in seat 0 (Aluette: seats 0 and 2,
		 * North-South with teams=fixed); odd: the seats swapped, same
		 * deal. */
		aseats = i % 2 == 0 ? 0x5 : 0xa;
		if (nseats == 2)
			aseats = i % 2 == 0 ? 0x1 : 0x2;
		rng_seed_from_u64(seed, base + (unsigned long long)(i / 2));
		if (ops->create(st, &opts, seed, nseats, err,
		    sizeof(err)) == -1)
			fatal("create: %s", err);
		for (s = 0; s < nseats; s++) {
			level[s] = aseats & (1 << s) ? la : lb;
			snprintf(label, sizeof(label), "robot-%d-%d", i, s);
			rng_init_sub(&bots[s], seed, label);
		}
		for (;;) {
			ops->result(st, &res);
			if (res.over)
				break;
			mask = ops->to_move(st);
			for (mover = 0; !(mask & (1u << mover)); mover++)
				;
			if (level[mover] == 0) {
				/* Level 0: a uniformly random legal move. */
				int k = ops->legal(st, mover, rmoves,
				    GAME_MAX_MOVES);

				m = rmoves[rng_below(&bots[mover],
				    (uint32_t)k)];
			} else if (cardbot_choose(ops, st, mover, level[mover],
			    &budget, &bots[mover], &m, err, sizeof(err)) == -1)
				fatal("robot: %s", err);
			ops->apply(st, mover, &m);
			plies++;
		}
		if (res.draw)
			draws++;
		else if (res.winners & (uint32_t)aseats)
			wins++;
		else
			losses++;
		if ((i + 1) % 10 == 0)
			fprintf(stderr, "%d matches: %d-%d-%d\n", i + 1, wins,
			    draws, losses);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	wilson(wins, nmatch, &lo, &hi);
	wilson(wins + draws / 2.0, nmatch, &slo, &shi);
	printf("%s, level %d against level %d, %d matches (both seatings), "
	    "budget %s %ld\n", ops->name, la, lb, nmatch,
	    budget.iterations > 0 ? "iterations" : "ms",
	    budget.iterations > 0 ? budget.iterations : budget.millis > 0 ?
	    budget.millis : (long)CARDBOT_DEFAULT_MS);
	printf("level %d: %d wins, %d draws, %d losses\n", la, wins, draws,
	    losses);
	printf("win rate %.3f, 95%% Wilson interval [%.3f, %.3f]\n",
	    (double)wins / nmatch, lo, hi);
	printf("score (draws half) %.3f, 95%% Wilson interval [%.3f, %.3f]\n",
	    (wins + draws / 2.0) / nmatch, slo, shi);
	printf("%ld moves in %.1f s\n", plies,
	    (double)ts.tv_sec + ts.tv_nsec / 1e9 - t0);
	free(st);
	gamedef_free_all(defs, ndefs);
	return 0;
}
