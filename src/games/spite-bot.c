/*
 * spite-bot: what the card robots (cardbot.c) know of Spite & Malice.
 *
 * Everything here reads a state the robot's seat has determinized, and
 * reads it only through spite_seen(), which takes what the seat may see
 * (spite.h); a move's meaning comes from its bytes (spite.h's encoding).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "spite.h"

/* What a move is. */
enum { SK_OTHER, SK_PAY, SK_SIDE, SK_HAND, SK_DISCARD, SK_END };

#define SPITE_PLIES	80
#define SPITE_DECAY	0.97
#define SPITE_ROUND_DECAY 0.99
#define SPITE_SCALE	10.0
#define SPITE_TURNS	1
#define SPITE_THREAT	10.0	/* a payoff card the opponent could play
				 * next, against 80 for one played */

/* A hand's rank in a move, 0 for none (as its notation would read). */
static int
spite_move_rank(const struct game_move *m)
{
	return m->d[0] == SRC_HAND && m->d[1] >= 1 &&
	    m->d[1] <= SPITE_RANKS ? m->d[1] : 0;
}

static void
spite_classify(const struct game_botctx *c, const void *st, int seat,
    struct game_botmove *mi)
{
	const struct game_move *m = &mi->m;

	(void)c;
	(void)st;
	(void)seat;
	if (m->len < 4)
		return;
	if (m->d[0] == SRC_END) {
		mi->kind = SK_END;
		return;
	}
	mi->target = m->d[3];
	if (m->d[2] == DST_SIDE) {
		mi->kind = SK_DISCARD;
		mi->card = spite_move_rank(m);
	} else if (m->d[0] == SRC_PAYOFF)
		mi->kind = SK_PAY;
	else if (m->d[0] == SRC_SIDE)
		mi->kind = SK_SIDE;
	else {
		mi->kind = SK_HAND;
		mi->card = spite_move_rank(m);
	}
}

/*
 * The seat's view of a position: the public facts and the seat's own hand
 * (both hands with seat -1, for the determinized state of a simulation).
 * The only function here that reads the state: see spite.h for what it may
 * read and what it must not.
 */
void
spite_seen(const struct spite *s, int seat, struct spite_seen *v)
{
	int who, k, n, at;

	memset(v, 0, sizeof(*v));
	v->round = s->round;
	v->turn = s->turn;
	v->over = s->over;
	v->winner = s->winner;
	v->score[0] = s->score[0];
	v->score[1] = s->score[1];
	v->nstock = s->nstock;		/* the count only: never the cards */
	v->ncentre = s->opt_centre;
	for (k = 0; k < s->opt_centre; k++)
		v->centre[k] = s->ncentre[k];
	for (who = 0; who < 2; who++) {
		const struct spite_seat *p = &s->p[who];

		v->npay[who] = p->npay;	/* and the top, never below it */
		v->top[who] = p->npay ? p->pay[p->npay - 1] : 0;
		v->nhand[who] = p->nhand;
		if (who == seat || seat < 0)
			for (n = 0; n < p->nhand && n < SPITE_MAXHAND; n++)
				v->hand[who][n] = p->hand[n];
		for (k = 0, at = spite_side_at(s, who, 0); k < SPITE_SIDES;
		    at += p->nside[k++]) {
			v->nside[who][k] = p->nside[k];
			memcpy(v->side[who][k], s->side + at, p->nside[k]);
		}
	}
}

/* Cards still to be played on some centre stack before a card can go
 * there (0: it goes now); 99 when no stack will take it this cycle. */
static int
spite_dist(const struct spite_seen *v, int card)
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
 * The evaluation for the seat, from public facts and its own hand: match
 * points above all, then a short payoff pile, a payoff top close to being
 * played, the opponent's top far from it, few cards left in hand (they
 * are refilled), cards built on the centre and a long stock (a round
 * whose stock runs dry scores nothing), Kings kept for need, and side
 * stacks that do not bury cards.
 */
static double
spite_eval(const struct spite_seen *v, int me)
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

