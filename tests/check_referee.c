/*
 * check_referee: the referee's security properties, by raw mail.
 *
 * Every test drives RFC 5322 messages, built here as strings, through
 * intake_message() over a store in a temporary SQLite file, and reads what
 * the referee queued in the outbox back with mail_parse().  What is
 * proven:
 *
 *   - a move needs the seat's token and the seat's address together: a
 *     forged From without a token, a token of another game, and another
 *     seat's token all change nothing and are answered with how to reply;
 *   - over complete Aluette and Spite & Malice games played by mail, no
 *     mail to a seat (or an observer) tells anything of the cards the
 *     reader cannot see (the comment before struct hidden says how);
 *   - error replies quote the failing line, capped, never the message;
 *   - a flood of bad commands gets at most limits.error_replies replies,
 *     the last saying until when, and forged mail in a player's name
 *     does not use up the player's own;
 *   - a message seen again is not applied again;
 *   - in every game, remarks around a move are set aside and mistyped
 *     moves fail; a mail gets one answer, however many commands it
 *     holds, and help and list have a cap of their own;
 *   - the server's Almakleh deck: games proposed one after another, the
 *     referee restarted between them, are dealt from one deck that
 *     cycles, no card twice within a cycle, each game recording its
 *     deal= so that it replays from itself alone.
 *   - with the robots apart, a message after which a robot is to move
 *     commits nothing and holds no lock while the robot thinks, other
 *     players' mail is answered meanwhile, the sender's next mail waits
 *     behind it, and a game that moved on while the robot thought makes
 *     it think again; the message is applied once.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intake.h"
#include "referee/refint.h"
#include "testutil.h"

#define REFEREE		"referee@ludus.example"
#define T0		1795000000	/* 2026-11-18, any fixed time */
#define FAR_FUTURE	((int64_t)1 << 40)
/* Mails read from the outbox at once (store_outbox_due allocates that
 * many rows): far more than one message ever makes here. */
#define MAX_TAKE	500

static const char *const players[] = { "ann@club.example", "bob@club.example",
	"cat@club.example", "dan@club.example" };
#define OBSERVER	"obi@club.example"
#define STRANGER	"eve@evil.example"

/* One referee over its own store, configuration and secret. */
struct world {
	char		*db;		/* the store's file */
	char		*secret;	/* the secret's file */
	struct store	*s;
	struct config	 cfg;
	struct gamedef	*defs;
	int		 ndefs;
	struct referee	 r;
	int64_t		 now;
	int		 nmsg;		/* Message-IDs made so far */
};

/* One queued mail, read back. */
struct out {
	char	*to;
	char	*subject;	/* decoded */
	char	*body;		/* decoded */
	char	*raw_subject;	/* the Subject field as written */
	char	*raw_body;	/* the body as written */
	char	*data;		/* the whole message */
	int64_t	 game;
};
struct outs {
	struct out *v;
	int	 n;
};

static void
outs_free(struct outs *o)
{
	int i;

	for (i = 0; i < o->n; i++) {
		free(o->v[i].to);
		free(o->v[i].subject);
		free(o->v[i].body);
		free(o->v[i].raw_subject);
		free(o->v[i].raw_body);
		free(o->v[i].data);
	}
	free(o->v);
	o->v = NULL;
	o->n = 0;
}

/* The referee over w->db and w->secret, as a restart makes it. */
static void
w_boot(struct world *w, const char *extra)
{
	char *text;

	text = xasprintf("referee:\n  address: %s\n"
	    "  admins: [boss@club.example]\n  plus_addressing: yes\n%s",
	    REFEREE, extra ? extra : "");
	tu_referee_start(text, w->db, w->secret, &w->cfg, &w->s, &w->defs,
	    &w->ndefs, &w->r);
	free(text);
}

static void
w_stop(struct world *w)
{
	tu_referee_stop(&w->cfg, w->s, w->defs, w->ndefs, &w->r);
}

static void
w_open(struct world *w, const char *name, const char *extra)
{
	char err[512];
	static int seq;

	memset(w, 0, sizeof(*w));
	w->now = T0;
	w->db = xasprintf("%s/%s-%d-%d.db", tu_tmpdir(), name, (int)getpid(),
	    ++seq);
	w->secret = xasprintf("%s/%s-%d-%d.secret", tu_tmpdir(), name,
	    (int)getpid(), seq);
	ck_assert_msg(token_secret_create(w->secret, err, sizeof(err)) == 0,
	    "%s", err);
	w_boot(w, extra);
}

static void
w_close(struct world *w)
{
	w_stop(w);
	free(w->db);
	free(w->secret);
}

/* A raw message; msgid NULL makes a fresh one. */
static char *
w_raw(struct world *w, const char *from, const char *subject,
    const char *msgid, const char *body)
{
	char *id = msgid ? xstrdup(msgid) :
	    xasprintf("m%d.%lld@players.example", ++w->nmsg,
	    (long long)w->now);
	char *raw = xasprintf("From: <%s>\r\nTo: <%s>\r\nSubject: %s\r\n"
	    "Message-ID: <%s>\r\nDate: Wed, 18 Nov 2026 12:00:00 +0000\r\n"
	    "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
	    "\r\n%s", from, REFEREE, subject, id, body);

	free(id);
	return raw;
}

/* Deliver raw bytes; returns the outcome (owned). */
static char *
w_deliver(struct world *w, const char *raw)
{
	char *outcome = NULL;

	ck_assert_int_eq(intake_message(&w->r, raw, strlen(raw), w->now,
	    &outcome), INTAKE_DONE);
	ck_assert_ptr_nonnull(outcome);
	w->now++;
	return outcome;
}

static char *
w_send(struct world *w, const char *from, const char *subject,
    const char *body)
{
	char *raw = w_raw(w, from, subject, NULL, body), *outcome;

	outcome = w_deliver(w, raw);
	free(raw);
	return outcome;
}

/* The subject of a reply in game id for a seat: its tag with the token. */
static char *
w_subject(struct world *w, int64_t id, int seat)
{
	char token[TOKEN_LEN + 1];

	token_make(&w->r.secret, id, seat, token);
	return xasprintf("Re: [ludus #%lld %s] Your move", (long long)id,
	    token);
}

/* Send body as the seat would, replying to the referee's mail. */
static char *
w_send_seat(struct world *w, int64_t id, int seat, const char *from,
    const char *body)
{
	char *subject = w_subject(w, id, seat), *outcome;

	outcome = w_send(w, from, subject, body);
	free(subject);
	return outcome;
}

/* The Subject field and the body of a message as written: the same
 * text always composes to the same bytes, so comparing these compares
 * what the reader sees without decoding. */
static void
raw_out(const char *data, struct out *o)
{
	const char *subj, *end, *body;
	char *p;

	body = strstr(data, "\r\n\r\n");
	ck_assert_ptr_nonnull(body);
	subj = strstr(data, "\r\nSubject: ");
	ck_assert_msg(subj != NULL && subj < body, "%s", data);
	for (end = subj + 2; ; end += 2) {
		end = strstr(end, "\r\n");
		if (end[2] != ' ' && end[2] != '\t')
			break;
	}
	o->raw_subject = xasprintf("%.*s", (int)(end - subj), subj);
	o->raw_body = xstrdup(body + 4);
	/* The MIME boundary comes from the Message-ID, which differs
	 * between a mail and its regeneration: it is no part of the text. */
	for (p = o->raw_body; (p = strstr(p, "=_ludus_")) != NULL; p += 8)
		memset(p + 8, 'x', strspn(p + 8, "0123456789abcdef"));
	o->data = xstrdup(data);
}

static void
parse_out(const char *data, struct out *o)
{
	struct mail_limits lim;
	struct mail_msg m;
	char err[256];

	memset(&lim, 0, sizeof(lim));
	lim.tag = "ludus";
	memset(&m, 0, sizeof(m));
	ck_assert_msg(mail_parse(data, strlen(data), &lim, &m, err,
	    sizeof(err)) == 0, "outgoing mail does not parse: %s", err);
	ck_assert_ptr_nonnull(m.body);
	o->subject = xstrdup(m.subject ? m.subject : "");
	o->body = xstrdup(m.body);
	mail_msg_free(&m);
}

/* The mails queued since the last call, in order, marked as sent so the
 * next call sees only newer ones. */
static void
w_take(struct world *w, struct outs *o)
{
	struct store_mail *rows;
	int n, i;

	memset(o, 0, sizeof(*o));
	ck_assert_int_eq(store_outbox_due(w->s, FAR_FUTURE, MAX_TAKE, &rows,
	    &n), 0);
	o->v = xcalloc((size_t)n + 1, sizeof(*o->v));
	ck_assert_int_eq(store_begin(w->s), 0);
	for (i = 0; i < n; i++) {
		o->v[i].to = xstrdup(rows[i].recipients);
		o->v[i].game = rows[i].game;
		parse_out(rows[i].data, &o->v[i]);
		raw_out(rows[i].data, &o->v[i]);
		ck_assert_int_eq(store_outbox_sent(w->s, rows[i].id, w->now),
		    0);
	}
	ck_assert_int_eq(store_commit(w->s), 0);
	o->n = n;
	store_mails_free(rows, n);
}

static int
outs_count_to(const struct outs *o, const char *to)
{
	int i, n = 0;

	for (i = 0; i < o->n; i++)
		n += strcmp(o->v[i].to, to) == 0;
	return n;
}

/* How many of the mails say what. */
static int
outs_count_body(const struct outs *o, const char *what)
{
	int i, n = 0;

	for (i = 0; i < o->n; i++)
		n += strstr(o->v[i].body, what) != NULL;
	return n;
}

static const struct out *
outs_find(const struct outs *o, const char *to)
{
	int i;

	for (i = 0; i < o->n; i++)
		if (strcmp(o->v[i].to, to) == 0)
			return &o->v[i];
	return NULL;
}

static void
w_load(struct world *w, int64_t id, struct play_game *g)
{
	char err[300];

	ck_assert_msg(play_load(w->s, w->defs, w->ndefs, id, g, err,
	    sizeof(err)) == 0, "game %lld: %s", (long long)id, err);
}

/* What "nothing changed" compares: the snapshot, the move count and the
 * status of a game. */
static char *
w_fingerprint(struct world *w, int64_t id)
{
	struct play_game g;
	char *fp;

	w_load(w, id, &g);
	fp = xasprintf("%d %s %u\n%s", g.row.nmoves, g.row.status,
	    g.row.draw_offer, g.row.state);
	play_free(&g);
	return fp;
}

static int64_t
w_newest_game(struct world *w)
{
	int64_t *ids, id;
	int n;

	ck_assert_int_eq(store_game_ids(w->s, 0, &ids, &n), 0);
	ck_assert_int_gt(n, 0);
	id = ids[0];
	free(ids);
	return id;
}

/* The seat to move (the lowest when several may act), -1 when none. */
static int
seat_to_move(const struct play_game *g)
{
	uint32_t tm = g->def->ops->to_move(g->st);
	int i;

	for (i = 0; i < g->row.nseats; i++)
		if (tm & (1u << i))
			return i;
	return -1;
}

