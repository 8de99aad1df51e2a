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

/* The seat's side: partners share one (the lower seat number). */
int
refgame_side(const struct play_game *g, int seat)
{
	int p;

	if (g->def->ops->partner == NULL)
		return seat;
	p = g->def->ops->partner(g->st, seat);
	return p >= 0 && p < seat ? p : seat;
}

struct invite_info {
	const char	*inviter;	/* NULL: the admins */
	int		 seat;		/* the inviter's seat */
	char		 expires[40];
	const struct play_game *g;
};

static void
invite_extra(struct tmpl_data *d, void *arg, int viewer)
{
	struct invite_info *in = arg;

	tmpl_set(d, "inviter.you", in->inviter && viewer == in->seat ? "1" :
	    "");
	tmpl_set(d, "inviter.name", in->inviter ? in->inviter : "");
	tmpl_set(d, "inviter.admin", in->inviter ? "" : "1");
	tmpl_set(d, "invitation.expires", in->expires);
	tmpl_set(d, "invitation.accepted", viewer >= 0 &&
	    in->g->row.accepted[viewer] ? "1" : "");
}

/*
 * Which invitations of a new game to hold back: a proposer the mail does
 * not prove may be anyone's forged From, so each invitee gets at most
 * REF_INVITED_PER_DAY such invitations a day; the first held one brings
 * a notice instead (one a day), the rest nothing.  Held ones stay open,
 * listed by `list` and mailed by `bump`.  Sets *held (a bit per seat);
 * -1 when the store fails.
 */
static int
invitations_held(struct ref_msg *x, const struct play_game *g,
    unsigned *held)
{
	struct tmpl_data *d;
	int i, n, rc = 0;

	*held = 0;
	if (x->proven)
		return 0;
	for (i = 0; i < g->row.nseats && rc == 0; i++) {
		if (g->row.player[i] == x->me.id ||
		    refrobot_level(g->address[i]))
			continue;
		if (store_action_count(x->r->store, g->row.player[i],
		    "invited", x->now - 86400, &n) == -1 ||
		    fx_action_add(x, g->row.player[i], "invited",
		    x->now) == -1)
			return -1;
		if (n < REF_INVITED_PER_DAY)
			continue;
		*held |= 1u << i;
		if (n > REF_INVITED_PER_DAY)
			continue;
		d = tmpl_data_new();
		tmpl_set_int(d, "held.limit", REF_INVITED_PER_DAY);
		rc = ref_send_addr(x, g->address[i], "invitations-held", d, 0);
		tmpl_data_free(d);
	}
	return rc;
}

int
refgame_invite_again(struct ref_msg *x, const struct play_game *g,
    int seat)
{
	struct invite_info in;
	struct store_player p;
	unsigned skip = ~(1u << seat);
	int rc;

	memset(&p, 0, sizeof(p));
	if (g->row.inviter != 0 && ref_must(x, store_player_load(x->r->store,
	    g->row.inviter, &p), "player", g->row.inviter) != 0)
		return -1;
	in.inviter = g->row.inviter != 0 ? ref_name(&p) : NULL;
	in.seat = g->row.inviter != 0 ? play_seat(g, p.address) : -1;
	in.g = g;
	ref_utc(g->row.expires, in.expires, sizeof(in.expires));
	rc = refview_fanout_but(x, g, "invitation", REFVIEW_SEATS, skip,
	    invite_extra, &in);
	if (g->row.inviter != 0)
		store_player_free(&p);
	return rc;
}

int
refgame_new(struct ref_msg *x, const struct command *c, int admin,
    struct ref_result *res)
{
	return refgame_propose(x, c, admin, 0, NULL, res);
}

