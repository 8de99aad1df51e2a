/* Alquerque: perft, one hand-worked position per rule, playouts. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const struct game_ops *ops;

static void
setup(void)
{
	ops = tu_def("alquerque")->ops;
}

/*
 * A position from five rows, rank 5 first, of `W`, `B` and `.`, joined by
 * slashes: "B..../...../..W../...../W....".  No move played yet, so the
 * history holds no step.
 */
static void *
mkpos(const char *rows, int turn, int quiet_limit)
{
	char text[512], grid[5][6], err[GAME_ERRLEN];
	void *st = xcalloc(1, ops->state_size);
	int r;

	ck_assert_int_eq(strlen(rows), 29);
	for (r = 0; r < 5; r++) {
		memcpy(grid[r], rows + r * 6, 5);
		grid[r][5] = '\0';
	}
	snprintf(text, sizeof(text), "alquerque quiet_limit=%d\n"
	    "5 %s\n4 %s\n3 %s\n2 %s\n1 %s\n"
	    "turn=%s ply=0 quiet=0 end=none\nlast=-\nhistory\n",
	    quiet_limit, grid[0], grid[1], grid[2], grid[3], grid[4],
	    turn ? "Black" : "White");
	ck_assert_msg(ops->parse_state(st, text, err, sizeof(err)) == 0,
	    "%s: %s", text, err);
	return st;
}

static char *
ser(const void *st)
{
	return tu_serialise(ops, st);
}

static int
seat_to_move(const void *st)
{
	uint32_t mask = ops->to_move(st);

	ck_assert_msg(mask == 1 || mask == 2, "mask %u", mask);
	return mask == 1 ? 0 : 1;
}

/* Play moves separated by `;`, each by the side to move. */
static void
play_seq(void *st, const char *seq)
{
	char *copy = xstrdup(seq), *p, *save = NULL, err[GAME_ERRLEN];

	for (p = strtok_r(copy, ";", &save); p != NULL;
	    p = strtok_r(NULL, ";", &save)) {
		int seat = seat_to_move(st);

		ck_assert_msg(tu_play("alquerque", st, seat, p, err,
		    sizeof(err)) == 1, "%s: %s", p, err);
	}
	free(copy);
}

static void
assert_error(void *st, int seat, const char *move, const char *want)
{
	char err[GAME_ERRLEN], *before = ser(st), *after;

	ck_assert_int_eq(tu_play("alquerque", st, seat, move, err,
	    sizeof(err)), -1);
	ck_assert_str_eq(err, want);
	after = ser(st);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
}

/* The legal moves as one line of notation, "a1-a2 a1-b1 ...". */
static char *
legal_line(const void *st)
{
	struct buf b = { 0 };
	char *s, *p;

	game_legal_text(ops, st, seat_to_move(st), &b);
	s = buf_steal(&b);
	for (p = s; *p != '\0'; p++)
		if (*p == '\n')
			*p = p[1] == '\0' ? '\0' : ' ';
	return s;
}

static void
assert_legal(const void *st, const char *want)
{
	char *got = legal_line(st);

	ck_assert_str_eq(got, want);
	free(got);
}

/*
 * Pinned.  Depths 1-2 by hand: only c3 is empty and White can step into it
 * from b2, c2, d2 and d3 (c3 is strong, so b2 and d2 reach it diagonally).
 * No White jump exists: a jump would have to land on c3, coming from a1,
 * c1, e1 or e3 over a White stone, or from a3, a5, c5 or e5, which hold
 * Black stones: 4.  Each step empties its
 * origin and Black must capture into it: after b2-c3 only d4xb2 (over
 * c3), after c2-c3 only c4xc2, after d3-c3 only b3xd3, after d2-c3 both
 * b4xd2 (over c3) and d4xd2 (over d3); none of these can go on: 5.
 * Every depth was checked against a second, independent implementation
 * (a board as a map from points to colours, the lines of the drawn board
 * listed point by point, chains by copying the board at each hop, the
 * history as a full list), which gives the same numbers from the start
 * for depths 1-12 (to 3,307,126) without a quiet limit and 1-10 with
 * quiet_limit 1 and 4, and the same legal-move lists and depth 1-3 counts
 * for 3,000 random positions.
 */
static const uint64_t perft_start[] = { 4, 5, 6, 12, 29, 109, 541, 2730,
	14375, 83003 };
static const uint64_t perft_quiet4[] = { 4, 5, 6, 12, 29, 109, 541, 2730,
	12160, 70104 };

static void
check_perft(const char *opts, const uint64_t *want, int depths)
{
	void *st = tu_new("alquerque", opts, 1, 2);
	uint64_t got;
	int d;

	for (d = 1; d <= depths; d++) {
		got = game_perft(ops, st, d);
		ck_assert_msg(got == want[d - 1], "%s depth %d: got %llu want "
		    "%llu", opts, d, (unsigned long long)got,
		    (unsigned long long)want[d - 1]);
	}
	free(st);
}

START_TEST(alquerque_perft_start)
{
	check_perft("", perft_start, (int)nitems(perft_start));
}
END_TEST

START_TEST(alquerque_perft_quiet_limit)
{
	static const uint64_t ql1[] = { 4, 4, 4 };

	/* With quiet_limit=4 the first games drawn end at depth 9; with 1,
	 * the first step already ends the game. */
	check_perft("quiet_limit=4", perft_quiet4, (int)nitems(perft_quiet4));
	check_perft("quiet_limit=1", ql1, (int)nitems(ql1));
}
END_TEST

START_TEST(alquerque_start_position)
{
	void *st = tu_new("alquerque", "", 1, 2);
	char *s = ser(st);

	ck_assert_str_eq(s, "alquerque quiet_limit=0\n"
	    "5 BBBBB\n4 BBBBB\n3 BB.WW\n2 WWWWW\n1 WWWWW\n"
	    "turn=White ply=0 quiet=0 end=none\nlast=-\n"
	    "history\n");
	assert_legal(st, "b2-c3 c2-c3 d2-c3 d3-c3");
	ck_assert_str_eq(ops->seat_name(st, 0), "White");
	ck_assert_str_eq(ops->seat_name(st, 1), "Black");
	free(s);
	free(st);
}
END_TEST

START_TEST(alquerque_weak_point_has_no_diagonal)
{
	/* b3 is weak: four orthogonal steps, no diagonal ones, and no
	 * diagonal jump over c4 although d5 is empty. */
	void *st = mkpos("B..../..B../.W.../...../.....", 0, 0);

	assert_legal(st, "b3-c3 b3-a3 b3-b4 b3-b2");
	assert_error(st, 0, "b3-c4",
	    "c4 is not reachable diagonally from b3 (a weak point)");
	assert_error(st, 0, "b3-a2",
	    "a2 is not reachable diagonally from b3 (a weak point)");
	assert_error(st, 0, "b3xd5",
	    "d5 is not reachable diagonally from b3 (a weak point)");
	free(st);
}
END_TEST

START_TEST(alquerque_strong_point_diagonal_step)
{
	/* c3 is strong: all eight neighbours; the corner a1 has three. */
	void *st = mkpos("....B/...../..W../...../.....", 0, 0);

	assert_legal(st, "c3-d3 c3-b3 c3-c4 c3-c2 c3-d4 c3-b4 c3-d2 c3-b2");
	play_seq(st, "c3-d4");
	free(st);
	st = mkpos("....B/...../...../...../W....", 0, 0);
	assert_legal(st, "a1-b1 a1-a2 a1-b2");
	play_seq(st, "A1 - B2");
	free(st);
}
END_TEST

