/*
 * perft-aluette: an independent Aluette perft of the trick play, the
 * yardstick bench/perft.sh holds `ludus perft aluette` against.  Written
 * from rules.md alone and sharing nothing with src/games/: each hand an
 * array of card strengths, a card played by swapping it out and back, the
 * trick decided when its fourth card falls, and the last ply counted as the
 * size of the hand to play from.
 *
 *   perft-aluette DEPTH FILE
 *
 * FILE is the deal as `ludus deal aluette SEED --json` prints it (only the
 * hands, the table order and the leader are read).  It must be at the
 * first lead of a hand with no trick begun (changer=false, as by default).
 * Prints "depth d: leaves" for d = 1..DEPTH, as `ludus perft` does; stops
 * with an error if the tree reaches the end of the hand, whose scoring and
 * next deal are not modelled here.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t hand[4][9];	/* card strengths, 1 highest; by seat */
static int nhand[4];
static int order[4];		/* table position -> seat */
static int posof[4];		/* seat -> table position */

/* rules.md's ranking, highest first, as a strength (1 = Monsieur). */
static int
strength(const char *c)
{
	static const struct {
		const char *card;
		int s;
	} named[] = { { "3co", 1 }, { "3cu", 2 }, { "2co", 3 }, { "2cu", 4 },
		{ "9cu", 5 }, { "9co", 6 }, { "2cl", 7 }, { "2sw", 8 },
		{ "9sw", 13 }, { "9cl", 13 }, { "3sw", 19 }, { "3cl", 19 } };
	size_t i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (strcmp(c, named[i].card) == 0)
			return named[i].s;
	switch (c[0]) {
	case '1': return 9;
	case 'K': return 10;
	case 'C': return 11;
	case 'J': return 12;
	case '8': return 14;
	case '7': return 15;
	case '6': return 16;
	case '5': return 17;
	case '4': return 18;
	}
	fprintf(stderr, "perft-aluette: no card %s\n", c);
	exit(2);
}

/*
 * The leaves below a trick in progress: leader leads, k cards are down,
 * best is the strongest so far and tie whether it is shared.
 */
static uint64_t
perft(int leader, int k, int best, int bestpos, int tie, int depth)
{
	int seat = order[(posof[leader] + k) % 4], n = nhand[seat], i;
	uint8_t *h = hand[seat];
	uint64_t t = 0;

	if (n == 0) {
		fprintf(stderr, "perft-aluette: the hand ends: not modelled\n");
		exit(1);
	}
	if (depth == 1)
		return (uint64_t)n;
	nhand[seat] = n - 1;
	for (i = 0; i < n; i++) {
		int s = h[i], b = best, bp = bestpos, ti = tie;

		if (s < b) {
			b = s;
			bp = k;
			ti = 0;
		} else if (s == b)
			ti = 1;
		/* Take the card out of the hand: the last one fills its
		 * place, and goes back after. */
		h[i] = h[n - 1];
		h[n - 1] = (uint8_t)s;
		if (k < 3)
			t += perft(leader, k + 1, b, bp, ti, depth - 1);
		else
			/* A spoiled trick: the same leader again. */
			t += perft(ti ? leader : order[(posof[leader] + bp) %
			    4], 0, 99, 0, 0, depth - 1);
		h[n - 1] = h[i];
		h[i] = (uint8_t)s;
	}
	nhand[seat] = n;
	return t;
}

/* The text after key in json, or exit. */
static const char *
after(const char *json, const char *key)
{
	const char *p = strstr(json, key);

	if (p == NULL) {
		fprintf(stderr, "perft-aluette: no %s in the deal\n", key);
		exit(2);
	}
	return p + strlen(key);
}

int
main(int argc, char **argv)
{
	static char json[1 << 16];
	const char *p;
	char card[8];
	FILE *f;
	size_t len;
	int depth, d, s, leader, used;

	if (argc != 3 || (f = fopen(argv[2], "r")) == NULL) {
		fprintf(stderr, "usage: perft-aluette DEPTH DEAL.json\n");
		return 2;
	}
	len = fread(json, 1, sizeof(json) - 1, f);
	fclose(f);
	json[len] = '\0';
	depth = atoi(argv[1]);
	p = after(json, "\"phase\":\"");
	if (strncmp(p, "play\"", 5) != 0 ||
	    strstr(json, "\"cards\":[]") == NULL) {
		fprintf(stderr, "perft-aluette: not at a first lead\n");
		return 2;
	}
	p = after(json, "\"table\":[");
	if (sscanf(p, "%d,%d,%d,%d", &order[0], &order[1], &order[2],
	    &order[3]) != 4)
		return 2;
	for (s = 0; s < 4; s++)
		posof[order[s]] = s;
	p = json;
	for (s = 0; s < 4; s++) {
		p = after(p, "\"hand\":[");
		while (nhand[s] < 9 && *p == '"' &&
		    sscanf(p, "\"%7[^\"]\"%n", card, &used) == 1) {
			hand[s][nhand[s]++] = (uint8_t)strength(card);
			p += used;
			if (*p == ',')
				p++;
		}
	}
	leader = atoi(after(json, "\"leader\":"));
	for (d = 1; d <= depth; d++) {
		printf("depth %d: %llu\n", d,
		    (unsigned long long)perft(leader, 0, 99, 0, 0, d));
		fflush(stdout);
	}
	return 0;
}
