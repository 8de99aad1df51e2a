/*
 * perft-mancala: an independent Kalah perft, the yardstick bench/perft.sh
 * holds `ludus perft mancala` against.  Written from rules.md alone and
 * sharing nothing with src/games/: a plain array of holes, sown in place on
 * a copy per move, and at the last ply only the non-empty pits counted.
 *
 *   perft-mancala DEPTH [PITS [SEEDS]]      (6 pits, 4 seeds)
 *
 * prints "depth d: leaves" for d = 1..DEPTH, as `ludus perft` does.
 *
 * Holes in sowing order: pits 0..n-1 of the first player, its store n, the
 * second player's pits n+1..2n, its store 2n+1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXHOLES 18

static int n, holes;

struct pos {
	uint8_t	b[MAXHOLES];
	uint8_t	side;		/* to move */
	uint8_t	done;		/* the game has ended */
};

/* Sow pit i (0-based, of the side to move) of p into q. */
static void
play(const struct pos *p, struct pos *q, int i)
{
	int me = p->side, base = me * (n + 1), store = base + n;
	int skip = holes - 1 - base, h = base + i, s, k;

	*q = *p;
	s = q->b[h];
	q->b[h] = 0;
	while (s > 0) {
		if (++h == holes)
			h = 0;
		if (h == skip)
			continue;
		q->b[h]++;
		s--;
	}
	if (h != store && h >= base && h < store && q->b[h] == 1 &&
	    q->b[2 * n - h] != 0) {
		q->b[store] += q->b[2 * n - h] + 1;
		q->b[2 * n - h] = 0;
		q->b[h] = 0;
	}
	if (h != store)
		q->side = !me;
	for (k = 0; k < n && q->b[k] == 0; k++)
		;
	if (k == n)
		goto over;
	for (k = n + 1; k < 2 * n + 1 && q->b[k] == 0; k++)
		;
	if (k == 2 * n + 1)
		goto over;
	return;
over:
	for (k = 0; k < n; k++) {
		q->b[n] += q->b[k];
		q->b[2 * n + 1] += q->b[n + 1 + k];
		q->b[k] = q->b[n + 1 + k] = 0;
	}
	q->done = 1;
}

static uint64_t
perft(const struct pos *p, int depth)
{
	const uint8_t *row = p->b + p->side * (n + 1);
	struct pos q;
	uint64_t t = 0;
	int i;

	if (p->done)
		return 1;
	if (depth == 1) {
		for (i = 0; i < n; i++)
			t += row[i] != 0;
		return t;
	}
	for (i = 0; i < n; i++)
		if (row[i] != 0) {
			play(p, &q, i);
			t += perft(&q, depth - 1);
		}
	return t;
}

int
main(int argc, char **argv)
{
	struct pos p;
	int depth, seeds, d, i;

	if (argc < 2) {
		fprintf(stderr, "usage: perft-mancala DEPTH [PITS [SEEDS]]\n");
		return 2;
	}
	depth = atoi(argv[1]);
	n = argc > 2 ? atoi(argv[2]) : 6;
	seeds = argc > 3 ? atoi(argv[3]) : 4;
	if (n < 1 || n > 8 || seeds < 1 || seeds > 10) {
		fprintf(stderr, "perft-mancala: 1-8 pits, 1-10 seeds\n");
		return 2;
	}
	holes = 2 * n + 2;
	memset(&p, 0, sizeof(p));
	for (i = 0; i < n; i++)
		p.b[i] = p.b[n + 1 + i] = (uint8_t)seeds;
	for (d = 1; d <= depth; d++) {
		printf("depth %d: %llu\n", d, (unsigned long long)perft(&p, d));
		fflush(stdout);
	}
	return 0;
}