START_TEST(alquerque_capture_is_compulsory)
{
	/* White could step anywhere, but e1xe3 (over e2) and b2xd4 (over
	 * c3, diagonally) are the only legal moves; either one will do. */
	void *st = mkpos("B..../...../..B../.W..B/....W", 0, 0);

	assert_legal(st, "e1xe3 b2xd4");
	assert_error(st, 0, "b2-b3",
	    "a capture is compulsory: e1xe3 or b2xd4");
	play_seq(st, "b2xd4");
	free(st);
	st = mkpos("B..../...../..B../.W..B/....W", 0, 0);
	play_seq(st, "e1:e3");
	free(st);
}
END_TEST

START_TEST(alquerque_chain_must_continue)
{
	/* a1 jumps b2 to c3, then must go on over d3 to e3 or over c4 to
	 * c5: two moves, each the whole chain. */
	void *st = mkpos("B..../..B../...B./.B.../W....", 0, 0);

	assert_legal(st, "a1xc3xe3 a1xc3xc5");
	assert_error(st, 0, "a1xc3",
	    "the chain must go on from c3: a1xc3xe3 or a1xc3xc5");
	play_seq(st, "a1xc3xc5");
	ck_assert_int_eq(seat_to_move(st), 1);
	free(st);
}
END_TEST

START_TEST(alquerque_jumped_stone_removed_at_once)
{
	struct game_move m[GAME_MAX_MOVES];
	char *s;
	void *st;

	/* b1 is gone as soon as a1 lands on c1: the chain cannot jump it
	 * back to a1. */
	st = mkpos("....B/...../...../...../WB...", 0, 0);
	assert_legal(st, "a1xc1");
	assert_error(st, 0, "a1xc1xa1", "the stone on b1 was taken earlier "
	    "in this chain and cannot be jumped again");
	free(st);

	/* Round the square a1-c1-c3-a3 and back to the emptied origin, in
	 * either sense: the same stones taken, two different moves. */
	st = mkpos("....B/...../.B.../B.B../WB...", 0, 0);
	ck_assert_int_eq(ops->legal(st, 0, m, GAME_MAX_MOVES), 2);
	assert_legal(st, "a1xc1xc3xa3xa1 a1xa3xc3xc1xa1");
	ck_assert_uint_eq(game_perft(ops, st, 1), 2);
	play_seq(st, "a1xa3xc3xc1xa1");
	s = ser(st);
	ck_assert_ptr_nonnull(strstr(s, "5 ....B\n4 .....\n3 .....\n"
	    "2 .....\n1 W....\n"));
	ck_assert_ptr_nonnull(strstr(s, "last=a1xa3xc3xc1xa1\n"));
	free(s);
	free(st);
}
END_TEST

START_TEST(alquerque_short_chain_notation_unambiguous)
{
	struct game_move m;
	char err[GAME_ERRLEN], text[GAME_MOVE_TEXT], *s;
	void *st = mkpos("B..../..B../...../.B.../W....", 0, 0);

	/* a1xc3xc5 is the only chain from a1 to c5. */
	ck_assert_int_eq(ops->parse_move(st, 0, " A1 : c5 ", &m, err,
	    sizeof(err)), 0);
	ops->format_move(st, 0, &m, text, sizeof(text));
	ck_assert_str_eq(text, "a1xc3xc5");
	play_seq(st, "a1xc5");
	s = ser(st);
	ck_assert_ptr_nonnull(strstr(s, "last=a1xc3xc5\n"));
	free(s);
	free(st);

	/* Two points that are a whole single jump mean that jump. */
	st = mkpos("B..../...../...../.B.../W....", 0, 0);
	ck_assert_int_eq(ops->parse_move(st, 0, "a1xc3", &m, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(m.len, 3);
	free(st);
}
END_TEST

/*
 * Notation as ludus-games(7) lists it: a point is a letter a-e and a digit
 * 1-5, in either case, nothing between them; a step joins two points with
 * `-`; a jump or chain with `x` or `:` (mixed freely, never with `-`),
 * every landing point named, or only the first and last when one chain
 * joins them; blanks around separators and at the ends, nowhere else.
 */
static const struct tu_notation alquerque_steps[] = {
	{ "b2-c3", "b2-c3" },
	{ "B2-C3", "b2-c3" },
	{ "b2 - c3", "b2-c3" },
	{ "b2 -c3", "b2-c3" },
	{ "\tb2-c3 ", "b2-c3" },
	{ "d3-c3", "d3-c3" },
	{ "b2c3", NULL },
	{ "b2 c3", NULL },
	{ "b 2-c3", NULL },
	{ "b2-c 3", NULL },
	{ "b2 - c 3", NULL },
	{ "b2\xe2\x80\x93" "c3", NULL },	/* an en dash */
	{ "b2--c3", NULL },
	{ "b2_c3", NULL },
	{ "b2.c3", NULL },
	{ "b2-c3.", NULL },
	{ "bb2-c3", NULL },
	{ "b02-c3", NULL },
	{ "2b-3c", NULL },
	{ "b2-c3-d4", NULL },
};
static const struct tu_notation alquerque_jumps[] = {
	{ "a1xc3xc5", "a1xc3xc5" },
	{ "a1:c3:c5", "a1xc3xc5" },
	{ "a1xc3:c5", "a1xc3xc5" },
	{ "A1XC3XC5", "a1xc3xc5" },
	{ "a1 x c3 x c5", "a1xc3xc5" },
	{ "a1xc5", "a1xc3xc5" },
	{ " A1 : c5 ", "a1xc3xc5" },
	{ "a1x c 3xc5", NULL },
	{ "a 1xc5", NULL },
	{ "a1-c3-c5", NULL },
	{ "a1xc3-c5", NULL },
	{ "a1c3c5", NULL },
	{ "a1 c3 c5", NULL },
	{ "a1xxc3xc5", NULL },
	{ "a1x", NULL },
	{ "xa1c5", NULL },
	{ "a1xc3xc5x", NULL },
	{ "a1*c5", NULL },
};

START_TEST(alquerque_notation_table)
{
	void *st = tu_new("alquerque", "", 1, 2);

	tu_notation_check("alquerque", st, 0, alquerque_steps,
	    nitems(alquerque_steps));
	free(st);
	st = mkpos("B..../..B../...../.B.../W....", 0, 0);
	tu_notation_check("alquerque", st, 0, alquerque_jumps,
	    nitems(alquerque_jumps));
	free(st);
}
END_TEST

START_TEST(alquerque_short_chain_ambiguous_rejected)
{
	void *st = mkpos("....B/...../.B.../B.B../WB...", 0, 0);

	assert_error(st, 0, "a1xa1", "more than one chain leads from there: "
	    "name every landing point: a1xc1xc3xa3xa1 or a1xa3xc3xc1xa1");
	free(st);
}
END_TEST

START_TEST(alquerque_win_no_stones)
{
	struct game_result r;
	void *st = mkpos("...../...../...../..B../..W..", 0, 0);
	char err[GAME_ERRLEN];

	play_seq(st, "c1xc3");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_int_eq(r.draw, 0);
	ck_assert_uint_eq(r.winners, 1);
	ck_assert_str_eq(r.text, "White wins: Black has no stones left");
	ck_assert_int_eq(r.score[0], 1);
	ck_assert_int_eq(r.score[1], 0);
	ck_assert_uint_eq(ops->to_move(st), 0);
	ck_assert_int_eq(ops->legal(st, 1, NULL, 0), 0);
	ck_assert_uint_eq(game_perft(ops, st, 3), 1);
	ck_assert_int_eq(tu_play("alquerque", st, 1, "a1-a2", err,
	    sizeof(err)), -1);
	ck_assert_str_eq(err, "the game is over");
	free(st);
}
END_TEST

START_TEST(alquerque_win_no_legal_move)
{
	struct game_result r;
	/* Black's a5 is hemmed in by a4, b5 and b4 once White steps c4-b4,
	 * with a3, c5 and c3 behind them.  quiet_limit=1 would draw on the
	 * same move: the win is decided first. */
	void *st = mkpos("BWW../W.W../W.W../...../.....", 0, 1);
	struct game_move m[GAME_MAX_MOVES];

	play_seq(st, "c4-b4");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_int_eq(r.draw, 0);
	ck_assert_uint_eq(r.winners, 1);
	ck_assert_str_eq(r.text, "White wins: Black has no legal move");
	ck_assert_int_eq(r.score[1], 1);
	ck_assert_int_eq(ops->legal(st, 1, m, GAME_MAX_MOVES), 0);
	free(st);

	/* Black wins the same way: White's only stone is blocked. */
	st = mkpos("...../...../B.B../B.B../WBB..", 1, 0);
	play_seq(st, "c2-b2");
	ops->result(st, &r);
	ck_assert_uint_eq(r.winners, 2);
	ck_assert_str_eq(r.text, "Black wins: White has no legal move");
	free(st);
}
END_TEST

START_TEST(alquerque_threefold_repetition_draw)
{
	struct game_view v = { .viewer = GAME_PUBLIC };
	struct buf b = { 0 };
	struct game_result r;
	void *st;
	int i;

	/* A four-move cycle: the start position (the first occurrence)
	 * comes back after moves 4 and 8; the third time is a draw. */
	st = mkpos("....B/...../...../...../W....", 0, 0);
	play_seq(st, "a1-a2;e5-e4;a2-a1;e4-e5;a1-a2;e5-e4;a2-a1");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 0);
	ops->render(st, &v, &b);
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "Black (Black) to move.\n"
	    "This position has occurred twice: the third time is a draw.\n"));
	buf_free(&b);
	play_seq(st, "e4-e5");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_int_eq(r.draw, 1);
	ck_assert_uint_eq(r.winners, 0);
	ck_assert_str_eq(r.text, "draw by threefold repetition");
	free(st);

	/* White goes round a1-a2-b2 (three moves) and Black to and fro
	 * (two): the stones stand as at the start after move 5, with Black
	 * to move, and after move 12, with White to move.  The side to move
	 * is part of the position, so the first third occurrence is the
	 * start position after move 24. */
	st = mkpos("....B/...../...../...../W....", 0, 0);
	for (i = 0; i < 23; i++) {
		static const char *const wm[] = { "a1-a2", "a2-b2", "b2-a1" };
		static const char *const bm[] = { "e5-e4", "e4-e5" };

		play_seq(st, i % 2 == 0 ? wm[(i / 2) % 3] : bm[(i / 2) % 2]);
		ops->result(st, &r);
		ck_assert_msg(r.over == 0, "over after move %d", i + 1);
	}
	play_seq(st, "e4-e5");
	ops->result(st, &r);
	ck_assert_int_eq(r.draw, 1);
	ck_assert_str_eq(r.text, "draw by threefold repetition");
	free(st);
}
END_TEST

