/*
 * check_fault: a store that fails under every command.
 *
 * A club is set up by mail (games playing, an invitation, a finished
 * game, a ladder, a seek, a report, observers, a ban), and then every
 * mail command of the language is delivered once as it is and then
 * again with the store made to fail (store_test_fault: SQLITE_IOERR or
 * SQLITE_FULL) at each of the store calls the command's message makes,
 * one after another.  For each failure it is proven that:
 *
 *   - the message is not answered (no mail queued: the database is the
 *     same as before, row for row), or, where the failure did not matter,
 *     answered exactly as without it;
 *   - delivered again without the failure, it is answered exactly as the
 *     message that never failed (applied once, nothing left behind).
 *
 * Then every command is delivered once over a read-only database: each
 * is a temporary failure that changes nothing.  And a stored game that
 * cannot be read quarantines the message that names it: not answered,
 * recorded with the cause, not tried again; its timers are dropped.
 * The timers due and `ludus move`'s path (referee_command) are taken
 * through every store failure the same way.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intake.h"
#include "referee/refint.h"
#include "testutil.h"

#ifdef LUDUS_TEST_CLOCK

#define REFEREE		"referee@ludus.example"
#define T0		1795000000	/* 2026-11-18, any fixed time */
#define FAR_FUTURE	((int64_t)1 << 40)

#define ANN	"ann@club.example"
#define BOB	"bob@club.example"
#define CAT	"cat@club.example"
#define DAN	"dan@club.example"
#define OBI	"obi@club.example"
#define BOSS	"boss@club.example"

struct world {
	char		*db;
	char		*secret;
	char		*snap;		/* the database before a command */
	struct store	*s;
	struct config	 cfg;
	struct gamedef	*defs;
	int		 ndefs;
	struct referee	 r;
	int64_t		 now;
	int		 nmsg;
	/* The games of the club. */
	int64_t		 playing;	/* ann and bob, a move played */
	int64_t		 invited;	/* ann invites cat */
	int64_t		 finished;	/* ann resigned to bob */
	int64_t		 seek;		/* dan's open seek */
	int64_t		 ladder;	/* cat challenged ann: rated, accepted */
	int64_t		 spite;		/* ann and bob, Spite & Malice */
	int64_t		 cond;		/* a conditional reply waits */
	char		 cond_move[GAME_MOVE_TEXT];	/* the move it expects */
	long		 calls;		/* store calls of the last delivery */
};

static void
w_boot(struct world *w)
{
	const char *text = "referee:\n  address: " REFEREE "\n"
	    "  admins: [" BOSS "]\n  plus_addressing: yes\n"
	    "auth:\n  trust_authserv_id: mx.club.example\n"
	    "ladder:\n  rematch: 0\n";

	tu_referee_start(text, w->db, w->secret, &w->cfg, &w->s, &w->defs,
	    &w->ndefs, &w->r);
}

static void
w_stop(struct world *w)
{
	tu_referee_stop(&w->cfg, w->s, w->defs, w->ndefs, &w->r);
}

static void
w_close(struct world *w)
{
	w_stop(w);
	free(w->db);
	free(w->secret);
	free(w->snap);
}

/* A raw message; dmarc: From proven by a trusted DMARC pass. */
static char *
w_raw(struct world *w, const char *from, const char *subject, int dmarc,
    const char *body)
{
	char *raw = xasprintf("From: <%s>\r\nTo: <%s>\r\nSubject: %s\r\n"
	    "Message-ID: <f%d@players.example>\r\n"
	    "Date: Wed, 18 Nov 2026 12:00:00 +0000\r\n%s"
	    "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
	    "\r\n%s\r\n", from, REFEREE, subject, ++w->nmsg, dmarc ?
	    "Authentication-Results: mx.club.example; dmarc=pass "
	    "header.from=club.example\r\n" : "", body);

	return raw;
}

static char *
w_subject(struct world *w, int64_t id, int seat)
{
	char token[TOKEN_LEN + 1];

	if (id == 0)
		return xstrdup("ludus");
	token_make(&w->r.secret, id, seat, token);
	return xasprintf("Re: [ludus #%lld %s] Your move", (long long)id,
	    token);
}