int
refgame_propose(struct ref_msg *x, const struct command *c, int admin,
    int start, const unsigned char *given, struct ref_result *res)
{
	const struct config *cfg = x->r->cfg;
	const struct gamedef *def;
	struct play_settings set;
	struct play_game g;
	struct invite_info in;
	struct store_timer t;
	struct buf clock = { 0 }, who = { 0 };
	char *addrs[STORE_MAX_SEATS + 1], **words = NULL, *firstw = NULL;
	char *dealw = NULL, err[400];
	struct refdeck_draw draw = { 0 };
	char *robotaddr[STORE_MAX_SEATS + 1] = { 0 };
	unsigned char seed[RNG_SEED_LEN];
	int i, n = 0, nw = 0, count, rc = REF_FAIL, active;
	unsigned held = 0;
	int64_t pid;

	if ((def = gamedef_find(x->r->defs, x->r->ndefs, c->gamename)) ==
	    NULL)
		return ref_fail(res, _("there is no game `%s`; send `games` for "
		    "the list"), c->gamename);
	if (!admin) {
		if (store_action_count(x->r->store, x->me.id, "new",
		    x->now - 86400, &count) == -1)
			return -1;
		if (count >= REF_NEW_PER_DAY)
			return ref_fail(res, _("you have proposed %d games in "
			    "the last day; wait before proposing more"), count);
		if (c->first != CMD_FIRST_SEATED)
			addrs[n++] = x->me.address;
	} else if (c->first == CMD_FIRST_ME)
		return ref_fail(res, _("first=me: you do not play in a game "
		    "you start with `admin new`"));
	for (i = 0; i < c->nseats && n <= STORE_MAX_SEATS; i++) {
		if (c->seats[i].addr == NULL)
			robotaddr[n] = refrobot_address(c->seats[i].robot, n);
		addrs[n] = c->seats[i].addr ? c->seats[i].addr : robotaddr[n];
		n++;
	}
	if (n != def->seats) {
		if (admin)
			rc = ref_fail(res, _("%s is for %d players; %d named"),
			    _(def->title), def->seats, n);
		else
			rc = ref_fail(res, _("%s is for %d players; you and "
			    "%d named"), _(def->title), def->seats, n - 1);
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct store_player p;
		int banned;

		if ((rc = store_player_find(x->r->store, addrs[i], &p)) == -1)
			goto out;
		banned = rc == 0 && p.banned;
		if (rc == 0)
			store_player_free(&p);
		if (banned) {
			rc = ref_fail(res, _("%s does not take part in games "
			    "on this referee"), addrs[i]);
			goto out;
		}
	}
	memset(&set, 0, sizeof(set));
	if (c->clock != NULL) {
		struct config_clock ck;

		if (config_parse_clock(c->clock, &ck, err, sizeof(err)) == -1) {
			rc = ref_fail(res, _("clock=%s: %s"), c->clock, err);
			goto out;
		}
		config_format_clock(&ck, &clock);
		set.clock = buf_str(&clock);
	}
	set.rated = c->rated != 0;
	set.inviter = admin ? 0 : x->me.id;
	active = admin && (start || cfg->admin.auto_accept);
	if (!active)
		set.expires = x->now + (x->invite_for ? x->invite_for :
		    cfg->clock.invitation_ms / 1000);
	words = xcalloc((size_t)c->nopts + 2, sizeof(*words));
	for (i = 0; i < c->nopts; i++)
		words[nw++] = c->opts[i];
	if (c->first == CMD_FIRST_RANDOM)
		words[nw++] = "first=random";
	else if (c->first == CMD_FIRST_ME || c->first == CMD_FIRST_SEATED ||
	    (c->first == CMD_FIRST_ADDRESS &&
	    !admin && strcmp(c->first_addr, x->me.address) == 0))
		words[nw++] = "first=given";
	else if (c->first == CMD_FIRST_ADDRESS)
		words[nw++] = firstw = xasprintf("first=%s", c->first_addr);
	rc = -1;
	for (i = 0; i < n; i++)
		if (ref_player_make(x, addrs[i], &pid) == -1)
			goto out;
	if (given != NULL)
		memcpy(seed, given, RNG_SEED_LEN);
	else
		ref_seed(x, seed);
	if (refdeck_deal(x, def, words, nw, seed, &dealw, &draw) == -1)
		goto out;
	if (dealw != NULL)
		words[nw++] = dealw;
	if ((rc = ref_game_make(x, def, &set, words, nw, addrs, n, seed,
	    active ? "active" : "invited", &g, err, sizeof(err))) != 0) {
		rc = rc == PLAY_TEMP ? REF_TEMP : ref_fail(res, "%s", err);
		goto out;
	}
	rc = -1;
	res->game = g.row.id;
	if (refdeck_record(x, g.row.id, &draw) == -1)
		goto free;
	/* Robots accept at once, and so does a proposer whose From a
	 * trusted DMARC pass proves: without it the invitation to the
	 * proposer is the confirmation that stops a forged From from
	 * starting games in someone's name. */
	for (i = 0; i < g.row.nseats; i++)
		if (refrobot_level(g.address[i]) || (!admin && x->dmarc &&
		    i == play_seat(&g, x->me.address)))
			g.row.accepted[i] = 1;
	if (!active) {
		int all = 1;

		for (i = 0; i < g.row.nseats; i++)
			all &= g.row.accepted[i] != 0;
		active = all;
	}
	if (fx_game_update(x, &g.row) == -1)
		goto free;
	if (active) {
		if (reflife_start(x, &g, x->me.id, admin ? "admin new" :
		    "new") == -1)
			goto free;
	} else if (fx_event_add(x, g.row.id, 0, x->me.id, admin ?
	    "admin new" : "new", NULL, x->now) == -1)
		goto free;
	if (!admin && fx_action_add(x, x->me.id, "new",
	    x->now) == -1)
		goto free;
	if (!active) {
		memset(&t, 0, sizeof(t));
		t.due = g.row.expires;
		t.kind = "invitation";
		t.game = g.row.id;
		if (fx_timer_add(x, &t) == -1)
			goto free;
		in.inviter = admin ? NULL : ref_name(&x->me);
		in.seat = play_seat(&g, x->me.address);
		in.g = &g;
		ref_utc(g.row.expires, in.expires, sizeof(in.expires));
		if ((!admin && invitations_held(x, &g, &held) == -1) ||
		    refview_fanout_but(x, &g, "invitation", REFVIEW_SEATS,
		    held, invite_extra, &in) == -1)
			goto free;
	}
	for (i = 0; i < g.row.nseats; i++)
		if (refrobot_level(g.address[i])) {
			buf_adds(&who, i ? ", " : "");
			buf_printf(&who, _("a robot (level %d)"),
			    refrobot_level(g.address[i]));
		} else
			buf_printf(&who, "%s%s", i ? ", " : "", g.address[i]);
	res->note = active ? xasprintf(_("game #%lld, %s, started for %s"),
	    (long long)g.row.id, _(def->title), buf_str(&who)) :
	    xasprintf(_("game #%lld, %s, proposed to %s"), (long long)g.row.id,
	    _(def->title), buf_str(&who));
	rc = REF_OK;
free:
	play_free(&g);
out:
	for (i = 0; i < STORE_MAX_SEATS + 1; i++)
		free(robotaddr[i]);
	free(firstw);
	free(dealw);
	refdeck_draw_free(&draw);
	free(words);
	buf_free(&clock);
	buf_free(&who);
	return rc;
}