START_TEST(alquerque_repetition_reset_by_capture)
{
	struct game_result r;
	/* No position before a capture can come back, so the history starts
	 * afresh with the position after it, which then needs three
	 * occurrences of its own. */
	void *st = mkpos("....B/...../..B../...../W....", 0, 0);
	char *s;

	play_seq(st, "a1-a2;e5-e4;a2-a1;e4-e5;a1-a2;c3-b2;a2xc2");
	s = ser(st);
	ck_assert_ptr_nonnull(strstr(s, "turn=Black ply=7 quiet=0 end=none\n"
	    "last=a2xc2\nhistory\n"));
	free(s);
	play_seq(st, "e5-e4;c2-c1;e4-e5;c1-c2;e5-e4;c2-c1;e4-e5");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 0);
	play_seq(st, "c1-c2");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_str_eq(r.text, "draw by threefold repetition");
	free(st);
}
END_TEST

/* s with its one occurrence of from replaced by to (owned). */
static char *
replaced(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);

	ck_assert_ptr_nonnull(at);
	return xasprintf("%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
}

/*
 * A repetition over a long cycle: White's stone goes round the eight
 * points a1 b1 c1 d1 d2 c2 b2 a2, Black's round the nine a5 b5 c5 d5 e5
 * e4 d4 c4 b4 (back to a5 along the diagonal from the strong b4).  Ranks
 * 3 lies between them, so no capture is ever possible.  After n moves
 * each, White stands at n mod 8 and Black at n mod 9 on their rounds, so
 * the 144 positions of a cycle of 144 moves are all different, and the
 * start comes back only after moves 144 and 288: the third occurrence,
 * 288 moves after the first, is a draw.
 */
START_TEST(alquerque_repetition_long_cycle)
{
	static const char *const wround[] = { "a1-b1", "b1-c1", "c1-d1",
		"d1-d2", "d2-c2", "c2-b2", "b2-a2", "a2-a1" };
	static const char *const bround[] = { "a5-b5", "b5-c5", "c5-d5",
		"d5-e5", "e5-e4", "e4-d4", "d4-c4", "c4-b4", "b4-a5" };
	struct game_view v = { .viewer = GAME_PUBLIC };
	struct game_result r;
	struct buf b = { 0 };
	void *st = mkpos("B..../...../...../...../W....", 0, 0);
	int ply;

	for (ply = 1; ply <= 288; ply++) {
		ops->result(st, &r);
		ck_assert_msg(r.over == 0, "over before move %d: %s", ply,
		    r.text);
		play_seq(st, ply % 2 ? wround[(ply / 2) % 8] :
		    bround[(ply / 2 - 1) % 9]);
		if (ply == 144) {
			ops->render(st, &v, &b);
			ck_assert_ptr_nonnull(strstr(buf_str(&b), "This "
			    "position has occurred twice: the third time is a "
			    "draw.\n"));
			buf_free(&b);
		}
	}
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_int_eq(r.draw, 1);
	ck_assert_str_eq(r.text, "draw by threefold repetition");
	ck_assert_uint_eq(ops->to_move(st), 0);
	free(st);
}
END_TEST

/*
 * The bound: 1024 moves since the last capture are remembered.  A state
 * 1024 quiet moves on (White a1, Black e5, White to move) whose oldest
 * remembered position is the current one: White went a1-b1, to and fro
 * b1-c1, and back b1-a1 while Black went to and fro e5-e4.
 */
