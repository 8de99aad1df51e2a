/* Spite & Malice: perft, one hand-worked position per rule, random matches
 * with invariants and hidden-information checks. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

static const struct game_ops *ops;

/*
 * Check records every passing ck_assert (it sends its location to the
 * runner), which dominates a loop of millions of actions: the playout
 * loops test with these, which only call into Check on failure.
 */
#define REQUIRE(c) do {							\
	if (!(c))							\
		ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #c);	\
} while (0)
#define REQUIRE_STR_EQ(a, b) do {					\
	if (strcmp((a), (b)) != 0)					\
		ck_abort_msg("%s:%d: \"%s\" != \"%s\"", __FILE__,	\
		    __LINE__, (a), (b));				\
} while (0)

static void
setup(void)
{
	ops = tu_def("spite")->ops;
}

#define OPTS(extra)							\
	"spite payoff=20 hand=5 centre=3 target=50 " extra "\n"
#define DEFOPTS	OPTS("refill_empty_hand=0 dry_rounds=5")
#define RNGLINE	"rng 000102030405060708090a0b0c0d0e0f"			\
	"101112131415161718191a1b1c1d1e1f:0:64\n"
#define EMPTY_SIDES(who)						\
	who " s1: -\n" who " s2: -\n" who " s3: -\n" who " s4: -\n"

static const char *const ranks[] = { "?", "A", "2", "3", "4", "5", "6", "7",
	"8", "9", "10", "J", "Q", "K" };

static int
rank_of(const char *t)
{
	switch (t[0]) {
	case 'A':
		return t[1] == '\0';
	case 'J':
		return t[1] == '\0' ? 11 : 0;
	case 'Q':
		return t[1] == '\0' ? 12 : 0;
	case 'K':
		return t[1] == '\0' ? 13 : 0;
	case '1':
		return t[1] == '0' && t[2] == '\0' ? 10 : 0;
	default:
		return t[0] >= '2' && t[0] <= '9' && t[1] == '\0' ?
		    t[0] - '0' : 0;
	}
}

/* Count the ranks of every pile line of a serialised state (the lines
 * after the rng line); counts[0] gets the REST markers.  A plain character
 * scan: it runs after every action of the random matches. */
static void
count_cards(const char *p, int counts[14])
{
	int line = 0, inpile = 0;

	memset(counts, 0, 14 * sizeof(int));
	for (; *p; p++) {
		if (*p == '\n') {
			line++;
			inpile = 0;
			continue;
		}
		if (!inpile) {
			inpile = line >= 3 && *p == ':';
			continue;
		}
		if (*p == ' ' || *p == '-')
			continue;
		switch (*p) {
		case 'A':
			counts[1]++;
			break;
		case '1':
			counts[10]++;
			p++;	/* the 0 of 10 */
			break;
		case 'J':
			counts[11]++;
			break;
		case 'Q':
			counts[12]++;
			break;
		case 'K':
			counts[13]++;
			break;
		case 'R':
			counts[0]++;
			p += 3;	/* REST */
			break;
		default:
			if (*p >= '2' && *p <= '9')
				counts[*p - '0']++;
			else
				ck_abort_msg("unexpected `%c` in a pile", *p);
		}
	}
}

/* The ranks on one pile line ("name: cards\n"). */
static void
line_counts(const char *line, int counts[14])
{
	const char *eol = strchr(line, '\n');
	char buf[512];

	ck_assert_ptr_nonnull(eol);
	ck_assert_int_lt(eol - line + 8, (int)sizeof(buf));
	memcpy(buf, "-\n-\n-\n", 6);
	memcpy(buf + 6, line, (size_t)(eol - line) + 1);
	buf[6 + (eol - line) + 1] = '\0';
	count_cards(buf, counts);
}

/* The text with its one REST marker replaced by the cards that make two
 * full packs, in rank order (owned). */
static char *
expand(const char *text)
{
	struct buf b = { 0 };
	const char *at = strstr(text, "REST");
	int counts[14], r, k, first = 1;

	count_cards(text, counts);
	if (at == NULL)
		return xstrdup(text);
	buf_add(&b, text, (size_t)(at - text));
	for (r = 1; r <= 13; r++) {
		ck_assert_int_le(counts[r], 8);
		for (k = counts[r]; k < 8; k++) {
			buf_printf(&b, "%s%s", first ? "" : " ", ranks[r]);
			first = 0;
		}
	}
	buf_adds(&b, at + 4);
	return buf_steal(&b);
}

/* A position from hand-written text (REST filled in). */
static void *
pos(const char *text)
{
	char err[GAME_ERRLEN], *full = expand(text);
	void *st = xcalloc(1, ops->state_size);

	ck_assert_msg(ops->parse_state(st, full, err, sizeof(err)) == 0,
	    "%s\n%s", err, full);
	free(full);
	return st;
}

static char *
ser(const void *st)
{
	return tu_serialise(ops, st);
}

static char *
render(const void *st, int viewer)
{
	struct game_view v = { .viewer = viewer };
	struct buf b = { 0 };

	ops->render(st, &v, &b);
	return buf_steal(&b);
}

static char *
legal_text(const void *st, int seat)
{
	struct buf b = { 0 };

	game_legal_text(ops, st, seat, &b);
	return buf_steal(&b);
}

static void
play_ok(void *st, int seat, const char *line)
{
	char err[GAME_ERRLEN];

	ck_assert_msg(tu_play("spite", st, seat, line, err, sizeof(err)) > 0,
	    "%s: %s", line, err);
}

static void
play_err(void *st, int seat, const char *line, const char *want)
{
	char err[GAME_ERRLEN], *before = ser(st), *after;

	ck_assert_int_eq(tu_play("spite", st, seat, line, err, sizeof(err)),
	    -1);
	ck_assert_msg(strstr(err, want) != NULL, "`%s`: got \"%s\", want "
	    "\"%s\"", line, err, want);
	after = ser(st);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
}

static void
has(const char *text, const char *want)
{
	ck_assert_msg(strstr(text, want) != NULL, "missing \"%s\" in:\n%s",
	    want, text);
}

static void
ser_has(const void *st, const char *want)
{
	char *s = ser(st);

	has(s, want);
	free(s);
}