/* The text of the k-th legal move of a seat. */
static void
legal_text(const struct play_game *g, int seat, int k, char *out,
    size_t len)
{
	struct game_move mv[GAME_MAX_MOVES];
	int n = g->def->ops->legal(g->st, seat, mv, GAME_MAX_MOVES);

	ck_assert_int_gt(n, k);
	g->def->ops->format_move(g->st, seat, &mv[k], out, len);
}

/* A two-player Mancala game proposed by ann to bob, accepted by both. */
static int64_t
w_mancala(struct world *w)
{
	struct play_game g;
	struct outs o;
	int64_t id;
	char *out;
	int i;

	out = w_send(w, players[0], "new game", "new mancala bob@club.example");
	free(out);
	id = w_newest_game(w);
	for (i = 0; i < 2; i++) {
		char *body = xasprintf("accept #%lld", (long long)id);

		free(w_send_seat(w, id, i, players[i], body));
		free(body);
	}
	w_load(w, id, &g);
	ck_assert_str_eq(g.row.status, "active");
	play_free(&g);
	w_take(w, &o);
	outs_free(&o);
	return id;
}

/* The error mail to `to` in o (exactly one, and nothing to anyone else)
 * says the seat's token is missing or wrong and how to reply properly. */
static void
assert_auth_refusal(const struct outs *o, const char *to)
{
	const struct out *m;

	ck_assert_int_eq(o->n, 1);
	ck_assert_ptr_nonnull(m = outs_find(o, to));
	ck_assert_msg(strstr(m->subject, "Not done") != NULL, "%s",
	    m->subject);
	ck_assert_msg(strstr(m->body, "this needs your seat's reply token") !=
	    NULL, "%s", m->body);
	/* error.auth in templates/en/error.tmpl: how to reply properly. */
	ck_assert_msg(strstr(m->body, "Moves and other game commands must "
	    "come from your own address") != NULL, "%s", m->body);
	ck_assert_msg(strstr(m->body, "keep the subject as it") != NULL, "%s",
	    m->body);
}

/* The command table has one entry for every kind, with a run step; a
 * command the dispatcher loads a game for is about one game, one that
 * needs a seat or a game being played has its game loaded, and an admin
 * command is confirmed and left out of the help mail. */
START_TEST(command_table_one_entry_per_kind)
{
	const struct ref_command *e;
	const char *name;
	int seen[CMD_NKINDS] = { 0 }, n = 0;

	for (e = ref_commands; e->kind != CMD_NONE; e++) {
		ck_assert_int_gt(e->kind, CMD_NONE);
		ck_assert_int_lt(e->kind, CMD_NKINDS);
		name = command_name(e->kind);
		ck_assert_msg(seen[e->kind]++ == 0, "%s twice", name);
		ck_assert_msg(e->run != NULL, "%s", name);
		ck_assert_ptr_eq(ref_command(e->kind), e);
		if (e->flags & COMMAND_LOAD)
			ck_assert(command_game_scoped(e->kind));
		if (e->flags & (COMMAND_TOKEN | COMMAND_SEAT | COMMAND_ACTIVE))
			ck_assert(e->flags & COMMAND_LOAD);
		ck_assert_msg(!(e->flags & COMMAND_ADMIN) ||
		    e->help_usage == NULL, "%s is in the help mail", name);
		/* A forged From never runs an admin command. */
		ck_assert_msg(!(e->flags & COMMAND_ADMIN) ||
		    (e->flags & COMMAND_CONFIRM), "%s unconfirmed", name);
		ck_assert_int_eq(!(e->flags & COMMAND_ADMIN),
		    strncmp(name, "admin ", 6) != 0);
		ck_assert(!e->help_usage == !e->help_text);
		n++;
	}
	ck_assert_int_eq(n, CMD_NKINDS - 1);
	ck_assert_int_eq(ref_command(CMD_NONE)->kind, CMD_NONE);
}
END_TEST

/* 1. A forged From without a token changes nothing. */
START_TEST(forged_from_no_token)
{
	struct world w;
	struct play_game g;
	struct outs o;
	char move[GAME_MOVE_TEXT], *body, *before, *after, *subject;
	int64_t id;
	int seat;

	w_open(&w, "forged", NULL);
	id = w_mancala(&w);
	w_load(&w, id, &g);
	seat = seat_to_move(&g);
	legal_text(&g, seat, 0, move, sizeof(move));
	play_free(&g);
	before = w_fingerprint(&w, id);
	body = xasprintf("move #%lld %s", (long long)id, move);

	/* No tag at all, then the game's tag without a token, then a made-up
	 * token: all from the seat's own address. */
	free(w_send(&w, players[seat], "my move", body));
	w_take(&w, &o);
	assert_auth_refusal(&o, players[seat]);
	outs_free(&o);
	subject = xasprintf("Re: [ludus #%lld] Your move", (long long)id);
	free(w_send(&w, players[seat], subject, body));
	free(subject);
	w_take(&w, &o);
	assert_auth_refusal(&o, players[seat]);
	outs_free(&o);
	subject = xasprintf("Re: [ludus #%lld aaaaaaaaaa] Your move",
	    (long long)id);
	free(w_send(&w, players[seat], subject, body));
	free(subject);
	w_take(&w, &o);
	assert_auth_refusal(&o, players[seat]);
	outs_free(&o);
	after = w_fingerprint(&w, id);
	ck_assert_str_eq(before, after);
	free(after);

	/* The same move with the token is played: only the token was
	 * missing. */
	free(w_send_seat(&w, id, seat, players[seat], body));
	after = w_fingerprint(&w, id);
	ck_assert_str_ne(before, after);
	w_take(&w, &o);
	ck_assert_int_ge(outs_count_to(&o, players[!seat]), 1);
	outs_free(&o);
	free(after);
	free(before);
	free(body);
	w_close(&w);
}
END_TEST

/* 2. The token of game A is refused in game B. */
START_TEST(token_of_other_game)
{
	struct world w;
	struct play_game g;
	struct outs o;
	char move[GAME_MOVE_TEXT], token[TOKEN_LEN + 1], *body, *subject;
	char *before_a, *before_b, *fp;
	int64_t a, b;
	int seat;

	w_open(&w, "othergame", NULL);
	a = w_mancala(&w);
	b = w_mancala(&w);
	ck_assert_int_ne(a, b);
	w_load(&w, b, &g);
	seat = seat_to_move(&g);
	legal_text(&g, seat, 0, move, sizeof(move));
	play_free(&g);
	before_a = w_fingerprint(&w, a);
	before_b = w_fingerprint(&w, b);
	body = xasprintf("move #%lld %s", (long long)b, move);
	token_make(&w.r.secret, a, seat, token);

	/* A's own tag on a command for B. */
	subject = xasprintf("Re: [ludus #%lld %s] Your move", (long long)a,
	    token);
	free(w_send(&w, players[seat], subject, body));
	free(subject);
	w_take(&w, &o);
	assert_auth_refusal(&o, players[seat]);
	ck_assert(strstr(o.v[0].body, "the token of another game") != NULL);
	outs_free(&o);

	/* A's token under B's number. */
	subject = xasprintf("Re: [ludus #%lld %s] Your move", (long long)b,
	    token);
	free(w_send(&w, players[seat], subject, body));
	free(subject);
	w_take(&w, &o);
	assert_auth_refusal(&o, players[seat]);
	outs_free(&o);

	/* A's token in a plus address for B. */
	subject = xasprintf("referee+%lld.%s@ludus.example", (long long)b,
	    token);
	{
		char *raw = xasprintf("From: <%s>\r\nTo: <%s>\r\n"
		    "Subject: my move\r\nMessage-ID: <plus.%lld@p.example>\r\n"
		    "\r\n%s\r\n", players[seat], subject, (long long)w.now,
		    body);

		free(w_deliver(&w, raw));
		free(raw);
	}
	free(subject);
	w_take(&w, &o);
	assert_auth_refusal(&o, players[seat]);
	ck_assert_msg(strstr(o.v[0].body, "a token that is not yours") != NULL,
	    "%s", o.v[0].body);
	outs_free(&o);

	fp = w_fingerprint(&w, a);
	ck_assert_str_eq(before_a, fp);
	free(fp);
	fp = w_fingerprint(&w, b);
	ck_assert_str_eq(before_b, fp);
	free(fp);

	/* B's token works for B. */
	free(w_send_seat(&w, b, seat, players[seat], body));
	fp = w_fingerprint(&w, b);
	ck_assert_str_ne(before_b, fp);
	free(fp);
	w_take(&w, &o);
	outs_free(&o);
	free(before_a);
	free(before_b);
	free(body);
	w_close(&w);
}
END_TEST

/* 3. Seat 1's token from seat 2's address is refused. */
START_TEST(token_and_sender_must_agree)
{
	struct world w;
	struct play_game g;
	struct outs o;
	char move[GAME_MOVE_TEXT], *body, *before, *fp;
	int64_t id;
	int seat;

	w_open(&w, "agree", NULL);
	id = w_mancala(&w);
	w_load(&w, id, &g);
	seat = seat_to_move(&g);
	legal_text(&g, seat, 0, move, sizeof(move));
	play_free(&g);
	before = w_fingerprint(&w, id);
	body = xasprintf("move #%lld %s", (long long)id, move);

	/* The seat to move sends its move with the other seat's token. */
	free(w_send_seat(&w, id, !seat, players[seat], body));
	w_take(&w, &o);
	assert_auth_refusal(&o, players[seat]);
	ck_assert(strstr(o.v[0].body, "a token that is not yours") != NULL);
	outs_free(&o);
	/* The other seat sends the mover's move with the mover's token. */
	free(w_send_seat(&w, id, seat, players[!seat], body));
	w_take(&w, &o);
	assert_auth_refusal(&o, players[!seat]);
	outs_free(&o);
	/* And a stranger with the mover's token. */
	free(w_send_seat(&w, id, seat, STRANGER, body));
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 1);
	ck_assert_ptr_nonnull(outs_find(&o, STRANGER));
	ck_assert(strstr(o.v[0].body, "you have no seat in game") != NULL);
	outs_free(&o);
	fp = w_fingerprint(&w, id);
	ck_assert_str_eq(before, fp);
	free(fp);

	free(w_send_seat(&w, id, seat, players[seat], body));
	fp = w_fingerprint(&w, id);
	ck_assert_str_ne(before, fp);
	free(fp);
	w_take(&w, &o);
	outs_free(&o);
	free(before);
	free(body);
	w_close(&w);
}
END_TEST

