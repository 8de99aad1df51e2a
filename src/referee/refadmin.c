/*
 * refadmin: admin commands and their confirmation round trip, reports
 * about a game's conduct, and the timers the referee keeps (invitations
 * that lapse, reports still open after four hours).
 *
 * An admin command runs when the sender is in referee.admins and either a
 * trusted DMARC pass proves the From address or the admin confirmed it:
 * the referee mails a one-time cookie to the admin address and runs the
 * command when `confirm COOKIE` comes back from that address.  Whoever
 * forges an admin's From never sees the cookie.  The commands that act in
 * a player's name (COMMAND_PROOF) take the same round trip when the mail
 * proves nothing; at most REF_CONFIRM_WAITING cookies wait for one
 * address at a time.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "log.h"
#include "refint.h"

/* A cookie nobody can guess without the secret, yet the same when a
 * message is read again after a crash (so the mail already queued and
 * the row agree). */
static void
make_cookie(struct ref_msg *x, char out[2 * 10 + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char *label = xasprintf("confirm:%s:%d", x->key, x->nout);

	HMAC(EVP_sha256(), x->r->secret.key, sizeof(x->r->secret.key),
	    (const unsigned char *)label, strlen(label), md, &mdlen);
	free(label);
	util_hex(md, 10, out);
}

int
refadmin_ask(struct ref_msg *x, const char *line, int admin,
    struct ref_result *res)
{
	struct tmpl_data *d;
	char cookie[2 * 10 + 1], when[40];
	int64_t expires = x->now + x->r->cfg->clock.confirmation_ms / 1000;
	int rc, n;

	/* The cookie goes to the From address, which may be a stranger's:
	 * a few waiting at a time, so forged mail cannot flood it. */
	if (store_confirm_waiting(x->r->store, x->me.id, x->now, &n) == -1)
		return -1;
	if (n >= REF_CONFIRM_WAITING)
		return ref_fail(res, _("%d commands wait for your confirmation "
		    "already; confirm one or let them lapse before sending "
		    "more (a reply to a game's mail needs none)"), n);
	make_cookie(x, cookie);
	if (fx_confirm_add(x, cookie, x->me.id, line, x->now,
	    expires) == -1)
		return -1;
	d = tmpl_data_new();
	tmpl_set(d, "confirm.command", line);
	tmpl_set(d, "confirm.cookie", cookie);
	tmpl_set(d, "confirm.player", admin ? "" : "1");
	ref_utc(expires, when, sizeof(when));
	tmpl_set(d, "confirm.expires", when);
	rc = ref_send(x, &x->me, "confirm", d, 0, -1, NULL);
	tmpl_data_free(d);
	if (rc == 0)
		res->note = xstrdup(_("waits for your confirmation"));
	return rc;
}

int
refadmin_cmd_confirm(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	char *line;
	int rc;

	if ((rc = store_confirm_get(x->r->store, c->text, x->me.id, x->now,
	    &line)) == -1)
		return -1;
	if (rc == 1)
		return ref_fail(res, _("`%s` is no confirmation waiting for you "
		    "(unknown, used or expired)"), c->text);
	/* The table's dispatcher takes the cookie and runs the line now, as
	 * confirmed. */
	res->rerun = line;
	return fx_confirm_take(x, c->text, x->me.id, x->now);
}

/* The seat a RESULT names, or -1. */
static int
result_seat(struct ref_msg *x, const struct play_game *g,
    const struct command *c)
{
	int i;

	(void)x;
	switch (c->result) {
	case CMD_RESULT_SEAT:
		return c->result_seat < g->row.nseats ? c->result_seat : -1;
	case CMD_RESULT_ADDRESS:
		return play_seat(g, c->addr);
	case CMD_RESULT_NAME:
		for (i = 0; i < g->row.nseats; i++)
			if (util_strcaseeq(g->def->ops->seat_name(g->st, i),
			    c->result_name))
				return i;
		return -1;
	default:
		return -1;
	}
}

int
refadmin_cmd_game(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	struct play_game g;
	char *text = NULL, *why = NULL, *seatname = NULL, hours[16];
	unsigned winners = 0;
	int rc, seat, i;

	if (c->game == 0)
		return ref_fail(res, _("name the game: `%s`"),
		    command_usage(c->kind));
	if ((rc = ref_load(x, c->game, &g, res)) != REF_OK)
		return rc;
	if (strcmp(g.row.status, "active") != 0 &&
	    !(c->kind == CMD_ADMIN_ABORT &&
	    strcmp(g.row.status, "invited") == 0)) {
		rc = ref_fail(res, _("game #%lld is %s"), (long long)g.row.id,
		    refview_status(g.row.status));
		goto out;
	}
	/* The texts are kept for every reader's language (i18n_defer);
	 * the admin's own words go in as they are. */
	if (c->text != NULL)
		why = xstrndup(c->text, 100);
	switch (c->kind) {
	case CMD_ADMIN_ABORT:
		text = why ? i18n_defer(N_("aborted by the admins: %s"), why,
		    (char *)NULL) : xstrdup(N_("aborted by the admins"));
		res->note = xasprintf(_("game #%lld aborted"), (long long)g.row.id);
		rc = reflife_finish(x, &g, 0, 0, "aborted", text, NULL);
		break;
	case CMD_ADMIN_ADJUDICATE:
		if (c->result == CMD_RESULT_DRAW) {
			res->note = xasprintf(_("game #%lld adjudicated a draw"),
			    (long long)g.row.id);
			text = why ? i18n_defer(N_("a draw by adjudication: "
			    "%s"), why, (char *)NULL) :
			    xstrdup(N_("a draw by adjudication"));
			rc = reflife_finish(x, &g, 1, 0, "adjudicated", text,
			    NULL);
			break;
		}
		if ((seat = result_seat(x, &g, c)) < 0) {
			rc = ref_fail(res, _("game #%lld has no such seat or "
			    "player; give draw, 1-0, 0-1, a seat name or an "
			    "address"), (long long)g.row.id);
			break;
		}
		winners = 1u << seat;
		if (g.def->ops->partner != NULL) {
			i = g.def->ops->partner(g.st, seat);
			if (i >= 0)
				winners |= 1u << i;
		}
		seatname = xasprintf(I18N_TR "%s",
		    g.def->ops->seat_name(g.st, seat));
		text = why ? i18n_defer(N_("%s wins by adjudication: %s"),
		    seatname, why, (char *)NULL) :
		    i18n_defer(N_("%s wins by adjudication"), seatname,
		    (char *)NULL);
		{
			char *shown = i18n_expand_str(text);

			res->note = xasprintf(_("game #%lld: %s"),
			    (long long)g.row.id, shown);
			free(shown);
		}
		rc = reflife_finish(x, &g, 0, winners, "adjudicated", text,
		    NULL);
		break;
	default: /* CMD_ADMIN_EXTEND */
		if (refclock_shift(x, &g, (int64_t)c->hours * 3600) == -1) {
			rc = -1;
			break;
		}
		g.row.updated = x->now;
		snprintf(hours, sizeof(hours), "%d", c->hours);
		text = why ? i18n_defer(N_("deadline extended by %s h: %s"),
		    hours, why, (char *)NULL) :
		    i18n_defer(N_("deadline extended by %s h"), hours,
		    (char *)NULL);
		seatname = text;	/* freed below */
		text = i18n_keep(seatname);
		if (fx_game_update(x, &g.row) == -1 ||
		    fx_event_add(x, g.row.id, g.row.nmoves,
		    x->me.id, "admin extend", text, x->now) == -1) {
			rc = -1;
			break;
		}
		{
			char *shown = i18n_expand_str(text);

			res->note = xasprintf(_("game #%lld: %s"),
			    (long long)g.row.id, shown);
			free(shown);
		}
		rc = refview_fanout(x, &g, "board", REFVIEW_SEATS, NULL, NULL);
		break;
	}
out:
	free(text);
	free(why);
	free(seatname);
	play_free(&g);
	return rc;
}

static void
report_data(struct tmpl_data *d, const struct store_report *rp,
    const char *title, const char *reporter)
{
	tmpl_set_int(d, "report.id", rp->id);
	tmpl_set(d, "report.text", rp->text);
	tmpl_set_int(d, "game.id", rp->game);
	tmpl_set(d, "game.title", title ? _(title) : "");
	if (reporter)
		tmpl_set(d, "report.reporter", reporter);
	if (rp->resolved) {
		tmpl_set(d, "report.resolved", "1");
		tmpl_set(d, "report.resolution", rp->resolution);
	}
}

/* Mail an open report to every admin (again, when reminder is set). */
static int
mail_admins(struct ref_msg *x, const struct store_report *rp, int reminder)
{
	const struct config_list *admins = &x->r->cfg->referee.admins;
	struct store_game g;
	struct store_player rep;
	const struct gamedef *def;
	struct tmpl_data *d;
	int i, rc = 0;

	if (ref_must(x, store_game_load(x->r->store, rp->game, &g), "game",
	    rp->game) != 0)
		return -1;
	def = gamedef_find(x->r->defs, x->r->ndefs, g.kind);
	if (ref_must(x, store_player_load(x->r->store, rp->reporter, &rep),
	    "player", rp->reporter) != 0) {
		store_game_free(&g);
		return -1;
	}
	for (i = 0; i < admins->n && rc == 0; i++) {
		d = tmpl_data_new();
		report_data(d, rp, def ? def->title : g.kind, rep.address);
		if (reminder)
			tmpl_set(d, "report.reminder", "1");
		rc = ref_send_addr(x, admins->v[i], "report-admin", d, 0);
		tmpl_data_free(d);
	}
	store_player_free(&rep);
	store_game_free(&g);
	if (admins->n == 0)
		log_warn("report #%lld: no admins configured to tell",
		    (long long)rp->id);
	return rc;
}

int
refadmin_cmd_report(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	struct store_report rp;
	struct store_timer t;
	struct play_game g;
	struct tmpl_data *d;
	int64_t *obs, id;
	int n, i, rc, ok = 0;

	if (c->game == 0)
		return ref_fail(res, _("which game? Write `report #ID TEXT`, or "
		    "reply to a mail of the game"));
	if ((rc = ref_load(x, c->game, &g, res)) != REF_OK)
		return rc;
	ok = play_seat(&g, x->me.address) >= 0;
	if (!ok && store_observers(x->r->store, g.row.id, &obs, &n) == 0) {
		for (i = 0; i < n; i++)
			ok |= obs[i] == x->me.id;
		free(obs);
	}
	if (!ok) {
		play_free(&g);
		return ref_fail(res, _("only the players and observers of game "
		    "#%lld may report it"), (long long)c->game);
	}
	if (store_action_count(x->r->store, x->me.id, "report", x->now - 3600,
	    &n) == -1)
		goto fail;
	if (n >= REF_REPORT_PER_HOUR) {
		play_free(&g);
		return ref_fail(res, _("at most %d reports an hour"),
		    REF_REPORT_PER_HOUR);
	}
	if (refeff_reserve(x, STORE_SERIES_REPORT, &id) == -1 ||
	    fx_action_add(x, x->me.id, "report", x->now) == -1 ||
	    fx_report_add(x, g.row.id, x->me.id, c->text, x->now, id) == -1)
		goto fail;
	/* The report as it is written. */
	memset(&rp, 0, sizeof(rp));
	rp.id = id;
	rp.game = g.row.id;
	rp.reporter = x->me.id;
	rp.text = xstrdup(c->text);
	rp.created = x->now;
	memset(&t, 0, sizeof(t));
	t.due = x->now + REF_REPORT_RESEND;
	t.kind = "report";
	t.data = xasprintf("%lld", (long long)id);
	rc = fx_timer_add(x, &t);
	free(t.data);
	if (rc == 0) {
		d = tmpl_data_new();
		report_data(d, &rp, g.def->title, NULL);
		rc = ref_send(x, &x->me, "report-ack", d, 0, -1, NULL);
		tmpl_data_free(d);
	}
	if (rc == 0)
		rc = mail_admins(x, &rp, 0);
	store_report_free(&rp);
	play_free(&g);
	return rc;
fail:
	play_free(&g);
	return -1;
}

int
refadmin_cmd_reports(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct store_report *rp;
	struct store_player p;
	struct tmpl_data *d = tmpl_data_new(), *it;
	struct tmpl_list *l = tmpl_list(d, "reports");
	char when[40];
	int n, i, ki, rc;

	(void)k;
	(void)res;
	if (store_reports_open(x->r->store, &rp, &n) == -1) {
		tmpl_data_free(d);
		return -1;
	}
	for (i = 0; i < n; i++) {
		it = tmpl_list_add(l);
		tmpl_set_int(it, "id", rp[i].id);
		tmpl_set_int(it, "game", rp[i].game);
		tmpl_set(it, "text", rp[i].text);
		ref_utc(rp[i].created, when, sizeof(when));
		tmpl_set(it, "created", when);
		if ((ki = store_player_load(x->r->store, rp[i].reporter,
		    &p)) == 0) {
			tmpl_set(it, "reporter", p.address);
			store_player_free(&p);
		} else if (ki == -1)
			ref_store_failed(x);
	}
	store_reports_free(rp, n);
	rc = ref_send(x, &x->me, "admin-reports", d, 0, -1, NULL);
	tmpl_data_free(d);
	return rc;
}

int
refadmin_cmd_resolve(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	struct store_report rp;
	struct store_player rep;
	struct store_game g;
	const struct gamedef *def;
	struct tmpl_data *d;
	int rc;

	if ((rc = store_report_load(x->r->store, c->report, &rp)) == -1)
		return -1;
	if (rc == 0 && rp.resolved != 0) {
		store_report_free(&rp);
		rc = 1;
	}
	if (rc == 1)
		return ref_fail(res, _("there is no open report #%lld"),
		    (long long)c->report);
	fx_report_resolve(x, c->report, c->text, x->now);
	/* The report as it is resolved. */
	rp.resolved = x->now;
	rp.resolution = xstrdup(c->text);
	if (ref_must(x, store_player_load(x->r->store, rp.reporter, &rep),
	    "player", rp.reporter) != 0) {
		store_report_free(&rp);
		return -1;
	}
	if (ref_must(x, store_game_load(x->r->store, rp.game, &g), "game",
	    rp.game) != 0) {
		store_player_free(&rep);
		store_report_free(&rp);
		return -1;
	}
	def = gamedef_find(x->r->defs, x->r->ndefs, g.kind);
	d = tmpl_data_new();
	report_data(d, &rp, def ? def->title : g.kind, NULL);
	rc = ref_send(x, &rep, "report-ack", d, 0, -1, NULL);
	tmpl_data_free(d);
	/* Not in the game's history: the players are not told of reports. */
	if (rc == 0)
		log_info("report #%lld resolved by %s", (long long)rp.id,
		    x->me.address);
	if (rc == 0)
		res->note = xasprintf(_("report #%lld closed; its author is told"),
		    (long long)rp.id);
	store_game_free(&g);
	store_player_free(&rep);
	store_report_free(&rp);
	return rc;
}

/* ---- run steps (the command table in refcmd.c; the dispatcher has
 * checked that the sender is an admin and the command confirmed) ---- */

int
refadmin_cmd_new(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct ref_proposal p;

	reflife_proposal(&p, k->c);
	return reflife_propose(x, &p, res);
}

/* admin abort, adjudicate, extend */
/* admin ban, unban */
int
refadmin_cmd_ban(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	int rc;

	if (ref_is_admin(x->r, c->addr))
		return ref_fail(res, _("%s is an admin"), c->addr);
	if ((rc = fx_player_ban(x, c->addr,
	    c->kind == CMD_ADMIN_BAN, x->now)) == -1)
		return -1;
	log_info("%s by %s: %s%s%s", command_name(c->kind),
	    x->me.address, c->addr, c->text ? ": " : "",
	    c->text ? c->text : "");
	res->note = c->kind == CMD_ADMIN_BAN ?
	    xasprintf(_("%s is no longer answered"), c->addr) :
	    xasprintf(_("%s is answered again"), c->addr);
	return REF_OK;
}

static int
timer_invitation(struct ref_msg *x, const struct store_timer *t)
{
	struct play_game g;
	struct ref_result res;
	int rc;

	memset(&res, 0, sizeof(res));
	if ((rc = ref_load(x, t->game, &g, &res)) != REF_OK)
		return rc == REF_TEMP ? -1 : 0;
	rc = 0;
	if (strcmp(g.row.status, "invited") == 0 && g.row.expires <= x->now) {
		rc = reflife_unplayed(x, &g, 0);
	}
	play_free(&g);
	return rc;
}

int
refadmin_timer(struct ref_msg *x, const struct store_timer *t)
{
	struct store_report rp;
	long long id;
	int rc;

	if (strcmp(t->kind, "invitation") == 0)
		return timer_invitation(x, t);
	if (strcmp(t->kind, "report") == 0) {
		if (t->data == NULL || util_parse_int(t->data, 1, INT64_MAX,
		    &id) == -1)
			return 0;
		if ((rc = store_report_load(x->r->store, id, &rp)) != 0)
			return rc == -1 ? -1 : 0;
		rc = rp.resolved ? 0 : mail_admins(x, &rp, 1);
		store_report_free(&rp);
		return rc;
	}
	log_warn("timer %lld of unknown kind %s dropped", (long long)t->id,
	    t->kind);
	return 0;
}