static void
render_has(const void *st, int viewer, const char *want)
{
	char *s = render(st, viewer);

	has(s, want);
	free(s);
}

static void
check_conserved(const void *st)
{
	static struct buf b;	/* reused: no allocation per action */
	const char *s;
	int counts[14], r;

	buf_reset(&b);
	ops->serialise(st, &b);
	s = buf_str(&b);
	count_cards(s, counts);
	for (r = 1; r <= 13; r++)
		if (counts[r] != 8)
			ck_abort_msg("%d of rank %s:\n%s", counts[r], ranks[r],
			    s);
}

/*
 * Perft of single actions from the deals of seeds 1-3 with the default
 * options (rules.md's convention).  Depths 1-2 by hand:
 *  seed 1: North starts (payoff top 7 against South's 4) holding
 *   A 3 5 10 J: the Ace to any of 3 empty stacks, or one of 5 ranks to
 *   one of 4 side stacks: 3 + 20 = 23.  After an Ace North goes on with
 *   no centre play and 4 ranks x 4 stacks = 16 discards; after a discard
 *   South (A 5 6 8 K, top 4) has Ace or King x 3 stacks + 20 discards =
 *   26: 3 x 16 + 20 x 26 = 568.
 *  seed 2: South starts (J against 10) with 3 4 5 6 10 and nothing for
 *   the centre: 20; North then holds 8 9 J Q K, top 10: King x 3 + 20 =
 *   23 each: 460.
 *  seed 3: North starts (K against J): the payoff King to 3 stacks + 3 7
 *   8 9 10 discarded 20 ways = 23; after a payoff King North has 20
 *   discards (new top 8), after a discard South holds 2 2 4 7 8 (top J):
 *   4 ranks x 4 = 16: 3 x 20 + 20 x 16 = 380.
 * All depths agree with a separate implementation of the rules in Python
 * (written from rules.md, reading the serialised deal, kept out of the
 * tree), which also confirmed that no stack completes and no round ends
 * within five actions of these deals, so no shuffle is involved.
 */
static const uint64_t perft_seed[3][5] = {
	{ 23, 568, 11340, 248496, 5190960 },
	{ 20, 460, 7680, 149184, 2499840 },
	{ 23, 380, 7356, 140736, 2793216 },
};

START_TEST(spite_perft)
{
	void *st = tu_new("spite", "", (uint64_t)_i + 1, 2);
	int d;

	for (d = 1; d <= 5; d++) {
		uint64_t n = game_perft(ops, st, d);

		ck_assert_msg(n == perft_seed[_i][d - 1], "seed %d depth %d: "
		    "got %llu want %llu", _i + 1, d, (unsigned long long)n,
		    (unsigned long long)perft_seed[_i][d - 1]);
	}
	free(st);
}
END_TEST

START_TEST(spite_king_wild_on_empty_is_ace)
{
	void *st = pos(DEFOPTS
	    "round=1 starter=0 turn=0 over=0 winner=-1 score=0:0 dry=0 "
	    "prev=none\n" RNGLINE
	    "stock: REST\n"
	    "c1: -\nc2: A 2\nc3: -\n"
	    "south payoff: 9 9 7\n"
	    "south hand: 2 5 7 K K\n" EMPTY_SIDES("south")
	    "north payoff: 8 8 4\n"
	    "north hand: 3 3 6 10 J\n" EMPTY_SIDES("north"));
	char *l = legal_text(st, 0);

	/* Empty stacks take a King (and would take an Ace), never a 5;
	 * c2 needs a 3 and takes the King instead.  Two Kings in hand make
	 * one move per stack. */
	ck_assert_str_eq(l, "K c1\nK c2\nK c3\n"
	    "2 s1\n2 s2\n2 s3\n2 s4\n5 s1\n5 s2\n5 s3\n5 s4\n"
	    "7 s1\n7 s2\n7 s3\n7 s4\nK s1\nK s2\nK s3\nK s4\n");
	free(l);
	play_err(st, 0, "5 c3", "c3 is empty and takes only an Ace (or a "
	    "King as Ace), not a 5");
	play_err(st, 0, "2 c1", "c1 is empty and takes only an Ace");
	play_ok(st, 0, "K c1");
	ser_has(st, "c1: K\n");
	render_has(st, 0, "  c1: K=A  (needs 2)\n");
	/* The King stood for the Ace: a 2 goes on it. */
	play_ok(st, 0, "2 c1");
	ser_has(st, "c1: K 2\n");
	ser_has(st, "south hand: 5 7 K\n");
	play_ok(st, 0, "K c2");
	render_has(st, 0, "  c2: A 2 K=3  (needs 4)\n");
	render_has(st, 1, "  c1: K=A 2  (needs 3)\n");
	ck_assert_int_eq(ops->to_move(st), 1);
	free(st);
}
END_TEST

START_TEST(spite_queen_completes_and_recycles)
{
	/* c1 holds A to J with a King as 6, c2 A to 10; the stock holds
	 * four cards, 4 on top. */
	void *st = pos(DEFOPTS
	    "round=1 starter=0 turn=0 over=0 winner=-1 score=0:0 dry=0 "
	    "prev=none\n" RNGLINE
	    "stock: 3 3 2 4\n"
	    "c1: A 2 3 4 5 K 7 8 9 10 J\n"
	    "c2: A 2 3 4 5 6 7 8 9 10 K\n"
	    "c3: -\n"
	    "south payoff: 9 9 7\n"
	    "south hand: 2 5 Q K K\n" EMPTY_SIDES("south")
	    "north payoff: 8 8 4\n"
	    "north hand: 3 6 10 J\n"
	    "north s1: REST\nnorth s2: -\nnorth s3: -\nnorth s4: -\n");
	char *s, *line, *eol;
	int c[14], r;

	play_ok(st, 0, "Q c1");
	s = ser(st);
	has(s, "c1: -\n");
	/* The twelve cards went under the stock; the four waiting to be
	 * drawn keep their place on top. */
	line = strstr(s, "stock:");
	ck_assert_ptr_nonnull(line);
	eol = strchr(line, '\n');
	ck_assert_int_eq(strncmp(eol - 8, " 3 3 2 4", 8), 0);
	line_counts(line, c);
	for (r = 1; r <= 13; r++) {
		/* A-5, K (as 6), 7-J, Q, plus 3 3 2 4. */
		int want = r == 6 ? 0 : 1;

		want += r == 3 ? 2 : r == 2 || r == 4 ? 1 : 0;
		ck_assert_msg(c[r] == want, "rank %s: %d in %s", ranks[r],
		    c[r], s);
	}
	/* Shuffled, not laid under in the order they were built. */
	ck_assert_ptr_null(strstr(s, "stock: A 2 3 4 5 K 7 8 9 10 J Q 3"));
	free(s);
	render_has(st, 0, "Stock: 16 cards\n");
	/* A King as the Queen completes a stack too. */
	play_ok(st, 0, "K c2");
	ser_has(st, "c2: -\n");
	render_has(st, 0, "Stock: 28 cards\n");
	check_conserved(st);
	ck_assert_int_eq(ops->to_move(st), 1);
	free(st);
}
END_TEST