/*
 * 4. Hidden cards.
 *
 * How cards print decides how this can be checked.  Spite & Malice
 * prints ranks only ("A 2 10 K"), so a rank seen in a mail says nothing
 * about which card it is; Aluette prints "3co" (rank and suit, unique),
 * but the same card may honestly appear as part of an earlier trick
 * ("Last trick of hand 1: ... 3co") while it now lies in another hand.
 * A search for printed forms would either miss leaks or raise false
 * alarms, so the check is counterfactual instead:
 *
 *   For each mail queued to a seat s, the referee's own mail-writing code
 *   (refview_fanout, reflife_over: the functions the commands call) is
 *   run twice more inside a transaction that is rolled back: once over
 *   the real state, and that mail must come out byte for byte the one
 *   actually queued (so the regeneration is faithful), and once over
 *   determinize(state, s), a different deal of every card s cannot see
 *   (other hands, stock, undealt cards, hidden discards, the generator of
 *   later deals) consistent with what s sees; the mail must again come
 *   out identical.  A mail that told s anything about those cards would
 *   differ.  That a determinized deal does change other seats' mails is
 *   asserted too, so the comparison is not vacuous.  Observers' mails
 *   must come out identical under the determinization for every seat:
 *   they may show only what all four see.
 *
 * The state is not all a mail is made from: the move log is, too (the
 * last move, `history`), and determinize cannot touch it.  So the log is
 * checked by the rules: a move whose notation names a card the others do
 * not see (an Aluette changer discard: rules.md, "discards are not seen
 * by others") and a signal a reader may not see must not appear in that
 * reader's mail, nor in their `history`.
 */

struct hidden {
	struct world	*w;
	int64_t		 id;
	struct rng	 rng;
	long		 mails;		/* mails checked */
	long		 differed;	/* others' mails a new deal changed */
	long		 hidden_moves;	/* hidden logged moves looked for */
	long		 observed;	/* observers' mails checked */
	const char	*invite_name;	/* the inviter, for invitation mails */
	/* Of the last play_by_mail: the mails to seats other than the
	 * mover, and the longest body of a move mail. */
	int		 to_others;
	size_t		 longest;
	char		 longest_body[4096];
};

static void
invitation_extra(struct tmpl_data *d, void *arg, int viewer)
{
	const struct hidden *h = arg;
	struct play_game g;
	char when[40];

	w_load(h->w, h->id, &g);
	ref_utc(g.row.expires, when, sizeof(when));
	tmpl_set(d, "inviter.name", h->invite_name);
	tmpl_set(d, "inviter.admin", "");
	tmpl_set(d, "inviter.you", viewer >= 0 &&
	    strcmp(g.address[viewer], h->invite_name) == 0 ? "1" : "");
	tmpl_set(d, "invitation.expires", when);
	play_free(&g);
}

static void
observe_extra(struct tmpl_data *d, void *arg, int viewer)
{
	(void)arg;
	(void)viewer;
	tmpl_set(d, "observe.on", "1");
}

/* The mails tmplname would make for game h->id with state st in place
 * of the real one (nothing is kept). */
static void
regenerate(struct hidden *h, const char *tmplname, const void *st,
    struct outs *o)
{
	struct world *w = h->w;
	struct play_game g, copy;
	struct ref_msg x;
	void *real;
	int rc;

	w_load(w, h->id, &g);
	real = g.st;
	copy = g;
	copy.st = xmalloc(g.def->ops->state_size);
	memcpy(copy.st, st, g.def->ops->state_size);
	memset(&x, 0, sizeof(x));
	x.r = &w->r;
	x.key = "regenerated";
	x.now = w->now - 1;	/* the time the real mails were written */
	ck_assert_int_eq(store_begin(w->s), 0);
	if (strcmp(tmplname, "end") == 0)
		rc = reflife_over(&x, &copy, NULL);
	else if (strcmp(tmplname, "invitation") == 0)
		rc = refview_fanout(&x, &copy, tmplname, REFVIEW_SEATS,
		    invitation_extra, h);
	else if (strcmp(tmplname, "observe") == 0)
		rc = refview_fanout(&x, &copy, tmplname, REFVIEW_OBSERVERS,
		    observe_extra, NULL);
	else
		rc = refview_fanout(&x, &copy, tmplname, REFVIEW_SEATS |
		    REFVIEW_OBSERVERS, NULL, NULL);
	ck_assert_int_eq(rc, 0);
	{
		struct store_mail *rows;
		int n, i;

		ck_assert_int_eq(store_outbox_due(w->s, FAR_FUTURE, MAX_TAKE,
		    &rows, &n), 0);
		o->v = xcalloc((size_t)n + 1, sizeof(*o->v));
		for (i = 0; i < n; i++) {
			o->v[i].to = xstrdup(rows[i].recipients);
			o->v[i].game = rows[i].game;
			raw_out(rows[i].data, &o->v[i]);
		}
		o->n = n;
		store_mails_free(rows, n);
	}
	store_rollback(w->s);
	free(copy.st);
	g.st = real;
	play_free(&g);
}

/* May a reader (a seat or GAME_PUBLIC) know of this logged move, by the
 * rules?  An Aluette changer discard is seen by its player alone; a
 * signal (signals=partner) by the partnership alone. */
static int
log_visible(const struct play_game *g, const struct store_move *mv,
    int reader)
{
	const struct game_ops *ops = g->def->ops;

	if (mv->seat == reader)
		return 1;
	if (strcmp(ops->name, "aluette") != 0)
		return 1;
	if (strncmp(mv->notation, "discard ", 8) == 0)
		return 0;
	if (strncmp(mv->notation, "signal ", 7) == 0)
		return reader >= 0 && ops->partner(g->st, mv->seat) == reader;
	return 1;
}

/* Logged moves a reader may not know of must not be in the mail.  The
 * same text may stand for something the reader does see (its own discard
 * of that card in another hand, the partner's signal of the same word, a
 * legal move of its own now that the card is in its hand): such a text
 * proves nothing and is not looked for. */
static void
log_check(struct hidden *h, const struct play_game *g, int reader,
    const struct out *m)
{
	struct store_move *log;
	struct buf legal = { 0 };
	char *line;
	int n, i, j, seen;

	if (reader >= 0)
		game_legal_text(g->def->ops, g->st, reader, &legal);
	ck_assert_int_eq(store_moves(h->w->s, h->id, &log, &n), 0);
	for (i = 0; i < n; i++) {
		if (log_visible(g, &log[i], reader))
			continue;
		for (j = 0, seen = 0; j < n && !seen; j++)
			seen = strcmp(log[j].notation, log[i].notation) == 0 &&
			    log_visible(g, &log[j], reader);
		line = xasprintf("\n%s\n", log[i].notation);
		seen |= legal.len > 0 && strstr(buf_str(&legal), line + 1) ==
		    buf_str(&legal);
		seen |= strstr(buf_str(&legal), line) != NULL;
		free(line);
		if (seen)
			continue;
		h->hidden_moves++;
		ck_assert_msg(strstr(m->body, log[i].notation) == NULL &&
		    strstr(m->subject, log[i].notation) == NULL,
		    "the mail to %s shows `%s` of seat %d:\n%s\n%s", m->to,
		    log[i].notation, log[i].seat, m->subject, m->body);
	}
	buf_free(&legal);
	store_moves_free(log, n);
}

/* The regenerated mail r reads as the mail m that was sent. */
static void
same_mail(const struct out *m, const struct out *r, const char *tmplname,
    int view)
{
	struct out dec;

	if (strcmp(r->raw_subject, m->raw_subject) == 0 &&
	    strcmp(r->raw_body, m->raw_body) == 0)
		return;
	memset(&dec, 0, sizeof(dec));
	parse_out(r->data, &dec);
	ck_assert_msg(0, "the %s mail to %s %s:\n--- sent\n%s\n%s\n"
	    "--- %s\n%s\n%s", tmplname, m->to, view < 0 ? "is not what "
	    "the referee makes of the game" : "changes when the cards it "
	    "cannot see are dealt otherwise", m->subject, m->body,
	    view < 0 ? "regenerated" : "other deal", dec.subject, dec.body);
}

/* Check every game mail in o (just queued) as explained above. */
static void
hidden_check(struct hidden *h, const char *tmplname, const struct outs *o)
{
	const struct game_ops *ops;
	struct play_game g;
	struct outs base, alt[GAME_MAX_SEATS];
	int i, t, reader, nseats;
	void *st;

	w_load(h->w, h->id, &g);
	ops = g.def->ops;
	nseats = g.row.nseats;
	memset(alt, 0, sizeof(alt));
	regenerate(h, tmplname, g.st, &base);
	st = xmalloc(ops->state_size);
	for (t = 0; t < nseats; t++) {
		memcpy(st, g.st, ops->state_size);
		ops->determinize(st, t, &h->rng);
		regenerate(h, tmplname, st, &alt[t]);
	}
	free(st);
	for (i = 0; i < o->n; i++) {
		const struct out *m = &o->v[i], *r;

		/* The sender's own "Done:" answer shows no game view, only
		 * the lines they sent. */
		if (m->game != h->id || (strlen(m->subject) > 6 &&
		    strcmp(m->subject + strlen(m->subject) - 6, "] Done") == 0))
			continue;
		reader = play_seat(&g, m->to);
		r = outs_find(&base, m->to);
		ck_assert_msg(r != NULL, "no %s mail regenerated for %s",
		    tmplname, m->to);
		same_mail(m, r, tmplname, -1);
		for (t = 0; t < nseats; t++) {
			r = outs_find(&alt[t], m->to);
			ck_assert_ptr_nonnull(r);
			if (reader >= 0 && t != reader) {
				/* Another seat's cards were dealt anew:
				 * this reader's mail may change. */
				h->differed += strcmp(r->raw_body,
				    m->raw_body) != 0;
				continue;
			}
			same_mail(m, r, tmplname, t);
		}
		log_check(h, &g, reader, m);
		h->mails++;
		h->observed += reader < 0;
	}
	outs_free(&base);
	for (t = 0; t < nseats; t++)
		outs_free(&alt[t]);
	play_free(&g);
}

/* Send a line for a seat and check the mails it made. */
static void
play_by_mail(struct hidden *h, int seat, const char *cmd, const char *text)
{
	struct world *w = h->w;
	struct play_game g;
	struct outs o;
	char *body, *outcome;
	const char *tmplname;
	int i, k, reader;

	body = xasprintf("%s #%lld %s", cmd, (long long)h->id, text);
	outcome = w_send_seat(w, h->id, seat, players[seat], body);
	ck_assert_msg(strstr(outcome, "1 applied") != NULL, "`%s`: %s", body,
	    outcome);
	free(outcome);
	free(body);
	w_load(w, h->id, &g);
	tmplname = strcmp(g.row.status, "finished") == 0 ? "end" : "move";
	play_free(&g);
	w_take(w, &o);
	ck_assert_int_gt(o.n, 0);
	hidden_check(h, tmplname, &o);
	h->to_others = 0;
	h->longest = 0;
	for (i = 0; i < o.n; i++) {
		reader = -1;
		for (k = 0; k < GAME_MAX_SEATS; k++)
			if (strcmp(o.v[i].to, players[k]) == 0)
				reader = k;
		h->to_others += reader >= 0 && reader != seat;
		if (strcmp(tmplname, "move") == 0 &&
		    strlen(o.v[i].body) > h->longest) {
			h->longest = strlen(o.v[i].body);
			util_strlcpy(h->longest_body, o.v[i].body,
			    sizeof(h->longest_body));
		}
	}
	outs_free(&o);
}

