/*
 * referee: one message in, its commands run in order, answers out.
 *
 * This file holds the message level: who sent it, the due timers fired
 * first, each command line in a savepoint through the command table
 * (refcmd.c), and the answer that says what was done.  Sending and the
 * helpers every part uses live in refcore.c, the commands about the
 * sender alone in refself.c, game commands in refgame.c, admin commands,
 * reports and timers in refadmin.c, template data in refview.c.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "addr.h"
#include "log.h"
#include "refint.h"

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

static int	fire_one(struct referee *, int64_t);

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

/* May one more answer counted under key (limit an hour) go to the sender
 * now?  Counts it when so.  When it is the last one allowed, *until is
 * when the next will be (else 0).  Takes key. */
static int
reply_allowed_key(struct ref_msg *x, char *key, int limit, int *allowed,
    int64_t *until)
{
	int64_t oldest;
	int n, rc = -1;

	*allowed = 0;
	*until = 0;
	if (store_reply_count(x->r->store, key, x->now - 3600, &n) == -1)
		goto out;
	if (n < limit) {
		*allowed = 1;
		/* The message level applies its own writes at once. */
		if (fx_reply_add(x, key, x->now) == -1 ||
		    refeff_apply(x) != REF_OK)
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

/* The same for an answer of a kind, counted by reply_key. */
static int
reply_allowed(struct ref_msg *x, const char *kind, int limit, int *allowed,
    int64_t *until)
{
	return reply_allowed_key(x, reply_key(x, kind), limit, allowed,
	    until);
}

/* At most this many set-aside lines are quoted back. */
#define ASIDE_SHOWN	5

/* aside[] (the lines set aside, as written, the first few) and
 * aside_more (how many more, "" for none). */
static void
aside_list(struct tmpl_data *d, const struct strv *lines,
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

/* unread[] (the lines not read because they stand below what may start
 * quoted text, the first few), unread_more, unread_below (that start) and
 * unread_why (what it looked like), all "" when there are none. */
static void
unread_list(struct tmpl_data *d, const struct mail_msg *m)
{
	struct tmpl_list *l = tmpl_list(d, "unread");
	int i;

	for (i = 0; m != NULL && i < m->unread.n && i < ASIDE_SHOWN; i++)
		tmpl_list_add_str(l, m->unread.v[i]);
	if (m != NULL && m->unread.n > ASIDE_SHOWN)
		tmpl_set_int(d, "unread_more", m->unread.n - ASIDE_SHOWN);
	else
		tmpl_set(d, "unread_more", "");
	tmpl_set(d, "unread_below", m != NULL && m->unread.n > 0 ?
	    m->unread_below : "");
	tmpl_set(d, "unread_why", m != NULL && m->unread.n > 0 ?
	    _(m->unread_why) : "");
}

/* The answer part that says what failed (and what was done before). */
static int
error_reply(struct ref_msg *x, const struct strv *lines, int failed,
    const char *aside, const struct ref_result *res, const char *parse_error,
    int *sent)
{
	struct tmpl_data *d;
	struct tmpl_list *l;
	struct play_game g;
	char err[300], when[40];
	int64_t game = 0, until;
	int i, allowed, rc = 0, seat = -1;

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
	unread_list(d, x->m);
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
done_reply(struct ref_msg *x, const struct strv *lines, char **notes,
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
	unread_list(d, x->m);
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
 * aside, and how to play when it is the sender's turn.  An auto-responder
 * that sends no Auto-Submitted header answers each of these with remarks
 * again: they are counted per sender and game, whatever the token or the
 * DMARC result, and no more are answered an hour than errors are. */
static int
aside_reply(struct ref_msg *x, const struct strv *lines,
    const char *aside, int64_t game, int *sent)
{
	struct tmpl_data *d;
	struct play_game g;
	char err[300];
	int64_t until;
	int rc, seat = -1, allowed;

	*sent = 0;
	if (reply_allowed_key(x, xasprintf("aside:#%lld %s", (long long)game,
	    x->me.address), (int)x->r->cfg->limits.error_replies, &allowed,
	    &until) == -1)
		return -1;
	if (!allowed)
		return 0;
	*sent = 1;
	d = tmpl_data_new();
	aside_list(d, lines, aside);
	unread_list(d, x->m);
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
	unread_list(d, NULL);
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

/* Before a part for a seat of another game than the mail's tag: a reply
 * to the mail plays in the tag's game, not in that one.  In the reader's
 * language lang. */
static int
elsewhere_note(struct ref_msg *x, const struct ref_out *o,
    const struct ref_out *head, const char *lang, struct buf *b,
    struct buf *st)
{
	struct tmpl_data *d;
	char *subject, *body, *style, was[16];
	int rc;

	if (o->game == 0 || o->seat < 0 || head->game == 0 || head->seat < 0 ||
	    o->game == head->game)
		return 0;
	d = tmpl_data_new();
	tmpl_setf(d, "game.id", "%lld", (long long)o->game);
	tmpl_setf(d, "answer.game", "%lld", (long long)head->game);
	util_strlcpy(was, i18n_lang(), sizeof(was));
	i18n_set(lang);
	rc = ref_render(x, lang, "elsewhere", d, &subject, &body, &style);
	i18n_set(was);
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

/* Which part of a mail gives it its subject and tag: an error, else a
 * mail that carries a seat's tag, else the first. */
static int
part_rank(const struct ref_out *o)
{
	if (o->part == REF_PART_ERROR)
		return 2;
	return o->game != 0 && o->seat >= 0;
}

/* Is board a a board after a move that b, a later one of the same game
 * for the same seat, replaces in a mail? */
static int
superseded(const struct ref_out *a, const struct ref_out *b)
{
	return a->notification && b->notification && a->game == b->game &&
	    a->seat == b->seat;
}

/* A part's body without its greeting, which has no place in the middle
 * of a mail: a first paragraph of one short line that names the reader
 * ("Hello ann@example.org,", in any language), or, where the reader's
 * name is not at hand (name NULL), that is the first line of the mail's
 * head. */
static const char *
without_greeting(const char *body, const char *name, const char *head)
{
	size_t len = strcspn(body, "\n");
	char *line;
	int greeting;

	if (strncmp(body + len, "\n\n", 2) != 0 || len > 100)
		return body;
	line = xstrndup(body, len);
	greeting = name != NULL ? strstr(line, name) != NULL :
	    strncmp(head, body, len + 2) == 0;
	free(line);
	if (!greeting)
		return body;
	body += len + 1;
	while (*body == '\n')
		body++;
	return body;
}

/* Is the held mail o one for the reader of mail r (both the sender's
 * answer, or both to the same other address)?  A club list's postings
 * are not merged: each is news of its own to the list's readers. */
static int
same_reader(const struct config *cfg, const struct ref_out *o,
    const struct ref_out *r)
{
	int i;

	if (o == r)
		return 1;
	if (o->to_sender || r->to_sender)
		return o->to_sender && r->to_sender;
	if (strcmp(o->to, r->to) != 0)
		return 0;
	for (i = 0; i < cfg->club.lists.n; i++)
		if (util_strcaseeq(cfg->club.lists.v[i], o->to))
			return 0;
	return 1;
}

/*
 * Queue the held mails for the reader of x->outs[first] as one mail, at
 * the place and with the number of the first: its most important part
 * (part_rank), that part's body, then the body of every other part that
 * is not the same as one before.  Moves on several lines, or a robot's
 * move made at once in reply, make a board after each move: when the most
 * important part is one, the mail is the last board of that game and
 * seat alone, which tells where the message left the game (its subject no
 * longer "Your move" once the turn has ended, its moves those of the
 * position now).  The sender's answers to help, games, list and remarks
 * are left out unless info_ok.
 */
static int
merge_queue(struct ref_msg *x, int first, int info_ok)
{
	struct buf body = { 0 }, style = { 0 };
	const struct ref_out *reader = &x->outs[first], *o, *head = NULL;
	const char *part;
	int i, j, dup, rc = 0, lead = -1, html = 0;
	char *in;

	/* in[i]: the i-th held mail is a part of this one. */
	in = xcalloc((size_t)x->nouts + 1, 1);
	for (i = first; i < x->nouts; i++) {
		o = &x->outs[i];
		if (!same_reader(x->r->cfg, o, reader) ||
		    (o->to_sender && o->part == REF_PART_INFO && !info_ok))
			continue;
		in[i] = 1;
		if (lead < 0)
			lead = i;
		if (head == NULL || part_rank(o) > part_rank(head))
			head = o;
	}
	/* Boards after several moves in one game: the last one. */
	for (i = 0; head != NULL && i < x->nouts; i++) {
		o = &x->outs[i];
		if (in[i] && o > head && superseded(head, o))
			head = o;
	}
	if (head != NULL) {
		answer_add(&body, &style, head->body, head->style);
		html = head->html;
	}
	for (i = 0; head != NULL && i < x->nouts; i++) {
		o = &x->outs[i];
		if (!in[i] || o == head || (o < head && superseded(o, head)))
			continue;
		dup = strcmp(o->body, head->body) == 0;
		for (j = 0; j < i && !dup; j++)
			dup = in[j] && strcmp(o->body, x->outs[j].body) == 0;
		if (dup)
			continue;
		if (body.len > 0 && buf_str(&body)[body.len - 1] != '\n')
			answer_add(&body, &style, "\n", NULL);
		answer_add(&body, &style, "\n* * *\n\n", NULL);
		if (elsewhere_note(x, o, head, head->lang, &body,
		    &style) == -1) {
			rc = -1;
			break;
		}
		part = without_greeting(o->body, o->to_sender ?
		    ref_name(&x->me) : NULL, head->body);
		answer_add(&body, &style, part, o->style + (part - o->body));
		html |= o->html;
	}
	if (rc == 0 && head != NULL)
		rc = ref_queue_now(x, head->to, head->to_sender, head->subject,
		    buf_str(&body), style.s, html, head->lang, head->game,
		    head->seat, head->notification, head->auto_submitted,
		    x->outs[lead].n);
	free(in);
	buf_free(&body);
	buf_free(&style);
	return rc;
}

/*
 * Queue the held mails in order, one mail per reader: those to the
 * sender go as one answer, and so do those to each other reader (an
 * opponent gets the board and every `say` of the message in one mail).
 * help, games, list and the answer to remarks are left out past
 * limits.info_replies.
 */
static int
answer_queue(struct ref_msg *x)
{
	int i, j, info = 0, info_ok = 1, seen, rc = 0;
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
	for (i = 0; i < x->nouts && rc == 0; i++) {
		for (j = 0, seen = 0; j < i && !seen; j++)
			seen = same_reader(x->r->cfg, &x->outs[j],
			    &x->outs[i]);
		if (!seen)
			rc = merge_queue(x, i, info_ok);
	}
	return rc;
}

int
referee_handle(struct referee *r, const struct mail_msg *m, const char *key,
    const char *parse_error, int64_t now, struct referee_outcome *said)
{
	char **outcome = &said->text;
	struct ref_msg x;
	struct ref_result res;
	const struct strv *lines = &m->commands;
	char **notes = NULL, *aside = NULL, setaside[40] = "";
	int64_t pid;
	int i, rc = -1, nout, nouts, failed = -1, sent = 0, unanswered = 0;
	int applied = 0, naside = 0;
	int64_t done_game = 0, aside_game = 0;

	*outcome = NULL;
	said->kind = "unreadable";
	said->game = m->tag_game;
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
	    refeff_apply(&x) != REF_OK ||
	    store_player_load(r->store, pid, &x.me) != 0) {
		refeff_discard(&x);
		return -1;
	}
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
	/* The referee's decisions, at debug: who the sender is taken for
	 * (never the token itself), then each line. */
	log_debug("referee: %s: %d line%s, game tag #%lld, %s", m->from,
	    lines->n, lines->n == 1 ? "" : "s", (long long)m->tag_game,
	    x.dmarc ? "DMARC pass" : x.proven ?
	    "seat token valid" : m->tag_token[0] ? "seat token not valid" :
	    "no seat token");
	if (rc == -1 || (rc = refladder_configured(&x)) == -1 ||
	    (rc = refeff_apply(&x)) == -1)
		goto out;
	rc = -1;
	if (parse_error != NULL || lines->n == 0) {
		if (error_reply(&x, NULL, 0, NULL, NULL, parse_error ?
		    _(parse_error) : m->unread.n > 0 ? _("no line of the "
		    "message was read: see below") : _("the message holds no "
		    "command"), &sent) == -1 || answer_queue(&x) == -1)
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
		log_debug("referee: `%.80s`: %s%s", lines->v[i],
		    rc == REF_FAIL ? "refused: " : rc == REF_ASIDE ?
		    "not a command, set aside" : "applied", rc == REF_FAIL ?
		    res.why : "");
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
		if (res.game != 0)
			said->game = res.game;
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
		said->kind = "failed";
		if (res.game != 0)
			said->game = res.game;
		*outcome = xasprintf("%d applied%s; `%.80s` failed: %.200s; "
		    "%s", applied, setaside, lines->v[failed], res.why, sent ?
		    "error reply queued" : "error reply rate-limited");
		/* The record and the log hold whole characters only. */
		util_utf8_mend(*outcome);
	} else {
		if (applied == 0)
			rc = aside_reply(&x, lines, aside, aside_game, &sent);
		else if (unanswered || naside || m->commands_truncated ||
		    m->unread.n > 0)
			rc = done_reply(&x, lines, notes, aside, done_game);
		else
			rc = 0;
		said->kind = applied == 0 ? "remarks" : "applied";
		if (applied == 0 && aside_game != 0)
			said->game = aside_game;
		*outcome = xasprintf("%d applied%s%s", applied, setaside,
		    applied == 0 && !sent ? "; answer rate-limited" : "");
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
	refeff_discard(&x);
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
		rc = ref_run_timer(&x, &t[0]);
		if (rc == 0 && x.failed)
			rc = -1;
		if (rc == -1 && x.cause[0] != '\0') {
			log_err("timer %s dropped: %s", x.key, x.cause);
			rc = store_undo(r->store);
		} else if (rc == 0)
			rc = store_release(r->store);
	}
	/* Fired (or dropped): the timer goes, outside its savepoint. */
	refeff_discard(&x);
	if (rc == 0 && (fx_timer_delete(&x, t[0].id) == -1 ||
	    refeff_apply(&x) != REF_OK))
		rc = -1;
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

/* Why a command could not be finished for now: the store's error, or
 * (a template, a definition) what was logged just before. */
static void
temp_reason(struct referee *r, char *err, size_t errlen)
{
	const char *why = store_errmsg(r->store);

	if (why == NULL || *why == '\0' || strcmp(why, "not an error") == 0)
		why = "not done for now, and nothing changed: the error above "
		    "says why";
	util_err(err, errlen, "%s", why);
}

/* The admin tool's run: the timers due at now fired first, the ladders
 * of the configuration opened, mails held until the end.  x->me is set by
 * the caller.  REF_OK, or REF_TEMP with err. */
static int
tool_begin(struct referee *r, struct ref_msg *x, const char *key,
    int64_t now)
{
	int rc;

	x->r = r;
	x->key = key;
	x->now = now;
	/* The operator vouches for the player: no token, no DMARC. */
	x->dmarc = 1;
	x->proven = 1;
	i18n_set("en");
	while ((rc = fire_one(r, now)) == 1)
		;
	x->holding = 1;
	if (rc == -1 || refladder_configured(x) == -1 ||
	    refeff_apply(x) == -1)
		return REF_TEMP;
	return REF_OK;
}

/* What became of the tool's command rc (res) in the referee's words for
 * the tool (err), its mails queued unless quiet; the message's state
 * released. */
static int
tool_end(struct referee *r, struct ref_msg *x, int rc, const char *line,
    int quiet, struct ref_result *res, int64_t *game, char *err,
    size_t errlen)
{
	if (rc >= 0 && x->failed)
		rc = REF_TEMP;
	*game = res->game;
	if (rc == REF_FAIL)
		util_err(err, errlen, "%s", res->why[0] ? res->why :
		    "failed without a reason");
	else if (rc == REF_ASIDE) {
		util_err(err, errlen, "`%s` is no command", line);
		rc = REF_FAIL;
	} else if (rc < 0 && x->cause[0] != '\0') {
		util_err(err, errlen, "%s", x->cause);
		rc = REFEREE_BROKEN;
	} else if (rc < 0)
		temp_reason(r, err, errlen);
	else if ((!quiet && answer_queue(x) == -1) || x->failed) {
		temp_reason(r, err, errlen);
		rc = REF_TEMP;
	}
	free(res->note);
	outs_drop(x, 0);
	refeff_discard(x);
	free(x->outs);
	store_player_free(&x->me);
	i18n_set("en");
	return rc;
}

/* A tool's message and result before anything is done, and no game. */
static void
tool_clear(struct ref_msg *x, struct ref_result *res, int64_t *game)
{
	*game = 0;
	memset(x, 0, sizeof(*x));
	memset(res, 0, sizeof(*res));
	res->legal_seat = -1;
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

	tool_clear(&x, &res, game);
	canon = addr_canon(address);
	rc = canon == NULL ? 1 : store_player_find(r->store, canon, &x.me);
	free(canon);
	if (rc != 0) {
		if (rc == 1)
			util_err(err, errlen, "%s is no player", address);
		else
			util_err(err, errlen, "%s", store_errmsg(r->store));
		return rc == 1 ? REF_FAIL : REF_TEMP;
	}
	if ((rc = tool_begin(r, &x, key, now)) == REF_OK)
		rc = ref_run_line(&x, line, &res);
	return tool_end(r, &x, rc, line, quiet, &res, game, err, errlen);
}

int
referee_new(struct referee *r, const char *args,
    const unsigned char seed[RNG_SEED_LEN], const char *key, int64_t now,
    int quiet, int64_t *game, char *err, size_t errlen)
{
	struct ref_msg x;
	struct ref_result res;
	struct command c;
	char *line;
	int rc;

	tool_clear(&x, &res, game);
	memset(&c, 0, sizeof(c));
	/* The admin's `new`, read as from a mail, needing no acceptance. */
	line = xasprintf("admin new %s", args);
	rc = tool_begin(r, &x, key, now);
	if (rc == REF_OK && command_parse(r->aliases, line, &c, res.why,
	    sizeof(res.why)) == -1)
		rc = REF_FAIL;
	else if (rc == REF_OK && c.kind != CMD_ADMIN_NEW)
		rc = ref_fail(&res, "`%s` is no new game", args);
	else if (rc == REF_OK) {
		struct ref_proposal p;

		reflife_proposal(&p, &c);
		p.start = 1;
		p.seed = seed;
		rc = reflife_propose(&x, &p, &res);
		if (rc == REF_OK)
			rc = refeff_apply(&x);
		else
			refeff_discard(&x);
	}
	command_free(&c);
	rc = tool_end(r, &x, rc, line, quiet, &res, game, err, errlen);
	free(line);
	return rc;
}