START_TEST(spite_discard_ends_turn)
{
	void *st = pos(DEFOPTS
	    "round=1 starter=0 turn=0 over=0 winner=-1 score=0:0 dry=0 "
	    "prev=none\n" RNGLINE
	    "stock: REST 6 Q\n"
	    "c1: A\nc2: -\nc3: -\n"
	    "south payoff: 9 9 7\n"
	    "south hand: 2 5 7 9 9\n" EMPTY_SIDES("south")
	    "north payoff: 8 8 4\n"
	    "north hand: 3 6 10\n" EMPTY_SIDES("north"));

	play_ok(st, 0, "2 c1");
	ck_assert_int_eq(ops->to_move(st), 1);
	play_ok(st, 0, "9 s4");
	/* The turn passed; North drew Q then 6 from the top of the stock. */
	ck_assert_int_eq(ops->to_move(st), 2);
	ser_has(st, "round=1 starter=0 turn=1 ");
	ser_has(st, "south hand: 5 7 9\n");
	ser_has(st, "south s4: 9\n");
	ser_has(st, "north hand: 3 6 6 10 Q\n");
	play_err(st, 0, "5 s1", "it is North's turn, not South's");
	ck_assert_int_eq(ops->legal(st, 0, NULL, 0), 0);
	/* A discard ends the turn even in the middle of a line. */
	play_err(st, 1, "3 s1, 6 s2", "it is South's turn, not North's");
	free(st);
}
END_TEST

START_TEST(spite_empty_stock_no_score)
{
	/* One card left in the stock and North holds three: North must draw
	 * two and the stock runs out part-way, so the round ends without a
	 * score and a new round is dealt, started by North, who did not start
	 * this one. */
	const char *text = DEFOPTS
	    "round=1 starter=0 turn=0 over=0 winner=-1 score=7:3 dry=0 "
	    "prev=none\n" RNGLINE
	    "stock: 4\n"
	    "c1: A\nc2: -\nc3: -\n"
	    "south payoff: 9 9 7\n"
	    "south hand: 2 5 7 9 9\n" EMPTY_SIDES("south")
	    "north payoff: 8 8 4\n"
	    "north hand: 3 6 10\n"
	    "north s1: REST\nnorth s2: -\nnorth s3: -\nnorth s4: -\n";
	void *st = pos(text);
	char *s;

	play_ok(st, 0, "9 s4");
	s = ser(st);
	has(s, "round=2 starter=1 turn=1 over=0 winner=-1 score=7:3 dry=1 "
	    "prev=dry\n");
	has(s, "c1: -\nc2: -\nc3: -\n");
	has(s, "south s4: -\n");
	free(s);
	check_conserved(st);
	render_has(st, GAME_PUBLIC, "Round 1 ended without a score: the stock "
	    "ran out.\n");
	render_has(st, GAME_PUBLIC, "Stock: 54 cards\n");
	render_has(st, 0, "North (North) to play.\n");
	free(st);

	/* With two cards the draw succeeds and leaves the stock empty: the
	 * round goes on. */
	st = pos(DEFOPTS
	    "round=1 starter=0 turn=0 over=0 winner=-1 score=7:3 dry=0 "
	    "prev=none\n" RNGLINE
	    "stock: 4 J\n"
	    "c1: A\nc2: -\nc3: -\n"
	    "south payoff: 9 9 7\n"
	    "south hand: 2 5 7 9 9\n" EMPTY_SIDES("south")
	    "north payoff: 8 8 4\n"
	    "north hand: 3 6 10\n"
	    "north s1: REST\nnorth s2: -\nnorth s3: -\nnorth s4: -\n");
	play_ok(st, 0, "9 s4");
	s = ser(st);
	has(s, "round=1 starter=0 turn=1 over=0 ");
	has(s, "stock: -\n");
	has(s, "north hand: 3 4 6 10 J\n");
	free(s);
	/* North discards; South holds four and the empty stock ends the
	 * round: the next is started by North again (South started this). */
	play_ok(st, 1, "J s1");
	ser_has(st, "round=2 starter=1 turn=1 over=0 winner=-1 score=7:3 "
	    "dry=1 prev=dry\n");
	free(st);
}
END_TEST

START_TEST(spite_loser_starts_next_round)
{
	/* North started the round; South plays out its payoff pile, scores
	 * North's five payoff cards, and North, the loser, starts the next
	 * round (the same seat that started this one: the rule is the loser,
	 * not the other player). */
	void *st = pos(DEFOPTS
	    "round=3 starter=1 turn=0 over=0 winner=-1 score=10:12 dry=2 "
	    "prev=dry\n" RNGLINE
	    "stock: REST\n"
	    "c1: A 2\nc2: A\nc3: -\n"
	    "south payoff: 2 3\n"
	    "south hand: 4 5 7 9 9\n" EMPTY_SIDES("south")
	    "north payoff: 8 8 4 6 6\n"
	    "north hand: 3 6 10\n" EMPTY_SIDES("north"));
	char *s;

	play_ok(st, 0, "p c1");
	ser_has(st, "south payoff: 2\n");
	render_has(st, 1, "South (South): payoff 1 card, top 2; hand 5 cards");
	play_ok(st, 0, "p c2");
	s = ser(st);
	has(s, "round=4 starter=1 turn=1 over=0 winner=-1 score=15:12 dry=0 "
	    "prev=0:5\n");
	free(s);
	check_conserved(st);
	render_has(st, GAME_PUBLIC, "Round 3 went to South (South), who scored "
	    "5.\n");
	render_has(st, GAME_PUBLIC, "Round 4.  Match score: South 15, North 12 "
	    "(target 50).\n");
	ser_has(st, "south payoff: ");
	free(st);

	/* North started and lost: North starts again. South started and
	 * lost: South starts. */
	st = pos(DEFOPTS
	    "round=1 starter=0 turn=1 over=0 winner=-1 score=0:0 dry=0 "
	    "prev=none\n" RNGLINE
	    "stock: REST\n"
	    "c1: A 2\nc2: -\nc3: -\n"
	    "south payoff: 8 8 4 6 6 J J\n"
	    "south hand: 4 5 7 9 9\n" EMPTY_SIDES("south")
	    "north payoff: 3\n"
	    "north hand: 3 6 10\n" EMPTY_SIDES("north"));
	play_ok(st, 1, "p c1");
	ser_has(st, "round=2 starter=0 turn=0 over=0 winner=-1 score=0:7 "
	    "dry=0 prev=1:7\n");
	free(st);
}
END_TEST

