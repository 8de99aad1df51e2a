/* Almakleh: perft, one hand-worked position per rule, playouts. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const struct game_ops *ops;
static char deck[2048];		/* the definition's deck as serialise writes it */
static char rngline[160];	/* a valid generator line */

static char *
ser(const void *st)
{
	return tu_serialise(ops, st);
}

static void
setup(void)
{
	void *st;
	char *text, *line, *p;

	ops = tu_def("almakleh")->ops;
	st = tu_new("almakleh", "", 1, 2);
	text = ser(st);
	deck[0] = '\0';
	for (line = text; line && *line; line = p) {
		if ((p = strchr(line, '\n')) != NULL)
			p++;
		if (strncmp(line, "card ", 5) == 0)
			strncat(deck, line, (size_t)(p - line));
		else if (strncmp(line, "rng ", 4) == 0)
			util_strlcpy(rngline, line, sizeof(rngline));
	}
	free(text);
	free(st);
}

/* A position: the header's options, the definition's deck, then the board,
 * card and status lines given, then a generator state. */
static void *
pos(const char *head, const char *body)
{
	char err[GAME_ERRLEN], *text;
	void *st = xcalloc(1, ops->state_size);

	text = xasprintf("almakleh %s\n%s%s%s", head, deck, body, rngline);
	ck_assert_msg(ops->parse_state(st, text, err, sizeof(err)) == 0,
	    "%s\n%s", err, text);
	free(text);
	return st;
}

static void
play_ok(void *st, int seat, const char *line)
{
	char err[GAME_ERRLEN];

	ck_assert_msg(tu_play("almakleh", st, seat, line, err, sizeof(err)) > 0,
	    "%s: %s", line, err);
}

static void
play_err(void *st, int seat, const char *line, const char *want)
{
	char err[GAME_ERRLEN], *before = ser(st), *after;

	ck_assert_int_eq(tu_play("almakleh", st, seat, line, err, sizeof(err)),
	    -1);
	ck_assert_str_eq(err, want);
	after = ser(st);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
}

/* The serialised lines from `board` to the status line. */
static void
assert_body(const void *st, const char *want)
{
	char *got = ser(st), *b = strstr(got, "\nboard "), *r;

	ck_assert_ptr_nonnull(b);
	r = strstr(b, "\nrng ");
	ck_assert_ptr_nonnull(r);
	r[1] = '\0';
	ck_assert_str_eq(b + 1, want);
	free(got);
}

static char *
legal_text(const void *st, int seat)
{
	struct buf b = { 0 };

	game_legal_text(ops, st, seat, &b);
	return buf_steal(&b);
}

static void
assert_over(const void *st, int winner, const char *text)
{
	struct game_result r;

	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_int_eq(r.draw, 0);
	ck_assert_uint_eq(r.winners, 1u << winner);
	ck_assert_str_eq(r.text, text);
	ck_assert_uint_eq(ops->to_move(st), 0);
}

static void
assert_not_over(const void *st)
{
	struct game_result r;

	ops->result(st, &r);
	ck_assert_int_eq(r.over, 0);
}

/*
 * Perft from the start with fixed deals, pinned to depth 5.
 *
 * Depths 1 and 2 by hand.  At the start every piece stands on its home
 * rank, so sideways moves are blocked and backward ones leave the board;
 * after one South move nothing North can reach (ranks 3-5) has changed, so
 * depth 2 is depth 1 times North's count.
 *  A yak,badger,scorpion/zebra,bison: yak 5 forward, badger 5 forward,
 *    scorpion 5 forward; North: zebra 5 forward, bison 8 forward diagonals.
 *    Classic (scorpion unusable): 10, 10 x 13 = 130; normal: 15, 195.
 *  B hawk,panther,newt/otter,adder: hawk 4 (1,1), panther 5 two ahead,
 *    newt 4 (-1,1); North: otter 4, adder 4.  Classic: 9, 72; normal: 13,
 *    104.
 *  C scorpion,wyvern,cricket/lemur,panther: scorpion 5, wyvern 3 + 3,
 *    cricket 8; North: lemur 8, panther 5 (two ahead, to an empty rank 3).
 *    Classic: 11, 143; normal: 19, 247.
 *  D swan,wyvern,heron/cricket,pike: swan 4, wyvern 6, heron 5; North:
 *    cricket 8, pike 4.  Classic: 10, 120; normal: 15, 180.
 * Every depth was checked against a separate program written for the
 * purpose (Python; pieces in a dictionary keyed by coordinates, cards
 * drawn as 5x5 pictures of the sixteen classic patterns rather than read
 * from games/almakleh.yaml), which gave the same numbers for all eight
 * rows.  The classic rows are also the published perft tables of the
 * classic game for the same five cards (ox, boar / horse, elephant / crab;
 * rooster, tiger / rabbit, cobra / frog; goose, dragon / mantis, eel /
 * crane; crab, dragon / monkey, tiger / mantis), which list the same
 * numbers, and this engine matches them at depth 6 as well.
 */
struct perft_case {
	const char *opts;
	uint64_t want[5];
};

static const struct perft_case perft_cases[] = {
	{ "deal=yak,badger,scorpion/zebra,bison opening=classic",
	  { 10, 130, 1989, 28509, 487780 } },
	{ "deal=yak,badger,scorpion/zebra,bison",
	  { 15, 195, 3016, 42966, 737788 } },
	{ "deal=hawk,panther,newt/otter,adder opening=classic",
	  { 9, 72, 880, 10374, 138879 } },
	{ "deal=hawk,panther,newt/otter,adder",
	  { 13, 104, 1264, 14464, 194578 } },
	{ "deal=scorpion,wyvern,cricket/lemur,panther opening=classic",
	  { 11, 143, 1807, 23949, 325011 } },
	{ "deal=scorpion,wyvern,cricket/lemur,panther",
	  { 19, 247, 3081, 42515, 565263 } },
	{ "deal=swan,wyvern,heron/cricket,pike opening=classic",
	  { 10, 120, 1272, 16445, 211643 } },
	{ "deal=swan,wyvern,heron/cricket,pike",
	  { 15, 180, 1944, 24061, 315994 } },
};

START_TEST(almakleh_perft_fixed_deals)
{
	const struct perft_case *c = &perft_cases[_i];
	void *st = tu_new("almakleh", c->opts, 1, 2);
	uint64_t got;
	int d;

	for (d = 1; d <= 5; d++) {
		got = game_perft(ops, st, d);
		ck_assert_msg(got == c->want[d - 1], "%s depth %d: got %llu "
		    "want %llu", c->opts, d, (unsigned long long)got,
		    (unsigned long long)c->want[d - 1]);
	}
	free(st);
}
END_TEST

/* The deal= option fixes the cards whatever the seed. */
START_TEST(almakleh_perft_ignores_seed_with_deal)
{
	void *a = tu_new("almakleh", perft_cases[2].opts, 1, 2);
	void *b = tu_new("almakleh", perft_cases[2].opts, 77, 2);

	ck_assert_uint_eq(game_perft(ops, a, 4), game_perft(ops, b, 4));
	ck_assert_uint_eq(game_perft(ops, b, 4), perft_cases[2].want[3]);
	free(a);
	free(b);
}
END_TEST

