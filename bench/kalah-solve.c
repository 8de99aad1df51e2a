/*
 * bench/kalah-solve: the value of Kalah from its start, solved.
 *
 *   kalah-solve [-p PITS] [-s SEEDS] [-e] [-d DBSEEDS] [-t TTBITS]
 *               [-T SECONDS] [-c] [-E POSITIONS [-m MS] [-l LO-HI]]
 *               [-P VALUE [-m MS]]
 *
 * Solves Kalah(PITS, SEEDS) (default 6 and 4) under the default rule of
 * capture, or with -e under empty_capture=true (a last seed in an own
 * empty pit captures even when the pit opposite is empty): the seeds the
 * first player ends ahead by with perfect play by both.  The search is
 * MTD(f): zero-window alpha-beta searches over the gains still to come
 * (a position's value does not depend on the stores, so positions that
 * differ only there share their entry), driven from a first guess to the
 * value, with a transposition table of 2^TTBITS entries (default 24, 16
 * bytes each) keeping a lower and an upper bound per position, and the
 * endgame database of src/games/mancala-db.c with every position of at
 * most DBSEEDS seeds in the pits (default 16) at the leaves.  Children are
 * tried best first: the table's best move, then sowings that end in the
 * store, then captures, then the rest by the seeds they gain.  The
 * engine's own apply() plays the moves.  Positions are keyed by a 64-bit
 * hash of their pits (the chance of a collision over 10^10 positions is
 * about 10^-9).  Each MTD(f) step prints its bound, the positions searched
 * and the time; after SECONDS (default none) it stops and says how far it
 * got.  -c checks the solver against a plain alpha-beta search without
 * table or database on the small boards (3 and 4 pits, 1 to 3 seeds),
 * both rules, and exits.
 *
 * -E holds the robots against perfect play in endgames instead: POSITIONS
 * positions of the board (drawn from the seed 37: LO to HI seeds in the
 * pits, default 10-18, each thrown into a pit at random with both rows
 * kept non-empty, the rest of the board's seeds split at random between
 * the stores, either seat to move), each move's exact value by the solver,
 * and the move level 3 chooses in MS milliseconds (default 1000): how
 * often it keeps the game's result (a win, draw or loss as perfect play
 * gets) and how often the best margin, with 95% Wilson intervals.
 *
 * -P has level 3 (MS milliseconds a move) play the first seat from the
 * start against a perfect second player that knows every move's exact
 * value and plays the one worst for level 3; VALUE is the game's value
 * (from a solve).  After each of level 3's moves the position is solved
 * again: level 3 keeps the value when it never drops.  Each line says the
 * move and the value after it.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "games/game.h"
#include "games/mancala.h"
#include "robot.h"

struct entry {
	uint64_t key;
	int16_t	 lo, hi;
	uint8_t	 best;		/* pit + 1, 0 none */
};

