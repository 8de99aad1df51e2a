/* Mancala (Kalah): perft, one hand-worked position per rule, playouts. */
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
	ops = tu_def("mancala")->ops;
}

/* A position from its serialised text. */
static void *
pos(const char *text)
{
	return tu_state(ops, text);
}

static char *
ser(const void *st)
{
	return tu_serialise(ops, st);
}

static void
play_ok(void *st, int seat, const char *line)
{
	char err[GAME_ERRLEN];

	ck_assert_msg(tu_play("mancala", st, seat, line, err, sizeof(err)) > 0,
	    "%s: %s", line, err);
}

static void
assert_state(const void *st, const char *want)
{
	char *got = ser(st);

	ck_assert_str_eq(got, want);
	free(got);
}

/* Pinned: depths 1-3 counted by hand (6, 35 = 5 moves x 6 replies + pit 3's
 * extra turn x 5, 185), all depths checked against a second, independent
 * implementation written with separate rows and stores instead of a ring. */
static const uint64_t perft_6x4[] = { 6, 35, 185, 942, 4690, 23233, 114430,
	563055 };
static const uint64_t perft_6x3[] = { 6, 35, 182, 904, 4243, 19418, 87103, 387726 };
static const uint64_t perft_4x3[] = { 4, 15, 50, 158, 488, 1510, 4638, 14108 };

static void
check_perft(const char *opts, const uint64_t *want)
{
	void *st = tu_new("mancala", opts, 1, 2);
	int d;

	for (d = 1; d <= 8; d++)
		ck_assert_msg(game_perft(ops, st, d) == want[d - 1],
		    "%s depth %d: got %llu want %llu", opts, d,
		    (unsigned long long)game_perft(ops, st, d),
		    (unsigned long long)want[d - 1]);
	free(st);
}

START_TEST(mancala_perft_6x4)
{
	check_perft("", perft_6x4);
}
END_TEST

START_TEST(mancala_perft_6x3)
{
	check_perft("seeds=3", perft_6x3);
}
END_TEST

START_TEST(mancala_perft_4x3)
{
	check_perft("pits=4 seeds=3", perft_4x3);
}
END_TEST

START_TEST(mancala_sowing_skips_opponent_store)
{
	/* South pit 6 holds 9: store, North 1-6, (North's store skipped),
	 * South 1 and 2. */
	void *st = pos("mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 1 1 1 1 1 9 store 0\n"
	    "north 1 1 1 1 1 1 store 5\n"
	    "turn=0 over=0 ply=4 last=1:2\n");

	play_ok(st, 0, "6");
	assert_state(st, "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 2 2 1 1 1 0 store 1\n"
	    "north 2 2 2 2 2 2 store 5\n"
	    "turn=1 over=0 ply=5 last=0:6\n");
	free(st);
}
END_TEST

START_TEST(mancala_sowing_laps_round)
{
	/* 13 seeds from South pit 1: a full lap of the 13 holes South sows
	 * into (12 pits + own store) puts the last seed back in pit 1, which
	 * was emptied: a capture of North pit 6's seeds plus that one. */
	void *st = pos("mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 13 0 0 0 0 1 store 0\n"
	    "north 2 0 0 0 0 3 store 0\n"
	    "turn=0 over=0 ply=2 last=1:1\n");

	play_ok(st, 0, "1");
	/* Lap: S2-S6 +1, store +1, N1-N6 +1, S1 +1 then captured with N6. */
	assert_state(st, "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 0 1 1 1 1 2 store 6\n"
	    "north 3 1 1 1 1 0 store 0\n"
	    "turn=1 over=0 ply=3 last=0:1\n");
	free(st);
}
END_TEST

START_TEST(mancala_extra_turn_in_own_store)
{
	void *st = tu_new("mancala", "", 1, 2);
	char err[GAME_ERRLEN];

	/* Pit 3's four seeds end in the store: South moves again, in the
	 * same line, and North may not move yet. */
	ck_assert_int_eq(ops->to_move(st), 1);
	play_ok(st, 0, "3");
	ck_assert_int_eq(ops->to_move(st), 1);
	ck_assert_int_eq(tu_play("mancala", st, 1, "1", err, sizeof(err)), -1);
	play_ok(st, 0, "6");
	ck_assert_int_eq(ops->to_move(st), 2);
	free(st);

	st = tu_new("mancala", "", 1, 2);
	ck_assert_int_eq(tu_play("mancala", st, 0, "3, 6", err, sizeof(err)),
	    2);
	ck_assert_int_eq(ops->to_move(st), 2);
	free(st);
}
END_TEST