#define HEAD	"cards=pass centre=0 opening=normal redeals=0 asked=0"

START_TEST(almakleh_received_card_unusable)
{
	void *st = tu_new("almakleh", "deal=yak,badger,scorpion/zebra,bison",
	    1, 2);
	char *legal;

	play_ok(st, 0, "yak b1-b2");
	/* North now holds yak too, but only from its next turn on. */
	play_err(st, 1, "yak b5-b4",
	    "yak is not usable this turn: you just received it");
	legal = legal_text(st, 1);
	ck_assert_ptr_null(strstr(legal, "yak"));
	ck_assert_ptr_nonnull(strstr(legal, "zebra b5-b4"));
	free(legal);
	play_ok(st, 1, "zebra a5-a4");
	play_err(st, 0, "zebra a1-a2",
	    "zebra is not usable this turn: you just received it");
	play_ok(st, 0, "badger d1-d2");
	play_ok(st, 1, "yak b5-b4");
	free(st);
}
END_TEST

START_TEST(almakleh_pass_when_blocked)
{
	/* South's master on a5 and four pawns below it: panther (two ahead,
	 * one back) and zebra (ahead, left, back) only reach the board on
	 * squares South occupies; pike arrived this turn. */
	void *st = pos(HEAD, "board P.... P.... P.... P.... M.m.p\n"
	    "south panther zebra pike\n"
	    "north badger swan\n"
	    "fresh pike\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=0 ply=10 over=0 winner=0 how=0 hold=-1:0 "
	    "last=1:0:-1:0:0:0\n");
	char *legal = legal_text(st, 0);

	ck_assert_str_eq(legal, "pass panther\npass zebra\n");
	free(legal);
	play_err(st, 0, "pass pike",
	    "pike is not usable this turn: you just received it");
	play_err(st, 0, "panther a3-a5",
	    "a5 is taken by a piece of yours");
	play_ok(st, 0, "pass zebra");
	/* The passed card travels like a played one; nothing moved. */
	assert_body(st, "board P.... P.... P.... P.... M.m.p\n"
	    "south panther pike\n"
	    "north badger swan zebra\n"
	    "fresh zebra\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=1 ply=11 over=0 winner=0 how=0 hold=-1:0 "
	    "last=0:2:5:0:0:0\n");
	free(st);
}
END_TEST

/*
 * Notation as ludus-games(7) lists it: `CARD FROM-TO`, or `FROM-TO` when
 * one usable card makes the move; a card is one word of letters, a square
 * a letter a-e and a digit 1-5, in either case; `x` or `:` may stand for
 * the dash, with blanks around it or none; `pass CARD`.  Blanks go
 * between the words and around the dash, nowhere else.  South holds hawk
 * (a1-b2 is its alone), panther and newt.
 */
static const struct tu_notation almakleh_moves[] = {
	{ "hawk a1-b2", "hawk a1-b2" },
	{ "HAWK A1-B2", "hawk a1-b2" },
	{ "Hawk a1 - b2", "hawk a1-b2" },
	{ "hawk a1xb2", "hawk a1-b2" },
	{ "hawk a1Xb2", "hawk a1-b2" },
	{ "hawk a1:b2", "hawk a1-b2" },
	{ "hawk   a1-b2", "hawk a1-b2" },
	{ " hawk a1-b2 ", "hawk a1-b2" },
	{ "a1-b2", "hawk a1-b2" },
	{ "a1 x b2", "hawk a1-b2" },
	{ "A1:B2", "hawk a1-b2" },
	{ "panther b1-b3", "panther b1-b3" },
	{ "hawk a1b2", NULL },
	{ "hawk a1 b2", NULL },
	{ "hawka1-b2", NULL },
	{ "hawk a 1-b2", NULL },
	{ "hawk a1-b 2", NULL },
	{ "ha wk a1-b2", NULL },
	{ "hawk: a1-b2", NULL },
	{ "hawk-a1-b2", NULL },
	{ "hawk a1-b2 b3", NULL },
	{ "hawk a1--b2", NULL },
	{ "hawk a1-b2-c3", NULL },
	{ "hawk a1\xe2\x80\x93" "b2", NULL },	/* an en dash */
	{ "hawk a1.b2", NULL },
	{ "a1b2", NULL },
	{ "a1 b2", NULL },
	{ "hawk", NULL },
};
static const struct tu_notation almakleh_passes[] = {
	{ "pass zebra", "pass zebra" },
	{ "PASS Zebra", "pass zebra" },
	{ " pass  zebra ", "pass zebra" },
	{ "pass panther", "pass panther" },
	{ "pass ze bra", NULL },
	{ "passzebra", NULL },
	{ "pass zebra a1", NULL },
	{ "pass: zebra", NULL },
	{ "pass-zebra", NULL },
	{ "pass", NULL },
};

START_TEST(almakleh_notation_table)
{
	void *st = tu_new("almakleh", "deal=hawk,panther,newt/otter,adder", 1,
	    2);

	tu_notation_check("almakleh", st, 0, almakleh_moves,
	    nitems(almakleh_moves));
	free(st);
	st = pos(HEAD, "board P.... P.... P.... P.... M.m.p\n"
	    "south panther zebra pike\n"
	    "north badger swan\n"
	    "fresh pike\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=0 ply=10 over=0 winner=0 how=0 hold=-1:0 "
	    "last=1:0:-1:0:0:0\n");
	tu_notation_check("almakleh", st, 0, almakleh_passes,
	    nitems(almakleh_passes));
	free(st);
}
END_TEST

START_TEST(almakleh_pass_refused_when_a_move_exists)
{
	void *st = tu_new("almakleh", "deal=yak,badger,scorpion/zebra,bison",
	    1, 2);
	char *legal = legal_text(st, 0);

	ck_assert_ptr_null(strstr(legal, "pass"));
	free(legal);
	play_err(st, 0, "pass yak", "you may only pass when no card gives a "
	    "move, and you have one (e.g. `yak a1-a2`)");
	play_err(st, 0, "pass", "pass which card? `pass NAME`");
	free(st);
}
END_TEST

START_TEST(almakleh_master_on_portal_wins)
{
	void *st = pos(HEAD, "board ..... ..... ..... ..M.. m...p\n"
	    "south badger scorpion zebra\n"
	    "north panther swan\n"
	    "fresh zebra\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=0 ply=10 over=0 winner=0 how=0 hold=-1:0 "
	    "last=1:0:-1:0:0:0\n");

	play_ok(st, 0, "badger c4-c5");
	assert_over(st, 0, "South wins: master on North's portal");
	free(st);

	/* North's master on c1; badger read rotated steps towards rank 1. */
	st = pos(HEAD, "board M.... ..m.. ..... ..... ....p\n"
	    "south panther swan\n"
	    "north badger scorpion zebra\n"
	    "fresh zebra\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=1 ply=11 over=0 winner=0 how=0 hold=-1:0 "
	    "last=0:0:-1:0:0:0\n");
	play_ok(st, 1, "badger c2-c1");
	assert_over(st, 1, "North wins: master on South's portal");
	free(st);
}
END_TEST

