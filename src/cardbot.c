/*
 * cardbot: robots for the card games with hidden cards.
 *
 * Everything below works on a determinized copy of the state (see
 * cardbot.h).  What a game's robot knows of the game (what a move is, the
 * levels below the search, the playout policy, how a simulation cut short
 * is scored) comes from the engine's cardbot hooks (struct game_cardbot in
 * src/games/game.h, the games' own in src/games/NAME-bot.c).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cardbot.h"

/* Moves are a few bytes: compared in line, not by a call of memcmp(). */
static inline int
move_eq(const struct game_move *a, const struct game_move *b)
{
	int i;

	if (a->len != b->len)
		return 0;
	for (i = 0; i < a->len; i++)
		if (a->d[i] != b->d[i])
			return 0;
	return 1;
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
	struct game_botctx *c;
	const struct game_cardbot *bot;
	struct node *nodes;
	int	nnodes, cap;
	int	root_score[GAME_MAX_SEATS];
	struct game_botsim sim;	/* the game's counts in this simulation */
	int	nseats;
};

#define UCB_C		0.7
#define LCB_C		0.3

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

/* The children of node cur for the actor's moves m[0..n) into child[]
 * (-1: none yet), in one walk of the node's children. */
static void
children_of(const struct search *s, int cur, int actor,
    const struct game_move *m, int n, int *child)
{
	const struct node *nd;
	int ch, i;

	for (i = 0; i < n; i++)
		child[i] = -1;
	for (ch = s->nodes[cur].child; ch >= 0; ch = nd->next) {
		nd = &s->nodes[ch];
		if (nd->actor != actor)
			continue;
		for (i = 0; i < n; i++)
			if (child[i] < 0 && move_eq(&nd->move, &m[i])) {
				child[i] = ch;
				break;
			}
	}
}

/* The seat that acts in a simulation: the robot at the root, else the
 * first seat allowed (Aluette's two changers discard in any order). */
static int
actor_of(const struct game_botctx *c, const void *st, int at_root)
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

/* A simulation stops at the end of the game, or once a hand or round has
 * been scored (a score changed), or when the game's play() says so, or
 * after the game's number of plies. */
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
	if (s->sim.stop)
		return 1;
	return plies >= s->bot->max_plies;
}

/* Each seat's reward in [0, 1] for where a simulation stopped. */
static void
sim_reward(const struct search *s, const void *st,
    const struct game_result *res, int plies, double r[GAME_MAX_SEATS])
{
	int i, gain[GAME_MAX_SEATS];

	for (i = 0; i < GAME_MAX_SEATS; i++)
		r[i] = 0.5;
	if (res->over) {
		for (i = 0; i < s->nseats; i++)
			r[i] = res->draw ? 0.5 : (res->winners >> i & 1);
		return;
	}
	for (i = 0; i < GAME_MAX_SEATS; i++)
		gain[i] = i < s->nseats ? res->score[i] - s->root_score[i] : 0;
	s->bot->reward(s->c, &s->sim, st, gain, plies, r);
}

/* Play a move in a simulation. */
static void
sim_apply(struct search *s, void *d, int actor, const struct game_move *m,
    int plies)
{
	if (s->bot->play != NULL)
		s->bot->play(s->c, &s->sim, d, actor, m, plies);
	else
		s->c->ops->apply(d, actor, m);
}

/* A prior for the robot's own moves at the root (the game's), added to
 * their value and fading as they are visited. */
static void
root_bias(struct game_botctx *c, const void *root,
    const struct game_move *moves, int n, double *bias)
{
	int i;

	for (i = 0; i < n; i++)
		bias[i] = 0;
	if (c->bot->prior != NULL)
		c->bot->prior(c, root, moves, n, bias);
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int
ismcts(struct game_botctx *c, const void *root, const struct game_move *rmoves,
    int rn, const struct cardbot_budget *budget)
{
	const struct game_ops *ops = c->ops;
	struct search s;
	struct game_move moves[GAME_MAX_MOVES];
	const struct game_move *mv;	/* rmoves at the root, else moves */
	struct game_result res;
	int child[GAME_MAX_MOVES], untried[GAME_MAX_MOVES];
	int rchild[GAME_MAX_MOVES];	/* the root's child for each root move */
	double bias[GAME_MAX_MOVES];
	void *d = xmalloc(ops->state_size);
	long iter, maxiter = 0;
	double deadline = 0, r[GAME_MAX_SEATS], ucb, bu, lg;
	int cur, actor, n, i, k, nu, plies, best, ch, done;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.bot = c->bot;
	s.cap = 1024;
	s.nodes = xcalloc((size_t)s.cap, sizeof(*s.nodes));
	s.nnodes = 1;
	s.nodes[0].child = -1;
	s.nodes[0].parent = -1;
	s.nseats = s.bot->seats;
	ops->result(root, &res);
	for (i = 0; i < s.nseats; i++)
		s.root_score[i] = res.score[i];
	root_bias(c, root, rmoves, rn, bias);
	for (i = 0; i < rn; i++)
		rchild[i] = -1;
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
		memset(&s.sim, 0, sizeof(s.sim));
		/* Selection and expansion. */
		for (;;) {
			if (plies > 0 && sim_done(&s, d, plies, &res)) {
				done = 1;
				break;
			}
			actor = actor_of(c, d, cur == 0);
			if (cur == 0) {
				n = rn;
				mv = rmoves;
			} else {
				n = ops->legal(d, actor, moves,
				    GAME_MAX_MOVES);
				mv = moves;
			}
			if (n <= 0) {
				done = 1;
				ops->result(d, &res);
				break;
			}
			/* The root's moves are always the same: their
			 * children are kept by the move's index. */
			if (cur == 0)
				memcpy(child, rchild, (size_t)n *
				    sizeof(*child));
			else
				children_of(&s, cur, actor, mv, n, child);
			nu = 0;
			for (i = 0; i < n; i++) {
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
				if (cur == 0)
					rchild[k] = s.nnodes;
				cur = node_add(&s, cur, actor, &mv[k]);
				s.nodes[cur].avail = 1;
				sim_apply(&s, d, actor, &mv[k], plies);
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
			sim_apply(&s, d, actor, &mv[best], plies);
			plies++;
		}
		/* Playout. */
		while (!done && !sim_done(&s, d, plies, &res)) {
			actor = actor_of(c, d, 0);
			n = actor < 0 ? 0 : ops->legal(d, actor, moves,
			    GAME_MAX_MOVES);
			if (n <= 0)
				break;
			k = s.bot->playout != NULL ? s.bot->playout(c, d,
			    actor, moves, n) : (int)rng_below(c->rng,
			    (uint32_t)n);
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
	    game_cardbot(ops) != NULL;
}

int
cardbot_choose(const struct game_ops *ops, const void *st, int seat,
    int level, const struct cardbot_budget *budget, struct rng *rng,
    struct game_move *move, char *err, size_t errlen)
{
	struct game_move moves[GAME_MAX_MOVES];
	struct game_botctx *c;
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
	c->bot = game_cardbot(ops);
	c->cache = xcalloc(GAME_BOT_CACHE, sizeof(*c->cache));
	c->seat = seat;
	c->rng = rng;
	if (n == 1)
		k = 0;
	else if (level == 3)
		k = ismcts(c, view, moves, n, budget);
	else
		k = c->bot->choose(c, view, level, moves, n);
	*move = moves[k];
	free(c->cache);
	free(c);
	free(view);
	return 0;
}