START_TEST(spite_refill_empty_hand)
{
	const char *pre = "round=1 starter=0 turn=0 over=0 winner=-1 "
	    "score=0:0 dry=0 prev=none\n" RNGLINE;
	const char *rest = "stock: REST 5 6 7 8 9 J\n"
	    "c1: A 2\nc2: -\nc3: -\n"
	    "south payoff: 9 9 7\n"
	    "south hand: 3\n"
	    "south s1: 4\nsouth s2: -\nsouth s3: -\nsouth s4: -\n"
	    "north payoff: 8 8 4\n"
	    "north hand: 3 6 10\n" EMPTY_SIDES("north");
	struct buf b = { 0 };
	void *st;
	char *l;

	/* Without the option the emptied hand stays empty: the player may
	 * still play from the side stacks, then ends the turn with `end`. */
	buf_printf(&b, "%s%s%s", OPTS("refill_empty_hand=0 dry_rounds=5"),
	    pre, rest);
	st = pos(buf_str(&b));
	play_err(st, 0, "end", "you still hold 1 card");
	play_ok(st, 0, "3 c1");
	ser_has(st, "south hand: -\n");
	l = legal_text(st, 0);
	ck_assert_str_eq(l, "s1 c1\nend\n");
	free(l);
	play_ok(st, 0, "s1 c1, end");
	/* North draws to five from the top: J, 9. */
	ser_has(st, "north hand: 3 6 9 10 J\n");
	ck_assert_int_eq(ops->to_move(st), 2);
	free(st);

	/* With it, five cards come at once and the turn goes on. */
	buf_reset(&b);
	buf_printf(&b, "%s%s%s", OPTS("refill_empty_hand=1 dry_rounds=5"),
	    pre, rest);
	st = pos(buf_str(&b));
	play_ok(st, 0, "3 c1");
	ser_has(st, "south hand: 6 7 8 9 J\n");
	ck_assert_int_eq(ops->to_move(st), 1);
	play_err(st, 0, "end", "you still hold 5 cards");
	play_ok(st, 0, "s1 c1, 6 s2");
	ck_assert_int_eq(ops->to_move(st), 2);
	free(st);

	/* A refill the stock cannot fill ends the round without a score. */
	buf_reset(&b);
	buf_printf(&b, "%s%s%s", OPTS("refill_empty_hand=1 dry_rounds=5"),
	    pre, "stock: 5 6\n"
	    "c1: A 2\nc2: -\nc3: -\n"
	    "south payoff: 9 9 7\n"
	    "south hand: 3\n"
	    "south s1: REST\nsouth s2: -\nsouth s3: -\nsouth s4: -\n"
	    "north payoff: 8 8 4\n"
	    "north hand: 3 6 10\n" EMPTY_SIDES("north"));
	st = pos(buf_str(&b));
	play_ok(st, 0, "3 c1");
	ser_has(st, "round=2 starter=1 turn=1 over=0 winner=-1 score=0:0 "
	    "dry=1 prev=dry\n");
	check_conserved(st);
	free(st);
	buf_free(&b);
}
END_TEST

START_TEST(spite_line_all_or_nothing)
{
	const char *text = DEFOPTS
	    "round=1 starter=0 turn=0 over=0 winner=-1 score=0:0 dry=0 "
	    "prev=none\n" RNGLINE
	    "stock: REST\n"
	    "c1: -\nc2: A\nc3: -\n"
	    "south payoff: 9 9 A\n"
	    "south hand: 2 5 7 9 9\n"
	    "south s1: -\nsouth s2: -\nsouth s3: 3\nsouth s4: -\n"
	    "north payoff: 8 8 4\n"
	    "north hand: 3 6 10 J J\n" EMPTY_SIDES("north");
	void *st = pos(text);
	char *before = ser(st), err[GAME_ERRLEN];
	int failed;

	/* The third action fails (c2 needs a 2 after the Ace): nothing of
	 * the line is played, and the error names the action and why. */
	ck_assert_int_eq(game_apply_line(ops, st, 0, "p c1, 2 c1, s3 c2, 9 s4",
	    NULL, 0, &failed, err, sizeof(err)), -1);
	ck_assert_int_eq(failed, 2);
	ck_assert_str_eq(err, "move 3 (`s3 c2`): c2 needs a 2 (or a King), "
	    "not a 3");
	ser_has(st, "south payoff: 9 9 A\n");
	{
		char *now = ser(st);

		ck_assert_str_eq(now, before);
		free(now);
	}
	play_err(st, 0, "p c1, 2 c1, x9 c2", "move 3 (`x9 c2`): `x9` is not "
	    "a source");
	play_err(st, 0, "p c1, 4 c1", "you hold no 4 (your hand: 2 5 7 9 9)");
	play_err(st, 0, "p s1", "only a card from your hand goes to a side "
	    "stack");
	play_err(st, 0, "9 c9", "`c9` is not a target: give c1-c3");
	/* Actions apply in order: the same line with s3 aimed at c1 (which
	 * needs a 3 after p and 2) goes through and ends the turn. */
	ck_assert_int_eq(game_apply_line(ops, st, 0,
	    "p c1, 2 c1, s3 c1, 9 s4", NULL, 0, &failed, err, sizeof(err)), 4);
	ser_has(st, "c1: A 2 3\n");
	ser_has(st, "south payoff: 9 9\n");
	ser_has(st, "south s3: -\nsouth s4: 9\n");
	ck_assert_int_eq(ops->to_move(st), 2);
	free(before);
	free(st);
}
END_TEST