START_TEST(almakleh_master_captured_wins)
{
	void *st = pos(HEAD, "board M.... ..... ..... .P... .m..p\n"
	    "south yak heron zebra\n"
	    "north swan pike\n"
	    "fresh zebra\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=0 ply=10 over=0 winner=0 how=0 hold=-1:0 "
	    "last=1:0:-1:0:0:0\n");
	char err[GAME_ERRLEN];

	play_ok(st, 0, "yak b4-b5");
	assert_over(st, 0, "South wins: North's master captured");
	ck_assert_int_eq(ops->legal(st, 1, NULL, 0), 0);
	ck_assert_int_eq(tu_play("almakleh", st, 1, "swan e5-d5", err,
	    sizeof(err)), -1);
	ck_assert_str_eq(err, "the game is over");
	free(st);
}
END_TEST

START_TEST(almakleh_pawn_on_portal_does_nothing)
{
	void *st = pos(HEAD, "board M.... ..... ..... ..P.. m...p\n"
	    "south yak heron zebra\n"
	    "north swan pike\n"
	    "fresh zebra\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=0 ply=10 over=0 winner=0 how=0 hold=-1:0 "
	    "last=1:0:-1:0:0:0\n");

	play_ok(st, 0, "yak c4-c5");
	assert_not_over(st);
	ck_assert_uint_eq(ops->to_move(st), 2);
	free(st);
}
END_TEST

/* The first diagram under a hand heading, five rows of the first column. */
static char *
first_diagram(const char *render, const char *heading)
{
	const char *p = strstr(render, heading);
	struct buf b = { 0 };
	int row;

	ck_assert_ptr_nonnull(p);
	p = strchr(p, '\n') + 1;	/* the names line */
	for (row = 0; row < 5; row++) {
		p = strchr(p, '\n') + 1;
		buf_add(&b, p, 11);
		buf_addc(&b, '\n');
	}
	return buf_steal(&b);
}

START_TEST(almakleh_second_player_reads_cards_rotated)
{
	/* panther: two ahead, one back.  For North "ahead" is towards
	 * rank 1: b3 goes to b1 and back to b4, never to b5. */
	void *st = pos(HEAD, "board M.... ..... .p... ..... ....m\n"
	    "south heron zebra\n"
	    "north panther swan pike\n"
	    "fresh pike\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=1 ply=11 over=0 winner=0 how=0 hold=-1:0 "
	    "last=0:0:-1:0:0:0\n");
	struct game_view south = { .viewer = 0 }, north = { .viewer = 1 };
	struct buf b = { 0 };
	char *legal = legal_text(st, 1), *d;

	ck_assert_ptr_nonnull(strstr(legal, "panther b3-b1\npanther b3-b4\n"
	    "panther e5-e3\n"));
	ck_assert_ptr_null(strstr(legal, "panther b3-b5"));
	free(legal);
	play_err(st, 1, "panther b3-b5", "panther does not move b3 to b5: "
	    "from b3 it goes to b1, b4");

	/* South sees North's card turned round; North sees it upright. */
	ops->render(st, &south, &b);
	d = first_diagram(buf_str(&b), "North holds, to move:");
	ck_assert_str_eq(d, "  . . . . .\n"
	    "  . . x . .\n"
	    "  . . o . .\n"
	    "  . . . . .\n"
	    "  . . x . .\n");
	free(d);
	buf_reset(&b);
	ops->render(st, &north, &b);
	d = first_diagram(buf_str(&b), "North holds, to move:");
	ck_assert_str_eq(d, "  . . x . .\n"
	    "  . . . . .\n"
	    "  . . o . .\n"
	    "  . . x . .\n"
	    "  . . . . .\n");
	free(d);
	buf_free(&b);
	play_ok(st, 1, "panther b3-b1");
	free(st);
}
END_TEST

START_TEST(almakleh_centre_held_two_moves)
{
	static const char *const line[] = { "yak c1-c2", "zebra a5-a4",
		"badger c2-c3", "yak e5-e4", "zebra a1-a2", "bison d5-c4" };
	void *st = tu_new("almakleh", "centre=true "
	    "deal=yak,badger,scorpion/zebra,bison", 1, 2);
	void *plain = tu_new("almakleh",
	    "deal=yak,badger,scorpion/zebra,bison", 1, 2);
	int i;

	/* South's master reaches c3 on move 3 and stands there through
	 * North's moves 4 and 6: South wins as its turn starts. */
	for (i = 0; i < 6; i++) {
		assert_not_over(st);
		play_ok(st, i % 2, line[i]);
		play_ok(plain, i % 2, line[i]);
	}
	assert_over(st, 0, "South wins: held the centre");
	assert_not_over(plain);
	free(st);
	free(plain);

	/* Leaving c3 starts the count again. */
	st = pos("cards=pass centre=1 opening=normal redeals=0 asked=0",
	    "board M.... ..... ..P.. ..... m...p\n"
	    "south badger zebra yak\n"
	    "north swan pike\n"
	    "fresh yak\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=0 ply=10 over=0 winner=0 how=0 hold=0:1 "
	    "last=1:0:-1:0:0:0\n");
	play_ok(st, 0, "zebra c3-c4");
	play_ok(st, 1, "swan e5-d5");
	play_ok(st, 0, "yak c4-c3");
	play_ok(st, 1, "zebra d5-d4");
	assert_not_over(st);
	play_ok(st, 0, "badger a1-a2");
	play_ok(st, 1, "yak a5-a4");
	assert_over(st, 0, "South wins: held the centre");
	free(st);
}
END_TEST

/* Cards named on a list line of the serialised state. */
static int
count_names(const char *text, const char *label, char names[][16], int n)
{
	const char *p = strstr(text, label);
	char line[256], *tok, *save;

	ck_assert_ptr_nonnull(p);
	p += strlen(label);
	util_strlcpy(line, p, sizeof(line));
	line[strcspn(line, "\n")] = '\0';
	for (tok = strtok_r(line, " ", &save); tok;
	    tok = strtok_r(NULL, " ", &save))
		if (strcmp(tok, "-") != 0)
			util_strlcpy(names[n++], tok, sizeof(names[0]));
	return n;
}

START_TEST(almakleh_discard_reshuffles_when_pile_empty)
{
	void *st = tu_new("almakleh", "cards=discard "
	    "deal=yak,badger,scorpion/zebra,bison,swan", 3, 2);
	struct game_view v = { .viewer = GAME_PUBLIC };
	struct buf b = { 0 };
	char names[16][16], *text;
	int n, i, j, c, f;

	/* Eight cards: six in the hands, two in the draw pile. */
	ops->render(st, &v, &b);
	ck_assert_ptr_nonnull(strstr(buf_str(&b),
	    "Draw pile: 2 cards.  Discards: none.\n"));
	buf_reset(&b);
	play_ok(st, 0, "yak b1-b2");
	play_ok(st, 1, "zebra a5-a4");
	ops->render(st, &v, &b);
	ck_assert_ptr_nonnull(strstr(buf_str(&b),
	    "Draw pile: 0 cards.  Discards: yak, zebra.\n"));
	buf_reset(&b);
	/* The next draw finds the pile empty: the three discards, the
	 * card just played among them, become the new pile. */
	play_ok(st, 0, "badger c1-c2");
	ops->render(st, &v, &b);
	ck_assert_ptr_nonnull(strstr(buf_str(&b),
	    "Draw pile: 2 cards.  Discards: none.\n"));
	buf_free(&b);

	/* Every card is somewhere, once. */
	text = ser(st);
	n = count_names(text, "\nsouth ", names, 0);
	ck_assert_int_eq(n, 3);
	n = count_names(text, "\nnorth ", names, n);
	ck_assert_int_eq(n, 6);
	n = count_names(text, "\npile ", names, n);
	n = count_names(text, "\ndiscard ", names, n);
	ck_assert_int_eq(n, 8);
	free(text);
	{
		const char *const sides[8][2] = { { "panther", "yak" },
			{ "heron", "badger" }, { "wyvern", "newt" },
			{ "scorpion", "otter" }, { "cricket", "bison" },
			{ "lemur", "zebra" }, { "swan", "hawk" },
			{ "pike", "adder" } };

		for (c = 0; c < 8; c++) {
			int found = 0;

			for (i = 0; i < n; i++)
				for (f = 0; f < 2; f++)
					found += strcmp(names[i],
					    sides[c][f]) == 0;
			ck_assert_msg(found == 1, "card %s|%s found %d times",
			    sides[c][0], sides[c][1], found);
		}
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				ck_assert_str_ne(names[i], names[j]);
	}
	free(st);
}
END_TEST

