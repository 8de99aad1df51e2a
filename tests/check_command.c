/* The command-line parser and its alias file (commands.md, "Commands"). */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "command.h"
#include "rng.h"
#include "testutil.h"

static struct command_aliases *shipped;

static const struct command_aliases *
al(void)
{
	char err[512], *path;

	if (shipped == NULL) {
		path = xasprintf("%s/commands.yaml", gamedef_default_dir());
		if (command_aliases_load(path, &shipped, err, sizeof(err)) ==
		    -1) {
			fprintf(stderr, "%s\n", err);
			exit(99);
		}
		free(path);
	}
	return shipped;
}

static void
ok(const char *line, struct command *c)
{
	char err[512] = "";

	ck_assert_msg(command_parse(al(), line, c, err, sizeof(err)) == 0,
	    "`%s` refused: %s", line, err);
}

/* A refused line: the exact message and the kind understood. */
static void
bad(const char *line, enum command_kind kind, const char *want)
{
	struct command c;
	char err[512] = "";

	ck_assert_msg(command_parse(al(), line, &c, err, sizeof(err)) == -1,
	    "`%s` accepted", line);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(c.kind, kind);
	command_free(&c);
}

/* Just the kind, #ID and text of a line. */
static void
kind_is(const char *line, enum command_kind kind, long long game,
    const char *text)
{
	struct command c;

	ok(line, &c);
	ck_assert_msg(c.kind == kind, "`%s`: kind %d, want %d", line, c.kind,
	    kind);
	ck_assert_int_eq(c.game, game);
	if (text == NULL)
		ck_assert_ptr_null(c.text);
	else
		ck_assert_str_eq(c.text, text);
	ck_assert_int_eq(c.implicit, 0);
	command_free(&c);
}

START_TEST(command_every_keyword_without_arguments)
{
	kind_is("help", CMD_HELP, 0, NULL);
	kind_is("games", CMD_GAMES, 0, NULL);
	kind_is("accept", CMD_ACCEPT, 0, NULL);
	kind_is("decline", CMD_DECLINE, 0, NULL);
	kind_is("board", CMD_BOARD, 0, NULL);
	kind_is("history", CMD_HISTORY, 0, NULL);
	kind_is("resign", CMD_RESIGN, 0, NULL);
	kind_is("draw", CMD_DRAW, 0, NULL);
	kind_is("observe", CMD_OBSERVE, 0, NULL);
	kind_is("unobserve", CMD_UNOBSERVE, 0, NULL);
	kind_is("list", CMD_LIST, 0, NULL);
	kind_is("bump", CMD_BUMP, 0, NULL);
	kind_is("thanks", CMD_THANKS, 0, NULL);
	kind_is("admin reports", CMD_ADMIN_REPORTS, 0, NULL);
}
END_TEST

START_TEST(command_game_scoped_take_id)
{
	kind_is("accept #12", CMD_ACCEPT, 12, NULL);
	kind_is("decline #3", CMD_DECLINE, 3, NULL);
	kind_is("board #40", CMD_BOARD, 40, NULL);
	kind_is("history #7", CMD_HISTORY, 7, NULL);
	kind_is("resign #4", CMD_RESIGN, 4, NULL);
	kind_is("draw #5", CMD_DRAW, 5, NULL);
	kind_is("observe #99", CMD_OBSERVE, 99, NULL);
	kind_is("unobserve #99", CMD_UNOBSERVE, 99, NULL);
	kind_is("thanks #8", CMD_THANKS, 8, NULL);
	kind_is("Thanks for the game!", CMD_THANKS, 0, "for the game!");
	kind_is("thanks, #8 well played", CMD_THANKS, 8, "well played");
	kind_is("signal #2 madame", CMD_SIGNAL, 2, "madame");
	kind_is("signal aces-2", CMD_SIGNAL, 0, "aces-2");
	/* With moves after it, a line of moves (ludus-games(7)). */
	kind_is("signal madame, 2cl", CMD_MOVE, 0, "signal madame, 2cl");
	kind_is("signal #3 aces-1 , discard 4co, 5sw", CMD_MOVE, 3,
	    "signal aces-1 , discard 4co, 5sw");
	kind_is("say #6 good game, well played!", CMD_SAY, 6,
	    "good game, well played!");
	kind_is("say  hello   there ", CMD_SAY, 0, "hello   there");
	kind_is("report #6 He insults me.", CMD_REPORT, 6, "He insults me.");
	kind_is("report rude words in #6", CMD_REPORT, 0, "rude words in #6");
	kind_is("help Mancala", CMD_HELP, 0, "mancala");
	kind_is("помощь МАНКАЛА", CMD_HELP, 0, "манкала");
	kind_is("help robots", CMD_HELP, 0, "robots");
	kind_is("confirm 3f9a-Bc_01", CMD_CONFIRM, 0, "3f9a-Bc_01");
	ck_assert(command_game_scoped(CMD_MOVE));
	ck_assert(command_game_scoped(CMD_ADMIN_EXTEND));
	ck_assert(!command_game_scoped(CMD_NEW));
	ck_assert(!command_game_scoped(CMD_LIST));
}
END_TEST

START_TEST(command_keywords_case_insensitive)
{
	kind_is("RESIGN #4", CMD_RESIGN, 4, NULL);
	kind_is("Move 3", CMD_MOVE, 0, "3");
	kind_is("mOvE #2 3", CMD_MOVE, 2, "3");
	kind_is("SET Language ru", CMD_SET_LANGUAGE, 0, NULL);
	kind_is("Admin Reports", CMD_ADMIN_REPORTS, 0, NULL);
	kind_is("СДАЮСЬ #4", CMD_RESIGN, 4, NULL);
	kind_is("Доска", CMD_BOARD, 0, NULL);
	kind_is("ХоД 3", CMD_MOVE, 0, "3");
	/* Trailing stops after a keyword are how people write. */
	kind_is("draw?", CMD_DRAW, 0, NULL);
	kind_is("resign.", CMD_RESIGN, 0, NULL);
	kind_is("Ничья!", CMD_DRAW, 0, NULL);
	kind_is("accept.", CMD_ACCEPT, 0, NULL);
	kind_is("move: 3", CMD_MOVE, 0, "3");
}
END_TEST

/* A question mark after what cannot be taken back is a question: the line
 * is no command (and fails later as a move). */
START_TEST(command_no_question_resign)
{
	static const char *const lines[] = { "resign?", "Сдаюсь?",
		"decline? #3" };
	char err[512];
	struct command c;
	size_t i;

	for (i = 0; i < nitems(lines); i++) {
		ok(lines[i], &c);
		ck_assert_msg(c.kind == CMD_MOVE && c.implicit,
		    "`%s` read as %s", lines[i], command_name(c.kind));
		command_free(&c);
	}
	ck_assert_int_eq(command_parse(al(), "admin abort? #3", &c, err,
	    sizeof(err)), -1);
	ck_assert_int_eq(c.kind, CMD_NONE);
	ck_assert_ptr_nonnull(strstr(err, "`admin` needs more words: "));
	command_free(&c);
	kind_is("resign!", CMD_RESIGN, 0, NULL);
	kind_is("draw? #3", CMD_DRAW, 3, NULL);
}
END_TEST

START_TEST(command_fold_cyrillic_and_yo)
{
	char *f;

	f = command_fold("ПРИВЕТ Ёж ёлка ABC");
	ck_assert_str_eq(f, "привет еж елка abc");
	ck_assert_uint_eq(strlen(f), strlen("ПРИВЕТ Ёж ёлка ABC"));
	free(f);
	/* Ѐ..Џ fold to ѐ..џ; bytes that are no Cyrillic letter stay. */
	f = command_fold("\xd0\x80\xd0\x8f \xc3\x89 \xd0");
	ck_assert_str_eq(f, "\xd1\x90\xd1\x9f \xc3\x89 \xd0");
	free(f);
}
END_TEST

