/*
 * refcore: what every part of the referee uses and which dispatches to
 * none of them: failing a command, times, names, the admin check, game
 * seeds, loading a game, the seat token check, and sending (templates,
 * the subject tag, plus addresses, threading, holding a message's mails
 * until it is done).
 *
 * The command files (referee's table in refcmd.c runs them) call this
 * file; it calls no command and no file that runs commands.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "compose.h"
#include "log.h"
#include "mailhtml.h"
#include "refint.h"
#include "tz.h"

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

int
ref_fail(struct ref_result *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
	/* A line echoed at a byte count is no cut character in a mail. */
	util_utf8_mend(res->why);
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
	util_utf8_mend(x->cause);
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

/* Player id's row for a view: what was decided so far is applied
 * first (a view, refeff.h). */
static int
view_player(struct ref_msg *x, int64_t id, struct store_player *p)
{
	if (refeff_apply(x) != REF_OK)
		return -1;
	return ref_must(x, store_player_load(x->r->store, id, p), "player",
	    id);
}

int
ref_player_name(struct ref_msg *x, int64_t id, struct buf *b)
{
	struct store_player p;

	if (view_player(x, id, &p) != 0)
		return -1;
	buf_adds(b, ref_name(&p));
	store_player_free(&p);
	return 0;
}

const char *
ref_public_name(const struct store_player *p, char *out, size_t len)
{
	const char *at;

	if (refrobot_level(p->address) > 0)
		return ref_name(p);
	if (p->name != NULL && *p->name != '\0')
		return p->name;
	if (p->public_address)
		return p->address;
	if ((at = strchr(p->address, '@')) != NULL) {
		snprintf(out, len, "%.*s", (int)(at - p->address), p->address);
		return out;
	}
	return p->address;
}

int
ref_player_public(struct ref_msg *x, int64_t id, struct buf *b)
{
	struct store_player p;
	char local[REF_NAME_LEN];

	if (view_player(x, id, &p) != 0)
		return -1;
	buf_adds(b, ref_public_name(&p, local, sizeof(local)));
	store_player_free(&p);
	return 0;
}

int
ref_player_make(struct ref_msg *x, const char *addr, int64_t *id)
{
	struct store_player p;
	const char *lang = NULL;
	char *name = NULL;
	int rc;

	if ((rc = store_player_find(x->r->store, addr, &p)) == 0) {
		*id = p.id;
		store_player_free(&p);
		return 0;
	}
	if (rc == -1)
		return -1;
	if (refeff_player_pending(x, addr, id) == 0)
		return 0;
	if (refeff_reserve(x, STORE_SERIES_PLAYER, id) == -1)
		return -1;
	if (refrobot_level(addr))
		name = xasprintf("Robot (level %d)", refrobot_level(addr));
	else if (x->r->cfg->referee.language != CONFIG_LANG_EN)
		lang = x->r->cfg->referee.language == CONFIG_LANG_AR ?
		    "ar" : "ru";
	rc = fx_player_create(x, addr, name, lang, x->now, *id);
	free(name);
	return rc;
}

int
ref_game_make(struct ref_msg *x, const struct gamedef *def,
    const struct play_settings *set, char *const *words, int nwords,
    char *const *addresses, int naddresses,
    const unsigned char seed[RNG_SEED_LEN], const char *status,
    struct play_game *g, char *err, size_t errlen)
{
	int i;

	if (play_build(def, set, words, nwords, addresses, naddresses, seed,
	    status, x->now, g, err, errlen) != 0)
		return REF_FAIL;
	for (i = 0; i < g->row.nseats; i++)
		if (ref_player_make(x, g->address[i], &g->row.player[i]) == -1)
			goto temp;
	if (g->row.id == 0 &&
	    refeff_reserve(x, STORE_SERIES_GAME, &g->row.id) == -1)
		goto temp;
	fx_game_create(x, &g->row);
	/* A game is made (refeff.h): what starts it (the clocks read the
	 * seats' players, the robots play) reads the rows made for it. */
	if (refeff_apply(x) != REF_OK)
		goto temp;
	return REF_OK;
temp:
	util_err(err, errlen, "%s", store_errmsg(x->r->store));
	play_free(g);
	return REF_TEMP;
}