static int
create_err(const char *opts, char *err, size_t errlen)
{
	struct game_opts o;
	unsigned char seed[RNG_SEED_LEN];
	void *st = xcalloc(1, ops->state_size);
	int rc;

	tu_opts("almakleh", opts, &o);
	rng_seed_from_u64(seed, 1);
	rc = ops->create(st, &o, seed, 2, err, errlen);
	free(st);
	return rc;
}

START_TEST(almakleh_deal_unknown_name_rejected)
{
	char err[GAME_ERRLEN];

	ck_assert_int_eq(create_err("deal=yak,badger,eagle/zebra,bison", err,
	    sizeof(err)), -1);
	ck_assert_str_eq(err, "deal: no card side called `eagle` (the sides: "
	    "panther, yak, heron, badger, wyvern, newt, scorpion, otter, "
	    "cricket, bison, lemur, zebra, swan, hawk, pike, adder)");
	ck_assert_int_eq(create_err("deal=yak,badger,panther/zebra,swan", err,
	    sizeof(err)), -1);
	ck_assert_str_eq(err, "deal: yak and panther are the two sides of "
	    "one card");
	ck_assert_int_eq(create_err("deal=yak,badger/zebra,swan,pike", err,
	    sizeof(err)), -1);
	ck_assert_str_eq(err, "deal must name 3 cards for the first player "
	    "and 2 for the second: NAME,NAME,NAME/NAME,NAME");
	ck_assert_int_eq(create_err("cards=discard "
	    "deal=yak,badger,scorpion/zebra,swan", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "3 for the second"));
	/* Names are case-insensitive. */
	ck_assert_int_eq(create_err("deal=YAK,Badger,scorpion/zebra,bison",
	    err, sizeof(err)), 0);
}
END_TEST

START_TEST(almakleh_opening_classic_third_card_unusable)
{
	const char *deal = "deal=yak,badger,scorpion/zebra,bison";
	void *st = tu_new("almakleh", "opening=classic "
	    "deal=yak,badger,scorpion/zebra,bison", 1, 2);
	void *normal = tu_new("almakleh", deal, 1, 2);
	struct game_view v = { .viewer = 0 };
	struct buf b = { 0 };
	char *legal = legal_text(st, 0);

	ck_assert_ptr_null(strstr(legal, "scorpion"));
	free(legal);
	play_err(st, 0, "scorpion b1-b2",
	    "scorpion is not usable this turn: you just received it");
	ops->render(st, &v, &b);
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "South may not use "
	    "scorpion on the first move (the classic opening)."));
	buf_free(&b);
	play_ok(normal, 0, "scorpion b1-b2");
	/* From South's second turn on it is an ordinary card. */
	play_ok(st, 0, "yak b1-b2");
	play_ok(st, 1, "zebra a5-a4");
	play_ok(st, 0, "scorpion b2-b3");
	free(st);
	free(normal);
}
END_TEST

/*
 * cards=discard with opening=classic (rules.md): on move 1 South may not
 * use the third card dealt; all of North's three are usable.  By hand,
 * with yak, badger, scorpion / zebra, bison, swan: every piece stands on
 * its home rank, so only forward moves reach the board.  South: yak 5
 * and badger 5 forward, scorpion (held back) 5: 10 moves, 15 without the
 * classic opening.  North, whatever South did on rank 2: zebra 5 forward,
 * bison 8 forward diagonals, swan 4 (turned round, its forward-left
 * diagonal goes to the right on the board, off the board from e5): 17, so
 * depth 2 is 170 (255 without).  From South's second move on, the card is
 * an ordinary one.
 */
START_TEST(almakleh_discard_classic_third_card_unusable)
{
	const char *deal = "deal=yak,badger,scorpion/zebra,bison,swan";
	char *opts = xasprintf("cards=discard opening=classic %s", deal);
	char *plain = xasprintf("cards=discard %s", deal);
	void *st = tu_new("almakleh", opts, 1, 2);
	void *normal = tu_new("almakleh", plain, 1, 2);
	struct game_view v = { .viewer = 0 };
	struct buf b = { 0 };
	char *legal = legal_text(st, 0), *s, err[GAME_ERRLEN];
	void *copy;

	ck_assert_ptr_null(strstr(legal, "scorpion"));
	ck_assert_ptr_nonnull(strstr(legal, "yak b1-b2\n"));
	ck_assert_ptr_nonnull(strstr(legal, "badger b1-b2\n"));
	free(legal);
	ck_assert_uint_eq(game_perft(ops, st, 1), 10);
	ck_assert_uint_eq(game_perft(ops, st, 2), 170);
	ck_assert_uint_eq(game_perft(ops, normal, 1), 15);
	ck_assert_uint_eq(game_perft(ops, normal, 2), 255);
	play_err(st, 0, "scorpion b1-b2",
	    "scorpion is not usable this turn: you just received it");
	ops->render(st, &v, &b);
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "South may not use "
	    "scorpion on the first move (the classic opening)."));
	buf_free(&b);
	/* The state says so and reads back. */
	s = ser(st);
	ck_assert_ptr_nonnull(strstr(s, "\nfresh scorpion\n"));
	copy = xcalloc(1, ops->state_size);
	ck_assert_msg(ops->parse_state(copy, s, err, sizeof(err)) == 0, "%s",
	    err);
	free(copy);
	free(s);
	play_ok(normal, 0, "scorpion b1-b2");
	/* Move 1 discards yak and draws; North may use all three. */
	play_ok(st, 0, "yak b1-b2");
	s = ser(st);
	ck_assert_ptr_nonnull(strstr(s, "\nfresh -\n"));
	free(s);
	legal = legal_text(st, 1);
	ck_assert_ptr_nonnull(strstr(legal, "zebra "));
	ck_assert_ptr_nonnull(strstr(legal, "bison "));
	ck_assert_ptr_nonnull(strstr(legal, "swan "));
	free(legal);
	ck_assert_uint_eq(game_perft(ops, st, 1), 17);
	play_ok(st, 1, "swan a5-b4");
	/* South's second move: scorpion is usable. */
	play_ok(st, 0, "scorpion b2-b3");
	free(opts);
	free(plain);
	free(st);
	free(normal);
}
END_TEST

