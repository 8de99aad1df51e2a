/*
 * mancala-db: Kalah's endgame database (mancala.h).
 *
 * A position is the seeds of the 2 * pits pits, the mover's pits first
 * (pit 1 to n), then the other's: North to move is South to move on the
 * ring turned half way round.  The positions whose seeds add up to at
 * most max_seeds are numbered in lexicographic order (the number of
 * those with the pits before them equal and a smaller count in the next
 * is a difference of two binomials), a byte each: the mover's gain, or
 * UNKNOWN while not computed yet.
 *
 * A position's value comes from its children's, played with the engine's
 * own apply().  No sowing adds seeds to the pits, so every child is in the
 * database too; a sowing that keeps them all (one that stops before the
 * store, without a capture) moves the mover's seeds nearer its store, so
 * the search from any position ends, and the recursion below (a depth
 * first search that fills the table as it returns) needs no order of its
 * own.  Its depth is at most the plies of the longest game from there.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "mancala.h"

#define DB_PITS		(2 * MANCALA_MAXPITS)
#define DB_MAXSEEDS	64
#define UNKNOWN		INT8_MIN

struct mancala_db {
	const struct game_ops *ops;	/* the engine's, to play the moves */
	int	pits, cells, empty_capture, max_seeds;
	size_t	size;
	int8_t	*value;
	/* choose[n][k] for the ranking; n up to max_seeds + cells + 1. */
	uint64_t choose[DB_MAXSEEDS + DB_PITS + 2][DB_PITS + 2];
};

static void
db_binomials(struct mancala_db *db)
{
	int n, k;

	for (n = 0; n < DB_MAXSEEDS + DB_PITS + 2; n++) {
		db->choose[n][0] = 1;
		for (k = 1; k < DB_PITS + 2; k++)
			db->choose[n][k] = n == 0 ? 0 :
			    db->choose[n - 1][k - 1] + db->choose[n - 1][k];
	}
}

/* The position's number: cells after cell j hold c = cells - 1 - j
 * counts summing to at most the rest r, C(r + c, c) ways; those with a
 * smaller count in cell j number C(r + c + 1, c + 1) - C(r - a + c + 1,
 * c + 1). */
static size_t
db_rank(const struct mancala_db *db, const uint8_t *a)
{
	size_t idx = 0;
	int j, c, rest = db->max_seeds;

	for (j = 0; j < db->cells; j++) {
		c = db->cells - 1 - j;
		idx += db->choose[rest + c + 1][c + 1] -
		    db->choose[rest - a[j] + c + 1][c + 1];
		rest -= a[j];
	}
	return idx;
}

/* The mover's pits then the other's, and their sum. */
static int
db_cells(const struct mancala *m, uint8_t *a)
{
	int n = m->pits, me = m->turn, i, sum = 0;

	for (i = 0; i < n; i++) {
		a[i] = m->ring[me * (n + 1) + i];
		a[n + i] = m->ring[(1 - me) * (n + 1) + i];
		sum += a[i] + a[n + i];
	}
	return sum;
}

static int db_solve(struct mancala_db *, const uint8_t *);

/* The mover's gain in the position of the cells a (mover first). */
static int
db_solve(struct mancala_db *db, const uint8_t *a)
{
	struct mancala m, c;
	struct game_move mv;
	uint8_t next[DB_PITS];
	size_t idx = db_rank(db, a);
	int n = db->pits, i, v, best = -DB_MAXSEEDS - 1, gain;

	if (db->value[idx] != UNKNOWN)
		return db->value[idx];
	memset(&m, 0, sizeof(m));
	m.pits = (uint8_t)n;
	m.empty_capture = (uint8_t)db->empty_capture;
	for (i = 0; i < n; i++) {
		m.ring[i] = a[i];
		m.ring[n + 1 + i] = a[n + i];
	}
	memset(&mv, 0, sizeof(mv));
	mv.len = 1;
	for (i = 0; i < n; i++) {
		if (a[i] == 0)
			continue;
		c = m;
		mv.d[0] = (uint8_t)(i + 1);
		db->ops->apply(&c, 0, &mv);
		gain = c.ring[n] - c.ring[2 * n + 1];
		if (c.over)
			v = gain;
		else {
			c.ring[n] = c.ring[2 * n + 1] = 0;
			db_cells(&c, next);
			v = c.turn == 0 ? gain + db_solve(db, next) :
			    gain - db_solve(db, next);
		}
		if (v > best)
			best = v;
	}
	/* No move: the game would be over (the other's seeds are its). */
	if (best < -DB_MAXSEEDS) {
		best = 0;
		for (i = 0; i < n; i++)
			best -= a[n + i];
	}
	db->value[idx] = (int8_t)best;
	return best;
}