/* Propose, accept, observe: the game begins. */
static void
start_game(struct hidden *h, const char *newline, int nseats)
{
	struct world *w = h->w;
	struct play_game g;
	struct outs o;
	char *body, *outcome;
	const char *cookie;
	int i;

	free(w_send(w, players[0], "new game", newline));
	h->id = w_newest_game(w);
	h->invite_name = players[0];
	w_take(w, &o);
	ck_assert_int_eq(o.n, nseats);
	hidden_check(h, "invitation", &o);
	outs_free(&o);
	for (i = 0; i < nseats; i++) {
		body = xasprintf("accept #%lld", (long long)h->id);
		outcome = w_send_seat(w, h->id, i, players[i], body);
		ck_assert_msg(strstr(outcome, "1 applied") != NULL, "%s",
		    outcome);
		free(outcome);
		free(body);
		w_take(w, &o);
		/* Nobody hears of another seat's acceptance: the accepter
		 * gets its answer, the seats hear when the game begins. */
		if (i < nseats - 1) {
			ck_assert_int_eq(o.n, 1);
			ck_assert_str_eq(o.v[0].to, players[i]);
		} else {
			ck_assert_int_eq(o.n, nseats);
			hidden_check(h, "game-start", &o);
		}
		outs_free(&o);
	}
	w_load(w, h->id, &g);
	ck_assert_str_eq(g.row.status, "active");
	play_free(&g);
	body = xasprintf("observe #%lld", (long long)h->id);
	free(w_send(w, OBSERVER, "observe", body));
	free(body);
	/* From alone proves nothing: the confirmation round trip first. */
	w_take(w, &o);
	ck_assert_int_eq(o.n, 1);
	cookie = strstr(o.v[0].body, "\n  confirm ");
	ck_assert_ptr_nonnull(cookie);
	body = xasprintf("confirm %.20s", cookie + 11);
	outs_free(&o);
	free(w_send(w, OBSERVER, "confirm", body));
	free(body);
	w_take(w, &o);
	ck_assert_int_eq(o.n, 1);
	hidden_check(h, "observe", &o);
	outs_free(&o);
}

/* After the end: every seat's and the observer's `history`. */
static void
history_check(struct hidden *h, int nseats)
{
	struct world *w = h->w;
	struct play_game g;
	struct outs o;
	char *body;
	int i;

	w_load(w, h->id, &g);
	body = xasprintf("history #%lld", (long long)h->id);
	for (i = 0; i <= nseats; i++) {
		free(w_send(w, i < nseats ? players[i] : OBSERVER, "history",
		    body));
		w_take(w, &o);
		ck_assert_int_eq(o.n, 1);
		ck_assert_msg(strstr(o.v[0].subject, "the moves") != NULL,
		    "%s", o.v[0].subject);
		log_check(h, &g, i < nseats ? i : GAME_PUBLIC, &o.v[0]);
		outs_free(&o);
	}
	free(body);
	play_free(&g);
}

START_TEST(hidden_cards_aluette)
{
	struct world w;
	struct hidden h;
	struct play_game g;
	unsigned char seed[RNG_SEED_LEN];
	char move[GAME_MOVE_TEXT];
	struct game_move mv[GAME_MAX_MOVES];
	int seat, n, k, nmoves = 0, nsignals = 0, ndiscards = 0;
	struct rng pick;

	w_open(&w, "aluette", NULL);
	memset(&h, 0, sizeof(h));
	h.w = &w;
	rng_seed_from_u64(seed, 7);
	rng_init(&h.rng, seed);
	rng_seed_from_u64(seed, 11);
	rng_init(&pick, seed);
	/* changer=true: hidden discards; signals=partner: signals seen by
	 * the partnership only; teams=fixed keeps the boards short. */
	start_game(&h, "new aluette teams=fixed changer=true signals=partner "
	    "bob@club.example cat@club.example dan@club.example", 4);
	for (;;) {
		w_load(&w, h.id, &g);
		if (strcmp(g.row.status, "active") != 0) {
			play_free(&g);
			break;
		}
		seat = seat_to_move(&g);
		n = g.def->ops->legal(g.st, seat, mv, GAME_MAX_MOVES);
		ck_assert_int_gt(n, 0);
		/* Mostly `change`, so most hands have a changer round. */
		k = (int)rng_below(&pick, (uint32_t)n);
		g.def->ops->format_move(g.st, seat, &mv[0], move,
		    sizeof(move));
		if (strcmp(move, "change") == 0)
			k = rng_below(&pick, 10) == 0;
		g.def->ops->format_move(g.st, seat, &mv[k], move,
		    sizeof(move));
		play_free(&g);
		/* Now and then the seat to move signals to its partner
		 * first. */
		if (nmoves % 23 == 5) {
			play_by_mail(&h, seat, "signal", "useless");
			nsignals++;
		}
		ndiscards += strncmp(move, "discard ", 8) == 0;
		play_by_mail(&h, seat, "move", move);
		/* A move mail stays short: at most 1,600 bytes of text. */
		ck_assert_msg(h.longest <= 1600, "a move mail of %zu bytes "
		    "after `%s`:\n%s", h.longest, move, h.longest_body);
		nmoves++;
		ck_assert_int_lt(nmoves, 1000);
	}
	ck_assert_int_gt(ndiscards, 0);
	ck_assert_int_gt(nsignals, 0);
	ck_assert_int_gt(h.differed, 0);
	ck_assert_int_gt(h.hidden_moves, 0);
	ck_assert_int_gt(h.observed, 0);
	history_check(&h, 4);
	w_close(&w);
}
END_TEST

/* A changer discard: its player sees the card, the others that a card
 * was discarded, in the move mails and in `history`. */
START_TEST(changer_discard_face_down)
{
	struct world w;
	struct hidden h;
	struct play_game g;
	struct outs o;
	unsigned char seed[RNG_SEED_LEN];
	char move[GAME_MOVE_TEXT], *body;
	int seat, i, asks = 0;

	w_open(&w, "discard", NULL);
	memset(&h, 0, sizeof(h));
	h.w = &w;
	rng_seed_from_u64(seed, 19);
	rng_init(&h.rng, seed);
	start_game(&h, "new aluette teams=fixed changer=true "
	    "bob@club.example cat@club.example dan@club.example", 4);
	for (;;) {
		w_load(&w, h.id, &g);
		seat = seat_to_move(&g);
		legal_text(&g, seat, 0, move, sizeof(move));
		play_free(&g);
		if (strcmp(move, "change") != 0)
			break;
		play_by_mail(&h, seat, "move", "change");
		ck_assert_int_le(++asks, 4);
	}
	ck_assert_int_eq(asks, 4);
	ck_assert_msg(strncmp(move, "discard ", 8) == 0, "%s", move);
	body = xasprintf("move #%lld %s", (long long)h.id, move);
	free(w_send_seat(&w, h.id, seat, players[seat], body));
	free(body);
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 5);
	for (i = 0; i < o.n; i++) {
		const struct out *m = &o.v[i];

		if (strcmp(m->to, players[seat]) == 0) {
			ck_assert_msg(strstr(m->subject, move) != NULL, "%s",
			    m->subject);
			continue;
		}
		ck_assert_msg(strstr(m->subject, "discard (face down)") !=
		    NULL, "%s", m->subject);
		ck_assert_msg(strstr(m->body, move) == NULL, "%s", m->body);
	}
	outs_free(&o);
	body = xasprintf("history #%lld", (long long)h.id);
	for (i = 0; i < 4; i++) {
		free(w_send(&w, players[i], "history", body));
		w_take(&w, &o);
		ck_assert_int_eq(o.n, 1);
		if (i == seat)
			ck_assert(strstr(o.v[0].body, move) != NULL);
		else {
			ck_assert(strstr(o.v[0].body, move) == NULL);
			ck_assert(strstr(o.v[0].body, "discard (face down)") !=
			    NULL);
		}
		outs_free(&o);
	}
	free(body);
	w_close(&w);
}
END_TEST

/* The seat's move for Spite & Malice: the payoff top when it can go,
 * else another play to the centre, else a discard, so rounds end by
 * payoff piles running out rather than dragging on. */
static int
spite_pick(const struct play_game *g, int seat, const struct game_move *mv,
    int n, struct rng *pick)
{
	char text[GAME_MOVE_TEXT];
	int i, centre = -1;

	for (i = 0; i < n; i++) {
		g->def->ops->format_move(g->st, seat, &mv[i], text,
		    sizeof(text));
		if (text[0] == 'p')
			return i;
		if (strstr(text, " c") != NULL && centre < 0 &&
		    rng_below(pick, 3) != 0)
			centre = i;
	}
	return centre >= 0 ? centre : (int)rng_below(pick, (uint32_t)n);
}

START_TEST(hidden_cards_spite)
{
	struct world w;
	struct hidden h;
	struct play_game g;
	unsigned char seed[RNG_SEED_LEN];
	char move[GAME_MOVE_TEXT];
	const char *json, *p;
	struct game_move mv[GAME_MAX_MOVES];
	struct buf b = { 0 };
	int seat, n, k, nmoves = 0, turns = 0, ends;
	struct rng pick;

	w_open(&w, "spite", NULL);
	memset(&h, 0, sizeof(h));
	h.w = &w;
	rng_seed_from_u64(seed, 13);
	rng_init(&h.rng, seed);
	rng_seed_from_u64(seed, 17);
	rng_init(&pick, seed);
	/* A round scores at most the 2 cards of a payoff pile, so a target
	 * of 3 takes at least two rounds. */
	start_game(&h, "new spite payoff=2 target=3 bob@club.example", 2);
	for (;;) {
		w_load(&w, h.id, &g);
		if (strcmp(g.row.status, "active") != 0)
			break;
		seat = seat_to_move(&g);
		n = g.def->ops->legal(g.st, seat, mv, GAME_MAX_MOVES);
		ck_assert_int_gt(n, 0);
		k = spite_pick(&g, seat, mv, n, &pick);
		g.def->ops->format_move(g.st, seat, &mv[k], move,
		    sizeof(move));
		play_free(&g);
		play_by_mail(&h, seat, "move", move);
		/* The opponent hears of a turn once, when it ends with the
		 * discard (or `end`), or the round or match is over. */
		w_load(&w, h.id, &g);
		ends = strcmp(g.row.status, "active") != 0 ||
		    !(g.def->ops->to_move(g.st) & (1u << seat)) ||
		    strcmp(move, "end") == 0 || strstr(move, " s") != NULL;
		play_free(&g);
		ck_assert_msg(h.to_others == (ends ? 1 : 0), "`%s`: %d mails "
		    "to the opponent", move, h.to_others);
		turns += ends;
		nmoves++;
		ck_assert_int_lt(nmoves, 3000);
	}
	/* At least two rounds were played: the engine's own record. */
	g.def->ops->export_json(g.st, &b);
	json = buf_str(&b);
	ck_assert_ptr_nonnull(p = strstr(json, "\"round\":"));
	ck_assert_msg(atoi(p + 8) >= 2, "%s", json);
	buf_free(&b);
	play_free(&g);
	ck_assert_int_gt(h.differed, 0);
	ck_assert_int_gt(h.observed, 0);
	/* Several actions made most turns. */
	ck_assert_int_lt(turns, nmoves);
	history_check(&h, 2);
	w_close(&w);
}
END_TEST