static void
hands(const void *st, char *out, size_t len)
{
	char *text = ser(st), *s = strstr(text, "\nsouth "), *e;

	ck_assert_ptr_nonnull(s);
	e = strstr(s, "\nfresh ");
	ck_assert_ptr_nonnull(e);
	*e = '\0';
	util_strlcpy(out, s, len);
	free(text);
}

START_TEST(almakleh_redeal_needs_both)
{
	void *st = tu_new("almakleh", "", 5, 2);
	char before[128], after[128], *legal;

	hands(st, before, sizeof(before));
	legal = legal_text(st, 0);
	ck_assert_ptr_null(strstr(legal, "redeal"));
	free(legal);
	play_ok(st, 0, "redeal");
	hands(st, after, sizeof(after));
	ck_assert_str_eq(before, after);
	ck_assert_uint_eq(ops->to_move(st), 1);
	play_err(st, 0, "redeal", "you have already asked for a redeal: it "
	    "happens when North asks too");
	/* North asks out of turn: a redeal is not a move. */
	play_ok(st, 1, "redeal");
	hands(st, after, sizeof(after));
	ck_assert_str_ne(before, after);
	ck_assert_uint_eq(ops->to_move(st), 1);
	ck_assert_ptr_nonnull(strstr(after, "\nsouth "));
	play_err(st, 1, "redeal", "no redeal is left in this game");
	free(st);

	/* One side alone changes nothing, and the first move ends the
	 * chance. */
	st = tu_new("almakleh", "redeals=3 deal=yak,badger,scorpion/zebra,"
	    "bison", 1, 2);
	play_ok(st, 1, "redeal");
	play_ok(st, 0, "yak b1-b2");
	play_err(st, 0, "redeal", "a redeal is only possible before the "
	    "first move");
	play_err(st, 1, "redeal", "a redeal is only possible before the "
	    "first move");
	free(st);
}
END_TEST

START_TEST(almakleh_short_notation_ambiguous_needs_card)
{
	void *st = tu_new("almakleh", "deal=yak,badger,scorpion/zebra,bison",
	    1, 2);
	void *cl = tu_new("almakleh", "opening=classic "
	    "deal=yak,badger,scorpion/zebra,bison", 1, 2);
	void *u = tu_new("almakleh", "deal=hawk,panther,newt/otter,adder", 1,
	    2);

	play_err(st, 0, "b1-b2", "b1-b2 is possible with yak, badger and "
	    "scorpion: say which, e.g. `yak b1-b2`");
	play_err(cl, 0, "b1-b2", "b1-b2 is possible with yak and badger: say "
	    "which, e.g. `yak b1-b2`");
	play_ok(st, 0, "Badger B1 - B2");
	/* Only hawk goes diagonally forward right. */
	play_err(u, 0, "b1-b4", "no usable card moves b1 to b4: hawk goes to "
	    "c2, panther goes to b3, newt goes to a2");
	play_err(u, 0, "panther b1-b4", "panther does not move b1 to b4: from "
	    "b1 it goes to b3");
	play_ok(u, 0, "a1-b2");
	assert_body(u, "board .PMPP .P... ..... ..... ppmpp\n"
	    "south panther newt\n"
	    "north otter adder hawk\n"
	    "fresh hawk\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=1 ply=1 over=0 winner=0 how=0 hold=-1:0 "
	    "last=0:1:6:0:6:0\n");
	free(st);
	free(cl);
	free(u);
}
END_TEST

START_TEST(almakleh_errors_say_what_is_wrong)
{
	void *st = tu_new("almakleh", "deal=hawk,panther,newt/otter,adder", 1,
	    2);

	play_err(st, 1, "otter b5-b4", "it is South's turn, not North's");
	play_err(st, 0, "otter b1-b2", "otter is North's card (your usable "
	    "cards: hawk, panther, newt)");
	play_err(st, 0, "rabbit b1-b2", "there is no card called rabbit (your "
	    "usable cards: hawk, panther, newt)");
	play_err(st, 0, "yak b1-b2", "yak is not in play: its card shows "
	    "panther (your usable cards: hawk, panther, newt)");
	play_err(st, 0, "heron b1-b2", "heron is not in your hand (your usable "
	    "cards: hawk, panther, newt)");
	play_err(st, 0, "hawk c3-c4", "there is no piece of yours on c3");
	play_err(st, 0, "hawk b1", "`hawk b1` is not a move: write CARD "
	    "FROM-TO (`hawk b1-b2`), FROM-TO, or `pass CARD`");
	free(st);
}
END_TEST

START_TEST(almakleh_render_marks_pieces_portals_and_last_move)
{
	void *st = tu_new("almakleh", "deal=hawk,panther,newt/otter,adder", 1,
	    2);
	struct game_view v = { .viewer = 1, .names = { "alice", "bob" } };
	struct buf b = { 0 };
	const char *s;

	play_ok(st, 0, "panther b1-b3");
	ops->render(st, &v, &b);
	s = buf_str(&b);
	/* North's view: rank 1 on top, files from e to a. */
	ck_assert_ptr_nonnull(strstr(s,
	    "        alice (South, red): master M, pawns P\n"
	    "     e   d   c   b   a\n"
	    "   +---+---+---+---+---+\n"
	    " 1 | P | P |[M]| . | P | 1\n"
	    "   +---+---+---+---+---+\n"
	    " 2 |   |   |   |   |   | 2\n"
	    "   +---+---+---+---+---+\n"
	    " 3 |   |   |   |(P)|   | 3\n"));
	ck_assert_ptr_nonnull(strstr(s,
	    " 5 | p | p |[m]| p | p | 5\n"
	    "   +---+---+---+---+---+\n"
	    "     e   d   c   b   a\n"
	    "        bob (North, blue): master m, pawns p\n"));
	ck_assert_ptr_nonnull(strstr(s,
	    "Last move: alice (South) panther b1-b3, marked ( ).\n"));
	ck_assert_ptr_nonnull(strstr(s, "bob (North) holds, to move:\n"
	    "  otter             adder             panther (not now)\n"));
	ck_assert_ptr_nonnull(strstr(s, "In transit: panther, passed by South; "
	    "North may use it from its next turn.\n"));
	ck_assert_ptr_nonnull(strstr(s, "bob (North) to move.\n"));
	buf_free(&b);
	free(st);
}
END_TEST

/* rules.md, faction colours: the legend names each side's colour and the
 * style layer shows pieces, legend and card moves in it; a seat without
 * a chosen colour gets the first not taken; the colours survive the state
 * text; bad colours are refused. */