/* The moves sorted for the policies below: the index of a play from the
 * payoff pile if there is one; else -1, with the plays to the centre from
 * a side stack or the hand in centre[] (*nc) and the rest in other[]
 * (*no). */
static int
spite_sort(struct game_botctx *c, const void *st, int seat,
    const struct game_move *moves, int n, int *centre, int *nc, int *other,
    int *no)
{
	const struct game_botmove *mi;
	int i;

	*nc = *no = 0;
	for (i = 0; i < n; i++) {
		mi = game_bot_move(c, st, seat, &moves[i]);
		if (mi->kind == SK_PAY)
			return i;
		if (mi->kind == SK_SIDE || mi->kind == SK_HAND)
			centre[(*nc)++] = i;
		else
			other[(*no)++] = i;
	}
	return -1;
}

/* Level 1, and the playout policy of level 3: the payoff top whenever it
 * goes; otherwise mostly a play to the centre (a turn that discards early
 * lets the stock run dry); otherwise a discard (or `end`). */
static int
spite_quick(struct game_botctx *c, const void *st, int seat,
    const struct game_move *moves, int n)
{
	int centre[GAME_MAX_MOVES], other[GAME_MAX_MOVES], nc = 0, no = 0, i;

	if ((i = spite_sort(c, st, seat, moves, n, centre, &nc, other,
	    &no)) >= 0)
		return i;
	if (nc > 0 && (no == 0 || rng_below(c->rng, 5) != 0))
		return centre[rng_below(c->rng, (uint32_t)nc)];
	return other[rng_below(c->rng, (uint32_t)no)];
}

/* One card of rank r for spite_chase(), from a side stack's top (nside
 * its stacks' heights left) or else the hand (hc its cards left by rank):
 * where it comes from in *src and *si, taken off; 0 when there is none. */
static int
chase_take(const struct spite_seen *v, int seat, int *hc, int *nside, int r,
    int *src, int *si)
{
	int k;

	for (k = 0; k < SPITE_SIDES; k++)
		if (nside[k] > 0 && v->side[seat][k][nside[k] - 1] == r) {
			*src = SRC_SIDE;
			*si = k;
			nside[k]--;
			return 1;
		}
	if (hc[r] > 0) {
		*src = SRC_HAND;
		*si = r;
		hc[r]--;
		return 1;
	}
	return 0;
}

/*
 * The next action of seat's toward its payoff top, from its own view, into
 * m: the top itself when a centre stack takes it, else the first card of
 * the shortest way to bring one stack up to the rank below the top, from
 * the hand and the side stacks' tops, Kings last and fewest of them.  0
 * when no such way is found.
 */
static int
spite_chase(const struct spite_seen *v, int seat, struct game_move *m)
{
	int hc[SPITE_RANKS + 1], nside[SPITE_SIDES];
	int t = v->top[seat], c, r, i, k, kings, cost, best = 1 << 30;
	int src = 0, si = 0, bc = -1, fsrc = 0, fsi = 0;

	if (v->npay[seat] == 0)
		return 0;
	for (c = 0; c < v->ncentre; c++)
		if (v->centre[c] < SPITE_QUEEN && (t == SPITE_KING ||
		    v->centre[c] + 1 == t)) {
			memset(m, 0, sizeof(*m));
			m->len = 4;
			m->d[0] = SRC_PAYOFF;
			m->d[2] = DST_CENTRE;
			m->d[3] = (uint8_t)c;
			return 1;
		}
	for (c = 0; c < v->ncentre; c++) {
		if (v->centre[c] + 1 >= t)
			continue;
		memset(hc, 0, sizeof(hc));
		for (i = 0; i < v->nhand[seat] && i < SPITE_MAXHAND; i++)
			hc[v->hand[seat][i]]++;
		for (k = 0; k < SPITE_SIDES; k++)
			nside[k] = v->nside[seat][k];
		kings = 0;
		for (r = v->centre[c] + 1; r < t; r++) {
			if (!chase_take(v, seat, hc, nside, r, &src, &si)) {
				if (!chase_take(v, seat, hc, nside, SPITE_KING,
				    &src, &si))
					break;
				kings++;
			}
			if (r == v->centre[c] + 1) {
				fsrc = src;
				fsi = si;
			}
		}
		if (r < t)
			continue;
		cost = kings * 16 + (t - v->centre[c]);
		if (cost < best) {
			best = cost;
			bc = c;
			memset(m, 0, sizeof(*m));
			m->len = 4;
			m->d[0] = (uint8_t)fsrc;
			m->d[1] = (uint8_t)fsi;
			m->d[2] = DST_CENTRE;
			m->d[3] = (uint8_t)c;
		}
	}
	return bc >= 0;
}