/* 5. Error replies quote the failing line, capped, and nothing else. */
START_TEST(error_reply_is_short)
{
	struct world w;
	struct outs o;
	struct buf body = { 0 };
	char *out;
	int i;

	w_open(&w, "short", NULL);
	/* A bad first command, far longer than any cap, its tail marked. */
	buf_adds(&body, "frobnicate the referee ");
	for (i = 0; i < 300; i++)
		buf_adds(&body, "padding ");
	buf_adds(&body, "MARK-TAIL-7Q\r\n\r\n");
	buf_adds(&body, "MARK-AFTER-BLANK-3Z\r\n");
	buf_adds(&body, "On Wed, 18 Nov 2026, referee wrote:\r\n");
	while (body.len < 100 * 1024)
		buf_adds(&body, "> MARK-QUOTED-9X the referee's old mail, "
		    "quoted back in full by a mail client\r\n");
	out = w_send(&w, players[0], "hello", buf_str(&body));
	ck_assert_msg(strstr(out, "failed") != NULL, "%s", out);
	free(out);
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 1);
	ck_assert_str_eq(o.v[0].to, players[0]);
	ck_assert(strstr(o.v[0].body, "frobnicate the referee") != NULL);
	ck_assert(strstr(o.v[0].body, "MARK-TAIL-7Q") == NULL);
	ck_assert(strstr(o.v[0].subject, "MARK-TAIL-7Q") == NULL);
	ck_assert_msg(strlen(o.v[0].subject) < 100, "%s", o.v[0].subject);
	ck_assert(strstr(o.v[0].body, "MARK-QUOTED-9X") == NULL);
	ck_assert_msg(strlen(o.v[0].body) < 4096, "%zu bytes",
	    strlen(o.v[0].body));
	outs_free(&o);

	/* Later command lines are listed as not tried (each capped); the
	 * quoted part after them is still left out. */
	buf_reset(&body);
	buf_adds(&body, "frobnicate\r\n\r\nlist MARK-LATER-5K\r\n");
	buf_adds(&body, "help ");
	for (i = 0; i < 100; i++)
		buf_adds(&body, "padding ");
	buf_adds(&body, "MARK-LATER-TAIL-2P\r\n");
	while (body.len < 100 * 1024)
		buf_adds(&body, "> MARK-QUOTED-9X quoted\r\n");
	out = w_send(&w, players[1], "hello", buf_str(&body));
	free(out);
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 1);
	ck_assert(strstr(o.v[0].body, "frobnicate") != NULL);
	ck_assert(strstr(o.v[0].body, "MARK-LATER-5K") != NULL);
	ck_assert(strstr(o.v[0].body, "MARK-LATER-TAIL-2P") == NULL);
	ck_assert(strstr(o.v[0].body, "MARK-QUOTED-9X") == NULL);
	ck_assert_msg(strlen(o.v[0].body) < 4096, "%zu bytes",
	    strlen(o.v[0].body));
	outs_free(&o);

	/* A message over limits.message_size is not read at all: the reply
	 * says so, and carries none of it. */
	buf_reset(&body);
	buf_adds(&body, "frobnicate MARK-BIG-4R\r\n");
	while (body.len < 2 * 1024 * 1024)
		buf_adds(&body, "MARK-BIG-4R and more, line after line\r\n");
	out = w_send(&w, players[2], "MARK-BIG-4R", buf_str(&body));
	free(out);
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 1);
	ck_assert(strstr(o.v[0].body, "MARK-BIG-4R") == NULL);
	ck_assert(strstr(o.v[0].subject, "MARK-BIG-4R") == NULL);
	ck_assert_msg(strlen(o.v[0].body) < 4096, "%zu bytes",
	    strlen(o.v[0].body));
	outs_free(&o);
	buf_free(&body);
	w_close(&w);
}
END_TEST

/* 6. A flood of bad commands: few replies, every message recorded. */
START_TEST(flood_is_rate_limited)
{
	struct world w;
	struct outs o;
	char id[64], *raw, *key, *sender, *cmds, *outcome;
	int i, limit, n;

	/* Not the default (5), so the count is the configured one. */
	w_open(&w, "flood", "limits:\n  error_replies: 3\n");
	limit = (int)w.cfg.limits.error_replies;
	ck_assert_int_eq(limit, 3);
	for (i = 0; i < 1000; i++) {
		snprintf(id, sizeof(id), "flood.%d@evil.example", i);
		raw = w_raw(&w, STRANGER, "hi", id, "frobnicate\r\n");
		free(w_deliver(&w, raw));
		free(raw);
	}
	w_take(&w, &o);
	n = outs_count_to(&o, STRANGER);
	ck_assert_int_eq(o.n, n);
	/* The configured limit, reached (the first errors are answered)
	 * and not passed. */
	ck_assert_int_eq(n, limit);
	/* The last one says so, and until when. */
	ck_assert_int_eq(outs_count_body(&o, "answered until 2026-11-18 "),
	    1);
	outs_free(&o);
	for (i = 0; i < 1000; i++) {
		snprintf(id, sizeof(id), "flood.%d@evil.example", i);
		key = intake_key(id, STRANGER, NULL, 0);
		ck_assert_msg(store_message_get(w.s, key, &sender, &cmds,
		    &outcome) == 0, "message %d not recorded", i);
		ck_assert_str_eq(sender, STRANGER);
		ck_assert_ptr_nonnull(outcome);
		ck_assert_msg(strstr(outcome, i < limit ? "error reply queued" :
		    "error reply rate-limited") != NULL, "%d: %s", i, outcome);
		free(sender);
		free(cmds);
		free(outcome);
		free(key);
	}
	/* Any of them again is seen before, and not answered. */
	raw = w_raw(&w, STRANGER, "hi", "flood.0@evil.example",
	    "frobnicate\r\n");
	outcome = w_deliver(&w, raw);
	ck_assert_msg(strstr(outcome, "seen before") != NULL, "%s", outcome);
	free(outcome);
	free(raw);
	/* An hour on, the sender is answered again. */
	w.now += 3601;
	free(w_send(&w, STRANGER, "hi", "frobnicate\r\n"));
	w_take(&w, &o);
	ck_assert_int_eq(outs_count_to(&o, STRANGER), 1);
	outs_free(&o);
	w_close(&w);
}
END_TEST

/* 7. A message seen again is not applied again. */
START_TEST(replay_not_applied)
{
	struct world w;
	struct play_game g;
	struct outs o;
	char move[GAME_MOVE_TEXT], *body, *subject, *raw, *fp1, *fp2, *out;
	int64_t id;
	int seat;

	w_open(&w, "replay", NULL);
	id = w_mancala(&w);
	w_load(&w, id, &g);
	seat = seat_to_move(&g);
	legal_text(&g, seat, 0, move, sizeof(move));
	play_free(&g);
	body = xasprintf("move #%lld %s", (long long)id, move);
	subject = w_subject(&w, id, seat);
	raw = w_raw(&w, players[seat], subject, "replayed.1@club.example",
	    body);
	free(w_deliver(&w, raw));
	fp1 = w_fingerprint(&w, id);
	w_take(&w, &o);
	ck_assert_int_gt(o.n, 0);
	outs_free(&o);

	/* The same bytes again, as after a crash before the mailbox was
	 * updated. */
	out = w_deliver(&w, raw);
	ck_assert_msg(strstr(out, "seen before") != NULL, "%s", out);
	free(out);
	fp2 = w_fingerprint(&w, id);
	ck_assert_str_eq(fp1, fp2);
	free(fp2);
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 0);
	outs_free(&o);
	free(raw);

	/* Same Message-ID and sender, other bytes (a resend with another
	 * Date, say): still the same message. */
	w_load(&w, id, &g);
	ck_assert_int_eq(seat_to_move(&g), !seat);
	legal_text(&g, !seat, 0, move, sizeof(move));
	play_free(&g);
	free(body);
	body = xasprintf("move #%lld %s", (long long)id, move);
	free(subject);
	subject = w_subject(&w, id, !seat);
	raw = w_raw(&w, players[!seat], subject, "replayed.2@club.example",
	    body);
	free(w_deliver(&w, raw));
	free(raw);
	free(fp1);
	fp1 = w_fingerprint(&w, id);
	w_take(&w, &o);
	outs_free(&o);
	raw = w_raw(&w, players[!seat], subject, "replayed.2@club.example",
	    "\r\n\r\nboard\r\n");
	out = w_deliver(&w, raw);
	ck_assert_msg(strstr(out, "seen before") != NULL, "%s", out);
	free(out);
	free(raw);
	fp2 = w_fingerprint(&w, id);
	ck_assert_str_eq(fp1, fp2);
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 0);
	outs_free(&o);
	free(fp1);
	free(fp2);
	free(body);
	free(subject);
	w_close(&w);
}
END_TEST

/* 8. Remarks around moves: for every game, lines that look like no move
 * of its notation are set aside and answered as such, mistyped moves
 * fail with the legal moves, and a move between remarks is played. */

struct chatter_case {
	const char	*newline;	/* the `new` command (ann proposes) */
	int		 nseats;
	const char	*aside[8];	/* remarks: set aside */
	const char	*fail[8];	/* mistyped moves: fail */
};

static const struct chatter_case chatter_cases[] = {
	{ "new mancala bob@club.example", 2,
	    { "Hi Dave,", "Good game so far.", "What a game, 2 captures "
	      "already!", "See you next week!", "I think I am losing",
	      "Cheers, Ann", "Dave", NULL },
	    { "7", "0", "3 6", "pit 3", "3 please", "12", "pit 9!", NULL } },
	{ "new alquerque bob@club.example", 2,
	    { "Hi Dave,", "Nice opening!", "Good luck with that stone on a3",
	      "I was away all week.", "Your move, I think", "Best wishes",
	      "(sent from my phone)", NULL },
	    { "f1-f2", "b2-c6", "a1-a2", "c3-c4", "b2 - b3", "b2xd4", "z9",
	      NULL } },
	{ "new almakleh bob@club.example", 2,
	    { "Hi Dave,", "Good game!", "That was a clever card.",
	      "I will be away until Monday", "Regards from Paris",
	      "What a start", NULL },
	    { "a1-e5", "f1-f2", "pass", "b1 b1", "c1-c5 please", "pass "
	      "nothing", NULL } },
	{ "new aluette bob@club.example cat@club.example dan@club.example",
	    4,
	    { "Hi partner,", "Bonne chance!", "Let us win this hand",
	      "I have a good feeling", "Cheers", "Who deals next?", NULL },
	    { "3cp", "10co", "play 3cp", "13sw", "discard 3co", "3", "play",
	      NULL } },
	{ "new spite bob@club.example", 2,
	    { "Hi Dave,", "Good game so far.", "What a hand I have",
	      "See you tomorrow!", "Best regards", "Ann", NULL },
	    { "p c4", "s5 c1", "x c1", "end", "c1", "K s9", NULL } },
};