START_TEST(almakleh_faction_colours_in_legend_and_style)
{
	void *st = tu_new("almakleh", "colours=green,orange "
	    "deal=hawk,panther,newt/otter,adder", 1, 2);
	void *copy = xcalloc(1, ops->state_size);
	struct game_view v = { .viewer = 0, .names = { "alice", "bob" } };
	struct buf b = { 0 };
	char err[GAME_ERRLEN], *style, *a, *c;
	const char *s, *p;

	ops->render(st, &v, &b);
	s = buf_str(&b);
	ck_assert_ptr_nonnull(strstr(s,
	    "        bob (North, orange): master m, pawns p\n"));
	ck_assert_ptr_nonnull(strstr(s,
	    "        alice (South, green): master M, pawns P\n"));
	style = xcalloc(1, b.len + 1);
	ops->render_style(st, &v, s, b.len, style);
	p = strstr(s, " 1 | P |");
	ck_assert_int_eq(style[p - s + 5] & GAME_STYLE_COLOUR,
	    GAME_STYLE_SEAT(2));
	p = strstr(s, " 5 | p |");
	ck_assert_int_eq(style[p - s + 5] & GAME_STYLE_COLOUR,
	    GAME_STYLE_SEAT(3));
	p = strstr(s, "orange)");
	ck_assert_int_eq(style[p - s] & GAME_STYLE_COLOUR, GAME_STYLE_SEAT(3));
	ck_assert_int_eq(style[p - s + 5] & GAME_STYLE_COLOUR,
	    GAME_STYLE_SEAT(3));
	p = strstr(s, "green)");
	ck_assert_int_eq(style[p - s] & GAME_STYLE_COLOUR, GAME_STYLE_SEAT(2));
	free(style);
	buf_free(&b);

	a = ser(st);
	ck_assert_ptr_nonnull(strstr(a, " colours=green,orange\n"));
	ck_assert_int_eq(ops->parse_state(copy, a, err, sizeof(err)), 0);
	c = ser(copy);
	ck_assert_str_eq(a, c);
	free(a);
	free(c);
	free(st);

	/* Only the second chosen: the first gets red; red chosen for the
	 * second: the first gets blue.  The default writes nothing. */
	st = tu_new("almakleh", "colours=,green", 1, 2);
	ops->render(st, &v, &b);
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "alice (South, red)"));
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "bob (North, green)"));
	buf_reset(&b);
	free(st);
	st = tu_new("almakleh", "colours=,red", 1, 2);
	ops->render(st, &v, &b);
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "alice (South, blue)"));
	buf_free(&b);
	free(st);
	st = tu_new("almakleh", "", 1, 2);
	a = ser(st);
	ck_assert_ptr_null(strstr(a, "colours"));
	free(a);
	free(st);

	ck_assert_int_eq(create_err("colours=purple,red", err, sizeof(err)),
	    -1);
	ck_assert_str_eq(err, "colour `purple`: the colours are red, blue, "
	    "green and orange");
	ck_assert_int_eq(create_err("colours=red,RED", err, sizeof(err)), -1);
	ck_assert_str_eq(err, "both players cannot be red: give them two "
	    "colours");
	ck_assert_int_eq(create_err("colours=red,blue,green", err,
	    sizeof(err)), -1);
	free(copy);
}
END_TEST