struct mancala_db *
mancala_db_build(const struct game_ops *ops, int pits, int empty_capture,
    int max_seeds, size_t max_bytes)
{
	struct mancala_db *db;
	uint8_t a[DB_PITS];
	int i, total;

	if (pits < 1 || pits > MANCALA_MAXPITS || max_seeds < 0 ||
	    max_seeds > DB_MAXSEEDS || max_seeds > INT8_MAX)
		return NULL;
	db = xcalloc(1, sizeof(*db));
	db->ops = ops;
	db->pits = pits;
	db->cells = 2 * pits;
	db->empty_capture = empty_capture != 0;
	db->max_seeds = max_seeds;
	db_binomials(db);
	db->size = (size_t)db->choose[max_seeds + db->cells][db->cells];
	if (db->size > max_bytes) {
		free(db);
		return NULL;
	}
	db->value = xmalloc(db->size);
	memset(db->value, UNKNOWN & 0xff, db->size);
	/* Every position, by walking the counts in lexicographic order;
	 * the recursion fills in what each needs first. */
	memset(a, 0, sizeof(a));
	for (;;) {
		db_solve(db, a);
		/* The next tuple with sum <= max_seeds: raise the last cell
		 * that can be raised, clearing those after it. */
		total = 0;
		for (i = 0; i < db->cells; i++)
			total += a[i];
		for (i = db->cells - 1; i >= 0; i--) {
			if (total < max_seeds) {
				a[i]++;
				break;
			}
			total -= a[i];
			a[i] = 0;
		}
		if (i < 0)
			break;
	}
	return db;
}

size_t
mancala_db_size(const struct mancala_db *db)
{
	return db->size;
}

int
mancala_db_probe(const struct mancala_db *db, const struct mancala *m,
    int *gain)
{
	uint8_t a[DB_PITS];

	if (m->over || m->pits != db->pits ||
	    m->empty_capture != db->empty_capture ||
	    db_cells(m, a) > db->max_seeds)
		return 0;
	*gain = db->value[db_rank(db, a)];
	return 1;
}

void
mancala_db_free(struct mancala_db *db)
{
	if (db == NULL)
		return;
	free(db->value);
	free(db);
}

/*
 * The robots' limit for a board size: the most seeds whose database
 * stays within MANCALA_DB_BYTES.
 */
int
mancala_db_seeds(int pits)
{
	uint64_t size = 1;
	int k, cells = 2 * pits;

	/* C(k + cells, cells) for k = 0, 1, ... */
	for (k = 0; k < DB_MAXSEEDS; k++) {
		uint64_t next = size * (uint64_t)(k + 1 + cells) /
		    (uint64_t)(k + 1);

		if (next > MANCALA_DB_BYTES)
			return k;
		size = next;
	}
	return DB_MAXSEEDS;
}

/* The process's databases, one per size and rule, built at first use. */
static struct mancala_db *db_cache[MANCALA_MAXPITS + 1][2];

int
mancala_db_value(const struct game_ops *ops, const struct mancala *m,
    int *gain)
{
	struct mancala_db **db;
	uint8_t a[DB_PITS];
	int limit;

	if (m->over || m->pits < 1 || m->pits > MANCALA_MAXPITS)
		return 0;
	db = &db_cache[m->pits][m->empty_capture != 0];
	if (*db == NULL) {
		/* Only a position the database would hold builds it; once
		 * built, the probe alone tells (a search asks at every
		 * node). */
		limit = mancala_db_seeds(m->pits);
		if (db_cells(m, a) > limit)
			return 0;
		*db = mancala_db_build(ops, m->pits, m->empty_capture, limit,
		    MANCALA_DB_BYTES);
	}
	return *db != NULL && mancala_db_probe(*db, m, gain);
}