/* Propose a game from ann and accept it from every seat. */
static int64_t
w_start(struct world *w, const char *newline, int nseats)
{
	struct play_game g;
	struct outs o;
	int64_t id;
	int i;

	free(w_send(w, players[0], "new game", newline));
	id = w_newest_game(w);
	w_load(w, id, &g);
	for (i = 0; i < nseats; i++) {
		char *body = xasprintf("accept #%lld", (long long)id);

		free(w_send_seat(w, id, i, g.address[i], body));
		free(body);
	}
	play_free(&g);
	w_load(w, id, &g);
	ck_assert_str_eq(g.row.status, "active");
	play_free(&g);
	w_take(w, &o);
	outs_free(&o);
	return id;
}

/*
 * An auto-responder's remarks in reply to every answer: in one hour at
 * most limits.error_replies (5) of them are answered per sender and game,
 * with the seat's token or without; another game's are counted apart, and
 * an hour later they are answered again.
 */
START_TEST(remarks_answered_a_few_times)
{
	struct world w;
	struct outs o;
	char *out;
	int64_t id, other;
	int k, answered = 0;

	w_open(&w, "vacation", NULL);
	id = w_start(&w, "new mancala bob@club.example", 2);
	other = w_start(&w, "new mancala bob@club.example", 2);
	char *bare = xasprintf("Re: [ludus #%lld]", (long long)id);

	for (k = 0; k < 8; k++) {
		out = k % 2 ? w_send_seat(&w, id, 1, "bob@club.example",
		    "I am on vacation.") : w_send(&w, "bob@club.example",
		    bare, "I am on vacation.");
		ck_assert_msg(strstr(out, "1 set aside") != NULL, "%s", out);
		ck_assert_int_eq(strstr(out, "answer rate-limited") != NULL,
		    k >= 5);
		free(out);
		w_take(&w, &o);
		answered += o.n;
		outs_free(&o);
		w.now += 60;
	}
	free(bare);
	ck_assert_int_eq(answered, 5);
	out = w_send_seat(&w, other, 1, "bob@club.example", "Still away.");
	w_take(&w, &o);
	ck_assert_msg(o.n == 1, "%s", out);
	free(out);
	outs_free(&o);
	w.now += 3600;
	out = w_send_seat(&w, id, 1, "bob@club.example", "Back soon.");
	w_take(&w, &o);
	ck_assert_msg(o.n == 1, "%s", out);
	free(out);
	outs_free(&o);
	w_close(&w);
}
END_TEST

START_TEST(remarks_set_aside_moves_fail)
{
	const struct chatter_case *cc = &chatter_cases[_i];
	struct world w;
	struct play_game g;
	struct outs o;
	const struct out *m;
	char move[GAME_MOVE_TEXT], *who, *before, *after, *out, *body;
	int64_t id;
	int seat, k;

	/* The limit of answers to remarks is not the test here
	 * (remarks_answered_a_few_times is). */
	w_open(&w, "chatter", "limits:\n  error_replies: 100\n");
	id = w_start(&w, cc->newline, cc->nseats);
	w_load(&w, id, &g);
	seat = seat_to_move(&g);
	who = xstrdup(g.address[seat]);
	legal_text(&g, seat, 0, move, sizeof(move));
	play_free(&g);
	before = w_fingerprint(&w, id);
	for (k = 0; cc->aside[k] != NULL; k++) {
		out = w_send_seat(&w, id, seat, who, cc->aside[k]);
		ck_assert_msg(strstr(out, ": 0 applied, 1 set aside") != NULL,
		    "`%s`: %s", cc->aside[k], out);
		free(out);
		w_take(&w, &o);
		ck_assert_int_eq(o.n, 1);
		m = &o.v[0];
		ck_assert_str_eq(m->to, who);
		ck_assert_msg(strstr(m->subject, "Not read:") != NULL, "%s",
		    m->subject);
		ck_assert_msg(strstr(m->body, cc->aside[k]) != NULL &&
		    strstr(m->body, "It is your turn. Legal moves now:") !=
		    NULL, "%s", m->body);
		outs_free(&o);
	}
	for (k = 0; cc->fail[k] != NULL; k++) {
		out = w_send_seat(&w, id, seat, who, cc->fail[k]);
		ck_assert_msg(strstr(out, "failed") != NULL, "`%s`: %s",
		    cc->fail[k], out);
		free(out);
		w_take(&w, &o);
		ck_assert_int_eq(o.n, 1);
		m = &o.v[0];
		ck_assert_msg(strstr(m->subject, "Not done") != NULL, "%s",
		    m->subject);
		ck_assert_msg(strstr(m->body, "Legal moves now:") != NULL,
		    "`%s`: %s", cc->fail[k], m->body);
		outs_free(&o);
		/* An hour between them: the error limit is not the test. */
		w.now += 3601;
	}
	after = w_fingerprint(&w, id);
	ck_assert_str_eq(before, after);
	free(after);

	/* A greeting above the move and a remark below it: the move is
	 * played, and the one answer to the mover lists both remarks. */
	body = xasprintf("%s\r\n%s\r\n%s\r\n", cc->aside[0], move,
	    cc->aside[1]);
	out = w_send_seat(&w, id, seat, who, body);
	ck_assert_msg(strstr(out, ": 1 applied, 2 set aside") != NULL, "%s",
	    out);
	free(out);
	free(body);
	after = w_fingerprint(&w, id);
	ck_assert_str_ne(before, after);
	w_take(&w, &o);
	ck_assert_int_eq(outs_count_to(&o, who), 1);
	m = outs_find(&o, who);
	ck_assert_msg(strstr(m->body, "Not read, taken for remarks") != NULL &&
	    strstr(m->body, cc->aside[0]) != NULL &&
	    strstr(m->body, cc->aside[1]) != NULL, "%s", m->body);
	outs_free(&o);
	free(before);

	/* "Thanks!" under a move, before the end, is a sign-off. */
	w_load(&w, id, &g);
	seat = seat_to_move(&g);
	free(who);
	who = xstrdup(g.address[seat]);
	legal_text(&g, seat, 0, move, sizeof(move));
	play_free(&g);
	body = xasprintf("%s\r\nThanks!\r\n", move);
	out = w_send_seat(&w, id, seat, who, body);
	ck_assert_msg(strstr(out, ": 1 applied, 1 set aside") != NULL, "%s",
	    out);
	free(out);
	free(body);
	w_take(&w, &o);
	ck_assert_int_eq(outs_count_to(&o, who), 1);
	outs_free(&o);
	free(after);
	free(who);
	w_close(&w);
}
END_TEST

/* 9. However many commands a mail holds, one answer: `help` once. */
START_TEST(thousand_helps_one_answer)
{
	struct world w;
	struct outs o;
	struct buf body = { 0 };
	const char *p;
	int i, n;

	w_open(&w, "helps", NULL);
	for (i = 0; i < 1000; i++)
		buf_adds(&body, "help\r\n");
	free(w_send(&w, players[0], "help", buf_str(&body)));
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 1);
	ck_assert_str_eq(o.v[0].to, players[0]);
	for (n = 0, p = o.v[0].body; (p = strstr(p, "`help GAME` gives")) !=
	    NULL; p++)
		n++;
	ck_assert_msg(n == 1, "help %d times:\n%s", n, o.v[0].body);
	ck_assert_msg(strstr(o.v[0].body, "Only the first 20 commands") !=
	    NULL, "%s", o.v[0].body);
	outs_free(&o);

	/* Many kinds of answers in one mail: still one mail. */
	buf_reset(&body);
	buf_adds(&body, "help\r\nlist\r\ngames\r\nset name Ann\r\nhelp "
	    "mancala\r\nlist\r\n");
	free(w_send(&w, players[0], "several", buf_str(&body)));
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 1);
	/* set name acts in the sender's name: confirmed first. */
	ck_assert_msg(strstr(o.v[0].body, "so it asks first") !=
	    NULL, "%s", o.v[0].body);
	outs_free(&o);

	/* help and list answer within their own cap, errors or not. */
	for (i = 0; i < 30 + 5; i++)
		free(w_send(&w, players[1], "list", "list\r\n"));
	w_take(&w, &o);
	ck_assert_int_eq(outs_count_to(&o, players[1]), 30);
	ck_assert_int_eq(outs_count_body(&o, "are not answered again until"),
	    1);
	outs_free(&o);
	/* Errors are answered all the same. */
	free(w_send(&w, players[1], "oops", "frobnicate\r\n"));
	w_take(&w, &o);
	ck_assert_int_eq(outs_count_to(&o, players[1]), 1);
	outs_free(&o);
	buf_free(&body);
	w_close(&w);
}
END_TEST

/* 10. Forged mail in a player's name: at most one answer each, counted
 * apart from the player's own, whose next error is still answered. */
START_TEST(forged_mail_spares_real_allowance)
{
	struct world w;
	struct play_game g;
	struct outs o;
	char move[GAME_MOVE_TEXT], *body, *out;
	int64_t id;
	int seat, i, n;

	w_open(&w, "forgedcap", NULL);
	id = w_mancala(&w);
	w_load(&w, id, &g);
	seat = seat_to_move(&g);
	legal_text(&g, seat, 0, move, sizeof(move));
	play_free(&g);
	/* Five forged moves, five commands each, no token. */
	body = xasprintf("move #%lld %s\r\nlist\r\nhelp\r\nboard #%lld\r\n"
	    "frobnicate\r\n", (long long)id, move, (long long)id);
	for (i = 0; i < 5; i++)
		free(w_send(&w, players[seat], "Your move", body));
	free(body);
	w_take(&w, &o);
	n = outs_count_to(&o, players[seat]);
	ck_assert_int_eq(o.n, n);
	ck_assert_int_le(n, 5);
	ck_assert_int_eq(n, (int)w.cfg.limits.error_replies);
	ck_assert_int_eq(outs_count_body(&o, "answered until"), 1);
	outs_free(&o);
	/* More forged mail is not answered at all. */
	free(w_send(&w, players[seat], "Your move", "frobnicate\r\n"));
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 0);
	outs_free(&o);
	/* The player's own mistake, in a reply with the token: answered. */
	out = w_send_seat(&w, id, seat, players[seat], "9");
	ck_assert_msg(strstr(out, "error reply queued") != NULL, "%s", out);
	free(out);
	w_take(&w, &o);
	ck_assert_int_eq(outs_count_to(&o, players[seat]), 1);
	ck_assert_msg(strstr(o.v[0].body, "Legal moves now") != NULL, "%s",
	    o.v[0].body);
	outs_free(&o);
	w_close(&w);
}
END_TEST

