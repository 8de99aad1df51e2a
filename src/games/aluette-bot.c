/*
 * aluette-bot: what the card robots (cardbot.c) know of Aluette.
 *
 * Everything here reads a state the robot's seat has determinized, and
 * learns about it only through the engine's interface: a move's meaning
 * from its notation (format_move()), a position's public facts from the
 * serialised text, read only in the lines the seat may see.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"

#define ALUETTE_PLIES	60

/* What a move is, from its notation. */
enum { AK_OTHER, AK_PLAY, AK_DISCARD, AK_CHANGE, AK_NOCHANGE };

/* The public facts of a position. */
struct aview {
	int	table[4];
	int	leader, ntrick, trick[4];
	int	nhand, hand[48];	/* the viewer's own */
	int	unseen;			/* cards the viewer has not seen */
	unsigned char seen[48];
};

/* A card from "3co": suit * 12 + rank index, or -1. */
static int
aluette_card(const char *t)
{
	static const char ranks[] = "123456789JCK";
	static const char *const suits[] = { "co", "cu", "sw", "cl" };
	const char *r;
	int s;

	if (t[0] == '\0' || (r = strchr(ranks, t[0])) == NULL ||
	    strlen(t) != 3)
		return -1;
	for (s = 0; s < 4; s++)
		if (strcmp(t + 1, suits[s]) == 0)
			return s * 12 + (int)(r - ranks);
	return -1;
}

/* The ranking class as rules.md numbers it: 1 (Monsieur, 3co) is the
 * strongest, 19 (3sw, 3cl) the weakest; equal classes tie. */
static int
aluette_class(int c)
{
	int s = c / 12, r = c % 12;

	switch (r) {
	case 2:
		return s == 0 ? 1 : s == 1 ? 2 : 19;
	case 1:
		return s == 0 ? 3 : s == 1 ? 4 : s == 3 ? 7 : 8;
	case 8:
		return s == 1 ? 5 : s == 0 ? 6 : 13;
	case 0:
		return 9;
	case 11:
		return 10;
	case 10:
		return 11;
	case 9:
		return 12;
	default:
		return 14 + (7 - r);
	}
}

static void
aluette_classify(const struct game_botctx *c, const void *st, int seat,
    struct game_botmove *mi)
{
	char text[GAME_MOVE_TEXT];

	c->ops->format_move(st, seat, &mi->m, text, sizeof(text));
	if (strcmp(text, "change") == 0)
		mi->kind = AK_CHANGE;
	else if (strcmp(text, "nochange") == 0)
		mi->kind = AK_NOCHANGE;
	else if (strncmp(text, "discard ", 8) == 0) {
		mi->kind = AK_DISCARD;
		mi->card = aluette_card(text + 8);
	} else if ((mi->card = aluette_card(text)) >= 0)
		mi->kind = AK_PLAY;
}

/* The seat's view of a position. */
static void
aluette_view(const struct game_botctx *c, const void *st, int seat,
    struct aview *v)
{
	struct buf b = { 0 };
	char *line, *next, *w[50], key[32];
	int n, i, card;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < 4; i++)
		v->table[i] = i;
	c->ops->serialise(st, &b);
	for (line = (char *)buf_str(&b); line != NULL && *line; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		n = game_bot_words(line, w, (int)nitems(w));
		if (n == 5 && strcmp(w[0], "table") == 0) {
			for (i = 0; i < 4; i++)
				v->table[i] = atoi(w[i + 1]);
		} else if (n >= 2 && strcmp(w[0], "trick") == 0) {
			v->leader = atoi(w[1]);
			for (i = 2; i < n && v->ntrick < 4; i++)
				if ((card = aluette_card(w[i])) >= 0) {
					v->trick[v->ntrick++] = card;
					v->seen[card] = 1;
				}
		} else if (n >= 1 && strcmp(w[0], "played") == 0) {
			for (i = 1; i < n; i++)
				if ((card = aluette_card(w[i])) >= 0)
					v->seen[card] = 1;
		} else if (n >= 3 && strcmp(w[0], "seat") == 0 &&
		    atoi(w[1]) == seat) {
			snprintf(key, sizeof(key), "%s", w[2]);
			for (i = 3; i < n; i++) {
				if ((card = aluette_card(w[i])) < 0)
					continue;
				if (strcmp(key, "hand") == 0 && v->nhand < 48)
					v->hand[v->nhand++] = card;
				if (strcmp(key, "hand") == 0 ||
				    strcmp(key, "discards") == 0)
					v->seen[card] = 1;
			}
		}
	}
	buf_free(&b);
	for (i = 0; i < 48; i++)
		v->unseen += !v->seen[i];
}

static int
aluette_pos(const struct aview *v, int seat)
{
	int p;

	for (p = 0; p < 4; p++)
		if (v->table[p] == seat)
			return p;
	return 0;
}