static void
decline_extra(struct tmpl_data *d, void *arg, int viewer)
{
	(void)viewer;
	tmpl_set(d, "decliner.name", arg ? (const char *)arg : "");
}

int
refgame_unplayed_mail(struct ref_msg *x, const struct play_game *g,
    const char *decliner)
{
	struct ref_seats rs;
	struct tmpl_data *d;
	int i, rc = 0;

	if (refview_seats(x, g, &rs) == -1)
		return -1;
	for (i = 0; i < rs.n && rc == 0; i++) {
		if (rs.p[i].id == x->me.id || refrobot_level(g->address[i]))
			continue;
		if (g->row.inviter != 0 ? rs.p[i].id != g->row.inviter :
		    !g->row.accepted[i])
			continue;
		d = refview_game(x, g, &rs, i);
		decline_extra(d, (void *)decliner, i);
		rc = ref_send(x, &rs.p[i], "declined", d, g->row.id, i, NULL);
		tmpl_data_free(d);
	}
	refview_seats_free(&rs);
	return rc;
}

static int
cmd_accept(struct ref_msg *x, struct play_game *g, int seat, int accept,
    struct ref_result *res)
{
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
		free(g->row.status);
		g->row.status = xstrdup("aborted");
		free(g->row.ended);
		g->row.ended = xstrdup("declined");
		g->row.updated = x->now;
		if (fx_game_update(x, &g->row) == -1 ||
		    fx_event_add(x, g->row.id, 0, x->me.id,
		    "decline", NULL, x->now) == -1)
			return -1;
		res->note = xasprintf(_("game #%lld is cancelled"),
		    (long long)g->row.id);
		if (refladder_unplayed(x, g, x->me.id) == -1)
			return -1;
		return refgame_unplayed_mail(x, g, ref_name(&x->me));
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

/* The move mail to the mover alone, unless their notify is off (then
 * the answer to their mail says what was done). */
static int
mover_mail(struct ref_msg *x, const struct play_game *g, int seat)
{
	struct ref_seats rs;
	struct tmpl_data *d;
	int rc = 0;

	if (refview_seats(x, g, &rs) == -1)
		return -1;
	if (seat < rs.n && (rs.p[seat].notify == NULL ||
	    strcmp(rs.p[seat].notify, "off") != 0)) {
		d = refview_game(x, g, &rs, seat);
		rc = ref_send(x, &rs.p[seat], "move", d, g->row.id, seat,
		    NULL);
		tmpl_data_free(d);
	}
	refview_seats_free(&rs);
	return rc;
}

/* After a change of state: the clock, then the end mails or the move
 * mails.  before: the seats that were to move. */
static int
after_move(struct ref_msg *x, struct play_game *g, int seat, uint32_t before)
{
	unsigned keep;
	int i, open, rc;

	/* A move by the side a draw was offered to declines the offer. */
	keep = 0;
	for (i = 0; i < g->row.nseats; i++)
		if (refgame_side(g, i) == refgame_side(g, seat))
			keep |= 1u << i;
	g->row.draw_offer &= keep;
	/* A conditional reply the move called for is played now, as a move
	 * of its own for the clock and the robots. */
	if (refcond_after_move(x, g, &seat, &before) == -1 ||
	    refclock_after_move(x, g, seat, before) == -1 ||
	    refrobot_play(x, g, &i) == -1)
		return -1;
	if (strcmp(g->row.status, "finished") == 0)
		g->row.draw_offer = 0;
	if (fx_game_update(x, &g->row) == -1)
		return -1;
	if (strcmp(g->row.status, "finished") == 0)
		rc = refview_end(x, g);
	/* A turn of several plies that goes on (Spite & Malice before the
	 * discard): only the mover hears now; the others get the whole
	 * turn in one mail when it ends. */
	else if ((open = refview_turn_open(x, g, seat)) == -1)
		rc = -1;
	else if (open)
		rc = mover_mail(x, g, seat);
	else
		rc = refview_fanout(x, g, "move", REFVIEW_SEATS |
		    REFVIEW_OBSERVERS | REFVIEW_NOTIFY, NULL, NULL);
	if (rc == 0)
		rc = refcond_tell(x, g);
	memset(&x->cond, 0, sizeof(x->cond));
	return rc;
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
		d = refview_game(x, g, &rs, i);
		rc = ref_send(x, &rs.p[i], "move", d, g->row.id, i, NULL);
		tmpl_data_free(d);
	}
	refview_seats_free(&rs);
	ref_lang(&x->me);
	return rc;
}