/* 11. A sender cannot make up DMARC results to be counted anew: only
 * pass, fail and none of our own MTA count apart. */
START_TEST(made_up_dmarc_results_share_a_count)
{
	struct world w;
	struct outs o;
	char *raw, *hdr;
	int i;

	w_open(&w, "dmarcs", "auth:\n  trust_authserv_id: mx.club.example\n");
	for (i = 0; i < 20; i++) {
		raw = w_raw(&w, STRANGER, "hi", NULL, "frobnicate\r\n");
		hdr = xasprintf("Authentication-Results: mx.club.example; "
		    "dmarc=made-up-%d header.from=evil.example\r\n%s", i, raw);
		free(w_deliver(&w, hdr));
		free(hdr);
		free(raw);
	}
	w_take(&w, &o);
	ck_assert_int_eq(o.n, (int)w.cfg.limits.error_replies);
	outs_free(&o);
	/* A failed DMARC check is counted apart from no check. */
	raw = w_raw(&w, STRANGER, "hi", NULL, "frobnicate\r\n");
	hdr = xasprintf("Authentication-Results: mx.club.example; dmarc=fail "
	    "header.from=evil.example\r\n%s", raw);
	free(w_deliver(&w, hdr));
	free(hdr);
	free(raw);
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 1);
	outs_free(&o);
	w_close(&w);
}
END_TEST

/*
 * rules.md, deck cycling: seven Almakleh games proposed in a row, the
 * referee stopped and started again (a new process over the same store)
 * after every second one, are dealt from one deck: every game after the
 * first goes on where the last left it (the deck never forgets), the
 * deck cycles at least twice, no card comes twice within a cycle, and
 * each game's options hold its deal=, so replaying it from the store
 * needs nothing of the deck.
 */
#define DECK_GAMES	7

/* The card a side name is on, by the definition's `card A ... | B ...`
 * lines. */
static int
deck_card_of(const char *data, const char *side)
{
	char *copy = xstrdup(data), *line, *save, *tok, *save2;
	int card = -1, n = 0;

	for (line = strtok_r(copy, "\n", &save); line != NULL && card < 0;
	    line = strtok_r(NULL, "\n", &save)) {
		if ((tok = strtok_r(line, " ", &save2)) == NULL ||
		    strcmp(tok, "card") != 0)
			continue;
		while ((tok = strtok_r(NULL, " ", &save2)) != NULL)
			if (strcmp(tok, side) == 0)
				card = n;
		n++;
	}
	free(copy);
	return card;
}

START_TEST(almakleh_deck_cycles_across_games)
{
	const struct gamedef *def;
	struct world w;
	struct play_game g;
	char *outcome, *cards, *p, *tok, *state, err[300];
	int seen[16][16] = { { 0 } }, game, cycle, turn, k, card, c;
	int last_cycle = 0, ncycles = 0;
	int64_t now;

	w_open(&w, "deck", NULL);
	def = gamedef_find(w.defs, w.ndefs, "almakleh");
	ck_assert_ptr_nonnull(def);
	for (game = 1; game <= DECK_GAMES; game++) {
		outcome = w_send(&w, players[0], "a game",
		    "new almakleh bob@club.example");
		free(outcome);
		if (game % 2 == 0 && game < DECK_GAMES) {
			now = w.now;
			w_stop(&w);
			w_boot(&w, NULL);
			w.now = now;
			def = gamedef_find(w.defs, w.ndefs, "almakleh");
		}
	}
	for (game = 1; game <= DECK_GAMES; game++) {
		ck_assert_int_eq(store_deck_deal(w.s, game, &cycle, &turn,
		    &cards), 0);
		/* After the first, each game takes the three cards the last
		 * one left and starts the next cycle with its fourth. */
		if (game == 1)
			ck_assert_int_eq(turn, 0);
		else {
			ck_assert_int_eq(turn, 3);
			ck_assert_int_eq(cycle, last_cycle);
		}
		ck_assert_int_eq(play_load(w.s, w.defs, w.ndefs, game, &g, err,
		    sizeof(err)), 0);
		p = xasprintf("deal=%s ", cards);
		ck_assert_msg(strstr(g.row.options, p) != NULL, "%s", g.row.options);
		free(p);
		/* The game replays from its own record. */
		ck_assert_int_eq(play_replay(w.s, &g, &state, err, sizeof(err)),
		    0);
		ck_assert_str_eq(state, g.row.state);
		free(state);
		play_free(&g);
		for (k = 0, p = cards; (tok = strsep(&p, ",/")) != NULL; k++) {
			c = turn > 0 && k >= turn ? cycle + 1 : cycle;
			ck_assert_int_lt(c, 16);
			card = deck_card_of(def->data, tok);
			ck_assert_int_ge(card, 0);
			ck_assert_msg(!seen[c][card], "game %d: %s twice in "
			    "cycle %d", game, tok, c);
			seen[c][card] = 1;
			if (c > ncycles)
				ncycles = c;
		}
		ck_assert_int_eq(k, 5);
		last_cycle = turn > 0 ? cycle + 1 : cycle;
		free(cards);
	}
	/* Shuffled again at least twice after the first shuffle. */
	ck_assert_int_ge(ncycles, 3);
	w_close(&w);
}
END_TEST

/* A Kalah game of ann against a level-1 robot, accepted, ann to move. */
static int64_t
w_robot_game(struct world *w)
{
	struct play_game g;
	struct outs o;
	int64_t id;
	char *body;

	free(w_send(w, players[0], "new game", "new kalah robot:1"));
	id = w_newest_game(w);
	body = xasprintf("accept #%lld", (long long)id);
	w_load(w, id, &g);
	free(w_send_seat(w, id, play_seat(&g, players[0]), players[0], body));
	play_free(&g);
	free(body);
	w_load(w, id, &g);
	ck_assert_str_eq(g.row.status, "active");
	ck_assert_int_eq(seat_to_move(&g), play_seat(&g, players[0]));
	play_free(&g);
	w_take(w, &o);
	outs_free(&o);
	return id;
}

static int
hold_ann(void *arg, const char *from)
{
	(void)arg;
	return strcmp(from, players[0]) == 0;
}

static enum intake_status
w_intake(struct world *w, const char *raw, char **outcome)
{
	*outcome = NULL;
	return intake_message(&w->r, raw, strlen(raw), w->now, outcome);
}

/* Play the line for whoever is to move in the game, committed (what an
 * operator's `ludus move` does), until ann is to move again. */
static void
w_play_until_ann(struct world *w, int64_t id, const char *first)
{
	struct play_game g;
	char move[GAME_MOVE_TEXT], err[300];
	int seat, k;

	ck_assert_int_eq(store_begin(w->s), 0);
	for (k = 0; k < 50; k++) {
		w_load(w, id, &g);
		seat = seat_to_move(&g);
		if (k > 0 && seat == play_seat(&g, players[0])) {
			play_free(&g);
			break;
		}
		if (k == 0)
			snprintf(move, sizeof(move), "%s", first);
		else
			legal_text(&g, seat, 0, move, sizeof(move));
		ck_assert_msg(play_line(w->s, &g, seat, move, w->now, err,
		    sizeof(err)) > 0, "%s", err);
		play_free(&g);
	}
	ck_assert_int_eq(store_commit(w->s), 0);
}

START_TEST(robot_apart_thinks_again)
{
	struct world w;
	struct referee_plans plans = { 0 };
	struct referee_robot *j;
	struct play_game g;
	struct outs o;
	char *raw, *raw2, *help, *fp, *fp2, *out, *subject;
	int64_t id;
	int seat, before, thought;

	w_open(&w, "robot-apart", NULL);
	id = w_robot_game(&w);
	w_load(&w, id, &g);
	seat = play_seat(&g, players[0]);
	play_free(&g);
	fp = w_fingerprint(&w, id);
	w.r.robots_apart = 1;
	w.r.plans = &plans;
	subject = w_subject(&w, id, seat);
	raw = w_raw(&w, players[0], subject, "apart.1@club.example", "1");

	/* The robot is to move after ann's 1: nothing is committed... */
	ck_assert_int_eq(w_intake(&w, raw, &out), INTAKE_ROBOT);
	ck_assert_msg(strstr(out, "waits for its robot") != NULL, "%s", out);
	free(out);
	j = referee_robot_take(&w.r);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(referee_robot_game(j), id);
	ck_assert_int_eq(referee_robot_moves(j), -1);
	fp2 = w_fingerprint(&w, id);
	ck_assert_str_eq(fp, fp2);
	free(fp2);
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 0);
	outs_free(&o);

	/* bob's help is answered meanwhile; ann's next mail waits (the
	 * daemon holds a sender while their message waits for a robot). */
	w.r.hold = hold_ann;
	help = w_raw(&w, players[1], "help", NULL, "help");
	ck_assert_int_eq(w_intake(&w, help, &out), INTAKE_DONE);
	free(out);
	free(help);
	w_take(&w, &o);
	ck_assert_int_eq(o.n, 1);
	ck_assert_str_eq(o.v[0].to, players[1]);
	outs_free(&o);
	raw2 = w_raw(&w, players[0], subject, "apart.2@club.example",
	    "board");
	ck_assert_int_eq(w_intake(&w, raw2, &out), INTAKE_WAIT);
	free(out);
	w.r.hold = NULL;

	/* While the robot thought, the game moved on: ann's 6 and the
	 * robot's answer, played by the operator.  ann's 1 is still legal,
	 * but the robot finds another position after it: it thinks again. */
	referee_robot_think(j);
	ck_assert_int_gt(referee_robot_moves(j), 0);
	referee_plans_add(&plans, j);
	w_play_until_ann(&w, id, "6");
	ck_assert_int_eq(w_intake(&w, raw, &out), INTAKE_ROBOT);
	free(out);
	j = referee_robot_take(&w.r);
	ck_assert_ptr_nonnull(j);
	w_load(&w, id, &g);
	before = g.row.nmoves;
	play_free(&g);
	referee_robot_think(j);
	thought = referee_robot_moves(j);
	ck_assert_int_gt(thought, 0);
	referee_plans_add(&plans, j);
	/* Now the game is where the robot saw it: applied, in one go. */
	ck_assert_int_eq(w_intake(&w, raw, &out), INTAKE_DONE);
	ck_assert_msg(strstr(out, "1 applied") != NULL, "%s", out);
	free(out);
	w_load(&w, id, &g);
	ck_assert_int_eq(g.row.nmoves, before + 1 + thought);
	ck_assert_int_eq(seat_to_move(&g), seat);
	play_free(&g);
	w_take(&w, &o);
	ck_assert_int_gt(outs_count_to(&o, players[0]), 0);
	outs_free(&o);

	/* Never twice: the same mail again is seen before. */
	free(fp);
	fp = w_fingerprint(&w, id);
	ck_assert_int_eq(w_intake(&w, raw, &out), INTAKE_DONE);
	ck_assert_msg(strstr(out, "seen before") != NULL, "%s", out);
	free(out);
	fp2 = w_fingerprint(&w, id);
	ck_assert_str_eq(fp, fp2);
	free(fp2);
	free(fp);
	free(raw);
	free(raw2);
	free(subject);
	w.r.plans = NULL;
	referee_plans_free(&plans);
	w_close(&w);
}
END_TEST