static char *
long_quiet_state(void)
{
	struct buf b = { 0 };
	int k;

	buf_adds(&b, "alquerque quiet_limit=0\n5 ....B\n4 .....\n3 .....\n"
	    "2 .....\n1 W....\n");
	buf_adds(&b, "turn=White ply=1030 quiet=1024 end=none\nlast=e4-e5\n"
	    "history");
	for (k = 0; k < 512; k++) {
		if (k == 0)
			buf_adds(&b, " a1-b1");
		else if (k == 511)
			buf_adds(&b, " b1-a1");
		else
			buf_adds(&b, k % 2 ? " b1-c1" : " c1-b1");
		buf_adds(&b, k % 2 ? " e4-e5" : " e5-e4");
	}
	buf_addc(&b, '\n');
	return buf_steal(&b);
}

START_TEST(alquerque_history_bound)
{
	char err[GAME_ERRLEN], *text, *s;
	struct game_result r;
	struct game_view v = { .viewer = GAME_PUBLIC };
	struct buf b = { 0 };
	void *st = xcalloc(1, ops->state_size);

	/* Seen 1024 moves back and now: twice. */
	text = long_quiet_state();
	ck_assert_msg(ops->parse_state(st, text, err, sizeof(err)) == 0, "%s",
	    err);
	s = ser(st);
	ck_assert_str_eq(s, text);
	free(s);
	ops->render(st, &v, &b);
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "occurred twice"));
	buf_free(&b);
	/* Four moves later (by points not visited before) it comes back a
	 * third time, but the oldest has left the 1024 moves remembered by
	 * then: the game goes on, as documented. */
	play_seq(st, "a1-b2;e5-d5;b2-a1;d5-e5");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 0);
	/* The ring has wrapped: the round trip still holds, and the next
	 * return is the third within the bound. */
	s = ser(st);
	ck_assert_ptr_nonnull(strstr(s, "quiet=1028 end=none\n"));
	/* Still the last 1024 steps. */
	ck_assert_int_eq(strlen(strstr(s, "history")),
	    strlen(strstr(text, "history")));
	free(text);
	text = s;
	ck_assert_int_eq(ops->parse_state(st, text, err, sizeof(err)), 0);
	s = ser(st);
	ck_assert_str_eq(s, text);
	free(s);
	free(text);
	play_seq(st, "a1-b2;e5-d5;b2-a1");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 0);
	play_seq(st, "d5-e5");
	ops->result(st, &r);
	ck_assert_str_eq(r.text, "draw by threefold repetition");

	/* A history must undo to where the stones stood: more steps than
	 * quiet moves, a step the position contradicts, or more than 1024
	 * steps are refused. */
	text = long_quiet_state();
	s = replaced(text, "quiet=1024", "quiet=1023");
	ck_assert_int_eq(ops->parse_state(st, s, err, sizeof(err)), -1);
	free(s);
	s = replaced(text, "history a1-b1", "history a1-a2");
	ck_assert_int_eq(ops->parse_state(st, s, err, sizeof(err)), -1);
	free(s);
	s = replaced(text, "quiet=1024", "quiet=1026");
	free(text);
	text = replaced(s, "history", "history a2-a1 e4-e5");
	ck_assert_int_eq(ops->parse_state(st, text, err, sizeof(err)), -1);
	free(s);
	free(text);
	free(st);
}
END_TEST

/*
 * States written by the version that kept the keys of the positions (13
 * hex digits: White's points as bits 0-24, a1 = bit 0; Black's as bits
 * 25-49; bit 50 set when Black is to move) are read, as games stored
 * then go on: their steps are the differences of the keys.
 */
static unsigned long long
key_of(const char *white, const char *black, int black_to_move)
{
	return 1ull << ((white[1] - '1') * 5 + white[0] - 'a') |
	    1ull << (25 + (black[1] - '1') * 5 + black[0] - 'a') |
	    (unsigned long long)black_to_move << 50;
}

START_TEST(alquerque_history_old_keys)
{
	char err[GAME_ERRLEN], *text, *s;
	struct game_result r;
	void *st = xcalloc(1, ops->state_size);

	/* a1-a2, e5-e4, a2-a1, e4-e5, a1-a2, e5-e4, a2-a1: Black to move,
	 * and e4-e5 makes the start's third time. */
	text = xasprintf("alquerque quiet_limit=0\n5 .....\n4 ....B\n3 .....\n"
	    "2 .....\n1 W....\nturn=Black ply=7 quiet=7 end=none\n"
	    "last=a2-a1\nhistory %013llx %013llx %013llx %013llx %013llx "
	    "%013llx %013llx %013llx\n",
	    key_of("a1", "e5", 0), key_of("a2", "e5", 1),
	    key_of("a2", "e4", 0), key_of("a1", "e4", 1),
	    key_of("a1", "e5", 0), key_of("a2", "e5", 1),
	    key_of("a2", "e4", 0), key_of("a1", "e4", 1));
	ck_assert_msg(ops->parse_state(st, text, err, sizeof(err)) == 0, "%s",
	    err);
	s = ser(st);
	ck_assert_ptr_nonnull(strstr(s, "\nhistory a1-a2 e5-e4 a2-a1 e4-e5 "
	    "a1-a2 e5-e4 a2-a1\n"));
	free(s);
	play_seq(st, "e4-e5");
	ops->result(st, &r);
	ck_assert_str_eq(r.text, "draw by threefold repetition");
	free(text);

	/* Keys that are no step apart are refused. */
	text = xasprintf("alquerque quiet_limit=0\n5 .....\n4 .....\n3 .....\n"
	    "2 .....\n1 W...B\nturn=White ply=2 quiet=2 end=none\n"
	    "last=e2-e1\nhistory %013llx %013llx %013llx\n",
	    key_of("a1", "e1", 0), key_of("c1", "e1", 1),
	    key_of("a1", "e1", 0));
	ck_assert_int_eq(ops->parse_state(st, text, err, sizeof(err)), -1);
	free(text);
	free(st);
}
END_TEST

START_TEST(alquerque_quiet_limit_draw)
{
	struct game_view v = { .viewer = GAME_PUBLIC };
	struct buf b = { 0 };
	struct game_result r;
	void *st = mkpos("....B/...../...../...../W....", 0, 3);
	char *s;

	play_seq(st, "a1-a2;e5-e4");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 0);
	ops->render(st, &v, &b);
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "White (White) to move.\n"
	    "Moves without a capture: 2 of 3.\n"));
	buf_free(&b);
	play_seq(st, "a2-a3");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_int_eq(r.draw, 1);
	ck_assert_str_eq(r.text, "draw: 3 moves in a row without a capture");
	s = ser(st);
	ck_assert_ptr_nonnull(strstr(s, "turn=Black ply=3 quiet=3 end=quiet\n"));
	free(s);
	free(st);

	/* A capture starts the count again. */
	st = mkpos("....B/...../..B../...../W....", 0, 3);
	play_seq(st, "a1-a2;c3-b2;a2xc2;e5-e4;c2-c1");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 0);
	play_seq(st, "e4-e5");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	free(st);
}
END_TEST

