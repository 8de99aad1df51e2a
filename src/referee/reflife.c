/*
 * reflife: a game's life.  The one place where a game begins, whichever
 * way it came to be: the last seat accepting an invitation, a game made
 * already accepted (an admin's `new` that needs no acceptance, robots
 * and a proven proposer), a seek whose seats are all taken, the admin
 * tool's `ludus new`.  And the one answer to a command that needs a game
 * being played.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refint.h"

int
reflife_start(struct ref_msg *x, struct play_game *g, int64_t who,
    const char *event)
{
	int played;

	free(g->row.status);
	g->row.status = xstrdup("active");
	g->row.expires = 0;
	/* The robots to move play at once, with the clock running, as
	 * after any move (inline, or thought apart: refrobot.c). */
	if (refclock_begin_game(x, g) == -1 ||
	    refrobot_play(x, g, &played) == -1 ||
	    fx_timer_cancel(x, "invitation", g->row.id, 0) == -1)
		return -1;
	g->row.updated = x->now;
	if (fx_game_update(x, &g->row) == -1 ||
	    fx_event_add(x, g->row.id, 0, who, event, NULL, x->now) == -1)
		return -1;
	/* No club list hears of a game beginning: a ladder's list is told
	 * of results and standings only (refladder.c). */
	return refview_fanout(x, g, "game-start", REFVIEW_SEATS, NULL, NULL);
}

int
reflife_need_active(const struct play_game *g, struct ref_result *res)
{
	struct buf b = { 0 };

	if (strcmp(g->row.status, "active") == 0)
		return REF_OK;
	if (strcmp(g->row.status, "invited") == 0)
		return ref_fail(res, _("game #%lld has not begun: not every "
		    "player has accepted"), (long long)g->row.id);
	refview_result(g, &b);
	ref_fail(res, _("game #%lld is over (%s)"), (long long)g->row.id,
	    b.len ? buf_str(&b) : refview_status(g->row.status));
	buf_free(&b);
	return REF_FAIL;
}