static struct entry *tt;
static uint64_t ttmask;
static struct mancala_db *db;
static struct mancala base;	/* size and rule */
static long long nodes;
static time_t deadline;
static int stopped;

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t
key_of(const struct mancala *m)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	int n = m->pits, me = m->turn, i;

	for (i = 0; i < n; i++) {
		h = (h ^ m->ring[me * (n + 1) + i]) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (i = 0; i < n; i++) {
		h = (h ^ m->ring[(1 - me) * (n + 1) + i]) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	return h * 0xbf58476d1ce4e5b9ULL;
}

struct child {
	struct mancala m;
	int	 gain;		/* the mover's store gain on the other's */
	int	 again;		/* the same seat moves next */
	int	 order;
	int	 pit;
};

/* The mover's gain to come in m (stores ignored), fail-soft. */
static int
solve(const struct mancala *m, int alpha, int beta)
{
	struct child c[MANCALA_MAXPITS], t;
	struct game_move mv;
	struct entry *e;
	uint64_t key;
	int n = m->pits, me = m->turn, k = 0, i, j, v, best = INT_MIN, bestpit = 0;
	int a0 = alpha, b0 = beta, gain, mine = me * (n + 1), theirs;

	nodes++;
	if (db != NULL && mancala_db_probe(db, m, &gain))
		return gain;
	if ((nodes & 0xfffff) == 0 && deadline && time(NULL) >= deadline)
		stopped = 1;
	if (stopped)
		return 0;
	key = key_of(m);
	e = &tt[key & ttmask];
	if (e->key == key) {
		if (e->lo >= beta)
			return e->lo;
		if (e->hi <= alpha)
			return e->hi;
		if (e->lo > alpha)
			alpha = e->lo;
		if (e->hi < beta)
			beta = e->hi;
	}
	theirs = (1 - me) * (n + 1);
	memset(&mv, 0, sizeof(mv));
	mv.len = 1;
	for (i = 0; i < n; i++) {
		if (m->ring[mine + i] == 0)
			continue;
		c[k].m = *m;
		c[k].m.ring[mine + n] = c[k].m.ring[theirs + n] = 0;
		mv.d[0] = (uint8_t)(i + 1);
		mancala_ops.apply(&c[k].m, me, &mv);
		c[k].gain = c[k].m.ring[mine + n] - c[k].m.ring[theirs + n];
		c[k].again = !c[k].m.over && c[k].m.turn == me;
		c[k].pit = i;
		c[k].order = (e->key == key && e->best == i + 1 ? 1000 : 0) +
		    (c[k].again ? 100 : 0) + 4 * c[k].gain + i;
		k++;
	}
	for (i = 1; i < k; i++)
		for (j = i; j > 0 && c[j].order > c[j - 1].order; j--) {
			t = c[j];
			c[j] = c[j - 1];
			c[j - 1] = t;
		}
	for (i = 0; i < k; i++) {
		gain = c[i].gain;
		if (c[i].m.over)
			v = gain;
		else if (c[i].again)
			v = gain + solve(&c[i].m, alpha - gain, beta - gain);
		else
			v = gain - solve(&c[i].m, gain - beta, gain - alpha);
		if (stopped)
			return 0;
		if (v > best) {
			best = v;
			bestpit = c[i].pit;
		}
		if (v > alpha)
			alpha = v;
		if (alpha >= beta)
			break;
	}
	/* Replace always: the latest search is the likeliest asked again. */
	if (e->key != key) {
		e->key = key;
		e->lo = -200;
		e->hi = 200;
	}
	if (best > a0 && best < b0)
		e->lo = e->hi = (int16_t)best;
	else if (best >= b0)
		e->lo = (int16_t)best;
	else
		e->hi = (int16_t)best;
	e->best = (uint8_t)(bestpit + 1);
	return best;
}

/* The plain search -c holds solve() against. */
static int
plain(const struct mancala *m, int alpha, int beta)
{
	struct mancala c;
	struct game_move mv;
	int n = m->pits, me = m->turn, i, v, best = INT_MIN, gain;
	int mine = me * (n + 1), theirs = (1 - me) * (n + 1);

	memset(&mv, 0, sizeof(mv));
	mv.len = 1;
	for (i = 0; i < n; i++) {
		if (m->ring[mine + i] == 0)
			continue;
		c = *m;
		c.ring[mine + n] = c.ring[theirs + n] = 0;
		mv.d[0] = (uint8_t)(i + 1);
		mancala_ops.apply(&c, me, &mv);
		gain = c.ring[mine + n] - c.ring[theirs + n];
		v = c.over ? gain : c.turn == me ?
		    gain + plain(&c, alpha - gain, beta - gain) :
		    gain - plain(&c, gain - beta, gain - alpha);
		if (v > best)
			best = v;
		if (v > alpha)
			alpha = v;
		if (alpha >= beta)
			break;
	}
	return best;
}

static void
start(int pits, int seeds, int ec)
{
	int i;

	memset(&base, 0, sizeof(base));
	base.pits = (uint8_t)pits;
	base.seeds = (uint8_t)seeds;
	base.empty_capture = (uint8_t)ec;
	for (i = 0; i < pits; i++)
		base.ring[i] = base.ring[pits + 1 + i] = (uint8_t)seeds;
}

/* MTD(f) from the guess f: the gain to come for root's mover. */
static int
mtdf_at(const struct mancala *root, int f, int verbose, double t0)
{
	int lower = -200, upper = 200, b, g;

	while (lower < upper && !stopped) {
		b = g = f;
		if (g == lower)
			b = g + 1;
		g = solve(root, b - 1, b);
		if (stopped)
			break;
		if (g < b)
			upper = g;
		else
			lower = g;
		f = g;
		if (verbose)
			printf("  value %s %d (between %d and %d): %lld "
			    "positions, %.1f s\n", g < b ? "<=" : ">=", g,
			    lower, upper, nodes, now() - t0);
		fflush(stdout);
	}
	if (stopped && verbose)
		printf("stopped: the value is between %d and %d after %lld "
		    "positions, %.1f s\n", lower, upper, nodes, now() - t0);
	return stopped ? INT_MIN : lower;
}

static int
mtdf(int f, int verbose, double t0)
{
	return mtdf_at(&base, f, verbose, t0);
}

/* The final margin for seat of m with perfect play from here. */
static int
exact_margin(const struct mancala *m, int seat, int guess)
{
	int n = m->pits, g, diff;

	diff = m->ring[seat * (n + 1) + n] - m->ring[(1 - seat) * (n + 1) + n];
	if (m->over)
		return diff;
	g = mtdf_at(m, m->turn == seat ? guess - diff : diff - guess, 0, 0);
	if (g == INT_MIN)
		return INT_MIN;
	return diff + (m->turn == seat ? g : -g);
}

/*
 * -P: level 3 (MS a move) plays the first seat from the start against a
 * perfect second player (every move's exact value, the one worst for the
 * first); after each of level 3's moves the value is solved again.  The
 * first player keeps the game's value when it never drops.
 */
static int
play_perfect(long ms, int value, double t0)
{
	struct mancala m = base, c;
	struct game_move mv, best;
	struct robot_stats rs;
	struct rng r;
	unsigned char seed[RNG_SEED_LEN];
	char err[GAME_ERRLEN];
	int n = base.pits, i, v, bv, kept = 1, ply = 0;

	rng_seed_from_u64(seed, 41);
	rng_init(&r, seed);
	memset(&mv, 0, sizeof(mv));
	mv.len = 1;
	while (!m.over && !stopped) {
		if (m.turn == 0) {
			if (robot_choose_stats(&mancala_ops, &m, 0, 3, ms, &r,
			    &mv, &rs, err, sizeof(err)) == -1) {
				fprintf(stderr, "kalah-solve: %s\n", err);
				return 1;
			}
			mancala_ops.apply(&m, 0, &mv);
			v = exact_margin(&m, 0, value);
			if (v == INT_MIN)
				break;
			printf("ply %d: level 3 pit %d (depth %d): value %+d, "
			    "%.0f s\n", ply, mv.d[0], rs.depth, v, now() - t0);
			if (v < value)
				kept = 0;
			value = v;
		} else {
			bv = INT_MAX;
			for (i = 0; i < n; i++) {
				if (m.ring[n + 1 + i] == 0)
					continue;
				c = m;
				mv.d[0] = (uint8_t)(i + 1);
				mancala_ops.apply(&c, 1, &mv);
				v = exact_margin(&c, 0, value);
				if (v == INT_MIN)
					break;
				if (v < bv) {
					bv = v;
					best = mv;
				}
			}
			if (stopped)
				break;
			mancala_ops.apply(&m, 1, &best);
			printf("ply %d: perfect pit %d: value %+d, %.0f s\n", ply,
			    best.d[0], bv, now() - t0);
		}
		fflush(stdout);
		ply++;
	}
	if (stopped) {
		printf("stopped after %d plies: the value %s kept so far\n",
		    ply, kept ? "was" : "was not");
		return 3;
	}
	v = m.ring[n] - m.ring[2 * n + 1];
	printf("level 3 (%ld ms a move) as the first player against perfect "
	    "play: %s by %d; the value %s kept\n", ms, v > 0 ? "won" : v < 0 ?
	    "lost" : "drew", v < 0 ? -v : v, kept ? "was" : "was not");
	return 0;
}

static int
check(void)
{
	int pits, seeds, ec, want, got, bad = 0;

	for (pits = 3; pits <= 4; pits++)
		for (seeds = 1; seeds <= 3; seeds++)
			for (ec = 0; ec <= 1; ec++) {
				start(pits, seeds, ec);
				memset(tt, 0, (ttmask + 1) * sizeof(*tt));
				mancala_db_free(db);
				db = mancala_db_build(&mancala_ops, pits, ec,
				    6, (size_t)1 << 30);
				want = plain(&base, -200, 200);
				got = mtdf(0, 0, now());
				printf("Kalah(%d,%d) empty_capture=%d: %d "
				    "(plain search %d) %s\n", pits, seeds, ec,
				    got, want, got == want ? "ok" : "WRONG");
				bad += got != want;
			}
	return bad ? 1 : 0;
}

/* The 95% Wilson interval of k successes in n. */
static void
wilson(int k, int n, double *lo, double *hi)
{
	double z = 1.96, p = (double)k / n, d = 1 + z * z / n;
	double c = p + z * z / (2.0 * n);
	double w = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n));

	*lo = (c - w) / d;
	*hi = (c + w) / d;
}