START_TEST(alquerque_errors_name_the_fix)
{
	struct game_move m;
	void *st = tu_new("alquerque", "", 1, 2);
	char err[GAME_ERRLEN];

	assert_error(st, 1, "b4-c3", "it is White's turn, not Black's");
	assert_error(st, 0, "hello", "`hello` is not a move: write a step "
	    "as b2-c3, a jump as b2xd4, a chain as b2xd4xb4");
	assert_error(st, 0, "f1-c3", "`f1` is not a point: points run from "
	    "a1 to e5");
	assert_error(st, 0, "b2-c3-d4", "a step goes to a neighbouring point "
	    "only: write one step as b2-c3");
	assert_error(st, 0, "a1xb1xc1xd1xe1xa2xb2xc2xd2xe2xa3xb3xc3xd3xe3xa4"
	    "xb4xc4xd4xe4xa5xb5xc5xd5xe5xa1xb1xc1xd1xe1xa2xb2xc2xd2", "that move is "
	    "too long: a chain names at most 13 points");
	assert_error(st, 0, "a1xb1xc1xd1xe1xa2xb2xc2xd2xe2xa3xb3xc3xd3",
	    "a chain takes at most 12 stones");
	assert_error(st, 0, "b2-c3xd4", "`b2-c3xd4` is not a move: write a "
	    "step as b2-c3, a jump as b2xd4, a chain as b2xd4xb4");
	assert_error(st, 0, "c3-c4", "you have no stone on c3");
	assert_error(st, 0, "b4-c3", "the stone on b4 is your opponent's");
	assert_error(st, 0, "b1-b2", "b2 is occupied");
	assert_error(st, 0, "c2-c4", "c4 is not next to c2, and a jump is "
	    "written c2xc4");
	assert_error(st, 0, "a1-e5", "e5 is not next to a1: a step goes to a "
	    "neighbouring point along a line");
	assert_error(st, 0, "c2xc4", "there is no opponent's stone on c3 to "
	    "jump from c2 to c4");
	free(st);

	st = tu_new("alquerque", "", 1, 2);
	assert_error(st, 0, "b1xb3", "b1 to b3 would jump your own stone on "
	    "b2");
	assert_error(st, 0, "c1xc3", "c1 to c3 would jump your own stone on "
	    "c2");
	assert_error(st, 0, "b2xb4", "b4 is occupied");
	free(st);

	st = mkpos("B..../...../..B../.W..B/....W", 0, 0);
	assert_error(st, 0, "b2xb4", "there is no opponent's stone on b3 to "
	    "jump from b2 to b4");
	assert_error(st, 0, "b2xc3", "b2 to c3 is a step, not a jump: a jump "
	    "lands right behind the stone it takes");
	assert_error(st, 0, "b2xe3", "e3 cannot be reached by a jump from "
	    "b2: a jump goes over a neighbouring stone to the point right "
	    "behind it");
	/* All or nothing: a good move then a move out of turn. */
	ck_assert_int_eq(tu_play("alquerque", st, 0, "b2xd4, d4-d5", err,
	    sizeof(err)), -1);
	ck_assert_str_eq(err, "move 2 (`d4-d5`): it is Black's turn, not "
	    "White's");
	ck_assert_int_eq(ops->parse_move(st, 0, " ", &m, err, sizeof(err)),
	    -1);
	ck_assert_str_eq(err, "no move given: write a step as b2-c3, a jump "
	    "as b2xd4");
	free(st);
}
END_TEST

/*
 * Random text from the notation's alphabet: every answer is either an
 * error with a message or a move that legal() lists.
 */
START_TEST(alquerque_parse_move_survives_junk)
{
	static const char alphabet[] = "abcdefx:-12345 6A";
	static const char *const positions[] = {
		"....B/...../.B.../B.B../WB...",
		"B..../..B../...B./.B.../W....",
		"B..../...../..B../.W..B/....W",
	};
	struct game_move legal[GAME_MAX_MOVES], m;
	char text[40], err[GAME_ERRLEN];
	struct rng rng;
	unsigned char seed[RNG_SEED_LEN];
	int i, j, k, n, len, accepted = 0;

	rng_seed_from_u64(seed, 11);
	rng_init(&rng, seed);
	for (i = 0; i < 30000; i++) {
		void *st = mkpos(positions[i % 3], 0, 0);

		n = ops->legal(st, 0, legal, GAME_MAX_MOVES);
		len = (int)rng_below(&rng, sizeof(text) - 1);
		for (j = 0; j < len; j++)
			text[j] = alphabet[rng_below(&rng, sizeof(alphabet) -
			    1)];
		text[len] = '\0';
		/* Every other text is points joined by separators, so
		 * that some are legal. */
		if (i % 2 == 0) {
			len = 2 + 3 * (int)rng_below(&rng, 3);
			for (j = 0; j < len; j += 3) {
				text[j] = (char)('a' + rng_below(&rng, 5));
				text[j + 1] = (char)('1' + rng_below(&rng, 5));
				if (j + 2 < len)
					text[j + 2] = "x-:"[rng_below(&rng, 3)];
			}
			text[len] = '\0';
		}
		err[0] = '\0';
		if (ops->parse_move(st, 0, text, &m, err, sizeof(err)) == 0) {
			for (k = 0; k < n; k++)
				if (legal[k].len == m.len && memcmp(legal[k].d,
				    m.d, m.len) == 0)
					break;
			if (k == n)
				ck_abort_msg("`%s` accepted but not legal",
				    text);
			accepted++;
		} else if (err[0] == '\0')
			ck_abort_msg("`%s` refused without a reason", text);
		free(st);
	}
	ck_assert_int_gt(accepted, 0);
}
END_TEST

START_TEST(alquerque_render_draws_lines_and_last_move)
{
	struct game_view v = { .viewer = 1, .names = { "alice", "bob" } };
	struct buf b = { 0 };
	void *st = tu_new("alquerque", "", 1, 2);

	play_seq(st, "d3-c3;b3xd3");
	ops->render(st, &v, &b);
	ck_assert_str_eq(buf_str(&b),
	    "    bob (Black): 12 stones\n"
	    "    a   b   c   d   e\n"
	    "5   B---B---B---B---B   5\n"
	    "    | \\ | / | \\ | / |\n"
	    "4   B---B---B---B---B   4\n"
	    "    | / | \\ | / | \\ |\n"
	    "3   B---*---x---b---W   3\n"
	    "    | \\ | / | \\ | / |\n"
	    "2   W---W---W---W---W   2\n"
	    "    | / | \\ | / | \\ |\n"
	    "1   W---W---W---W---W   1\n"
	    "    a   b   c   d   e\n"
	    "    alice (White): 11 stones\n"
	    "\n"
	    "Last move: bob (Black) b3xd3, took 1.\n"
	    "(b: the stone that moved, *: the points it left, x: the stones "
	    "it took)\n"
	    "alice (White) to move; a capture is compulsory.\n");
	/* A mail names who moves in its own words: the board says who
	 * must take. */
	buf_reset(&b);
	v.no_turn = 1;
	ops->render(st, &v, &b);
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "took 1.\n"
	    "(b: the stone that moved, *: the points it left, x: the stones "
	    "it took)\n"
	    "White must capture.\n"));
	ck_assert_ptr_null(strstr(buf_str(&b), "to move"));
	buf_free(&b);
	free(st);
}
END_TEST

