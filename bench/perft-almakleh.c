/*
 * perft-almakleh: an independent Almakleh perft (cards=pass, the five-card
 * game of the master-and-pupil family), the yardstick bench/perft.sh holds
 * `ludus perft almakleh` against.  Written from rules.md alone and sharing
 * nothing with src/games/: 25-bit bitboards, a table of target squares per
 * card, seat and square, and bulk counting at the last ply (the number of
 * moves is a sum of popcounts; no move is made).
 *
 *   perft-almakleh DEPTH classic|normal CARD1 CARD2 CARD3 CARD4 CARD5
 *
 * Each CARD is its offsets as "dx,dy dx,dy ...", seen from the holder (dx
 * to the right, dy forward); CARD1-3 are the first player's, CARD4-5 the
 * second's.  With classic, CARD3 counts as just received on move 1.
 * Prints "depth d: leaves" for d = 1..DEPTH, as `ludus perft` does.
 *
 * Squares are 5 * rank + file, both from 0: the first player's home rank is
 * rank 0 and its portal square 2; the second player's portal is 22.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t reach[5][2][25];	/* card, seat, from: target squares */

struct pos {
	uint32_t piece[2];	/* all pieces of a seat, master included */
	uint8_t	master[2];	/* the master's square */
	uint8_t	hand[2][2];	/* the two cards each seat may use */
	uint8_t	spare;		/* the card the seat to move received last */
	uint8_t	side;		/* seat to move */
};

static const int portal[2] = { 22, 2 };	/* the square each seat aims for */

static int
popcount(uint32_t x)
{
	return __builtin_popcount(x);
}

/* Moves of the seat to move; a seat without any passes either card. */
static int
count(const struct pos *p)
{
	int me = p->side, k, n = 0;
	uint32_t own = p->piece[me], b;

	for (k = 0; k < 2; k++) {
		const uint32_t *r = reach[p->hand[me][k]][me];

		for (b = own; b != 0; b &= b - 1)
			n += popcount(r[__builtin_ctz(b)] & ~own);
	}
	return n ? n : 2;
}

static uint64_t
perft(const struct pos *p, int depth)
{
	int me = p->side, them = !me, k, from, to, moved = 0;
	uint32_t own = p->piece[me], b, t;
	uint64_t total = 0;
	struct pos q;

	if (depth == 1)
		return (uint64_t)count(p);
	for (k = 0; k < 2; k++) {
		int card = p->hand[me][k];
		const uint32_t *r = reach[card][me];

		for (b = own; b != 0; b &= b - 1) {
			from = __builtin_ctz(b);
			for (t = r[from] & ~own; t != 0; t &= t - 1) {
				to = __builtin_ctz(t);
				moved = 1;
				/* Taking the master, or the master reaching
				 * the portal, ends the game: one leaf. */
				if (to == p->master[them] ||
				    (from == p->master[me] &&
				    to == portal[me])) {
					total++;
					continue;
				}
				q = *p;
				q.piece[me] ^= (1u << from) | (1u << to);
				q.piece[them] &= ~(1u << to);
				if (from == p->master[me])
					q.master[me] = (uint8_t)to;
				q.hand[me][k] = p->spare;
				q.spare = (uint8_t)card;
				q.side = (uint8_t)them;
				total += perft(&q, depth - 1);
			}
		}
	}
	if (!moved)
		for (k = 0; k < 2; k++) {
			q = *p;
			q.hand[me][k] = p->spare;
			q.spare = p->hand[me][k];
			q.side = (uint8_t)them;
			total += perft(&q, depth - 1);
		}
	return total;
}

static void
card_parse(int c, const char *text)
{
	int dx[16], dy[16], n = 0, used, sq, seat, i, f, r;

	while (n < 16 && sscanf(text, " %d,%d%n", &dx[n], &dy[n], &used) == 2) {
		text += used;
		n++;
	}
	if (n == 0) {
		fprintf(stderr, "perft-almakleh: a card needs offsets\n");
		exit(2);
	}
	for (seat = 0; seat < 2; seat++)
		for (sq = 0; sq < 25; sq++)
			for (i = 0; i < n; i++) {
				/* The second player reads the card turned. */
				f = sq % 5 + (seat ? -dx[i] : dx[i]);
				r = sq / 5 + (seat ? -dy[i] : dy[i]);
				if (f >= 0 && f < 5 && r >= 0 && r < 5)
					reach[c][seat][sq] |= 1u << (5 * r + f);
			}
}

int
main(int argc, char **argv)
{
	struct pos p;
	int depth, d, c;

	if (argc != 8 || (strcmp(argv[2], "classic") != 0 &&
	    strcmp(argv[2], "normal") != 0)) {
		fprintf(stderr, "usage: perft-almakleh DEPTH classic|normal "
		    "CARD1 ... CARD5\n");
		return 2;
	}
	depth = atoi(argv[1]);
	for (c = 0; c < 5; c++)
		card_parse(c, argv[3 + c]);
	if (strcmp(argv[2], "normal") == 0) {
		/* All three first cards usable on move 1: the game as the
		 * classic one after a move that gave card 3 away, which this
		 * bench does not model. */
		fprintf(stderr, "perft-almakleh: only classic is modelled\n");
		return 2;
	}
	memset(&p, 0, sizeof(p));
	p.piece[0] = 0x1f;
	p.piece[1] = 0x1fu << 20;
	p.master[0] = 2;
	p.master[1] = 22;
	p.hand[0][0] = 0;
	p.hand[0][1] = 1;
	p.spare = 2;
	p.hand[1][0] = 3;
	p.hand[1][1] = 4;
	p.side = 0;
	for (d = 1; d <= depth; d++) {
		printf("depth %d: %llu\n", d, (unsigned long long)perft(&p, d));
		fflush(stdout);
	}
	return 0;
}