START_TEST(spite_notation_variants)
{
	void *st = pos(DEFOPTS
	    "round=1 starter=0 turn=0 over=0 winner=-1 score=0:0 dry=0 "
	    "prev=none\n" RNGLINE
	    "stock: REST\n"
	    "c1: -\nc2: A 2 3 4 5 6 7 8 9\nc3: -\n"
	    "south payoff: 9 9 Q\n"
	    "south hand: A 10 10 J K\n" EMPTY_SIDES("south")
	    "north payoff: 8 8 4\n"
	    "north hand: 3 6 10 J J\n" EMPTY_SIDES("north"));
	struct game_move m;
	char err[GAME_ERRLEN], text[GAME_MOVE_TEXT];

	/* Ace as 1, ten as T, any case, spaces around; new lines separate
	 * actions like commas. */
	ck_assert_int_eq(ops->parse_move(st, 0, "t C2", &m, err,
	    sizeof(err)), 0);
	ops->format_move(st, 0, &m, text, sizeof(text));
	ck_assert_str_eq(text, "10 c2");
	ck_assert_int_eq(ops->parse_move(st, 0, "1 c1", &m, err,
	    sizeof(err)), 0);
	ops->format_move(st, 0, &m, text, sizeof(text));
	ck_assert_str_eq(text, "A c1");
	ck_assert_int_eq(tu_play("spite", st, 0, "  1   C1 \n T c2\nJ C2, "
	    "P c2", err, sizeof(err)), 4);
	ser_has(st, "c1: A\nc2: -\n");
	/* c2 completed with the payoff Queen: 79 + 12 in the stock. */
	render_has(st, 0, "Stock: 91 cards\n");
	play_err(st, 0, "p", "`p` is not an action: give SOURCE TARGET");
	play_err(st, 0, "K c1 c2", "is not an action");
	play_err(st, 0, "s2 c1", "your side stack s2 is empty");
	play_err(st, 0, "10 s5", "`s5` is not a target");
	play_ok(st, 0, "k S3");
	ser_has(st, "south s3: K\n");
	free(st);
}
END_TEST

/*
 * Notation as ludus-games(7) lists it: an action is SOURCE TARGET, two
 * words: p, s1-s4 or a rank (A or 1, 2-10 or T for ten, J, Q, K), then
 * c1-c3 or s1-s4, a letter and one digit; either case; blanks between and
 * around; `end`.  South holds A 10 10 J K; c2 needs a 10.
 */
static const struct tu_notation spite_actions[] = {
	{ "A c1", "A c1" },
	{ "1 c1", "A c1" },
	{ "a C1", "A c1" },
	{ " A   c1 ", "A c1" },
	{ "A\tc1", "A c1" },
	{ "10 c2", "10 c2" },
	{ "T c2", "10 c2" },
	{ "t C2", "10 c2" },
	{ "K c3", "K c3" },
	{ "k C3", "K c3" },
	{ "J s1", "J s1" },
	{ "j S4", "J s4" },
	{ "A c01", NULL },
	{ "A c+1", NULL },
	{ "A c1.", NULL },
	{ "Ac1", NULL },
	{ "01 c1", NULL },
	{ "A c 1", NULL },
	{ "A c4", NULL },
	{ "A c0", NULL },
	{ "ace c1", NULL },
	{ "J s01", NULL },
	{ "J s5", NULL },
	{ "J s1 s2", NULL },
	{ "a1 c1", NULL },
	{ "010 c2", NULL },
	{ "1O c2", NULL },
	{ "A-c1", NULL },
};

START_TEST(spite_notation_table)
{
	void *st = pos(DEFOPTS
	    "round=1 starter=0 turn=0 over=0 winner=-1 score=0:0 dry=0 "
	    "prev=none\n" RNGLINE
	    "stock: REST\n"
	    "c1: -\nc2: A 2 3 4 5 6 7 8 9\nc3: -\n"
	    "south payoff: 9 9 Q\n"
	    "south hand: A 10 10 J K\n" EMPTY_SIDES("south")
	    "north payoff: 8 8 4\n"
	    "north hand: 3 6 10 J J\n" EMPTY_SIDES("north"));

	tu_notation_check("spite", st, 0, spite_actions,
	    nitems(spite_actions));
	free(st);
}
END_TEST

START_TEST(spite_payoff_last_card_scores)
{
	struct game_result r;
	/* South needs 6 more points; North has 7 payoff cards left, so
	 * South's last payoff card wins the match 51-20. */
	void *st = pos(DEFOPTS
	    "round=5 starter=0 turn=0 over=0 winner=-1 score=44:20 dry=0 "
	    "prev=1:3\n" RNGLINE
	    "stock: REST\n"
	    "c1: A 2 3\nc2: -\nc3: -\n"
	    "south payoff: 4\n"
	    "south hand: 2 5 7 9 9\n" EMPTY_SIDES("south")
	    "north payoff: 8 8 4 6 6 J J\n"
	    "north hand: 3 6 10\n" EMPTY_SIDES("north"));

	ops->result(st, &r);
	ck_assert_int_eq(r.over, 0);
	play_ok(st, 0, "p c1");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_int_eq(r.draw, 0);
	ck_assert_uint_eq(r.winners, 1);
	ck_assert_int_eq(r.score[0], 51);
	ck_assert_int_eq(r.score[1], 20);
	ck_assert_str_eq(r.text, "South wins 51-20");
	ck_assert_int_eq(ops->to_move(st), 0);
	ck_assert_int_eq(ops->legal(st, 0, NULL, 0), 0);
	play_err(st, 0, "5 s1", "the match is over");
	ser_has(st, "round=5 starter=0 turn=0 over=1 winner=0 score=51:20 "
	    "dry=0 prev=0:7\n");
	render_has(st, 1, "Round 5 went to South (South), who scored 7.\n");
	render_has(st, 1, "Match over: South wins 51-20.\n");
	check_conserved(st);
	free(st);
}
END_TEST

