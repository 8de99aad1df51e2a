/*
 * reflife: a game's life.  The one place a game is proposed (`new`,
 * `admin new`, a ladder's challenge, a rematch, the admin tool's `ludus
 * new`: each fills a struct ref_proposal), and where an invitation
 * declined or lapsed leaves the game unplayed.  The one place where a
 * game begins, whichever
 * way it came to be: the last seat accepting an invitation, a game made
 * already accepted (an admin's `new` that needs no acceptance, robots
 * and a proven proposer), a seek whose seats are all taken, the admin
 * tool's `ludus new`.  The one place a move played goes on from (the
 * draw offers, conditional replies, the clock, the robots, the mails)
 * and the one place a game ends, by the rules or by a decision: the
 * ratings, the ladder, the club list and the end mail, in that order.
 * And the one answer to a command that needs a game being played.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refint.h"

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
reflife_invite_again(struct ref_msg *x, const struct play_game *g,
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
	rc = refview_fanout_about(x, g, "invitation", REFVIEW_SEATS, skip,
	    NULL, invite_extra, &in);
	if (g->row.inviter != 0)
		store_player_free(&p);
	return rc;
}

void
reflife_proposal(struct ref_proposal *p, const struct command *c)
{
	memset(p, 0, sizeof(*p));
	p->game = c->gamename;
	p->opts = c->opts;
	p->nopts = c->nopts;
	p->seats = c->seats;
	p->nseats = c->nseats;
	p->clock = c->clock;
	p->first = c->first;
	p->first_addr = c->first_addr;
	p->rated = c->rated;
	p->admin = c->kind == CMD_ADMIN_NEW;
}

int
reflife_propose(struct ref_msg *x, const struct ref_proposal *c,
    struct ref_result *res)
{
	const int admin = c->admin;
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

	if ((def = gamedef_find(x->r->defs, x->r->ndefs, c->game)) ==
	    NULL)
		return ref_fail(res, _("there is no game `%s`; send `games` for "
		    "the list"), c->game);
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
	active = admin && (c->start || cfg->admin.auto_accept);
	if (!active)
		set.expires = x->now + (c->invite_for ? c->invite_for :
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
	if (c->seed != NULL)
		memcpy(seed, c->seed, RNG_SEED_LEN);
	else
		ref_seed(x, seed);
	if (refdeck_deal(x, def, words, nw, seed, &dealw, &draw) == -1)
		goto out;
	if (dealw != NULL)
		words[nw++] = dealw;
	if ((rc = ref_game_make(x, def, &set, words, nw, addrs, n, seed,
	    active ? "active" : "invited", &g, err, sizeof(err))) != REF_OK) {
		if (rc == REF_FAIL)
			ref_fail(res, "%s", err);
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
		    refview_fanout_about(x, &g, "invitation", REFVIEW_SEATS,
		    held, NULL, invite_extra, &in) == -1)
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

/* The move mail to the mover alone, unless their notify is off (then
 * the answer to their mail says what was done). */
static int
mover_mail(struct ref_msg *x, const struct play_game *g, int seat,
    const struct ref_cond *cond)
{
	struct refview_about ab = { cond, NULL };
	struct ref_seats rs;
	struct tmpl_data *d;
	int rc = 0;

	if (refview_seats(x, g, &rs) == -1)
		return -1;
	if (seat < rs.n && (rs.p[seat].notify == NULL ||
	    strcmp(rs.p[seat].notify, "off") != 0)) {
		d = refview_game(x, g, &rs, seat, &ab);
		rc = ref_send(x, &rs.p[seat], "move", d, g->row.id, seat,
		    NULL);
		tmpl_data_free(d);
	}
	refview_seats_free(&rs);
	return rc;
}

/* After a change of state: the clock, then the end mails or the move
 * mails.  before: the seats that were to move. */
int
reflife_moved(struct ref_msg *x, struct play_game *g, int seat,
    uint32_t before)
{
	struct ref_cond cond;
	struct refview_about ab = { &cond, NULL };
	int i, open, rc;

	play_draw_declined(g, seat);
	/* A conditional reply the move called for is played now, as a move
	 * of its own for the clock and the robots. */
	if (refcond_after_move(x, g, &seat, &before, &cond) == -1 ||
	    refclock_after_move(x, g, seat, before) == -1 ||
	    refrobot_play(x, g, &i) == -1)
		return -1;
	if (strcmp(g->row.status, "finished") == 0)
		g->row.draw_offer = 0;
	if (fx_game_update(x, &g->row) == -1)
		return -1;
	if (strcmp(g->row.status, "finished") == 0)
		rc = reflife_over(x, g, &cond);
	/* A turn of several plies that goes on (Spite & Malice before the
	 * discard): only the mover hears now; the others get the whole
	 * turn in one mail when it ends. */
	else if ((open = refview_turn_open(x, g, seat)) == -1)
		rc = -1;
	else if (open)
		rc = mover_mail(x, g, seat, &cond);
	else
		rc = refview_fanout_about(x, g, "move", REFVIEW_SEATS |
		    REFVIEW_OBSERVERS | REFVIEW_NOTIFY, 0, &ab, NULL, NULL);
	if (rc == 0)
		rc = refcond_tell(x, g, &cond);
	return rc;
}

int
reflife_end(struct ref_msg *x, const struct play_game *g, const char *by,
    const struct game_result *res, const struct ref_cond *cond)
{
	struct ref_rating_change ch;

	/* Rated, the ladder's challenge decided and its list told, before
	 * the end mail, which shows the ratings. */
	if (refladder_end(x, g, res, &ch) == -1)
		return -1;
	return refview_end(x, g, by, res, &ch, cond);
}

int
reflife_over(struct ref_msg *x, const struct play_game *g,
    const struct ref_cond *cond)
{
	struct game_result res;

	g->def->ops->result(g->st, &res);
	return reflife_end(x, g, NULL, &res, cond);
}

int
reflife_finish(struct ref_msg *x, struct play_game *g, int draw,
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
	return reflife_end(x, g, by, &res, NULL);
}

static void
decline_extra(struct tmpl_data *d, void *arg, int viewer)
{
	(void)viewer;
	tmpl_set(d, "decliner.name", arg ? (const char *)arg : "");
}

static int
unplayed_mail(struct ref_msg *x, const struct play_game *g,
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
		d = refview_game(x, g, &rs, i, NULL);
		decline_extra(d, (void *)decliner, i);
		rc = ref_send(x, &rs.p[i], "declined", d, g->row.id, i, NULL);
		tmpl_data_free(d);
	}
	refview_seats_free(&rs);
	return rc;
}

int
reflife_unplayed(struct ref_msg *x, struct play_game *g, int64_t decliner)
{
	free(g->row.status);
	g->row.status = xstrdup("aborted");
	free(g->row.ended);
	g->row.ended = xstrdup(decliner != 0 ? "declined" : "expired");
	g->row.updated = x->now;
	if (fx_game_update(x, &g->row) == -1 ||
	    fx_event_add(x, g->row.id, 0, decliner, decliner != 0 ?
	    "decline" : "invitation expired", NULL, x->now) == -1 ||
	    refladder_unplayed(x, g, decliner) == -1)
		return -1;
	return unplayed_mail(x, g, decliner != 0 ? ref_name(&x->me) : NULL);
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
