/*
 * referee: one message in, its commands run in order, answers out.
 *
 * This file holds the message level (who sent it, which commands ran,
 * the reply that says what was done), sending (templates, the subject tag,
 * plus addresses, threading) and the commands about the sender alone:
 * help, games, list, bump, set, vacation.  Game commands live in
 * refgame.c, admin commands, reports and timers in refadmin.c, template
 * data in refview.c.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "compose.h"
#include "log.h"
#include "mailhtml.h"
#include "refint.h"
#include "tz.h"

#ifndef LUDUS_TEMPLATES_DIR
#define LUDUS_TEMPLATES_DIR "templates"
#endif

int
referee_open(struct referee *r, struct store *s, const struct config *cfg,
    const struct gamedef *defs, int ndefs, const char *games_dir,
    const char *secret_path, char *err, size_t errlen)
{
	const char *tdir = getenv("LUDUS_TEMPLATES_DIR");
	char *path;
	int rc;

	memset(r, 0, sizeof(*r));
	r->store = s;
	r->cfg = cfg;
	r->defs = defs;
	r->ndefs = ndefs;
	if (token_secret_load(secret_path, &r->secret, err, errlen) == -1)
		return -1;
	path = xasprintf("%s/commands.yaml", games_dir);
	rc = command_aliases_load(path, &r->aliases, err, errlen);
	free(path);
	if (rc == -1)
		return -1;
	if (tdir == NULL || *tdir == '\0')
		tdir = cfg->templates_dir ? cfg->templates_dir :
		    LUDUS_TEMPLATES_DIR;
	r->tmpl = tmpl_cache_new(tdir);
	return 0;
}

void
referee_close(struct referee *r)
{
	command_aliases_free(r->aliases);
	tmpl_cache_free(r->tmpl);
	OPENSSL_cleanse(&r->secret, sizeof(r->secret));
	r->aliases = NULL;
	r->tmpl = NULL;
}

char *
referee_message_id(const struct config *cfg, const char *key, int n)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen;
	const char *domain = strrchr(cfg->referee.address, '@');
	char hex[2 * 12 + 1];

	EVP_Digest(key, strlen(key), md, &mdlen, EVP_sha256(), NULL);
	util_hex(md, 12, hex);
	return xasprintf("ludus.%s.%d%s", hex, n, domain ? domain : "@ludus");
}

int
referee_queue(struct referee *r, const struct referee_mail *m,
    const char *message_id, int64_t now)
{
	struct compose_mail c;
	struct store_mail row;
	char err[128], *data;
	int rc;

	memset(&c, 0, sizeof(c));
	c.from_name = r->cfg->referee.name;
	c.from = r->cfg->referee.address;
	c.to = m->to;
	c.reply_to = m->reply_to;
	c.subject = m->subject;
	c.message_id = message_id;
	c.in_reply_to = m->in_reply_to;
	c.references = m->references;
	c.auto_submitted = m->auto_submitted;
	c.x_loop = r->cfg->referee.address;
	c.list_unsubscribe = m->list_unsubscribe;
	c.text = m->text;
	c.html = m->html;
	c.date = (time_t)now;
	if ((data = compose_message(&c, err, sizeof(err))) == NULL) {
		/* An address we cannot write to: nothing to queue. */
		log_warn("not queued to %s: %s", m->to, err);
		return 0;
	}
	memset(&row, 0, sizeof(row));
	row.message_id = (char *)message_id;
	row.envelope_from = r->cfg->referee.address;
	row.recipients = (char *)m->to;
	row.data = data;
	row.game = m->game;
	rc = store_outbox_add(r->store, &row, now);
	free(data);
	return rc;
}

static int	fire_one(struct referee *, int64_t);

int
ref_fail(struct ref_result *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
	return REF_FAIL;
}

int
ref_store_failed(struct ref_msg *x)
{
	x->failed = 1;
	return REF_TEMP;
}

int
ref_broken(struct ref_msg *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->cause, sizeof(x->cause), fmt, ap);
	va_end(ap);
	log_err("%s", x->cause);
	return REF_TEMP;
}

int
ref_must(struct ref_msg *x, int rc, const char *what, int64_t id)
{
	if (rc == 1)
		return ref_broken(x, "%s %lld is missing from the database",
		    what, (long long)id);
	return rc == 0 ? 0 : REF_TEMP;
}

void
ref_utc(int64_t t, char *out, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(out, len, "%Y-%m-%d %H:%M UTC", &tm);
}

void
ref_local(const struct store_player *p, int64_t t, char *out, size_t len)
{
	struct tz *z;
	char err[200], when[64];

	*out = '\0';
	if (p->timezone == NULL || tz_load(p->timezone, &z, err,
	    sizeof(err)) == -1)
		return;
	tz_format(z, t, when, sizeof(when));
	tz_free(z);
	snprintf(out, len, "%s (%s)", when, p->timezone);
}

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

const char *
ref_name(const struct store_player *p)
{
	/* A robot is named in the reader's language (its stored name,
	 * "Robot (level 2)", is for the operator's tools). */
	static char robot[4][64];
	int level = refrobot_level(p->address);

	if (level >= 1 && level <= 3) {
		snprintf(robot[level], sizeof(robot[level]),
		    _("Robot (level %d)"), level);
		return robot[level];
	}
	return p->name && *p->name ? p->name : p->address;
}

int
ref_player_name(struct ref_msg *x, int64_t id, struct buf *b)
{
	struct store_player p;

	if (ref_must(x, store_player_load(x->r->store, id, &p), "player",
	    id) != 0)
		return -1;
	buf_adds(b, ref_name(&p));
	store_player_free(&p);
	return 0;
}

int
ref_is_admin(const struct referee *r, const char *addr)
{
	int i;

	for (i = 0; i < r->cfg->referee.admins.n; i++)
		if (util_strcaseeq(r->cfg->referee.admins.v[i], addr))
			return 1;
	return 0;
}

void
ref_seed(struct ref_msg *x, unsigned char seed[RNG_SEED_LEN])
{
	char *ctx = xasprintf("%s/%d", x->key, ++x->nseeds);

	rng_seed_new(seed, ctx);
	free(ctx);
}

/* The id every mail of a game refers to, so each game is one thread.  It
 * carries part of the seed's commitment: two databases that both have a
 * game #5 still make two threads. */