START_TEST(spite_dry_rounds_draw)
{
	struct game_result r;
	struct buf b = { 0 };
	const char *tail = "score=30:12 dry=4 prev=dry\n" RNGLINE
	    "stock: -\n"
	    "c1: A\nc2: -\nc3: -\n"
	    "south payoff: 9 9 7\n"
	    "south hand: 2 5 7 9 9\n" EMPTY_SIDES("south")
	    "north payoff: 8 8 4\n"
	    "north hand: 3 6 10\n"
	    "north s1: REST\nnorth s2: -\nnorth s3: -\nnorth s4: -\n";
	void *st;

	/* The fifth scoreless round in a row ends the match as a draw,
	 * whatever the score. */
	buf_printf(&b, "%sround=9 starter=0 turn=0 over=0 winner=-1 %s",
	    DEFOPTS, tail);
	st = pos(buf_str(&b));
	play_ok(st, 0, "9 s4");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 1);
	ck_assert_int_eq(r.draw, 1);
	ck_assert_uint_eq(r.winners, 0);
	ck_assert_str_eq(r.text, "draw after 5 rounds in a row without a "
	    "score, 30-12");
	ck_assert_int_eq(ops->to_move(st), 0);
	free(st);

	/* dry_rounds=0: never; the next round is dealt. */
	buf_reset(&b);
	buf_printf(&b, "%sround=9 starter=0 turn=0 over=0 winner=-1 %s",
	    OPTS("refill_empty_hand=0 dry_rounds=0"), tail);
	st = pos(buf_str(&b));
	play_ok(st, 0, "9 s4");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 0);
	ser_has(st, "round=10 starter=1 turn=1 over=0 winner=-1 score=30:12 "
	    "dry=5 prev=dry\n");
	free(st);

	/* dry_rounds=6 and four so far: the match goes on. */
	buf_reset(&b);
	buf_printf(&b, "%sround=9 starter=1 turn=0 over=0 winner=-1 %s",
	    OPTS("refill_empty_hand=0 dry_rounds=6"), tail);
	st = pos(buf_str(&b));
	play_ok(st, 0, "9 s4");
	ser_has(st, "round=10 starter=0 turn=0 over=0 winner=-1 score=30:12 "
	    "dry=5 prev=dry\n");
	free(st);
	buf_free(&b);
}
END_TEST

/* The last card of a pile line of a serialised state. */
static int
top_of(const char *s, const char *name)
{
	const char *p = strstr(s, name), *eol, *sp;
	char tok[8];

	ck_assert_ptr_nonnull(p);
	eol = strchr(p, '\n');
	for (sp = eol; sp[-1] != ' '; sp--)
		;
	ck_assert_int_lt(eol - sp, (int)sizeof(tok));
	memcpy(tok, sp, (size_t)(eol - sp));
	tok[eol - sp] = '\0';
	return rank_of(tok);
}

START_TEST(spite_first_round_higher_payoff_starts)
{
	int seed, ties[2] = { 0, 0 }, higher = 0;

	for (seed = 0; seed < 400; seed++) {
		void *st = tu_new("spite", "", (uint64_t)seed, 2);
		char *s = ser(st);
		int a = top_of(s, "south payoff:"), b = top_of(s,
		    "north payoff:"), starter;

		ck_assert_int_ne(a, 0);
		ck_assert_int_ne(b, 0);
		ck_assert_ptr_nonnull(strstr(s, "round=1 starter="));
		starter = strstr(s, "round=1 starter=1 turn=1 ") ? 1 : 0;
		if (!starter)
			has(s, "round=1 starter=0 turn=0 ");
		if (a != b) {
			ck_assert_int_eq(starter, a > b ? 0 : 1);
			higher++;
		} else
			ties[starter]++;
		free(s);
		free(st);
	}
	/* Ties (about one deal in thirteen) go either way. */
	ck_assert_int_gt(ties[0], 0);
	ck_assert_int_gt(ties[1], 0);
	ck_assert_int_gt(higher, 300);
}
END_TEST

START_TEST(spite_render_hides_hands_and_stock)
{
	void *st = pos(DEFOPTS
	    "round=1 starter=0 turn=0 over=0 winner=-1 score=0:0 dry=0 "
	    "prev=none\n" RNGLINE
	    "stock: REST\n"
	    "c1: -\nc2: A 2\nc3: -\n"
	    "south payoff: 9 9 7\n"
	    "south hand: 2 5 7 K K\n"
	    "south s1: 3 Q\nsouth s2: -\nsouth s3: -\nsouth s4: -\n"
	    "north payoff: 8 8 4\n"
	    "north hand: 3 3 6 10 J\n" EMPTY_SIDES("north"));
	struct game_view v = { .viewer = 1, .names = { "alice", "bob" } };
	struct buf b = { 0 };

	ops->render(st, &v, &b);
	ck_assert_str_eq(buf_str(&b),
	    "Round 1.  Match score: alice 0, bob 0 (target 50).\n"
	    "\n"
	    "alice (South): payoff 3 cards, top 7; hand 5 cards\n"
	    "  s1: 3 Q\n  s2: -\n  s3: -\n  s4: -\n"
	    "\n"
	    "Centre:\n"
	    "  c1: -  (needs A)\n"
	    "  c2: A 2  (needs 3)\n"
	    "  c3: -  (needs A)\n"
	    "Stock: 84 cards\n"
	    "\n"
	    "bob (North), you: payoff 3 cards, top 4; hand 5 cards\n"
	    "  s1: -\n  s2: -\n  s3: -\n  s4: -\n"
	    "Your hand: 3 3 6 10 J\n"
	    "\n"
	    "alice (South) to play.\n");
	buf_free(&b);
	render_has(st, GAME_PUBLIC, "South (South): payoff 3 cards, top 7; "
	    "hand 5 cards\n");
	{
		char *pub = render(st, GAME_PUBLIC);

		ck_assert_ptr_null(strstr(pub, "Your hand"));
		free(pub);
	}
	free(st);
}
END_TEST