START_TEST(alquerque_json_and_state_checks)
{
	struct buf b = { 0 };
	char err[GAME_ERRLEN], *s, *bad;
	void *st = tu_new("alquerque", "quiet_limit=40", 1, 2), *copy;

	play_seq(st, "d3-c3;b3xd3");
	ops->export_json(st, &b);
	ck_assert_str_eq(buf_str(&b), "{\"game\":\"alquerque\","
	    "\"quiet_limit\":40,\"ply\":2,\"quiet\":0,\"to_move\":\"White\","
	    "\"over\":false,\"end\":\"none\","
	    "\"white\":[\"a1\",\"b1\",\"c1\",\"d1\",\"e1\",\"a2\",\"b2\","
	    "\"c2\",\"d2\",\"e2\",\"e3\"],"
	    "\"black\":[\"a3\",\"d3\",\"a4\",\"b4\",\"c4\",\"d4\",\"e4\","
	    "\"a5\",\"b5\",\"c5\",\"d5\",\"e5\"],"
	    "\"last\":{\"seat\":\"Black\",\"move\":\"b3xd3\","
	    "\"taken\":[\"c3\"]}}");
	buf_free(&b);

	/* The state is checked as it is read: a history that does not end in
	 * the position, or an end that the position contradicts, is refused. */
	s = ser(st);
	copy = xcalloc(1, ops->state_size);
	ck_assert_int_eq(ops->parse_state(copy, s, err, sizeof(err)), 0);
	bad = replaced(s, "end=none", "End=none");
	ck_assert_int_eq(ops->parse_state(copy, bad, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "malformed Alquerque state");
	free(bad);
	bad = replaced(s, "end=none", "end=nomoves");
	ck_assert_int_eq(ops->parse_state(copy, bad, err, sizeof(err)), -1);
	free(bad);
	bad = replaced(s, "history\n", "history a1-a2\n");
	ck_assert_int_eq(ops->parse_state(copy, bad, err, sizeof(err)), -1);
	free(bad);
	bad = replaced(s, "3 B..BW", "3 B.BBW");
	ck_assert_int_eq(ops->parse_state(copy, bad, err, sizeof(err)), -1);
	free(bad);
	free(s);
	free(copy);
	free(st);
}
END_TEST

/*
 * Independent checks for the playouts, on the serialised board: the lines
 * of the drawn board listed point by point (not the engine's parity rule).
 */
static const char *const lines[] = {
	"a1b1c1d1e1", "a2b2c2d2e2", "a3b3c3d3e3", "a4b4c4d4e4", "a5b5c5d5e5",
	"a1a2a3a4a5", "b1b2b3b4b5", "c1c2c3c4c5", "d1d2d3d4d5", "e1e2e3e4e5",
	"a1b2c3d4e5", "a5b4c3d2e1", "a3b4c5", "c5d4e3", "e3d2c1", "c1b2a3",
};

/* The board of a serialised state as 25 characters, a1 first. */
static void
board_of(const char *state, char board[26])
{
	const char *row = strchr(state, '\n') + 1;
	int r, f;

	for (r = 4; r >= 0; r--) {
		for (f = 0; f < 5; f++)
			board[r * 5 + f] = row[2 + f];
		row = strchr(row, '\n') + 1;
	}
	board[25] = '\0';
}

/* Stones of colour c on a board (its first 25 characters). */
static int
count_of(const char *board, char c)
{
	int i, n = 0;

	for (i = 0; i < 25; i++)
		n += board[i] == c;
	return n;
}

/* Has the side c any step or single jump along the listed lines? */
static int
side_has_move(const char *board, char c)
{
	char them = c == 'W' ? 'B' : 'W';
	size_t i;
	int j, k, dir, len;

	for (i = 0; i < nitems(lines); i++) {
		int pt[5];

		len = (int)strlen(lines[i]) / 2;
		for (j = 0; j < len; j++)
			pt[j] = (lines[i][2 * j + 1] - '1') * 5 +
			    lines[i][2 * j] - 'a';
		for (j = 0; j < len; j++) {
			if (board[pt[j]] != c)
				continue;
			for (dir = -1; dir <= 1; dir += 2) {
				k = j + dir;
				if (k < 0 || k >= len)
					continue;
				if (board[pt[k]] == '.')
					return 1;
				k += dir;
				if (board[pt[j + dir]] == them && k >= 0 &&
				    k < len && board[pt[k]] == '.')
					return 1;
			}
		}
	}
	return 0;
}

#define PLAYOUT_CAP	2000

/* Check's assertions report every pass to the parent process; in the hot
 * loop only a failure is reported. */
#define need(c) do {							\
	if (!(c))							\
		ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #c);	\
} while (0)

/* The position of a serialised state: the board and the side to move. */
static void
position_of(const void *st, int to_move, char pos[27])
{
	char *s = ser(st);

	board_of(s, pos);
	pos[25] = to_move ? 'B' : 'W';
	pos[26] = '\0';
	free(s);
}

/*
 * 10,000 random games for each of three option sets.  Without a quiet limit a
 * game ends only by a win or a repetition, and a few stones wandering at
 * random might take long to repeat: games are stopped at PLAYOUT_CAP moves
 * and counted, and such games must stay rare (in practice there are none:
 * compulsory captures make random games short).
 */