START_TEST(mancala_capture_needs_nonempty_opposite)
{
	const char *text = "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 1 0 0 0 0 5 store 0\n"
	    "north 5 5 5 5 0 5 store 0\n"
	    "turn=0 over=0 ply=2 last=1:1\n";
	void *st = pos(text);

	/* South 1 -> South 2, empty; opposite is North 5, empty: no capture. */
	play_ok(st, 0, "1");
	assert_state(st, "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 0 1 0 0 0 5 store 0\n"
	    "north 5 5 5 5 0 5 store 0\n"
	    "turn=1 over=0 ply=3 last=0:1\n");
	free(st);

	/* The same with North 5 holding seeds: both go to South's store. */
	st = pos("mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 1 0 0 0 0 5 store 0\n"
	    "north 5 5 5 5 3 5 store 0\n"
	    "turn=0 over=0 ply=2 last=1:1\n");
	play_ok(st, 0, "1");
	assert_state(st, "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 0 0 0 0 0 5 store 4\n"
	    "north 5 5 5 5 0 5 store 0\n"
	    "turn=1 over=0 ply=3 last=0:1\n");
	free(st);
}
END_TEST

START_TEST(mancala_empty_capture_option)
{
	void *st = pos("mancala pits=6 seeds=4 empty_capture=1\n"
	    "south 1 0 0 0 0 5 store 0\n"
	    "north 5 5 5 5 0 5 store 0\n"
	    "turn=0 over=0 ply=2 last=1:1\n");

	play_ok(st, 0, "1");
	assert_state(st, "mancala pits=6 seeds=4 empty_capture=1\n"
	    "south 0 0 0 0 0 5 store 1\n"
	    "north 5 5 5 5 0 5 store 0\n"
	    "turn=1 over=0 ply=3 last=0:1\n");
	free(st);
}
END_TEST

START_TEST(mancala_north_captures_south_pit)
{
	/* North pit 2 -> North 3 (empty); opposite is South pit 4. */
	void *st = pos("mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 1 1 1 7 1 1 store 0\n"
	    "north 1 1 0 1 1 1 store 0\n"
	    "turn=1 over=0 ply=1 last=0:1\n");

	play_ok(st, 1, "2");
	assert_state(st, "mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 1 1 1 0 1 1 store 0\n"
	    "north 1 0 0 1 1 1 store 8\n"
	    "turn=0 over=0 ply=2 last=1:2\n");
	free(st);
}
END_TEST

START_TEST(mancala_end_sweep_when_either_side_empties)
{
	struct game_result r;
	/* South's last seed goes to the store: South's row is empty, so
	 * North sweeps its own row even though South would move again. */
	void *st = pos("mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 0 0 0 0 0 1 store 20\n"
	    "north 3 0 2 0 0 1 store 21\n"
	    "turn=0 over=0 ply=30 last=1:1\n");

	play_ok(st, 0, "6");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_int_eq(r.score[0], 21);
	ck_assert_int_eq(r.score[1], 27);
	ck_assert_uint_eq(r.winners, 2);
	ck_assert_int_eq(ops->to_move(st), 0);
	free(st);

	/* The mover's own side still holds seeds when the opponent's
	 * empties: the mover sweeps those. */
	st = pos("mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 0 0 0 0 2 0 store 10\n"
	    "north 0 0 0 0 0 1 store 30\n"
	    "turn=1 over=0 ply=30 last=0:1\n");
	play_ok(st, 1, "6");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_int_eq(r.score[0], 12);
	ck_assert_int_eq(r.score[1], 31);
	free(st);
}
END_TEST

START_TEST(mancala_draw_on_equal_stores)
{
	struct game_result r;
	void *st = pos("mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 0 0 0 0 0 1 store 23\n"
	    "north 1 0 0 0 0 0 store 23\n"
	    "turn=0 over=0 ply=40 last=1:1\n");

	play_ok(st, 0, "6");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_int_eq(r.draw, 1);
	ck_assert_uint_eq(r.winners, 0);
	ck_assert_int_eq(r.score[0], 24);
	ck_assert_int_eq(r.score[1], 24);
	free(st);
}
END_TEST

START_TEST(mancala_errors_say_what_is_legal)
{
	void *st = pos("mancala pits=6 seeds=4 empty_capture=0\n"
	    "south 0 3 0 0 0 1 store 20\n"
	    "north 3 0 2 0 0 1 store 18\n"
	    "turn=0 over=0 ply=30 last=1:1\n");
	char err[GAME_ERRLEN], *before = ser(st);

	ck_assert_int_eq(tu_play("mancala", st, 0, "1", err, sizeof(err)),
	    -1);
	ck_assert_str_eq(err, "pit 1 is empty (legal now: 2, 6)");
	ck_assert_int_eq(tu_play("mancala", st, 0, "9", err, sizeof(err)),
	    -1);
	ck_assert_str_eq(err, "`9` is not a pit: give a pit number 1-6 "
	    "(legal now: 2, 6)");
	ck_assert_int_eq(tu_play("mancala", st, 1, "1", err, sizeof(err)),
	    -1);
	ck_assert_str_eq(err, "it is South's turn, not North's");
	/* All or nothing: a bad second move leaves the first unplayed. */
	ck_assert_int_eq(tu_play("mancala", st, 0, "2, 5", err, sizeof(err)),
	    -1);
	ck_assert_ptr_nonnull(strstr(err, "move 2"));
	assert_state(st, before);
	free(before);
	free(st);
}
END_TEST