static char *
game_root_id(struct ref_msg *x, int64_t game)
{
	const char *domain = strrchr(x->r->cfg->referee.address, '@');
	struct store_game g;
	char commit[65];
	int rc;

	if ((rc = store_game_load(x->r->store, game, &g)) != 0) {
		if (rc == -1)
			ref_store_failed(x);
		return NULL;
	}
	rng_commitment(g.seed, commit);
	store_game_free(&g);
	commit[12] = '\0';
	return xasprintf("ludus.game.%lld.%s%s", (long long)game, commit,
	    domain ? domain : "@ludus");
}

/* An id we can put in In-Reply-To and References as it is. */
static int
usable_id(const char *id)
{
	return id != NULL && *id != '\0' && strchr(id, '@') != NULL &&
	    strpbrk(id, "<> \t\r\n\"") == NULL && strlen(id) < 250;
}

/* Does the style layer mark anything (a board, a move)? */
static int
has_style(const char *style, size_t len)
{
	size_t i;

	for (i = 0; style != NULL && i < len; i++)
		if (style[i] != 0)
			return 1;
	return 0;
}

/* Queue a rendered mail, the message's n-th; threads it into the game
 * and, for the sender, under the incoming message.  A body whose style
 * layer (one byte per byte of body, or NULL) shows a board or moves gets
 * an HTML alternative made from it. */
static int
queue_now(struct ref_msg *x, const char *to, int to_sender,
    const char *subject, const char *body, const char *style,
    const char *lang, int64_t game, int seat, int notification,
    const char *auto_submitted, int n)
{
	struct mailhtml_opts ho;
	char *html = NULL, *reply_subject;
	const struct config *cfg = x->r->cfg;
	struct referee_mail out;
	struct buf subj = { 0 }, refs = { 0 }, rtl = { 0 };
	char token[TOKEN_LEN + 1], *root = NULL, *id, *reply_to = NULL;
	char *unsubscribe = NULL;
	const char *irt = NULL, *at;
	int i, rc;

	memset(&out, 0, sizeof(out));
	if (game != 0) {
		if (seat >= 0) {
			token_make(&x->r->secret, game, seat, token);
			buf_printf(&subj, "[%s #%lld %s] ", cfg->referee.tag,
			    (long long)game, token);
			at = strrchr(cfg->referee.address, '@');
			if (cfg->referee.plus_addressing && at != NULL)
				reply_to = xasprintf("%.*s+%lld.%s%s",
				    (int)(at - cfg->referee.address),
				    cfg->referee.address, (long long)game,
				    token, at);
		} else
			buf_printf(&subj, "[%s #%lld] ", cfg->referee.tag,
			    (long long)game);
		if ((root = game_root_id(x, game)) != NULL) {
			buf_adds(&refs, root);
			irt = root;
		}
	}
	/* Right to left: in the plain text (and the subject) boards,
	 * notation and addresses are isolated as left-to-right runs
	 * (i18n_bidi_text); the HTML part says so with dir attributes. */
	if (i18n_rtl(lang))
		i18n_bidi_text(subject, &subj);
	else
		buf_adds(&subj, subject);
	/* A notification of a move says how to stop them: a mail whose
	 * subject is the command (a player keeps the mails of their turn). */
	if (notification && game != 0)
		unsubscribe = seat >= 0 ?
		    xasprintf("mailto:%s?subject=set%%20notify%%20turn",
		    cfg->referee.address) :
		    xasprintf("mailto:%s?subject=unobserve%%20%%23%lld",
		    cfg->referee.address, (long long)game);
	if (to_sender && x->m != NULL) {
		const struct mail_msg *m = x->m;

		for (i = m->references.n > 8 ? m->references.n - 8 : 0;
		    i < m->references.n; i++)
			if (usable_id(m->references.v[i]) && (root == NULL ||
			    strcmp(root, m->references.v[i]) != 0))
				buf_printf(&refs, "%s%s", refs.len ? " " : "",
				    m->references.v[i]);
		if (usable_id(m->message_id)) {
			buf_printf(&refs, "%s%s", refs.len ? " " : "",
			    m->message_id);
			irt = m->message_id;
		}
	}
	id = referee_message_id(cfg, x->key, n);
	if (has_style(style, strlen(body))) {
		memset(&ho, 0, sizeof(ho));
		reply_subject = xasprintf("Re: %s", buf_str(&subj));
		ho.lang = lang;
		ho.title = buf_str(&subj);
		ho.reply_to = reply_to ? reply_to : cfg->referee.address;
		ho.reply_subject = reply_subject;
		html = mailhtml_render(body, style, &ho);
		free(reply_subject);
	}
	if (i18n_rtl(lang)) {
		i18n_bidi_text(body, &rtl);
		body = buf_str(&rtl);
	}
	out.to = to;
	out.reply_to = reply_to;
	out.subject = buf_str(&subj);
	out.text = body;
	out.html = html;
	out.in_reply_to = irt;
	out.references = refs.len ? buf_str(&refs) : NULL;
	/* RFC 3834: an answer to the sender's own mail is auto-replied; a
	 * mail to anyone else (an opponent's move, an invitation) is
	 * auto-generated. */
	out.auto_submitted = auto_submitted ? auto_submitted : to_sender ?
	    "auto-replied" : "auto-generated";
	out.list_unsubscribe = unsubscribe;
	out.game = game;
	rc = referee_queue(x->r, &out, id, x->now);
	free(id);
	free(html);
	free(root);
	free(reply_to);
	free(unsubscribe);
	buf_free(&subj);
	buf_free(&refs);
	buf_free(&rtl);
	return rc;
}

/* Queue a mail, or hold it while a message is handled.  Its number is
 * taken now either way, so Message-IDs do not depend on holding. */
static int
queue_mail(struct ref_msg *x, const char *to, int to_sender, int part,
    const char *subject, const char *body, const char *style,
    const char *lang, int64_t game, int seat, int notification,
    const char *auto_submitted)
{
	struct ref_out *o;
	size_t len = strlen(body);

	if (to_sender)
		x->answered = 1;
	if (!x->holding)
		return queue_now(x, to, to_sender, subject, body, style, lang,
		    game, seat, notification, auto_submitted, ++x->nout);
	x->outs = xreallocarray(x->outs, (size_t)x->nouts + 1,
	    sizeof(*x->outs));
	o = &x->outs[x->nouts++];
	o->to = xstrdup(to);
	o->to_sender = to_sender;
	o->part = part;
	o->subject = xstrdup(subject);
	o->body = xstrdup(body);
	o->style = xcalloc(len + 1, 1);
	if (style != NULL)
		memcpy(o->style, style, len);
	o->lang = xstrdup(lang);
	o->game = game;
	o->seat = seat;
	o->notification = notification;
	o->auto_submitted = auto_submitted;
	o->n = ++x->nout;
	return 0;
}