/* Deliver a message of the setup: it must be applied. */
static void
w_send(struct world *w, const char *from, int64_t id, int seat,
    const char *body)
{
	char *subject = w_subject(w, id, seat);
	char *raw = w_raw(w, from, subject, 1, body), *outcome = NULL;

	ck_assert_int_eq(intake_message(&w->r, raw, strlen(raw), w->now,
	    &outcome), INTAKE_DONE);
	free(outcome);
	free(raw);
	free(subject);
	w->now += 60;
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

static void
w_load(struct world *w, int64_t id, struct play_game *g)
{
	char err[300];

	ck_assert_msg(play_load(w->s, w->defs, w->ndefs, id, g, err,
	    sizeof(err)) == 0, "game %lld: %s", (long long)id, err);
}

static int
to_move(struct world *w, int64_t id)
{
	struct play_game g;
	uint32_t tm;
	int i;

	w_load(w, id, &g);
	tm = g.def->ops->to_move(g.st);
	play_free(&g);
	for (i = 0; i < STORE_MAX_SEATS; i++)
		if (tm & (1u << i))
			return i;
	return -1;
}

/* The k-th legal move of the seat to move in game id. */
static char *
legal_move(struct world *w, int64_t id, int k)
{
	struct game_move mv[GAME_MAX_MOVES];
	struct play_game g;
	char text[GAME_MOVE_TEXT];
	int seat, n;

	w_load(w, id, &g);
	seat = to_move(w, id);
	n = g.def->ops->legal(g.st, seat, mv, GAME_MAX_MOVES);
	ck_assert_int_gt(n, k);
	g.def->ops->format_move(g.st, seat, &mv[k], text, sizeof(text));
	play_free(&g);
	return xstrdup(text);
}

static const char *const seat_addr[] = { ANN, BOB };

/* In a two-seat game: a move of the seat to move after which the other
 * seat is to move, and a legal answer of that seat (mv, reply). */
static void
turn_and_reply(struct world *w, int64_t id, char *mv, char *reply,
    size_t len)
{
	struct game_move m[GAME_MAX_MOVES], r[GAME_MAX_MOVES];
	struct play_game g;
	void *st;
	int seat, n, k;

	w_load(w, id, &g);
	seat = to_move(w, id);
	st = xmalloc(g.def->ops->state_size);
	n = g.def->ops->legal(g.st, seat, m, GAME_MAX_MOVES);
	for (k = 0; k < n; k++) {
		memcpy(st, g.st, g.def->ops->state_size);
		g.def->ops->apply(st, seat, &m[k]);
		if (g.def->ops->to_move(st) == (1u << (1 - seat)) &&
		    g.def->ops->legal(st, 1 - seat, r, GAME_MAX_MOVES) > 0)
			break;
	}
	ck_assert_int_lt(k, n);
	g.def->ops->format_move(g.st, seat, &m[k], mv, len);
	g.def->ops->format_move(st, 1 - seat, &r[0], reply, len);
	free(st);
	play_free(&g);
}

/* A Mancala game of ann and bob, accepted by both. */
static int64_t
w_game(struct world *w, const char *with)
{
	char *line;
	int64_t id;

	line = xasprintf("new mancala pits=4 seeds=3 %s", with);
	w_send(w, ANN, 0, -1, line);
	free(line);
	id = w_newest_game(w);
	line = xasprintf("accept #%lld", (long long)id);
	w_send(w, with, id, 1, line);
	free(line);
	return id;
}

static void
w_setup(struct world *w)
{
	char *line, *mv;
	int seat;

	memset(w, 0, sizeof(*w));
	w->now = T0;
	w->db = xasprintf("%s/fault.db", tu_tmpdir());
	w->secret = xasprintf("%s/fault.secret", tu_tmpdir());
	w->snap = xasprintf("%s/fault-snap.db", tu_tmpdir());
	{
		char err[512];

		ck_assert_msg(token_secret_create(w->secret, err,
		    sizeof(err)) == 0, "%s", err);
	}
	w_boot(w);
	w_send(w, BOSS, 0, -1, "admin ladder create kalah mancala pits=4 "
	    "seeds=3");
	w_send(w, ANN, 0, -1, "ladder join kalah");
	w_send(w, BOB, 0, -1, "ladder join kalah");
	w_send(w, CAT, 0, -1, "ladder join kalah");

	w->finished = w_game(w, BOB);
	line = xasprintf("resign #%lld", (long long)w->finished);
	w_send(w, ANN, w->finished, 0, line);
	free(line);

	w->playing = w_game(w, BOB);
	seat = to_move(w, w->playing);
	mv = legal_move(w, w->playing, 0);
	line = xasprintf("move #%lld %s", (long long)w->playing, mv);
	w_send(w, seat_addr[seat], w->playing, seat, line);
	free(line);
	free(mv);
	line = xasprintf("observe #%lld", (long long)w->playing);
	w_send(w, OBI, 0, -1, line);
	free(line);
	line = xasprintf("report #%lld bob writes rude things",
	    (long long)w->playing);
	w_send(w, ANN, w->playing, 0, line);
	free(line);

	w_send(w, ANN, 0, -1, "new mancala pits=4 seeds=3 " CAT);
	w->invited = w_newest_game(w);

	w_send(w, DAN, 0, -1, "seek mancala pits=4 seeds=3");
	w->seek = w_newest_game(w) + 1;
	w_send(w, BOSS, 0, -1, "admin ban zed@club.example spam");

	/* A rated game of the ladder, and a card game. */
	w_send(w, CAT, 0, -1, "challenge " ANN " kalah");
	w->ladder = w_newest_game(w);
	line = xasprintf("accept #%lld", (long long)w->ladder);
	w_send(w, ANN, 0, -1, line);
	free(line);
	w_send(w, ANN, 0, -1, "new spite " BOB);
	w->spite = w_newest_game(w);
	line = xasprintf("accept #%lld", (long long)w->spite);
	w_send(w, BOB, 0, -1, line);
	free(line);

	/* The seat that waits has queued its answer to the move expected. */
	w->cond = w_game(w, BOB);
	{
		char reply[GAME_MOVE_TEXT];

		turn_and_reply(w, w->cond, w->cond_move, reply, sizeof(reply));
		seat = 1 - to_move(w, w->cond);
		line = xasprintf("if #%lld %s then %s", (long long)w->cond,
		    w->cond_move, reply);
		w_send(w, seat_addr[seat], w->cond, seat, line);
		free(line);
	}
}

/* The store's dump, with the one column the store fills from the wall
 * clock (observers.since, an SQL default) blanked: it is not the
 * referee's time, and a retry may come a second later. */
static char *
dump(struct world *w)
{
	char *d = store_test_dump(w->s), *p;

	for (p = d; (p = strstr(p, "|since=")) != NULL; p += 7)
		memset(p + 7, '0', strspn(p + 7, "0123456789"));
	return d;
}

/* The first line where two dumps differ, for the failure's message. */
static const char *
first_diff(const char *a, const char *b, char *out, size_t len)
{
	const char *la = a, *lb = b;

	while (*a != '\0' && *a == *b) {
		if (*a == '\n') {
			la = a + 1;
			lb = b + 1;
		}
		a++;
		b++;
	}
	snprintf(out, len, "\n  want: %.*s\n  got:  %.*s",
	    (int)strcspn(la, "\n") > 300 ? 300 : (int)strcspn(la, "\n"), la,
	    (int)strcspn(lb, "\n") > 300 ? 300 : (int)strcspn(lb, "\n"), lb);
	return out;
}

/* The outcome of one delivery with the store failing at call nth. */
static enum intake_status
deliver(struct world *w, const char *raw, long nth)
{
	enum intake_status st;
	char *outcome = NULL;

	store_test_fault(nth, nth % 2 == 0);
	st = intake_message(&w->r, raw, strlen(raw), w->now, &outcome);
	w->calls = store_test_calls();
	store_test_fault(0, 0);
	if (getenv("LUDUS_FAULT_CASE") != NULL && nth == 0)
		fprintf(stderr, "outcome: %s\n", outcome ? outcome : "-");
	free(outcome);
	return st;
}

static void
snapshot(struct world *w)
{
	char err[512];

	ck_assert_msg(store_backup(w->s, w->snap, err, sizeof(err)) == 0,
	    "%s", err);
}

static void
restore(struct world *w)
{
	ck_assert_int_eq(store_test_restore(w->s, w->snap), 0);
}

/* Deliver one command as it is and with each store call failing in
 * turn; the state is left as the message that never failed leaves it.
 * Returns the number of store calls the message made. */
static long
check_command(struct world *w, const char *from, int64_t game, int seat,
    int dmarc, const char *body)
{
	char *subject = w_subject(w, game, seat);
	char *raw = w_raw(w, from, subject, dmarc, body);
	char *before, *after, *got, diff[800];
	enum intake_status st;
	long n, calls;

	snapshot(w);
	before = dump(w);
	ck_assert_int_eq(deliver(w, raw, 0), INTAKE_DONE);
	calls = w->calls;
	after = dump(w);
	ck_assert_msg(strcmp(before, after) != 0, "%s: nothing recorded",
	    body);
	for (n = 1; n <= calls; n++) {
		restore(w);
		st = deliver(w, raw, n);
		got = dump(w);
		if (st == INTAKE_DONE) {
			/* A failure that did not matter: the answer is
			 * the one without it. */
			ck_assert_msg(strcmp(got, after) == 0, "`%s`, store "
			    "call %ld of %ld failing: answered, but not as "
			    "without the failure%s", body, n, calls,
			    first_diff(after, got, diff, sizeof(diff)));
			free(got);
			continue;
		}
		ck_assert_msg(st == INTAKE_TEMPFAIL, "`%s`, store call %ld: "
		    "status %d", body, n, (int)st);
		ck_assert_msg(strcmp(got, before) == 0, "`%s`, store call %ld "
		    "of %ld failing: the database changed%s", body, n, calls,
		    first_diff(before, got, diff, sizeof(diff)));
		free(got);
		ck_assert_msg(deliver(w, raw, 0) == INTAKE_DONE, "`%s`, store "
		    "call %ld: not applied when tried again", body, n);
		got = dump(w);
		ck_assert_msg(strcmp(got, after) == 0, "`%s`, store call %ld "
		    "of %ld failing, then tried again: not answered as "
		    "without the failure%s", body, n, calls,
		    first_diff(after, got, diff, sizeof(diff)));
		free(got);
	}
	free(before);
	free(after);
	free(raw);
	free(subject);
	w->now += 60;
	return calls;
}

/* One command of the table: who sends it (NULL: the seat to move; seat
 * -2: the seat that waits; -3: the sender's own), in which game's thread,
 * and the line (%1$lld the game playing, %2$lld the invitation, %3$lld the
 * finished game, %4$lld the seek, %5$s a legal move in the case's game,
 * %6$lld the ladder's game, %7$lld the card game, %8$lld the game where a
 * conditional reply waits, %9$s the move it waits for). */
struct cmd_case {
	enum command_kind kind;
	const char	*from;	/* NULL: the seat to move in the game */
	int		 game;	/* 0 none, 1 playing, 2 invited, 3 finished,
				 * 4 the ladder's, 5 Spite & Malice, 6 the
				 * conditional's */
	int		 seat;
	int		 dmarc;
	const char	*line;
};

static const struct cmd_case cases[] = {
	{ CMD_HELP, ANN, 0, -1, 1, "help" },
	{ CMD_HELP, ANN, 0, -1, 1, "help mancala" },
	{ CMD_GAMES, ANN, 0, -1, 1, "games" },
	{ CMD_LIST, ANN, 0, -1, 1, "list" },
	{ CMD_BOARD, ANN, 1, 0, 1, "board #%1$lld" },
	{ CMD_HISTORY, ANN, 1, 0, 1, "history #%1$lld" },
	{ CMD_PREVIEW, NULL, 1, -1, 1, "preview #%1$lld %5$s" },
	{ CMD_MOVE, NULL, 1, -1, 1, "move #%1$lld %5$s" },
	{ CMD_MOVE, NULL, 1, -1, 1, "move #%1$lld 99" },
	{ CMD_DRAW, ANN, 1, 0, 1, "draw #%1$lld" },
	{ CMD_SIGNAL, ANN, 1, 0, 1, "signal #%1$lld lift" },
	{ CMD_SAY, ANN, 1, 0, 1, "say #%1$lld good luck" },
	{ CMD_IF, NULL, 1, -2, 1, "if #%1$lld 1 then 2" },
	{ CMD_CONDITIONS, ANN, 1, 0, 1, "conditions #%1$lld" },
	{ CMD_CONDITIONS_CLEAR, ANN, 1, 0, 1, "conditions clear #%1$lld" },
	{ CMD_TAKEBACK, NULL, 1, -2, 1, "takeback #%1$lld" },
	{ CMD_OBSERVE, DAN, 0, -1, 1, "observe #%1$lld" },
	{ CMD_UNOBSERVE, OBI, 0, -1, 1, "unobserve #%1$lld" },
	{ CMD_RESIGN, BOB, 1, 1, 1, "resign #%1$lld" },
	{ CMD_REPORT, BOB, 1, 1, 1, "report #%1$lld ann is slow" },
	{ CMD_ACCEPT, CAT, 2, 1, 1, "accept #%2$lld" },
	{ CMD_DECLINE, CAT, 2, 1, 1, "decline #%2$lld" },
	{ CMD_THANKS, ANN, 3, 0, 1, "thanks #%3$lld well played" },
	{ CMD_REMATCH, ANN, 3, 0, 1, "rematch #%3$lld" },
	{ CMD_NEW, ANN, 0, -1, 1, "new mancala pits=4 seeds=3 " DAN },
	{ CMD_NEW, ANN, 0, -1, 1, "new mancala robot" },
	{ CMD_BUMP, ANN, 0, -1, 1, "bump" },
	{ CMD_SET_LANGUAGE, ANN, 0, -1, 1, "set language ru" },
	{ CMD_SET_NOTIFY, ANN, 0, -1, 1, "set notify all" },
	{ CMD_SET_NAME, ANN, 0, -1, 1, "set name Ann Lee" },
	{ CMD_SET_TIMEZONE, ANN, 0, -1, 1, "set timezone Europe/Moscow" },
	{ CMD_SET_PUBLIC_ADDRESS, ANN, 0, -1, 1, "set public-address yes" },
	{ CMD_VACATION, ANN, 0, -1, 1, "vacation 3" },
	{ CMD_SEEK, ANN, 0, -1, 1, "seek mancala pits=4 seeds=3" },
	{ CMD_SEEKS, ANN, 0, -1, 1, "seeks" },
	{ CMD_ACCEPT, ANN, 0, -1, 1, "accept #%4$lld" },
	{ CMD_LADDER, ANN, 0, -1, 1, "ladder kalah" },
	{ CMD_LADDER_JOIN, DAN, 0, -1, 1, "ladder join kalah" },
	{ CMD_LADDER_LEAVE, CAT, 0, -1, 1, "ladder leave kalah" },
	{ CMD_CHALLENGE, CAT, 0, -1, 1, "challenge " ANN " kalah" },
	{ CMD_ADMIN_NEW, BOSS, 0, -1, 1, "admin new mancala " CAT " " DAN },
	{ CMD_ADMIN_NEW, BOSS, 0, -1, 0, "admin new mancala " CAT " " DAN },
	{ CMD_ADMIN_ABORT, BOSS, 0, -1, 1, "admin abort #%1$lld test" },
	{ CMD_ADMIN_ADJUDICATE, BOSS, 0, -1, 1,
	    "admin adjudicate #%1$lld draw agreed" },
	{ CMD_ADMIN_EXTEND, BOSS, 0, -1, 1, "admin extend #%1$lld 48 slow" },
	{ CMD_ADMIN_BAN, BOSS, 0, -1, 1, "admin ban " DAN " rude" },
	{ CMD_ADMIN_UNBAN, BOSS, 0, -1, 1, "admin unban zed@club.example" },
	{ CMD_ADMIN_REPORTS, BOSS, 0, -1, 1, "admin reports" },
	{ CMD_ADMIN_RESOLVE, BOSS, 0, -1, 1, "admin resolve 1 spoken to" },
	{ CMD_ADMIN_LADDER_CREATE, BOSS, 0, -1, 1,
	    "admin ladder create small mancala pits=3 seeds=1" },
	{ CMD_ADMIN_LADDER_CLOSE, BOSS, 0, -1, 1, "admin ladder close kalah" },
	{ CMD_ADMIN_LADDER_REMOVE, BOSS, 0, -1, 1,
	    "admin ladder remove-player kalah " CAT },
	{ CMD_ADMIN_LADDER_ADJUST, BOSS, 0, -1, 1,
	    "admin ladder adjust kalah " CAT " 1" },
	{ CMD_NONE, ANN, 0, -1, 1, "hello there" },
	{ CMD_RESIGN, ANN, 4, -3, 1, "resign #%6$lld" },
	{ CMD_ADMIN_ADJUDICATE, BOSS, 0, -1, 1,
	    "admin adjudicate #%6$lld " CAT " agreed" },
	{ CMD_MOVE, NULL, 5, -1, 1, "move #%7$lld %5$s" },
	{ CMD_BOARD, BOB, 5, -3, 1, "board #%7$lld" },
	{ CMD_MOVE, NULL, 6, -1, 1, "move #%8$lld %9$s" },
};

static int64_t
case_game(const struct world *w, int game)
{
	const int64_t ids[] = { 0, w->playing, w->invited, w->finished,
	    w->ladder, w->spite, w->cond };

	return ids[game];
}

/* The club as the setup leaves it (each test runs in its own process). */
static void
club_get(struct world *w)
{
	w_setup(w);
}

static char *
case_line(struct world *w, const struct cmd_case *c, const char **from,
    int *seat)
{
	int64_t id = case_game(w, c->game ? c->game : 1);
	struct play_game g;
	char *mv = NULL, *line;
	int s;

	*from = c->from;
	*seat = c->seat;
	if (c->from == NULL || c->seat == -2) {
		s = to_move(w, id);
		mv = legal_move(w, id, 0);
		if (c->seat == -2)	/* the seat that waits */
			s = 1 - s;
		w_load(w, id, &g);
		*from = c->from ? c->from : strcmp(g.address[s], ANN) == 0 ?
		    ANN : BOB;
		play_free(&g);
		*seat = s;
	} else if (c->seat == -3) {
		w_load(w, id, &g);
		*seat = play_seat(&g, c->from);
		play_free(&g);
	}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	line = xasprintf(c->line, (long long)w->playing,
	    (long long)w->invited, (long long)w->finished,
	    (long long)w->seek, mv ? mv : "1", (long long)w->ladder,
	    (long long)w->spite, (long long)w->cond, w->cond_move);
#pragma GCC diagnostic pop
	free(mv);
	return line;
}

START_TEST(test_fault_every_command)
{
	const struct cmd_case *c = &cases[_i];
	const char *only = getenv("LUDUS_FAULT_CASE");
	struct world w;
	const char *from;
	char *line;
	int seat;
	long calls;

	/* To follow one case in a debugger. */
	if (only != NULL && atoi(only) != _i)
		return;
	struct play_game g;
	int nmoves;

	club_get(&w);
	line = case_line(&w, c, &from, &seat);
	w_load(&w, case_game(&w, c->game ? c->game : 1), &g);
	nmoves = g.row.nmoves;
	play_free(&g);
	calls = check_command(&w, from, case_game(&w, c->game), seat,
	    c->dmarc, line);
	ck_assert_int_gt(calls, 3);
	if (getenv("LUDUS_FAULT_VERBOSE") != NULL)
		printf("%ld store calls, each failed in turn: %s\n", calls,
		    line);
	/* The cases meant to reach far do: a legal move is played (and the
	 * conditional reply after it), the ladder's game is rated. */
	if (c->kind == CMD_MOVE && strstr(c->line, "$s") != NULL) {
		w_load(&w, case_game(&w, c->game ? c->game : 1), &g);
		ck_assert_int_ge(g.row.nmoves, nmoves + (c->game == 6 ? 2 : 1));
		play_free(&g);
	}
	if (c->game == 4 || strstr(c->line, "%6$lld") != NULL) {
		w_load(&w, w.ladder, &g);
		ck_assert_str_eq(g.row.status, "finished");
		ck_assert_int_eq(g.row.rated, 1);
		play_free(&g);
	}
	free(line);
	w_close(&w);
}
END_TEST

/* A confirmation: the admin command asked for it (no DMARC pass), then
 * `confirm COOKIE` with every store call of that message failing. */
START_TEST(test_fault_confirm)
{
	struct world w;
	struct store_mail *rows;
	char *raw, *cookie, *line, *outcome = NULL;
	const char *p;
	int n;

	club_get(&w);
	raw = w_raw(&w, BOSS, "ludus", 0, "admin extend #2 24 slow");
	ck_assert_int_eq(deliver(&w, raw, 0), INTAKE_DONE);
	free(raw);
	free(outcome);
	w.now += 60;
	ck_assert_int_eq(store_outbox_due(w.s, FAR_FUTURE, 500, &rows, &n),
	    0);
	ck_assert_int_gt(n, 0);
	p = strstr(rows[n - 1].data, "confirm ");
	ck_assert_ptr_nonnull(p);
	cookie = xasprintf("%.*s", (int)strspn(p + 8, "0123456789abcdef"),
	    p + 8);
	ck_assert_int_gt(strlen(cookie), 8);
	store_mails_free(rows, n);
	line = xasprintf("confirm %s", cookie);
	check_command(&w, BOSS, 0, -1, 0, line);
	free(line);
	free(cookie);
	w_close(&w);
}
END_TEST

/* Every command over a database the referee may not write: a temporary
 * failure that changes nothing. */
START_TEST(test_readonly)
{
	struct world w;
	const char *from;
	char *line, *subject, *raw, *before, *got;
	size_t i;
	int seat;

	club_get(&w);
	w_stop(&w);
	store_test_readonly(1);
	w_boot(&w);
	store_test_readonly(0);
	before = dump(&w);
	for (i = 0; i < nitems(cases); i++) {
		line = case_line(&w, &cases[i], &from, &seat);
		subject = w_subject(&w, case_game(&w, cases[i].game), seat);
		raw = w_raw(&w, from, subject, cases[i].dmarc, line);
		ck_assert_msg(deliver(&w, raw, 0) == INTAKE_TEMPFAIL,
		    "`%s` over a read-only database", line);
		got = dump(&w);
		ck_assert_str_eq(got, before);
		free(got);
		free(raw);
		free(subject);
		free(line);
	}
	free(before);
	w_close(&w);
}
END_TEST

/* A stored game the referee cannot read is a broken invariant, not the
 * sender's mistake nor a failure that passes: the message is not
 * answered, changes nothing but the record that it came (quarantined,
 * with the cause), and is not tried again. */
START_TEST(test_broken_game_quarantines)
{
	struct world w;
	struct store_game g;
	struct store_mail *rows;
	char *subject, *raw, *line, *before, *after, *again, *dup;
	int n0, n1;

	club_get(&w);
	ck_assert_int_eq(store_game_load(w.s, w.playing, &g), 0);
	free(g.state);
	g.state = xstrdup("no state of any game");
	ck_assert_int_eq(store_game_update(w.s, &g), 0);
	store_game_free(&g);
	ck_assert_int_eq(store_outbox_due(w.s, FAR_FUTURE, 500, &rows, &n0),
	    0);
	store_mails_free(rows, n0);
	before = dump(&w);
	line = xasprintf("board #%lld", (long long)w.playing);
	subject = w_subject(&w, w.playing, 0);
	raw = w_raw(&w, ANN, subject, 1, line);
	ck_assert_int_eq(deliver(&w, raw, 0), INTAKE_QUARANTINE);
	ck_assert_int_eq(store_outbox_due(w.s, FAR_FUTURE, 500, &rows, &n1),
	    0);
	store_mails_free(rows, n1);
	ck_assert_int_eq(n1, n0);
	after = dump(&w);
	ck_assert_str_ne(after, before);
	ck_assert_ptr_nonnull(strstr(after, "outcome=quarantined: game #"));
	ck_assert_ptr_nonnull(strstr(after, "cannot be read"));
	/* Seen again, it is recognised and left alone: only counted. */
	ck_assert_int_eq(deliver(&w, raw, 0), INTAKE_DONE);
	again = dump(&w);
	dup = strstr(again, "name=messages.duplicate|value=1\n");
	ck_assert_ptr_nonnull(dup);
	memmove(dup, dup + 32, strlen(dup + 32) + 1);
	ck_assert_str_eq(again, after);
	free(again);
	free(after);
	free(before);
	free(raw);
	free(subject);
	free(line);
	w_close(&w);
}
END_TEST

/* The timers due a month on (the invitation lapses, the seek lapses, the
 * report is mailed again, the clock of the game playing runs out, the
 * ladder's round), fired with each store call failing in turn and then
 * again without: the end is the same as firing them once. */
START_TEST(test_fault_timers)
{
	struct world w;
	char *after, *got, diff[800];
	int64_t t;
	long n, calls;
	int fired, rc;

	club_get(&w);
	t = w.now + 30 * 86400;
	snapshot(&w);
	store_test_fault(0, 0);
	fired = referee_timers(&w.r, t);
	calls = store_test_calls();
	ck_assert_int_gt(fired, 2);
	after = dump(&w);
	for (n = 1; n <= calls; n++) {
		restore(&w);
		store_test_fault(n, n % 2 == 0);
		rc = referee_timers(&w.r, t);
		store_test_fault(0, 0);
		ck_assert_int_ge(rc, -1);
		rc = referee_timers(&w.r, t);
		ck_assert_int_ge(rc, 0);
		got = dump(&w);
		ck_assert_msg(strcmp(got, after) == 0, "timers, store call %ld "
		    "of %ld failing, then fired again: not as fired once%s", n,
		    calls, first_diff(after, got, diff, sizeof(diff)));
		free(got);
	}
	free(after);
	w_close(&w);
}
END_TEST

/* `ludus move`'s path (referee_command in one transaction) with each
 * store call failing: nothing changes, and done again it is done once. */
static int
command_once(struct world *w, const char *addr, const char *line, long nth)
{
	int64_t game;
	char err[600];
	int rc;

	ck_assert_int_eq(store_begin(w->s), 0);
	store_test_fault(nth, nth % 2 == 0);
	rc = referee_command(&w->r, addr, line, "ludus-move:test", w->now, 0,
	    &game, err, sizeof(err));
	if (rc == 0 && store_commit(w->s) == -1)
		rc = -1;
	w->calls = store_test_calls();
	store_test_fault(0, 0);
	if (rc != 0)
		store_rollback(w->s);
	return rc;
}

START_TEST(test_fault_admin_move)
{
	struct world w;
	char *line, *mv, *before, *after, *got, diff[800];
	const char *addr;
	long n, calls;
	int rc;

	club_get(&w);
	mv = legal_move(&w, w.playing, 0);
	addr = seat_addr[to_move(&w, w.playing)];
	line = xasprintf("move #%lld %s", (long long)w.playing, mv);
	snapshot(&w);
	before = dump(&w);
	ck_assert_int_eq(command_once(&w, addr, line, 0), 0);
	calls = w.calls;
	after = dump(&w);
	ck_assert_str_ne(before, after);
	ck_assert_ptr_nonnull(strstr(after, "table outbox\nid=1|"));
	for (n = 1; n <= calls; n++) {
		restore(&w);
		rc = command_once(&w, addr, line, n);
		got = dump(&w);
		if (rc == 0) {
			ck_assert_msg(strcmp(got, after) == 0, "ludus move, "
			    "store call %ld failing: done, but not as without "
			    "the failure%s", n, first_diff(after, got, diff,
			    sizeof(diff)));
			free(got);
			continue;
		}
		ck_assert_int_eq(rc, -1);
		ck_assert_msg(strcmp(got, before) == 0, "ludus move, store "
		    "call %ld failing: the database changed%s", n,
		    first_diff(before, got, diff, sizeof(diff)));
		free(got);
		ck_assert_int_eq(command_once(&w, addr, line, 0), 0);
		got = dump(&w);
		ck_assert_msg(strcmp(got, after) == 0, "ludus move, store call "
		    "%ld failing, then again: not done once%s", n,
		    first_diff(after, got, diff, sizeof(diff)));
		free(got);
	}
	free(before);
	free(after);
	free(line);
	free(mv);
	w_close(&w);
}
END_TEST

/* A timer of a game that cannot be read is dropped, undone alone: the
 * other timers fire. */
START_TEST(test_broken_game_timer_dropped)
{
	struct world w;
	struct store_game g;
	struct store_timer *t;
	int n, fired;

	club_get(&w);
	ck_assert_int_eq(store_game_load(w.s, w.playing, &g), 0);
	free(g.state);
	g.state = xstrdup("no state of any game");
	ck_assert_int_eq(store_game_update(w.s, &g), 0);
	store_game_free(&g);
	fired = referee_timers(&w.r, w.now + 30 * 86400);
	ck_assert_int_gt(fired, 2);
	ck_assert_int_eq(store_timer_due(w.s, w.now + 30 * 86400, 10, &t, &n),
	    0);
	store_timers_free(t, n);
	ck_assert_int_eq(n, 0);
	w_close(&w);
}
END_TEST

/* Every command of the language has a case above. */
START_TEST(test_cases_cover_the_table)
{
	int kind, seen;
	size_t i;

	for (kind = CMD_NONE + 1; kind < CMD_NKINDS; kind++) {
		seen = kind == CMD_CONFIRM;	/* test_fault_confirm */
		for (i = 0; i < nitems(cases); i++)
			seen |= cases[i].kind == (enum command_kind)kind;
		ck_assert_msg(seen, "no store-failure case for `%s`",
		    command_name((enum command_kind)kind));
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("fault");
	TCase *tc = tcase_create("store failures");

	setenv("LUDUS_SEED", "7", 1);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_cases_cover_the_table);
	tcase_add_loop_test(tc, test_fault_every_command, 0,
	    (int)nitems(cases));
	tcase_add_test(tc, test_fault_confirm);
	tcase_add_test(tc, test_readonly);
	tcase_add_test(tc, test_broken_game_quarantines);
	tcase_add_test(tc, test_fault_timers);
	tcase_add_test(tc, test_broken_game_timer_dropped);
	tcase_add_test(tc, test_fault_admin_move);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
#else
/* The store's failures on demand are in test builds only: skipped. */
int
main(void)
{
	return 77;
}
#endif