START_TEST(alquerque_random_playouts)
{
	static const char *variants[] = { "", "quiet_limit=40",
		"quiet_limit=10" };
	static struct game_move log[PLAYOUT_CAP];
	static char hist[PLAYOUT_CAP + 1][27];
	struct game_move moves[GAME_MAX_MOVES];
	struct game_result r;
	struct rng rng;
	unsigned char seed[RNG_SEED_LEN];
	int game, capped = 0, longest_quiet = 0, ends[4] = { 0 };

	rng_seed_from_u64(seed, 7);
	rng_init(&rng, seed);
	for (game = 0; game < 10000 * (int)nitems(variants); game++) {
		const char *opts = variants[game % nitems(variants)];
		void *st = tu_new("alquerque", opts, (uint64_t)game, 2);
		void *copy = xcalloc(1, ops->state_size);
		struct game_opts o;
		int nlog = 0, nhist = 0, quiet = 0, seat, n, i, seen, limit;
		int hops;
		char *a, *b, err[GAME_ERRLEN], text[GAME_MOVE_TEXT], me, them;

		tu_opts("alquerque", opts, &o);
		limit = (int)game_opt_int(&o, "quiet_limit");
		position_of(st, 0, hist[nhist++]);
		for (;;) {
			char before[27];
			const char *after;

			ops->result(st, &r);
			if (r.over) {
				need(ops->to_move(st) == 0);
				break;
			}
			if (nlog == PLAYOUT_CAP) {
				capped++;
				break;
			}
			need(ops->to_move(st) == 1 || ops->to_move(st) == 2);
			seat = ops->to_move(st) == 1 ? 0 : 1;
			n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			need(n > 0 && n < GAME_MAX_MOVES);
			need(ops->legal(st, !seat, moves + n,
			    GAME_MAX_MOVES - n) == 0);
			memcpy(before, hist[nhist - 1], sizeof(before));
			log[nlog] = moves[rng_below(&rng, (uint32_t)n)];
			ops->format_move(st, seat, &log[nlog], text,
			    sizeof(text));
			ops->apply(st, seat, &log[nlog++]);

			/* Stones fall only by captures, one per hop; the
			 * history of positions starts afresh at a capture. */
			for (hops = 0, i = 0; text[i]; i++)
				hops += text[i] == 'x';
			if (hops) {
				quiet = 0;
				nhist = 0;
			} else
				quiet++;
			if (quiet > longest_quiet)
				longest_quiet = quiet;
			position_of(st, !seat, hist[nhist++]);
			after = hist[nhist - 1];
			me = seat ? 'B' : 'W';
			them = seat ? 'W' : 'B';
			need(count_of(after, me) == count_of(before, me));
			need(count_of(after, them) ==
			    count_of(before, them) - hops);

			/* The end rules, judged here; the engine remembers
			 * the last 1024 moves since a capture. */
			seen = 0;
			for (i = nhist - 1; i >= 0 && i >= nhist - 1025; i--)
				seen += strcmp(hist[i], after) == 0;
			ops->result(st, &r);
			if (count_of(after, them) == 0 ||
			    !side_has_move(after, them))
				need(r.over && !r.draw &&
				    r.winners == 1u << seat);
			else if (seen >= 3)
				need(r.over && r.draw && strcmp(r.text,
				    "draw by threefold repetition") == 0);
			else if (limit > 0 && quiet >= limit)
				need(r.over && r.draw && quiet == limit &&
				    strstr(r.text, "without a capture"));
			else
				need(!r.over);
			need(r.score[0] == count_of(after, 'W'));
			need(r.score[1] == count_of(after, 'B'));
		}
		if (r.over) {
			need(r.draw == (r.winners == 0));
			if (strstr(r.text, "no stones"))
				ends[0]++;
			else if (strstr(r.text, "no legal move"))
				ends[1]++;
			else if (strstr(r.text, "repetition"))
				ends[2]++;
			else
				ends[3]++;
		}

		/* Serialise, parse, serialise: identical. */
		a = ser(st);
		ck_assert_msg(ops->parse_state(copy, a, err, sizeof(err)) == 0,
		    "%s", a);
		b = ser(copy);
		ck_assert_str_eq(a, b);
		free(b);

		/* Replay through the notation from a fresh start. */
		free(copy);
		copy = tu_new("alquerque", opts, (uint64_t)game, 2);
		for (i = 0; i < nlog; i++) {
			seat = i % 2;
			ops->format_move(copy, seat, &log[i], text,
			    sizeof(text));
			if (tu_play("alquerque", copy, seat, text, err,
			    sizeof(err)) != 1)
				ck_abort_msg("game %d move %d %s: %s", game,
				    i + 1, text, err);
		}
		b = ser(copy);
		ck_assert_str_eq(a, b);
		free(a);
		free(b);
		free(copy);
		free(st);
	}
	fprintf(stderr, "alquerque playouts: %d no stones, %d no move, %d "
	    "repetition, %d quiet limit, %d capped at %d moves; longest "
	    "quiet run %d\n", ends[0], ends[1], ends[2], ends[3], capped,
	    PLAYOUT_CAP, longest_quiet);
	ck_assert_int_lt(capped, 100 * (int)nitems(variants));
	ck_assert_int_gt(ends[0], 0);
	ck_assert_int_gt(ends[2], 0);
	ck_assert_int_gt(ends[3], 0);
}
END_TEST

/*
 * The perft pins further down, where bulk counting (count_legal at the
 * last ply) does most of the counting: depths 11 and 12 as the second
 * implementation gave them (see perft_start), 13 as bench/perft-alquerque.c
 * gives it; and the same tree without the engine's shortcuts (over,
 * count_legal), counted by legal() and result() alone.
 */
START_TEST(alquerque_perft_deep)
{
	static const uint64_t want[] = { 510417, 3307126, 21835393 };
	struct game_ops plain = *ops;
	void *st = tu_new("alquerque", "", 1, 2);
	int d;

	for (d = 11; d <= 13; d++)
		ck_assert_msg(game_perft(ops, st, d) == want[d - 11],
		    "depth %d", d);
	plain.over = NULL;
	plain.count_legal = NULL;
	ck_assert_uint_eq(game_perft(&plain, st, 10), perft_start[9]);
	ck_assert_uint_eq(game_perft(&plain, st, 11), want[0]);
	free(st);
}
END_TEST

/* The point k along a line of len points pt, or -1 past its ends. */
static int
plain_point(const int *pt, int len, int k)
{
	return k >= 0 && k < len ? pt[k] : -1;
}

/*
 * Every chain of the stone now on at (lifted off its origin), jumping
 * along the listed lines on board (changed on the way and restored),
 * appended to out as notation "a1xc1xc3 ", path holding the text so far.
 */
static void
plain_chains(char *board, char them, int at, char *path, char *out,
    size_t outlen)
{
	size_t i, plen = strlen(path);
	int j, len, dir, mid, land, found = 0;

	for (i = 0; i < nitems(lines); i++) {
		int pt[5];

		len = (int)strlen(lines[i]) / 2;
		for (j = 0; j < len; j++)
			pt[j] = (lines[i][2 * j + 1] - '1') * 5 +
			    lines[i][2 * j] - 'a';
		for (j = 0; j < len && pt[j] != at; j++)
			;
		if (j == len)
			continue;
		for (dir = -1; dir <= 1; dir += 2) {
			mid = plain_point(pt, len, j + dir);
			land = plain_point(pt, len, j + 2 * dir);
			if (land < 0 || board[mid] != them ||
			    board[land] != '.')
				continue;
			found = 1;
			board[mid] = '.';
			snprintf(path + plen, 8, "x%c%c", 'a' + land % 5,
			    '1' + land / 5);
			plain_chains(board, them, land, path, out, outlen);
			path[plen] = '\0';
			board[mid] = them;
		}
	}
	if (!found && strchr(path, 'x') != NULL) {
		ck_assert_uint_lt(strlen(out) + plen + 2, outlen);
		strcat(out, path);
		strcat(out, " ");
	}
}

/* The legal moves of side c on board (25 characters, a1 first), found
 * along the listed lines, as notation each followed by a blank. */
static void
plain_moves(const char *given, char c, char *out, size_t outlen)
{
	char board[26], them = c == 'W' ? 'B' : 'W', path[64];
	size_t i;
	int p, j, k, len, dir;

	memcpy(board, given, sizeof(board));
	out[0] = '\0';
	for (p = 0; p < 25; p++) {
		if (board[p] != c)
			continue;
		snprintf(path, sizeof(path), "%c%c", 'a' + p % 5, '1' + p / 5);
		board[p] = '.';
		plain_chains(board, them, p, path, out, outlen);
		board[p] = c;
	}
	if (out[0] != '\0')
		return;
	for (p = 0; p < 25; p++) {
		if (board[p] != c)
			continue;
		for (i = 0; i < nitems(lines); i++) {
			int pt[5];

			len = (int)strlen(lines[i]) / 2;
			for (j = 0; j < len; j++)
				pt[j] = (lines[i][2 * j + 1] - '1') * 5 +
				    lines[i][2 * j] - 'a';
			for (j = 0; j < len && pt[j] != p; j++)
				;
			for (dir = -1; j < len && dir <= 1; dir += 2) {
				k = plain_point(pt, len, j + dir);
				if (k < 0 || board[k] != '.')
					continue;
				ck_assert_uint_lt(strlen(out) + 7, outlen);
				snprintf(out + strlen(out), 7, "%c%c-%c%c ",
				    'a' + p % 5, '1' + p / 5, 'a' + k % 5,
				    '1' + k / 5);
			}
		}
	}
}