int
ref_play(struct ref_msg *x, struct play_game *g, int seat, const char *line,
    int *played, char *err, size_t errlen)
{
	char texts[PLAY_LINE_MAX][GAME_MOVE_TEXT];
	int n, i;

	/* play.c's outcomes stop here: the referee's own from now on. */
	if ((n = play_line_moves(g, seat, line, x->now, texts, PLAY_LINE_MAX,
	    err, errlen)) < 0)
		return n == PLAY_TEMP ? REF_TEMP : REF_FAIL;
	for (i = 0; i < n; i++)
		fx_move_add(x, g->row.id, g->row.nmoves - n + i + 1, seat,
		    texts[i], x->now);
	fx_game_update(x, &g->row);
	/* A move is applied when it has been decided (refeff.h). */
	if (refeff_apply(x) != REF_OK) {
		util_err(err, errlen, "%s", store_errmsg(x->r->store));
		return REF_TEMP;
	}
	if (played != NULL)
		*played = n;
	return REF_OK;
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
int
ref_queue_now(struct ref_msg *x, const char *to, int to_sender,
    const char *subject, const char *body, const char *style, int html_too,
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
	if (html_too || has_style(style, strlen(body))) {
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
    const char *subject, const char *body, const char *style, int html,
    const char *lang, int64_t game, int seat, int notification,
    const char *auto_submitted)
{
	struct ref_out *o;
	size_t len = strlen(body);

	if (to_sender)
		x->answered = 1;
	if (!x->holding)
		return ref_queue_now(x, to, to_sender, subject, body, style,
		    html, lang, game, seat, notification, auto_submitted,
		    ++x->nout);
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
	o->html = html;
	o->lang = xstrdup(lang);
	o->game = game;
	o->seat = seat;
	o->notification = notification;
	o->auto_submitted = auto_submitted;
	o->n = ++x->nout;
	return 0;
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

/* Does a template's mail get an HTML part even when nothing in it is
 * styled?  The lists a player acts on: their games, their turns. */
static int
tmpl_html(const char *tmplname)
{
	return strcmp(tmplname, "list") == 0 ||
	    strcmp(tmplname, "reminder") == 0;
}

/*
 * The answers a mail may offer, for its template to write where it offers
 * them (`{{answer.draw}}`): each the command as a player would type it,
 * marked so that the HTML part makes it a link that starts the reply,
 * subject and body filled (MAILHTML_REPLY).
 */
static void
set_answers(struct tmpl_data *d)
{
	static const char *const words[] = { "accept", "decline", "draw",
	    "takeback", "thanks", "rematch" };
	const char *id = tmpl_get(d, "game.id");
	char name[32], value[64], mark[64];
	size_t i;

	for (i = 0; i < nitems(words); i++) {
		/* After the end the game is named, as `thanks` is taught. */
		if (id != NULL && *id != '\0' && (strcmp(words[i], "thanks") ==
		    0 || strcmp(words[i], "rematch") == 0))
			snprintf(value, sizeof(value), "%s #%s", words[i], id);
		else
			util_strlcpy(value, words[i], sizeof(value));
		snprintf(name, sizeof(name), "answer.%s", words[i]);
		memset(mark, MAILHTML_REPLY, sizeof(mark));
		tmpl_set_styled(d, name, value, mark);
	}
}

/* Render LANG/NAME: subject, body and the body's style layer (owned). */
int
ref_render(struct ref_msg *x, const char *lang, const char *tmplname,
    struct tmpl_data *d, char **subject, char **body, char **style)
{
	const struct tmpl *t;
	char err[512];

	tmpl_set(d, "referee.address", x->r->cfg->referee.address);
	set_answers(d);
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

	if (ref_render(x, lang, tmplname, d, &subject, &body, &style) == -1)
		return -1;
	rc = queue_mail(x, to, to_sender, tmpl_part(tmplname), subject, body,
	    style, tmpl_html(tmplname), lang, game, seat, strcmp(tmplname, "move") == 0,
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

	/* A mail tells what was decided: the effects first (refeff.h). */
	if (refeff_apply(x) != REF_OK)
		return -1;
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

	if (refeff_apply(x) != REF_OK)
		return -1;
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