/* Conditional moves: they need the seat's token, a robot takes none, and
 * a reply played for a player who hears only of their turns still reaches
 * them. */
START_TEST(conditional_moves_edges)
{
	struct world w;
	struct play_game g;
	struct outs o;
	const struct out *m;
	char *subject, *out, *raw, *body, line[GAME_MOVE_TEXT];
	int64_t id;
	int s, opp;

	w_open(&w, "cond", NULL);
	id = w_mancala(&w);
	w_load(&w, id, &g);
	s = seat_to_move(&g);
	opp = !s;
	play_free(&g);
	/* Pit 1 of 4 seeds ends in pit 5: the turn passes. */
	free(w_send_seat(&w, id, s, players[s], "1\nset notify turn"));
	w_take(&w, &o);
	outs_free(&o);
	/* Without the token (a forged From) nothing is queued. */
	subject = xasprintf("Re: [ludus #%lld] Your move", (long long)id);
	raw = w_raw(&w, players[s], subject, NULL, "if 1 then 6");
	free(w_deliver(&w, raw));
	free(raw);
	free(subject);
	w_take(&w, &o);
	assert_auth_refusal(&o, players[s]);
	outs_free(&o);
	out = w_send_seat(&w, id, s, players[s], "if 1 then 6");
	ck_assert_msg(strstr(out, ": 1 applied") != NULL, "%s", out);
	free(out);
	w_take(&w, &o);
	outs_free(&o);
	/* The opponent's 1 fires the reply: 6 (4 seeds to the store and
	 * the opponent's first three pits). */
	free(w_send_seat(&w, id, opp, players[opp], "1"));
	w_load(&w, id, &g);
	ck_assert_int_eq(g.row.nmoves, 3);
	ck_assert_int_eq(seat_to_move(&g), opp);
	play_free(&g);
	w_take(&w, &o);
	ck_assert_ptr_nonnull(m = outs_find(&o, players[s]));
	ck_assert_msg(strstr(m->body, "That was your conditional move, played "
	    "at once in answer to 1.") != NULL, "%s", m->body);
	ck_assert_ptr_nonnull(m = outs_find(&o, players[opp]));
	ck_assert_msg(strstr(m->body, "conditional move, played at once in "
	    "answer to 1") != NULL, "%s", m->body);
	outs_free(&o);
	w_close(&w);

	/* Against a robot there is nothing to wait for. */
	w_open(&w, "cond-robot", NULL);
	free(w_send(&w, players[0], "new game", "new mancala first=me robot"));
	id = w_newest_game(&w);
	free(w_send_seat(&w, id, 0, players[0], "accept"));
	out = w_send_seat(&w, id, 0, players[0], "if 1 then 2");
	ck_assert_msg(strstr(out, "a robot answers at once") != NULL, "%s",
	    out);
	free(out);
	w_close(&w);

	/* Almakleh with cards=discard: the opponent's move draws from the
	 * face-down pile, and a line may not look past it. */
	w_open(&w, "cond-discard", NULL);
	free(w_send(&w, players[0], "new game",
	    "new almakleh cards=discard first=me bob@club.example"));
	id = w_newest_game(&w);
	for (s = 0; s < 2; s++)
		free(w_send_seat(&w, id, s, players[s], "accept"));
	w_load(&w, id, &g);
	legal_text(&g, 0, 0, line, sizeof(line));
	play_free(&g);
	free(w_send_seat(&w, id, 0, players[0], line));
	w_load(&w, id, &g);
	legal_text(&g, 1, 0, line, sizeof(line));
	play_free(&g);
	body = xasprintf("if %s then pass x", line);
	out = w_send_seat(&w, id, 0, players[0], body);
	ck_assert_msg(strstr(out, "would bring a hidden card to light") !=
	    NULL, "%s", out);
	free(out);
	free(body);
	w_close(&w);
}
END_TEST

/* Takebacks: a turn still going on is not taken back, a whole turn of
 * several sowings is, back to the very position; a robot agrees at once;
 * a Spite & Malice turn, which ends with cards coming to light, never. */
START_TEST(takeback_edges)
{
	struct world w;
	struct play_game g;
	struct outs o;
	char *start, *now, *out, line[GAME_MOVE_TEXT + 20];
	int64_t id;
	int s, opp, i, k;

	w_open(&w, "takeback", NULL);
	id = w_mancala(&w);
	start = w_fingerprint(&w, id);
	w_load(&w, id, &g);
	s = seat_to_move(&g);
	opp = !s;
	play_free(&g);
	/* Pit 3 of 4 seeds ends in the store: the turn goes on. */
	out = w_send_seat(&w, id, s, players[s], "3\ntakeback");
	ck_assert_msg(strstr(out, "your turn goes on") != NULL, "%s", out);
	free(out);
	out = w_send_seat(&w, id, s, players[s], "2\ntakeback");
	ck_assert_msg(strstr(out, ": 2 applied") != NULL, "%s", out);
	free(out);
	w_load(&w, id, &g);
	ck_assert_int_eq(g.row.nmoves, 2);
	play_free(&g);
	w_take(&w, &o);
	ck_assert_int_eq(outs_count_body(&o, "asks to take back 3, 2 in game"),
	    1);
	outs_free(&o);
	out = w_send_seat(&w, id, opp, players[opp], "takeback");
	ck_assert_msg(strstr(out, ": 1 applied") != NULL, "%s", out);
	free(out);
	now = w_fingerprint(&w, id);
	ck_assert_str_eq(now, start);
	free(now);
	free(start);
	/* Nothing stands any more. */
	out = w_send_seat(&w, id, opp, players[opp], "takeback");
	ck_assert_msg(strstr(out, "no move in game") != NULL, "%s", out);
	free(out);
	w_close(&w);

	w_open(&w, "takeback-robot", NULL);
	free(w_send(&w, players[0], "new game", "new mancala first=me robot"));
	id = w_newest_game(&w);
	free(w_send_seat(&w, id, 0, players[0], "accept"));
	start = w_fingerprint(&w, id);
	out = w_send_seat(&w, id, 0, players[0], "1\ntakeback");
	ck_assert_msg(strstr(out, ": 2 applied") != NULL, "%s", out);
	free(out);
	now = w_fingerprint(&w, id);
	ck_assert_str_eq(now, start);
	free(now);
	free(start);
	w_close(&w);

	/* Spite & Malice: a whole turn ends with a hand card on a side
	 * stack, and the other player draws. */
	w_open(&w, "takeback-spite", NULL);
	free(w_send(&w, players[0], "new game", "new spite bob@club.example"));
	id = w_newest_game(&w);
	for (i = 0; i < 2; i++)
		free(w_send_seat(&w, id, i, players[i], "accept"));
	w_load(&w, id, &g);
	s = seat_to_move(&g);
	for (k = 0; ; k++) {
		legal_text(&g, s, k, line, sizeof(line));
		if (strstr(line, " s") != NULL && line[0] != 's')
			break;
	}
	play_free(&g);
	out = w_send_seat(&w, id, s, players[s], line);
	ck_assert_msg(strstr(out, ": 1 applied") != NULL, "%s", out);
	free(out);
	out = w_send_seat(&w, id, s, players[s], "takeback");
	ck_assert_msg(strstr(out, "brought a hidden card to light") != NULL,
	    "%s", out);
	free(out);
	w_close(&w);
}
END_TEST

START_TEST(robot_apart_no_lock_while_thinking)
{
	struct world w;
	struct referee_robot *j;
	struct store *other;
	char err[512], *raw, *subject, *out;
	int64_t id;
	struct play_game g;

	w_open(&w, "robot-lock", NULL);
	id = w_robot_game(&w);
	w_load(&w, id, &g);
	subject = w_subject(&w, id, play_seat(&g, players[0]));
	play_free(&g);
	w.r.robots_apart = 1;
	raw = w_raw(&w, players[0], subject, NULL, "2");
	ck_assert_int_eq(w_intake(&w, raw, &out), INTAKE_ROBOT);
	free(out);
	j = referee_robot_take(&w.r);
	/* A second connection takes the write lock at once. */
	ck_assert_msg(store_open(w.db, &other, err, sizeof(err)) == 0, "%s",
	    err);
	ck_assert_int_eq(store_begin(other), 0);
	ck_assert_int_eq(store_commit(other), 0);
	store_close(other);
	referee_robot_free(j);
	free(raw);
	free(subject);
	w_close(&w);
}
END_TEST

static Suite *
referee_suite(void)
{
	Suite *s = suite_create("referee");
	TCase *tc;

	tc = tcase_create("table");
	tcase_add_test(tc, command_table_one_entry_per_kind);
	suite_add_tcase(s, tc);
	tc = tcase_create("auth");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, forged_from_no_token);
	tcase_add_test(tc, token_of_other_game);
	tcase_add_test(tc, token_and_sender_must_agree);
	suite_add_tcase(s, tc);
	tc = tcase_create("discard");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, changer_discard_face_down);
	suite_add_tcase(s, tc);
	/* Whole games: a few seconds, minutes under valgrind
	 * (CK_EXCLUDE_TAGS=slow leaves them out). */
	tc = tcase_create("hidden");
	tcase_set_tags(tc, "slow");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, hidden_cards_aluette);
	tcase_add_test(tc, hidden_cards_spite);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, error_reply_is_short);
	tcase_add_test(tc, flood_is_rate_limited);
	tcase_add_test(tc, replay_not_applied);
	tcase_add_test(tc, forged_mail_spares_real_allowance);
	tcase_add_test(tc, made_up_dmarc_results_share_a_count);
	suite_add_tcase(s, tc);
	tc = tcase_create("answers");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, remarks_set_aside_moves_fail, 0,
	    (int)nitems(chatter_cases));
	tcase_add_test(tc, thousand_helps_one_answer);
	tcase_add_test(tc, remarks_answered_a_few_times);
	suite_add_tcase(s, tc);
	tc = tcase_create("deck");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, almakleh_deck_cycles_across_games);
	suite_add_tcase(s, tc);
	tc = tcase_create("conditional");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, conditional_moves_edges);
	tcase_add_test(tc, takeback_edges);
	suite_add_tcase(s, tc);
	tc = tcase_create("robots");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, robot_apart_thinks_again);
	tcase_add_test(tc, robot_apart_no_lock_while_thinking);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	/* The store syncs every commit to disk and these tests commit a few
	 * thousand times: on tmpfs that costs nothing. */
	if (getenv("TMPDIR") == NULL && access("/dev/shm", W_OK) == 0)
		setenv("TMPDIR", "/dev/shm", 1);
	return tu_run(referee_suite());
}
