/*
 * alquerque: Alquerque as rules.md settles it.
 *
 * The 25 points are numbered rank * 5 + file (a1 = 0, e1 = 4, a2 = 5, ...,
 * e5 = 24) and each side's stones are a bit set over them.  Lines run
 * orthogonally from every point and diagonally from the strong points
 * (file + rank even); a diagonal from a strong point always lands on
 * another strong point, so following a direction twice stays on its line.
 *
 * A move is a path: a step names two points, a jump chain its origin and
 * every landing point.  A chain stops only where its stone can jump no
 * further, so chain generation is a depth-first search that emits a path
 * at each dead end.  Jumped stones leave the board at once: the search
 * removes them as it goes, which forbids jumping a stone twice and lets
 * the chain cross an emptied point (its own origin included) again.
 *
 * Speed, for the robots and perft: the neighbours and jumps of every
 * point are constant tables the compiler works out from the rules, the
 * stones that can step or jump in a direction are found for all stones at
 * once by shifting the bit sets, a chain is searched only from a stone
 * that can jump, and count_legal counts the moves of the last ply of a
 * perft without making them.
 *
 * Repetition: a capture can never be undone, so no position before the
 * last capture can come back, and every move since it is a step.  The
 * state keeps those steps, one byte each (origin * 8 + direction), in a
 * ring of ALQ_HIST indexed by the number of quiet moves; undoing them one
 * by one from the current position walks back through every position
 * since the capture, exactly, with two XORs a step.  The bound: ALQ_HIST
 * quiet moves, 512 mails from each player without a single capture, far
 * beyond a game played by mail; only an occurrence further back than
 * that is forgotten.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "../i18n.h"

#define ALQ_POINTS	25
#define ALQ_STONES	12
#define ALQ_MAXPATH	(ALQ_STONES + 1)	/* origin + a landing per capture */
#define ALQ_HIST	1024	/* quiet moves remembered */
#define ALQ_LISTED	4	/* moves named in one error message */

enum { WHITE, BLACK };

enum alq_end {
	END_NONE,
	END_NO_STONES,		/* the side to move has no stones: it lost */
	END_NO_MOVES,		/* the side to move cannot move: it lost */
	END_REPETITION,
	END_QUIET
};

static const char *const end_names[] = { "none", "nostones", "nomoves",
	"repetition", "quiet" };

enum { MOVE_STEP, MOVE_JUMP };

struct alquerque {
	uint32_t stones[2];	/* bit per point */
	uint8_t	 turn;		/* side to move; after a win, the loser */
	uint8_t	 end;		/* enum alq_end */
	uint8_t	 last_jump;
	uint8_t	 last_n;	/* points in the last move's path; 0 = none */
	uint8_t	 last_path[ALQ_MAXPATH];
	uint16_t quiet_limit;	/* 0 = off */
	uint32_t ply;
	uint32_t quiet;		/* moves since the last capture or the start */
	uint16_t nsteps;	/* steps held: min(quiet, ALQ_HIST), or fewer
				 * after a state of a version that kept less */
	uint8_t	 steps[ALQ_HIST]; /* quiet move k at [(k - 1) % ALQ_HIST],
				 * as origin * 8 + direction; 0 where
				 * unused */
};

static const char *const seat_names[] = { N_("White"), N_("Black") };
static const int dfile[8] = { 1, -1, 0, 0, 1, -1, 1, -1 };
static const int drank[8] = { 0, 0, 1, -1, 1, 1, -1, -1 };

#define BIT(p)	(UINT32_C(1) << (p))
#define ALQ_BOARD	(BIT(ALQ_POINTS) - 1)

/*
 * The geometry as constant tables, worked out by the compiler from the
 * rules above: directions 0-7 run east, west, north, south, north-east,
 * north-west, south-east and south-west (dfile, drank), a point's number
 * changing by DSTEP(d) per point.  AT(p, d, k) is the point k points from
 * p in direction d along a line, or -1.  Two points along a diagonal from
 * a strong point stay on the board when two points do (the board is
 * convex), and the point between is strong too.
 */
#define DF(d)	((d) == 0 || (d) == 4 || (d) == 6 ? 1 : \
		 (d) == 1 || (d) == 5 || (d) == 7 ? -1 : 0)
#define DR(d)	((d) == 2 || (d) == 4 || (d) == 5 ? 1 : \
		 (d) == 3 || (d) == 6 || (d) == 7 ? -1 : 0)
#define DSTEP(d) (5 * DR(d) + DF(d))
#define ONBOARD(f, r) ((f) >= 0 && (f) <= 4 && (r) >= 0 && (r) <= 4)
#define ONLINE(p, d) ((d) < 4 || ((p) % 5 + (p) / 5) % 2 == 0)
#define AT(p, d, k) (ONLINE(p, d) && ONBOARD((p) % 5 + (k) * DF(d), \
		    (p) / 5 + (k) * DR(d)) ? (p) + (k) * DSTEP(d) : -1)
#define BITOF(q) ((q) < 0 ? UINT32_C(0) : UINT32_C(1) << ((q) & 31))
#define EIGHT(m, p) { m(p, 0), m(p, 1), m(p, 2), m(p, 3), m(p, 4), m(p, 5), \
		    m(p, 6), m(p, 7) }
#define POINTS(m) { EIGHT(m, 0), EIGHT(m, 1), EIGHT(m, 2), EIGHT(m, 3), \
	EIGHT(m, 4), EIGHT(m, 5), EIGHT(m, 6), EIGHT(m, 7), EIGHT(m, 8), \
	EIGHT(m, 9), EIGHT(m, 10), EIGHT(m, 11), EIGHT(m, 12), EIGHT(m, 13), \
	EIGHT(m, 14), EIGHT(m, 15), EIGHT(m, 16), EIGHT(m, 17), \
	EIGHT(m, 18), EIGHT(m, 19), EIGHT(m, 20), EIGHT(m, 21), \
	EIGHT(m, 22), EIGHT(m, 23), EIGHT(m, 24) }
/* The points where a step (k = 1) or a jump (k = 2) in direction d can
 * start. */
#define FROM1(p, d, k) (AT(p, d, k) >= 0 ? BIT(p) : 0)
#define FROM(d, k) (FROM1(0, d, k) | FROM1(1, d, k) | FROM1(2, d, k) | \
	FROM1(3, d, k) | FROM1(4, d, k) | FROM1(5, d, k) | FROM1(6, d, k) | \
	FROM1(7, d, k) | FROM1(8, d, k) | FROM1(9, d, k) | FROM1(10, d, k) | \
	FROM1(11, d, k) | FROM1(12, d, k) | FROM1(13, d, k) | \
	FROM1(14, d, k) | FROM1(15, d, k) | FROM1(16, d, k) | \
	FROM1(17, d, k) | FROM1(18, d, k) | FROM1(19, d, k) | \
	FROM1(20, d, k) | FROM1(21, d, k) | FROM1(22, d, k) | \
	FROM1(23, d, k) | FROM1(24, d, k))

#define NEXT(p, d)	AT(p, d, 1)
/* The neighbour of p in direction d, or -1. */
static const int8_t next_point[ALQ_POINTS][8] = POINTS(NEXT);

/* One jump: the bit of the stone jumped and of the landing point, both 0
 * where the line gives no jump. */
struct hop {
	uint32_t over, land;
};
#define HOP(p, d) { AT(p, d, 2) >= 0 ? BITOF(AT(p, d, 1)) : 0, \
		    BITOF(AT(p, d, 2)) }
static const struct hop hops[ALQ_POINTS][8] = POINTS(HOP);

/* The two points of a step (origin * 8 + direction), 0 for no step. */
#define PAIR(p, d) (AT(p, d, 1) >= 0 ? BIT(p) | BITOF(AT(p, d, 1)) : 0)
static const uint32_t step_pair[ALQ_POINTS][8] = POINTS(PAIR);

/* Where a step or a jump in each direction may start. */
static const uint32_t step_from[8] = { FROM(0, 1), FROM(1, 1), FROM(2, 1),
	FROM(3, 1), FROM(4, 1), FROM(5, 1), FROM(6, 1), FROM(7, 1) };
static const uint32_t jump_from[8] = { FROM(0, 2), FROM(1, 2), FROM(2, 2),
	FROM(3, 2), FROM(4, 2), FROM(5, 2), FROM(6, 2), FROM(7, 2) };

/* The points p such that point p + k * DSTEP(d) is in set: the set moved
 * back along direction d by k points, by a constant shift.  Only
 * meaningful on points of step_from (k = 1) or jump_from (k = 2), where
 * nothing wraps round. */