/* The words of a line of moves, sorted, as one line. */
static void
sorted_words(const char *line, char *out, size_t outlen)
{
	char *copy = xstrdup(line), *w[GAME_MAX_MOVES], *save = NULL, *p;
	int n = 0, i, j;

	for (p = strtok_r(copy, " ", &save); p != NULL && n < GAME_MAX_MOVES;
	    p = strtok_r(NULL, " ", &save))
		w[n++] = p;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(w[j - 1], w[j]) > 0; j--) {
			p = w[j];
			w[j] = w[j - 1];
			w[j - 1] = p;
		}
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		ck_assert_uint_lt(strlen(out) + strlen(w[i]) + 2, outlen);
		strcat(out, w[i]);
		strcat(out, " ");
	}
	free(copy);
}

/*
 * The move generator's tables and bit sets against a generator written
 * along the drawn board's lines: on random positions (random stones, not
 * only those a game reaches, crowded or sparse), legal() lists the same
 * moves, count_legal() counts them, over() says what result() says, and
 * perft to depth 2 agrees with and without those shortcuts.
 */
START_TEST(alquerque_moves_match_plain_generator)
{
	static char want[8192], got[8192], plain_line[8192];
	struct game_ops plain = *ops;
	struct rng rng;
	unsigned char seed[RNG_SEED_LEN];
	char rows[30], board[26], *line;
	int pos, i, p, nw, nb, turn, captures = 0, chains = 0;

	plain.over = NULL;
	plain.count_legal = NULL;
	rng_seed_from_u64(seed, 1818);
	rng_init(&rng, seed);
	for (pos = 0; pos < 4000; pos++) {
		void *st;

		memset(board, '.', 25);
		board[25] = '\0';
		nw = 1 + (int)rng_below(&rng, pos % 2 ? 12 : 5);
		nb = 1 + (int)rng_below(&rng, pos % 2 ? 12 : 5);
		for (i = 0; i < nw + nb; i++) {
			do
				p = (int)rng_below(&rng, 25);
			while (board[p] != '.');
			board[p] = i < nw ? 'W' : 'B';
		}
		for (i = 0; i < 5; i++) {
			memcpy(rows + i * 6, board + (4 - i) * 5, 5);
			rows[i * 6 + 5] = i < 4 ? '/' : '\0';
		}
		turn = (int)rng_below(&rng, 2);
		plain_moves(board, turn ? 'B' : 'W', plain_line,
		    sizeof(plain_line));
		if (plain_line[0] == '\0')
			continue;	/* no move: not a position to read */
		st = mkpos(rows, turn, 0);
		tu_check_shortcuts(ops, st);
		line = legal_line(st);
		sorted_words(line, got, sizeof(got));
		sorted_words(plain_line, want, sizeof(want));
		ck_assert_msg(strcmp(got, want) == 0, "%s %s: legal %s, "
		    "along the lines %s", rows, turn ? "Black" : "White",
		    got, want);
		captures += strchr(line, 'x') != NULL;
		/* A word with two jumps: "a1xc1xc3". */
		for (p = 0; line[p] != '\0'; p++)
			chains += line[p] == 'x' && line[p + 3] == 'x';
		ck_assert_uint_eq(game_perft(ops, st, 2),
		    game_perft(&plain, st, 2));
		free(line);
		free(st);
	}
	/* The positions cover both kinds of move and chains of two jumps
	 * or more. */
	ck_assert_int_gt(captures, 500);
	ck_assert_int_gt(chains, 50);
}
END_TEST

/* The shortcuts along random games from the start and after each state's
 * serialise round trip, where the repetitions and the quiet limit end
 * games too. */
START_TEST(alquerque_shortcuts_agree)
{
	static const char *variants[] = { "", "quiet_limit=6",
		"quiet_limit=30" };
	struct game_move moves[GAME_MAX_MOVES];
	struct game_result r;
	struct rng rng;
	unsigned char seed[RNG_SEED_LEN];
	int game, n, ends[5] = { 0 };

	rng_seed_from_u64(seed, 181);
	rng_init(&rng, seed);
	for (game = 0; game < 1500; game++) {
		void *st = tu_new("alquerque", variants[game % 3],
		    (uint64_t)game, 2);
		char *text;
		void *back;
		int plies = 0;

		while (!game_over(ops, st) && plies++ < PLAYOUT_CAP) {
			int seat = ops->to_move(st) == 1 ? 0 : 1;

			tu_check_shortcuts(ops, st);
			n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			ck_assert_int_gt(n, 0);
			ops->apply(st, seat, &moves[rng_below(&rng,
			    (uint32_t)n)]);
			text = tu_serialise(ops, st);
			back = tu_state(ops, text);
			tu_check_shortcuts(ops, back);
			free(back);
			free(text);
		}
		tu_check_shortcuts(ops, st);
		ops->result(st, &r);
		ends[!r.over ? 0 : strstr(r.text, "repetition") ? 1 :
		    strstr(r.text, "without a capture") ? 2 :
		    strstr(r.text, "no stones") ? 3 : 4]++;
		free(st);
	}
	ck_assert_int_gt(ends[1], 0);
	ck_assert_int_gt(ends[2], 0);
	ck_assert_int_gt(ends[3], 0);
}
END_TEST

static Suite *
alquerque_suite(void)
{
	Suite *s = suite_create("alquerque");
	TCase *tc = tcase_create("rules");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, alquerque_perft_start);
	tcase_add_test(tc, alquerque_perft_quiet_limit);
	tcase_add_test(tc, alquerque_start_position);
	tcase_add_test(tc, alquerque_weak_point_has_no_diagonal);
	tcase_add_test(tc, alquerque_strong_point_diagonal_step);
	tcase_add_test(tc, alquerque_capture_is_compulsory);
	tcase_add_test(tc, alquerque_chain_must_continue);
	tcase_add_test(tc, alquerque_jumped_stone_removed_at_once);
	tcase_add_test(tc, alquerque_short_chain_notation_unambiguous);
	tcase_add_test(tc, alquerque_short_chain_ambiguous_rejected);
	tcase_add_test(tc, alquerque_notation_table);
	tcase_add_test(tc, alquerque_win_no_stones);
	tcase_add_test(tc, alquerque_win_no_legal_move);
	tcase_add_test(tc, alquerque_threefold_repetition_draw);
	tcase_add_test(tc, alquerque_repetition_reset_by_capture);
	tcase_add_test(tc, alquerque_repetition_long_cycle);
	tcase_add_test(tc, alquerque_history_bound);
	tcase_add_test(tc, alquerque_history_old_keys);
	tcase_add_test(tc, alquerque_quiet_limit_draw);
	tcase_add_test(tc, alquerque_errors_name_the_fix);
	tcase_add_test(tc, alquerque_parse_move_survives_junk);
	tcase_add_test(tc, alquerque_render_draws_lines_and_last_move);
	tcase_add_test(tc, alquerque_json_and_state_checks);
	tcase_add_test(tc, alquerque_random_playouts);
	tcase_add_test(tc, alquerque_perft_deep);
	tcase_add_test(tc, alquerque_moves_match_plain_generator);
	tcase_add_test(tc, alquerque_shortcuts_agree);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(alquerque_suite());
}