START_TEST(command_game_id_forms)
{
	kind_is("accept #12.", CMD_ACCEPT, 12, NULL);
	kind_is("move #12: 3", CMD_MOVE, 12, "3");
	kind_is("move #12, 3", CMD_MOVE, 12, "3");
	bad("accept # 12", CMD_ACCEPT, "write the game number right after the "
	    "#, without a space: #12");
	bad("accept #12x", CMD_ACCEPT, "`#12x` is not a game number: write "
	    "it as #12");
	bad("accept #0", CMD_ACCEPT, "`#0` is not a game number: write it "
	    "as #12");
	bad("accept #1.2", CMD_ACCEPT, "`#1.2` is not a game number: write "
	    "it as #12");
	bad("board #123456789012345", CMD_BOARD,
	    "`#123456789012345` is too large a game number");
	bad("accept 12", CMD_ACCEPT, "accept takes nothing more, not `12`: "
	    "accept [#ID]");
}
END_TEST

START_TEST(command_move_guard_every_position)
{
	struct command c;

	ok("move #12 7. 3, 6", &c);
	ck_assert_int_eq(c.kind, CMD_MOVE);
	ck_assert_int_eq(c.game, 12);
	ck_assert_int_eq(c.guard, 7);
	ck_assert_str_eq(c.text, "3, 6");
	command_free(&c);

	ok("move 7. 3", &c);
	ck_assert_int_eq(c.game, 0);
	ck_assert_int_eq(c.guard, 7);
	ck_assert_str_eq(c.text, "3");
	command_free(&c);

	ok("move 12... b2-c3", &c);
	ck_assert_int_eq(c.guard, 12);
	ck_assert_str_eq(c.text, "b2-c3");
	command_free(&c);

	ok("preview #3 21. p c1, 2 c1", &c);
	ck_assert_int_eq(c.kind, CMD_PREVIEW);
	ck_assert_int_eq(c.game, 3);
	ck_assert_int_eq(c.guard, 21);
	ck_assert_str_eq(c.text, "p c1, 2 c1");
	command_free(&c);

	/* Implicit: at the start, and after #ID. */
	ok("7. 3", &c);
	ck_assert_int_eq(c.implicit, 1);
	ck_assert_int_eq(c.guard, 7);
	ck_assert_str_eq(c.text, "3");
	command_free(&c);

	ok("#12 7. crab b1-b2", &c);
	ck_assert_int_eq(c.implicit, 1);
	ck_assert_int_eq(c.game, 12);
	ck_assert_int_eq(c.guard, 7);
	ck_assert_str_eq(c.text, "crab b1-b2");
	command_free(&c);

	ok("ход #5 4. 3", &c);
	ck_assert_int_eq(c.kind, CMD_MOVE);
	ck_assert_int_eq(c.implicit, 0);
	ck_assert_int_eq(c.game, 5);
	ck_assert_int_eq(c.guard, 4);
	command_free(&c);

	/* Not guards: no space after the stop, or nothing after it. */
	ok("move 7.3", &c);
	ck_assert_int_eq(c.guard, 0);
	ck_assert_str_eq(c.text, "7.3");
	command_free(&c);
	ok("move 3.", &c);
	ck_assert_int_eq(c.guard, 0);
	ck_assert_str_eq(c.text, "3.");
	command_free(&c);

	bad("move 7. #12 3", CMD_MOVE, "put the game before the move number: "
	    "move #12 7. MOVE");
	bad("move 0. 3", CMD_MOVE, "move numbers start at 1, not 0");
	bad("move #4", CMD_MOVE, "move needs the move: move 3");
	bad("preview", CMD_PREVIEW, "preview needs the move: preview 3");
}
END_TEST

START_TEST(command_implicit_moves)
{
	static const char *const lines[] = { "3", "3, 6", "b2-c3", "b2xd4xb4",
		"crab b1-b2", "p c1, 2 c1", "3co", "play 3co", "redeal",
		"change", "nochange", "discard 5cu", "pass heron", "end",
		"monsieur", "A c1" };
	struct command c;
	size_t i;

	for (i = 0; i < nitems(lines); i++) {
		ok(lines[i], &c);
		ck_assert_msg(c.kind == CMD_MOVE && c.implicit == 1,
		    "`%s` is not an implicit move", lines[i]);
		ck_assert_int_eq(c.game, 0);
		ck_assert_int_eq(c.guard, 0);
		ck_assert_str_eq(c.text, lines[i]);
		command_free(&c);
	}
	ok("  \t3 \t", &c);
	ck_assert_str_eq(c.text, "3");
	command_free(&c);
	ok("#8 3", &c);
	ck_assert_int_eq(c.implicit, 1);
	ck_assert_int_eq(c.game, 8);
	ck_assert_str_eq(c.text, "3");
	command_free(&c);
	/* A keyword with the move is not implicit. */
	ok("move 3", &c);
	ck_assert_int_eq(c.implicit, 0);
	command_free(&c);
	bad("#8", CMD_MOVE, "what to play in game #8? write the move after "
	    "it: #8 3");
	bad("   ", CMD_NONE, "the line is empty");
}
END_TEST

START_TEST(command_russian_aliases)
{
	struct command c;

	kind_is("ход 3", CMD_MOVE, 0, "3");
	kind_is("ходить #2 b2-c3", CMD_MOVE, 2, "b2-c3");
	kind_is("сдаюсь", CMD_RESIGN, 0, NULL);
	kind_is("доска #9", CMD_BOARD, 9, NULL);
	kind_is("помощь", CMD_HELP, 0, NULL);
	kind_is("игры", CMD_GAMES, 0, NULL);
	kind_is("принять #3", CMD_ACCEPT, 3, NULL);
	kind_is("отказ #3", CMD_DECLINE, 3, NULL);
	kind_is("ничья", CMD_DRAW, 0, NULL);
	kind_is("предлагаю ничью #4", CMD_DRAW, 4, NULL);
	/* "согласен" alone accepts an invitation; with "на ничью", a draw. */
	kind_is("согласен #4", CMD_ACCEPT, 4, NULL);
	kind_is("Согласен на ничью #4", CMD_DRAW, 4, NULL);
	kind_is("история", CMD_HISTORY, 0, NULL);
	kind_is("история ходов #2", CMD_HISTORY, 2, NULL);
	kind_is("наблюдать #5", CMD_OBSERVE, 5, NULL);
	kind_is("не наблюдать #5", CMD_UNOBSERVE, 5, NULL);
	kind_is("список", CMD_LIST, 0, NULL);
	kind_is("мои игры", CMD_LIST, 0, NULL);
	kind_is("спасибо #7", CMD_THANKS, 7, NULL);
	kind_is("жалоба #7 грубит", CMD_REPORT, 7, "грубит");
	kind_is("сказать #7 спасибо за игру", CMD_SAY, 7, "спасибо за игру");
	kind_is("имя Иван Петров", CMD_SET_NAME, 0, "Иван Петров");
	kind_is("админ жалобы", CMD_ADMIN_REPORTS, 0, NULL);
	kind_is("watch #5", CMD_OBSERVE, 5, NULL);

	ok("язык ru", &c);
	ck_assert_int_eq(c.kind, CMD_SET_LANGUAGE);
	ck_assert_str_eq(c.lang, "ru");
	command_free(&c);
	ok("отпуск 10", &c);
	ck_assert_int_eq(c.kind, CMD_VACATION);
	ck_assert_int_eq(c.days, 10);
	command_free(&c);

	/* The longest alias wins: "новая игра" over "новая". */
	ok("новая игра Манкала bob@example.org", &c);
	ck_assert_int_eq(c.kind, CMD_NEW);
	ck_assert_str_eq(c.gamename, "манкала");
	ck_assert_int_eq(c.nseats, 1);
	command_free(&c);
	ok("новая манкала bob@example.org", &c);
	ck_assert_int_eq(c.kind, CMD_NEW);
	ck_assert_str_eq(c.gamename, "манкала");
	command_free(&c);
	ok("новая_игра калах bob@example.org", &c);
	ck_assert_int_eq(c.kind, CMD_NEW);
	command_free(&c);

	/* Without aliases only English is read: ход is a move's text. */
	{
		char err[256];

		ck_assert_int_eq(command_parse(NULL, "ход 3", &c, err,
		    sizeof(err)), 0);
		ck_assert_int_eq(c.implicit, 1);
		ck_assert_str_eq(c.text, "ход 3");
		command_free(&c);
	}
}
END_TEST