/* The seat holding the i-th card of the trick. */
static int
aluette_trick_seat(const struct aview *v, int i)
{
	return v->table[(aluette_pos(v, v->leader) + i) % 4];
}

/* The strongest class on the table and the seat that played it, -1 when
 * it is tied (the trick would be spoiled) or the table is empty. */
static int
aluette_best(const struct aview *v, int *cls)
{
	int i, best = -1, ties = 0, k;

	*cls = 99;
	for (i = 0; i < v->ntrick; i++) {
		k = aluette_class(v->trick[i]);
		if (k < *cls) {
			*cls = k;
			best = i;
			ties = 0;
		} else if (k == *cls)
			ties++;
	}
	return best < 0 || ties ? -1 : aluette_trick_seat(v, best);
}

static int
aluette_partners(const struct aview *v, int a, int b)
{
	return aluette_pos(v, a) % 2 == aluette_pos(v, b) % 2;
}

/*
 * Level-2 value of playing a card: the chance that the trick goes to the
 * seat's side after it, times a trick's worth, less what the card is worth
 * kept.  The chance counts the unseen cards that beat or tie the side's
 * best card and supposes them spread evenly over the opponents still to
 * play.
 */
static double
aluette_play_value(const struct aview *v, int seat, int card)
{
	struct aview after = *v;
	int cls, owner, i, k, nbeat = 0, opps = 0, h;
	double p = 0, f;

	after.trick[after.ntrick++] = card;
	owner = aluette_best(&after, &cls);
	if (owner >= 0 && aluette_partners(v, owner, seat)) {
		for (i = 0; i < 48; i++)
			if (!v->seen[i] && aluette_class(i) <= cls)
				nbeat++;
		for (k = after.ntrick; k < 4; k++)
			if (!aluette_partners(v, aluette_trick_seat(v, k),
			    seat))
				opps++;
		h = v->nhand;
		f = v->unseen > 0 ? (double)nbeat / v->unseen : 0;
		p = pow(1 - f, (double)(h * opps));
	}
	return 10.0 * p - 0.3 * (20 - aluette_class(card));
}

/* Levels 1 and 2. */
static int
aluette_simple(struct game_botctx *c, const void *st, int level,
    const struct game_move *moves, int n)
{
	struct aview v;
	const struct game_botmove *mi;
	int seat = c->seat, i, best = -1, weakest = -1, wcls = -1, cls, owner,
	    mybest = 99, strength = 0;
	double val, bval = -1e9;

	aluette_view(c, st, seat, &v);
	for (i = 0; i < v.nhand; i++)
		strength += 20 - aluette_class(v.hand[i]);
	for (i = 0; i < n; i++) {
		mi = game_bot_move(c, st, seat, &moves[i]);
		if (mi->card >= 0) {
			cls = aluette_class(mi->card);
			if (cls > wcls) {
				wcls = cls;
				weakest = i;
			}
			if (cls < mybest)
				mybest = cls;
		}
		/* Ask for the change with a weak hand (level 2 only). */
		if (mi->kind == (level >= 2 && strength < 60 ? AK_CHANGE :
		    AK_NOCHANGE))
			return i;
	}
	if (weakest < 0)
		return (int)rng_below(c->rng, (uint32_t)n);
	mi = game_bot_move(c, st, seat, &moves[0]);
	if (mi->kind == AK_DISCARD)
		return weakest;
	if (level >= 2) {
		for (i = 0; i < n; i++) {
			mi = game_bot_move(c, st, seat, &moves[i]);
			val = aluette_play_value(&v, seat, mi->card);
			if (val > bval) {
				bval = val;
				best = i;
			}
		}
		return best;
	}
	owner = aluette_best(&v, &cls);
	if (v.ntrick > 0 && (mybest >= cls || (owner >= 0 &&
	    aluette_partners(&v, owner, seat) && v.ntrick == 3)))
		return weakest;
	return (int)rng_below(c->rng, (uint32_t)n);
}

/* A simulation cut short: partners share a score, so each side's gain is
 * counted twice in the total. */
static void
aluette_reward(struct game_botctx *c, const struct game_botsim *sim,
    const void *st, const int gain[GAME_MAX_SEATS], int plies,
    double r[GAME_MAX_SEATS])
{
	int i, total = 0;
	double x;

	(void)c;
	(void)sim;
	(void)st;
	(void)plies;
	for (i = 0; i < 4; i++)
		total += gain[i];
	for (i = 0; i < 4; i++) {
		x = 0.5 + 0.25 * (gain[i] - (total / 2 - gain[i]));
		r[i] = x < 0 ? 0 : x > 1 ? 1 : x;
	}
}

const struct game_cardbot aluette_cardbot = {
	.seats = 4,
	.max_plies = ALUETTE_PLIES,
	.classify = aluette_classify,
	.choose = aluette_simple,
	.reward = aluette_reward,
};
