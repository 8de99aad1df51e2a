/*
 * refrobot: robot seats.  A robot is a player whose address is
 * robot.LEVEL.SEAT@ludus.invalid (RFC 2606: never deliverable; the seat
 * tells apart the robots of one table); it gets no mail
 * and no token, accepts at once, and the referee makes its moves itself,
 * in the same transaction, as soon as it is to move.
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

static int
choose(struct ref_msg *x, const struct play_game *g, int seat, int level,
    struct game_move *mv, char *err, size_t errlen)
{
	const struct game_ops *ops = g->def->ops;
	struct cardbot_budget cb;
	struct rng r;
	char label[64];
	long nodes = 0;
	int plies;

#ifdef LUDUS_TEST_CLOCK
	{
		const char *fixed = getenv("LUDUS_SEED");

		if (fixed != NULL && *fixed != '\0')
			nodes = 2000;
	}
#endif
	/* Numbered by plies: a signal, which another seat may not see,
	 * must not change what a robot plays. */
	if ((plies = play_plies_stored(x->r->store, g)) == -1) {
		util_err(err, errlen, "%s", store_errmsg(x->r->store));
		return -1;
	}
	snprintf(label, sizeof(label), "robot/%d", plies);
	rng_init_sub(&r, g->row.seed, label);
	if (cardbot_supports(ops)) {
		memset(&cb, 0, sizeof(cb));
		cb.iterations = nodes ? nodes / 20 : 0;
		cb.millis = x->r->cfg->robots.budget_ms;
		return cardbot_choose(ops, g->st, seat, level, &cb, &r, mv, err,
		    errlen);
	}
	if (nodes)
		return robot_choose_nodes(ops, g->st, seat, level, nodes, &r,
		    mv, NULL, err, errlen);
	return robot_choose(ops, g->st, seat, level,
	    x->r->cfg->robots.budget_ms, &r, mv, err, errlen);
}

int
refrobot_play(struct ref_msg *x, struct play_game *g, int *played)
{
	const struct game_ops *ops = g->def->ops;
	unsigned robots = refrobot_seats(g);
	struct game_move mv;
	char text[GAME_MOVE_TEXT], err[GAME_ERRLEN + 100];
	uint32_t tm;
	int s, n;

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
		if (choose(x, g, s, refrobot_level(g->address[s]), &mv, err,
		    sizeof(err)) == -1) {
			/* The game waits; its clock will call the admins. */
			log_err("game #%lld: robot of seat %d: %s",
			    (long long)g->row.id, s, err);
			return 0;
		}
		ops->format_move(g->st, s, &mv, text, sizeof(text));
		if (play_line(x->r->store, g, s, text, x->now, err,
		    sizeof(err)) == -1) {
			log_err("game #%lld: robot move `%s` refused: %s",
			    (long long)g->row.id, text, err);
			return 0;
		}
		(*played)++;
		/* A robot's move declines a draw the other side offered. */
		{
			unsigned keep = 1u << s;
			int p = ops->partner ? ops->partner(g->st, s) : -1;

			if (p >= 0)
				keep |= 1u << p;
			g->row.draw_offer &= keep;
		}
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
