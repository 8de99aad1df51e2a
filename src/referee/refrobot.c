/*
 * refrobot: robot seats.  A robot is a player whose address is
 * robot.LEVEL.SEAT@ludus.invalid (RFC 2606: never deliverable; the seat
 * tells apart the robots of one table); it gets no mail
 * and no token, accepts at once, and the referee makes its moves itself,
 * as soon as it is to move: inline, in the message's transaction, or,
 * with robots apart (referee.h), thought out of any transaction first and
 * then applied in the message's transaction when the game is still where
 * the robot saw it.
 *
 * What a robot decides from is its seat's view, by design: the card robots
 * (src/cardbot.c) copy the state and replace every card the seat cannot
 * see with a random consistent deal before they look at anything, and the
 * board games have no hidden information.  Each move draws from a
 * generator of its own, derived from the game's seed and the ply, so a
 * game replays the same; in test builds with $LUDUS_SEED the budget is
 * counted in nodes rather than milliseconds, so golden tests are exact.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cardbot.h"
#include "log.h"
#include "refint.h"
#include "robot.h"

#define ROBOT_DOMAIN		"@ludus.invalid"
#define ROBOT_DEFAULT_LEVEL	2
/* Robot moves in a row before the referee stops and logs it: a guard
 * against an engine that never hands the turn back. */
#define ROBOT_MAX_CHAIN		2000
/* Judged lost: accept a draw below this evaluate() score. */
#define ROBOT_DRAW_BELOW	(-300)

char *
refrobot_address(int level, int seat)
{
	if (level < ROBOT_LEVEL_MIN || level > ROBOT_LEVEL_MAX)
		level = ROBOT_DEFAULT_LEVEL;
	return xasprintf("robot.%d.%d" ROBOT_DOMAIN, level, seat);
}

int
refrobot_level(const char *address)
{
	const char *p = address + 6;

	/* robot.L.S@ludus.invalid: one digit each */
	if (strncmp(address, "robot.", 6) != 0 || p[0] < '1' ||
	    p[0] > '0' + ROBOT_LEVEL_MAX || p[1] != '.' || p[2] < '0' ||
	    p[2] > '9' || strcmp(p + 3, ROBOT_DOMAIN) != 0)
		return 0;
	return p[0] - '0';
}

/* The robot seats of a game, as a bit mask. */
unsigned
refrobot_seats(const struct play_game *g)
{
	unsigned m = 0;
	int s;

	for (s = 0; s < g->row.nseats; s++)
		if (g->address[s] != NULL && refrobot_level(g->address[s]))
			m |= 1u << s;
	return m;
}

/* Robot moves thought in one job at most: a longer run of robot moves
 * takes another job for the rest. */
#define ROBOT_JOB_CHAIN		64

/* budget_ms from the configuration; in test builds with $LUDUS_SEED a
 * budget in nodes instead (0: none). */
static long
test_nodes(void)
{
#ifdef LUDUS_TEST_CLOCK
	const char *fixed = getenv("LUDUS_SEED");

	if (fixed != NULL && *fixed != '\0')
		return 2000;
#endif
	return 0;
}

static int
choose(const struct game_ops *ops, const void *st, int seat, int level,
    int ply, const unsigned char seed[RNG_SEED_LEN], long budget_ms,
    long nodes, struct game_move *mv, char *err, size_t errlen)
{
	struct cardbot_budget cb;
	struct rng r;
	char label[64];

	/* Numbered by plies: a signal, which another seat may not see,
	 * must not change what a robot plays. */
	snprintf(label, sizeof(label), "robot/%d", ply);
	rng_init_sub(&r, seed, label);
	if (cardbot_supports(ops)) {
		memset(&cb, 0, sizeof(cb));
		cb.iterations = nodes ? nodes / 20 : 0;
		cb.millis = budget_ms;
		return cardbot_choose(ops, st, seat, level, &cb, &r, mv, err,
		    errlen);
	}
	if (nodes)
		return robot_choose_nodes(ops, st, seat, level, nodes, &r,
		    mv, NULL, err, errlen);
	return robot_choose(ops, st, seat, level, budget_ms, &r, mv, err,
	    errlen);
}

/* The first robot seat to move, or -1. */
static int
robot_to_move(const struct game_ops *ops, const void *st, unsigned robots,
    int nseats)
{
	uint32_t tm = ops->to_move(st);
	int s;

	for (s = 0; s < nseats; s++)
		if ((tm & (1u << s)) && (robots & (1u << s)))
			return s;
	return -1;
}

