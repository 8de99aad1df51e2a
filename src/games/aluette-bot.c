/*
 * aluette-bot: what the card robots (cardbot.c) know of Aluette.
 *
 * Everything here reads a state the robot's seat has determinized, and
 * reads it only through aluette_seen(), which takes what the seat may see
 * (aluette.h), except the hooks of a simulation (aluette_playout(),
 * aluette_play()), which read the public fields aluette.h lists directly;
 * a move's meaning comes from its bytes (aluette.h's encoding).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "aluette.h"

#define ALUETTE_PLIES	60

/* What a move is. */
enum { AK_OTHER, AK_PLAY, AK_DISCARD, AK_CHANGE, AK_NOCHANGE };

/* The ranking class as rules.md numbers it: 1 (Monsieur, 3co) is the
 * strongest, 19 (3sw, 3cl) the weakest; equal classes tie. */
static int
aluette_class(int c)
{
	return class_of[c];
}

static void
aluette_classify(const struct game_botctx *c, const void *st, int seat,
    struct game_botmove *mi)
{
	const struct game_move *m = &mi->m;

	(void)c;
	(void)st;
	(void)seat;
	if (m->len < 2)
		return;
	switch (m->d[0]) {
	case MV_CHANGE:
		mi->kind = AK_CHANGE;
		break;
	case MV_NOCHANGE:
		mi->kind = AK_NOCHANGE;
		break;
	case MV_DISCARD:
		mi->kind = AK_DISCARD;
		mi->card = m->d[1] < NCARDS ? m->d[1] : -1;
		break;
	case MV_PLAY:
		if (m->d[1] < NCARDS) {
			mi->kind = AK_PLAY;
			mi->card = m->d[1];
		}
		break;
	}
}

/*
 * The seat's view of a position.  The only function here that reads the
 * state: see aluette.h for what it may read and what it must not.
 */
void
aluette_seen(const struct aluette *a, int seat, struct aluette_seen *v)
{
	uint64_t m, hidden = 0;
	int i, s;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < NSEATS; i++)
		v->table[i] = a->table[i];
	v->leader = a->leader;
	for (i = 0; i < a->ntrick && i < NSEATS; i++) {
		v->trick[v->ntrick++] = a->trick[i];
		v->seen[a->trick[i]] = 1;
	}
	if (seat >= 0 && seat < NSEATS) {
		for (m = a->hand[seat]; m != 0; m &= m - 1) {
			v->hand[v->nhand] = card_at[__builtin_ctzll(m)];
			v->seen[v->hand[v->nhand++]] = 1;
		}
		for (i = 0; i < NCARDS; i++)
			if (a->disc[seat] >> i & 1)
				v->seen[i] = 1;
	}
	/* The cards played: in no hand, discards, stock or trick.  The
	 * hidden places are read only as their union (by card number),
	 * never one by one. */
	for (s = 0; s < NSEATS; s++) {
		for (m = a->hand[s]; m != 0; m &= m - 1)
			hidden |= (uint64_t)1 << card_at[__builtin_ctzll(m)];
		hidden |= a->disc[s];
	}
	for (i = 0; i < a->nstock; i++)
		hidden |= (uint64_t)1 << a->stock[i];
	for (i = 0; i < a->ntrick; i++)
		hidden |= (uint64_t)1 << a->trick[i];
	for (i = 0; i < NCARDS; i++)
		if (!(hidden >> i & 1))
			v->seen[i] = 1;
	for (i = 0; i < NCARDS; i++)
		v->unseen += !v->seen[i];
}

static int
aluette_pos(const struct aluette_seen *v, int seat)
{
	int p;

	for (p = 0; p < 4; p++)
		if (v->table[p] == seat)
			return p;
	return 0;
}

/* The seat holding the i-th card of the trick. */
static int
aluette_trick_seat(const struct aluette_seen *v, int i)
{
	return v->table[(aluette_pos(v, v->leader) + i) % 4];
}

/* The strongest class on the table and the seat that played it, -1 when
 * it is tied (the trick would be spoiled) or the table is empty. */
