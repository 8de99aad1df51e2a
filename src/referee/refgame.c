/*
 * refgame: the commands that act on one game: new, accept, decline, move,
 * preview, board, history, resign, draw, signal, observe, unobserve, say,
 * thanks.
 *
 * Each checks everything before it writes: a command that fails leaves
 * the game as it was (the caller's savepoint undoes the rest).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refint.h"

int
refgame_cmd_accept(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	int accept = k->c->kind == CMD_ACCEPT;
	struct ref_seats rs;
	struct buf waiting = { 0 };
	int i, all = 1;

	if (strcmp(g->row.status, "invited") != 0)
		return ref_fail(res, _("game #%lld is not waiting for answers "
		    "(it is %s)"), (long long)g->row.id,
		    refview_status(g->row.status));
	if (g->row.expires != 0 && x->now >= g->row.expires)
		return ref_fail(res, _("the invitation to game #%lld has "
		    "expired"), (long long)g->row.id);
	if (accept && g->row.accepted[seat])
		return ref_fail(res, _("you have already accepted game #%lld"),
		    (long long)g->row.id);
	if (!accept) {
		if (fx_timer_cancel(x, "invitation", g->row.id,
		    0) == -1)
			return -1;
		res->note = xasprintf(_("game #%lld is cancelled"),
		    (long long)g->row.id);
		return reflife_unplayed(x, g, x->me.id);
	}
	g->row.accepted[seat] = 1;
	for (i = 0; i < g->row.nseats; i++)
		all &= g->row.accepted[i] != 0;
	if (all) {
		res->note = xasprintf(_("game #%lld begins"),
		    (long long)g->row.id);
		return reflife_start(x, g, x->me.id, "accept");
	}
	g->row.updated = x->now;
	if (fx_game_update(x, &g->row) == -1 ||
	    fx_event_add(x, g->row.id, 0, x->me.id, "accept",
	    NULL, x->now) == -1)
		return -1;
	/* The seats hear once, when the game begins; until then the
	 * accepter's own answer says who is still to accept. */
	if (refview_seats(x, g, &rs) == -1)
		return -1;
	for (i = 0; i < rs.n; i++)
		if (!g->row.accepted[i])
			buf_printf(&waiting, "%s%s", waiting.len ? ", " : "",
			    ref_name(&rs.p[i]));
	refview_seats_free(&rs);
	res->note = xasprintf(_("accepted game #%lld; still to accept: %s"),
	    (long long)g->row.id, buf_str(&waiting));
	buf_free(&waiting);
	return REF_OK;
}

/* The `N.` guard: REF_OK when absent or current. */
static int
check_guard(struct ref_msg *x, const struct play_game *g,
    const struct command *c, struct ref_result *res)
{
	char at[32], wrote[32];
	int number, ply;

	if (c->guard == 0)
		return REF_OK;
	if ((number = refview_move_at(x, g, &ply, at, sizeof(at))) == -1)
		return -1;
	/* Turn and ply: the same line sent twice inside a turn of several
	 * plies (a resent mail) finds the second ply due, not the first. */
	if (c->guard != number || (c->guard_ply ? c->guard_ply : 1) != ply) {
		if (c->guard_ply)
			snprintf(wrote, sizeof(wrote), "%d.%d", c->guard,
			    c->guard_ply);
		else
			snprintf(wrote, sizeof(wrote), "%d", c->guard);
		return ref_fail(res, _("move number %s is stale: game #%lld is "
		    "at move %s"), wrote, (long long)g->row.id, at);
	}
	return REF_OK;
}

/* Were the last n logged moves all events rather than plies (Aluette
 * signals)?  *last gets the notation of the last one.  -1: the store. */
static int
events_only(struct ref_msg *x, const struct play_game *g, int n,
    char *last, size_t len)
{
	struct store_move *log;
	int count, i, only = 1;

	if (store_moves(x->r->store, g->row.id, &log, &count) == -1)
		return -1;
	for (i = count - n; i < count; i++)
		if (i >= 0 && refview_is_ply(g, log[i].seat, log[i].notation))
			only = 0;
	if (count > 0)
		util_strlcpy(last, log[count - 1].notation, len);
	store_moves_free(log, count);
	return only;
}