#define TOWARD(set, d, k) (DSTEP(d) > 0 ? \
	(set) >> (DSTEP(d) > 0 ? (k) * DSTEP(d) : 0) : \
	(set) << (DSTEP(d) < 0 ? -(k) * DSTEP(d) : 0))
/* The stones of own that can jump in direction d, and those that can
 * step. */
#define JUMPERS(own, opp, empty, d) ((own) & jump_from[d] & \
	TOWARD(opp, d, 1) & TOWARD(empty, d, 2))
#define STEPPERS(own, empty, d) ((own) & step_from[d] & TOWARD(empty, d, 1))

/* The directions of the jumps from each point, a bit each. */
#define JDIR(p, d) (AT(p, d, 2) >= 0 ? 1u << (d) : 0u)
#define JDIRS(p) (uint8_t)(JDIR(p, 0) | JDIR(p, 1) | JDIR(p, 2) | \
	JDIR(p, 3) | JDIR(p, 4) | JDIR(p, 5) | JDIR(p, 6) | JDIR(p, 7))
static const uint8_t jump_dirs[ALQ_POINTS] = { JDIRS(0), JDIRS(1),
	JDIRS(2), JDIRS(3), JDIRS(4), JDIRS(5), JDIRS(6), JDIRS(7), JDIRS(8),
	JDIRS(9), JDIRS(10), JDIRS(11), JDIRS(12), JDIRS(13), JDIRS(14),
	JDIRS(15), JDIRS(16), JDIRS(17), JDIRS(18), JDIRS(19), JDIRS(20),
	JDIRS(21), JDIRS(22), JDIRS(23), JDIRS(24) };

static int
point_strong(int p)
{
	return (p % 5 + p / 5) % 2 == 0;
}

/* The next point from p in direction dir along a line, or -1. */
static int
point_next(int p, int dir)
{
	return p < 0 ? -1 : next_point[p][dir];
}

static void
point_name(int p, char out[3])
{
	out[0] = (char)('a' + p % 5);
	out[1] = (char)('1' + p / 5);
	out[2] = '\0';
}