START_TEST(spite_definition_and_json)
{
	const struct gamedef *d = tu_def("spite");
	void *st = pos(DEFOPTS
	    "round=1 starter=0 turn=0 over=0 winner=-1 score=0:0 dry=0 "
	    "prev=none\n" RNGLINE
	    "stock: REST 4 Q\n"
	    "c1: -\nc2: A K\nc3: -\n"
	    "south payoff: 9 9 7\n"
	    "south hand: 2 5 7 K K\n" EMPTY_SIDES("south")
	    "north payoff: 8 8 4\n"
	    "north hand: 3 3 6 10 J\n" EMPTY_SIDES("north"));
	struct buf b = { 0 };

	ck_assert_str_eq(d->name, "spite");
	ck_assert_int_eq(d->seats, 2);
	ck_assert_ptr_eq(tu_def("spite-and-malice"), d);
	ck_assert_ptr_eq(tu_def("Cat-and-Mouse"), d);
	ck_assert_ptr_eq(tu_def("злоба"), d);
	ck_assert_ptr_eq(game_find("spite"), ops);
	ck_assert_str_eq(ops->title, "Spite & Malice");
	/* The export has everything, hidden cards included. */
	ops->export_json(st, &b);
	has(buf_str(&b), "{\"game\":\"spite\",\"options\":{\"payoff\":20,"
	    "\"hand\":5,\"centre\":3,\"target\":50,"
	    "\"refill_empty_hand\":false,\"dry_rounds\":5},\"round\":1,"
	    "\"starter\":\"South\",\"to_move\":\"South\",\"over\":false,"
	    "\"winner\":null,\"score\":[0,0]");
	has(buf_str(&b), "\"4\",\"Q\"],\"centre\":[[],[\"A\",\"K\"],[]],"
	    "\"seats\":[{\"seat\":\"South\",\"payoff\":[\"9\",\"9\",\"7\"],"
	    "\"hand\":[\"2\",\"5\",\"7\",\"K\",\"K\"],");
	has(buf_str(&b), "\"hand\":[\"3\",\"3\",\"6\",\"10\",\"J\"],"
	    "\"side\":[[],[],[],[]]}],\"rng\":\"000102");
	buf_free(&b);
	free(st);
}
END_TEST

/*
 * Hidden information: a copy of the state in which every card the viewer
 * cannot see (the opponent's hand and the stock, or both hands for the
 * public) is dealt again at random, and the rng is changed.  The viewer's
 * rendering and move list must be the same for both.
 */
static void *
rehide(const void *st, int viewer, struct rng *r)
{
	char *s = ser(st), *p, err[GAME_ERRLEN];
	const char *hidden[3];
	int nh = 0, i, k;
	uint8_t pool[104];
	int npool = 0;
	struct buf out = { 0 };
	void *copy;

	hidden[nh++] = "stock:";
	if (viewer != 0)
		hidden[nh++] = "south hand:";
	if (viewer != 1)
		hidden[nh++] = "north hand:";
	/* Gather the hidden cards. */
	for (i = 0; i < nh; i++) {
		char *l = strstr(s, hidden[i]), *eol = strchr(l, '\n');
		char *t = l + strlen(hidden[i]);

		while (t < eol) {
			size_t n;
			char tok[8];

			while (*t == ' ')
				t++;
			n = strcspn(t, " \n");
			memcpy(tok, t, n);
			tok[n] = '\0';
			if (strcmp(tok, "-") != 0)
				pool[npool++] = (uint8_t)rank_of(tok);
			t += n;
		}
	}
	rng_shuffle(r, pool, (size_t)npool, 1);
	/* Write the text back with the pool dealt into the same counts. */
	k = 0;
	for (p = s; *p; ) {
		char *eol = strchr(p, '\n');
		int h = -1;

		for (i = 0; i < nh; i++)
			if (strncmp(p, hidden[i], strlen(hidden[i])) == 0)
				h = i;
		if (strncmp(p, "rng ", 4) == 0) {
			unsigned char seed[RNG_SEED_LEN];
			struct rng other;
			char txt[RNG_TEXT_LEN];

			rng_seed_from_u64(seed, rng_u32(r));
			rng_init(&other, seed);
			rng_format(&other, txt);
			buf_printf(&out, "rng %s\n", txt);
		} else if (h >= 0) {
			int cnt = 0;
			char *t = p + strlen(hidden[h]);

			for (; t < eol; t++)
				if (*t == ' ' && t[1] != '-')
					cnt++;
			buf_adds(&out, hidden[h]);
			if (cnt == 0)
				buf_adds(&out, " -");
			while (cnt-- > 0)
				buf_printf(&out, " %s", ranks[pool[k++]]);
			buf_addc(&out, '\n');
		} else
			buf_add(&out, p, (size_t)(eol - p + 1));
		p = eol + 1;
	}
	REQUIRE((k) == (npool));
	copy = xcalloc(1, ops->state_size);
	if (ops->parse_state(copy, buf_str(&out), err, sizeof(err)) == -1)
		ck_abort_msg("%s", err);
	buf_free(&out);
	free(s);
	return copy;
}

static int hidden_checks;

static void
check_hidden(const void *st, struct rng *r)
{
	int viewer;

	for (viewer = -1; viewer < 2; viewer++) {
		void *other = rehide(st, viewer, r);
		char *a = render(st, viewer), *b = render(other, viewer);

		REQUIRE_STR_EQ(a, b);
		free(a);
		free(b);
		if (viewer >= 0) {
			a = legal_text(st, viewer);
			b = legal_text(other, viewer);
			REQUIRE_STR_EQ(a, b);
			free(a);
			free(b);
		}
		free(other);
		hidden_checks++;
	}
}

/* Pick an action: the greedy player takes a payoff move when it can and
 * otherwise builds on the centre three times in ten; the other plays
 * uniformly at random. */
static int
pick(const void *st, int seat, const struct game_move *m, int n, int greedy,
    struct rng *r)
{
	char text[GAME_MOVE_TEXT];
	int i, centre[GAME_MAX_MOVES], nc = 0;

	if (!greedy)
		return (int)rng_below(r, (uint32_t)n);
	for (i = 0; i < n; i++) {
		ops->format_move(st, seat, &m[i], text, sizeof(text));
		if (text[0] == 'p')
			return i;
		if (text[strlen(text) - 2] == 'c')
			centre[nc++] = i;
	}
	if (nc > 0 && rng_below(r, 10) < 3)
		return centre[rng_below(r, (uint32_t)nc)];
	return (int)rng_below(r, (uint32_t)n);
}