START_TEST(command_new_arguments)
{
	struct command c;

	ok("new mancala pits=4 seeds=3 clock=3d first=me rated=no "
	    "Bob@Example.ORG", &c);
	ck_assert_int_eq(c.kind, CMD_NEW);
	ck_assert_str_eq(c.gamename, "mancala");
	ck_assert_int_eq(c.nopts, 2);
	ck_assert_str_eq(c.opts[0], "pits=4");
	ck_assert_str_eq(c.opts[1], "seeds=3");
	ck_assert_str_eq(c.clock, "3d");
	ck_assert_int_eq(c.first, CMD_FIRST_ME);
	ck_assert_int_eq(c.rated, 0);
	ck_assert_int_eq(c.nseats, 1);
	ck_assert_str_eq(c.seats[0].addr, "bob@example.org");
	ck_assert_int_eq(c.seats[0].robot, 0);
	command_free(&c);

	ok("NEW Aluette a@x.org, <b@y.org>,c@z.org first=b@y.org clock=7d+1d",
	    &c);
	ck_assert_str_eq(c.gamename, "aluette");
	ck_assert_int_eq(c.nseats, 3);
	ck_assert_str_eq(c.seats[0].addr, "a@x.org");
	ck_assert_str_eq(c.seats[1].addr, "b@y.org");
	ck_assert_str_eq(c.seats[2].addr, "c@z.org");
	ck_assert_int_eq(c.first, CMD_FIRST_ADDRESS);
	ck_assert_str_eq(c.first_addr, "b@y.org");
	ck_assert_str_eq(c.clock, "7d+1d");
	ck_assert_int_eq(c.rated, -1);
	ck_assert_int_eq(c.nopts, 0);
	command_free(&c);

	/* Robot seats for issue 10, in the order written. */
	ok("new aluette robot bob@x.org robot:3 first=random rated=yes", &c);
	ck_assert_int_eq(c.nseats, 3);
	ck_assert_ptr_null(c.seats[0].addr);
	ck_assert_int_eq(c.seats[0].robot, -1);
	ck_assert_str_eq(c.seats[1].addr, "bob@x.org");
	ck_assert_ptr_null(c.seats[2].addr);
	ck_assert_int_eq(c.seats[2].robot, 3);
	ck_assert_int_eq(c.first, CMD_FIRST_RANDOM);
	ck_assert_int_eq(c.rated, 1);
	command_free(&c);
	ok("new alquerque ROBOT:1", &c);
	ck_assert_int_eq(c.seats[0].robot, 1);
	command_free(&c);

	ok("admin new spite a@x.org b@y.org first=a@x.org", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_NEW);
	ck_assert_str_eq(c.gamename, "spite");
	ck_assert_int_eq(c.nseats, 2);
	command_free(&c);
	/* Four seats by an admin; three others plus the sender at `new`. */
	ok("admin new aluette a@x.org b@x.org c@x.org d@x.org", &c);
	ck_assert_int_eq(c.nseats, 4);
	command_free(&c);
}
END_TEST

START_TEST(command_new_errors)
{
	bad("new", CMD_NEW, "new needs the game first: new mancala "
	    "bob@example.org");
	bad("new bob@example.org", CMD_NEW, "new needs the game first: new "
	    "mancala bob@example.org");
	bad("new robot", CMD_NEW, "new needs the game first: new mancala "
	    "bob@example.org");
	bad("new mancala", CMD_NEW, "new needs the other players' addresses "
	    "(or robot): new mancala bob@example.org");
	bad("admin new mancala pits=4", CMD_ADMIN_NEW, "admin new needs the "
	    "players' addresses (or robot): admin new mancala "
	    "bob@example.org");
	bad("new mancala bob", CMD_NEW, "`bob` is neither OPTION=VALUE, an "
	    "address nor robot: new GAME [OPT=VAL...] ADDRESS...");
	bad("new mancala bob@", CMD_NEW, "`bob@` is not a mail address");
	bad("new mancala =4 b@x.org", CMD_NEW, "`=4` is not OPTION=VALUE");
	bad("new mancala pits= b@x.org", CMD_NEW, "`pits=` is not "
	    "OPTION=VALUE");
	bad("new mancala pits=4 PITS=5 b@x.org", CMD_NEW,
	    "pits= is given twice");
	bad("new mancala clock=3d clock=1d b@x.org", CMD_NEW,
	    "clock= is given twice");
	bad("new mancala clock=soon b@x.org", CMD_NEW, "clock=: `soon` is not "
	    "a time control (time per move such as 24h, or reserve+increment "
	    "such as 7d+1d)");
	bad("new mancala clock=10s b@x.org", CMD_NEW, "clock=: `10s`: the "
	    "time per move must be between 1m and 365d");
	bad("new mancala first=later b@x.org", CMD_NEW, "first= takes random, "
	    "me or an address, not `later`");
	bad("admin new mancala first=c@x.org a@x.org b@x.org", CMD_ADMIN_NEW,
	    "first=c@x.org is not one of the players");
	bad("admin new mancala first=me a@x.org b@x.org", CMD_ADMIN_NEW,
	    "first=me: in a game started by an admin name the first "
	    "player's address");
	bad("new mancala rated=maybe b@x.org", CMD_NEW, "rated= takes yes or "
	    "no, not `maybe`");
	bad("new mancala b@x.org B@X.org", CMD_NEW, "b@x.org is named twice");
	bad("new mancala robot:4", CMD_NEW, "`robot:4`: a robot's level is 1 "
	    "to 3: robot:2");
	bad("new mancala robot:", CMD_NEW, "`robot:`: a robot's level is 1 "
	    "to 3: robot:2");
	bad("new aluette a@x.org b@x.org c@x.org d@x.org", CMD_NEW,
	    "too many players: a game has at most 4 seats, yours included");
}
END_TEST

START_TEST(command_preferences)
{
	struct command c;

	ok("set language RU", &c);
	ck_assert_str_eq(c.lang, "ru");
	command_free(&c);
	ok("set language pt-BR", &c);
	ck_assert_str_eq(c.lang, "pt-br");
	command_free(&c);
	ok("set language Русский", &c);
	ck_assert_str_eq(c.lang, "ru");
	command_free(&c);
	ok("set language english", &c);
	ck_assert_str_eq(c.lang, "en");
	command_free(&c);
	ok("set notify turn", &c);
	ck_assert_int_eq(c.kind, CMD_SET_NOTIFY);
	ck_assert_int_eq(c.notify, CMD_NOTIFY_TURN);
	command_free(&c);
	ok("set notify ALL", &c);
	ck_assert_int_eq(c.notify, CMD_NOTIFY_ALL);
	command_free(&c);
	ok("set notify off", &c);
	ck_assert_int_eq(c.notify, CMD_NOTIFY_OFF);
	command_free(&c);
	ok("set name  Ada  Lovelace ", &c);
	ck_assert_int_eq(c.kind, CMD_SET_NAME);
	ck_assert_str_eq(c.text, "Ada  Lovelace");
	command_free(&c);
	ok("vacation 14", &c);
	ck_assert_int_eq(c.kind, CMD_VACATION);
	ck_assert_int_eq(c.days, 14);
	command_free(&c);
	ok("vacation OFF", &c);
	ck_assert_int_eq(c.days, 0);
	command_free(&c);

	bad("set", CMD_NONE, "`set` needs more words: set language CODE; set "
	    "notify turn|all|off; set name TEXT; set timezone ZONE; set "
	    "public-address yes|no");
	bad("set colour red", CMD_NONE, "`set` needs more words: set language "
	    "CODE; set notify turn|all|off; set name TEXT; set timezone ZONE; "
	    "set public-address yes|no");
	ok("set public-address yes", &c);
	ck_assert_int_eq(c.kind, CMD_SET_PUBLIC_ADDRESS);
	ck_assert_int_eq(c.yes, 1);
	command_free(&c);
	ok("set public-address NO", &c);
	ck_assert_int_eq(c.yes, 0);
	command_free(&c);
	bad("set public-address maybe", CMD_SET_PUBLIC_ADDRESS, "set "
	    "public-address takes yes or no, not `maybe`");
	bad("set language", CMD_SET_LANGUAGE, "set language needs a language "
	    "code: set language ru");
	bad("set language klingon", CMD_SET_LANGUAGE, "`klingon` is not a "
	    "language code: set language en, set language ru");
	bad("set language e1", CMD_SET_LANGUAGE, "`e1` is not a language "
	    "code: set language en, set language ru");
	bad("set language en ru", CMD_SET_LANGUAGE, "set language takes "
	    "nothing more, not `ru`: set language CODE");
	bad("set notify", CMD_SET_NOTIFY, "set notify needs turn, all or off: "
	    "set notify turn");
	bad("set notify sometimes", CMD_SET_NOTIFY, "set notify takes turn, "
	    "all or off, not `sometimes`");
	bad("set name", CMD_SET_NAME, "set name needs the name: set name Ada "
	    "Lovelace");
	bad("set name Bob <bob@x.org>", CMD_SET_NAME, "a name may not "
	    "contain @, <, >, \" or \\");
	bad("set name АбвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗ", CMD_SET_NAME,
	    "the name is too long (at most 40 characters)");
	bad("vacation", CMD_VACATION, "vacation needs a number of days or "
	    "off: vacation 7");
	bad("vacation 0", CMD_VACATION, "vacation takes days from 1 to 365, "
	    "or off, not `0`");
	bad("vacation 400", CMD_VACATION, "vacation takes days from 1 to 365, "
	    "or off, not `400`");
	bad("vacation soon", CMD_VACATION, "vacation takes days from 1 to 365, "
	    "or off, not `soon`");
	bad("vacation 3 weeks", CMD_VACATION, "vacation takes nothing more, "
	    "not `weeks`: vacation DAYS|off");
	bad("vacation 3 days please", CMD_VACATION, "vacation takes nothing "
	    "more, not `please`: vacation DAYS|off");
	bad("vacation d", CMD_VACATION, "vacation takes days from 1 to 365, "
	    "or off, not `d`");
	ok("vacation 7d", &c);
	ck_assert_int_eq(c.days, 7);
	command_free(&c);
	ok("vacation 3 days", &c);
	ck_assert_int_eq(c.days, 3);
	command_free(&c);
	ok("отпуск 5 дней", &c);
	ck_assert_int_eq(c.kind, CMD_VACATION);
	ck_assert_int_eq(c.days, 5);
	command_free(&c);
}
END_TEST