/* What a job brings back (plain bytes: it crosses a pipe). */
struct robot_answers {
	int		 n;		/* -1: not thought yet */
	int		 failed;	/* no move at the job's position */
	char		 err[GAME_ERRLEN + 100];
	int		 seat[ROBOT_JOB_CHAIN];
	struct game_move mv[ROBOT_JOB_CHAIN];
};

struct referee_robot {
	int64_t		 game;
	const struct game_ops *ops;	/* foreign */
	void		*st;		/* owned: the position it saw */
	int		 nseats;
	int		 nmoves;	/* the game's log length there */
	int		 plies;		/* its plies (no signals) there */
	unsigned	 robots;
	int		 level[GAME_MAX_SEATS];
	unsigned char	 seed[RNG_SEED_LEN];
	long		 budget_ms;
	long		 nodes;
	char		*from;		/* owned: whose message waits */
	struct robot_answers a;
};

struct referee_robot *
referee_robot_take(struct referee *r)
{
	struct referee_robot *j = r->robot_want;

	r->robot_want = NULL;
	return j;
}

void
referee_robot_think(struct referee_robot *j)
{
	void *st = xmalloc(j->ops->state_size);
	int k, s;

	memcpy(st, j->st, j->ops->state_size);
	memset(&j->a, 0, sizeof(j->a));
	for (k = 0; k < ROBOT_JOB_CHAIN; k++) {
		if ((s = robot_to_move(j->ops, st, j->robots, j->nseats)) < 0)
			break;
		if (choose(j->ops, st, s, j->level[s], j->plies + k, j->seed,
		    j->budget_ms, j->nodes, &j->a.mv[k], j->a.err,
		    sizeof(j->a.err)) == -1) {
			j->a.failed = k == 0;
			break;
		}
		j->a.seat[k] = s;
		j->ops->apply(st, s, &j->a.mv[k]);
		j->a.n = k + 1;
	}
	free(st);
}

const void *
referee_robot_answers(const struct referee_robot *j, size_t *len)
{
	*len = sizeof(j->a);
	return &j->a;
}

int
referee_robot_set_answers(struct referee_robot *j, const void *p,
    size_t len)
{
	const struct robot_answers *a = p;
	int k;

	if (len != sizeof(*a) || a->n < 0 || a->n > ROBOT_JOB_CHAIN)
		return -1;
	for (k = 0; k < a->n; k++)
		if (a->seat[k] < 0 || a->seat[k] >= j->nseats)
			return -1;
	memcpy(&j->a, a, sizeof(*a));
	j->a.err[sizeof(j->a.err) - 1] = '\0';
	return 0;
}

int64_t
referee_robot_game(const struct referee_robot *j)
{
	return j->game;
}

int
referee_robot_ply(const struct referee_robot *j)
{
	return j->nmoves;
}

int
referee_robot_moves(const struct referee_robot *j)
{
	return j->a.n;
}

const char *
referee_robot_from(const struct referee_robot *j)
{
	return j->from;
}

long
referee_robot_budget(const struct referee_robot *j)
{
	return j->budget_ms;
}

int
referee_robot_searches(const struct referee_robot *j)
{
	int s;

	for (s = 0; s < j->nseats; s++)
		if ((j->robots & 1u << s) && j->level[s] >= ROBOT_LEVEL_MAX)
			return 1;
	return 0;
}

void
referee_robot_free(struct referee_robot *j)
{
	if (j == NULL)
		return;
	free(j->st);
	free(j->from);
	free(j);
}

void
referee_plans_add(struct referee_plans *p, struct referee_robot *j)
{
	p->v = xreallocarray(p->v, (size_t)p->n + 1, sizeof(*p->v));
	p->v[p->n++] = j;
}