START_TEST(mancala_render_marks_rows_stores_and_turn)
{
	struct game_view v = { .viewer = 1, .names = { "alice", "bob" } };
	struct buf b = { 0 };
	void *st = tu_new("mancala", "", 1, 2);

	play_ok(st, 0, "1");
	ops->render(st, &v, &b);
	/* North's own row is at the bottom of North's view, numbered 1-6. */
	ck_assert_ptr_nonnull(strstr(buf_str(&b),
	    "      |  4 |  4 |  4 |  4 |  4 |  4 |\n"
	    "      +----+----+----+----+----+----+\n"
	    "        1    2    3    4    5    6  \n"
	    "        bob (North), store on the right"));
	ck_assert_ptr_nonnull(strstr(buf_str(&b),
	    "Last move: alice (South) sowed pit 1."));
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "bob (North) to move."));
	buf_free(&b);
	free(st);
}
END_TEST

/* 10,000 random games: seeds conserved, every game ends, a draw exactly
 * when the stores are equal (check_engines holds every engine to the
 * rest: text round trips, replay, the shortcuts, no allocation). */
START_TEST(mancala_random_playouts)
{
	static const char *variants[] = { "", "seeds=3", "pits=4 seeds=3",
		"pits=8 seeds=10 empty_capture=true", "pits=3 seeds=1" };
	struct game_move moves[GAME_MAX_MOVES];
	struct game_result r;
	struct rng rng;
	unsigned char seed[RNG_SEED_LEN];
	int game;

	rng_seed_from_u64(seed, 42);
	rng_init(&rng, seed);
	for (game = 0; game < 10000; game++) {
		const char *opts = variants[game % nitems(variants)];
		void *st = tu_new("mancala", opts, (uint64_t)game, 2);
		struct game_opts o;
		int plies = 0, seat, n, total;

		tu_opts("mancala", opts, &o);
		total = 2 * (int)game_opt_int(&o, "pits") *
		    (int)game_opt_int(&o, "seeds");
		for (;;) {
			uint32_t mask = ops->to_move(st);

			ops->result(st, &r);
			if (r.over)
				break;
			seat = mask == 1 ? 0 : 1;
			n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			ck_assert_int_gt(n, 0);
			ck_assert_int_lt(plies++, 2048);
			ops->apply(st, seat, &moves[rng_below(&rng,
			    (uint32_t)n)]);
			ck_assert_int_eq(r.score[0] + r.score[1] <= total, 1);
		}
		ck_assert_int_eq(r.score[0] + r.score[1], total);
		ck_assert_int_eq(r.draw, r.score[0] == r.score[1]);
		free(st);
	}
}
END_TEST

/*
 * Notation as ludus-games(7) lists it: a pit is one digit 1-6, with
 * blanks around it or none; the sowings of an extra turn are separated
 * by commas or new lines.  Nothing else is a pit: no sign, no leading
 * zero, no word.  Every refused text would name a legal pit if it were
 * read loosely.
 */
static const struct tu_notation mancala_notation[] = {
	{ "3", "3" },
	{ " 3 ", "3" },
	{ "\t3", "3" },
	{ "3, 6", "3, 6" },
	{ "3,6", "3, 6" },
	{ "3\n6", "3, 6" },
	{ "+3", NULL },
	{ "03", NULL },
	{ "003", NULL },
	{ "-3", NULL },
	{ "3.", NULL },
	{ "3.0", NULL },
	{ "3a", NULL },
	{ "a3", NULL },
	{ "0x3", NULL },
	{ "3 3", NULL },
	{ "three", NULL },
	{ "pit 3", NULL },
	{ "#3", NULL },
	{ "\xef\xbc\x93", NULL },	/* a full-width 3 */
	{ "0", NULL },
	{ "7", NULL },
	{ "", NULL },
};

START_TEST(mancala_notation_table)
{
	void *st = tu_new("mancala", "", 1, 2);

	tu_notation_check("mancala", st, 0, mancala_notation,
	    nitems(mancala_notation));
	free(st);
}
END_TEST

static Suite *
mancala_suite(void)
{
	Suite *s = suite_create("mancala");
	TCase *tc = tcase_create("rules");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, mancala_perft_6x4);
	tcase_add_test(tc, mancala_perft_6x3);
	tcase_add_test(tc, mancala_perft_4x3);
	tcase_add_test(tc, mancala_sowing_skips_opponent_store);
	tcase_add_test(tc, mancala_sowing_laps_round);
	tcase_add_test(tc, mancala_extra_turn_in_own_store);
	tcase_add_test(tc, mancala_capture_needs_nonempty_opposite);
	tcase_add_test(tc, mancala_empty_capture_option);
	tcase_add_test(tc, mancala_north_captures_south_pit);
	tcase_add_test(tc, mancala_end_sweep_when_either_side_empties);
	tcase_add_test(tc, mancala_draw_on_equal_stores);
	tcase_add_test(tc, mancala_errors_say_what_is_legal);
	tcase_add_test(tc, mancala_notation_table);
	tcase_add_test(tc, mancala_render_marks_rows_stores_and_turn);
	tcase_add_test(tc, mancala_random_playouts);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(mancala_suite());
}