/*
 * The playout policy of level 3: the payoff top, or the first card of a
 * way to it (spite_chase()); else mostly a play to the centre, as level 1;
 * else the discard that buries least (on its own rank, on the rank above
 * it, on an empty stack the higher the better), Kings and cards a centre
 * stack takes now kept, ties broken at random.
 */
static int
spite_playout(struct game_botctx *c, const void *st, int seat,
    const struct game_move *moves, int n)
{
	int centre[GAME_MAX_MOVES], other[GAME_MAX_MOVES], nc = 0, no = 0, i;
	int h, k, top, sc, best = -1000, ties = 0, pick = -1;
	struct spite_seen v;
	struct game_move m;

	if ((i = spite_sort(c, st, seat, moves, n, centre, &nc, other,
	    &no)) >= 0)
		return i;
	spite_seen(st, seat, &v);
	if (nc > 0 && spite_chase(&v, seat, &m))
		for (i = 0; i < n; i++)
			if (moves[i].d[0] == m.d[0] && moves[i].d[1] == m.d[1] &&
			    moves[i].d[2] == m.d[2] && moves[i].d[3] == m.d[3])
				return i;
	if (nc > 0 && (no == 0 || rng_below(c->rng, 5) != 0))
		return centre[rng_below(c->rng, (uint32_t)nc)];
	for (i = 0; i < no; i++) {
		const struct game_move *d = &moves[other[i]];

		if (d->d[2] != DST_SIDE)
			return other[i];	/* end */
		h = d->d[1];
		k = d->d[3];
		top = v.nside[seat][k] ? v.side[seat][k][v.nside[seat][k] -
		    1] : 0;
		if (top == h)
			sc = 3;
		else if (top == h + 1)
			sc = 2;
		else if (top == 0)
			sc = h / 4;
		else
			sc = -3 - (h > top ? h - top : 0);
		if (h == SPITE_KING)
			sc -= 8;
		if (spite_dist(&v, h) == 0)
			sc -= 4;
		if (sc > best) {
			best = sc;
			pick = other[i];
			ties = 1;
		} else if (sc == best && rng_below(c->rng,
		    (uint32_t)++ties) == 0)
			pick = other[i];
	}
	return pick;
}