START_TEST(command_other_errors)
{
	bad("games all", CMD_GAMES, "games takes nothing more, not `all`: "
	    "games");
	bad("list mine", CMD_LIST, "list takes nothing more, not `mine`: "
	    "list");
	bad("resign #4 now", CMD_RESIGN, "resign takes nothing more, not "
	    "`now`: resign [#ID]");
	bad("say #4", CMD_SAY, "say needs the message: say [#ID] TEXT");
	bad("report", CMD_REPORT, "report needs what happened: report [#ID] "
	    "TEXT");
	bad("signal", CMD_SIGNAL, "signal needs the signal's name: signal "
	    "madame");
	bad("signal madame aces-2", CMD_SIGNAL, "signal takes nothing more, "
	    "not `aces-2`: signal [#ID] NAME");
	bad("confirm", CMD_CONFIRM, "confirm needs the code from the "
	    "referee's mail: confirm CODE");
	bad("confirm a;b", CMD_CONFIRM, "`a;b` is not a confirmation code: "
	    "copy it from the referee's mail");
	bad("confirm abc def", CMD_CONFIRM, "confirm takes nothing more, not "
	    "`def`: confirm COOKIE");
	bad("admin", CMD_NONE, "`admin` needs more words: admin new GAME "
	    "[OPT=VAL...] ADDRESS...; admin abort #ID [REASON]; admin "
	    "adjudicate #ID draw|1-0|0-1|ADDRESS|SEAT [REASON]; admin extend "
	    "#ID HOURS [REASON]; admin ban ADDRESS [REASON]; admin unban "
	    "ADDRESS; admin reports; admin resolve N TEXT; admin ladder "
	    "create NAME GAME [OPT=VAL...]; admin ladder close NAME; admin "
	    "ladder remove-player NAME ADDRESS; admin ladder adjust NAME "
	    "ADDRESS POSITION");
}
END_TEST

START_TEST(command_ladder)
{
	struct command c;

	ok("ladder Kalah-Club", &c);
	ck_assert_int_eq(c.kind, CMD_LADDER);
	ck_assert_str_eq(c.ladder, "kalah-club");
	command_free(&c);
	ok("ladder join kalah", &c);
	ck_assert_int_eq(c.kind, CMD_LADDER_JOIN);
	ck_assert_str_eq(c.ladder, "kalah");
	ck_assert_ptr_null(c.addr);
	command_free(&c);
	ok("ladder join duo with Bob@X.org", &c);
	ck_assert_int_eq(c.kind, CMD_LADDER_JOIN);
	ck_assert_str_eq(c.ladder, "duo");
	ck_assert_str_eq(c.addr, "bob@x.org");
	command_free(&c);
	ok("лестница вступить duo с bob@x.org", &c);
	ck_assert_int_eq(c.kind, CMD_LADDER_JOIN);
	ck_assert_str_eq(c.addr, "bob@x.org");
	command_free(&c);
	ok("ladder leave kalah", &c);
	ck_assert_int_eq(c.kind, CMD_LADDER_LEAVE);
	ck_assert_str_eq(c.ladder, "kalah");
	command_free(&c);
	ok("challenge bob@x.org", &c);
	ck_assert_int_eq(c.kind, CMD_CHALLENGE);
	ck_assert_str_eq(c.addr, "bob@x.org");
	ck_assert_ptr_null(c.ladder);
	command_free(&c);
	ok("вызов bob@x.org KALAH", &c);
	ck_assert_int_eq(c.kind, CMD_CHALLENGE);
	ck_assert_str_eq(c.ladder, "kalah");
	command_free(&c);

	bad("ladder", CMD_LADDER, "ladder needs the ladder's name: ladder "
	    "NAME");
	bad("ladder join", CMD_LADDER_JOIN, "ladder join needs the ladder's "
	    "name: ladder join NAME [with ADDRESS]");
	bad("ladder kalah club", CMD_LADDER, "ladder takes nothing more, not "
	    "`club`: ladder NAME");
	bad("ladder k@lah", CMD_LADDER, "`k@lah` is no ladder name (letters, "
	    "digits, - and _, at most 40)");
	bad("ladder leave join", CMD_LADDER_LEAVE, "`join` is no ladder name "
	    "(letters, digits, - and _, at most 40)");
	bad("ladder join duo and bob@x.org", CMD_LADDER_JOIN, "after the "
	    "ladder's name comes `with ADDRESS` or nothing: ladder join NAME "
	    "[with ADDRESS]");
	bad("ladder join duo with", CMD_LADDER_JOIN, "ladder join needs an "
	    "address: ladder join NAME [with ADDRESS]");
	bad("ladder join duo with bob", CMD_LADDER_JOIN, "`bob` is not a mail "
	    "address");
	bad("challenge", CMD_CHALLENGE, "challenge needs an address: "
	    "challenge ADDRESS [LADDER]");
	bad("challenge bob@x.org kalah now", CMD_CHALLENGE, "challenge takes "
	    "nothing more, not `now`: challenge ADDRESS [LADDER]");
}
END_TEST

/* seek GAME [OPT=VAL...]: the game's options as for new, ladder= and
 * rating= for who may take a seat; no players; a comma belongs to an
 * option's value, in new too. */
