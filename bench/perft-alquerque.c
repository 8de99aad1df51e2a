/*
 * perft-alquerque: an independent Alquerque perft, the yardstick
 * bench/perft.sh holds `ludus perft alquerque` against.  Written from
 * rules.md alone and sharing nothing with src/games/: 25-bit bitboards,
 * tables of the neighbours and of the jumps (over, landing) of each point,
 * jump chains followed depth first, and the positions since the last
 * capture kept on a stack for the threefold repetition.
 *
 *   perft-alquerque DEPTH
 *
 * prints "depth d: leaves" for d = 1..DEPTH, as `ludus perft` does (the
 * default options: no quiet_limit).
 *
 * Points are 5 * rank + file, both from 0 (a1 = 0, e5 = 24).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXPLY	256

static uint32_t step[25];		/* neighbours along a line */
static int njump[25];
static uint8_t jover[25][8], jland[25][8];

/* Positions since the last capture, root first: white, black, side. */
static uint64_t hist[MAXPLY + 1];

static uint64_t
key(uint32_t w, uint32_t b, int side)
{
	return (uint64_t)w | (uint64_t)b << 25 | (uint64_t)side << 50;
}

static void
tables(void)
{
	static const int dir[8][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 },
		{ 0, -1 }, { 1, 1 }, { 1, -1 }, { -1, 1 }, { -1, -1 } };
	int p, d, f, r;

	for (p = 0; p < 25; p++)
		for (d = 0; d < 8; d++) {
			/* Diagonal lines run only through the strong points
			 * (file + rank even). */
			if (d >= 4 && (p % 5 + p / 5) % 2 != 0)
				continue;
			f = p % 5 + dir[d][0];
			r = p / 5 + dir[d][1];
			if (f < 0 || f > 4 || r < 0 || r > 4)
				continue;
			step[p] |= 1u << (5 * r + f);
			f += dir[d][0];
			r += dir[d][1];
			if (f < 0 || f > 4 || r < 0 || r > 4)
				continue;
			jover[p][njump[p]] = (uint8_t)(5 * (r - dir[d][1]) +
			    f - dir[d][0]);
			jland[p][njump[p]++] = (uint8_t)(5 * r + f);
		}
}

static uint64_t perft(uint32_t w, uint32_t b, int side, int depth, int ply,
    int since);

/*
 * Every way to finish a jump chain of the stone now at `at`: own and opp
 * are the boards with the stone lifted off and the stones jumped so far
 * removed.  With count only the chains are counted, else each finished
 * position is searched to depth - 1.
 */
static uint64_t
chains(uint32_t own, uint32_t opp, int at, int side, int depth, int ply,
    int count)
{
	uint32_t empty = ~(own | opp) & 0x1ffffff;
	uint64_t t = 0;
	int i, any = 0;

	for (i = 0; i < njump[at]; i++) {
		int over = jover[at][i], land = jland[at][i];

		if (!(opp >> over & 1) || !(empty >> land & 1))
			continue;
		any = 1;
		t += chains(own, opp & ~(1u << over), land, side, depth, ply,
		    count);
	}
	if (any)
		return t;
	if (count)
		return 1;
	own |= 1u << at;
	/* A capture: no earlier position can come back. */
	return side == 0 ? perft(own, opp, 1, depth - 1, ply + 1, ply + 1) :
	    perft(opp, own, 0, depth - 1, ply + 1, ply + 1);
}

static uint64_t
perft(uint32_t w, uint32_t b, int side, int depth, int ply, int since)
{
	uint32_t own = side ? b : w, opp = side ? w : b, empty, s, t;
	uint64_t total = 0, k = key(w, b, side);
	int i, seen = 1, from, to, jumps = 0, count = depth == 1;

	if (depth == 0)
		return 1;
	if (own == 0)
		return 1;		/* no stones: lost */
	/* The third time this position is on the board: a draw. */
	for (i = ply - 2; i >= since; i -= 2)
		if (hist[i] == k)
			seen++;
	if (seen >= 3)
		return 1;
	if (ply >= MAXPLY) {
		fprintf(stderr, "perft-alquerque: too deep\n");
		exit(1);
	}
	hist[ply] = k;
	empty = ~(w | b) & 0x1ffffff;
	/* Capturing is compulsory: jumps first, steps only without any. */
	for (s = own; s != 0; s &= s - 1) {
		from = __builtin_ctz(s);
		for (i = 0; i < njump[from]; i++)
			if ((opp >> jover[from][i] & 1) &&
			    (empty >> jland[from][i] & 1)) {
				jumps = 1;
				total += chains(own & ~(1u << from), opp, from,
				    side, depth, ply, count);
				break;
			}
	}
	if (jumps)
		return total;
	for (s = own; s != 0; s &= s - 1) {
		from = __builtin_ctz(s);
		t = step[from] & empty;
		if (count) {
			total += (uint64_t)__builtin_popcount(t);
			continue;
		}
		for (; t != 0; t &= t - 1) {
			uint32_t o = own ^ (1u << from | (t & -t));

			to = __builtin_ctz(t);
			(void)to;
			total += side == 0 ? perft(o, b, 1, depth - 1, ply + 1,
			    since) : perft(w, o, 0, depth - 1, ply + 1, since);
		}
	}
	/* No move at all: lost, one leaf. */
	return total == 0 ? 1 : total;
}

int
main(int argc, char **argv)
{
	uint32_t w = 0, b = 0;
	int depth, d, p;

	if (argc != 2) {
		fprintf(stderr, "usage: perft-alquerque DEPTH\n");
		return 2;
	}
	depth = atoi(argv[1]);
	tables();
	/* White: ranks 1-2, d3, e3; Black: ranks 4-5, a3, b3. */
	for (p = 0; p < 10; p++)
		w |= 1u << p;
	w |= 1u << 13 | 1u << 14;
	for (p = 15; p < 25; p++)
		b |= 1u << p;
	b |= 1u << 10 | 1u << 11;
	for (d = 1; d <= depth; d++) {
		printf("depth %d: %llu\n", d,
		    (unsigned long long)perft(w, b, 0, d, 0, 0));
		fflush(stdout);
	}
	return 0;
}