static int
aluette_best(const struct aluette_seen *v, int *cls)
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
aluette_partners(const struct aluette_seen *v, int a, int b)
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
aluette_play_value(const struct aluette_seen *v, int seat, int card)
{
	struct aluette_seen after = *v;
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
	struct aluette_seen v;
	const struct game_botmove *mi;
	int seat = c->seat, i, best = -1, weakest = -1, wcls = -1, cls, owner,
	    mybest = 99, strength = 0;
	double val, bval = -1e9;

	aluette_seen(st, seat, &v);
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

/*
 * The playout policy: a rule of thumb most of the time, a move at random
 * otherwise.  Led: any card.  Following: where the partner holds the
 * trick, the weakest card; otherwise the weakest card that takes the
 * trick, or failing one a card that ties the opponent's (the trick is
 * spoiled), or the weakest.  The moves come strongest first (legal()), and
 * the trick on the table is public.
 */
static int
aluette_playout(struct game_botctx *c, const void *st, int actor,
    const struct game_move *moves, int n)
{
	const struct aluette *a = st;
	int i, k, best, bcls, tie, owner, lead;

	if (a->phase != PH_PLAY || a->ntrick == 0 ||
	    game_bot_below(c, 4) == 0)
		return (int)game_bot_below(c, (uint32_t)n);
	best = 0;
	bcls = class_of[a->trick[0]];
	tie = 0;
	for (i = 1; i < a->ntrick; i++) {
		k = class_of[a->trick[i]];
		if (k < bcls) {
			bcls = k;
			best = i;
			tie = 0;
		} else if (k == bcls)
			tie = 1;
	}
	lead = a->pos[a->leader];
	owner = tie ? -1 : a->table[(lead + best) % NSEATS];
	if (owner >= 0 && a->pos[owner] % 2 == a->pos[actor] % 2)
		return n - 1;
	for (i = n - 1; i >= 0; i--)
		if (class_of[moves[i].d[1]] < bcls)
			return i;
	if (owner >= 0)
		for (i = n - 1; i >= 0; i--)
			if (class_of[moves[i].d[1]] == bcls)
				return i;
	return n - 1;
}

/*
 * A move in a simulation.  The hand's last card, in a hand before the
 * game's last, is not played: its points go to the tally and the
 * simulation stops there, without the next hand's deal (a shuffle of the
 * deck that nothing would read).
 */
static void
aluette_play(struct game_botctx *c, struct game_botsim *sim, void *st,
    int actor, const struct game_move *m, int plies)
{
	const struct aluette *a = st;
	uint32_t seats;
	int pts, s;

	(void)plies;
	if (m->d[0] == MV_PLAY && a->phase == PH_PLAY &&
	    a->ndone == NTRICKS - 1 && a->ntrick == NSEATS - 1 &&
	    a->handno < NHANDS) {
		pts = aluette_last_card_points(a, m->d[1], &seats);
		for (s = 0; s < NSEATS; s++)
			sim->tally[s] = seats >> s & 1 ? pts : 0;
		sim->stop = 1;
		return;
	}
	c->ops->apply(st, actor, m);
}

/* A simulation cut short: partners share a score, so each side's gain is
 * counted twice in the total; the tally holds the points of a hand the
 * simulation stopped at. */
static void
aluette_reward(struct game_botctx *c, const struct game_botsim *sim,
    const void *st, const int gain[GAME_MAX_SEATS], int plies,
    double r[GAME_MAX_SEATS])
{
	int i, g[4], total = 0;
	double x;

	(void)c;
	(void)st;
	(void)plies;
	for (i = 0; i < 4; i++) {
		g[i] = gain[i] + (int)sim->tally[i];
		total += g[i];
	}
	for (i = 0; i < 4; i++) {
		x = 0.5 + 0.25 * (g[i] - (total / 2 - g[i]));
		r[i] = x < 0 ? 0 : x > 1 ? 1 : x;
	}
}

const struct game_cardbot aluette_cardbot = {
	.seats = 4,
	.max_plies = ALUETTE_PLIES,
	.classify = aluette_classify,
	.choose = aluette_simple,
	.playout = aluette_playout,
	.play = aluette_play,
	.reward = aluette_reward,
};