void
referee_plans_free(struct referee_plans *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		referee_robot_free(p->v[i]);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

/* Is the game where the job's robot saw it, moved on by the robot's own
 * first i answers?  The positions are compared as serialised. */
static int
still_there(const struct referee_robot *j, int i, const void *now)
{
	struct buf a = { 0 }, b = { 0 };
	void *st = xmalloc(j->ops->state_size);
	int k, same;

	memcpy(st, j->st, j->ops->state_size);
	for (k = 0; k < i; k++)
		j->ops->apply(st, j->a.seat[k], &j->a.mv[k]);
	j->ops->serialise(st, &a);
	j->ops->serialise(now, &b);
	same = a.len == b.len && memcmp(buf_str(&a), buf_str(&b), a.len) == 0;
	buf_free(&a);
	buf_free(&b);
	free(st);
	return same;
}

/* The move thought for seat in the game as it is: 1 with *mv, 0 when
 * there is none (-1 in *failed when the robot found no move there). */
static int
planned(const struct referee *r, const struct play_game *g, int seat,
    struct game_move *mv, const char **failed)
{
	const struct referee_robot *j;
	int p, i;

	*failed = NULL;
	for (p = 0; r->plans != NULL && p < r->plans->n; p++) {
		j = r->plans->v[p];
		i = g->row.nmoves - j->nmoves;
		if (j->game != g->row.id || j->ops != g->def->ops || i < 0 ||
		    i > j->a.n || (i == j->a.n && !(i == 0 && j->a.failed)))
			continue;
		if ((i < j->a.n && j->a.seat[i] != seat) ||
		    !still_there(j, i, g->st))
			continue;
		if (i == j->a.n) {
			*failed = j->a.err;
			return 0;
		}
		*mv = j->a.mv[i];
		return 1;
	}
	return 0;
}

/* Leave the job of thinking from g's position for the caller; -1 when
 * the store fails. */
static int
want(struct ref_msg *x, const struct play_game *g)
{
	struct referee *r = x->r;
	struct referee_robot *j;
	int s, plies;

	if ((plies = play_plies_stored(r->store, g)) == -1)
		return -1;
	j = xcalloc(1, sizeof(*j));
	j->plies = plies;
	j->game = g->row.id;
	j->ops = g->def->ops;
	j->st = xmalloc(j->ops->state_size);
	memcpy(j->st, g->st, j->ops->state_size);
	j->nseats = g->row.nseats;
	j->nmoves = g->row.nmoves;
	j->robots = refrobot_seats(g);
	for (s = 0; s < g->row.nseats && s < GAME_MAX_SEATS; s++)
		j->level[s] = g->address[s] ? refrobot_level(g->address[s]) : 0;
	memcpy(j->seed, g->row.seed, RNG_SEED_LEN);
	j->budget_ms = r->cfg->robots.budget_ms;
	j->nodes = test_nodes();
	j->from = xstrdup(x->m->from ? x->m->from : "");
	j->a.n = -1;
	referee_robot_free(r->robot_want);
	r->robot_want = j;
	return 0;
}

int
refrobot_play(struct ref_msg *x, struct play_game *g, int *played)
{
	const struct game_ops *ops = g->def->ops;
	unsigned robots = refrobot_seats(g);
	struct game_move mv;
	char text[GAME_MOVE_TEXT], err[GAME_ERRLEN + 100];
	uint32_t tm;
	int s, n, plies, k;

	*played = 0;
	for (n = 0; n < ROBOT_MAX_CHAIN; n++) {
		if (strcmp(g->row.status, "active") != 0)
			return 0;
		tm = ops->to_move(g->st);
		for (s = 0; s < g->row.nseats; s++)
			if ((tm & (1u << s)) && (robots & (1u << s)))
				break;
		if (s == g->row.nseats)
			return 0;
		if (x->r->robots_apart && x->m != NULL) {
			const char *failed;

			if (!planned(x->r, g, s, &mv, &failed)) {
				if (failed != NULL) {
					log_err("game #%lld: robot of seat %d: "
					    "%s", (long long)g->row.id, s,
					    failed);
					return 0;
				}
				/* Not thought yet: give the message up
				 * until it is. */
				(void)want(x, g);
				return -1;
			}
		} else if ((plies = play_plies_stored(x->r->store, g)) == -1)
			return -1;
		else if (choose(ops, g->st, s, refrobot_level(g->address[s]),
		    plies, g->row.seed, x->r->cfg->robots.budget_ms,
		    test_nodes(), &mv, err, sizeof(err)) == -1) {
			/* The game waits; its clock will call the admins. */
			log_err("game #%lld: robot of seat %d: %s",
			    (long long)g->row.id, s, err);
			return 0;
		}
		ops->format_move(g->st, s, &mv, text, sizeof(text));
		if ((k = ref_play(x, g, s, text, NULL, err,
		    sizeof(err))) == REF_TEMP)
			return -1;
		if (k == REF_FAIL) {
			log_err("game #%lld: robot move `%s` refused: %s",
			    (long long)g->row.id, text, err);
			return 0;
		}
		(*played)++;
		play_draw_declined(g, s);
		if (refclock_after_move(x, g, s, tm) == -1)
			return -1;
	}
	log_err("game #%lld: robots made %d moves in a row; stopped",
	    (long long)g->row.id, n);
	return 0;
}

int
refrobot_accepts_draw(const struct play_game *g)
{
	const struct game_ops *ops = g->def->ops;
	unsigned robots = refrobot_seats(g);
	int s;

	if (ops->evaluate == NULL)
		return 0;	/* card robots never take a draw */
	for (s = 0; s < g->row.nseats; s++)
		if ((robots & (1u << s)) && ops->evaluate(g->st, s) >=
		    ROBOT_DRAW_BELOW)
			return 0;
	return robots != 0;
}
