/*
 * cardbot: robots for Aluette and Spite & Malice.
 *
 * Everything below works on a determinized copy of the state (see
 * cardbot.h), and learns about moves and positions only through the
 * engine interface: a move's meaning comes from its notation
 * (format_move(), cached by the move's bytes), a position's public facts
 * from the serialised text, read only in the lines the seat may see.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cardbot.h"

enum { G_ALUETTE, G_SPITE };

/* What a move is, from its notation. */
enum { K_OTHER, SK_PAY, SK_SIDE, SK_HAND, SK_DISCARD, SK_END, AK_PLAY,
	AK_DISCARD, AK_CHANGE, AK_NOCHANGE };

struct mvinfo {
	struct game_move m;
	int	used;
	int	kind;
	int	card;		/* Spite: rank of a hand card; Aluette: card */
	int	target;		/* Spite: 0-based stack index */
};

#define CACHE_SIZE	1024

struct ctx {
	const struct game_ops *ops;
	int	game;
	int	seat;
	struct rng *rng;
	struct mvinfo cache[CACHE_SIZE];
};

/* Spite & Malice: the public facts of a position. */
#define S_MAXCARDS	104
struct sview {
	int	round, turn, over, winner, score[2];
	int	ncentre;
	int	centre[6];		/* cards on each centre stack */
	int	npay[2], top[2];
	int	nhand[2];
	int	hand[2][10];		/* the viewer's own; both in a
					 * simulation's determinized state */
	int	nstock;
	int	nside[2][4];
	unsigned char side[2][4][S_MAXCARDS];
};

/* Aluette: the public facts of a position. */
struct aview {
	int	table[4];
	int	leader, ntrick, trick[4];
	int	nhand, hand[48];	/* the viewer's own */
	int	unseen;			/* cards the viewer has not seen */
	unsigned char seen[48];
};

static int
move_eq(const struct game_move *a, const struct game_move *b)
{
	return a->len == b->len && memcmp(a->d, b->d, a->len) == 0;
}

/* Ranks as Spite & Malice writes them: A 2 ... 10 J Q K. */
static int
spite_rank(const char *t)
{
	static const char *const names[] = { "A", "2", "3", "4", "5", "6",
		"7", "8", "9", "10", "J", "Q", "K" };
	int i;

	for (i = 0; i < 13; i++)
		if (strcmp(t, names[i]) == 0)
			return i + 1;
	return 0;
}

/* An Aluette card from "3co": suit * 12 + rank index, or -1. */
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

/* The Aluette ranking class as rules.md numbers it: 1 (Monsieur, 3co) is
 * the strongest, 19 (3sw, 3cl) the weakest; equal classes tie. */
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
classify(struct ctx *c, const void *st, int seat, struct mvinfo *mi)
{
	char text[GAME_MOVE_TEXT], *sp;
	size_t len;

	c->ops->format_move(st, seat, &mi->m, text, sizeof(text));
	mi->kind = K_OTHER;
	mi->card = -1;
	mi->target = 0;
	if (c->game == G_ALUETTE) {
		if (strcmp(text, "change") == 0)
			mi->kind = AK_CHANGE;
		else if (strcmp(text, "nochange") == 0)
			mi->kind = AK_NOCHANGE;
		else if (strncmp(text, "discard ", 8) == 0) {
			mi->kind = AK_DISCARD;
			mi->card = aluette_card(text + 8);
		} else if ((mi->card = aluette_card(text)) >= 0)
			mi->kind = AK_PLAY;
		return;
	}
	if (strcmp(text, "end") == 0) {
		mi->kind = SK_END;
		return;
	}
	len = strlen(text);
	if ((sp = strchr(text, ' ')) == NULL || len < 4)
		return;
	*sp = '\0';
	mi->target = text[len - 1] - '1';
	if (sp[1] == 's') {
		mi->kind = SK_DISCARD;
		mi->card = spite_rank(text);
	} else if (strcmp(text, "p") == 0)
		mi->kind = SK_PAY;
	else if (text[0] == 's')
		mi->kind = SK_SIDE;
	else {
		mi->kind = SK_HAND;
		mi->card = spite_rank(text);
	}
}