START_TEST(almakleh_state_text_round_trip)
{
	void *st = tu_new("almakleh", "cards=discard centre=true "
	    "opening=classic deal=yak,badger,scorpion/zebra,bison,swan", 9, 2);
	void *copy = xcalloc(1, ops->state_size);
	char err[GAME_ERRLEN], *a, *b, *bad;
	struct buf j = { 0 };

	play_ok(st, 0, "yak c1-c2");
	play_ok(st, 1, "zebra c5-c4");
	a = ser(st);
	ck_assert_int_eq(ops->parse_state(copy, a, err, sizeof(err)), 0);
	b = ser(copy);
	ck_assert_str_eq(a, b);
	free(b);
	ck_assert_int_eq(memcmp(st, copy, ops->state_size), 0);
	/* A state the card flow cannot produce is refused. */
	bad = xstrdup(a);
	memcpy(strstr(bad, "\nsouth ") + 7, "yak", 3);
	ck_assert_int_eq(ops->parse_state(copy, bad, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "malformed Almakleh state");
	free(bad);
	ck_assert_int_eq(ops->parse_state(copy, "almakleh\n", err,
	    sizeof(err)), -1);
	ops->export_json(st, &j);
	ck_assert_ptr_nonnull(strstr(buf_str(&j), "\"cards\":\"discard\""));
	ck_assert_ptr_nonnull(strstr(buf_str(&j), "\"board\":[\"PP.PP\","
	    "\"..M..\",\".....\",\"..m..\",\"pp.pp\"]"));
	buf_free(&j);
	free(a);
	free(copy);
	free(st);
}
END_TEST

START_TEST(almakleh_deck_errors_name_the_line)
{
	struct game_opts o;
	unsigned char seed[RNG_SEED_LEN];
	char err[GAME_ERRLEN];
	void *st = xcalloc(1, ops->state_size);

	tu_opts("almakleh", "", &o);
	rng_seed_from_u64(seed, 1);
	o.data = "card aaa 0,1 | bbb 0,-1\n\ncard ccc 0,3 | ddd 1,1\n";
	ck_assert_int_eq(ops->create(st, &o, seed, 2, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "deck line 3: `0,3` is not an offset DX,DY with "
	    "both in -2..2 (and not 0,0)");
	o.data = "card aaa 0,1 | bbb 0,-1\ncard ccc 0,2 | aaa 1,1\n";
	ck_assert_int_eq(ops->create(st, &o, seed, 2, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "deck line 2: side name aaa is used twice");
	o.data = "card aaa 0,1 | bbb 0,-1\n";
	ck_assert_int_eq(ops->create(st, &o, seed, 2, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "the deck has 1 cards; at least 5 are needed");
	free(st);
}
END_TEST

/*
 * Random games over the option sets: pieces only ever leave the board by
 * captures, cards are conserved, every game ends (or reaches the cap),
 * notation and state text round-trip exactly, replay reproduces the game.
 */
#define PLAYOUT_CAP	400

/* Check records every passed assertion; in the hot loop only failures
 * are worth a record. */
#define REQUIRE(cond, ...) do {						\
	if (!(cond))							\
		ck_abort_msg(__VA_ARGS__);				\
} while (0)
#ifndef NPLAYOUTS
#define NPLAYOUTS	10000
#endif

static void
check_cards(const void *st, int discard)
{
	char *text = ser(st), names[16][16];
	int ns, nn, n;

	ns = count_names(text, "\nsouth ", names, 0);
	nn = count_names(text, "\nnorth ", names, ns) - ns;
	if (!discard) {
		/* Three with the seat to move, two with the other. */
		ck_assert_int_eq(ns + nn, 5);
		ck_assert_int_eq(ns == 3 || nn == 3, 1);
	} else {
		ck_assert_int_eq(ns, 3);
		ck_assert_int_eq(nn, 3);
		n = count_names(text, "\npile ", names, 6);
		n = count_names(text, "\ndiscard ", names, n);
		ck_assert_int_eq(n, 8);
	}
	free(text);
}

START_TEST(almakleh_random_playouts)
{
	static const char *variants[] = { "", "opening=classic",
		"cards=discard", "centre=true",
		"cards=discard centre=true opening=classic redeals=2",
		"deal=yak,badger,scorpion/zebra,bison",
		"cards=discard deal=hawk,panther,newt/otter,adder,heron" };
	struct game_move moves[GAME_MAX_MOVES], log[PLAYOUT_CAP + 8], m;
	int logseat[PLAYOUT_CAP + 8];
	struct game_result r, r2;
	struct rng rng;
	unsigned char seed[RNG_SEED_LEN];
	int game, ended = 0, capped = 0, longest = 0;

	rng_seed_from_u64(seed, 42);
	rng_init(&rng, seed);
	for (game = 0; game < NPLAYOUTS * (int)nitems(variants); game++) {
		const char *opts = variants[game % nitems(variants)];
		int discard = strstr(opts, "discard") != NULL;
		void *st = tu_new("almakleh", opts, (uint64_t)game, 2);
		void *copy;
		int nlog = 0, seat, n, i, plies = 0;
		char *a, *b, err[GAME_ERRLEN], text[GAME_MOVE_TEXT];

		/* Now and then both players ask for a new deal first. */
		if (rng_below(&rng, 8) == 0) {
			for (seat = 1; seat >= 0; seat--) {
				REQUIRE(ops->parse_move(st, seat, "redeal",
				    &log[nlog], err, sizeof(err)) == 0, "%s", err);
				ops->apply(st, seat, &log[nlog]);
				logseat[nlog++] = seat;
			}
		}
		for (;;) {
			uint32_t mask = ops->to_move(st);

			ops->result(st, &r);
			if (r.over) {
				REQUIRE(mask == 0, "mask %u after the end", mask);
				ended++;
				break;
			}
			if (plies == PLAYOUT_CAP) {
				capped++;
				break;
			}
			REQUIRE(mask == 1 || mask == 2, "mask %u", mask);
			seat = mask == 1 ? 0 : 1;
			n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			REQUIRE(n > 0, "no legal move, game %d", game);
			REQUIRE(ops->legal(st, !seat, moves + n,
			    GAME_MAX_MOVES - n) == 0, "both seats may move");
			m = moves[rng_below(&rng, (uint32_t)n)];
			/* The notation reads back as the same move. */
			ops->format_move(st, seat, &m, text, sizeof(text));
			REQUIRE(ops->parse_move(st, seat, text, &log[nlog], err,
			    sizeof(err)) == 0, "%s: %s", text, err);
			REQUIRE(memcmp(&log[nlog], &m, sizeof(m)) == 0,
			    "`%s` read back as another move", text);
			logseat[nlog++] = seat;
			ops->apply(st, seat, &m);
			plies++;
			/* Only the mover's captures take pieces. */
			ops->result(st, &r2);
			REQUIRE(r2.score[seat] == r.score[seat] &&
			    (r2.score[!seat] == r.score[!seat] ||
			    (r2.score[!seat] == r.score[!seat] - 1 &&
			    strncmp(text, "pass", 4) != 0)),
			    "pieces %d/%d -> %d/%d after %s", r.score[0],
			    r.score[1], r2.score[0], r2.score[1], text);
			if (plies % 16 == 0)
				check_cards(st, discard);
		}
		if (plies > longest)
			longest = plies;

		a = ser(st);
		copy = xcalloc(1, ops->state_size);
		ck_assert_msg(ops->parse_state(copy, a, err, sizeof(err)) == 0,
		    "%s", a);
		b = ser(copy);
		ck_assert_str_eq(a, b);
		free(b);
		free(copy);

		/* Replay through the notation from a fresh deal. */
		copy = tu_new("almakleh", opts, (uint64_t)game, 2);
		for (i = 0; i < nlog; i++) {
			ops->format_move(copy, logseat[i], &log[i], text,
			    sizeof(text));
			REQUIRE(ops->parse_move(copy, logseat[i], text, &m, err,
			    sizeof(err)) == 0, "replay %s: %s", text, err);
			ops->apply(copy, logseat[i], &m);
		}
		b = ser(copy);
		ck_assert_str_eq(a, b);
		free(a);
		free(b);
		free(copy);
		free(st);
	}
	/* Random games end quickly: a master walks into capture. */
	fprintf(stderr, "almakleh playouts: %d ended, %d capped at %d plies, "
	    "longest %d\n", ended, capped, PLAYOUT_CAP, longest);
	ck_assert_int_eq(ended + capped,
	    NPLAYOUTS * (int)nitems(variants));
	ck_assert_int_lt(capped, 10);
}
END_TEST

/*
 * The shortcuts a search takes, count_legal() and over(), agree with
 * legal() and result() at every step of random games in every variant
 * (both openings, discard with its reshuffles, the centre, redeals), on
 * states read back from their text, and where nothing moves and only
 * passes are legal.
 */
START_TEST(almakleh_shortcuts_agree)
{
	static const char *variants[] = { "", "opening=classic",
		"cards=discard", "centre=true", "cards=discard centre=true "
		"opening=classic redeals=2", "deal=hawk,panther,newt/otter,"
		"adder centre=true" };
	struct game_move moves[GAME_MAX_MOVES], m;
	struct rng rng;
	unsigned char seed[RNG_SEED_LEN];
	char err[GAME_ERRLEN];
	int game, step, n, seat;
	void *st;

	rng_seed_from_u64(seed, 18);
	rng_init(&rng, seed);
	for (game = 0; game < 600; game++) {
		st = tu_new("almakleh", variants[game % nitems(variants)],
		    (uint64_t)game, 2);
		if (game % 5 == 0)
			for (seat = 1; seat >= 0; seat--) {
				tu_check_shortcuts(ops, st);
				ck_assert_int_eq(ops->parse_move(st, seat,
				    "redeal", &m, err, sizeof(err)), 0);
				ops->apply(st, seat, &m);
			}
		for (step = 0; step < 400 && !game_over(ops, st); step++) {
			seat = ops->to_move(st) == 1 ? 0 : 1;
			tu_check_shortcuts(ops, st);
			if (step % 7 == 0) {
				char *text = tu_serialise(ops, st);
				void *back = tu_state(ops, text);

				tu_check_shortcuts(ops, back);
				free(back);
				free(text);
			}
			n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			ck_assert_int_gt(n, 0);
			ops->apply(st, seat, &moves[rng_below(&rng,
			    (uint32_t)n)]);
		}
		tu_check_shortcuts(ops, st);
		free(st);
	}
	/* Blocked: two passes (pike arrived this turn), counted as such. */
	st = pos(HEAD, "board P.... P.... P.... P.... M.m.p\n"
	    "south panther zebra pike\n"
	    "north badger swan\n"
	    "fresh pike\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=0 ply=10 over=0 winner=0 how=0 hold=-1:0 "
	    "last=1:0:-1:0:0:0\n");
	ck_assert_int_eq(ops->count_legal(st, 0), 2);
	ck_assert_int_eq(ops->count_legal(st, 1), 0);
	tu_check_shortcuts(ops, st);
	free(st);
}
END_TEST

/* A deck of five cards whose side names all start with the prefix, and
 * the first side's one move 0,N for N = 1 or 2. */
static char *
small_deck(const char *prefix, int n)
{
	return xasprintf("card %sa 0,%d | %sb 1,1\ncard %sc 0,1 | %sd -1,1\n"
	    "card %se 1,0 | %sf -1,0\ncard %sg 0,1 1,1 | %sh 0,1 -1,1\n"
	    "card %si 0,2 | %sj 0,-1\n", prefix, n, prefix, prefix, prefix,
	    prefix, prefix, prefix, prefix, prefix, prefix);
}

static void *
deck_game(const char *data, const char *opts, char *err, size_t errlen)
{
	struct game_opts o;
	unsigned char seed[RNG_SEED_LEN];
	void *st = xcalloc(1, ops->state_size);

	tu_opts("almakleh", opts, &o);
	o.data = data;
	rng_seed_from_u64(seed, 5);
	if (ops->create(st, &o, seed, 2, err, errlen) == -1) {
		free(st);
		return NULL;
	}
	return st;
}

/*
 * Games of different decks side by side in one process: each plays,
 * writes and reads back its own cards, whichever deck came first; the
 * same deck given again is the same deck.
 */
START_TEST(almakleh_decks_side_by_side)
{
	char err[GAME_ERRLEN], *d1 = small_deck("aaa", 1);
	char *d2 = small_deck("aaa", 2), *t1, *t2, *t3, *legal;
	void *std = tu_new("almakleh", "deal=yak,badger,scorpion/zebra,bison "
	    "opening=classic", 1, 2), *g1, *g2, *g3, *back;

	g1 = deck_game(d1, "deal=aaaa,aaac,aaae/aaag,aaai", err, sizeof(err));
	ck_assert_msg(g1 != NULL, "%s", err);
	g2 = deck_game(d2, "deal=aaaa,aaac,aaae/aaag,aaai", err, sizeof(err));
	ck_assert_msg(g2 != NULL, "%s", err);
	g3 = deck_game(d1, "deal=aaaa,aaac,aaae/aaag,aaai", err, sizeof(err));
	ck_assert_msg(g3 != NULL, "%s", err);
	/* The same deck and deal: the same bytes. */
	ck_assert_int_eq(memcmp(g1, g3, ops->state_size), 0);
	t1 = ser(g1);
	t2 = ser(g2);
	ck_assert_ptr_nonnull(strstr(t1, "\ncard aaaa 0,1 | aaab 1,1\n"));
	ck_assert_ptr_nonnull(strstr(t2, "\ncard aaaa 0,2 | aaab 1,1\n"));
	/* aaaa one ahead in the first deck, two in the second. */
	legal = legal_text(g1, 0);
	ck_assert_ptr_nonnull(strstr(legal, "aaaa a1-a2\n"));
	ck_assert_ptr_null(strstr(legal, "aaaa a1-a3\n"));
	free(legal);
	legal = legal_text(g2, 0);
	ck_assert_ptr_nonnull(strstr(legal, "aaaa a1-a3\n"));
	ck_assert_ptr_null(strstr(legal, "aaaa a1-a2\n"));
	free(legal);
	ck_assert_uint_eq(game_perft(ops, std, 5), 487780);
	ck_assert_uint_eq(game_perft(ops, g1, 3), game_perft(ops, g3, 3));
	/* Read back, each is its own deck again. */
	back = tu_state(ops, t2);
	t3 = ser(back);
	ck_assert_str_eq(t3, t2);
	ck_assert_uint_eq(game_perft(ops, back, 4), game_perft(ops, g2, 4));
	free(t3);
	free(back);
	back = tu_state(ops, t1);
	ck_assert_int_eq(memcmp(back, g1, ops->state_size -
	    sizeof(struct rng)), 0);
	free(back);
	play_ok(g2, 0, "aaaa c1-c3");
	assert_body(g2, "board PP.PP ..... ..M.. ..... ppmpp\n"
	    "south aaac aaae\n"
	    "north aaag aaai aaaa\n"
	    "fresh aaaa\n"
	    "pile -\n"
	    "discard -\n"
	    "turn=1 ply=1 over=0 winner=0 how=0 hold=0:0 "
	    "last=0:1:0:2:12:0\n");
	free(t1);
	free(t2);
	free(d1);
	free(d2);
	free(g1);
	free(g2);
	free(g3);
	free(std);
}
END_TEST

/*
 * The table of decks has room for every deck an installation uses, not
 * for any number: past it a new deck is refused with a message, while
 * the games of the decks already held go on and a held deck is still
 * found.  (Last in the suite: it fills the table.)
 */
START_TEST(almakleh_deck_table_bounded)
{
	char err[GAME_ERRLEN], prefix[8], *d;
	void *st = tu_new("almakleh", "", 3, 2), *g;
	int i, made = 0, refused = 0;

	for (i = 0; i < 200 && !refused; i++) {
		snprintf(prefix, sizeof(prefix), "q%c%c", 'a' + i / 26,
		    'a' + i % 26);
		d = small_deck(prefix, 1);
		if ((g = deck_game(d, "", err, sizeof(err))) != NULL) {
			made++;
			free(g);
		} else {
			ck_assert_str_eq(err, "more than 64 different "
			    "Almakleh decks in one process");
			refused = 1;
		}
		free(d);
	}
	ck_assert_int_eq(refused, 1);
	ck_assert_int_ge(made, 60);
	/* The definition's deck is held: its games start and play. */
	free(st);
	st = tu_new("almakleh", "deal=yak,badger,scorpion/zebra,bison "
	    "opening=classic", 1, 2);
	ck_assert_uint_eq(game_perft(ops, st, 4), 28509);
	d = small_deck("qaa", 1);
	g = deck_game(d, "", err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	free(g);
	free(d);
	free(st);
}
END_TEST

static Suite *
almakleh_suite(void)
{
	Suite *s = suite_create("almakleh");
	TCase *tc = tcase_create("rules");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, almakleh_perft_fixed_deals, 0,
	    (int)nitems(perft_cases));
	tcase_add_test(tc, almakleh_perft_ignores_seed_with_deal);
	tcase_add_test(tc, almakleh_received_card_unusable);
	tcase_add_test(tc, almakleh_pass_when_blocked);
	tcase_add_test(tc, almakleh_pass_refused_when_a_move_exists);
	tcase_add_test(tc, almakleh_master_on_portal_wins);
	tcase_add_test(tc, almakleh_master_captured_wins);
	tcase_add_test(tc, almakleh_pawn_on_portal_does_nothing);
	tcase_add_test(tc, almakleh_second_player_reads_cards_rotated);
	tcase_add_test(tc, almakleh_centre_held_two_moves);
	tcase_add_test(tc, almakleh_discard_reshuffles_when_pile_empty);
	tcase_add_test(tc, almakleh_deal_unknown_name_rejected);
	tcase_add_test(tc, almakleh_opening_classic_third_card_unusable);
	tcase_add_test(tc, almakleh_discard_classic_third_card_unusable);
	tcase_add_test(tc, almakleh_notation_table);
	tcase_add_test(tc, almakleh_redeal_needs_both);
	tcase_add_test(tc, almakleh_short_notation_ambiguous_needs_card);
	tcase_add_test(tc, almakleh_errors_say_what_is_wrong);
	tcase_add_test(tc, almakleh_render_marks_pieces_portals_and_last_move);
	tcase_add_test(tc, almakleh_faction_colours_in_legend_and_style);
	tcase_add_test(tc, almakleh_state_text_round_trip);
	tcase_add_test(tc, almakleh_deck_errors_name_the_line);
	tcase_add_test(tc, almakleh_random_playouts);
	tcase_add_test(tc, almakleh_shortcuts_agree);
	tcase_add_test(tc, almakleh_decks_side_by_side);
	tcase_add_test(tc, almakleh_deck_table_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(almakleh_suite());
}