/* Level 2: the action whose result evaluates best. */
static int
spite_greedy(struct game_botctx *c, const void *st, int seat,
    const struct game_move *moves, int n)
{
	struct spite_seen *v = xmalloc(sizeof(*v));
	void *work = xmalloc(c->ops->state_size);
	double e, be = -1e18;
	int i, best = 0;

	for (i = 0; i < n; i++) {
		memcpy(work, st, c->ops->state_size);
		c->ops->apply(work, seat, &moves[i]);
		spite_seen(work, seat, v);
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

static int
spite_choose(struct game_botctx *c, const void *st, int level,
    const struct game_move *moves, int n)
{
	if (level == 2)
		return spite_greedy(c, st, c->seat, moves, n);
	return spite_quick(c, st, c->seat, moves, n);
}

/*
 * A prior for the robot's own moves at the root: the level-2 evaluation
 * (0 for the best move, less for worse ones), whose many discards would
 * otherwise share a small budget evenly with the few good moves.
 */
static void
spite_prior(struct game_botctx *c, const void *root,
    const struct game_move *moves, int n, double *bias)
{
	struct spite_seen *v;
	void *work;
	double best = -1e18;
	int i;

	v = xmalloc(sizeof(*v));
	work = xmalloc(c->ops->state_size);
	for (i = 0; i < n; i++) {
		memcpy(work, root, c->ops->state_size);
		c->ops->apply(work, c->seat, &moves[i]);
		spite_seen(work, c->seat, v);
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

/*
 * Play a move in a simulation, crediting a payoff card to its player
 * (sim->tally, each worth less the later).  The simulation stops when the
 * robot's turn is over: the search plans the actions of one turn over
 * sampled deals, and the evaluation judges where the turn leaves the robot
 * better than random play to the round's end would (a round of random play
 * seldom ends before the stock runs dry).
 */
static void
spite_play(struct game_botctx *c, struct game_botsim *sim, void *st,
    int actor, const struct game_move *m, int plies)
{
	if (game_bot_move(c, st, actor, m)->kind == SK_PAY)
		sim->tally[actor] += pow(SPITE_DECAY, plies);
	c->ops->apply(st, actor, m);
	if (!(c->ops->to_move(st) & (1u << actor)) &&
	    ++sim->turns >= SPITE_TURNS)
		sim->stop = 1;
}

/* Each seat's evaluation less the other's, both hands known, the match
 * score left out. */
static void
spite_diff(struct game_botctx *c, const void *st, double e[2])
{
	struct spite_seen v;
	double e0, e1;

	(void)c;
	spite_seen(st, -1, &v);
	/* The match score is the same whatever the turn does (a round won
	 * is rewarded apart) and would only flatten the comparison. */
	v.score[0] = v.score[1] = 0;
	e0 = spite_eval(&v, 0);
	e1 = spite_eval(&v, 1);
	e[0] = e0 - e1;
	e[1] = e1 - e0;
}

/*
 * How many payoff cards the seat to move could play at once in a
 * simulation's state (both hands known) by plays toward its top
 * (spite_chase()), at most max.
 */
static int
spite_threat(struct game_botctx *c, const struct spite *s0, int max)
{
	struct spite s;
	struct spite_seen v;
	struct game_move m;
	int who = s0->turn, n, got = 0;

	memcpy(&s, s0, sizeof(s));
	for (n = 0; n < 30 && got < max && !s.over && s.turn == who; n++) {
		spite_seen(&s, -1, &v);
		if (!spite_chase(&v, who, &m))
			break;
		if (m.d[0] == SRC_PAYOFF)
			got++;
		c->ops->apply(&s, who, &m);
		if (s.round != v.round)
			break;
	}
	return got;
}

static void
spite_reward(struct game_botctx *c, const struct game_botsim *sim,
    const void *st, const int gain[GAME_MAX_SEATS], int plies,
    double r[GAME_MAX_SEATS])
{
	const struct spite *s = st;
	int i, total = gain[0] + gain[1];
	double x;

	if (total > 0) {
		/* A round won beats anything short of it; more points and
		 * sooner are better. */
		x = 0.98 + 0.02 * (0.6 + 0.4 * (total > 20 ? 20 : total) /
		    20.0) * pow(SPITE_ROUND_DECAY, plies);
		for (i = 0; i < 2; i++)
			r[i] = gain[i] > 0 ? x : 1 - x;
	} else {
		/* Cut short: the evaluation of where it stopped (both
		 * hands are known in a simulation) and the payoff cards each
		 * side played, the sooner the better, less what the
		 * opponent could play at once next. */
		double e[2];

		spite_diff(c, st, e);
		if (!s->over && s->turn != c->seat) {
			double th = SPITE_THREAT * spite_threat(c, s, 3);

			e[s->turn] += th;
			e[!s->turn] -= th;
		}
		for (i = 0; i < 2; i++) {
			x = e[i] + 40.0 * (sim->tally[i] - sim->tally[!i]);
			r[i] = 0.02 + 0.96 / (1.0 + exp(-x / SPITE_SCALE));
		}
	}
}

const struct game_cardbot spite_cardbot = {
	.seats = 2,
	.max_plies = SPITE_PLIES,
	.classify = spite_classify,
	.choose = spite_choose,
	.playout = spite_playout,
	.prior = spite_prior,
	.play = spite_play,
	.reward = spite_reward,
};
