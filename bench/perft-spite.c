/*
 * perft-spite: an independent Spite & Malice perft within one round, the
 * yardstick bench/perft.sh holds `ludus perft spite` against.  Written from
 * rules.md alone and sharing nothing with src/games/: the hand as a count
 * per rank, piles as arrays with only their sizes changed by a move, each
 * action made in place and taken back, and the last ply counted without
 * making any.
 *
 *   perft-spite DEPTH FILE
 *
 * FILE is the deal as `ludus deal spite SEED --json` prints it (piles from
 * bottom to top: the stock is drawn from its end).  Prints "depth d:
 * leaves" for d = 1..DEPTH, as `ludus perft` does; stops with an error if
 * the tree reaches what a round's deal does not decide (a completed centre
 * stack shuffled into the stock, the end of the round), which is not
 * modelled here.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KING	13
#define QUEEN	12
#define CARDS	104

struct seat {
	uint8_t	pay[CARDS];
	int	npay;
	int	hand[14];	/* cards of each rank, 1-13 */
	int	nhand;
	uint8_t	side[4][CARDS];
	int	nside[4];
};

static struct seat p[2];
static uint8_t stock[CARDS];
static int nstock, ncentre[6], centres = 3, handsize = 5;

static void
fail(const char *why)
{
	fprintf(stderr, "perft-spite: %s: not modelled\n", why);
	exit(1);
}

/* Does centre stack c take a card of rank r (a King is wild)? */
static int
takes(int c, int r)
{
	return ncentre[c] < QUEEN && (r == KING || r == ncentre[c] + 1);
}

static int
takers(int r)
{
	int c, n = 0;

	for (c = 0; c < centres; c++)
		n += takes(c, r);
	return n;
}

/* The actions of seat me, without making them. */
static uint64_t
count(int me)
{
	struct seat *s = &p[me];
	uint64_t n = (uint64_t)takers(s->pay[s->npay - 1]);
	int k, r;

	for (k = 0; k < 4; k++)
		if (s->nside[k] > 0)
			n += (uint64_t)takers(s->side[k][s->nside[k] - 1]);
	for (r = 1; r <= KING; r++)
		if (s->hand[r] > 0)
			n += (uint64_t)takers(r) + 4;	/* centre or a side */
	return s->nhand == 0 ? n + 1 : n;	/* `end` */
}

static uint64_t perft(int me, int depth);

/* A card onto centre stack c, searched below, and taken back. */
static uint64_t
to_centre(int me, int c, int depth)
{
	uint64_t t;

	if (++ncentre[c] == QUEEN)
		fail("a completed stack is shuffled into the stock");
	t = perft(me, depth - 1);
	ncentre[c]--;
	return t;
}

/* The turn passes: the other seat draws up to a full hand. */
static uint64_t
pass(int me, int depth)
{
	struct seat *o = &p[!me];
	int drawn = 0;
	uint64_t t;

	while (o->nhand < handsize) {
		if (nstock == 0)
			fail("the stock runs out: the round ends");
		o->hand[stock[--nstock]]++;
		o->nhand++;
		drawn++;
	}
	t = perft(!me, depth - 1);
	while (drawn-- > 0) {
		o->hand[stock[nstock++]]--;
		o->nhand--;
	}
	return t;
}

static uint64_t
perft(int me, int depth)
{
	struct seat *s = &p[me];
	uint64_t t = 0;
	int c, k, r, card;

	if (depth == 0)
		return 1;
	if (depth == 1)
		return count(me);
	card = s->pay[s->npay - 1];
	for (c = 0; c < centres; c++)
		if (takes(c, card)) {
			if (s->npay == 1)
				fail("the payoff pile empties: the round ends");
			s->npay--;
			t += to_centre(me, c, depth);
			s->npay++;
		}
	for (k = 0; k < 4; k++) {
		if (s->nside[k] == 0)
			continue;
		card = s->side[k][s->nside[k] - 1];
		for (c = 0; c < centres; c++)
			if (takes(c, card)) {
				/* Below, a discard may land where the card
				 * was: it goes back in its place. */
				s->nside[k]--;
				t += to_centre(me, c, depth);
				s->side[k][s->nside[k]++] = (uint8_t)card;
			}
	}
	for (r = 1; r <= KING; r++) {
		if (s->hand[r] == 0)
			continue;
		s->hand[r]--;
		s->nhand--;
		for (c = 0; c < centres; c++)
			if (takes(c, r))
				t += to_centre(me, c, depth);
		for (k = 0; k < 4; k++) {
			s->side[k][s->nside[k]++] = (uint8_t)r;
			t += pass(me, depth);
			s->nside[k]--;
		}
		s->hand[r]++;
		s->nhand++;
	}
	if (s->nhand == 0)
		t += pass(me, depth);
	return t;
}