static int
sign(int v)
{
	return (v > 0) - (v < 0);
}

/* The exact final margin for the mover after each of its moves. */
static int
move_values(const struct mancala *m, int *value)
{
	struct mancala c;
	struct game_move mv;
	int n = m->pits, me = m->turn, i, k = 0;

	memset(&mv, 0, sizeof(mv));
	mv.len = 1;
	for (i = 0; i < n; i++) {
		value[i] = INT_MIN;
		if (m->ring[me * (n + 1) + i] == 0)
			continue;
		c = *m;
		mv.d[0] = (uint8_t)(i + 1);
		mancala_ops.apply(&c, me, &mv);
		value[i] = c.ring[me * (n + 1) + n] -
		    c.ring[(1 - me) * (n + 1) + n];
		if (!c.over)
			value[i] += c.turn == me ? solve(&c, -200, 200) :
			    -solve(&c, -200, 200);
		k++;
	}
	return k;
}

static int
endgames(int pits, int seeds, int ec, int count, long ms, int lo, int hi)
{
	struct mancala m;
	struct game_move mv;
	struct robot_stats rs;
	struct rng r;
	unsigned char seed[RNG_SEED_LEN];
	char err[GAME_ERRLEN];
	int value[MANCALA_MAXPITS], k, i, total, best, kept = 0, margin = 0;
	int asked = 0, rest, s0, side[2];

	rng_seed_from_u64(seed, 37);
	rng_init(&r, seed);
	while (asked < count) {
		start(pits, seeds, ec);
		m = base;
		memset(m.ring, 0, sizeof(m.ring));
		total = lo + (int)rng_below(&r, (uint32_t)(hi - lo + 1));
		for (i = 0; i < total; i++) {
			k = (int)rng_below(&r, 2u * (uint32_t)pits);
			m.ring[k < pits ? k : k + 1]++;
		}
		side[0] = side[1] = 0;
		for (i = 0; i < pits; i++) {
			side[0] += m.ring[i];
			side[1] += m.ring[pits + 1 + i];
		}
		rest = 2 * pits * seeds - total;
		if (side[0] == 0 || side[1] == 0 || rest < 0)
			continue;
		s0 = (int)rng_below(&r, (uint32_t)rest + 1);
		m.ring[pits] = (uint8_t)s0;
		m.ring[2 * pits + 1] = (uint8_t)(rest - s0);
		m.turn = (uint8_t)rng_below(&r, 2);
		m.ply = 40;
		if (move_values(&m, value) < 2)
			continue;
		best = INT_MIN;
		for (i = 0; i < pits; i++)
			if (value[i] > best)
				best = value[i];
		if (robot_choose_stats(&mancala_ops, &m, m.turn, 3, ms, &r,
		    &mv, &rs, err, sizeof(err)) == -1) {
			fprintf(stderr, "kalah-solve: %s\n", err);
			return 1;
		}
		asked++;
		i = mv.d[0] - 1;
		kept += sign(value[i]) == sign(best);
		margin += value[i] == best;
		printf("%2d seeds: best %+d, level 3 pit %d %+d (depth %d)\n",
		    total, best, i + 1, value[i], rs.depth);
	}
	{
		double a, b, c, d;

		wilson(kept, count, &a, &b);
		wilson(margin, count, &c, &d);
		printf("Kalah(%d,%d) empty_capture=%d, %d-%d seeds in the pits, "
		    "level 3 at %ld ms: result kept %d/%d (%.2f-%.2f), best "
		    "margin %d/%d (%.2f-%.2f)\n", pits, seeds, ec, lo, hi, ms,
		    kept, count, a, b, margin, count, c, d);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int pits = 6, seeds = 4, ec = 0, dbseeds = 16, bits = 24, c, v;
	int checking = 0, count = 0, lo = 10, hi = 18, perfect = INT_MIN;
	long secs = 0, ms = 1000;
	double t0;

	while ((c = getopt(argc, argv, "p:s:ed:t:T:cE:m:l:P:")) != -1)
		switch (c) {
		case 'p': pits = atoi(optarg); break;
		case 's': seeds = atoi(optarg); break;
		case 'e': ec = 1; break;
		case 'd': dbseeds = atoi(optarg); break;
		case 't': bits = atoi(optarg); break;
		case 'T': secs = atol(optarg); break;
		case 'c': checking = 1; break;
		case 'E': count = atoi(optarg); break;
		case 'P': perfect = atoi(optarg); break;
		case 'm': ms = atol(optarg); break;
		case 'l':
			if (sscanf(optarg, "%d-%d", &lo, &hi) != 2)
				lo = -1;
			break;
		default:
			fprintf(stderr, "usage: kalah-solve [-p PITS] "
			    "[-s SEEDS] [-e] [-d DBSEEDS] [-t TTBITS] "
			    "[-T SECONDS] [-c]\n");
			return 2;
		}
	if (pits < 3 || pits > 6 || seeds < 1 || seeds > 10 || bits < 10 ||
	    bits > 32 || dbseeds < 0 || dbseeds > 30 || count < 0 ||
	    lo < 2 || hi < lo || hi > 2 * pits * seeds || ms < 1) {
		fprintf(stderr, "kalah-solve: 3-6 pits, 1-10 seeds, "
		    "10-32 table bits, 0-30 database seeds\n");
		return 2;
	}
	ttmask = ((uint64_t)1 << bits) - 1;
	if ((tt = calloc(ttmask + 1, sizeof(*tt))) == NULL) {
		fprintf(stderr, "kalah-solve: no memory for the table\n");
		return 1;
	}
	if (checking)
		return check();
	t0 = now();
	start(pits, seeds, ec);
	db = mancala_db_build(&mancala_ops, pits, ec, dbseeds,
	    (size_t)1 << 33);
	if (db == NULL) {
		fprintf(stderr, "kalah-solve: the database is too large\n");
		return 1;
	}
	printf("Kalah(%d,%d) empty_capture=%d: database of %zu positions "
	    "(at most %d seeds) in %.1f s\n", pits, seeds, ec,
	    mancala_db_size(db), dbseeds, now() - t0);
	fflush(stdout);
	if (secs)
		deadline = time(NULL) + secs;
	if (perfect != INT_MIN) {
		v = play_perfect(ms, perfect, t0);
		mancala_db_free(db);
		free(tt);
		return v;
	}
	if (count > 0) {
		v = endgames(pits, seeds, ec, count, ms, lo, hi);
		mancala_db_free(db);
		free(tt);
		return v;
	}
	if (secs)
		deadline = time(NULL) + secs;
	v = mtdf(0, 1, t0);
	if (v != INT_MIN)
		printf("Kalah(%d,%d) empty_capture=%d: the first player %s "
		    "%d (%lld positions, %.1f s)\n", pits, seeds, ec,
		    v > 0 ? "wins by" : v < 0 ? "loses by" : "draws,", 
		    v < 0 ? -v : v, nodes, now() - t0);
	mancala_db_free(db);
	free(tt);
	return v == INT_MIN ? 3 : 0;
}