/* Forget the held mails after the first n (a command undone). */
static void
outs_drop(struct ref_msg *x, int n)
{
	while (x->nouts > n) {
		struct ref_out *o = &x->outs[--x->nouts];

		free(o->to);
		free(o->subject);
		free(o->body);
		free(o->style);
		free(o->lang);
	}
}

/* What kind of part of an answer a template makes. */
static int
tmpl_part(const char *tmplname)
{
	static const char *const info[] = { "help", "games", "list",
	    "aside", "seeks" };
	size_t i;

	if (strcmp(tmplname, "error") == 0)
		return REF_PART_ERROR;
	for (i = 0; i < nitems(info); i++)
		if (strcmp(tmplname, info[i]) == 0)
			return REF_PART_INFO;
	return REF_PART_PLAIN;
}

/* Render LANG/NAME: subject, body and the body's style layer (owned). */
static int
render(struct ref_msg *x, const char *lang, const char *tmplname,
    struct tmpl_data *d, char **subject, char **body, char **style)
{
	const struct tmpl *t;
	char err[512];

	tmpl_set(d, "referee.address", x->r->cfg->referee.address);
	if ((t = tmpl_cache_get(x->r->tmpl, lang, tmplname, err,
	    sizeof(err))) == NULL) {
		/* A broken installation: keep the message for a retry once
		 * the templates are fixed rather than lose it. */
		log_err("template %s/%s: %s", lang, tmplname, err);
		return -1;
	}
	if (tmpl_render_styled(t, d, 0, subject, body, style, err,
	    sizeof(err)) == -1) {
		log_err("%s", err);
		return -1;
	}
	return 0;
}

static int
render_send(struct ref_msg *x, const char *to, const char *lang,
    int to_sender, const char *tmplname, struct tmpl_data *d, int64_t game,
    int seat, const char *auto_submitted)
{
	char *subject, *body, *style;
	int rc;

	if (render(x, lang, tmplname, d, &subject, &body, &style) == -1)
		return -1;
	rc = queue_mail(x, to, to_sender, tmpl_part(tmplname), subject, body,
	    style, lang, game, seat, strcmp(tmplname, "move") == 0,
	    auto_submitted);
	free(subject);
	free(body);
	free(style);
	return rc;
}

void
ref_lang(const struct store_player *p)
{
	i18n_set(p != NULL && p->language != NULL ? p->language : "en");
}

int
ref_send(struct ref_msg *x, const struct store_player *to,
    const char *tmplname, struct tmpl_data *d, int64_t game, int seat,
    const char *auto_submitted)
{
	char was[16];
	int rc;

	/* A banned address and a robot get nothing from the referee. */
	if (to->banned || refrobot_level(to->address))
		return 0;
	tmpl_set(d, "player.name", ref_name(to));
	util_strlcpy(was, i18n_lang(), sizeof(was));
	ref_lang(to);
	rc = render_send(x, to->address, to->language ? to->language : "en",
	    x->me.id != 0 && to->id == x->me.id, tmplname, d, game, seat,
	    auto_submitted);
	i18n_set(was);
	return rc;
}

int
ref_send_addr(struct ref_msg *x, const char *addr, const char *tmplname,
    struct tmpl_data *d, int64_t game)
{
	struct store_player p;
	int rc;

	if (store_player_find(x->r->store, addr, &p) == 0) {
		rc = ref_send(x, &p, tmplname, d, game, -1, NULL);
		store_player_free(&p);
		return rc;
	}
	/* Not a player: the club's language. */
	tmpl_set(d, "player.name", addr);
	{
		static const char *const code[] = { [CONFIG_LANG_EN] = "en",
		    [CONFIG_LANG_RU] = "ru", [CONFIG_LANG_AR] = "ar" };
		char was[16];

		util_strlcpy(was, i18n_lang(), sizeof(was));
		i18n_set(code[x->r->cfg->referee.language]);
		rc = render_send(x, addr, code[x->r->cfg->referee.language], 0,
		    tmplname, d, game, -1, NULL);
		i18n_set(was);
	}
	return rc;
}

int
ref_load(struct ref_msg *x, int64_t id, struct play_game *g,
    struct ref_result *res)
{
	char err[300];
	int rc;

	res->game = id;
	rc = play_load(x->r->store, x->r->defs, x->r->ndefs, id, g, err,
	    sizeof(err));
	if (rc == 1)
		return ref_fail(res, _("there is no game #%lld"), (long long)id);
	if (rc == -1)
		return REF_TEMP;
	if (rc != 0)
		/* Not the sender's fault, and no answer would be true: the
		 * message waits, quarantined, for the game to be mended. */
		return ref_broken(x, "game #%lld cannot be read: %s",
		    (long long)id, err);
	return REF_OK;
}

/* Does the topmost Authentication-Results, from our own MTA, say the
 * From domain passed DMARC? */
static int
dmarc_pass(const struct referee *r, const struct mail_msg *m)
{
	const char *id = r->cfg->auth.trust_authserv_id, *at;

	if (id == NULL || m->auth_serv_id == NULL || m->dmarc == NULL ||
	    m->dmarc_from == NULL || m->from == NULL)
		return 0;
	at = strrchr(m->from, '@');
	return util_strcaseeq(m->auth_serv_id, id) &&
	    strcmp(m->dmarc, "pass") == 0 && at != NULL &&
	    util_strcaseeq(at + 1, m->dmarc_from);
}

int
ref_seat_auth(struct ref_msg *x, const struct play_game *g,
    struct ref_result *res)
{
	const struct mail_msg *m = x->m;
	int seat = play_seat(g, x->me.address);