static int
rank(const char *t)
{
	static const char *const names[] = { "A", "2", "3", "4", "5", "6",
		"7", "8", "9", "10", "J", "Q", "K" };
	int r;

	for (r = 0; r < 13; r++)
		if (strcmp(t, names[r]) == 0)
			return r + 1;
	fprintf(stderr, "perft-spite: no rank %s\n", t);
	exit(2);
}

/* The JSON array of cards at p into out; returns the text after it. */
static const char *
pile(const char *p, uint8_t *out, int *n)
{
	char t[4];
	int used;

	*n = 0;
	if (*p++ != '[')
		exit(2);
	while (*p == '"' && sscanf(p, "\"%3[^\"]\"%n", t, &used) == 1) {
		if (*n >= CARDS)
			exit(2);
		out[(*n)++] = (uint8_t)rank(t);
		p += used;
		if (*p == ',')
			p++;
	}
	if (*p++ != ']')
		exit(2);
	return p;
}

static const char *
after(const char *json, const char *key)
{
	const char *q = strstr(json, key);

	if (q == NULL) {
		fprintf(stderr, "perft-spite: no %s in the deal\n", key);
		exit(2);
	}
	return q + strlen(key);
}

/* Read the deal; returns the seat to move. */
static int
load(const char *json)
{
	uint8_t cards[CARDS];
	const char *q;
	int me, who, k, n, i;

	memset(p, 0, sizeof(p));
	memset(ncentre, 0, sizeof(ncentre));
	if (strstr(json, "\"refill_empty_hand\":false") == NULL) {
		fprintf(stderr, "perft-spite: refill_empty_hand not modelled\n");
		exit(2);
	}
	handsize = atoi(after(json, "\"hand\":"));
	centres = atoi(after(json, "\"centre\":"));
	if (centres < 1 || centres > 6 || handsize < 1 || handsize > 10)
		exit(2);
	me = strncmp(after(json, "\"to_move\":"), "\"North\"", 7) == 0;
	pile(after(json, "\"stock\":"), stock, &nstock);
	q = after(json, "\"centre\":[");
	for (k = 0; k < centres; k++) {
		q = pile(q, cards, &ncentre[k]);
		if (*q == ',')
			q++;
	}
	for (who = 0; who < 2; who++) {
		q = after(q, "\"payoff\":");
		q = pile(q, p[who].pay, &p[who].npay);
		q = pile(after(q, "\"hand\":"), cards, &n);
		for (i = 0; i < n; i++)
			p[who].hand[cards[i]]++;
		p[who].nhand = n;
		q = after(q, "\"side\":[");
		for (k = 0; k < 4; k++) {
			q = pile(q, p[who].side[k], &p[who].nside[k]);
			if (*q == ',')
				q++;
		}
	}
	return me;
}

int
main(int argc, char **argv)
{
	static char json[1 << 16];
	FILE *f;
	size_t len;
	int depth, d, me;

	if (argc != 3 || (f = fopen(argv[2], "r")) == NULL) {
		fprintf(stderr, "usage: perft-spite DEPTH DEAL.json\n");
		return 2;
	}
	len = fread(json, 1, sizeof(json) - 1, f);
	fclose(f);
	json[len] = '\0';
	depth = atoi(argv[1]);
	me = load(json);
	for (d = 1; d <= depth; d++) {
		printf("depth %d: %llu\n", d, (unsigned long long)perft(me, d));
		fflush(stdout);
	}
	return 0;
}
