/*
 * refself: the commands about the sender alone: help, games, list, bump,
 * set (language, notify, name, timezone, public-address) and vacation.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "refint.h"
#include "tz.h"

#ifndef LUDUS_TEMPLATES_DIR
#define LUDUS_TEMPLATES_DIR "templates"
#endif

/* A zone name as the database spells it: "europe/moscow" is
 * Europe/Moscow, "america/new_york" America/New_York (owned). */
static char *
zone_spelling(const char *name)
{
	char *s = xstrdup(name), *c;
	int start = 1;

	for (c = s; *c != '\0'; c++) {
		if (start && *c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
		else if (!start && *c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
		start = *c == '/' || *c == '_' || *c == '-';
	}
	return s;
}

static int
set_timezone(struct ref_msg *x, const char *name, struct ref_result *res)
{
	struct store_player *p = &x->me;
	struct tz *z;
	char err[200], now[64], *spelt = NULL;

	if (util_strcaseeq(name, "utc") || util_strcaseeq(name, "gmt") ||
	    util_strcaseeq(name, "etc/utc")) {
		free(p->timezone);
		p->timezone = NULL;
		res->note = xstrdup(_("times in your mails are in UTC"));
		return REF_OK;
	}
	if (tz_load(name, &z, err, sizeof(err)) == -1) {
		spelt = zone_spelling(name);
		if (strcmp(spelt, name) == 0 || tz_load(spelt, &z, err,
		    sizeof(err)) == -1) {
			free(spelt);
			return ref_fail(res, "%s", err);
		}
		name = spelt;
	}
	tz_format(z, x->now, now, sizeof(now));
	tz_free(z);
	free(p->timezone);
	p->timezone = xstrdup(name);
	res->note = xasprintf(_("deadlines in your mails are now in %s, UTC "
	    "beside them (it is %s there now)"), name, now);
	free(spelt);
	return REF_OK;
}

/* A game's options as help and games show them. */
static void
option_list(struct tmpl_list *l, const struct gamedef *def)
{
	struct tmpl_data *it;
	int i;

	for (i = 0; i < def->nopts; i++) {
		struct buf v = { 0 };

		it = tmpl_list_add(l);
		tmpl_set(it, "name", def->opts[i].name);
		gamedef_opt_values(&def->opts[i], &v);
		tmpl_set(it, "values", buf_str(&v));
		tmpl_set(it, "default", def->opts[i].def);
		tmpl_set(it, "help", _(def->opts[i].help));
		buf_free(&v);
	}
}

/* The help mail's width of a command's form: its text starts here. */
#define HELP_COLUMN	25

/* commands[].line: each command's help line from the table, in the
 * language in effect: the form, then what it does from HELP_COLUMN on
 * (three spaces after a longer form); its further lines under it. */
static void
help_commands(const struct ref_command *table, struct tmpl_list *l)
{
	const struct ref_command *e;
	struct buf b = { 0 };
	const char *u, *t;
	int width;

	for (e = table; e->kind != CMD_NONE; e++) {
		if (e->help_usage == NULL || (e->flags & COMMAND_ADMIN))
			continue;
		u = _(e->help_usage);
		buf_adds(&b, u);
		/* Characters, not bytes: the forms are translated. */
		for (width = 0; *u != '\0'; u++)
			width += ((unsigned char)*u & 0xc0) != 0x80;
		buf_printf(&b, "%*s", width <= HELP_COLUMN - 2 ?
		    HELP_COLUMN - width : 3, "");
		for (t = _(e->help_text); *t != '\0'; t++) {
			buf_addc(&b, *t);
			if (*t == '\n')
				buf_printf(&b, "%*s", HELP_COLUMN + 2, "");
		}
		tmpl_set(tmpl_list_add(l), "line", buf_str(&b));
		buf_reset(&b);
	}
	buf_free(&b);
}

/* help [GAME|TOPIC] */
int
refself_cmd_help(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	const struct gamedef *def = NULL;
	struct tmpl_data *d = tmpl_data_new();
	struct tmpl_list *l;
	struct tmpl_data *it;
	int i, rc;

	if (c->text != NULL && (strcmp(c->text, "robots") == 0 ||
	    strcmp(c->text, "robot") == 0 || strcmp(c->text, "роботы") == 0 ||
	    strcmp(c->text, "робот") == 0)) {
		struct buf b = { 0 };

		tmpl_set(d, "topic.robots", "1");
		tmpl_set(d, "topic.title", "robots");
		config_format_duration(x->r->cfg->robots.budget_ms, &b);
		tmpl_set(d, "robots.budget", buf_str(&b));
		buf_free(&b);
	} else if (c->text != NULL && (def = gamedef_find(x->r->defs,
	    x->r->ndefs, c->text)) == NULL) {
		struct buf names = { 0 };

		for (i = 0; i < x->r->ndefs; i++)
			buf_printf(&names, "%s%s", i ? ", " : "",
			    x->r->defs[i].name);
		ref_fail(res, _("there is no help on `%s`; ask for one of the "
		    "games (%s), for robots, or send `help` alone"), c->text,
		    buf_str(&names));
		buf_free(&names);
		tmpl_data_free(d);
		return REF_FAIL;
	}
	if (def != NULL) {
		tmpl_set(d, "topic.title", _(def->title));
		tmpl_set(d, "topic.name", def->name);
		tmpl_set(d, "topic.summary", _(def->summary));
		tmpl_set(d, "topic.notation", _(def->notation));
		option_list(tmpl_list(d, "topic.options"), def);
	}
	l = tmpl_list(d, "games");
	for (i = 0; i < x->r->ndefs; i++) {
		it = tmpl_list_add(l);
		tmpl_set(it, "name", x->r->defs[i].name);
		tmpl_set(it, "title", _(x->r->defs[i].title));
	}
	help_commands(k->table, tmpl_list(d, "commands"));
	rc = ref_send(x, &x->me, "help", d, 0, -1, NULL);
	tmpl_data_free(d);
	return rc;
}

/* games */
int
refself_cmd_games(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct tmpl_data *d = tmpl_data_new(), *it;
	struct tmpl_list *l = tmpl_list(d, "games");
	int i, j, rc;

	(void)k;
	(void)res;
	for (i = 0; i < x->r->ndefs; i++) {
		const struct gamedef *def = &x->r->defs[i];
		struct buf a = { 0 };

		it = tmpl_list_add(l);
		tmpl_set(it, "name", def->name);
		tmpl_set(it, "title", _(def->title));
		tmpl_set_int(it, "seats", def->seats);
		tmpl_set(it, "summary", _(def->summary));
		for (j = 0; j < def->naliases; j++)
			buf_printf(&a, "%s%s", j ? ", " : "", def->aliases[j]);
		tmpl_set(it, "aliases", buf_str(&a));
		buf_free(&a);
		option_list(tmpl_list(it, "options"), def);
	}
	rc = ref_send(x, &x->me, "games", d, 0, -1, NULL);
	tmpl_data_free(d);
	return rc;
}

/* The other seats' names, "bob, carol". */
static void
opponents(const struct ref_seats *rs, int seat, struct buf *b)
{
	int i;

	for (i = 0; i < rs->n; i++)
		if (i != seat)
			buf_printf(b, "%s%s", b->len ? ", " : "",
			    ref_name(&rs->p[i]));
}

#define LIST_FINISHED	10

/* list, and bump (boards of the games waiting on the sender) */
int
refself_cmd_list(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	int bump = k->c->kind == CMD_BUMP;
	struct tmpl_data *d = tmpl_data_new(), *it;
	struct tmpl_list *you, *others, *inv, *fin;
	struct play_game g;
	struct ref_seats rs;
	struct buf rb = { 0 };
	int64_t *ids = NULL;
	char when[120], err[300];
	int n, i, lr, seat, nfin = 0, nbumped = 0, ninvited = 0, authority;
	int rc = REF_OK;

	if (store_game_ids(x->r->store, x->me.id, &ids, &n) == -1 ||
	    store_player_authority(x->r->store, x->me.id, &authority) == -1) {
		free(ids);
		tmpl_data_free(d);
		return -1;
	}
	you = tmpl_list(d, "waiting_on_you");
	others = tmpl_list(d, "waiting_on_others");
	inv = tmpl_list(d, "invitations");
	fin = tmpl_list(d, "finished");
	tmpl_set_int(d, "player.authority", authority);
	refladder_list(x, d);
	if (refseek_list(x, d) == -1) {
		free(ids);
		tmpl_data_free(d);
		return -1;
	}
	for (i = 0; i < n && rc == REF_OK; i++) {
		/* A game that cannot be read is left out of the list; a
		 * store that fails is no shorter list. */
		if ((lr = play_load(x->r->store, x->r->defs, x->r->ndefs,
		    ids[i], &g, err, sizeof(err))) == -1) {
			rc = -1;
			break;
		}
		if (lr != 0)
			continue;
		if (refview_seats(x, &g, &rs) == -1) {
			play_free(&g);
			rc = -1;
			break;
		}
		seat = play_seat(&g, x->me.address);
		if (strcmp(g.row.status, "active") == 0) {
			uint32_t tm = g.def->ops->to_move(g.st);
			struct buf opp = { 0 };

			opponents(&rs, seat, &opp);
			if (seat >= 0 && (tm & (1u << seat))) {
				it = tmpl_list_add(you);
				ref_utc(g.row.deadline, when, sizeof(when));
				tmpl_set(it, "deadline_utc", g.row.deadline ?
				    when : "none");
				ref_local(&x->me, g.row.deadline, when,
				    sizeof(when));
				tmpl_set(it, "deadline_local", g.row.deadline ?
				    when : "");
				if (bump) {
					struct tmpl_data *bd = refview_game(x,
					    &g, &rs, seat, NULL);

					rc = ref_send(x, &x->me, "board", bd,
					    g.row.id, seat, NULL);
					tmpl_data_free(bd);
					nbumped++;
				}
			} else {
				int t;

				it = tmpl_list_add(others);
				for (t = 0; t < rs.n; t++)
					if (tm & (1u << t))
						break;
				tmpl_set(it, "turn_name", t < rs.n ?
				    ref_name(&rs.p[t]) : "?");
			}
			tmpl_set_int(it, "id", g.row.id);
			tmpl_set(it, "title", _(g.def->title));
			tmpl_set(it, "opponents", buf_str(&opp));
			buf_free(&opp);
		} else if (strcmp(g.row.status, "invited") == 0) {
			struct store_player inviter;

			/* An invitation held back from an unproven
			 * proposer, or one lost: mailed again. */
			if (bump && seat >= 0 && !g.row.accepted[seat]) {
				rc = reflife_invite_again(x, &g, seat);
				ninvited++;
			}
			it = tmpl_list_add(inv);
			tmpl_set_int(it, "id", g.row.id);
			tmpl_set(it, "title", _(g.def->title));
			ref_utc(g.row.expires, when, sizeof(when));
			tmpl_set(it, "expires", when);
			if (g.row.inviter != 0 && (lr = store_player_load(
			    x->r->store, g.row.inviter, &inviter)) == 0) {
				tmpl_set(it, "inviter", ref_name(&inviter));
				store_player_free(&inviter);
			} else {
				if (g.row.inviter != 0 && lr == -1)
					ref_store_failed(x);
				tmpl_set(it, "inviter", _("the admins"));
			}
		} else if (nfin < LIST_FINISHED) {
			it = tmpl_list_add(fin);
			tmpl_set_int(it, "id", g.row.id);
			tmpl_set(it, "title", _(g.def->title));
			refview_result(&g, &rb);
			tmpl_set(it, "result", rb.len ? buf_str(&rb) :
			    refview_status(g.row.status));
			buf_reset(&rb);
			nfin++;
		}
		refview_seats_free(&rs);
		play_free(&g);
	}
	free(ids);
	buf_free(&rb);
	if (rc == REF_OK && !bump)
		rc = ref_send(x, &x->me, "list", d, 0, -1, NULL);
	if (rc == REF_OK && bump) {
		char *boards = nbumped ? xasprintf(P_("%d board sent again",
		    "%d boards sent again", nbumped), nbumped) : ninvited ?
		    NULL : xstrdup(_("no game waits on you"));
		char *invs = ninvited ? xasprintf(P_("%d invitation sent "
		    "again", "%d invitations sent again", ninvited),
		    ninvited) : NULL;

		res->note = boards && invs ? xasprintf("%s; %s", boards,
		    invs) : boards ? xstrdup(boards) : xstrdup(invs);
		free(boards);
		free(invs);
	}
	tmpl_data_free(d);
	return rc;
}

/* Is there a template folder for the language? */
static int
language_known(const struct referee *r, const char *lang)
{
	const char *tdir = getenv("LUDUS_TEMPLATES_DIR");
	char *path;
	int ok;

	if (strcmp(lang, "en") == 0)
		return 1;
	if (!i18n_known(lang))
		return 0;
	if (tdir == NULL || *tdir == '\0')
		tdir = r->cfg->templates_dir ? r->cfg->templates_dir :
		    LUDUS_TEMPLATES_DIR;
	path = xasprintf("%s/%s", tdir, lang);
	ok = access(path, F_OK) == 0;
	free(path);
	return ok;
}

/* What `set language` says, in the language set: its name, not its
 * code, for the languages shipped. */
static char *
language_note(const char *lang)
{
	static const struct {
		const char	*code;
		const char	*note;
	} notes[] = {
		{ "en", N_("mails to you are now in English") },
		{ "ru", N_("mails to you are now in Russian") },
		{ "ar", N_("mails to you are now in Arabic") },
	};
	size_t i;

	for (i = 0; i < nitems(notes); i++)
		if (strcmp(notes[i].code, lang) == 0)
			return xstrdup(_(notes[i].note));
	return xasprintf(_("mails to you are now in %s"), lang);
}

int
refself_cmd_set(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	static const char *const notify[] = { [CMD_NOTIFY_TURN] = "turn",
	    [CMD_NOTIFY_ALL] = "all", [CMD_NOTIFY_OFF] = "off" };
	struct store_player *p = &x->me;

	switch (c->kind) {
	case CMD_SET_LANGUAGE:
		if (!language_known(x->r, c->lang)) {
			/* The languages it can write in here: a shipped one
			 * whose catalogue or templates are missing is none. */
			static const char *const shipped[] = { "en", "ru",
			    "ar" };
			struct buf known = { 0 };
			size_t i;

			for (i = 0; i < nitems(shipped); i++)
				if (language_known(x->r, shipped[i]))
					buf_printf(&known, "%s%s", known.len ?
					    ", " : "", shipped[i]);
			ref_fail(res, _("the referee does not write in `%s`; "
			    "it writes in %s"), c->lang, buf_str(&known));
			buf_free(&known);
			return REF_FAIL;
		}
		free(p->language);
		p->language = xstrdup(c->lang);
		ref_lang(p);
		res->note = language_note(c->lang);
		break;
	case CMD_SET_NOTIFY:
		free(p->notify);
		p->notify = xstrdup(notify[c->notify]);
		res->note = xstrdup(c->notify == CMD_NOTIFY_TURN ?
		    _("you get a mail when it is your turn") :
		    c->notify == CMD_NOTIFY_ALL ?
		    _("you get a mail after every move") :
		    _("you get no move mails; send `list` or `bump` to see "
		    "your games"));
		break;
	case CMD_SET_TIMEZONE:
		if (set_timezone(x, c->text, res) != REF_OK)
			return REF_FAIL;
		break;
	case CMD_SET_PUBLIC_ADDRESS:
		p->public_address = c->yes;
		res->note = xstrdup(c->yes ? _("the club's public pages and "
		    "the open seeks now show your address") : _("the club's "
		    "public pages and the open seeks show your name, not your "
		    "address"));
		break;
	default:
		free(p->name);
		p->name = xstrdup(c->text);
		res->note = xasprintf(_("others now see you as %s"), c->text);
		break;
	}
	return fx_player_update(x, p) == -1 ? -1 : REF_OK;
}

int
refself_cmd_vacation(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	struct tmpl_data *d;
	char when[40];
	int64_t left;
	int rc;

	if ((rc = refclock_vacation(x, c->days, res, &left)) != REF_OK)
		return rc;
	d = tmpl_data_new();
	tmpl_set(d, "vacation.on", c->days > 0 ? "1" : "0");
	tmpl_set_int(d, "vacation.days", c->days);
	ref_utc(x->me.vacation_until, when, sizeof(when));
	tmpl_set(d, "vacation.until", when);
	tmpl_set_int(d, "vacation.left", left);
	rc = ref_send(x, &x->me, "vacation", d, 0, -1, NULL);
	tmpl_data_free(d);
	return rc;
}

/* ---- run steps (the command table in refcmd.c) ---- */