/* A signal reaches only those who may see it (signals=). */
static int
signal_fanout(struct ref_msg *x, struct play_game *g, int seat,
    const char *notation)
{
	struct ref_seats rs;
	struct tmpl_data *d;
	int i, rc = 0;

	if (refview_seats(x, g, &rs) == -1)
		return -1;
	for (i = 0; i < rs.n && rc == 0; i++) {
		if (i == seat || !refview_move_visible(g, seat, notation, i))
			continue;
		ref_lang(&rs.p[i]);
		d = refview_game(x, g, &rs, i, NULL);
		rc = ref_send(x, &rs.p[i], "move", d, g->row.id, i, NULL);
		tmpl_data_free(d);
	}
	refview_seats_free(&rs);
	ref_lang(&x->me);
	return rc;
}

static void	signal_passed(const struct play_game *, struct ref_result *);

int
refgame_cmd_move(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	const struct command *c = k->c;
	char err[GAME_ERRLEN + 100], last[GAME_MOVE_TEXT];
	uint32_t before = g->def->ops->to_move(g->st);
	int n, rc, plies, plies_before;

	if (g->def->ops->to_move(g->st) & (1u << seat))
		res->legal_seat = seat;
	if ((rc = check_guard(x, g, c, res)) != REF_OK)
		return rc;
	if ((plies_before = play_plies_stored(x->r->store, g)) == -1)
		return -1;
	if ((rc = ref_play(x, g, seat, c->text, &n, err, sizeof(err))) !=
	    REF_OK)
		return rc == REF_FAIL ? ref_fail(res, "%s", err) : rc;
	if ((rc = events_only(x, g, n, last, sizeof(last))) == -1)
		return -1;
	if (rc == 1) {
		signal_passed(g, res);
		return signal_fanout(x, g, seat, last);
	}
	/* Signals in the line are no moves. */
	if ((plies = play_plies_stored(x->r->store, g)) == -1)
		return -1;
	n = plies - plies_before;
	res->note = xasprintf(P_("%d move played in game #%lld",
	    "%d moves played in game #%lld", n), n, (long long)g->row.id);
	return reflife_moved(x, g, seat, before);
}

int
refgame_cmd_signal(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	const struct command *c = k->c;
	char line[200], err[GAME_ERRLEN + 100];
	int rc;

	if (g->def->ops->partner == NULL)
		return ref_fail(res, _("%s has no signals"), _(g->def->title));
	if (reflife_need_active(g, res) == REF_FAIL)
		return REF_FAIL;
	snprintf(line, sizeof(line), "signal %s", c->text);
	if ((rc = ref_play(x, g, seat, line, NULL, err, sizeof(err))) !=
	    REF_OK)
		return rc == REF_FAIL ? ref_fail(res, "%s", err) : rc;
	signal_passed(g, res);
	return signal_fanout(x, g, seat, line);
}

/* The note for a line that held signals only. */
static void
signal_passed(const struct play_game *g, struct ref_result *res)
{
	res->note = xasprintf(_("signal passed in game #%lld"),
	    (long long)g->row.id);
}

int
refgame_cmd_preview(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	const struct command *c = k->c;
	const struct game_ops *ops = g->def->ops;
	struct play_game copy;
	struct ref_seats rs;
	struct tmpl_data *d;
	char err[GAME_ERRLEN + 100];
	int failed, rc;

	if (ops->to_move(g->st) & (1u << seat))
		res->legal_seat = seat;
	if ((rc = check_guard(x, g, c, res)) != REF_OK)
		return rc;
	copy = *g;
	copy.st = xmalloc(ops->state_size);
	memcpy(copy.st, g->st, ops->state_size);
	if (game_apply_line(ops, copy.st, seat, c->text, NULL, 0, &failed, err,
	    sizeof(err)) < 0) {
		free(copy.st);
		return ref_fail(res, "%s", err);
	}
	if (refview_seats(x, g, &rs) == -1) {
		free(copy.st);
		return -1;
	}
	d = refview_game(x, &copy, &rs, seat, NULL);
	tmpl_set(d, "preview.line", c->text);
	rc = ref_send(x, &x->me, "preview", d, g->row.id, seat, NULL);
	tmpl_data_free(d);
	refview_seats_free(&rs);
	free(copy.st);
	return rc;
}