static int
popcount(uint32_t v)
{
	int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* The lowest point of a set that is not empty. */
static inline int
first_point(uint32_t set)
{
#if defined(__GNUC__)
	return __builtin_ctz(set);
#else
	int p = 0;

	while (!(set & BIT(p)))
		p++;
	return p;
#endif
}

/* Exact position key: both bit sets and the side to move (51 bits). */
static uint64_t
pos_key(const struct alquerque *a)
{
	return (uint64_t)a->stones[WHITE] |
	    (uint64_t)a->stones[BLACK] << 25 | (uint64_t)a->turn << 50;
}

/* The stones of own that can jump a stone of opp onto a point of empty,
 * all directions at once. */
static inline uint32_t
capturers(uint32_t own, uint32_t opp, uint32_t empty)
{
	return JUMPERS(own, opp, empty, 0) | JUMPERS(own, opp, empty, 1) |
	    JUMPERS(own, opp, empty, 2) | JUMPERS(own, opp, empty, 3) |
	    JUMPERS(own, opp, empty, 4) | JUMPERS(own, opp, empty, 5) |
	    JUMPERS(own, opp, empty, 6) | JUMPERS(own, opp, empty, 7);
}

/* The bits of each nibble of v (two sets side by side) counted into that
 * nibble, as the first half of a popcount. */
static inline uint64_t
nibble_counts(uint64_t v)
{
	v -= v >> 1 & UINT64_C(0x5555555555555555);
	return (v & UINT64_C(0x3333333333333333)) +
	    (v >> 2 & UINT64_C(0x3333333333333333));
}

/*
 * The steps of own: (stone, direction) pairs to an empty neighbour.  The
 * eight directions' sets are counted in pairs, side by side in 64 bits,
 * and added up before the last steps of one popcount (no popcount
 * instruction is assumed): a nibble holds at most 8, a byte 32.
 */
static inline int
count_steps(uint32_t own, uint32_t empty)
{
	uint64_t lo, hi, sum;

	lo = nibble_counts(STEPPERS(own, empty, 0) |
	    (uint64_t)STEPPERS(own, empty, 1) << 32) +
	    nibble_counts(STEPPERS(own, empty, 2) |
	    (uint64_t)STEPPERS(own, empty, 3) << 32);
	hi = nibble_counts(STEPPERS(own, empty, 4) |
	    (uint64_t)STEPPERS(own, empty, 5) << 32) +
	    nibble_counts(STEPPERS(own, empty, 6) |
	    (uint64_t)STEPPERS(own, empty, 7) << 32);
	sum = (lo & UINT64_C(0x0f0f0f0f0f0f0f0f)) +
	    (lo >> 4 & UINT64_C(0x0f0f0f0f0f0f0f0f)) +
	    (hi & UINT64_C(0x0f0f0f0f0f0f0f0f)) +
	    (hi >> 4 & UINT64_C(0x0f0f0f0f0f0f0f0f));
	return (int)(sum * UINT64_C(0x0101010101010101) >> 56);
}

static inline int
any_step(uint32_t own, uint32_t empty)
{
	return (STEPPERS(own, empty, 0) | STEPPERS(own, empty, 1) |
	    STEPPERS(own, empty, 2) | STEPPERS(own, empty, 3) |
	    STEPPERS(own, empty, 4) | STEPPERS(own, empty, 5) |
	    STEPPERS(own, empty, 6) | STEPPERS(own, empty, 7)) != 0;
}

static int
can_jump(int from, uint32_t opp, uint32_t occ)
{
	uint32_t empty = ~occ & ALQ_BOARD;
	int dir;

	for (dir = 0; dir < 8; dir++)
		if ((opp & hops[from][dir].over) &&
		    (empty & hops[from][dir].land))
			return 1;
	return 0;
}

/* The points no stone stands on. */
static uint32_t
empty_points(const struct alquerque *a)
{
	return ~(a->stones[0] | a->stones[1]) & ALQ_BOARD;
}

static int
side_can_capture(const struct alquerque *a, int side)
{
	return capturers(a->stones[side], a->stones[!side],
	    empty_points(a)) != 0;
}

/*
 * Chain search.  own excludes the jumping stone (its origin is empty while
 * it travels); opp loses each jumped stone for the rest of the branch.
 * Complete chains ending on want_last (or anywhere, when it is -1) are
 * counted in n and the first max of them stored in out.
 */
struct chain {
	uint32_t own, opp;
	uint8_t	 path[ALQ_MAXPATH];
	int	 npath;
	int	 want_last;
	struct game_move *out;
	int	 max;
	int	 n;
};

static void
move_from_path(struct game_move *m, int kind, const uint8_t *path, int n)
{
	memset(m, 0, sizeof(*m));
	m->len = (uint8_t)(n + 1);
	m->d[0] = (uint8_t)kind;
	memcpy(m->d + 1, path, (size_t)n);
}

static void
chain_search(struct chain *c)
{
	int at = c->path[c->npath - 1], dir, found = 0;
	uint32_t empty = ~(c->own | c->opp) & ALQ_BOARD;

	for (dir = 0; dir < 8; dir++) {
		const struct hop *h = &hops[at][dir];

		if (c->out != NULL && c->n >= c->max)
			return;
		if (!(c->opp & h->over) || !(empty & h->land))
			continue;
		found = 1;
		c->opp &= ~h->over;
		c->path[c->npath++] = (uint8_t)first_point(h->land);
		chain_search(c);
		c->npath--;
		c->opp |= h->over;
	}
	if (found || c->npath < 2)
		return;
	if (c->want_last >= 0 && at != c->want_last)
		return;
	if (c->out != NULL && c->n < c->max)
		move_from_path(&c->out[c->n], MOVE_JUMP, c->path, c->npath);
	c->n++;
}

/* The chains of a stone that travels from at, as chain_search counts them
 * with want_last -1, none stored.  empty holds every point but the stones
 * standing, the travelling one not among them (as in chain_search). */
static int
count_chains(int at, uint32_t opp, uint32_t empty)
{
	unsigned dirs = jump_dirs[at];
	int n = 0, found = 0;

	for (; dirs != 0; dirs &= dirs - 1) {
		const struct hop *h = &hops[at][first_point(dirs)];

		if (!(opp & h->over) || !(empty & h->land))
			continue;
		found = 1;
		n += count_chains(first_point(h->land), opp & ~h->over,
		    empty | h->over);
	}
	return found ? n : 1;
}

static void
chain_start(struct chain *c, const struct alquerque *a, int side, int from,
    int want_last, struct game_move *out, int max)
{
	c->own = a->stones[side] & ~BIT(from);
	c->opp = a->stones[!side];
	c->path[0] = (uint8_t)from;
	c->npath = 1;
	c->want_last = want_last;
	c->out = out;
	c->max = max;
	c->n = 0;
}

/* A step or a one-jump chain, from p to q. */
static void
move_two(struct game_move *m, int kind, int p, int q)
{
	memset(m, 0, sizeof(*m));
	m->len = 3;
	m->d[0] = (uint8_t)kind;
	m->d[1] = (uint8_t)p;
	m->d[2] = (uint8_t)q;
}

/*
 * The chains going on from at, path[0..npath) so far, as chain_search
 * finds them (empty holds the travelling stone's origin), stored from
 * out[n] on up to max in all; returns the new n.
 */
static int
gen_chains(int at, uint32_t opp, uint32_t empty, uint8_t *path, int npath,
    struct game_move *out, int n, int max)
{
	unsigned dirs = jump_dirs[at];
	int found = 0;

	for (; dirs != 0 && n < max; dirs &= dirs - 1) {
		const struct hop *h = &hops[at][first_point(dirs)];

		if (!(opp & h->over) || !(empty & h->land))
			continue;
		found = 1;
		path[npath] = (uint8_t)first_point(h->land);
		n = gen_chains(path[npath], opp & ~h->over, empty | h->over,
		    path, npath + 1, out, n, max);
	}
	if (!found && n < max)
		move_from_path(&out[n++], MOVE_JUMP, path, npath);
	return n;
}

/* All capture chains of a side, in point and direction order: a chain
 * starts only from a stone that can jump, and is followed past its first
 * landing point only where it goes on (see alquerque_count_legal). */
static int
gen_captures(const struct alquerque *a, int side, struct game_move *out,
    int max)
{
	uint32_t own = a->stones[side], opp = a->stones[!side];
	uint32_t empty = empty_points(a), jumper, from;
	uint8_t path[ALQ_MAXPATH];
	unsigned dirs;
	int p, n = 0;

	jumper = capturers(ALQ_BOARD, opp, empty);
	for (from = own & jumper; from != 0; from &= from - 1) {
		p = first_point(from);
		for (dirs = jump_dirs[p]; dirs != 0; dirs &= dirs - 1) {
			const struct hop *h = &hops[p][first_point(dirs)];

			if (n == max)
				return n;
			if (!(opp & h->over) || !(empty & h->land))
				continue;
			if (!(jumper & h->land)) {
				move_two(&out[n++], MOVE_JUMP, p,
				    first_point(h->land));
				continue;
			}
			path[0] = (uint8_t)p;
			path[1] = (uint8_t)first_point(h->land);
			n = gen_chains(path[1], opp & ~h->over,
			    empty | BIT(p) | h->over, path, 2, out, n, max);
		}
	}
	return n;
}

static int
gen_moves(const struct alquerque *a, int side, struct game_move *out,
    int max)
{
	static const int8_t dstep[8] = { DSTEP(0), DSTEP(1), DSTEP(2),
		DSTEP(3), DSTEP(4), DSTEP(5), DSTEP(6), DSTEP(7) };
	uint32_t empty = empty_points(a), own = a->stones[side], set[8], from;
	int p, dir, n;

	if ((n = gen_captures(a, side, out, max)) > 0)
		return n;
	/* The stones that can step in each direction, then stone by stone
	 * in point order. */
	set[0] = STEPPERS(own, empty, 0);
	set[1] = STEPPERS(own, empty, 1);
	set[2] = STEPPERS(own, empty, 2);
	set[3] = STEPPERS(own, empty, 3);
	set[4] = STEPPERS(own, empty, 4);
	set[5] = STEPPERS(own, empty, 5);
	set[6] = STEPPERS(own, empty, 6);
	set[7] = STEPPERS(own, empty, 7);
	from = set[0] | set[1] | set[2] | set[3] | set[4] | set[5] | set[6] |
	    set[7];
	for (; from != 0; from &= from - 1) {
		p = first_point(from);
		for (dir = 0; dir < 8; dir++) {
			if (!(set[dir] & BIT(p)))
				continue;
			if (n == max)
				return n;
			move_two(&out[n++], MOVE_STEP, p, p + dstep[dir]);
		}
	}
	return n;
}

static void
format_path(int kind, const uint8_t *path, int n, char *out, size_t len)
{
	size_t used = 0;
	char name[3];
	int i;

	if (len == 0)
		return;
	out[0] = '\0';
	for (i = 0; i < n && used + 4 <= len; i++) {
		point_name(path[i], name);
		if (i > 0)
			out[used++] = kind == MOVE_STEP ? '-' : 'x';
		out[used++] = name[0];
		out[used++] = name[1];
		out[used] = '\0';
	}
}

/* "e1xe3, b2xd4 or b2xd2xb4", at most ALQ_LISTED named. */
static void
list_moves(const struct game_move *m, int n, char *out, size_t len)
{
	char text[GAME_MOVE_TEXT];
	size_t used = 0;
	int i, shown = n < ALQ_LISTED ? n : ALQ_LISTED;

	out[0] = '\0';
	for (i = 0; i < shown && used < len; i++) {
		format_path(m[i].d[0], m[i].d + 1, m[i].len - 1, text,
		    sizeof(text));
		used += (size_t)snprintf(out + used, len - used, "%s%s",
		    i == 0 ? "" : i == n - 1 ? _(" or ") : ", ", text);
	}
	if (n > shown && used < len)
		snprintf(out + used, len - used, P_(" (and %d more)",
		    " (and %d more)", n - shown), n - shown);
}

/* The direction of a step from one point to the next, or -1. */
static int
step_dir(int from, int to)
{
	int dir;

	for (dir = 0; dir < 8; dir++)
		if (point_next(from, dir) == to)
			return dir;
	return -1;
}

/* The step i moves back (0: the last), as origin and landing point. */
static void
step_at(const struct alquerque *a, uint32_t i, int *from, int *to)
{
	uint8_t code = a->steps[(a->quiet - i - 1) % ALQ_HIST];

	*from = code >> 3;
	*to = point_next(*from, code & 7);
}

/* How often the position has occurred, this time included: the steps are
 * undone from the last, diff[] holding which points of each side differ
 * from now; the same side is to move an even number of moves back. */
static int
occurrences(const struct alquerque *a)
{
	uint32_t diff[2] = { 0, 0 }, i, code;
	int seen = 1;

	for (i = 0; i < a->nsteps; i++) {
		code = a->steps[(a->quiet - i - 1) % ALQ_HIST];
		diff[a->turn ^ 1 ^ (i & 1)] ^= step_pair[code >> 3][code & 7];
		if ((i & 1) && diff[0] == 0 && diff[1] == 0)
			seen++;
	}
	return seen;
}

/* Decide the game after a move (or for a position read back). */
static void
judge(struct alquerque *a)
{
	uint32_t own = a->stones[a->turn], opp = a->stones[!a->turn];
	uint32_t empty = empty_points(a);

	a->end = END_NONE;
	if (own == 0) {
		a->end = END_NO_STONES;
		return;
	}
	if (!any_step(own, empty) && capturers(own, opp, empty) == 0) {
		a->end = END_NO_MOVES;
		return;
	}
	/*
	 * A position never comes back two moves later (each side's stone
	 * stands elsewhere), so its third time is at least eight steps back
	 * (at least four between two times): with fewer steps held there is
	 * no repetition to look for.
	 */
	if (a->nsteps >= 8 && occurrences(a) >= 3)
		a->end = END_REPETITION;
	else if (a->quiet_limit > 0 && a->quiet >= a->quiet_limit)
		a->end = END_QUIET;
}

static int
alquerque_seats(const struct game_opts *o)
{
	(void)o;
	return 2;
}

static const char *
alquerque_seat_name(const void *st, int seat)
{
	(void)st;
	return seat >= 0 && seat < 2 ? seat_names[seat] : "?";
}

static int
alquerque_create(void *st, const struct game_opts *o,
    const unsigned char seed[RNG_SEED_LEN], int nseats, char *err,
    size_t errlen)
{
	struct alquerque *a = st;
	long long quiet_limit = game_opt_int(o, "quiet_limit");

	(void)seed;
	if (nseats != 2) {
		util_err(err, errlen, _("Alquerque is for 2 players, not %d"),
		    nseats);
		return -1;
	}
	if (quiet_limit < 0 || quiet_limit > 1000) {
		util_err(err, errlen, _("quiet_limit must be 0-1000"));
		return -1;
	}
	memset(a, 0, sizeof(*a));
	a->quiet_limit = (uint16_t)quiet_limit;
	/* Ranks 1-2 and d3, e3 White; ranks 4-5 and a3, b3 Black. */
	a->stones[WHITE] = 0x3ff | BIT(13) | BIT(14);
	a->stones[BLACK] = (0x3ffu << 15) | BIT(10) | BIT(11);
	a->turn = WHITE;
	return 0;
}

static uint32_t
alquerque_to_move(const void *st)
{
	const struct alquerque *a = st;

	return a->end != END_NONE ? 0 : 1u << a->turn;
}

static int
alquerque_legal(const void *st, int seat, struct game_move *out, int max)
{
	const struct alquerque *a = st;

	if (a->end != END_NONE || seat != a->turn || max <= 0)
		return 0;
	return gen_moves(a, seat, out, max);
}

/*
 * legal()'s count with max GAME_MAX_MOVES, no move built: the chains of
 * the stones that can jump, or else one step per stone and free
 * neighbour.  A chain goes on from its first landing point exactly when a
 * stone there could jump in the position before the move: the jumped
 * stone, gone now, lies in the one direction whose landing point, the
 * origin, was not empty before, and every other direction sees the board
 * as it was.  So the points where a jump could start (jumper) decide, and
 * only a chain that goes on is followed.
 */
static int
alquerque_count_legal(const void *st, int seat)
{
	const struct alquerque *a = st;
	uint32_t own, opp, empty, jumper, from;
	int n = 0, p;

	if (a->end != END_NONE || seat != a->turn)
		return 0;
	own = a->stones[seat];
	opp = a->stones[!seat];
	empty = ~(own | opp) & ALQ_BOARD;
	jumper = capturers(ALQ_BOARD, opp, empty);
	if ((own & jumper) == 0)
		return count_steps(own, empty);
	/* Each first jump, direction by direction. */
#define FIRST_JUMPS(d) \
	for (from = JUMPERS(own, opp, empty, d); from != 0; \
	    from &= from - 1) { \
		p = first_point(from); \
		if (!(jumper & BIT(p + 2 * DSTEP(d)))) \
			n++; \
		else \
			n += count_chains(p + 2 * DSTEP(d), \
			    opp & ~BIT(p + DSTEP(d)), \
			    empty | BIT(p) | BIT(p + DSTEP(d))); \
	}
	FIRST_JUMPS(0)
	FIRST_JUMPS(1)
	FIRST_JUMPS(2)
	FIRST_JUMPS(3)
	FIRST_JUMPS(4)
	FIRST_JUMPS(5)
	FIRST_JUMPS(6)
	FIRST_JUMPS(7)
#undef FIRST_JUMPS
	return n < GAME_MAX_MOVES ? n : GAME_MAX_MOVES;
}

/* Cheaper than result() for searches: apply() has judged already. */
static int
alquerque_over(const void *st)
{
	return ((const struct alquerque *)st)->end != END_NONE;
}

static void
alquerque_format_move(const void *st, int seat, const struct game_move *mv,
    char *out, size_t len)
{
	(void)st;
	(void)seat;
	format_path(mv->d[0], mv->d + 1, mv->len - 1, out, len);
}

/*
 * Read the text into a list of points: "b2-c3" (step), "b2xd4xb4" or
 * "b2:d4:b4" (jumps).  Spaces are ignored, case too.
 */
static int
read_path(const char *text, uint8_t *path, int *n, int *kind, char *err,
    size_t errlen)
{
	char s[GAME_MOVE_TEXT];
	const char *given = text;
	size_t len = 0;
	int i, sep = 0;

	for (; *text != '\0'; text++) {
		/* Blanks around the separators only, never inside a point:
		 * a letter after a digit is the separator x, any other begins
		 * a point, whose digit must follow at once. */
		if (*text == ' ' || *text == '\t') {
			if (len > 0 && isalpha((unsigned char)s[len - 1]) &&
			    (len == 1 || !isdigit((unsigned char)s[len - 2])))
				goto syntax;
			continue;
		}
		if (len + 1 >= sizeof(s)) {
			util_err(err, errlen, _("that move is too long: a chain "
			    "names at most %d points"), ALQ_MAXPATH);
			return -1;
		}
		s[len++] = (char)(*text >= 'A' && *text <= 'Z' ?
		    *text - 'A' + 'a' : *text);
	}
	s[len] = '\0';
	if (len == 0) {
		util_err(err, errlen, _("no move given: write a step as b2-c3, "
		    "a jump as b2xd4"));
		return -1;
	}
	*n = 0;
	*kind = MOVE_STEP;
	for (i = 0;;) {
		if (s[i] < 'a' || s[i] > 'e' || s[i + 1] < '1' ||
		    s[i + 1] > '5') {
			if (s[i] >= 'a' && s[i] <= 'z' && s[i + 1] >= '0' &&
			    s[i + 1] <= '9') {
				util_err(err, errlen, _("`%c%c` is not a point: "
				    "points run from a1 to e5"), s[i], s[i + 1]);
				return -1;
			}
			goto syntax;
		}
		if (*n >= ALQ_MAXPATH) {
			util_err(err, errlen, _("a chain takes at most %d "
			    "stones"), ALQ_STONES);
			return -1;
		}
		path[(*n)++] = (uint8_t)((s[i + 1] - '1') * 5 + s[i] - 'a');
		i += 2;
		if (s[i] == '\0')
			break;
		if (s[i] != '-' && s[i] != 'x' && s[i] != ':')
			goto syntax;
		if (sep != 0 && (sep == '-') != (s[i] == '-'))
			goto syntax;
		sep = s[i++];
	}
	if (*n < 2)
		goto syntax;
	if (sep != '-')
		*kind = MOVE_JUMP;
	else if (*n > 2) {
		util_err(err, errlen, _("a step goes to a neighbouring point "
		    "only: write one step as b2-c3"));
		return -1;
	}
	return 0;
syntax:
	util_err(err, errlen, _("`%s` is not a move: write a step as b2-c3, "
	    "a jump as b2xd4, a chain as b2xd4xb4"), given);
	return -1;
}

/* The direction from p to q when q lies k points away on a line through p
 * in that direction's geometry, ignoring the strong-point rule; or -1. */
static int
raw_direction(int p, int q, int k)
{
	int df = q % 5 - p % 5, dr = q / 5 - p / 5, dir;

	for (dir = 0; dir < 8; dir++)
		if (df == k * dfile[dir] && dr == k * drank[dir])
			return dir;
	return -1;
}

static int
parse_step(const struct alquerque *a, int seat, const uint8_t *path,
    struct game_move *mv, char *err, size_t errlen)
{
	struct game_move caps[GAME_MAX_MOVES];
	char list[160], f[3], t[3];
	uint32_t occ = a->stones[0] | a->stones[1];
	int dir, n;

	point_name(path[0], f);
	point_name(path[1], t);
	if ((n = gen_captures(a, seat, caps, GAME_MAX_MOVES)) > 0) {
		list_moves(caps, n, list, sizeof(list));
		util_err(err, errlen, _("a capture is compulsory: %s"), list);
		return -1;
	}
	if ((dir = raw_direction(path[0], path[1], 1)) < 0) {
		if (raw_direction(path[0], path[1], 2) >= 0)
			util_err(err, errlen, _("%s is not next to %s, and a "
			    "jump is written %sx%s"), t, f, f, t);
		else
			util_err(err, errlen, _("%s is not next to %s: a step "
			    "goes to a neighbouring point along a line"), t, f);
		return -1;
	}
	if (point_next(path[0], dir) != path[1]) {
		util_err(err, errlen, _("%s is not reachable diagonally from %s "
		    "(a weak point)"), t, f);
		return -1;
	}
	if (occ & BIT(path[1])) {
		util_err(err, errlen, _("%s is occupied"), t);
		return -1;
	}
	move_from_path(mv, MOVE_STEP, path, 2);
	return 0;
}

/*
 * Follow a written chain hop by hop.  On success the chain search state is
 * left at the last landing, ready to look for a continuation.
 */
static int
follow_chain(const struct alquerque *a, int seat, const uint8_t *path,
    int n, struct chain *c, char *err, size_t errlen)
{
	uint32_t taken = 0;
	char f[3], t[3], m[3];
	int i, dir, mid, at, to;

	chain_start(c, a, seat, path[0], -1, NULL, 0);
	for (i = 1; i < n; i++) {
		at = path[i - 1];
		to = path[i];
		point_name(at, f);
		point_name(to, t);
		if ((dir = raw_direction(at, to, 2)) < 0) {
			if (raw_direction(at, to, 1) >= 0)
				util_err(err, errlen, _("%s to %s is a step, not "
				    "a jump: a jump lands right behind the "
				    "stone it takes"), f, t);
			else
				util_err(err, errlen, _("%s cannot be reached by "
				    "a jump from %s: a jump goes over a "
				    "neighbouring stone to the point right "
				    "behind it"), t, f);
			return -1;
		}
		if ((mid = point_next(at, dir)) < 0) {
			util_err(err, errlen, _("%s is not reachable diagonally "
			    "from %s (a weak point)"), t, f);
			return -1;
		}
		point_name(mid, m);
		if (taken & BIT(mid)) {
			util_err(err, errlen, _("the stone on %s was taken "
			    "earlier in this chain and cannot be jumped "
			    "again"), m);
			return -1;
		}
		if (!(c->opp & BIT(mid))) {
			if (c->own & BIT(mid))
				util_err(err, errlen, _("%s to %s would jump your "
				    "own stone on %s"), f, t, m);
			else
				util_err(err, errlen, _("there is no "
				    "opponent's stone on %s to jump from %s "
				    "to %s"), m, f, t);
			return -1;
		}
		if ((c->own | c->opp) & BIT(to)) {
			util_err(err, errlen, _("%s is occupied"), t);
			return -1;
		}
		c->opp &= ~BIT(mid);
		taken |= BIT(mid);
		c->path[c->npath++] = (uint8_t)to;
	}
	return 0;
}

static int
parse_jump(const struct alquerque *a, int seat, const uint8_t *path, int n,
    struct game_move *mv, char *err, size_t errlen)
{
	struct game_move found[GAME_MAX_MOVES];
	struct chain c;
	char list[160], last[3], lit[GAME_ERRLEN];
	int rc;

	rc = follow_chain(a, seat, path, n, &c, lit, sizeof(lit));
	if (rc == 0 && !can_jump(path[n - 1], c.opp, c.own | c.opp)) {
		move_from_path(mv, MOVE_JUMP, path, n);
		return 0;
	}
	/* Two points may stand for the one chain from the first to the last. */
	if (n == 2) {
		struct chain s;

		chain_start(&s, a, seat, path[0], path[1], found,
		    GAME_MAX_MOVES);
		chain_search(&s);
		if (s.n == 1) {
			*mv = found[0];
			return 0;
		}
		if (s.n > 1) {
			list_moves(found, s.n, list, sizeof(list));
			util_err(err, errlen, _("more than one chain leads from "
			    "there: name every landing point: %s"), list);
			return -1;
		}
	}
	if (rc == -1) {
		util_err(err, errlen, "%s", lit);
		return -1;
	}
	/* A legal start that must go on: name the ways to finish it. */
	c.want_last = -1;
	c.out = found;
	c.max = GAME_MAX_MOVES;
	c.n = 0;
	chain_search(&c);
	list_moves(found, c.n, list, sizeof(list));
	point_name(path[n - 1], last);
	util_err(err, errlen, _("the chain must go on from %s: %s"), last, list);
	return -1;
}

static int
alquerque_parse_move(const void *st, int seat, const char *text,
    struct game_move *mv, char *err, size_t errlen)
{
	const struct alquerque *a = st;
	uint8_t path[ALQ_MAXPATH];
	char f[3];
	int n, kind;

	if (a->end != END_NONE) {
		util_err(err, errlen, _("the game is over"));
		return -1;
	}
	if (seat != a->turn) {
		util_err(err, errlen, _("it is %s's turn, not %s's"),
		    _(seat_names[a->turn]), _(alquerque_seat_name(st, seat)));
		return -1;
	}
	if (read_path(text, path, &n, &kind, err, errlen) == -1)
		return -1;
	point_name(path[0], f);
	if (!(a->stones[seat] & BIT(path[0]))) {
		if (a->stones[!seat] & BIT(path[0]))
			util_err(err, errlen, _("the stone on %s is your "
			    "opponent's"), f);
		else
			util_err(err, errlen, _("you have no stone on %s"), f);
		return -1;
	}
	if (kind == MOVE_STEP)
		return parse_step(a, seat, path, mv, err, errlen);
	return parse_jump(a, seat, path, n, mv, err, errlen);
}

static void
alquerque_apply(void *st, int seat, const struct game_move *mv)
{
	struct alquerque *a = st;
	const uint8_t *path = mv->d + 1;
	int n = mv->len - 1, i;

	/* The direction of a step by the difference of its points (only
	 * these eight differences are steps), from -6 on. */
	static const uint8_t dir_of[13] = { [DSTEP(0) + 6] = 0,
		[DSTEP(1) + 6] = 1, [DSTEP(2) + 6] = 2, [DSTEP(3) + 6] = 3,
		[DSTEP(4) + 6] = 4, [DSTEP(5) + 6] = 5, [DSTEP(6) + 6] = 6,
		[DSTEP(7) + 6] = 7 };

	a->stones[seat] &= ~BIT(path[0]);
	a->stones[seat] |= BIT(path[n - 1]);
	if (mv->d[0] == MOVE_JUMP)
		for (i = 1; i < n; i++)
			a->stones[!seat] &= ~BIT((path[i - 1] + path[i]) / 2);
	a->last_jump = mv->d[0] == MOVE_JUMP;
	a->last_n = (uint8_t)n;
	memset(a->last_path, 0, sizeof(a->last_path));
	memcpy(a->last_path, path, (size_t)n);
	a->turn = (uint8_t)!seat;
	a->ply++;
	if (a->last_jump) {
		/* Cleared, so that equal positions are equal states. */
		memset(a->steps, 0, a->quiet < ALQ_HIST ? a->quiet : ALQ_HIST);
		a->quiet = 0;
		a->nsteps = 0;
	} else {
		a->steps[a->quiet % ALQ_HIST] = (uint8_t)(path[0] << 3 |
		    dir_of[path[1] - path[0] + 6]);
		a->quiet++;
		if (a->nsteps < ALQ_HIST)
			a->nsteps++;
	}
	judge(a);
}

static void
alquerque_result(const void *st, struct game_result *r)
{
	const struct alquerque *a = st;
	int winner = !a->turn;

	memset(r, 0, sizeof(*r));
	r->score[WHITE] = popcount(a->stones[WHITE]);
	r->score[BLACK] = popcount(a->stones[BLACK]);
	if (a->end == END_NONE)
		return;
	r->over = 1;
	switch (a->end) {
	case END_NO_STONES:
	case END_NO_MOVES:
		r->winners = 1u << winner;
		if (a->end == END_NO_STONES)
			snprintf(r->text, sizeof(r->text), _("%s wins: %s has "
			    "no stones left"), _(seat_names[winner]),
			    _(seat_names[a->turn]));
		else
			snprintf(r->text, sizeof(r->text), _("%s wins: %s has "
			    "no legal move"), _(seat_names[winner]),
			    _(seat_names[a->turn]));
		break;
	case END_REPETITION:
		r->draw = 1;
		snprintf(r->text, sizeof(r->text), _("draw by threefold "
		    "repetition"));
		break;
	default:
		r->draw = 1;
		snprintf(r->text, sizeof(r->text), _("draw: %u moves in a row "
		    "without a capture"), (unsigned)a->quiet);
		break;
	}
}

static const char *
view_name(const struct game_view *v, int seat)
{
	return v->names[seat] ? v->names[seat] : _(seat_names[seat]);
}

/* What the point shows: stones, and the trace of the last move. */
static char
point_glyph(const struct alquerque *a, int p, uint32_t trace, uint32_t taken)
{
	int last = a->last_n ? a->last_path[a->last_n - 1] : -1;

	if (a->stones[WHITE] & BIT(p))
		return p == last ? 'w' : 'W';
	if (a->stones[BLACK] & BIT(p))
		return p == last ? 'b' : 'B';
	if (taken & BIT(p))
		return 'x';
	if (trace & BIT(p))
		return '*';
	return '.';
}

/*
 * The look of alquerque_render()'s text: stones as light and dark chips,
 * the stone that moved and the points it left highlighted, the stones it
 * took marked, the lines dim; the lines under the board are running text.
 * The glyphs already say all of it (w, b, *, x); colour only helps.
 */
static void
alquerque_render_style(const void *st, const struct game_view *v,
    const char *text, size_t len, char *style)
{
	size_t at = 0, end, i;
	int line = 0, after = 0;

	(void)st;
	(void)v;
	for (; at < len; at = end + 1, line++) {
		end = at + strcspn(text + at, "\n");
		if (end > len)
			end = len;
		if (end == at)
			after = 1;
		if (after) {
			if (end > at)
				style[at] |= GAME_STYLE_TEXT;
			continue;
		}
		/* Only the ranks and the lines between them are drawn; the
		 * file letters are left as they are, and the legends naming
		 * the sides are text, so that a long name does not widen
		 * the board. */
		if (end - at > 4 && strncmp(text + at, "    ", 4) == 0 &&
		    text[at + 4] != ' ' && text[at + 4] != '|' &&
		    strncmp(text + at + 4, "a   b", 5) != 0) {
			/* "    NAME (Black): 12 stones", in any language. */
			style[at] |= GAME_STYLE_TEXT;
			continue;
		}
		if (!(text[at] >= '1' && text[at] <= '9') &&
		    strncmp(text + at, "    |", 5) != 0)
			continue;
		for (i = at; i < end; i++)
			switch (text[i]) {
			case 'W': style[i] = GAME_STYLE_LIGHT; break;
			case 'w': style[i] = GAME_STYLE_LIGHT | GAME_STYLE_LAST;
				break;
			case 'B': style[i] = GAME_STYLE_DARK; break;
			case 'b': style[i] = GAME_STYLE_DARK | GAME_STYLE_LAST;
				break;
			case 'x': style[i] = GAME_STYLE_TAKEN; break;
			case '*': style[i] = GAME_STYLE_LAST; break;
			case '-': case '|': case '/': case '\\': case '.':
				style[i] = GAME_STYLE_DIM;
				break;
			}
	}
}

/*
 * The drawing: the 25 points and the lines between them, seen from the
 * reader's side (Black's reader has e5 at the bottom left, as a player
 * sits), the stone that moved and the points it left marked, the stones
 * it took crossed; the point names along the left and the bottom.
 */
static void
alquerque_draw(const void *st, const struct game_view *v,
    struct game_pic *pic)
{
	const struct alquerque *a = st;
	int flip = v->viewer == BLACK, row, col, r, f, p, i, look;
	uint32_t trace = 0, taken = 0;
	struct game_grid *g;
	char t[4], glyph;

	for (i = 0; i < a->last_n; i++) {
		trace |= BIT(a->last_path[i]);
		if (i > 0 && a->last_jump)
			taken |= BIT((a->last_path[i - 1] +
			    a->last_path[i]) / 2);
	}
	g = game_pic_grid(pic, GAME_GRID_BOARD, 10, 10, 0, NULL);
	if (g == NULL)
		return;
	/* The text names Black above the board and White below it; turned
	 * round, the legends go with their sides. */
	pic->turned = flip;
	for (i = 0; i < 5; i++) {
		r = flip ? i : 4 - i;		/* the rank on grid row 2i */
		f = flip ? 4 - i : i;		/* the file on grid column 2i */
		snprintf(t, sizeof(t), "%d", r + 1);
		game_pic_set(pic, g, 2 * i, 0, GAME_CELL_LABEL, GAME_STYLE_DIM,
		    t);
		snprintf(t, sizeof(t), "%c", 'a' + f);
		game_pic_set(pic, g, 9, 2 * i + 1, GAME_CELL_LABEL,
		    GAME_STYLE_DIM, t);
	}
	for (row = 0; row < 9; row++)
		for (col = 0; col < 9; col++) {
			r = flip ? row / 2 : 4 - row / 2;
			f = flip ? 4 - col / 2 : col / 2;
			if (row % 2 == 1 && col % 2 == 1) {
				/* A square's diagonal: its lower left corner
				 * (as White sees it) strong, it rises. */
				p = (flip ? r : r - 1) * 5 + (flip ? f - 1 : f);
				game_pic_set(pic, g, row, col + 1,
				    GAME_CELL_LINE, GAME_STYLE_DIM,
				    point_strong(p) ? "/" : "\\");
				continue;
			}
			if (row % 2 == 1 || col % 2 == 1) {
				game_pic_set(pic, g, row, col + 1,
				    GAME_CELL_LINE, GAME_STYLE_DIM,
				    row % 2 ? "|" : "-");
				continue;
			}
			p = r * 5 + f;
			glyph = point_glyph(a, p, trace, taken);
			look = glyph == 'W' || glyph == 'w' ? GAME_STYLE_LIGHT :
			    glyph == 'B' || glyph == 'b' ? GAME_STYLE_DARK :
			    glyph == 'x' ? GAME_STYLE_TAKEN : GAME_STYLE_DIM;
			if (glyph == 'w' || glyph == 'b' || glyph == '*')
				look |= GAME_STYLE_LAST;
			t[0] = (char)(glyph == 'w' ? 'W' : glyph == 'b' ? 'B' :
			    glyph);
			t[1] = '\0';
			game_pic_set(pic, g, row, col + 1,
			    strchr("WwBb", glyph) != NULL ? GAME_CELL_PIECE :
			    GAME_CELL_POINT, look, glyph == '.' ? "" : t);
		}
}

/*
 * White at the bottom for every reader, as the point names run: a1 is the
 * bottom left.  The lines between the ranks show where diagonals run.
 */
static void
alquerque_render(const void *st, const struct game_view *v, struct buf *b)
{
	const struct alquerque *a = st;
	uint32_t trace = 0, taken = 0;
	char text[GAME_MOVE_TEXT];
	int r, f, i;

	for (i = 0; i < a->last_n; i++) {
		trace |= BIT(a->last_path[i]);
		if (i > 0 && a->last_jump)
			taken |= BIT((a->last_path[i - 1] +
			    a->last_path[i]) / 2);
	}
	buf_adds(b, "    ");
	buf_printf(b, P_("%s (%s): %d stone", "%s (%s): %d stones",
	    popcount(a->stones[BLACK])), view_name(v, BLACK),
	    _(seat_names[BLACK]), popcount(a->stones[BLACK]));
	buf_addc(b, '\n');
	buf_adds(b, "    a   b   c   d   e\n");
	for (r = 4; r >= 0; r--) {
		buf_printf(b, "%d   ", r + 1);
		for (f = 0; f < 5; f++)
			buf_printf(b, "%s%c", f ? "---" : "",
			    point_glyph(a, r * 5 + f, trace, taken));
		buf_printf(b, "   %d\n", r + 1);
		if (r == 0)
			break;
		buf_adds(b, "    |");
		/* The diagonal in the square below rank r + 1 rises to the
		 * right when its lower left corner is strong. */
		for (f = 0; f < 4; f++)
			buf_printf(b, " %c |",
			    point_strong((r - 1) * 5 + f) ? '/' : '\\');
		buf_addc(b, '\n');
	}
	buf_adds(b, "    a   b   c   d   e\n");
	buf_adds(b, "    ");
	buf_printf(b, P_("%s (%s): %d stone", "%s (%s): %d stones",
	    popcount(a->stones[WHITE])), view_name(v, WHITE),
	    _(seat_names[WHITE]), popcount(a->stones[WHITE]));
	buf_adds(b, "\n\n");
	if (a->last_n == 0)
		buf_printf(b, "%s\n", _("No move yet."));
	else {
		format_path(a->last_jump, a->last_path, a->last_n, text,
		    sizeof(text));
		if (a->last_jump)
			buf_printf(b, P_("Last move: %s (%s) %s, took %d.",
			    "Last move: %s (%s) %s, took %d.", a->last_n - 1),
			    view_name(v, !a->turn), _(seat_names[!a->turn]),
			    text, a->last_n - 1);
		else
			buf_printf(b, _("Last move: %s (%s) %s."),
			    view_name(v, !a->turn), _(seat_names[!a->turn]),
			    text);
		buf_addc(b, '\n');
		if (a->last_jump)
			buf_printf(b, _("(%c: the stone that moved, *: the "
			    "points it left, x: the stones it took)"),
			    a->turn == BLACK ? 'w' : 'b');
		else
			buf_printf(b, _("(%c: the stone that moved, *: the "
			    "points it left)"), a->turn == BLACK ? 'w' : 'b');
		buf_addc(b, '\n');
	}
	if (a->end != END_NONE) {
		struct game_result res;

		alquerque_result(st, &res);
		buf_printf(b, _("Game over: %s."), res.text);
		buf_addc(b, '\n');
	} else {
		if (!v->no_turn) {
			if (side_can_capture(a, a->turn))
				buf_printf(b, _("%s (%s) to move; a capture is "
				    "compulsory."), view_name(v, a->turn),
				    _(seat_names[a->turn]));
			else
				buf_printf(b, _("%s (%s) to move."),
				    view_name(v, a->turn),
				    _(seat_names[a->turn]));
			buf_addc(b, '\n');
		} else if (side_can_capture(a, a->turn)) {
			/* The mail names who moves; say who must take. */
			buf_printf(b, _("%s must capture."),
			    _(seat_names[a->turn]));
			buf_addc(b, '\n');
		}
		if (occurrences(a) == 2)
			buf_printf(b, "%s\n", _("This position has occurred "
			    "twice: the third time is a draw."));
		if (a->quiet_limit > 0 && a->quiet > 0) {
			buf_printf(b, _("Moves without a capture: %u of %d."),
			    (unsigned)a->quiet, a->quiet_limit);
			buf_addc(b, '\n');
		}
	}
}

/*
 * The state as text, nine lines:
 *	alquerque quiet_limit=N
 *	5 BBBBB			ranks 5 to 1, files a-e: W, B or .
 *	...
 *	turn=White ply=P quiet=Q end=none|nostones|nomoves|repetition|quiet
 *	last=-|MOVE		the last move in notation
 *	history STEP ...	the steps since the last capture (the last
 *				ALQ_HIST at most), oldest first: a1-a2
 * Earlier versions wrote the keys of the positions since the last capture
 * instead, oldest first, the current last (at most 256), each 13 hex
 * digits: White's points as bits 0-24 (a1 = bit 0), Black's as bits
 * 25-49, bit 50 set when Black is to move.  Such a state is read too.
 */
static void
alquerque_serialise(const void *st, struct buf *b)
{
	const struct alquerque *a = st;
	char text[GAME_MOVE_TEXT], f[3], t[3];
	uint32_t i;
	int r, c, p, from, to;

	buf_printf(b, "alquerque quiet_limit=%d\n", a->quiet_limit);
	for (r = 4; r >= 0; r--) {
		buf_printf(b, "%d ", r + 1);
		for (c = 0; c < 5; c++) {
			p = r * 5 + c;
			buf_addc(b, (a->stones[WHITE] & BIT(p)) ? 'W' :
			    (a->stones[BLACK] & BIT(p)) ? 'B' : '.');
		}
		buf_addc(b, '\n');
	}
	buf_printf(b, "turn=%s ply=%u quiet=%u end=%s\n",
	    seat_names[a->turn], (unsigned)a->ply, (unsigned)a->quiet,
	    end_names[a->end]);
	if (a->last_n) {
		format_path(a->last_jump, a->last_path, a->last_n, text,
		    sizeof(text));
		buf_printf(b, "last=%s\n", text);
	} else
		buf_adds(b, "last=-\n");
	buf_adds(b, "history");
	for (i = a->nsteps; i > 0; i--) {
		step_at(a, i - 1, &from, &to);
		point_name(from, f);
		point_name(to, t);
		buf_printf(b, " %s-%s", f, t);
	}
	buf_addc(b, '\n');
}

/*
 * Keep n steps, oldest first, as the last n quiet moves: each must undo,
 * from the current position back, to a position with the mover's stone on
 * its origin and the landing point empty.
 */
static int
set_steps(struct alquerque *a, const uint8_t *from, const uint8_t *to,
    uint32_t n)
{
	uint32_t stones[2] = { a->stones[WHITE], a->stones[BLACK] }, i;
	int mover, dir;

	if (n > ALQ_HIST || n > a->quiet)
		return -1;
	for (i = n; i > 0; i--) {
		mover = a->turn ^ 1 ^ ((n - i) & 1);
		dir = step_dir(from[i - 1], to[i - 1]);
		if (dir < 0 || !(stones[mover] & BIT(to[i - 1])) ||
		    ((stones[0] | stones[1]) & BIT(from[i - 1])))
			return -1;
		stones[mover] ^= BIT(from[i - 1]) | BIT(to[i - 1]);
		a->steps[(a->quiet - n + i - 1) % ALQ_HIST] =
		    (uint8_t)(from[i - 1] << 3 | dir);
	}
	a->nsteps = (uint16_t)n;
	return 0;
}

/* An earlier version's keys: each step is the difference of two. */
static int
parse_keys(struct alquerque *a, const char *line)
{
	uint64_t key[ALQ_HIST + 1];
	uint8_t from[ALQ_HIST], to[ALQ_HIST];
	unsigned long long k;
	uint32_t n = 0, i, w, bl, was, now;
	int used, mover;

	while (*line != '\0') {
		if (n > ALQ_HIST || sscanf(line, " %13llx%n", &k, &used) != 1 ||
		    used != 14 || k >> 51 != 0)
			return -1;
		key[n++] = k;
		line += used;
	}
	if (n == 0 || n > a->quiet + 1 || key[n - 1] != pos_key(a))
		return -1;
	for (i = 0; i < n; i++) {
		w = (uint32_t)(key[i] & 0x1ffffff);
		bl = (uint32_t)(key[i] >> 25 & 0x1ffffff);
		/* Without a capture in between, every earlier position holds
		 * the same stones, and the side to move alternates. */
		if ((w & bl) || popcount(w) != popcount(a->stones[WHITE]) ||
		    popcount(bl) != popcount(a->stones[BLACK]) ||
		    (key[i] >> 50) != ((a->turn ^ (n - 1 - i)) & 1))
			return -1;
	}
	for (i = 0; i + 1 < n; i++) {
		mover = (int)(key[i] >> 50);
		was = (uint32_t)(key[i] >> (25 * mover) & 0x1ffffff);
		now = (uint32_t)(key[i + 1] >> (25 * mover) & 0x1ffffff);
		if (popcount(was & ~now) != 1 || popcount(now & ~was) != 1 ||
		    (key[i] >> (25 * !mover) & 0x1ffffff) !=
		    (key[i + 1] >> (25 * !mover) & 0x1ffffff))
			return -1;
		from[i] = (uint8_t)first_point(was & ~now);
		to[i] = (uint8_t)first_point(now & ~was);
	}
	return set_steps(a, from, to, n - 1);
}

static int
parse_history(struct alquerque *a, const char *line)
{
	uint8_t from[ALQ_HIST], to[ALQ_HIST];
	uint32_t n = 0;
	const char *p;

	if (strncmp(line, "history", 7) != 0)
		return -1;
	line += 7;
	if (line[0] == ' ' && strspn(line + 1, "0123456789abcdef") == 13)
		return parse_keys(a, line);
	for (p = line; *p != '\0'; p += 6) {
		if (n == ALQ_HIST || p[0] != ' ' || p[1] < 'a' || p[1] > 'e' ||
		    p[2] < '1' || p[2] > '5' || p[3] != '-' || p[4] < 'a' ||
		    p[4] > 'e' || p[5] < '1' || p[5] > '5')
			return -1;
		from[n] = (uint8_t)((p[2] - '1') * 5 + p[1] - 'a');
		to[n++] = (uint8_t)((p[5] - '1') * 5 + p[4] - 'a');
	}
	return set_steps(a, from, to, n);
}

static int
alquerque_parse_state(void *st, const char *text, char *err, size_t errlen)
{
	struct alquerque a;
	char *copy, *line[9], *p, turn[8], end[16], last[GAME_MOVE_TEXT];
	unsigned ply, quiet;
	int ql, n = 0, rc = -1, used, r, f, i, kind, np;
	uint8_t path[ALQ_MAXPATH];
	uint8_t want_end;

	memset(&a, 0, sizeof(a));
	copy = xstrdup(text);
	for (p = copy; n < 9 && p != NULL; n++) {
		line[n] = p;
		if ((p = strchr(p, '\n')) != NULL)
			*p++ = '\0';
	}
	if (n < 9 || (p != NULL && *p != '\0'))
		goto bad;
	if (sscanf(line[0], "alquerque quiet_limit=%d%n", &ql, &used) != 1 ||
	    line[0][used] != '\0' || ql < 0 || ql > 1000)
		goto bad;
	a.quiet_limit = (uint16_t)ql;
	for (r = 4; r >= 0; r--) {
		const char *row = line[5 - r];

		if (row[0] != '1' + r || row[1] != ' ' || strlen(row) != 7)
			goto bad;
		for (f = 0; f < 5; f++) {
			if (row[2 + f] == 'W')
				a.stones[WHITE] |= BIT(r * 5 + f);
			else if (row[2 + f] == 'B')
				a.stones[BLACK] |= BIT(r * 5 + f);
			else if (row[2 + f] != '.')
				goto bad;
		}
	}
	if (popcount(a.stones[WHITE]) > ALQ_STONES ||
	    popcount(a.stones[BLACK]) > ALQ_STONES)
		goto bad;
	if (sscanf(line[6], "turn=%7s ply=%u quiet=%u end=%15s%n", turn, &ply,
	    &quiet, end, &used) != 4 || line[6][used] != '\0' ||
	    quiet > ply || ply > 100000000)
		goto bad;
	if (strcmp(turn, "White") == 0)
		a.turn = WHITE;
	else if (strcmp(turn, "Black") == 0)
		a.turn = BLACK;
	else
		goto bad;
	a.ply = ply;
	a.quiet = quiet;
	for (i = 0; i < (int)nitems(end_names); i++)
		if (strcmp(end, end_names[i]) == 0)
			break;
	if (i == (int)nitems(end_names))
		goto bad;
	want_end = (uint8_t)i;
	if (strcmp(line[7], "last=-") == 0) {
		if (ply != 0)
			goto bad;
	} else {
		char scratch[GAME_ERRLEN];

		if (strncmp(line[7], "last=", 5) != 0 || ply == 0 ||
		    util_strlcpy(last, line[7] + 5, sizeof(last)) >=
		    sizeof(last) ||
		    read_path(last, path, &np, &kind, scratch,
		    sizeof(scratch)) == -1)
			goto bad;
		/* The stone that moved last stands on the path's end. */
		if (!(a.stones[!a.turn] & BIT(path[np - 1])) ||
		    (kind == MOVE_STEP && quiet == 0) ||
		    (kind == MOVE_JUMP && quiet != 0))
			goto bad;
		a.last_jump = kind == MOVE_JUMP;
		a.last_n = (uint8_t)np;
		memcpy(a.last_path, path, (size_t)np);
	}
	if (parse_history(&a, line[8]) == -1)
		goto bad;
	judge(&a);
	if (a.end != want_end)
		goto bad;
	memcpy(st, &a, sizeof(a));
	rc = 0;
bad:
	if (rc == -1)
		util_err(err, errlen, "malformed Alquerque state");
	free(copy);
	return rc;
}

static void
json_points(struct buf *b, uint32_t set)
{
	char name[3];
	int p, first = 1;

	buf_addc(b, '[');
	for (p = 0; p < ALQ_POINTS; p++) {
		if (!(set & BIT(p)))
			continue;
		point_name(p, name);
		buf_printf(b, "%s\"%s\"", first ? "" : ",", name);
		first = 0;
	}
	buf_addc(b, ']');
}

static void
alquerque_export_json(const void *st, struct buf *b)
{
	const struct alquerque *a = st;
	struct game_result r;
	char text[GAME_MOVE_TEXT];
	uint32_t taken = 0;
	int i;

	alquerque_result(st, &r);
	buf_printf(b, "{\"game\":\"alquerque\",\"quiet_limit\":%d,\"ply\":%u,"
	    "\"quiet\":%u,\"to_move\":%s,\"over\":%s,\"end\":\"%s\"",
	    a->quiet_limit, (unsigned)a->ply, (unsigned)a->quiet,
	    a->end ? "null" : a->turn == WHITE ? "\"White\"" : "\"Black\"",
	    a->end ? "true" : "false", end_names[a->end]);
	if (a->end) {
		buf_adds(b, ",\"result\":");
		util_json_str(b, r.text);
		buf_printf(b, ",\"winner\":%s", r.draw ? "null" :
		    a->turn == WHITE ? "\"Black\"" : "\"White\"");
	}
	buf_adds(b, ",\"white\":");
	json_points(b, a->stones[WHITE]);
	buf_adds(b, ",\"black\":");
	json_points(b, a->stones[BLACK]);
	if (a->last_n) {
		format_path(a->last_jump, a->last_path, a->last_n, text,
		    sizeof(text));
		for (i = 1; a->last_jump && i < a->last_n; i++)
			taken |= BIT((a->last_path[i - 1] +
			    a->last_path[i]) / 2);
		buf_printf(b, ",\"last\":{\"seat\":\"%s\",\"move\":\"%s\","
		    "\"taken\":", seat_names[!a->turn], text);
		json_points(b, taken);
		buf_addc(b, '}');
	}
	buf_adds(b, "}");
}

/*
 * For the robots.  Stones are what the game is about; free steps count a
 * little, since a side left without a move loses and a crowded side is
 * forced into bad steps; the side ahead gains by trading stones (a lead
 * counts more the fewer stones are left, which draws the search out of
 * level positions it would shuffle in until a repetition).  Every term is
 * counted for both sides alike and subtracted (antisymmetric).
 *
 * Captures are compulsory, so a position whose side to move can capture is
 * not quiet: the evaluation plays the captures out first (every chain, and
 * the captures they allow in turn, alpha-beta over the two bit sets alone,
 * on the stack) and scores the quiet positions they end in.
 */
#define ALQ_LOST	30000	/* no stone or no move, in the captures */
#define ALQ_QPLY	24	/* captures played out at most */

/* The quiet position for own, to move, against opp. */
static int
quiet_value(uint32_t own, uint32_t opp)
{
	uint32_t empty = ~(own | opp) & ALQ_BOARD;
	int mine = popcount(own), theirs = popcount(opp);

	return 100 * (mine - theirs) +
	    3 * (count_steps(own, empty) - count_steps(opp, empty)) +
	    6 * (mine - theirs) * (2 * ALQ_STONES - mine - theirs);
}

static int captures_value(uint32_t, uint32_t, int, int, int);

/*
 * The chains of a stone travelling from at (own without it, empty with
 * the points it and the stones it took left), each played out by
 * captures_value for the opponent; *alpha and *best gain, and 1 is
 * returned at a cutoff (beta reached).
 */
static int
captures_chains(int at, uint32_t own, uint32_t opp, uint32_t empty,
    int *alpha, int beta, int *best, int ply)
{
	unsigned dirs = jump_dirs[at];
	int found = 0, v;

	for (; dirs != 0; dirs &= dirs - 1) {
		const struct hop *h = &hops[at][first_point(dirs)];

		if (!(opp & h->over) || !(empty & h->land))
			continue;
		found = 1;
		if (captures_chains(first_point(h->land), own, opp & ~h->over,
		    empty | h->over, alpha, beta, best, ply))
			return 1;
	}
	if (found)
		return 0;
	v = -captures_value(opp, own | BIT(at), -beta, -*alpha, ply + 1);
	if (v > *best)
		*best = v;
	if (v > *alpha)
		*alpha = v;
	return *alpha >= beta;
}

/* The position for own, to move, with its captures played out. */
static int
captures_value(uint32_t own, uint32_t opp, int alpha, int beta, int ply)
{
	uint32_t empty = ~(own | opp) & ALQ_BOARD, from;
	int best = -ALQ_LOST - 1, p;

	if (own == 0)
		return -ALQ_LOST + ply;
	from = capturers(own, opp, empty);
	if (from == 0) {
		if (!any_step(own, empty))
			return -ALQ_LOST + ply;
		return quiet_value(own, opp);
	}
	if (ply >= ALQ_QPLY)
		return quiet_value(own, opp);
	for (; from != 0; from &= from - 1) {
		p = first_point(from);
		if (captures_chains(p, own & ~BIT(p), opp, empty | BIT(p),
		    &alpha, beta, &best, ply))
			break;
	}
	return best;
}

static int
alquerque_evaluate(const void *st, int seat)
{
	const struct alquerque *a = st;
	int v;

	if (a->end != END_NONE)
		v = quiet_value(a->stones[a->turn], a->stones[!a->turn]);
	else
		v = captures_value(a->stones[a->turn], a->stones[!a->turn],
		    -ALQ_LOST - 1, ALQ_LOST + 1, 0);
	return seat == a->turn ? v : -v;
}

static int
alquerque_move_word(const void *st, const char *w)
{
	(void)st;
	return game_word_is_points(w);
}

/*
 * The robots' key: the position (the stones, the side to move, the end)
 * and the count of quiet moves where quiet_limit makes it decide the
 * game.  Not the steps since the last capture: a position reached by
 * moves in another order, or again, shares its entry, which is most of
 * what the table finds in a game of steps; that the history may make a
 * repetition of a position elsewhere in the tree is left to the search,
 * which meets every draw on the state itself.  Not the last move or the
 * ply either, which only the board shows.
 */
static uint64_t
alquerque_hash(const void *st)
{
	const struct alquerque *a = st;
	uint64_t k[2] = { pos_key(a) | (uint64_t)a->end << 52,
		(uint64_t)a->quiet_limit << 32 |
		    (a->quiet_limit > 0 ? a->quiet : 0) };

	return game_hash_bytes(0, k, sizeof(k));
}

const struct game_ops alquerque_ops = {
	.name = "alquerque",
	.title = "Alquerque",
	.state_size = sizeof(struct alquerque),
	.create = alquerque_create,
	.seats = alquerque_seats,
	.seat_name = alquerque_seat_name,
	.to_move = alquerque_to_move,
	.legal = alquerque_legal,
	.parse_move = alquerque_parse_move,
	.format_move = alquerque_format_move,
	.apply = alquerque_apply,
	.result = alquerque_result,
	.render = alquerque_render,
	.render_style = alquerque_render_style,
	.draw = alquerque_draw,
	.serialise = alquerque_serialise,
	.parse_state = alquerque_parse_state,
	.export_json = alquerque_export_json,
	.evaluate = alquerque_evaluate,
	.move_word = alquerque_move_word,
	.over = alquerque_over,
	.count_legal = alquerque_count_legal,
	.hash = alquerque_hash,
};