	if (seat < 0)
		return ref_fail(res, _("you have no seat in game #%lld"),
		    (long long)g->row.id), -1;
	if (x->dmarc)
		return seat;
	if (m != NULL && m->tag_game == g->row.id && !m->tag_conflict &&
	    m->tag_token[0] != '\0' && token_check(&x->r->secret, g->row.id,
	    seat, m->tag_token))
		return seat;
	res->auth = 1;
	ref_fail(res, _("this needs your seat's reply token for game #%lld, "
	    "and this mail has %s"), (long long)g->row.id,
	    m == NULL || m->tag_token[0] == '\0' ? _("none") :
	    m->tag_game != g->row.id ? _("the token of another game") :
	    _("a token that is not yours"));
	return -1;
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

/* help [GAME|TOPIC] */
static int
cmd_help(struct ref_msg *x, const struct command *c, struct ref_result *res)
{
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
	rc = ref_send(x, &x->me, "help", d, 0, -1, NULL);
	tmpl_data_free(d);
	return rc;
}

/* games */
static int
cmd_games(struct ref_msg *x, struct ref_result *res)
{
	struct tmpl_data *d = tmpl_data_new(), *it;
	struct tmpl_list *l = tmpl_list(d, "games");
	int i, j, rc;

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
static int
cmd_list(struct ref_msg *x, int bump, struct ref_result *res)
{
	struct tmpl_data *d = tmpl_data_new(), *it;
	struct tmpl_list *you, *others, *inv, *fin;
	struct play_game g;
	struct ref_seats rs;
	struct buf rb = { 0 };
	int64_t *ids = NULL;
	char when[120], err[300];
	int n, i, k, seat, nfin = 0, nbumped = 0, authority, rc = REF_OK;

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
	for (i = 0; i < n && rc == REF_OK; i++) {
		/* A game that cannot be read is left out of the list; a
		 * store that fails is no shorter list. */
		if ((k = play_load(x->r->store, x->r->defs, x->r->ndefs,
		    ids[i], &g, err, sizeof(err))) == -1) {
			rc = -1;
			break;
		}
		if (k != 0)
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
					    &g, &rs, seat);

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

			it = tmpl_list_add(inv);
			tmpl_set_int(it, "id", g.row.id);
			tmpl_set(it, "title", _(g.def->title));
			ref_utc(g.row.expires, when, sizeof(when));
			tmpl_set(it, "expires", when);
			if (g.row.inviter != 0 && (k = store_player_load(
			    x->r->store, g.row.inviter, &inviter)) == 0) {
				tmpl_set(it, "inviter", ref_name(&inviter));
				store_player_free(&inviter);
			} else {
				if (g.row.inviter != 0 && k == -1)
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
	if (rc == REF_OK && bump)
		res->note = nbumped ? xasprintf(P_("%d board sent again",
		    "%d boards sent again", nbumped), nbumped) :
		    xstrdup(_("no game waits on you"));
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

static int
cmd_set(struct ref_msg *x, const struct command *c, struct ref_result *res)
{
	static const char *const notify[] = { [CMD_NOTIFY_TURN] = "turn",
	    [CMD_NOTIFY_ALL] = "all", [CMD_NOTIFY_OFF] = "off" };
	struct store_player *p = &x->me;

	switch (c->kind) {
	case CMD_SET_LANGUAGE:
		if (!language_known(x->r, c->lang))
			return ref_fail(res, _("the referee does not write in "
			    "`%s`; it knows en, ru and ar"), c->lang);
		free(p->language);
		p->language = xstrdup(c->lang);
		ref_lang(p);
		res->note = xasprintf(_("mails to you are now in %s"), c->lang);
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
		res->note = xstrdup(c->yes ? _("the club's public pages now "
		    "show your address") : _("the club's public pages show "
		    "your name, not your address"));
		break;
	default:
		free(p->name);
		p->name = xstrdup(c->text);
		res->note = xasprintf(_("others now see you as %s"), c->text);
		break;
	}
	return store_player_update(x->r->store, p) == -1 ? -1 : REF_OK;
}

static int
cmd_vacation(struct ref_msg *x, const struct command *c,
    struct ref_result *res)
{
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

int
ref_run_line(struct ref_msg *x, const char *line, struct ref_result *res)
{
	struct command c;
	char err[600];
	int rc, from_tag = 0;

	if (command_parse(x->r->aliases, line, &c, err, sizeof(err)) == -1) {
		if (c.kind == CMD_NONE)
			ref_fail(res, _("%s; send `help` for the commands"), err);
		else
			ref_fail(res, _("%s (write it as `%s`)"), err,
			    command_usage(c.kind));
		command_free(&c);
		return REF_FAIL;
	}
	if (command_game_scoped(c.kind) && c.game == 0 && x->m != NULL) {
		c.game = x->m->tag_game;
		from_tag = 1;
	}
	switch (c.kind) {
	case CMD_HELP:
		rc = cmd_help(x, &c, res);
		break;
	case CMD_GAMES:
		rc = cmd_games(x, res);
		break;
	case CMD_LIST:
		rc = cmd_list(x, 0, res);
		break;
	case CMD_BUMP:
		rc = cmd_list(x, 1, res);
		break;
	case CMD_SET_LANGUAGE:
	case CMD_SET_NOTIFY:
	case CMD_SET_NAME:
	case CMD_SET_TIMEZONE:
	case CMD_SET_PUBLIC_ADDRESS:
		rc = cmd_set(x, &c, res);
		break;
	case CMD_VACATION:
		rc = cmd_vacation(x, &c, res);
		break;
	case CMD_NEW:
		rc = refgame_new(x, &c, 0, res);
		break;
	case CMD_REPORT:
		rc = refadmin_report(x, &c, res);
		break;
	case CMD_CONFIRM:
		rc = refadmin_confirm(x, &c, res);
		break;
	case CMD_ADMIN_NEW:
	case CMD_ADMIN_ABORT:
	case CMD_ADMIN_ADJUDICATE:
	case CMD_ADMIN_EXTEND:
	case CMD_ADMIN_BAN:
	case CMD_ADMIN_UNBAN:
	case CMD_ADMIN_REPORTS:
	case CMD_ADMIN_RESOLVE:
	case CMD_ADMIN_LADDER_CREATE:
	case CMD_ADMIN_LADDER_CLOSE:
	case CMD_ADMIN_LADDER_REMOVE:
	case CMD_ADMIN_LADDER_ADJUST:
		rc = refadmin_run(x, &c, line, res);
		break;
	case CMD_LADDER:
	case CMD_LADDER_JOIN:
	case CMD_LADDER_LEAVE:
	case CMD_CHALLENGE:
		rc = refladder_run(x, &c, res);
		break;
	case CMD_SEEK:
	case CMD_SEEKS:
		rc = refseek_run(x, &c, line, res);
		break;
	default:
		/* accept #ID and decline #ID of a seek; a game's otherwise. */
		if ((c.kind == CMD_ACCEPT || c.kind == CMD_DECLINE) &&
		    c.game != 0 && !from_tag && (rc = refseek_answer(x, &c,
		    line, res)) != REF_NOSEEK)
			break;
		if (c.implicit && c.game == 0)
			rc = ref_fail(res, _("`%.60s` is not a command; send "
			    "`help` for the commands"), line);
		else if (c.game == 0)
			rc = ref_fail(res, _("which game? Write #ID after `%s`, "
			    "or reply to a mail of the game"), command_name(
			    c.kind));
		else
			rc = refgame_run(x, &c, from_tag, res);
		break;
	}
	command_free(&c);
	return rc;
}

/* Does the message prove its sender: a trusted DMARC pass, or the reply
 * token of the sender's own seat in the game it answers? */
static int
sender_proven(struct ref_msg *x)
{
	const struct mail_msg *m = x->m;
	struct play_game g;
	char err[300];
	int seat, ok;

	if (x->dmarc)
		return 1;
	if (m->tag_game == 0 || m->tag_conflict || m->tag_token[0] == '\0')
		return 0;
	if ((ok = play_load(x->r->store, x->r->defs, x->r->ndefs,
	    m->tag_game, &g, err, sizeof(err))) != 0)
		return ok == -1 ? -1 : 0;
	seat = play_seat(&g, x->me.address);
	ok = seat >= 0 && token_check(&x->r->secret, g.row.id, seat,
	    m->tag_token);
	play_free(&g);
	return ok;
}

/* The DMARC result our own MTA gave the mail: pass, fail or none.  Only
 * these three, so that a sender cannot make up new ones. */
static const char *
dmarc_result(const struct referee *r, const struct mail_msg *m)
{
	const char *id = r->cfg->auth.trust_authserv_id;

	if (id == NULL || m->auth_serv_id == NULL || m->dmarc == NULL ||
	    !util_strcaseeq(m->auth_serv_id, id))
		return "none";
	if (strcmp(m->dmarc, "pass") == 0 || strcmp(m->dmarc, "fail") == 0)
		return m->dmarc;
	return "none";
}

/* The name the replies table counts the sender's answers of a kind under
 * (owned).  Mail that does not prove its sender is counted apart, by its
 * DMARC result: forged mail in someone's name cannot use up the
 * allowance of the real holder of the address. */
static char *
reply_key(const struct ref_msg *x, const char *kind)
{
	if (x->proven)
		return xasprintf("%s%s", kind, x->me.address);
	return xasprintf("%s%s dmarc=%s", kind, x->me.address,
	    dmarc_result(x->r, x->m));
}

/* May one more answer of a kind (limit an hour) go to the sender now?
 * Counts it when so.  When it is the last one allowed, *until is when the
 * next will be (else 0). */
static int
reply_allowed(struct ref_msg *x, const char *kind, int limit, int *allowed,
    int64_t *until)
{
	char *key = reply_key(x, kind);
	int64_t oldest;
	int n, rc = -1;

	*allowed = 0;
	*until = 0;
	if (store_reply_count(x->r->store, key, x->now - 3600, &n) == -1)
		goto out;
	if (n < limit) {
		*allowed = 1;
		if (store_reply_add(x->r->store, key, x->now) == -1)
			goto out;
		if (n + 1 == limit) {
			if (store_reply_oldest(x->r->store, key, x->now - 3600,
			    &oldest) == -1)
				goto out;
			/* The oldest stops counting when it is more than an
			 * hour old: from the next whole minute on. */
			*until = (oldest + 3600) / 60 * 60 + 60;
		}
	}
	rc = 0;
out:
	free(key);
	return rc;
}

/* At most this many set-aside lines are quoted back. */
#define ASIDE_SHOWN	5

/* aside[] (the lines set aside, as written, the first few) and
 * aside_more (how many more, "" for none). */
static void
aside_list(struct tmpl_data *d, const struct mail_strv *lines,
    const char *aside)
{
	struct tmpl_list *l = tmpl_list(d, "aside");
	int i, n = 0;

	for (i = 0; lines != NULL && aside != NULL && i < lines->n; i++)
		if (aside[i] && n++ < ASIDE_SHOWN)
			tmpl_list_add_str(l, lines->v[i]);
	if (n > ASIDE_SHOWN)
		tmpl_set_int(d, "aside_more", n - ASIDE_SHOWN);
	else
		tmpl_set(d, "aside_more", "");
}

/* The answer part that says what failed (and what was done before). */
static int
error_reply(struct ref_msg *x, const struct mail_strv *lines, int failed,
    const char *aside, const struct ref_result *res, const char *parse_error,
    int *sent)
{
	struct tmpl_data *d;
	struct tmpl_list *l;
	struct play_game g;
	char err[300], when[40];
	int64_t game = 0, until;
	int i, allowed, rc, seat = -1;

	*sent = 0;
	if (reply_allowed(x, "", (int)x->r->cfg->limits.error_replies,
	    &allowed, &until) == -1)
		return -1;
	if (!allowed)
		return 0;
	d = tmpl_data_new();
	l = tmpl_list(d, "applied");
	for (i = 0; i < failed; i++)
		if (!aside[i])
			tmpl_list_add_str(l, lines->v[i]);
	aside_list(d, lines, aside);
	if (parse_error) {
		tmpl_set(d, "error.line", _("(your message)"));
		tmpl_set(d, "error.why", parse_error);
	} else {
		tmpl_set(d, "error.line", lines->v[failed]);
		tmpl_set(d, "error.why", res->why);
	}
	if (res != NULL && res->auth)
		tmpl_set(d, "error.auth", "1");
	/* The last error answered this hour says so, and until when. */
	ref_utc(until, when, sizeof(when));
	tmpl_set(d, "error.quiet_until", until ? when : "");
	l = tmpl_list(d, "not_tried");
	for (i = failed + 1; lines && i < lines->n; i++)
		tmpl_list_add_str(l, lines->v[i]);
	if (x->m != NULL && x->m->commands_truncated)
		tmpl_set_int(d, "truncated", x->r->cfg->limits.commands);
	if (res != NULL && res->game != 0 && (rc = play_load(x->r->store,
	    x->r->defs, x->r->ndefs, res->game, &g, err, sizeof(err))) == -1) {
		tmpl_data_free(d);
		return -1;
	}
	if (res != NULL && res->game != 0 && rc == 0) {
		tmpl_setf(d, "game.id", "%lld", (long long)g.row.id);
		tmpl_set(d, "game.title", _(g.def->title));
		if (res->legal_seat >= 0 &&
		    strcmp(g.row.status, "active") == 0)
			refview_legal(d, &g, res->legal_seat);
		/* The answer goes to the sender's own address: when that is
		 * a seat, its tag lets a corrected reply go straight in. */
		game = g.row.id;
		seat = play_seat(&g, x->me.address);
		play_free(&g);
	}
	rc = ref_send(x, &x->me, "error", d, game, seat, NULL);
	tmpl_data_free(d);
	*sent = rc == 0;
	return rc;
}

/* The sender's seat in a game, or -1; -2 when the store fails. */
static int
sender_seat(struct ref_msg *x, int64_t game)
{
	struct play_game g;
	char err[300];
	int seat;

	if (game == 0)
		return -1;
	if ((seat = play_load(x->r->store, x->r->defs, x->r->ndefs, game,
	    &g, err, sizeof(err))) != 0)
		return seat == -1 ? -2 : -1;
	seat = play_seat(&g, x->me.address);
	play_free(&g);
	return seat;
}

/* The answer part for commands that had no answer of their own, lines
 * set aside, and commands dropped over the limit. */
static int
done_reply(struct ref_msg *x, const struct mail_strv *lines, char **notes,
    const char *aside, int64_t game)
{
	struct tmpl_data *d = tmpl_data_new(), *it;
	struct tmpl_list *l = tmpl_list(d, "done");
	int i, rc, seat;

	for (i = 0; i < lines->n; i++) {
		if (notes[i] == NULL)
			continue;
		it = tmpl_list_add(l);
		tmpl_set(it, "line", lines->v[i]);
		tmpl_set(it, "note", notes[i]);
	}
	aside_list(d, lines, aside);
	if (x->m != NULL && x->m->commands_truncated)
		tmpl_set_int(d, "truncated", x->r->cfg->limits.commands);
	tmpl_set(d, "info_quiet_until", "");
	/* When the commands were about a game the sender plays, the answer
	 * carries its tag, so a reply to it goes on in that game. */
	if ((seat = sender_seat(x, game)) == -2) {
		tmpl_data_free(d);
		return -1;
	}
	rc = ref_send(x, &x->me, "done", d, seat >= 0 ? game : 0, seat, NULL);
	tmpl_data_free(d);
	return rc;
}

/* The answer to a reply to a game that held remarks only: what was set
 * aside, and how to play when it is the sender's turn. */
static int
aside_reply(struct ref_msg *x, const struct mail_strv *lines,
    const char *aside, int64_t game)
{
	struct tmpl_data *d = tmpl_data_new();
	struct play_game g;
	char err[300];
	int rc, seat = -1;

	aside_list(d, lines, aside);
	tmpl_set(d, "turn.you", "0");
	tmpl_set(d, "example_move", "");
	tmpl_list(d, "legal");
	if (play_load(x->r->store, x->r->defs, x->r->ndefs, game, &g, err,
	    sizeof(err)) != 0) {
		/* It was there a moment ago, as the lines were read. */
		tmpl_data_free(d);
		return -1;
	}
	tmpl_setf(d, "game.id", "%lld", (long long)g.row.id);
	tmpl_set(d, "game.title", g.def->title);
	tmpl_set(d, "game.name", g.def->name);
	seat = play_seat(&g, x->me.address);
	if (seat >= 0 && strcmp(g.row.status, "active") == 0 &&
	    (g.def->ops->to_move(g.st) & (1u << seat))) {
		tmpl_set(d, "turn.you", "1");
		refview_legal(d, &g, seat);
	}
	rc = ref_send(x, &x->me, "aside", d, g.row.id, seat, NULL);
	play_free(&g);
	tmpl_data_free(d);
	return rc;
}

/* The last answer to help, games and list for the hour says until when
 * they go unanswered: a part of its own. */
static int
info_notice(struct ref_msg *x, int64_t until)
{
	struct tmpl_data *d = tmpl_data_new();
	char when[40];
	int rc;

	tmpl_list(d, "done");
	tmpl_list(d, "aside");
	tmpl_set(d, "aside_more", "");
	ref_utc(until, when, sizeof(when));
	tmpl_set(d, "info_quiet_until", when);
	rc = ref_send(x, &x->me, "done", d, 0, -1, NULL);
	tmpl_data_free(d);
	return rc;
}

/* Append text to an answer's body b and its style (NULL: plain) to st,
 * which stays as long as b. */
static void
answer_add(struct buf *b, struct buf *st, const char *text,
    const char *style)
{
	size_t i, n = strlen(text);

	buf_add(b, text, n);
	for (i = 0; i < n; i++)
		buf_addc(st, style != NULL ? style[i] : 0);
}

/* Before a part for a seat of another game than the answer's tag: a
 * reply to the answer plays in the tag's game, not in that one. */
static int
elsewhere_note(struct ref_msg *x, const struct ref_out *o,
    const struct ref_out *head, struct buf *b, struct buf *st)
{
	struct tmpl_data *d;
	char *subject, *body, *style;
	int rc;

	if (o->game == 0 || o->seat < 0 || head->game == 0 || head->seat < 0 ||
	    o->game == head->game)
		return 0;
	d = tmpl_data_new();
	tmpl_setf(d, "game.id", "%lld", (long long)o->game);
	tmpl_setf(d, "answer.game", "%lld", (long long)head->game);
	rc = render(x, x->me.language ? x->me.language : "en", "elsewhere",
	    d, &subject, &body, &style);
	tmpl_data_free(d);
	if (rc == -1)
		return -1;
	answer_add(b, st, body, style);
	answer_add(b, st, "\n", NULL);
	free(subject);
	free(body);
	free(style);
	return 0;
}

/* Which part of an answer gives it its subject and tag: an error, else
 * a mail that carries a seat's tag, else the first. */
static int
part_rank(const struct ref_out *o)
{
	if (o->part == REF_PART_ERROR)
		return 2;
	return o->game != 0 && o->seat >= 0;
}

/* A part's body without its greeting, which has no place in the middle
 * of an answer: a first paragraph of one short line that names the
 * reader ("Hello ann@example.org,", in any language). */
static const char *
without_greeting(const char *body, const char *name)
{
	size_t len = strcspn(body, "\n");
	char *line;
	int greeting;

	if (strncmp(body + len, "\n\n", 2) != 0 || len > 100)
		return body;
	line = xstrndup(body, len);
	greeting = strstr(line, name) != NULL;
	free(line);
	if (!greeting)
		return body;
	body += len + 1;
	while (*body == '\n')
		body++;
	return body;
}

/*
 * Queue the held mails in order.  Those to the sender go as one answer,
 * at the place and with the number of the first: the subject and tag of
 * its most important part (part_rank), that part's body, then the body of
 * every other part that is not the same as one before.  help, games, list
 * and the answer to remarks are left out past limits.info_replies.
 */
static int
answer_queue(struct ref_msg *x)
{
	struct buf body = { 0 }, style = { 0 };
	const char *part;
	struct ref_out *o, *head = NULL;
	int i, j, first = -1, info = 0, info_ok = 1, dup, rc = 0;
	char *in;
	int64_t until = 0;

	for (i = 0; i < x->nouts; i++)
		info |= x->outs[i].to_sender &&
		    x->outs[i].part == REF_PART_INFO;
	/* Answers to help, games, list and remarks only are never errors,
	 * and a forged From must not make them a flood: a cap of their own. */
	if (info && reply_allowed(x, "info:",
	    (int)x->r->cfg->limits.info_replies, &info_ok, &until) == -1)
		return -1;
	if (until != 0 && info_notice(x, until) == -1)
		return -1;
	/* in[i]: the i-th held mail is a part of the answer. */
	in = xcalloc((size_t)x->nouts + 1, 1);
	for (i = 0; i < x->nouts; i++) {
		o = &x->outs[i];
		if (!o->to_sender || (o->part == REF_PART_INFO && !info_ok))
			continue;
		in[i] = 1;
		if (first < 0)
			first = i;
		if (head == NULL || part_rank(o) > part_rank(head))
			head = o;
	}
	if (head != NULL)
		answer_add(&body, &style, head->body, head->style);
	for (i = 0; head != NULL && i < x->nouts; i++) {
		o = &x->outs[i];
		if (!in[i] || o == head)
			continue;
		dup = strcmp(o->body, head->body) == 0;
		for (j = 0; j < i && !dup; j++)
			dup = in[j] && strcmp(o->body, x->outs[j].body) == 0;
		if (dup)
			continue;
		if (body.len > 0 && buf_str(&body)[body.len - 1] != '\n')
			answer_add(&body, &style, "\n", NULL);
		answer_add(&body, &style, "\n* * *\n\n", NULL);
		if (elsewhere_note(x, o, head, &body, &style) == -1) {
			rc = -1;
			break;
		}
		part = without_greeting(o->body, ref_name(&x->me));
		answer_add(&body, &style, part, o->style + (part - o->body));
	}
	for (i = 0; i < x->nouts && rc == 0; i++) {
		o = &x->outs[i];
		if (!o->to_sender)
			rc = queue_now(x, o->to, 0, o->subject, o->body,
			    o->style, o->lang, o->game, o->seat,
			    o->notification, o->auto_submitted, o->n);
		else if (i == first)
			rc = queue_now(x, head->to, 1, head->subject,
			    buf_str(&body), style.s, head->lang, head->game,
			    head->seat, head->notification,
			    head->auto_submitted, o->n);
	}
	free(in);
	buf_free(&body);
	buf_free(&style);
	return rc;
}

int
referee_handle(struct referee *r, const struct mail_msg *m, const char *key,
    const char *parse_error, int64_t now, char **outcome)
{
	struct ref_msg x;
	struct ref_result res;
	const struct mail_strv *lines = &m->commands;
	char **notes = NULL, *aside = NULL, setaside[40] = "";
	int64_t pid;
	int i, rc = -1, nout, nouts, failed = -1, sent = 0, unanswered = 0;
	int applied = 0, naside = 0;
	int64_t done_game = 0, aside_game = 0;

	*outcome = NULL;
	if (m->from == NULL) {
		*outcome = xstrdup("ignored: no sender address");
		return 0;
	}
	memset(&x, 0, sizeof(x));
	memset(&res, 0, sizeof(res));
	res.legal_seat = -1;
	x.r = r;
	x.m = m;
	x.key = key;
	x.now = now;
	if (ref_player_make(&x, m->from, &pid) == -1 ||
	    store_player_load(r->store, pid, &x.me) != 0)
		return -1;
	/* Everything said to the sender (errors, notes) is in their
	 * language; mails to others switch for each reader. */
	ref_lang(&x.me);
	x.dmarc = dmarc_pass(r, m);
	/* What fell due before this message happens before it: a move that
	 * comes after the deadline finds the game lost on time. */
	while ((rc = fire_one(r, now)) == 1)
		;
	x.holding = 1;
	if ((x.proven = sender_proven(&x)) == -1) {
		rc = -1;
		goto out;
	}
	if (rc == -1 || (rc = refladder_configured(&x)) == -1)
		goto out;
	rc = -1;
	if (parse_error != NULL || lines->n == 0) {
		if (error_reply(&x, NULL, 0, NULL, NULL, parse_error ?
		    _(parse_error) : _("the message holds no command"),
		    &sent) == -1 || answer_queue(&x) == -1)
			goto out;
		*outcome = xasprintf("unreadable; %s", sent ? "error reply "
		    "queued" : "error reply rate-limited");
		rc = 0;
		goto out;
	}
	notes = xcalloc((size_t)lines->n, sizeof(*notes));
	aside = xcalloc((size_t)lines->n, 1);
	for (i = 0; i < lines->n; i++) {
		memset(&res, 0, sizeof(res));
		res.legal_seat = -1;
		nout = x.nout;
		nouts = x.nouts;
		if (store_savepoint(r->store) == -1)
			goto out;
		if ((rc = ref_run_line(&x, lines->v[i], &res)) < 0 ||
		    x.failed) {
			if (rc >= 0)
				rc = REF_TEMP;
			/* A store error, or a robot to think first; or a
			 * broken invariant. */
			free(res.note);
			goto out;
		}
		if (rc == REF_FAIL && res.why[0] == '\0') {
			/* A failure no one could be told about is the
			 * referee's, not the sender's. */
			free(res.note);
			rc = ref_broken(&x, "`%.80s` failed without a reason",
			    lines->v[i]);
			goto out;
		}
		if (rc == REF_FAIL) {
			free(res.note);
			res.note = NULL;
			if (store_undo(r->store) == -1) {
				rc = -1;
				goto out;
			}
			x.nout = nout;
			outs_drop(&x, nouts);
			failed = i;
			break;
		}
		if (store_release(r->store) == -1) {
			free(res.note);
			rc = -1;
			goto out;
		}
		if (rc == REF_ASIDE) {
			aside[i] = 1;
			naside++;
			aside_game = res.game;
			continue;
		}
		applied++;
		/* A command that mailed the sender has answered for itself. */
		if (x.answered) {
			free(res.note);
			res.note = NULL;
		} else {
			if (res.note == NULL)
				res.note = xstrdup(_("done"));
			unanswered++;
			if (res.game != 0)
				done_game = res.game;
		}
		notes[i] = res.note;
		x.answered = 0;
	}
	if (naside > 0)
		snprintf(setaside, sizeof(setaside), ", %d set aside", naside);
	if (failed >= 0) {
		rc = error_reply(&x, lines, failed, aside, &res, NULL, &sent);
		*outcome = xasprintf("%d applied%s; `%.80s` failed: %.200s; "
		    "%s", applied, setaside, lines->v[failed], res.why, sent ?
		    "error reply queued" : "error reply rate-limited");
	} else {
		if (applied == 0)
			rc = aside_reply(&x, lines, aside, aside_game);
		else if (unanswered || naside || m->commands_truncated)
			rc = done_reply(&x, lines, notes, aside, done_game);
		else
			rc = 0;
		*outcome = xasprintf("%d applied%s", applied, setaside);
	}
	if (rc == 0)
		rc = answer_queue(&x);
	if (rc == 0 && x.failed)
		rc = REF_TEMP;
out:
	for (i = 0; notes && i < lines->n; i++)
		free(notes[i]);
	free(notes);
	free(aside);
	outs_drop(&x, 0);
	free(x.outs);
	store_player_free(&x.me);
	i18n_set("en");
	if (rc < 0 && x.cause[0] != '\0') {
		free(*outcome);
		*outcome = xstrdup(x.cause);
		return REFEREE_BROKEN;
	}
	if (rc < 0) {
		free(*outcome);
		*outcome = NULL;
		return -1;
	}
	return 0;
}

int
referee_command(struct referee *r, const char *address, const char *line,
    const char *key, int64_t now, int quiet, int64_t *game, char *err,
    size_t errlen)
{
	struct ref_msg x;
	struct ref_result res;
	char *canon;
	int rc;

	*game = 0;
	memset(&x, 0, sizeof(x));
	memset(&res, 0, sizeof(res));
	res.legal_seat = -1;
	x.r = r;
	x.key = key;
	x.now = now;
	canon = util_addr_canon(address);
	rc = canon == NULL ? 1 : store_player_find(r->store, canon, &x.me);
	free(canon);
	if (rc != 0) {
		if (rc == 1)
			util_err(err, errlen, "%s is no player", address);
		else
			util_err(err, errlen, "%s", store_errmsg(r->store));
		return rc == 1 ? REF_FAIL : REF_TEMP;
	}
	/* The operator vouches for the player: no token, no DMARC. */
	x.dmarc = 1;
	x.proven = 1;
	i18n_set("en");
	while ((rc = fire_one(r, now)) == 1)
		;
	x.holding = 1;
	if (rc == -1 || (rc = refladder_configured(&x)) == -1) {
		rc = REF_TEMP;
		goto out;
	}
	rc = ref_run_line(&x, line, &res);
	if (rc >= 0 && x.failed)
		rc = REF_TEMP;
	*game = res.game;
	if (rc == REF_FAIL)
		util_err(err, errlen, "%s", res.why[0] ? res.why :
		    "failed without a reason");
	else if (rc == REF_ASIDE) {
		util_err(err, errlen, "`%s` is no command", line);
		rc = REF_FAIL;
	} else if (rc < 0 && x.cause[0] != '\0') {
		util_err(err, errlen, "%s", x.cause);
		rc = REFEREE_BROKEN;
	} else if (rc < 0)
		util_err(err, errlen, "%s", store_errmsg(r->store));
	else if ((!quiet && answer_queue(&x) == -1) || x.failed) {
		util_err(err, errlen, "%s", store_errmsg(r->store));
		rc = REF_TEMP;
	}
out:
	free(res.note);
	outs_drop(&x, 0);
	free(x.outs);
	store_player_free(&x.me);
	i18n_set("en");
	return rc;
}

/* Fire one due timer inside the caller's transaction: 1 when one fired,
 * 0 when none is due. */
static int
fire_one(struct referee *r, int64_t now)
{
	struct store_timer *t;
	struct ref_msg x;
	int n, rc;

	if (store_timer_due(r->store, now, 1, &t, &n) == -1)
		return -1;
	if (n == 0) {
		store_timers_free(t, n);
		return 0;
	}
	memset(&x, 0, sizeof(x));
	x.r = r;
	x.now = now;
	i18n_set("en");
	x.key = xasprintf("timer:%lld:%lld", (long long)t[0].id,
	    (long long)t[0].due);
	/* A timer whose game or rows are broken is dropped, undone alone
	 * (its cause logged), so that it does not hold up every other. */
	if ((rc = store_savepoint(r->store)) == 0) {
		rc = refadmin_timer(&x, &t[0]);
		if (rc == 0 && x.failed)
			rc = -1;
		if (rc == -1 && x.cause[0] != '\0') {
			log_err("timer %s dropped: %s", x.key, x.cause);
			rc = store_undo(r->store);
		} else if (rc == 0)
			rc = store_release(r->store);
	}
	if (rc == 0)
		rc = store_timer_delete(r->store, t[0].id);
	free((char *)x.key);
	store_timers_free(t, n);
	return rc == -1 ? -1 : 1;
}

int
referee_timers(struct referee *r, int64_t now)
{
	int fired = 0, rc;

	/* Each timer in its own transaction, in due order: after downtime
	 * every overdue timer fires once, the oldest first. */
	for (;;) {
		if (store_begin(r->store) == -1)
			return -1;
		if ((rc = fire_one(r, now)) == -1 ||
		    (rc == 1 && store_commit(r->store) == -1)) {
			store_rollback(r->store);
			return -1;
		}
		if (rc == 0) {
			store_rollback(r->store);
			return fired;
		}
		fired++;
	}
}