/* The seat of the sender by From alone, or GAME_PUBLIC for an observer;
 * REF_FAIL for anyone else. */
static int
seat_or_observer(struct ref_msg *x, const struct play_game *g, int *viewer,
    struct ref_result *res)
{
	int64_t *obs;
	int n, i, found = 0;

	if ((*viewer = play_seat(g, x->me.address)) >= 0)
		return REF_OK;
	*viewer = GAME_PUBLIC;
	if (store_observers(x->r->store, g->row.id, &obs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++)
		found |= obs[i] == x->me.id;
	free(obs);
	if (!found)
		return ref_fail(res, _("you neither play nor observe game #%lld; "
		    "send `observe #%lld` to follow it"), (long long)g->row.id,
		    (long long)g->row.id);
	return REF_OK;
}

int
refgame_cmd_board(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	struct ref_seats rs;
	struct tmpl_data *d;
	int viewer, rc;

	if ((rc = seat_or_observer(x, g, &viewer, res)) != REF_OK)
		return rc;
	if (refview_seats(x, g, &rs) == -1)
		return -1;
	d = refview_game(x, g, &rs, viewer, NULL);
	rc = ref_send(x, &x->me, "board", d, g->row.id, viewer >= 0 ? viewer :
	    -1, NULL);
	tmpl_data_free(d);
	refview_seats_free(&rs);
	return rc;
}

/* An event of the history (store_event_add's kind) for people. */
static const char *
event_word(const char *kind)
{
	static const char *const words[] = { N_("new"), N_("admin new"),
	    N_("accept"), N_("decline"), N_("draw offered"), N_("resigned"),
	    N_("agreed"), N_("adjudicated"), N_("aborted"), N_("timeout"),
	    N_("admin extend"), N_("invitation expired") };
	size_t i;

	for (i = 0; i < nitems(words); i++)
		if (strcmp(kind, words[i]) == 0)
			return _(words[i]);
	return kind;
}

int
refgame_cmd_history(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	const struct game_ops *ops = g->def->ops;
	struct store_move *log = NULL;
	struct store_event *ev = NULL;
	struct ref_seats rs;
	struct tmpl_data *d, *it;
	struct tmpl_list *l;
	char when[40];
	char text[GAME_MOVE_TEXT];
	int viewer, rc, n = 0, ne = 0, i, e = 0, turn = 0, shown, *num, ki = 0;

	if ((rc = seat_or_observer(x, g, &viewer, res)) != REF_OK)
		return rc;
	if (refview_seats(x, g, &rs) == -1)
		return -1;
	if (store_moves(x->r->store, g->row.id, &log, &n) == -1 ||
	    store_events(x->r->store, g->row.id, &ev, &ne) == -1) {
		refview_seats_free(&rs);
		store_moves_free(log, n);
		return -1;
	}
	d = refview_game(x, g, &rs, viewer, NULL);
	if (g->row.result) {
		struct buf b = { 0 };

		refview_result(g, &b);
		tmpl_set(d, "result.text", buf_str(&b));
		buf_free(&b);
	}
	num = xcalloc((size_t)n + 1, sizeof(*num));
	refview_turns(g, log, n, num);
	l = tmpl_list(d, "moves");
	for (i = 0; i <= n; i++) {
		/* Events after ply i come before move i + 1. */
		for (; e < ne && ev[e].after_ply <= i; e++) {
			struct store_player p;

			it = tmpl_list_add(l);
			tmpl_set(it, "event", "1");
			if (ev[e].player != 0 && (ki = store_player_load(
			    x->r->store, ev[e].player, &p)) == 0) {
				tmpl_set(it, "name", ref_name(&p));
				store_player_free(&p);
			} else {
				if (ev[e].player != 0 && ki == -1)
					ref_store_failed(x);
				tmpl_set(it, "name", _("referee"));
			}
			tmpl_set(it, "seat", "");
			if (ev[e].text != NULL) {
				char *t = i18n_expand_str(ev[e].text);

				tmpl_set(it, "text", t);
				free(t);
			} else
				tmpl_set(it, "text", event_word(ev[e].kind));
			ref_utc(ev[e].created, when, sizeof(when));
			tmpl_set(it, "time", when);
		}
		if (i == n)
			break;
		/* Moves are numbered as turns, signals not counted, so the
		 * numbers never tell of a signal the reader did not see. */
		if (num[i] != 0)
			turn = num[i];
		shown = refview_shown(g, log[i].seat, log[i].notation, viewer,
		    text, sizeof(text));
		if (shown == GAME_SHOWN_NONE || log[i].seat >= rs.n)
			continue;
		it = tmpl_list_add(l);
		if (shown == GAME_SHOWN_EVENT)
			tmpl_set(it, "event", "1");
		tmpl_set_int(it, "number", turn);
		tmpl_set(it, "seat", _(ops->seat_name(g->st, log[i].seat)));
		tmpl_set(it, "name", ref_name(&rs.p[log[i].seat]));
		tmpl_set(it, "text", text);
		ref_utc(log[i].created, when, sizeof(when));
		tmpl_set(it, "time", when);
	}
	rc = ref_send(x, &x->me, "history", d, g->row.id, viewer >= 0 ?
	    viewer : -1, NULL);
	tmpl_data_free(d);
	free(num);
	store_moves_free(log, n);
	store_events_free(ev, ne);
	refview_seats_free(&rs);
	return rc;
}

int
refgame_cmd_resign(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	unsigned winners = 0;
	char *text, *seatname;
	int i, rc;

	for (i = 0; i < g->row.nseats; i++)
		if (play_side(g, i) != play_side(g, seat))
			winners |= 1u << i;
	seatname = xasprintf(I18N_TR "%s", g->def->ops->seat_name(g->st,
	    seat));
	text = i18n_defer(N_("%s resigned"), seatname, (char *)NULL);
	res->note = xasprintf(_("you resigned game #%lld"), (long long)g->row.id);
	rc = reflife_finish(x, g, 0, winners, "resigned", text, NULL);
	free(seatname);
	free(text);
	return rc;
}

struct draw_info {
	const char	*name;
	int		 seat;
};

static void
draw_extra(struct tmpl_data *d, void *arg, int viewer)
{
	struct draw_info *di = arg;

	tmpl_set(d, "offer.name", di->name);
	tmpl_set(d, "offer.you", viewer == di->seat ? "1" : "");
}

int
refgame_cmd_draw(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	struct draw_info di;
	unsigned sides = 0, offered = 0;
	int i;

	if (g->row.draw_offer & (1u << seat))
		return ref_fail(res, _("you have already offered a draw in game "
		    "#%lld"), (long long)g->row.id);
	g->row.draw_offer |= 1u << seat;
	for (i = 0; i < g->row.nseats; i++) {
		sides |= 1u << play_side(g, i);
		if (g->row.draw_offer & (1u << i))
			offered |= 1u << play_side(g, i);
	}
	/* Robots on the other sides take the draw when they judge their
	 * position lost. */
	if (offered != sides) {
		unsigned rest = 0;

		for (i = 0; i < g->row.nseats; i++)
			if (!(offered & (1u << play_side(g, i))))
				rest |= 1u << i;
		if ((rest & ~refrobot_seats(g)) == 0 &&
		    refrobot_accepts_draw(g))
			offered = sides;
	}
	if (offered == sides) {
		res->note = xasprintf(_("game #%lld is drawn by agreement"),
		    (long long)g->row.id);
		return reflife_finish(x, g, 1, 0, "agreed",
		    N_("draw by agreement"), NULL);
	}
	g->row.updated = x->now;
	if (fx_game_update(x, &g->row) == -1 ||
	    fx_event_add(x, g->row.id, g->row.nmoves, x->me.id,
	    "draw offered", NULL, x->now) == -1)
		return -1;
	res->note = xasprintf(_("draw offered in game #%lld"),
	    (long long)g->row.id);
	di.name = ref_name(&x->me);
	di.seat = seat;
	return refview_fanout(x, g, "draw", REFVIEW_SEATS, draw_extra, &di);
}

/* Does the sender observe the game?  1 yes, 0 no, -1 the store failed. */
static int
observing(struct ref_msg *x, int64_t game)
{
	int64_t *obs;
	int n, i, on = 0;

	if (store_observers(x->r->store, game, &obs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++)
		on |= obs[i] == x->me.id;
	free(obs);
	return on;
}

int
refgame_cmd_observe(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int on = k->c->kind == CMD_OBSERVE;
	struct ref_seats rs;
	struct tmpl_data *d;
	int rc;

	if (play_seat(g, x->me.address) >= 0)
		return ref_fail(res, _("you play in game #%lld; its mails come "
		    "to you anyway"), (long long)g->row.id);
	if (on && strcmp(g->row.status, "invited") == 0)
		return ref_fail(res, _("game #%lld has not begun"),
		    (long long)g->row.id);
	if ((rc = observing(x, g->row.id)) == -1)
		return -1;
	if (rc == on)
		rc = 1;
	else
		rc = fx_observer_set(x, g->row.id, x->me.id, on);
	if (rc == 1)
		return on ? ref_fail(res, _("you are already observing game "
		    "#%lld"), (long long)g->row.id) : ref_fail(res, _("you were "
		    "not observing game #%lld"), (long long)g->row.id);
	if (refview_seats(x, g, &rs) == -1)
		return -1;
	d = refview_game(x, g, &rs, GAME_PUBLIC, NULL);
	tmpl_set(d, "observe.on", on ? "1" : "0");
	rc = ref_send(x, &x->me, "observe", d, g->row.id, -1, NULL);
	tmpl_data_free(d);
	refview_seats_free(&rs);
	return rc;
}

int
refgame_cmd_say(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	const struct command *c = k->c;
	struct ref_seats rs;
	struct tmpl_data *d;
	int i, n, rc = 0, sent = 0;

	if (strcmp(g->row.status, "invited") == 0)
		return ref_fail(res, _("game #%lld has not begun"),
		    (long long)g->row.id);
	if (g->def->ops->partner != NULL &&
	    strcmp(g->row.status, "active") == 0)
		return ref_fail(res, _("no table talk while %s is played; `say` "
		    "works again when the game is over"), _(g->def->title));
	if (store_action_count(x->r->store, x->me.id, "say", x->now - 3600,
	    &n) == -1)
		return -1;
	if (n >= REF_SAY_PER_HOUR)
		return ref_fail(res, _("at most %d messages an hour; wait a "
		    "little"), REF_SAY_PER_HOUR);
	if (fx_action_add(x, x->me.id, "say", x->now) == -1 ||
	    refview_seats(x, g, &rs) == -1)
		return -1;
	for (i = 0; i < rs.n && rc == 0; i++) {
		if (i == seat || rs.p[i].banned)
			continue;
		ref_lang(&rs.p[i]);
		d = refview_game(x, g, &rs, i, NULL);
		tmpl_set(d, "say.name", ref_name(&x->me));
		tmpl_set(d, "say.seat", _(g->def->ops->seat_name(g->st, seat)));
		tmpl_set(d, "say.text", c->text);
		rc = ref_send(x, &rs.p[i], "say", d, g->row.id, i, NULL);
		tmpl_data_free(d);
		sent++;
	}
	refview_seats_free(&rs);
	ref_lang(&x->me);
	if (rc == 0)
		res->note = xasprintf(P_("passed on to %d player",
		    "passed on to %d players", sent), sent);
	return rc;
}

int
refgame_cmd_thanks(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	struct ref_seats rs;
	struct buf who = { 0 };
	int i, rc, added = 0;

	if (strcmp(g->row.status, "finished") != 0)
		return ref_fail(res, _("thanks come after the end of a game; "
		    "game #%lld is %s"), (long long)g->row.id,
		    refview_status(g->row.status));
	if (refview_seats(x, g, &rs) == -1)
		return -1;
	for (i = 0; i < rs.n; i++) {
		if (play_side(g, i) == play_side(g, seat))
			continue;
		if ((rc = store_thanks_get(x->r->store, g->row.id, x->me.id,
		    rs.p[i].id)) == 1)
			rc = fx_thanks_add(x, g->row.id, x->me.id, rs.p[i].id,
			    x->now);
		else if (rc == 0)
			rc = 1;
		if (rc == -1) {
			refview_seats_free(&rs);
			buf_free(&who);
			return -1;
		}
		if (rc == 0) {
			buf_printf(&who, "%s%s", who.len ? " and " : "",
			    ref_name(&rs.p[i]));
			added++;
		}
	}
	refview_seats_free(&rs);
	if (added == 0)
		rc = ref_fail(res, _("you have already thanked your opponents "
		    "of game #%lld"), (long long)g->row.id);
	else {
		res->note = xasprintf(_("thanked %s"), buf_str(&who));
		rc = REF_OK;
	}
	buf_free(&who);
	return rc;
}

/*
 * rematch: the game again, proposed by the sender to the same players
 * through `new` (its daily limit, its invitations, which confirm a From
 * no DMARC pass proves): the same variant, clock and rating, each player
 * one seat on, so two players swap sides and Aluette's partners stay
 * partners; a faction colour stays with its player.  A deal from the
 * server's deck is dealt anew.
 */
int
refgame_cmd_rematch(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	struct ref_proposal pr;
	struct command_seat *seats;
	char **words;
	int nwords = 0;
	struct buf colours = { 0 };
	const char *old = NULL, *p;
	char *variant, *tok, *save = NULL, part[STORE_MAX_SEATS][16];
	int i, ki, n = g->row.nseats, level, rc;
	size_t len;

	if (strcmp(g->row.status, "finished") != 0)
		return ref_fail(res, _("a rematch comes after the end of a "
		    "game; game #%lld is %s"), (long long)g->row.id,
		    refview_status(g->row.status));
	if (play_seat(g, x->me.address) != seat)
		return ref_fail(res, _("only a player of game #%lld may "
		    "propose its rematch"), (long long)g->row.id);
	memset(&pr, 0, sizeof(pr));
	pr.game = g->def->name;
	pr.clock = g->row.clock;
	pr.rated = g->row.rated != 0;
	pr.first = CMD_FIRST_SEATED;
	seats = xcalloc((size_t)n, sizeof(*seats));
	for (ki = 0; ki < n; ki++) {
		i = (ki + 1) % n;
		if ((level = refrobot_level(g->address[i])) != 0)
			seats[ki].robot = level;
		else
			seats[ki].addr = g->address[i];
	}
	variant = refview_variant(g, refdeck_dealt(x, g->def, g->row.id) ==
	    1);
	words = xcalloc(strlen(variant) / 2 + 2, sizeof(*words));
	for (tok = strtok_r(variant, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save))
		words[nwords++] = tok;
	/* The colours (left out of the variant) follow their players. */
	for (i = 0; i < g->opts.n; i++)
		if (strcmp(g->opts.v[i].name, "colours") == 0)
			old = g->opts.v[i].sval;
	if (old != NULL && *old != '\0') {
		memset(part, 0, sizeof(part));
		for (i = 0, p = old; i < n && *p != '\0'; i++) {
			len = strcspn(p, ",");
			snprintf(part[i], sizeof(part[i]), "%.*s", (int)len, p);
			p += len + (p[len] == ',');
		}
		buf_adds(&colours, "colours=");
		for (ki = 0; ki < n; ki++)
			buf_printf(&colours, "%s%s", ki ? "," : "",
			    part[(ki + 1) % n]);
		words[nwords++] = (char *)buf_str(&colours);
	}
	pr.seats = seats;
	pr.nseats = n;
	pr.opts = words;
	pr.nopts = nwords;
	rc = reflife_propose(x, &pr, res);
	free(seats);
	free(words);
	free(variant);
	buf_free(&colours);
	return rc;
}

/* ---- run steps (the command table in refcmd.c) ---- */

/* A line without a keyword that looks like no move of this game is a
 * remark ("Hi Dave,"): set aside, whoever wrote it.  So is a "Thanks!"
 * among other lines of a reply before the game has ended: a sign-off,
 * not the command. */
int
refgame_remark(struct ref_msg *x, const struct ref_call *k)
{
	const struct command *c = k->c;
	const struct play_game *g = k->g;

	return (c->kind == CMD_MOVE && c->implicit &&
	    !game_looks_like_move(g->def->ops, g->st, c->text)) ||
	    (c->kind == CMD_THANKS && k->from_tag && x->m->commands.n > 1 &&
	    strcmp(g->row.status, "finished") != 0);
}

int
refgame_cmd_new(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct ref_proposal p;

	reflife_proposal(&p, k->c);
	return reflife_propose(x, &p, res);
}