/*
 * 5,000 random matches over the variants: cards conserved at every step,
 * exactly one seat to move, every match ends, the final score agrees with
 * the result.  About one action in 300, drawn at random in every match, is
 * followed by the hidden-information check for both seats and the public
 * (check_engines holds every engine to the rest: text round trips, replay,
 * the shortcuts, no allocation).
 */
START_TEST(spite_random_matches)
{
	/* Options and policy per match, chosen so that matches stay short
	 * enough for 5,000 of them under the sanitizers while every option
	 * and both ways a match ends come up often. */
	static const struct {
		const char *opts;
		int greedy;
	} variants[] = {
		{ "", 0 },
		{ "", 1 },
		{ "payoff=5 target=5", 1 },
		{ "refill_empty_hand=true payoff=4 target=4", 1 },
		{ "centre=1 hand=3 payoff=3 target=3", 1 },
		{ "hand=10 centre=6 target=30 dry_rounds=2", 1 },
		{ "payoff=30 dry_rounds=1", 1 },
		{ "payoff=2 target=2 dry_rounds=0", 1 },
		{ "payoff=3 target=6 dry_rounds=3", 0 },
		{ "refill_empty_hand=true dry_rounds=2", 0 },
	};
	struct game_move moves[GAME_MAX_MOVES], *log = NULL;
	struct game_result r;
	struct rng rng;
	unsigned char seed[RNG_SEED_LEN];
	int match, nscored = 0, ndrawn = 0, longest = 0, maxlog = 0;
	long steps = 0;
	clock_t t0 = clock();

	rng_seed_from_u64(seed, 5);
	rng_init(&rng, seed);
	for (match = 0; match < 5000; match++) {
		const char *opts = variants[match % nitems(variants)].opts;
		void *st = tu_new("spite", opts, (uint64_t)match + 1000, 2);
		struct game_opts o;
		int nlog = 0, seat, n, greedy = variants[match % nitems(variants)].greedy;
		int prev_score[2] = { 0, 0 };

		tu_opts("spite", opts, &o);
		for (;;) {
			uint32_t mask = ops->to_move(st);

			ops->result(st, &r);
			if (r.over) {
				REQUIRE((mask) == (0));
				break;
			}
			REQUIRE(mask == 1 || mask == 2);
			/* Scores only grow, and never past target plus a
			 * payoff pile. */
			REQUIRE((r.score[0]) >= (prev_score[0]));
			REQUIRE((r.score[1]) >= (prev_score[1]));
			REQUIRE((r.score[0]) < (game_opt_int(&o, "target")));
			REQUIRE((r.score[1]) < (game_opt_int(&o, "target")));
			prev_score[0] = r.score[0];
			prev_score[1] = r.score[1];
			seat = mask == 1 ? 0 : 1;
			n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			REQUIRE((n) > (0));
			REQUIRE((ops->legal(st, !seat, moves + n,
			    GAME_MAX_MOVES - n)) == (0));
			if (nlog == maxlog) {
				maxlog = maxlog ? 2 * maxlog : 4096;
				log = xreallocarray(log, (size_t)maxlog,
				    sizeof(*log));
			}
			REQUIRE((nlog) < (200000));
			log[nlog] = moves[pick(st, seat, moves, n, greedy, &rng)];
			ops->apply(st, seat, &log[nlog++]);
			check_conserved(st);
			if (rng_below(&rng, 300) == 0)
				check_hidden(st, &rng);
		}
		steps += nlog;
		if (nlog > longest)
			longest = nlog;
		/* The result agrees with the score: a winner has reached
		 * target and leads; a draw came from the scoreless rounds. */
		if (r.draw) {
			REQUIRE((r.winners) == (0));
			REQUIRE((game_opt_int(&o, "dry_rounds")) > (0));
			REQUIRE((r.score[0]) < (game_opt_int(&o, "target")));
			REQUIRE((r.score[1]) < (game_opt_int(&o, "target")));
			ndrawn++;
		} else {
			int w = r.winners == 1 ? 0 : 1;

			ck_assert_msg(r.winners == 1 || r.winners == 2, "%u",
			    r.winners);
			REQUIRE((r.score[w]) >= (game_opt_int(&o, "target")));
			REQUIRE((r.score[!w]) < (game_opt_int(&o, "target")));
			REQUIRE((r.score[w] - prev_score[w]) >= (1));
			REQUIRE((r.score[w] - prev_score[w]) <= (game_opt_int(&o, "payoff")));
			nscored++;
		}

		free(st);
	}
	free(log);
	fprintf(stderr, "spite: 5000 matches, %ld actions (longest match "
	    "%d), %d won, %d drawn, %d hidden-information checks, %.1f s\n",
	    steps, longest, nscored, ndrawn, hidden_checks,
	    (double)(clock() - t0) / CLOCKS_PER_SEC);
	REQUIRE((nscored) > (1000));
	REQUIRE((ndrawn) > (0));
}
END_TEST

static Suite *
spite_suite(void)
{
	Suite *s = suite_create("spite");
	TCase *tc = tcase_create("rules");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, spite_perft, 0, 3);
	tcase_add_test(tc, spite_king_wild_on_empty_is_ace);
	tcase_add_test(tc, spite_queen_completes_and_recycles);
	tcase_add_test(tc, spite_discard_ends_turn);
	tcase_add_test(tc, spite_empty_stock_no_score);
	tcase_add_test(tc, spite_loser_starts_next_round);
	tcase_add_test(tc, spite_refill_empty_hand);
	tcase_add_test(tc, spite_line_all_or_nothing);
	tcase_add_test(tc, spite_notation_variants);
	tcase_add_test(tc, spite_notation_table);
	tcase_add_test(tc, spite_payoff_last_card_scores);
	tcase_add_test(tc, spite_dry_rounds_draw);
	tcase_add_test(tc, spite_first_round_higher_payoff_starts);
	tcase_add_test(tc, spite_render_hides_hands_and_stock);
	tcase_add_test(tc, spite_definition_and_json);
	tcase_add_test(tc, spite_random_matches);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(spite_suite());
}