START_TEST(command_seek)
{
	struct command c;

	ok("seek Kalah pits=3 clock=3d rated=no first=me", &c);
	ck_assert_int_eq(c.kind, CMD_SEEK);
	ck_assert_str_eq(c.gamename, "kalah");
	ck_assert_int_eq(c.nopts, 1);
	ck_assert_str_eq(c.opts[0], "pits=3");
	ck_assert_str_eq(c.clock, "3d");
	ck_assert_int_eq(c.rated, 0);
	ck_assert_int_eq(c.first, CMD_FIRST_ME);
	ck_assert_ptr_null(c.ladder);
	ck_assert_int_eq(c.rating_min, 0);
	ck_assert_int_eq(c.rating_max, 0);
	command_free(&c);
	ok("seek kalah ladder=Club rating=1400-1800", &c);
	ck_assert_str_eq(c.ladder, "club");
	ck_assert_int_eq(c.rating_min, 1400);
	ck_assert_int_eq(c.rating_max, 1800);
	ck_assert_int_eq(c.nopts, 0);
	command_free(&c);
	ok("seek kalah rating=1500-", &c);
	ck_assert_int_eq(c.rating_min, 1500);
	ck_assert_int_eq(c.rating_max, 0);
	command_free(&c);
	ok("заявка alquerque rating=-1700", &c);
	ck_assert_int_eq(c.kind, CMD_SEEK);
	ck_assert_int_eq(c.rating_min, 0);
	ck_assert_int_eq(c.rating_max, 1700);
	command_free(&c);
	ok("seek almakleh colour=green", &c);
	ck_assert_str_eq(c.opts[0], "colour=green");
	command_free(&c);
	kind_is("seeks", CMD_SEEKS, 0, NULL);
	kind_is("заявки", CMD_SEEKS, 0, NULL);
	kind_is("accept #12", CMD_ACCEPT, 12, NULL);

	ok("new almakleh colours=red,blue, bob@x.org,cat@x.org", &c);
	ck_assert_int_eq(c.nopts, 1);
	ck_assert_str_eq(c.opts[0], "colours=red,blue");
	ck_assert_int_eq(c.nseats, 2);
	command_free(&c);

	bad("seek", CMD_SEEK, "seek needs the game first: seek mancala");
	bad("seek bob@x.org", CMD_SEEK, "seek needs the game first: seek "
	    "mancala");
	bad("seek kalah bob@x.org", CMD_SEEK, "`bob@x.org`: a seek names no "
	    "players, only OPTION=VALUE: seek GAME [OPT=VAL...] [ladder=NAME] "
	    "[rating=LOW-HIGH]");
	bad("seek kalah first=bob@x.org", CMD_SEEK, "first= in a seek takes "
	    "random or me: who takes the other seats is not known yet");
	bad("seek kalah rating=1800-1400", CMD_SEEK, "rating=1800-1400: write "
	    "the range as rating=1400-1800, rating=1500- (at least) or "
	    "rating=-1700 (at most)");
	bad("seek kalah rating=1500", CMD_SEEK, "rating=1500: write the range "
	    "as rating=1400-1800, rating=1500- (at least) or rating=-1700 (at "
	    "most)");
	bad("seek kalah rating=-", CMD_SEEK, "rating=-: write the range as "
	    "rating=1400-1800, rating=1500- (at least) or rating=-1700 (at "
	    "most)");
	bad("seek kalah ladder=a ladder=b", CMD_SEEK, "ladder= is given twice");
	bad("seek kalah ladder=k@x", CMD_SEEK, "`k@x` is no ladder name "
	    "(letters, digits, - and _, at most 40)");
	bad("seeks all", CMD_SEEKS, "seeks takes nothing more, not `all`: "
	    "seeks");
}
END_TEST

START_TEST(command_admin_ladder)
{
	struct command c;

	ok("admin ladder create Kalah mancala seeds=3 reach=2 list=club@x.org",
	    &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_LADDER_CREATE);
	ck_assert_str_eq(c.ladder, "kalah");
	ck_assert_str_eq(c.gamename, "mancala");
	ck_assert_int_eq(c.nopts, 3);
	ck_assert_str_eq(c.opts[0], "seeds=3");
	ck_assert_str_eq(c.opts[2], "list=club@x.org");
	command_free(&c);
	ok("админ лестница создать duo Aluette", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_LADDER_CREATE);
	ck_assert_str_eq(c.gamename, "aluette");
	ck_assert_int_eq(c.nopts, 0);
	command_free(&c);
	ok("admin ladder close kalah", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_LADDER_CLOSE);
	ck_assert_str_eq(c.ladder, "kalah");
	command_free(&c);
	ok("admin ladder remove-player kalah Bob@x.org", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_LADDER_REMOVE);
	ck_assert_str_eq(c.addr, "bob@x.org");
	command_free(&c);
	ok("admin ladder adjust kalah bob@x.org 2", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_LADDER_ADJUST);
	ck_assert_str_eq(c.ladder, "kalah");
	ck_assert_str_eq(c.addr, "bob@x.org");
	ck_assert_int_eq(c.position, 2);
	command_free(&c);

	bad("admin ladder create kalah", CMD_ADMIN_LADDER_CREATE, "admin "
	    "ladder create needs the game: admin ladder create NAME GAME "
	    "[OPT=VAL...]");
	bad("admin ladder create kalah mancala fast", CMD_ADMIN_LADDER_CREATE,
	    "`fast` is no OPT=VAL: admin ladder create NAME GAME "
	    "[OPT=VAL...]");
	bad("admin ladder adjust kalah bob@x.org", CMD_ADMIN_LADDER_ADJUST,
	    "admin ladder adjust needs the new position: admin ladder adjust "
	    "NAME ADDRESS POSITION");
	bad("admin ladder adjust kalah bob@x.org 0", CMD_ADMIN_LADDER_ADJUST,
	    "`0` is no position (1 is the top)");
	bad("admin ladder remove-player kalah", CMD_ADMIN_LADDER_REMOVE,
	    "admin ladder remove-player needs an address: admin ladder "
	    "remove-player NAME ADDRESS");
	bad("admin ladder close kalah now", CMD_ADMIN_LADDER_CLOSE, "admin "
	    "ladder close takes nothing more, not `now`: admin ladder close "
	    "NAME");
}
END_TEST

START_TEST(command_admin)
{
	struct command c;

	ok("admin abort #12 both players gone", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_ABORT);
	ck_assert_int_eq(c.game, 12);
	ck_assert_str_eq(c.text, "both players gone");
	command_free(&c);
	ok("admin abort #12", &c);
	ck_assert_ptr_null(c.text);
	command_free(&c);

	ok("admin adjudicate #5 draw", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_ADJUDICATE);
	ck_assert_int_eq(c.result, CMD_RESULT_DRAW);
	command_free(&c);
	ok("admin adjudicate #5 1/2-1/2 agreed by phone", &c);
	ck_assert_int_eq(c.result, CMD_RESULT_DRAW);
	ck_assert_str_eq(c.text, "agreed by phone");
	command_free(&c);
	ok("admin adjudicate #5 0-1", &c);
	ck_assert_int_eq(c.result, CMD_RESULT_SEAT);
	ck_assert_int_eq(c.result_seat, 1);
	command_free(&c);
	ok("admin adjudicate #5 1-0", &c);
	ck_assert_int_eq(c.result_seat, 0);
	command_free(&c);
	ok("admin adjudicate #5 Ann@X.org", &c);
	ck_assert_int_eq(c.result, CMD_RESULT_ADDRESS);
	ck_assert_str_eq(c.addr, "ann@x.org");
	command_free(&c);
	ok("admin adjudicate #5 South lost on time twice", &c);
	ck_assert_int_eq(c.result, CMD_RESULT_NAME);
	ck_assert_str_eq(c.result_name, "South");
	ck_assert_str_eq(c.text, "lost on time twice");
	command_free(&c);

	ok("admin extend #5 48", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_EXTEND);
	ck_assert_int_eq(c.hours, 48);
	command_free(&c);
	ok("admin extend #5 72h illness", &c);
	ck_assert_int_eq(c.hours, 72);
	ck_assert_str_eq(c.text, "illness");
	command_free(&c);

	ok("admin ban Spam@Example.org flooding", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_BAN);
	ck_assert_str_eq(c.addr, "spam@example.org");
	ck_assert_str_eq(c.text, "flooding");
	command_free(&c);
	ok("admin unban spam@example.org", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_UNBAN);
	ck_assert_str_eq(c.addr, "spam@example.org");
	command_free(&c);
	ok("admin resolve 3 warned the player", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_RESOLVE);
	ck_assert_int_eq(c.report, 3);
	ck_assert_str_eq(c.text, "warned the player");
	command_free(&c);
	ok("admin resolve #4 done", &c);
	ck_assert_int_eq(c.report, 4);
	command_free(&c);
	ok("админ продлить #5 24", &c);
	ck_assert_int_eq(c.kind, CMD_ADMIN_EXTEND);
	ck_assert_int_eq(c.hours, 24);
	command_free(&c);

	bad("admin abort", CMD_ADMIN_ABORT, "admin abort needs the game "
	    "number: admin abort #ID [REASON]");
	bad("admin abort 12", CMD_ADMIN_ABORT, "admin abort needs the game "
	    "number: admin abort #ID [REASON]");
	bad("admin adjudicate #5", CMD_ADMIN_ADJUDICATE, "admin adjudicate "
	    "needs the result: admin adjudicate #ID draw|1-0|0-1|ADDRESS|SEAT "
	    "[REASON]");
	bad("admin adjudicate #5 2-0", CMD_ADMIN_ADJUDICATE, "`2-0` is not a "
	    "result: draw, 1-0, 0-1, the winner's address or seat");
	bad("admin adjudicate #5 x@", CMD_ADMIN_ADJUDICATE, "`x@` is not a "
	    "mail address");
	bad("admin extend #5", CMD_ADMIN_EXTEND, "admin extend needs the "
	    "hours: admin extend #12 48");
	bad("admin extend #5 0", CMD_ADMIN_EXTEND, "admin extend takes hours "
	    "from 1 to 8760, not `0`");
	bad("admin extend #5 2d", CMD_ADMIN_EXTEND, "admin extend takes hours "
	    "from 1 to 8760, not `2d`");
	bad("admin extend 48", CMD_ADMIN_EXTEND, "admin extend needs the game "
	    "number: admin extend #ID HOURS [REASON]");
	bad("admin ban", CMD_ADMIN_BAN, "admin ban needs the address: admin "
	    "ban ADDRESS [REASON]");
	bad("admin ban spammer", CMD_ADMIN_BAN, "`spammer` is not a mail "
	    "address");
	bad("admin unban a@x.org please", CMD_ADMIN_UNBAN, "admin unban takes "
	    "nothing more, not `please`: admin unban ADDRESS");
	bad("admin resolve", CMD_ADMIN_RESOLVE, "admin resolve needs the "
	    "report's number and what was done: admin resolve 3 TEXT");
	bad("admin resolve x done", CMD_ADMIN_RESOLVE, "`x` is not a report "
	    "number (see admin reports)");
	bad("admin resolve 3", CMD_ADMIN_RESOLVE, "admin resolve needs what "
	    "was done: admin resolve N TEXT");
	bad("admin reports all", CMD_ADMIN_REPORTS, "admin reports takes "
	    "nothing more, not `all`: admin reports");
}
END_TEST