static void	signal_passed(const struct play_game *, struct ref_result *);

static int
cmd_move(struct ref_msg *x, struct play_game *g, int seat,
    const struct command *c, struct ref_result *res)
{
	char err[GAME_ERRLEN + 100], last[GAME_MOVE_TEXT];
	uint32_t before = g->def->ops->to_move(g->st);
	int n, rc, plies, plies_before;

	if (reflife_need_active(g, res) == REF_FAIL)
		return REF_FAIL;
	if (g->def->ops->to_move(g->st) & (1u << seat))
		res->legal_seat = seat;
	if ((rc = check_guard(x, g, c, res)) != REF_OK)
		return rc;
	if ((plies_before = play_plies_stored(x->r->store, g)) == -1)
		return -1;
	if ((n = ref_play(x, g, seat, c->text, err, sizeof(err))) ==
	    PLAY_TEMP)
		return REF_TEMP;
	if (n == -1)
		return ref_fail(res, "%s", err);
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
	return after_move(x, g, seat, before);
}

static int
cmd_signal(struct ref_msg *x, struct play_game *g, int seat,
    const struct command *c, struct ref_result *res)
{
	char line[200], err[GAME_ERRLEN + 100];
	int rc;

	if (g->def->ops->partner == NULL)
		return ref_fail(res, _("%s has no signals"), _(g->def->title));
	if (reflife_need_active(g, res) == REF_FAIL)
		return REF_FAIL;
	snprintf(line, sizeof(line), "signal %s", c->text);
	if ((rc = ref_play(x, g, seat, line, err, sizeof(err))) == PLAY_TEMP)
		return REF_TEMP;
	if (rc == -1)
		return ref_fail(res, "%s", err);
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

static int
cmd_preview(struct ref_msg *x, struct play_game *g, int seat,
    const struct command *c, struct ref_result *res)
{
	const struct game_ops *ops = g->def->ops;
	struct play_game copy;
	struct ref_seats rs;
	struct tmpl_data *d;
	char err[GAME_ERRLEN + 100];
	int failed, rc;

	if (reflife_need_active(g, res) == REF_FAIL)
		return REF_FAIL;
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
	d = refview_game(x, &copy, &rs, seat);
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

static int
cmd_board(struct ref_msg *x, struct play_game *g, struct ref_result *res)
{
	struct ref_seats rs;
	struct tmpl_data *d;
	int viewer, rc;

	if ((rc = seat_or_observer(x, g, &viewer, res)) != REF_OK)
		return rc;
	if (refview_seats(x, g, &rs) == -1)
		return -1;
	d = refview_game(x, g, &rs, viewer);
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

static int
cmd_history(struct ref_msg *x, struct play_game *g, struct ref_result *res)
{
	const struct game_ops *ops = g->def->ops;
	struct store_move *log = NULL;
	struct store_event *ev = NULL;
	struct ref_seats rs;
	struct tmpl_data *d, *it;
	struct tmpl_list *l;
	char when[40];
	char text[GAME_MOVE_TEXT];
	int viewer, rc, n = 0, ne = 0, i, e = 0, turn = 0, shown, *num, k = 0;

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
	d = refview_game(x, g, &rs, viewer);
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
			if (ev[e].player != 0 && (k = store_player_load(
			    x->r->store, ev[e].player, &p)) == 0) {
				tmpl_set(it, "name", ref_name(&p));
				store_player_free(&p);
			} else {
				if (ev[e].player != 0 && k == -1)
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
refgame_finish(struct ref_msg *x, struct play_game *g, int draw,
    unsigned winners, const char *how, const char *text, const char *by)
{
	struct game_result res;

	g->def->ops->result(g->st, &res);
	res.over = 1;
	res.draw = draw;
	res.winners = draw ? 0 : winners;
	util_strlcpy(res.text, text, sizeof(res.text));
	free(g->row.status);
	g->row.status = xstrdup(strcmp(how, "aborted") == 0 ? "aborted" :
	    "finished");
	free(g->row.result);
	g->row.result = i18n_keep(text);
	free(g->row.ended);
	g->row.ended = xstrdup(how);
	g->row.draw_offer = 0;
	g->row.updated = x->now;
	if (fx_conditions_clear(x, g->row.id, -1) == -1 ||
	    fx_takeback_set(x, g->row.id, 0, 0, x->now) == -1 ||
	    refclock_stop(x, g) == -1 ||
	    fx_game_update(x, &g->row) == -1 ||
	    fx_event_add(x, g->row.id, g->row.nmoves, x->me.id,
	    how, g->row.result, x->now) == -1)
		return -1;
	if (by == NULL && x->me.id != 0)
		by = ref_name(&x->me);
	return refview_end_by(x, g, by, &res);
}

static int
cmd_resign(struct ref_msg *x, struct play_game *g, int seat,
    struct ref_result *res)
{
	unsigned winners = 0;
	char *text, *seatname;
	int i, rc;

	if (reflife_need_active(g, res) == REF_FAIL)
		return REF_FAIL;
	for (i = 0; i < g->row.nseats; i++)
		if (refgame_side(g, i) != refgame_side(g, seat))
			winners |= 1u << i;
	seatname = xasprintf(I18N_TR "%s", g->def->ops->seat_name(g->st,
	    seat));
	text = i18n_defer(N_("%s resigned"), seatname, (char *)NULL);
	res->note = xasprintf(_("you resigned game #%lld"), (long long)g->row.id);
	rc = refgame_finish(x, g, 0, winners, "resigned", text, NULL);
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

static int
cmd_draw(struct ref_msg *x, struct play_game *g, int seat,
    struct ref_result *res)
{
	struct draw_info di;
	unsigned sides = 0, offered = 0;
	int i;

	if (reflife_need_active(g, res) == REF_FAIL)
		return REF_FAIL;
	if (g->row.draw_offer & (1u << seat))
		return ref_fail(res, _("you have already offered a draw in game "
		    "#%lld"), (long long)g->row.id);
	g->row.draw_offer |= 1u << seat;
	for (i = 0; i < g->row.nseats; i++) {
		sides |= 1u << refgame_side(g, i);
		if (g->row.draw_offer & (1u << i))
			offered |= 1u << refgame_side(g, i);
	}
	/* Robots on the other sides take the draw when they judge their
	 * position lost. */
	if (offered != sides) {
		unsigned rest = 0;

		for (i = 0; i < g->row.nseats; i++)
			if (!(offered & (1u << refgame_side(g, i))))
				rest |= 1u << i;
		if ((rest & ~refrobot_seats(g)) == 0 &&
		    refrobot_accepts_draw(g))
			offered = sides;
	}
	if (offered == sides) {
		res->note = xasprintf(_("game #%lld is drawn by agreement"),
		    (long long)g->row.id);
		return refgame_finish(x, g, 1, 0, "agreed",
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

static int
cmd_observe(struct ref_msg *x, struct play_game *g, int on,
    struct ref_result *res)
{
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
	d = refview_game(x, g, &rs, GAME_PUBLIC);
	tmpl_set(d, "observe.on", on ? "1" : "0");
	rc = ref_send(x, &x->me, "observe", d, g->row.id, -1, NULL);
	tmpl_data_free(d);
	refview_seats_free(&rs);
	return rc;
}

static int
cmd_say(struct ref_msg *x, struct play_game *g, int seat,
    const struct command *c, struct ref_result *res)
{
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
		d = refview_game(x, g, &rs, i);
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

static int
cmd_thanks(struct ref_msg *x, struct play_game *g, int seat,
    struct ref_result *res)
{
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
		if (refgame_side(g, i) == refgame_side(g, seat))
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
static int
cmd_rematch(struct ref_msg *x, struct play_game *g, int seat,
    struct ref_result *res)
{
	struct command nc;
	struct buf colours = { 0 };
	const char *old = NULL, *p;
	char *variant, *tok, *save = NULL, part[STORE_MAX_SEATS][16];
	int i, k, n = g->row.nseats, level, rc;
	size_t len;

	if (strcmp(g->row.status, "finished") != 0)
		return ref_fail(res, _("a rematch comes after the end of a "
		    "game; game #%lld is %s"), (long long)g->row.id,
		    refview_status(g->row.status));
	if (play_seat(g, x->me.address) != seat)
		return ref_fail(res, _("only a player of game #%lld may "
		    "propose its rematch"), (long long)g->row.id);
	memset(&nc, 0, sizeof(nc));
	nc.kind = CMD_NEW;
	nc.gamename = g->def->name;
	nc.clock = g->row.clock;
	nc.rated = g->row.rated != 0;
	nc.first = CMD_FIRST_SEATED;
	nc.seats = xcalloc((size_t)n, sizeof(*nc.seats));
	for (k = 0; k < n; k++) {
		i = (k + 1) % n;
		if ((level = refrobot_level(g->address[i])) != 0)
			nc.seats[k].robot = level;
		else
			nc.seats[k].addr = g->address[i];
	}
	nc.nseats = n;
	variant = refview_variant(g, refdeck_dealt(x, g->def, g->row.id) ==
	    1);
	nc.opts = xcalloc(strlen(variant) / 2 + 2, sizeof(*nc.opts));
	for (tok = strtok_r(variant, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save))
		nc.opts[nc.nopts++] = tok;
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
		for (k = 0; k < n; k++)
			buf_printf(&colours, "%s%s", k ? "," : "",
			    part[(k + 1) % n]);
		nc.opts[nc.nopts++] = (char *)buf_str(&colours);
	}
	rc = refgame_new(x, &nc, 0, res);
	free(nc.seats);
	free(nc.opts);
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
	return refgame_new(x, k->c, 0, res);
}

int
refgame_cmd_accept(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_accept(x, k->g, k->seat, 1, res);
}

int
refgame_cmd_decline(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_accept(x, k->g, k->seat, 0, res);
}

int
refgame_cmd_move(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_move(x, k->g, k->seat, k->c, res);
}

int
refgame_cmd_preview(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_preview(x, k->g, k->seat, k->c, res);
}

int
refgame_cmd_signal(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_signal(x, k->g, k->seat, k->c, res);
}

int
refgame_cmd_board(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_board(x, k->g, res);
}

int
refgame_cmd_history(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_history(x, k->g, res);
}

int
refgame_cmd_resign(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_resign(x, k->g, k->seat, res);
}

int
refgame_cmd_draw(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_draw(x, k->g, k->seat, res);
}

int
refgame_cmd_observe(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_observe(x, k->g, 1, res);
}

int
refgame_cmd_unobserve(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_observe(x, k->g, 0, res);
}

int
refgame_cmd_say(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_say(x, k->g, k->seat, k->c, res);
}

int
refgame_cmd_thanks(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_thanks(x, k->g, k->seat, res);
}

int
refgame_cmd_rematch(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	return cmd_rematch(x, k->g, k->seat, res);
}