/* The meaning of a move, cached by its bytes (the notation of a move does
 * not depend on the position in these two games). */
static const struct mvinfo *
info(struct ctx *c, const void *st, int seat, const struct game_move *m)
{
	uint32_t h = 2166136261u;
	int i;

	for (i = 0; i < m->len; i++)
		h = (h ^ m->d[i]) * 16777619u;
	for (i = 0; i < CACHE_SIZE; i++) {
		struct mvinfo *mi = &c->cache[(h + (uint32_t)i) % CACHE_SIZE];

		if (mi->used && move_eq(&mi->m, m))
			return mi;
		if (!mi->used) {
			mi->used = 1;
			mi->m = *m;
			classify(c, st, seat, mi);
			return mi;
		}
	}
	fatal("cardbot: move cache full");
}

/* Words of a line split in place on spaces; returns the count. */
static int
split(char *s, char **w, int max)
{
	char *save = NULL, *t;
	int n = 0;

	for (t = strtok_r(s, " ", &save); t != NULL && n < max;
	    t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	return n;
}

/* The ranks of a pile line's words ("-" is empty). */
static int
spite_pile(char **w, int n, unsigned char *out, int max)
{
	int i, k = 0;

	for (i = 0; i < n && k < max; i++)
		if (strcmp(w[i], "-") != 0)
			out[k++] = (unsigned char)spite_rank(w[i]);
	return k;
}

/* The seat's view of a Spite & Malice position, from the lines of the
 * serialised state that hold public facts and the seat's own hand (both
 * hands with seat -1, for simulations). */
static void
spite_view(const struct ctx *c, const void *st, int seat, struct sview *v)
{
	struct buf b = { 0 };
	char *line, *next, *w[S_MAXCARDS + 2];
	unsigned char cards[S_MAXCARDS];
	int n, k, who, lineno = 0;

	memset(v, 0, sizeof(*v));
	c->ops->serialise(st, &b);
	for (line = (char *)buf_str(&b); line != NULL && *line; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (++lineno == 2) {
			sscanf(line, "round=%d starter=%*d turn=%d over=%d "
			    "winner=%d score=%d:%d", &v->round, &v->turn,
			    &v->over, &v->winner, &v->score[0], &v->score[1]);
			continue;
		}
		n = split(line, w, (int)nitems(w));
		if (n < 1)
			continue;
		if (strcmp(w[0], "stock:") == 0) {
			v->nstock = spite_pile(w + 1, n - 1, cards,
			    S_MAXCARDS);
			continue;
		}
		if (w[0][0] == 'c' && w[0][1] >= '1' && w[0][1] <= '6' &&
		    w[0][2] == ':') {
			k = w[0][1] - '1';
			v->centre[k] = spite_pile(w + 1, n - 1, cards,
			    S_MAXCARDS);
			if (k + 1 > v->ncentre)
				v->ncentre = k + 1;
			continue;
		}
		if (n < 2 || (strcmp(w[0], "south") != 0 &&
		    strcmp(w[0], "north") != 0))
			continue;
		who = strcmp(w[0], "north") == 0;
		k = spite_pile(w + 2, n - 2, cards, S_MAXCARDS);
		if (strcmp(w[1], "payoff:") == 0) {
			v->npay[who] = k;
			v->top[who] = k ? cards[k - 1] : 0;
		} else if (strcmp(w[1], "hand:") == 0) {
			v->nhand[who] = k;
			if (who == seat || seat < 0)
				for (n = 0; n < k && n < 10; n++)
					v->hand[who][n] = cards[n];
		} else if (w[1][0] == 's' && w[1][1] >= '1' &&
		    w[1][1] <= '4') {
			v->nside[who][w[1][1] - '1'] = k;
			memcpy(v->side[who][w[1][1] - '1'], cards, (size_t)k);
		}
	}
	buf_free(&b);
}

/* Cards still to be played on some centre stack before a card can go
 * there (0: it goes now); 99 when no stack will take it this cycle. */
static int
spite_dist(const struct sview *v, int card)
{
	int c, best = 99, need;

	if (card == 13)
		return 0;
	for (c = 0; c < v->ncentre; c++) {
		need = v->centre[c] + 1;
		if (card >= need && card - need < best)
			best = card - need;
	}
	return best;
}

/*
 * Spite & Malice evaluation for the seat, from public facts and its own
 * hand: match points above all, then a short payoff pile, a payoff top
 * close to being played, the opponent's top far from it, few cards left in
 * hand (they are refilled), cards built on the centre and a long stock (a
 * round whose stock runs dry scores nothing), Kings kept for need, and
 * side stacks that do not bury cards.
 */
static double
spite_eval(const struct sview *v, int me)
{
	int op = !me, k, i, d;
	double e;

	if (v->over)
		return v->winner == me ? 1e6 : v->winner < 0 ? 0 : -1e6;
	e = 1000.0 * (v->score[me] - v->score[op]);
	e -= 40.0 * v->npay[me];
	d = spite_dist(v, v->top[me]);
	e -= 4.0 * (d > 12 ? 12 : d);
	d = spite_dist(v, v->top[op]);
	if (d == 0)
		e -= 15;
	else
		e += 1.0 * (d > 6 ? 6 : d);
	e -= 3.0 * v->nhand[me];
	for (i = 0; i < v->nhand[me] && i < 10; i++)
		if (v->hand[me][i] == 13)
			e += 8;
	for (k = 0; k < v->ncentre; k++)
		e += 2.0 * v->centre[k];
	e += 2.0 * v->nstock;
	for (k = 0; k < 4; k++) {
		const unsigned char *s = v->side[me][k];

		/* Only a top is played: a card buried under anything but
		 * its own rank or the rank below it is lost for a while. */
		for (i = 1; i < v->nside[me][k]; i++) {
			if (s[i] == s[i - 1])
				continue;
			if (s[i] + 1 == s[i - 1])
				e += 1;
			else
				e -= 3 + (s[i] > s[i - 1] ? s[i] - s[i - 1] :
				    0);
		}
	}
	return e;
}

/* The seat's view of an Aluette position. */
static void
aluette_view(const struct ctx *c, const void *st, int seat, struct aview *v)
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
		n = split(line, w, (int)nitems(w));
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

/* Level 1 and 2 for Aluette. */
static int
aluette_simple(struct ctx *c, const void *st, int seat, int level,
    const struct game_move *moves, int n)
{
	struct aview v;
	const struct mvinfo *mi;
	int i, best = -1, weakest = -1, wcls = -1, cls, owner, mybest = 99,
	    strength = 0;
	double val, bval = -1e9;

	aluette_view(c, st, seat, &v);
	for (i = 0; i < v.nhand; i++)
		strength += 20 - aluette_class(v.hand[i]);
	for (i = 0; i < n; i++) {
		mi = info(c, st, seat, &moves[i]);
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
	mi = info(c, st, seat, &moves[0]);
	if (mi->kind == AK_DISCARD)
		return weakest;
	if (level >= 2) {
		for (i = 0; i < n; i++) {
			mi = info(c, st, seat, &moves[i]);
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

/* Level 1 for Spite & Malice, and the playout policy of level 3: the
 * payoff top whenever it goes; otherwise mostly a play to the centre (a
 * turn that discards early lets the stock run dry); otherwise a discard
 * (or `end`). */
static int
spite_quick(struct ctx *c, const void *st, int seat,
    const struct game_move *moves, int n)
{
	int centre[GAME_MAX_MOVES], other[GAME_MAX_MOVES], nc = 0, no = 0, i;
	const struct mvinfo *mi;

	for (i = 0; i < n; i++) {
		mi = info(c, st, seat, &moves[i]);
		if (mi->kind == SK_PAY)
			return i;
		if (mi->kind == SK_SIDE || mi->kind == SK_HAND)
			centre[nc++] = i;
		else
			other[no++] = i;
	}
	if (nc > 0 && (no == 0 || rng_below(c->rng, 5) != 0))
		return centre[rng_below(c->rng, (uint32_t)nc)];
	return other[rng_below(c->rng, (uint32_t)no)];
}

/* Level 2 for Spite & Malice: the action whose result evaluates best. */
static int
spite_greedy(struct ctx *c, const void *st, int seat,
    const struct game_move *moves, int n)
{
	struct sview *v = xmalloc(sizeof(*v));
	void *work = xmalloc(c->ops->state_size);
	double e, be = -1e18;
	int i, best = 0;

	for (i = 0; i < n; i++) {
		memcpy(work, st, c->ops->state_size);
		c->ops->apply(work, seat, &moves[i]);
		spite_view(c, work, seat, v);
		e = spite_eval(v, seat);
		if (e > be) {
			be = e;
			best = i;
		}
	}
	free(work);
	free(v);
	return best;
}

/* Information-set Monte Carlo tree search. */

struct node {
	struct game_move move;	/* the move into this node */
	int	actor;		/* the seat that made it */
	int	parent, child, next;
	int	visits, avail;
	double	reward;		/* summed, from the actor's side */
};

struct search {
	struct ctx *c;
	struct node *nodes;
	int	nnodes, cap;
	int	root_score[GAME_MAX_SEATS];
	double	credit[2];	/* Spite & Malice: payoff cards played in this
				 * simulation, each worth less the later */
	int	turns;		/* Spite & Malice: turns ended in it */
	int	nseats;
};

#define UCB_C		0.7
#define LCB_C		0.3
#define ALUETTE_PLIES	60
#define SPITE_PLIES	80
#define SPITE_DECAY	0.97
#define SPITE_ROUND_DECAY 0.99
#define SPITE_SCALE	10.0
#define SPITE_TURNS	1

static int
node_add(struct search *s, int parent, int actor, const struct game_move *m)
{
	struct node *nd;

	if (s->nnodes == s->cap) {
		s->cap *= 2;
		s->nodes = xreallocarray(s->nodes, (size_t)s->cap,
		    sizeof(*s->nodes));
	}
	nd = &s->nodes[s->nnodes];
	memset(nd, 0, sizeof(*nd));
	nd->move = *m;
	nd->actor = actor;
	nd->parent = parent;
	nd->child = -1;
	nd->next = s->nodes[parent].child;
	s->nodes[parent].child = s->nnodes;
	return s->nnodes++;
}

/* The seat that acts in a simulation: the robot at the root, else the
 * first seat allowed (Aluette's two changers discard in any order). */
static int
actor_of(const struct ctx *c, const void *st, int at_root)
{
	uint32_t mask = c->ops->to_move(st);
	int s;

	if (at_root)
		return c->seat;
	for (s = 0; s < GAME_MAX_SEATS; s++)
		if (mask & (1u << s))
			return s;
	return -1;
}

/* Each seat's evaluation less the other's, both hands known, the match
 * score left out. */
static void
spite_diff(struct ctx *c, const void *st, double e[2])
{
	struct sview *v = xmalloc(sizeof(*v));
	double e0, e1;

	spite_view(c, st, -1, v);
	/* The match score is the same whatever the turn does (a round won
	 * is rewarded apart) and would only flatten the comparison. */
	v->score[0] = v->score[1] = 0;
	e0 = spite_eval(v, 0);
	e1 = spite_eval(v, 1);
	e[0] = e0 - e1;
	e[1] = e1 - e0;
	free(v);
}

/* A simulation stops at the end of the game, or once a hand (Aluette) or
 * round (Spite & Malice) has been scored, or after a number of plies; in
 * Spite & Malice also when the robot's turn is over: the search plans the
 * actions of one turn over sampled deals, and the evaluation judges where
 * the turn leaves the robot better than random play to the round's end
 * would (a round of random play seldom ends before the stock runs dry). */
static int
sim_done(const struct search *s, const void *st, int plies,
    struct game_result *res)
{
	int i;

	s->c->ops->result(st, res);
	if (res->over)
		return 1;
	for (i = 0; i < s->nseats; i++)
		if (res->score[i] != s->root_score[i])
			return 1;
	if (s->c->game == G_SPITE && s->turns >= SPITE_TURNS)
		return 1;
	return plies >= (s->c->game == G_ALUETTE ? ALUETTE_PLIES :
	    SPITE_PLIES);
}

/* Each seat's reward in [0, 1] for where a simulation stopped. */
static void
sim_reward(const struct search *s, const void *st,
    const struct game_result *res, int plies, double r[GAME_MAX_SEATS])
{
	int i, gain[GAME_MAX_SEATS], total = 0;
	double x;

	for (i = 0; i < GAME_MAX_SEATS; i++)
		r[i] = 0.5;
	if (res->over) {
		for (i = 0; i < s->nseats; i++)
			r[i] = res->draw ? 0.5 : (res->winners >> i & 1);
		return;
	}
	for (i = 0; i < s->nseats; i++) {
		gain[i] = res->score[i] - s->root_score[i];
		total += gain[i];
	}
	if (s->c->game == G_ALUETTE) {
		/* Partners share a score: each side's gain is counted
		 * twice in total. */
		for (i = 0; i < s->nseats; i++) {
			x = 0.5 + 0.25 * (gain[i] - (total / 2 - gain[i]));
			r[i] = x < 0 ? 0 : x > 1 ? 1 : x;
		}
		return;
	}
	if (total > 0) {
		/* A round won beats anything short of it; more points and
		 * sooner are better. */
		x = 0.98 + 0.02 * (0.6 + 0.4 * (total > 20 ? 20 : total) /
		    20.0) * pow(SPITE_ROUND_DECAY, plies);
		for (i = 0; i < 2; i++)
			r[i] = gain[i] > 0 ? x : 1 - x;
		return;
	} else {
		/* Cut short: the evaluation of where it stopped (both
		 * hands are known in a simulation) and the payoff cards each
		 * side played, the sooner the better. */
		double e[2];

		spite_diff(s->c, st, e);
		for (i = 0; i < 2; i++) {
			x = e[i] + 40.0 * (s->credit[i] - s->credit[!i]);
			r[i] = 0.02 + 0.96 / (1.0 + exp(-x / SPITE_SCALE));
		}
	}
}


/* Play a move in a simulation, crediting a payoff card to its player. */
static void
sim_apply(struct search *s, void *d, int actor, const struct game_move *m,
    int plies)
{
	if (s->c->game == G_SPITE && info(s->c, d, actor, m)->kind == SK_PAY)
		s->credit[actor] += pow(SPITE_DECAY, plies);
	s->c->ops->apply(d, actor, m);
	if (s->c->game == G_SPITE && !(s->c->ops->to_move(d) & (1u << actor)))
		s->turns++;
}

/*
 * A prior for the robot's own moves at the root, added to their value and
 * fading as they are visited: the level-2 evaluation for Spite & Malice
 * (0 for the best move, less for worse ones), whose many discards would
 * otherwise share a small budget evenly with the few good moves; none for
 * Aluette.
 */
static void
root_bias(struct ctx *c, const void *root, const struct game_move *moves,
    int n, double *bias)
{
	struct sview *v;
	void *work;
	double best = -1e18;
	int i;

	for (i = 0; i < n; i++)
		bias[i] = 0;
	if (c->game != G_SPITE)
		return;
	v = xmalloc(sizeof(*v));
	work = xmalloc(c->ops->state_size);
	for (i = 0; i < n; i++) {
		memcpy(work, root, c->ops->state_size);
		c->ops->apply(work, c->seat, &moves[i]);
		spite_view(c, work, c->seat, v);
		bias[i] = spite_eval(v, c->seat);
		if (bias[i] > best)
			best = bias[i];
	}
	for (i = 0; i < n; i++) {
		bias[i] = (bias[i] - best) / 20.0;
		if (bias[i] < -2)
			bias[i] = -2;
	}
	free(work);
	free(v);
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int
ismcts(struct ctx *c, const void *root, const struct game_move *rmoves,
    int rn, const struct cardbot_budget *budget)
{
	const struct game_ops *ops = c->ops;
	struct search s;
	struct game_move moves[GAME_MAX_MOVES];
	struct game_result res;
	int child[GAME_MAX_MOVES], untried[GAME_MAX_MOVES];
	double bias[GAME_MAX_MOVES];
	void *d = xmalloc(ops->state_size);
	long iter, maxiter = 0;
	double deadline = 0, r[GAME_MAX_SEATS], ucb, bu, lg;
	int cur, actor, n, i, k, nu, plies, best, ch, done;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.cap = 1024;
	s.nodes = xcalloc((size_t)s.cap, sizeof(*s.nodes));
	s.nnodes = 1;
	s.nodes[0].child = -1;
	s.nodes[0].parent = -1;
	s.nseats = c->game == G_ALUETTE ? 4 : 2;
	ops->result(root, &res);
	for (i = 0; i < s.nseats; i++)
		s.root_score[i] = res.score[i];
	root_bias(c, root, rmoves, rn, bias);
	if (budget != NULL && budget->iterations > 0)
		maxiter = budget->iterations;
	else
		deadline = now_ms() + (budget != NULL && budget->millis > 0 ?
		    (double)budget->millis : CARDBOT_DEFAULT_MS);

	for (iter = 0; ; iter++) {
		if (maxiter > 0 ? iter >= maxiter :
		    (iter % 8 == 0 && iter > 0 && now_ms() >= deadline))
			break;
		memcpy(d, root, ops->state_size);
		ops->determinize(d, c->seat, c->rng);
		cur = 0;
		plies = 0;
		done = 0;
		s.credit[0] = s.credit[1] = 0;
		s.turns = 0;
		/* Selection and expansion. */
		for (;;) {
			if (plies > 0 && sim_done(&s, d, plies, &res)) {
				done = 1;
				break;
			}
			actor = actor_of(c, d, cur == 0);
			if (cur == 0) {
				n = rn;
				memcpy(moves, rmoves, (size_t)rn *
				    sizeof(*moves));
			} else
				n = ops->legal(d, actor, moves,
				    GAME_MAX_MOVES);
			if (n <= 0) {
				done = 1;
				ops->result(d, &res);
				break;
			}
			nu = 0;
			for (i = 0; i < n; i++) {
				child[i] = -1;
				for (ch = s.nodes[cur].child; ch >= 0;
				    ch = s.nodes[ch].next)
					if (s.nodes[ch].actor == actor &&
					    move_eq(&s.nodes[ch].move,
					    &moves[i])) {
						child[i] = ch;
						break;
					}
				if (child[i] < 0)
					untried[nu++] = i;
				else
					s.nodes[child[i]].avail++;
			}
			if (nu > 0) {
				k = untried[rng_below(c->rng, (uint32_t)nu)];
				if (cur == 0)
					for (i = 0; i < nu; i++)
						if (bias[untried[i]] > bias[k])
							k = untried[i];
				cur = node_add(&s, cur, actor, &moves[k]);
				s.nodes[cur].avail = 1;
				sim_apply(&s, d, actor, &moves[k], plies);
				plies++;
				break;
			}
			best = 0;
			bu = -1e9;
			for (i = 0; i < n; i++) {
				struct node *nd = &s.nodes[child[i]];

				lg = log((double)nd->avail);
				ucb = nd->reward / nd->visits + UCB_C *
				    sqrt(lg / nd->visits);
				if (cur == 0)
					ucb += bias[i] / (nd->visits + 1);
				if (ucb > bu) {
					bu = ucb;
					best = i;
				}
			}
			cur = child[best];
			sim_apply(&s, d, actor, &moves[best], plies);
			plies++;
		}
		/* Playout. */
		while (!done && !sim_done(&s, d, plies, &res)) {
			actor = actor_of(c, d, 0);
			n = actor < 0 ? 0 : ops->legal(d, actor, moves,
			    GAME_MAX_MOVES);
			if (n <= 0)
				break;
			k = c->game == G_SPITE ? spite_quick(c, d, actor,
			    moves, n) : (int)rng_below(c->rng, (uint32_t)n);
			sim_apply(&s, d, actor, &moves[k], plies);
			plies++;
		}
		ops->result(d, &res);
		sim_reward(&s, d, &res, plies, r);
		for (; cur > 0; cur = s.nodes[cur].parent) {
			s.nodes[cur].visits++;
			s.nodes[cur].reward += r[s.nodes[cur].actor];
		}
		s.nodes[0].visits++;
	}

	/* The move with the best mean reward less a margin for few visits:
	 * robust when a few visits were lucky, and it still separates moves
	 * that the exploration visited about equally often. */
	best = 0;
	bu = -1e9;
	for (i = 0; i < rn; i++)
		for (ch = s.nodes[0].child; ch >= 0; ch = s.nodes[ch].next) {
			struct node *nd = &s.nodes[ch];

			if (!move_eq(&nd->move, &rmoves[i]) || nd->visits == 0)
				continue;
			ucb = nd->reward / nd->visits - LCB_C /
			    sqrt((double)nd->visits) + bias[i] /
			    (nd->visits + 1);
			if (ucb > bu) {
				bu = ucb;
				best = i;
			}
		}
	free(s.nodes);
	free(d);
	return best;
}

int
cardbot_supports(const struct game_ops *ops)
{
	return ops != NULL && ops->determinize != NULL &&
	    (strcmp(ops->name, "aluette") == 0 ||
	    strcmp(ops->name, "spite") == 0);
}

int
cardbot_choose(const struct game_ops *ops, const void *st, int seat,
    int level, const struct cardbot_budget *budget, struct rng *rng,
    struct game_move *move, char *err, size_t errlen)
{
	struct game_move moves[GAME_MAX_MOVES];
	struct ctx *c;
	void *view;
	int n, k;

	if (!cardbot_supports(ops)) {
		util_err(err, errlen, "no card robot for %s",
		    ops ? ops->name : "this game");
		return -1;
	}
	if (level < 1 || level > CARDBOT_MAXLEVEL) {
		util_err(err, errlen, "robot levels are 1 to %d",
		    CARDBOT_MAXLEVEL);
		return -1;
	}
	/* From here on only the seat's view exists. */
	view = xmalloc(ops->state_size);
	memcpy(view, st, ops->state_size);
	ops->determinize(view, seat, rng);
	n = ops->legal(view, seat, moves, GAME_MAX_MOVES);
	if (n <= 0) {
		util_err(err, errlen, "%s may not move now",
		    ops->seat_name(view, seat));
		free(view);
		return -1;
	}
	c = xcalloc(1, sizeof(*c));
	c->ops = ops;
	c->game = strcmp(ops->name, "aluette") == 0 ? G_ALUETTE : G_SPITE;
	c->seat = seat;
	c->rng = rng;
	if (n == 1)
		k = 0;
	else if (level == 3)
		k = ismcts(c, view, moves, n, budget);
	else if (c->game == G_ALUETTE)
		k = aluette_simple(c, view, seat, level, moves, n);
	else if (level == 2)
		k = spite_greedy(c, view, seat, moves, n);
	else
		k = spite_quick(c, view, seat, moves, n);
	*move = moves[k];
	free(c);
	free(view);
	return 0;
}