START_TEST(command_long_lines)
{
	struct buf b = { 0 };
	struct command c;
	char err[256];
	int i;

	/* The longest move line passes; a byte more is refused. */
	buf_adds(&b, "move ");
	while (b.len < 5 + COMMAND_TEXT_MAX)
		buf_addc(&b, '3');
	ok(b.s, &c);
	ck_assert_uint_eq(strlen(c.text), COMMAND_TEXT_MAX);
	command_free(&c);
	buf_addc(&b, '3');
	bad(b.s, CMD_MOVE, "the move line is too long (at most 1000 bytes)");
	buf_reset(&b);
	buf_adds(&b, "say ");
	for (i = 0; i < 1001; i++)
		buf_addc(&b, 'x');
	bad(b.s, CMD_SAY, "say: the text is too long (at most 1000 bytes)");
	buf_reset(&b);
	for (i = 0; i < COMMAND_LINE_MAX + 1; i++)
		buf_addc(&b, 'x');
	ck_assert_int_eq(command_parse(al(), b.s, &c, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "the line is too long (at most 2000 bytes): one "
	    "command per line");
	ck_assert_int_eq(c.kind, CMD_NONE);
	command_free(&c);
	buf_free(&b);
}
END_TEST

/* Random lines from words that matter to the parser and random bytes:
 * every one parses or fails with a message, and a parse is self-consistent. */
START_TEST(command_junk_never_crashes)
{
	static const char *const words[] = { "move", "new", "admin", "set",
		"#", "#12", "#0", "7.", "3", "robot", "robot:2", "a@b.org",
		"clock=", "clock=1d", "first=me", "x=y", "=", "ход", "СДАЮСЬ",
		"language", "notify", "name", "\xc2\xa0", "\t", ",", "...",
		"новая", "игра", "adjudicate", "extend", "resolve", "ban",
		"draw", "\xd0", "\xff", "say", "vacation", "off", "@", "<", ">" };
	struct rng r;
	unsigned char seed[RNG_SEED_LEN];
	struct buf b = { 0 };
	struct command c;
	char err[512];
	int i, j, n, rc, parsed = 0, failed = 0;

	rng_seed_from_u64(seed, 20261129);
	rng_init(&r, seed);
	for (i = 0; i < 20000; i++) {
		buf_reset(&b);
		n = (int)rng_below(&r, 12);
		for (j = 0; j < n; j++) {
			if (rng_below(&r, 4) == 0) {
				char ch = (char)(1 + rng_below(&r, 255));

				buf_add(&b, &ch, 1);
			} else
				buf_adds(&b, words[rng_below(&r,
				    nitems(words))]);
			if (rng_below(&r, 3) != 0)
				buf_addc(&b, ' ');
		}
		err[0] = '\0';
		rc = command_parse(al(), buf_str(&b), &c, err, sizeof(err));
		if (rc == 0) {
			parsed++;
			ck_assert_int_gt(c.kind, CMD_NONE);
			ck_assert_int_lt(c.kind, CMD_NKINDS);
			if (c.kind == CMD_MOVE || c.kind == CMD_PREVIEW)
				ck_assert_ptr_nonnull(c.text);
			ck_assert_int_ge(c.game, 0);
		} else {
			failed++;
			ck_assert_msg(err[0] != '\0', "no message for `%s`",
			    buf_str(&b));
		}
		command_free(&c);
	}
	/* Both outcomes are exercised. */
	ck_assert_int_gt(parsed, 1000);
	ck_assert_int_gt(failed, 1000);
	buf_free(&b);
}
END_TEST

START_TEST(command_names_and_usage)
{
	int k;

	ck_assert_str_eq(command_name(CMD_NONE), "");
	ck_assert_str_eq(command_name(CMD_SET_NOTIFY), "set notify");
	ck_assert_str_eq(command_name(CMD_ADMIN_ADJUDICATE), "admin adjudicate");
	ck_assert_str_eq(command_usage(CMD_MOVE),
	    "move [#ID] [N.] MOVE[, MOVE...]");
	for (k = CMD_NONE + 1; k < CMD_NKINDS; k++) {
		const char *n = command_name((enum command_kind)k);
		struct command c;
		char err[512];

		ck_assert_msg(n[0] != '\0', "kind %d has no name", k);
		ck_assert_msg(strncmp(command_usage((enum command_kind)k), n,
		    strlen(n)) == 0, "usage of %s", n);
		/* The name typed alone is read as that command (parsed or
		 * refused for missing arguments). */
		command_parse(NULL, n, &c, err, sizeof(err));
		ck_assert_msg((int)c.kind == k, "`%s` read as %d", n, c.kind);
		command_free(&c);
	}
}
END_TEST

/* commands.md asks for aliases in other languages; every command has a
 * Russian one in the shipped file, and each reads as its command. */
START_TEST(command_every_command_has_russian_alias)
{
	struct buf b = { 0 };
	struct command c;
	char err[512], *first, *comma;
	int k;

	for (k = CMD_NONE + 1; k < CMD_NKINDS; k++) {
		buf_reset(&b);
		command_aliases_text(al(), (enum command_kind)k, "ru", &b);
		ck_assert_msg(b.len > 0, "%s has no Russian alias",
		    command_name((enum command_kind)k));
		first = xstrdup(b.s);
		if ((comma = strchr(first, ',')) != NULL)
			*comma = '\0';
		command_parse(al(), first, &c, err, sizeof(err));
		ck_assert_msg((int)c.kind == k, "`%s` read as %d, not %s", first,
		    c.kind, command_name((enum command_kind)k));
		command_free(&c);
		free(first);
	}
	buf_reset(&b);
	command_aliases_text(al(), CMD_MOVE, "ru", &b);
	ck_assert_str_eq(b.s, "ход, ходить, хожу, сходить");
	buf_reset(&b);
	command_aliases_text(al(), CMD_MOVE, "xx", &b);
	ck_assert_uint_eq(b.len, 0);
	buf_free(&b);
}
END_TEST

/* Every game can be named in Russian (a Cyrillic alias), and commands.yaml
 * is not taken for a game. */
START_TEST(command_games_have_russian_names)
{
	struct gamedef *defs;
	char err[512];
	int n, i, j, cyr;

	ck_assert_int_eq(gamedef_load_dir(gamedef_default_dir(), &defs, &n,
	    err, sizeof(err)), 0);
	ck_assert_int_eq(n, 5);
	for (i = 0; i < n; i++) {
		cyr = 0;
		for (j = 0; j < defs[i].naliases; j++)
			if ((unsigned char)defs[i].aliases[j][0] == 0xd0 ||
			    (unsigned char)defs[i].aliases[j][0] == 0xd1)
				cyr = 1;
		ck_assert_msg(cyr, "%s has no Russian alias", defs[i].name);
		ck_assert_str_ne(defs[i].name, "commands");
	}
	gamedef_free_all(defs, n);
}
END_TEST

/* The Russian table of ludus-commands(7) says what games/commands.yaml
 * holds, row by row. */
/* if MOVE then MOVE [if MOVE then MOVE...], conditions, takeback. */
START_TEST(command_conditional_and_takeback)
{
	struct command c;

	ok("if b4-c3 then d2-e3 if c3xe1 then a1-b2", &c);
	ck_assert_int_eq(c.kind, CMD_IF);
	ck_assert_int_eq(c.ncond, 4);
	ck_assert_str_eq(c.cond[0], "b4-c3");
	ck_assert_str_eq(c.cond[1], "d2-e3");
	ck_assert_str_eq(c.cond[2], "c3xe1");
	ck_assert_str_eq(c.cond[3], "a1-b2");
	command_free(&c);
	/* A turn of several plies, a comma before `then`, #ID. */
	ok("If #7 3, 6, then 2", &c);
	ck_assert_int_eq(c.kind, CMD_IF);
	ck_assert_int_eq(c.game, 7);
	ck_assert_int_eq(c.ncond, 2);
	ck_assert_str_eq(c.cond[0], "3, 6");
	ck_assert_str_eq(c.cond[1], "2");
	command_free(&c);
	ok("Если 1 то 3 если 2 тогда 2", &c);
	ck_assert_int_eq(c.kind, CMD_IF);
	ck_assert_int_eq(c.ncond, 4);
	ck_assert_str_eq(c.cond[2], "2");
	ck_assert_str_eq(c.cond[3], "2");
	command_free(&c);
	ok("إذا 1 ثم 3", &c);
	ck_assert_int_eq(c.kind, CMD_IF);
	ck_assert_int_eq(c.ncond, 2);
	command_free(&c);
	/* Without `then` it is no conditional move but a remark (the
	 * referee sets it aside as no move of the game). */
	ok("If you like, a rematch?", &c);
	ck_assert_int_eq(c.kind, CMD_MOVE);
	ck_assert_int_eq(c.implicit, 1);
	command_free(&c);
	ok("Если что, пиши", &c);
	ck_assert_int_eq(c.kind, CMD_MOVE);
	ck_assert_int_eq(c.implicit, 1);
	command_free(&c);
	bad("if then 3", CMD_IF, "a move is missing before `then`: if [#ID] "
	    "MOVE then MOVE [if MOVE then MOVE...]");
	bad("if 1 then", CMD_IF, "the line ends without the move: if [#ID] "
	    "MOVE then MOVE [if MOVE then MOVE...]");
	bad("if 1 then 2 if 3", CMD_IF, "`then` and your reply are missing "
	    "after `3`: if [#ID] MOVE then MOVE [if MOVE then MOVE...]");
	bad("if 1 then 2 if 3 then 4 if 5 then 6 if 7 then 8 if 9 then 10 "
	    "if 11 then 12 if 13 then 14 if 15 then 16 if 17 then 18 "
	    "if 19 then 20 if 21 then 22", CMD_IF, "at most 10 moves and "
	    "replies in one line");

	kind_is("conditions", CMD_CONDITIONS, 0, NULL);
	kind_is("conditions #4", CMD_CONDITIONS, 4, NULL);
	kind_is("conditions clear", CMD_CONDITIONS_CLEAR, 0, NULL);
	kind_is("conditions clear #4", CMD_CONDITIONS_CLEAR, 4, NULL);
	kind_is("условия", CMD_CONDITIONS, 0, NULL);
	kind_is("снять условия #2", CMD_CONDITIONS_CLEAR, 2, NULL);
	kind_is("takeback", CMD_TAKEBACK, 0, NULL);
	kind_is("takeback #9", CMD_TAKEBACK, 9, NULL);
	kind_is("Переходить", CMD_TAKEBACK, 0, NULL);
	kind_is("вернуть ход #3", CMD_TAKEBACK, 3, NULL);
	kind_is("تراجع", CMD_TAKEBACK, 0, NULL);
	bad("takeback 3", CMD_TAKEBACK, "takeback takes nothing more, not "
	    "`3`: takeback [#ID]");
	bad("conditions now", CMD_CONDITIONS, "conditions takes nothing more, "
	    "not `now`: conditions [#ID]");
	ck_assert(command_game_scoped(CMD_IF));
	ck_assert(command_game_scoped(CMD_CONDITIONS_CLEAR));
	ck_assert(command_game_scoped(CMD_TAKEBACK));
	kind_is("rematch", CMD_REMATCH, 0, NULL);
	kind_is("Реванш #3", CMD_REMATCH, 3, NULL);
	kind_is("إعادة المباراة", CMD_REMATCH, 0, NULL);
	kind_is("ثأر #2", CMD_REMATCH, 2, NULL);
	bad("rematch now", CMD_REMATCH, "rematch takes nothing more, not "
	    "`now`: rematch [#ID]");
}
END_TEST

START_TEST(command_man_page_lists_the_aliases)
{
	const char *src = getenv("LUDUS_SRCDIR");
	struct buf b = { 0 };
	char *path, *man, *row;
	size_t len;
	int k;

	path = xasprintf("%s/man/ludus-commands.7", src && *src ? src : "..");
	man = util_read_file(path, 1 << 20, &len);
	ck_assert_msg(man != NULL, "cannot read %s", path);
	for (k = CMD_NONE + 1; k < CMD_NKINDS; k++) {
		buf_reset(&b);
		command_aliases_text(al(), (enum command_kind)k, "ru", &b);
		row = xasprintf("\n.It %s Ta %s\n",
		    command_name((enum command_kind)k), b.s);
		ck_assert_msg(strstr(man, row) != NULL, "%s: no row %s", path,
		    row);
		free(row);
	}
	free(man);
	free(path);
	buf_free(&b);
}
END_TEST

/* Every kind has its syntax: a keyword, a form that begins with it and a
 * parse step; no two kinds share a keyword. */
START_TEST(command_syntax_every_kind)
{
	const struct command_syntax *e, *f;
	int k, j;

	for (k = CMD_NONE + 1; k < CMD_NKINDS; k++) {
		e = command_syntax((enum command_kind)k);
		ck_assert_ptr_ne(e, command_syntax(CMD_NONE));
		ck_assert_msg(*e->name != '\0' && strncmp(e->usage, e->name,
		    strlen(e->name)) == 0, "%s: usage %s", e->name, e->usage);
		ck_assert_msg(e->parse != NULL, "%s", e->name);
		ck_assert_str_eq(command_name((enum command_kind)k), e->name);
		for (j = CMD_NONE + 1; j < k; j++) {
			f = command_syntax((enum command_kind)j);
			ck_assert_msg(strcmp(e->name, f->name) != 0, "%s twice",
			    e->name);
		}
	}
	ck_assert_str_eq(command_name(CMD_NONE), "");
	ck_assert_str_eq(command_syntax(CMD_NKINDS)->name, "");
}
END_TEST

/* The summary in ludus-commands(7) is what the table says. */
START_TEST(command_man_summary_is_generated)
{
	const char *src = getenv("LUDUS_SRCDIR");
	struct buf gen = { 0 };
	char *path, *man, *begin, *end;
	size_t len;

	path = xasprintf("%s/man/ludus-commands.7", src && *src ? src : "..");
	man = util_read_file(path, 1 << 20, &len);
	ck_assert_msg(man != NULL, "cannot read %s", path);
	begin = strstr(man, ".\\\" BEGIN COMMANDS\n");
	end = begin ? strstr(begin, ".\\\" END COMMANDS\n") : NULL;
	ck_assert_msg(end != NULL, "%s lacks the command markers", path);
	begin += strlen(".\\\" BEGIN COMMANDS\n");
	command_table_man(&gen);
	ck_assert_msg(gen.len == (size_t)(end - begin) &&
	    strncmp(begin, gen.s, gen.len) == 0, "%s is not what the command "
	    "table says: run `make commands-doc`", path);
	ck_assert_ptr_nonnull(strstr(gen.s,
	    "\nadmin  admin ladder adjust NAME "));
	ck_assert_ptr_nonnull(strstr(gen.s, "\nproof  observe [#ID]\n"));
	free(man);
	free(path);
	buf_free(&gen);
}
END_TEST

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(command_gamedef_skips_commands_yaml)
{
	char dir[512], path[600], err[512];
	struct gamedef *defs;
	int n;

	snprintf(dir, sizeof(dir), "%s/skip", tu_tmpdir());
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/commands.yaml", dir);
	write_file(path, "aliases:\n  ru:\n    move: [ход]\n");
	snprintf(path, sizeof(path), "%s/mancala.yaml", dir);
	write_file(path, "name: mancala\ntitle: M\nseats: 2\n");
	ck_assert_msg(gamedef_load_dir(dir, &defs, &n, err, sizeof(err)) == 0,
	    "%s", err);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(defs[0].name, "mancala");
	gamedef_free_all(defs, n);
	/* Any other non-game file is still an error: the skip is by name. */
	snprintf(path, sizeof(path), "%s/other.yaml", dir);
	write_file(path, "aliases:\n  ru:\n    move: [ход]\n");
	ck_assert_int_eq(gamedef_load_dir(dir, &defs, &n, err, sizeof(err)),
	    -1);
	ck_assert_msg(strstr(err, "other.yaml:2: aliases must be a list") !=
	    NULL, "%s", err);
}
END_TEST

static void
alias_bad(const char *text, const char *want)
{
	struct command_aliases *a;
	char err[512] = "";

	ck_assert_msg(command_aliases_load_text("c.yaml", text, strlen(text),
	    &a, err, sizeof(err)) == -1, "accepted:\n%s", text);
	ck_assert_ptr_null(a);
	ck_assert_str_eq(err, want);
}

START_TEST(command_aliases_file_errors)
{
	struct command_aliases *a;
	struct command c;
	char err[512], path[600];
	const char *text;

	alias_bad("", "c.yaml:0: empty file");
	/* The YAML walker's cap on nesting, and its syntax errors. */
	alias_bad("aliases:\n  ru:\n    move: [[[[[[[[[[ход]]]]]]]]]]\n",
	    "c.yaml: nested too deeply");
	alias_bad("aliases: [a\n", "c.yaml:2: did not find expected ',' or "
	    "']'");
	/* A NUL in a scalar would cut the C string short: refused. */
	alias_bad("aliases:\n  ru:\n    move: [\"a\\0b\"]\n", "c.yaml:3: an "
	    "alias must be a text value");
	alias_bad("- a\n", "c.yaml:1: the file must be a mapping with "
	    "`aliases`");
	alias_bad("aliases:\n  ru:\n    move: [ход]\nextra: 1\n",
	    "c.yaml:4: unknown key `extra` (aliases)");
	alias_bad("aliases: [a]\n", "c.yaml:1: aliases must be a mapping "
	    "from language code to commands");
	alias_bad("aliases:\n  russian:\n    move: [ход]\n",
	    "c.yaml:2: `russian` is not a language code (en, ru, ...)");
	alias_bad("aliases:\n  ru: [ход]\n", "c.yaml:2: the aliases of ru "
	    "must be a mapping from command to a list of aliases");
	alias_bad("aliases:\n  ru:\n    mvoe: [ход]\n", "c.yaml:3: unknown "
	    "command `mvoe` (help, games, new, ..., set language, admin new, "
	    "...: see ludus-commands(7))");
	alias_bad("aliases:\n  ru:\n    move: {a: b}\n", "c.yaml:3: the "
	    "aliases of move must be a list");
	alias_bad("aliases:\n  ru:\n    move:\n      - [x]\n", "c.yaml:4: an "
	    "alias must be a text value");
	alias_bad("aliases:\n  ru:\n    move: [ход]\n    resign: [Ход]\n",
	    "c.yaml:4: `Ход` is already an alias of move (line 3)");
	alias_bad("aliases:\n  en:\n    resign: [draw]\n", "c.yaml:3: `draw` "
	    "is already the command draw");
	alias_bad("aliases:\n  ru:\n    move: [\"#ход\"]\n", "c.yaml:3: "
	    "`#ход` cannot be an alias: one to 3 words, not starting with # "
	    "or a digit, without = or @");
	alias_bad("aliases:\n  ru:\n    move: [a b c d]\n", "c.yaml:3: "
	    "`a b c d` cannot be an alias: one to 3 words, not starting with "
	    "# or a digit, without = or @");
	alias_bad("aliases:\n  ru:\n    move: [\"ход?\"]\n", "c.yaml:3: "
	    "`ход?` cannot be an alias: one to 3 words, not starting with # "
	    "or a digit, without = or @");
	alias_bad("aliases:\n  ru:\n    move: [ход\n", "c.yaml:4: did not "
	    "find expected ',' or ']'");

	/* A good file: scalars and lists, several spaces in an alias. */
	text = "aliases:\n  de:\n    move: zug\n    resign: [aufgeben, "
	    "\"ich  gebe auf\"]\n";
	ck_assert_msg(command_aliases_load_text("c.yaml", text, strlen(text),
	    &a, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(command_parse(a, "Ich gebe auf #3", &c, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(c.kind, CMD_RESIGN);
	ck_assert_int_eq(c.game, 3);
	command_free(&c);
	ck_assert_int_eq(command_parse(a, "ZUG 3", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.kind, CMD_MOVE);
	command_free(&c);
	command_aliases_free(a);

	snprintf(path, sizeof(path), "%s/none.yaml", tu_tmpdir());
	ck_assert_int_eq(command_aliases_load(path, &a, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "none.yaml: No such file"));
}
END_TEST

static Suite *
command_suite(void)
{
	Suite *s = suite_create("command");
	TCase *tc = tcase_create("command");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, command_every_keyword_without_arguments);
	tcase_add_test(tc, command_game_scoped_take_id);
	tcase_add_test(tc, command_keywords_case_insensitive);
	tcase_add_test(tc, command_no_question_resign);
	tcase_add_test(tc, command_fold_cyrillic_and_yo);
	tcase_add_test(tc, command_game_id_forms);
	tcase_add_test(tc, command_move_guard_every_position);
	tcase_add_test(tc, command_implicit_moves);
	tcase_add_test(tc, command_russian_aliases);
	tcase_add_test(tc, command_new_arguments);
	tcase_add_test(tc, command_new_errors);
	tcase_add_test(tc, command_preferences);
	tcase_add_test(tc, command_other_errors);
	tcase_add_test(tc, command_admin);
	tcase_add_test(tc, command_ladder);
	tcase_add_test(tc, command_seek);
	tcase_add_test(tc, command_admin_ladder);
	tcase_add_test(tc, command_long_lines);
	tcase_add_test(tc, command_junk_never_crashes);
	tcase_add_test(tc, command_names_and_usage);
	tcase_add_test(tc, command_every_command_has_russian_alias);
	tcase_add_test(tc, command_games_have_russian_names);
	tcase_add_test(tc, command_man_page_lists_the_aliases);
	tcase_add_test(tc, command_syntax_every_kind);
	tcase_add_test(tc, command_man_summary_is_generated);
	tcase_add_test(tc, command_conditional_and_takeback);
	tcase_add_test(tc, command_gamedef_skips_commands_yaml);
	tcase_add_test(tc, command_aliases_file_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	int rc = tu_run(command_suite());

	command_aliases_free(shipped);
	return rc;
}
