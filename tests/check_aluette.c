/* Aluette: the ranking, one hand-worked position per rule, signals,
 * perft, random games with invariants and hidden-information checks. */
#include "config.h"

#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "games/aluette.h"

static const struct game_ops *ops;

static void
setup(void)
{
	ops = tu_def("aluette")->ops;
}

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

static char *
render(const void *st, int viewer)
{
	struct game_view v = { .viewer = viewer,
		.names = { "alice", "bob", "carol", "dave" } };
	struct buf b = { 0 };

	ops->render(st, &v, &b);
	return buf_steal(&b);
}

static void
play_ok(void *st, int seat, const char *line)
{
	char err[GAME_ERRLEN];

	ck_assert_msg(tu_play("aluette", st, seat, line, err, sizeof(err)) > 0,
	    "%s: %s", line, err);
}

static void
play_fails(void *st, int seat, const char *line, const char *want)
{
	char err[GAME_ERRLEN], *before = ser(st), *after;

	ck_assert_int_eq(tu_play("aluette", st, seat, line, err, sizeof(err)),
	    -1);
	if (want != NULL)
		ck_assert_str_eq(err, want);
	after = ser(st);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
}

/* The serialised line that starts with key (a copy; free it). */
static char *
line_of(const void *st, const char *key)
{
	char *s = ser(st), *p = s, *end, *out = NULL;
	size_t k = strlen(key);

	while (p && *p) {
		end = strchr(p, '\n');
		if (strncmp(p, key, k) == 0 && (p[k] == ' ' || p[k] == '\n')) {
			out = xstrndup(p, end ? (size_t)(end - p) : strlen(p));
			break;
		}
		p = end ? end + 1 : NULL;
	}
	free(s);
	ck_assert_msg(out != NULL, "no line %s", key);
	return out;
}

static void
assert_line(const void *st, const char *key, const char *want)
{
	char *got = line_of(st, key);

	ck_assert_str_eq(got, want);
	free(got);
}

static int
only_seat(uint32_t mask)
{
	int s;

	for (s = 0; s < 4; s++)
		if (mask == 1u << s)
			return s;
	return -1;
}

/*
 * The ranking of rules.md, written out again here (not taken from the
 * engine): one string per class, high to low; cards in one class tie.
 */
static const char *const ranking[] = {
	"3co", "3cu", "2co", "2cu", "9cu", "9co", "2cl", "2sw",
	"1co 1cu 1sw 1cl", "Kco Kcu Ksw Kcl", "Cco Ccu Csw Ccl",
	"Jco Jcu Jsw Jcl", "9sw 9cl", "8co 8cu 8sw 8cl", "7co 7cu 7sw 7cl",
	"6co 6cu 6sw 6cl", "5co 5cu 5sw 5cl", "4co 4cu 4sw 4cl", "3sw 3cl",
};

/* The class (0 = highest) of a card in notation, -1 if unknown. */
static int
rank_class(const char *card)
{
	size_t i;
	const char *p;

	for (i = 0; i < nitems(ranking); i++)
		for (p = ranking[i]; (p = strcasestr(p, card)) != NULL; p++)
			if ((p == ranking[i] || p[-1] == ' ') &&
			    (p[3] == ' ' || p[3] == '\0'))
				return (int)i;
	return -1;
}

/* All 48 cards in notation. */
static void
all_cards(char cards[48][4])
{
	static const char *const suits[] = { "co", "cu", "sw", "cl" };
	static const char ranks[] = "123456789JCK";
	int s, r;

	for (s = 0; s < 4; s++)
		for (r = 0; r < 12; r++)
			snprintf(cards[s * 12 + r], 4, "%c%s", ranks[r],
			    suits[s]);
}

START_TEST(aluette_ranking_order)
{
	char cards[48][4], text[1024], rest[48][4], seatline[4][200];
	int x, y, i, n, k, s, cx, cy, nclass = 0;

	all_cards(cards);
	for (i = 0; i < 48; i++) {
		ck_assert_int_ge(rank_class(cards[i]), 0);
		nclass += rank_class(cards[i]) == 18;
	}
	ck_assert_int_eq(nclass, 2);
	/*
	 * Seat 0 leads x, seat 1 plays y, seat 2 plays 3sw and seat 3 plays
	 * 3cl, the two lowest cards: x or y wins, or they tie and spoil.
	 * Every pair of the other 46 cards, both ways round.
	 */
	for (x = 0; x < 48; x++)
		for (y = 0; y < 48; y++) {
			void *st;
			char *last;

			if (x == y || rank_class(cards[x]) == 18 ||
			    rank_class(cards[y]) == 18)
				continue;
			n = 0;
			for (i = 0; i < 48; i++)
				if (i != x && i != y &&
				    rank_class(cards[i]) != 18)
					memcpy(rest[n++], cards[i], 4);
			/* 44 left: seat 3 holds 3cl and 8, the others 8,
			 * the stock 12. */
			k = 0;
			for (s = 0; s < 4; s++) {
				int len = snprintf(seatline[s],
				    sizeof(seatline[s]), "seat %d hand%s", s,
				    s == 3 ? " 3cl" : "");

				for (i = 0; i < 8; i++)
					len += snprintf(seatline[s] + len,
					    sizeof(seatline[s]) - (size_t)len,
					    " %s", rest[k++]);
			}
			i = snprintf(text, sizeof(text),
			    "aluette teams=fixed changer=0 mordienne=0 "
			    "signals=partner\nhand 1 dealer 3 phase play "
			    "asked 0\nhistory\n%s\n%s\n%s\n%s\ntrick 0 %s %s "
			    "3sw\nstock", seatline[0], seatline[1],
			    seatline[2], seatline[3], cards[x], cards[y]);
			for (; k < 44; k++)
				i += snprintf(text + i,
				    sizeof(text) - (size_t)i, " %s", rest[k]);
			snprintf(text + i, sizeof(text) - (size_t)i,
			    "\nplayed -\nlast -\n");
			st = pos(text);
			play_ok(st, 3, "3cl");
			cx = rank_class(cards[x]);
			cy = rank_class(cards[y]);
			last = line_of(st, "last");
			snprintf(text, sizeof(text), "last 1 0 %s %s %s 3sw "
			    "3cl", cx == cy ? "-" : cx < cy ? "0" : "1",
			    cards[x], cards[y]);
			ck_assert_str_eq(last, text);
			/* The winner leads; a spoiled trick: seat 0 again. */
			ck_assert_int_eq(only_seat(ops->to_move(st)),
			    cx == cy ? 0 : cx < cy ? 0 : 1);
			free(last);
			free(st);
		}
}
END_TEST

/*
 * A position written by hand: teams fixed, table South 0, West 1, North 2,
 * East 3; seat 3 dealt, so seat 0 led trick 1 (4co Kco 5co 6co, won by
 * seat 1 with the king).  Trick 2: seat 1 led 1co, seat 2 played Kcu,
 * seat 3 1sw; seat 0 to play.
 */
static const char tie_pos[] =
    "aluette teams=fixed changer=0 mordienne=0 signals=partner\n"
    "table 0 1 2 3\n"
    "first_dealer 3\n"
    "hand 1 dealer 3 phase play asked 0\n"
    "points 0 0\n"
    "history\n"
    "seat 0 hand 5cl 7co 8co 9sw Jco Cco 2cl 3sw\n"
    "seat 1 hand 7cu 8cu Jcu Ccu 4cu 5cu 6cu\n"
    "seat 1 won 1\n"
    "seat 2 hand 7sw 8sw Jsw Csw Ksw 4sw 5sw\n"
    "seat 3 hand 7cl 8cl Jcl Ccl Kcl 4cl 6cl\n"
    "stock 3co 3cu 2co 2cu 9cu 9co 2sw 1cu 1cl 9cl 6sw 3cl\n"
    "trick 1 1co Kcu 1sw\n"
    "played 4co Kco 5co 6co\n"
    "last 1 0 1 4co Kco 5co 6co\n"
    "signals -\n";

START_TEST(aluette_tie_spoils_trick_same_leader)
{
	void *st = pos(tie_pos);

	ck_assert_int_eq(only_seat(ops->to_move(st)), 0);
	/* 5cl: the two aces tie for highest: spoiled, nobody wins it. */
	play_ok(st, 0, "5cl");
	assert_line(st, "last", "last 1 1 - 1co Kcu 1sw 5cl");
	assert_line(st, "seat 1 won", "seat 1 won 1");
	assert_line(st, "seat 3 won", "seat 3 won -");
	assert_line(st, "seat 0 won", "seat 0 won -");
	/* The same leader leads again; nobody else may. */
	ck_assert_int_eq(only_seat(ops->to_move(st)), 1);
	play_fails(st, 2, "7sw", "it is West's turn, not North's");
	free(st);

	/* 2cl instead beats both aces: seat 0 wins and leads. */
	st = pos(tie_pos);
	play_ok(st, 0, "2cl");
	assert_line(st, "last", "last 1 1 0 1co Kcu 1sw 2cl");
	assert_line(st, "seat 0 won", "seat 0 won 2");
	ck_assert_int_eq(only_seat(ops->to_move(st)), 0);
	free(st);

	/* A tie below the highest card spoils nothing: seat 1's ace wins
	 * over the two fours. */
	st = pos("aluette teams=fixed changer=0 mordienne=0 signals=partner\n"
	    "hand 1 dealer 3 phase play asked 0\n"
	    "history\n"
	    "seat 0 hand 4cl 7co 8co 9sw Jco Cco 2cl 3sw\n"
	    "seat 1 hand 7cu 8cu Jcu Ccu 5cl 5cu 6cu\n"
	    "seat 1 won 1\n"
	    "seat 2 hand 7sw 8sw Jsw Csw Ksw 1sw 5sw\n"
	    "seat 3 hand 7cl 8cl Jcl Ccl Kcl 6cl Kcu\n"
	    "stock 3co 3cu 2co 2cu 9cu 9co 2sw 1cu 1cl 9cl 6sw 3cl\n"
	    "trick 1 1co 4cu 4sw\n"
	    "played 4co Kco 5co 6co\n"
	    "last 1 0 1 4co Kco 5co 6co\n");
	ck_assert_int_eq(only_seat(ops->to_move(st)), 0);
	play_ok(st, 0, "4cl");
	assert_line(st, "last", "last 1 1 1 1co 4cu 4sw 4cl");
	assert_line(st, "seat 1 won", "seat 1 won 1 2");
	free(st);
}
END_TEST

/* Eight tricks played; the last trick lacks seat 0's card or seat 3's.
 * Trick 8 was spoiled (its cards, in play order from its leader, are
 * the four sevens).  Every other card not named is in the played tricks. */
START_TEST(aluette_most_tricks_first_reached_wins)
{
	struct game_result r;
	/* Seat 0 won 1, 2, 5 (its third at trick 5); seat 1 won 3, 4, 7
	 * (third at trick 7); seat 2 won 6.  Trick 9, led by seat 1 (the
	 * winner of trick 7, since 8 was spoiled): 4cu, 1sw, 5cl, and seat
	 * 0 plays 6cl: seat 2 wins it.  Seats 0 and 1 end on three each;
	 * seat 0 reached three first: North-South score. */
	void *st = pos("aluette teams=fixed changer=0 mordienne=0 "
	    "signals=partner\n"
	    "hand 1 dealer 3 phase play asked 0\n"
	    "history\n"
	    "seat 0 hand 6cl\n"
	    "seat 0 won 1 2 5\n"
	    "seat 1 won 3 4 7\n"
	    "seat 2 won 6\n"
	    "trick 1 4cu 1sw 5cl\n"
	    "stock 3co 3cu 2co 2cu 9cu 9co 2sw 1cu 1cl 9cl 6sw 3cl\n"
	    "last 1 1 - 7cu 7sw 7cl 7co\n");

	play_ok(st, 0, "6cl");
	ops->result(st, &r);
	ck_assert_int_eq(r.over, 0);
	ck_assert_int_eq(r.score[0], 1);
	ck_assert_int_eq(r.score[2], 1);
	ck_assert_int_eq(r.score[1], 0);
	ck_assert_int_eq(r.score[3], 0);
	assert_line(st, "history", "history 0:3:1");
	assert_line(st, "points", "points 1 0");
	free(st);

	/* Seat 0 won 1, 2, 7 and seat 1 won 3, 4, 5: seat 0 won a trick
	 * first but seat 1 reached three first (at trick 5): East-West. */
	st = pos("aluette teams=fixed changer=0 mordienne=0 "
	    "signals=partner\n"
	    "hand 1 dealer 3 phase play asked 0\n"
	    "history\n"
	    "seat 3 hand 6cl\n"
	    "seat 0 won 1 2 7\n"
	    "seat 1 won 3 4 5\n"
	    "seat 2 won 6\n"
	    "trick 0 4cu 5cl 1sw\n"
	    "stock 3co 3cu 2co 2cu 9cu 9co 2sw 1cu 1cl 9cl 6sw 3cl\n"
	    "last 1 0 - 7co 7cu 7sw 7cl\n");
	play_ok(st, 3, "6cl");
	ops->result(st, &r);
	ck_assert_int_eq(r.score[0], 0);
	ck_assert_int_eq(r.score[1], 1);
	ck_assert_int_eq(r.score[3], 1);
	assert_line(st, "history", "history 1:3:1");
	free(st);

	/* Most tricks beats reaching a number first: seat 1 leads 1sw and
	 * wins trick 9, four tricks to seat 0's three. */
	st = pos("aluette teams=fixed changer=0 mordienne=0 "
	    "signals=partner\n"
	    "hand 1 dealer 3 phase play asked 0\n"
	    "history\n"
	    "seat 0 hand 6cl\n"
	    "seat 0 won 1 2 5\n"
	    "seat 1 won 3 4 7\n"
	    "seat 2 won 6\n"
	    "trick 1 1sw 4cu 5cl\n"
	    "stock 3co 3cu 2co 2cu 9cu 9co 2sw 1cu 1cl 9cl 6sw 3cl\n"
	    "last 1 1 - 7cu 7sw 7cl 7co\n");
	play_ok(st, 0, "6cl");
	assert_line(st, "history", "history 1:4:1");
	assert_line(st, "points", "points 0 1");
	free(st);
}
END_TEST

/* Seat 3 won tricks 5-8, leads trick 9 with Monsieur and wins it. */
static const char mordienne_pos[] =
    "aluette teams=fixed changer=0 mordienne=%d signals=partner\n"
    "hand 1 dealer 3 phase play asked 0\n"
    "history\n"
    "seat 2 hand 6cl\n"
    "seat 0 won %s\n"
    "seat 1 won %s\n"
    "seat 2 won %s\n"
    "seat 3 won %s\n"
    "trick 3 3co 4cu 5cl\n"
    "stock 3cu 2co 2cu 9cu 9co 2sw 1cu 1cl 9cl 6sw 3cl 1co\n"
    "last 1 %d 3 %s\n";

/* Trick 8 is led by the winner of trick 7 (seat 3, or seat 2 where seat 2
 * won it); seat 3 wins trick 8 in every case. */
static void
mordienne_case(int option, const char *w0, const char *w1, const char *w2,
    const char *w3, const char *history)
{
	char text[1024];
	void *st;
	int lead = strchr(w2, '7') ? 2 : 3;

	snprintf(text, sizeof(text), mordienne_pos, option, w0, w1, w2, w3,
	    lead, lead == 2 ? "7sw 7cl 7co 7cu" : "7cl 7co 7cu 7sw");
	st = pos(text);
	play_ok(st, 2, "6cl");
	assert_line(st, "history", history);
	free(st);
}

START_TEST(aluette_mordienne_two_points)
{
	/* Tricks 5-9 and none before: k = 5, two points with the option. */
	mordienne_case(1, "1 2", "3", "4", "5 6 7 8", "history 3:5:2");
	mordienne_case(0, "1 2", "3", "4", "5 6 7 8", "history 3:5:1");
	/* A spoiled trick before the run does not break it: tricks 6-9
	 * with trick 5 spoiled. */
	mordienne_case(1, "1 2", "3", "4", "6 7 8", "history 3:4:2");
	/* Trick 2-9: k = 2, the longest mordienne. */
	mordienne_case(1, "1", "-", "-", "2 3 4 5 6 7 8", "history 3:8:2");
	/* All nine is k = 1: not a mordienne. */
	mordienne_case(1, "-", "-", "-", "1 2 3 4 5 6 7 8",
	    "history 3:9:1");
	/* A gap in the run (trick 7 to seat 2): one point. */
	mordienne_case(1, "1 2", "3", "7", "4 5 6 8", "history 3:5:1");
	/* The winner must be the one with the run: seat 3 takes only
	 * tricks 8 and 9 while seat 0 won three: seat 0's one point. */
	mordienne_case(1, "1 2 3", "4 5", "6 7", "8", "history 0:3:1");
}
END_TEST

START_TEST(aluette_all_spoiled_scores_nothing)
{
	/* Eight spoiled tricks, so seat 0 (eldest) led them all; trick 9:
	 * 1co, 1cu, 5cl and seat 3's 6cl: the aces tie, spoiled too. */
	static const char text[] =
	    "aluette teams=fixed changer=0 mordienne=1 signals=partner\n"
	    "hand 1 dealer 3 phase play asked 0\n"
	    "history\n"
	    "seat 3 hand %s\n"
	    "trick 0 1co 1cu 5cl\n"
	    "stock 3co 3cu 2co Kcu 9cu 9co 2sw 1sw 1cl 9cl 6sw 3cl\n"
	    "last 1 0 - 7co 7cu 7sw 7cl\n";
	struct game_result r;
	char buf[1024];
	void *st;

	snprintf(buf, sizeof(buf), text, "6cl");
	st = pos(buf);
	play_ok(st, 3, "6cl");
	assert_line(st, "history", "history -");
	assert_line(st, "points", "points 0 0");
	ops->result(st, &r);
	ck_assert_int_eq(r.score[0] + r.score[1], 0);
	/* Hand 2 is dealt by the next dealer all the same. */
	assert_line(st, "hand", "hand 2 dealer 0 phase play asked 0");
	free(st);

	/* Kcl does not beat the aces: spoiled too... */
	snprintf(buf, sizeof(buf), text, "Kcl");
	st = pos(buf);
	play_ok(st, 3, "Kcl");
	assert_line(st, "history", "history -");
	free(st);
	/* ...while 2cu (Vache) beats them: seat 3 wins the one trick won
	 * in the hand, so the hand.  Tricks 9..9 and none before is a
	 * mordienne by the rule (k = 9): two points for East-West. */
	snprintf(buf, sizeof(buf), text, "2cu");
	st = pos(buf);
	play_ok(st, 3, "vache");
	assert_line(st, "history", "history 3:1:2");
	assert_line(st, "points", "points 0 2");
	free(st);
}
END_TEST

static const char changer_pos[] =
    "aluette teams=fixed changer=1 mordienne=0 signals=partner\n"
    "hand 1 dealer 3 phase ask asked 0\n"
    "history\n"
    "seat 0 hand 1co 2co 3co 4co 5co 6co 7co 8co 9co\n"
    "seat 1 hand Jco Cco Kco 1cu 2cu 3cu 4cu 5cu 6cu\n"
    "seat 2 hand 7cu 8cu 9cu Jcu Ccu Kcu 1sw 2sw 3sw\n"
    "seat 3 hand 4sw 5sw 6sw 7sw 8sw 9sw Jsw Csw Ksw\n"
    "stock 1cl 2cl 3cl 4cl 5cl 6cl 7cl 8cl 9cl Jcl Ccl Kcl\n"
    "trick 0 -\n"
    "played -\n"
    "last -\n";

START_TEST(aluette_changer_needs_all_four)
{
	void *st = pos(changer_pos);
	char *s, *r1;

	/* Asked in table order from eldest (seat 0, left of dealer 3). */
	ck_assert_int_eq(only_seat(ops->to_move(st)), 0);
	play_fails(st, 1, "change", "it is South's turn to answer change "
	    "or nochange, not West's");
	play_fails(st, 0, "3co", "first the changer round: South answers "
	    "`change` or `nochange`");
	play_ok(st, 0, "change");
	play_ok(st, 1, "change");
	play_ok(st, 2, "change");
	ck_assert_int_eq(only_seat(ops->to_move(st)), 3);
	/* The dealer says no: nothing changes hands; eldest leads. */
	play_ok(st, 3, "nochange");
	assert_line(st, "stock", "stock 1cl 2cl 3cl 4cl 5cl 6cl 7cl 8cl 9cl "
	    "Jcl Ccl Kcl");
	assert_line(st, "seat 0 hand", "seat 0 hand 3co 2co 9co 1co 8co 7co "
	    "6co 5co 4co");
	ck_assert_int_eq(only_seat(ops->to_move(st)), 0);
	play_fails(st, 0, "change", "nobody is asked to change now");
	play_ok(st, 0, "3co");
	free(st);

	/* The first `nochange` ends the asking at once. */
	st = pos(changer_pos);
	play_ok(st, 0, "no change");
	assert_line(st, "hand", "hand 1 dealer 3 phase play asked 0");
	ck_assert_int_eq(only_seat(ops->to_move(st)), 0);
	free(st);

	/* All four agree: eldest takes the first six of the stock, the
	 * dealer the last six; both discard back to nine, in any order. */
	st = pos(changer_pos);
	play_ok(st, 0, "change");
	play_ok(st, 1, "change");
	play_ok(st, 2, "change");
	play_ok(st, 3, "change");
	assert_line(st, "stock", "stock -");
	assert_line(st, "seat 0 hand", "seat 0 hand 3co 2co 9co 2cl 1co 1cl "
	    "8co 7co 6co 6cl 5co 5cl 4co 4cl 3cl");
	assert_line(st, "seat 3 hand", "seat 3 hand Ksw Kcl Csw Ccl Jsw Jcl "
	    "9sw 9cl 8sw 8cl 7sw 7cl 6sw 5sw 4sw");
	ck_assert_uint_eq(ops->to_move(st), (1u << 0) | (1u << 3));
	play_fails(st, 1, "discard Jco", "you have nothing to discard");
	play_fails(st, 0, "play 4co", "first the discards: `discard CARD`");
	play_ok(st, 3, "discard 5sw, 6sw, 7sw");
	play_ok(st, 0, "discard 4co, 4cl, 3cl, 5co, 5cl, 6co");
	ck_assert_uint_eq(ops->to_move(st), 1u << 3);
	/* Bare cards are discards while discarding. */
	play_ok(st, 3, "7cl, 8cl");
	/* Discards are hidden from the other seats and from the public. */
	s = render(st, 1);
	ck_assert_ptr_null(strstr(s, "5sw"));
	ck_assert_ptr_null(strstr(s, "4cl"));
	ck_assert_ptr_nonnull(strstr(s, "to discard: alice 0, dave 1.\n"));
	free(s);
	r1 = render(st, GAME_PUBLIC);
	ck_assert_ptr_null(strstr(r1, "5sw"));
	free(r1);
	play_ok(st, 3, "discard 8sw");
	assert_line(st, "seat 3 discards", "seat 3 discards 5sw 6sw 7sw 8sw "
	    "7cl 8cl");
	assert_line(st, "hand", "hand 1 dealer 3 phase play asked 4");
	ck_assert_int_eq(only_seat(ops->to_move(st)), 0);
	play_ok(st, 0, "play 3co");
	free(st);
}
END_TEST

/*
 * rules.md: the two changers discard independently, in either order or
 * interleaved, neither waiting for the other, and perft counts both
 * changers' discards at every node until both hold 9.  After the change
 * eldest and dealer hold 15 cards each: 30 discards at the first node,
 * then 29 (whoever discarded holds 14), then 28: 30, 870, 24360.  One
 * changer done does not hold up the other, and the one done is no longer
 * to move.
 */
START_TEST(aluette_changer_discards_independent)
{
	void *st = pos(changer_pos);

	play_ok(st, 0, "change");
	play_ok(st, 1, "change");
	play_ok(st, 2, "change");
	play_ok(st, 3, "change");
	ck_assert_uint_eq(ops->to_move(st), (1u << 0) | (1u << 3));
	ck_assert_uint_eq(game_perft(ops, st, 1), 30);
	ck_assert_uint_eq(game_perft(ops, st, 2), 870);
	ck_assert_uint_eq(game_perft(ops, st, 3), 24360);
	/* Interleaved: the dealer one, eldest two, the dealer again. */
	play_ok(st, 3, "discard 4sw");
	play_ok(st, 0, "discard 4co, 4cl");
	play_ok(st, 3, "discard 5sw");
	ck_assert_uint_eq(ops->to_move(st), (1u << 0) | (1u << 3));
	ck_assert_uint_eq(game_perft(ops, st, 1), 13 + 13);
	/* Eldest finishes first: only the dealer is to move, and only the
	 * dealer's discards count. */
	play_ok(st, 0, "discard 3cl, 5co, 5cl, 6co");
	ck_assert_uint_eq(ops->to_move(st), 1u << 3);
	ck_assert_uint_eq(game_perft(ops, st, 1), 13);
	ck_assert_uint_eq(game_perft(ops, st, 2), 13 * 12);
	play_ok(st, 3, "discard 6sw, 7sw, 7cl, 8cl");
	assert_line(st, "hand", "hand 1 dealer 3 phase play asked 4");
	ck_assert_uint_eq(ops->to_move(st), 1u << 0);
	free(st);
}
END_TEST

/*
 * Notation as ludus-games(7) lists it: a card is its rank (1-9, J, C, K;
 * A for an ace) and suit (co, cu, sw, cl), three characters in either
 * case, or the name of one of the eight named cards, where case, blanks,
 * hyphens, apostrophes and the accents of é and ê do not matter; `play`
 * may come before it; `signal NAME` with the same freedom in the name;
 * `change`, `nochange` (`no change`, `no-change`); `discard CARD` or the
 * card alone while discarding.  Seat 0 leads, holding 3co 1co 9cu 2sw
 * 2cl Kcl 9sw 4co 5co.
 */
static const char notation_pos[] =
    "aluette teams=fixed changer=0 mordienne=0 signals=partner\n"
    "hand 1 dealer 3 phase play asked 0\n"
    "history\n"
    "seat 0 hand 3co 1co 9cu 2sw 2cl Kcl 9sw 4co 5co\n"
    "seat 1 hand 6co 7co 8co 9co Jco Cco Kco 2co 3cu\n"
    "seat 2 hand 1cu 2cu 4cu 5cu 6cu 7cu 8cu Jcu Ccu\n"
    "seat 3 hand Kcu 1sw 3sw 4sw 5sw 6sw 7sw 8sw Jsw\n"
    "stock Csw Ksw 1cl 3cl 4cl 5cl 6cl 7cl 8cl 9cl Jcl Ccl\n"
    "trick 0 -\n"
    "played -\n"
    "last -\n";

static const struct tu_notation aluette_cards[] = {
	{ "3co", "3co" },
	{ "3CO", "3co" },
	{ "3Co", "3co" },
	{ "play 3co", "3co" },
	{ "PLAY 3co", "3co" },
	{ "Play  3co", "3co" },
	{ "monsieur", "3co" },
	{ "MONSIEUR", "3co" },
	{ "play Monsieur", "3co" },
	{ "mon sieur", "3co" },
	{ "1co", "1co" },
	{ "Aco", "1co" },
	{ "aCO", "1co" },
	{ "grand-neuf", "9cu" },
	{ "Grand neuf", "9cu" },
	{ "GRAND-NEUF", "9cu" },
	{ "grandneuf", "9cu" },
	{ "deux-decrit", "2sw" },
	{ "Deux d'\xc3\xa9" "crit", "2sw" },
	{ "deux d\xe2\x80\x99\xc3\xa9" "crit", "2sw" },
	{ "DEUX D'\xc3\x89" "CRIT", "2sw" },
	{ "Deux de ch\xc3\xaa" "ne", "2cl" },
	{ "deux-de-chene", "2cl" },
	{ "kcl", "Kcl" },
	{ "9SW", "9sw" },
	{ "3 co", NULL },
	{ "3-co", NULL },
	{ "3co.", NULL },
	{ "3co!", NULL },
	{ "03co", NULL },
	{ "10co", NULL },
	{ "3c", NULL },
	{ "3coo", NULL },
	{ "co3", NULL },
	{ "3cp", NULL },
	{ "3 of coins", NULL },
	{ "monsieur!", NULL },
	{ "grand_neuf", NULL },
	{ "deux d`ecrit", NULL },
	{ "play", NULL },
	{ "play3co", NULL },
	{ "play 3co 1co", NULL },
	{ "3co 1co", NULL },
	{ "signal aces-2", "signal aces-2" },
	{ "signal aces 2", "signal aces-2" },
	{ "SIGNAL ACES-2", "signal aces-2" },
	{ "signal aces2", "signal aces-2" },
	{ "signal Deux d'\xc3\xa9" "crit", "signal deux-decrit" },
	{ "signal useless", "signal useless" },
	{ "signal aces_2", NULL },
	{ "signal aces-5", NULL },
	{ "signal", NULL },
	{ "signal aces-2 now", NULL },
	{ "signal: aces-2", NULL },
};
static const struct tu_notation aluette_answers[] = {
	{ "change", "change" },
	{ "CHANGE", "change" },
	{ "nochange", "nochange" },
	{ "no change", "nochange" },
	{ "no-change", "nochange" },
	{ "No Change", "nochange" },
	{ "NOCHANGE", "nochange" },
	{ "chang", NULL },
	{ "change now", NULL },
	{ "nochange!", NULL },
	{ "no_change", NULL },
	{ "nochange 3co", NULL },
};
static const struct tu_notation aluette_discards[] = {
	{ "discard 4co", "discard 4co" },
	{ "4co", "discard 4co" },
	{ "DISCARD 4CO", "discard 4co" },
	{ "discard", NULL },
	{ "discard 4 co", NULL },
	{ "discard4co", NULL },
	{ "play 4co", NULL },
};

START_TEST(aluette_notation_table)
{
	void *st = pos(notation_pos);

	tu_notation_check("aluette", st, 0, aluette_cards,
	    nitems(aluette_cards));
	free(st);
	st = pos(changer_pos);
	tu_notation_check("aluette", st, 0, aluette_answers,
	    nitems(aluette_answers));
	play_ok(st, 0, "change");
	play_ok(st, 1, "change");
	play_ok(st, 2, "change");
	play_ok(st, 3, "change");
	tu_notation_check("aluette", st, 0, aluette_discards,
	    nitems(aluette_discards));
	free(st);
}
END_TEST

/* The rules.md face-up deal, recomputed here independently: recipients in
 * the given order, a player with a top card gets no more. */
static void
faceup_expect(const char *faceup, int table[4], int *dealer)
{
	char *copy = xstrdup(faceup), *tok, *save = NULL;
	int seat = 0, have[4] = { 0 }, top[4] = { -1, -1, -1, -1 }, t, k,
	    partner0 = -1, other = -1;

	tok = strtok_r(copy, " ", &save);	/* "faceup" */
	while ((tok = strtok_r(NULL, " ", &save)) != NULL) {
		while (have[seat])
			seat = (seat + 1) % 4;
		t = rank_class(tok);
		if (t < 4) {
			ck_assert_int_eq(top[t], -1);
			top[t] = seat;
			have[seat] = 1;
		}
		seat = (seat + 1) % 4;
	}
	free(copy);
	for (t = 0; t < 4; t++)
		ck_assert_int_ge(top[t], 0);
	/* Monsieur with Madame, Borgne with Vache. */
	for (t = 0; t < 4; t++)
		if (top[t] == 0)
			partner0 = top[t < 2 ? 1 - t : 5 - t];
	table[0] = 0;
	table[2] = partner0;
	for (k = 1; k < 4; k++)
		if (k != partner0) {
			if (other == -1)
				table[1] = other = k;
			else
				table[3] = k;
		}
	*dealer = top[1];
}

START_TEST(aluette_partners_from_top_cards)
{
	/* Face up: seat 0 5co, 1 3cu (Madame: no more for seat 1), 2 7sw,
	 * 3 2cu (Vache), 0 8cl, 2 4co, 0 3co (Monsieur), 2 9sw, 2 2co
	 * (Borgne).  Monsieur (0) and Madame (1) are partners against
	 * Borgne (2) and Vache (3); the table is 0, 2 (the earlier named of
	 * the others), 1 (0's partner), 3; Madame's holder, seat 1, deals. */
	void *st = pos("aluette teams=faceup changer=0 mordienne=0 "
	    "signals=partner\n"
	    "faceup 5co 3cu 7sw 2cu 8cl 4co 3co 9sw 2co\n"
	    "hand 1 dealer 1 phase play asked 0\n"
	    "history\n"
	    "seat 0 hand 1co 2co 3co 4co 5co 6co 7co 8co 9co\n"
	    "seat 1 hand Jco Cco Kco 1cu 2cu 3cu 4cu 5cu 6cu\n"
	    "seat 2 hand 7cu 8cu 9cu Jcu Ccu Kcu 1sw 2sw 3sw\n"
	    "seat 3 hand 4sw 5sw 6sw 7sw 8sw 9sw Jsw Csw Ksw\n"
	    "stock 1cl 2cl 3cl 4cl 5cl 6cl 7cl 8cl 9cl Jcl Ccl Kcl\n"
	    "trick 3 -\n");
	char *s, buf[64];
	int seed, table[4], dealer, i;

	assert_line(st, "table", "table 0 2 1 3");
	assert_line(st, "first_dealer", "first_dealer 1");
	ck_assert_str_eq(ops->seat_name(st, 0), "South");
	ck_assert_str_eq(ops->seat_name(st, 2), "West");
	ck_assert_str_eq(ops->seat_name(st, 1), "North");
	ck_assert_str_eq(ops->seat_name(st, 3), "East");
	/* Eldest, left of the dealer (North), is East: seat 3 leads. */
	ck_assert_int_eq(only_seat(ops->to_move(st)), 3);
	s = render(st, 0);
	ck_assert_ptr_nonnull(strstr(s, "Face-up deal: alice 5co 8cl 3co; "
	    "bob 3cu; carol 7sw 4co 9sw 2co; dave\n  2cu.\nFace-up deal "
	    "result: Monsieur alice, Madame bob, Borgne carol, Vache\n"
	    "  dave; bob deals first.\n"));
	ck_assert_ptr_nonnull(strstr(s, "Table: alice (South), carol (West), "
	    "bob (North), dave (East); dealer\n  bob, eldest dave.\n"));
	free(s);
	free(st);

	/* A table that contradicts the face-up deal is refused. */
	st = xcalloc(1, ops->state_size);
	ck_assert_int_eq(ops->parse_state(st, "aluette teams=faceup "
	    "changer=0 mordienne=0 signals=partner\n"
	    "faceup 5co 3cu 7sw 2cu 8cl 4co 3co 9sw 2co\n"
	    "table 0 1 2 3\n"
	    "hand 1 dealer 1 phase play asked 0\n", buf, sizeof(buf)), -1);
	free(st);

	/* Deals from the seed: the table and dealer follow the rule. */
	for (seed = 1; seed <= 300; seed++) {
		char *fu, *tab, *fd, want[64];

		st = tu_new("aluette", "", (uint64_t)seed, 4);
		fu = line_of(st, "faceup");
		faceup_expect(fu, table, &dealer);
		snprintf(want, sizeof(want), "table %d %d %d %d", table[0],
		    table[1], table[2], table[3]);
		tab = line_of(st, "table");
		ck_assert_str_eq(tab, want);
		snprintf(want, sizeof(want), "first_dealer %d", dealer);
		fd = line_of(st, "first_dealer");
		ck_assert_str_eq(fd, want);
		for (i = 0; i < 4; i++)
			if (table[i] == dealer)
				break;
		ck_assert_int_eq(only_seat(ops->to_move(st)),
		    table[(i + 1) % 4]);
		free(fu);
		free(tab);
		free(fd);
		free(st);
	}

	/* teams=fixed: 1st and 3rd against 2nd and 4th, no face-up deal. */
	st = tu_new("aluette", "teams=fixed", 7, 4);
	assert_line(st, "table", "table 0 1 2 3");
	assert_line(st, "faceup", "faceup -");
	free(st);
}
END_TEST

/* Play random cards to the end of the game; note who deals and who leads
 * each hand. */
START_TEST(aluette_dealer_passes_left)
{
	struct game_move moves[GAME_MAX_MOVES];
	struct rng rng;
	unsigned char seed[RNG_SEED_LEN];
	int game, plays, table[4], first[5], dealers[5], h, i, dealer;

	rng_seed_from_u64(seed, 99);
	rng_init(&rng, seed);
	for (game = 0; game < 50; game++) {
		void *st = tu_new("aluette", game % 2 ? "teams=fixed" : "",
		    (uint64_t)game + 1000, 4);
		char *tab = line_of(st, "table"), *fd = line_of(st,
		    "first_dealer");

		ck_assert_int_eq(sscanf(tab, "table %d %d %d %d", &table[0],
		    &table[1], &table[2], &table[3]), 4);
		ck_assert_int_eq(sscanf(fd, "first_dealer %d", &dealer), 1);
		for (plays = 0; ops->to_move(st) != 0; plays++) {
			int s = only_seat(ops->to_move(st)), n;

			if (plays % 36 == 0) {
				char *hl = line_of(st, "hand");

				first[plays / 36] = s;
				ck_assert_int_eq(sscanf(hl, "hand %*d dealer %d",
				    &dealers[plays / 36]), 1);
				free(hl);
			}
			n = ops->legal(st, s, moves, GAME_MAX_MOVES);
			ops->apply(st, s, &moves[rng_below(&rng,
			    (uint32_t)n)]);
		}
		ck_assert_int_eq(plays, 180);
		/* Hand h is dealt by the player h places left of the first
		 * dealer, and the player on that dealer's left leads. */
		for (i = 0; table[i] != dealer; i++)
			;
		for (h = 0; h < 5; h++) {
			ck_assert_int_eq(dealers[h], table[(i + h) % 4]);
			ck_assert_int_eq(first[h], table[(i + h + 1) % 4]);
		}
		free(tab);
		free(fd);
		free(st);
	}
}
END_TEST

/* The deal, redone here from the same seed with the same generator (with
 * teams=fixed it first draws the dealer, then shuffles): three cards at a
 * time from the dealer's left, the last twelve undealt in order. */
START_TEST(aluette_deal_three_at_a_time)
{
	static const char *const suits[] = { "co", "cu", "sw", "cl" };
	static const char ranks[] = "123456789JCK";
	unsigned char seed[RNG_SEED_LEN];
	struct rng rng;
	uint8_t deck[48];
	char stock[80], key[64], c[4], *got;
	int dealer, i, k, round, p, seat, want_seat[48];
	void *st = tu_new("aluette", "teams=fixed", 5, 4);

	rng_seed_from_u64(seed, 5);
	rng_init(&rng, seed);
	dealer = (int)rng_below(&rng, 4);
	for (i = 0; i < 48; i++)
		deck[i] = (uint8_t)i;
	rng_shuffle(&rng, deck, 48, 1);
	i = 0;
	for (round = 0; round < 3; round++)
		for (p = 1; p <= 4; p++)
			for (k = 0; k < 3; k++)
				want_seat[deck[i++]] = (dealer + p) % 4;
	for (; i < 48; i++)
		want_seat[deck[i]] = -1;

	snprintf(key, sizeof(key), "hand 1 dealer %d phase play asked 0",
	    dealer);
	assert_line(st, "hand", key);
	/* The hands are shown sorted by rank: compare them as sets. */
	for (seat = 0; seat < 4; seat++) {
		snprintf(key, sizeof(key), "seat %d hand", seat);
		got = line_of(st, key);
		for (k = 0; k < 48; k++) {
			snprintf(c, sizeof(c), "%c%s", ranks[k % 12],
			    suits[k / 12]);
			ck_assert_msg((strstr(got, c) != NULL) ==
			    (want_seat[k] == seat), "%s in %s", c, got);
		}
		free(got);
	}
	util_strlcpy(stock, "stock", sizeof(stock));
	for (i = 36; i < 48; i++) {
		snprintf(c, sizeof(c), "%c%s", ranks[deck[i] % 12],
		    suits[deck[i] / 12]);
		strcat(stock, " ");
		strcat(stock, c);
	}
	assert_line(st, "stock", stock);
	free(st);
}
END_TEST

START_TEST(aluette_signal_does_not_pass_turn)
{
	void *st = tu_new("aluette", "", 3, 4);
	struct buf before = { 0 }, after = { 0 };
	struct game_move m;
	char err[GAME_ERRLEN], text[GAME_MOVE_TEXT];
	int s = only_seat(ops->to_move(st)), other = (s + 1) % 4;
	uint64_t p2 = game_perft(ops, st, 2);

	game_legal_text(ops, st, s, &before);
	play_ok(st, s, "signal madame");
	ck_assert_int_eq(only_seat(ops->to_move(st)), s);
	game_legal_text(ops, st, s, &after);
	ck_assert_str_eq(buf_str(&before), buf_str(&after));
	ck_assert_uint_eq(game_perft(ops, st, 2), p2);
	/* Out of turn too: the seat not to move signals, and still may
	 * not play. */
	play_ok(st, other, "signal aces-2");
	play_ok(st, other, "SIGNAL Deux d'écrit");
	ck_assert_int_eq(only_seat(ops->to_move(st)), s);
	ck_assert_int_eq(ops->legal(st, other, &m, 1), 0);
	ck_assert_int_eq(ops->parse_move(st, other, "signal useless", &m, err,
	    sizeof(err)), 0);
	ops->format_move(st, other, &m, text, sizeof(text));
	ck_assert_str_eq(text, "signal useless");
	/* A signal and a card in one line. */
	buf_reset(&before);
	game_legal_text(ops, st, s, &before);
	ck_assert_int_eq(tu_play("aluette", st, s, "signal mordienne, "
	    "signal aces-1", err, sizeof(err)), 2);
	ck_assert_int_eq(only_seat(ops->to_move(st)), s);
	play_fails(st, s, "signal aces-5", NULL);
	play_fails(st, s, "signal", NULL);
	snprintf(text, sizeof(text), "signals %d:0:madame %d:0:aces-2 "
	    "%d:0:deux-decrit %d:0:mordienne %d:0:aces-1", s, other, other, s,
	    s);
	assert_line(st, "signals", text);
	buf_free(&before);
	buf_free(&after);
	free(st);
}
END_TEST

START_TEST(aluette_signals_off_refused)
{
	void *st = tu_new("aluette", "signals=off", 3, 4);
	int s = only_seat(ops->to_move(st));

	play_fails(st, s, "signal madame", "signals are off in this game "
	    "(signals=off)");
	play_fails(st, (s + 2) % 4, "signal useless", "signals are off in "
	    "this game (signals=off)");
	assert_line(st, "signals", "signals -");
	free(st);
}
END_TEST

START_TEST(aluette_signal_partner_only)
{
	/* teams=fixed: the table is 0 1 2 3, seat 0's partner is seat 2. */
	void *st = tu_new("aluette", "teams=fixed", 3, 4);
	char *r[5];
	int v, i;

	/* Seat 0 (South) signals; North (seat 2) is the partner. */
	play_ok(st, 0, "signal grand-neuf");
	for (v = 0; v < 4; v++)
		r[v] = render(st, v);
	r[4] = render(st, GAME_PUBLIC);
	ck_assert_ptr_nonnull(strstr(r[2],
	    "Signals this hand: alice after 0 tricks: grand-neuf.\n"));
	ck_assert_ptr_nonnull(strstr(r[0], "grand-neuf"));
	ck_assert_ptr_null(strstr(r[1], "Signals"));
	ck_assert_ptr_null(strstr(r[3], "Signals"));
	ck_assert_ptr_null(strstr(r[4], "Signals"));
	ck_assert_ptr_null(strstr(r[1], "grand-neuf"));
	for (i = 0; i < 5; i++)
		free(r[i]);
	free(st);

	/* signals=table: all four and the public. */
	st = tu_new("aluette", "teams=fixed signals=table", 3, 4);
	play_ok(st, 1, "signal useless");
	for (v = 0; v < 4; v++) {
		r[v] = render(st, v);
		ck_assert_ptr_nonnull(strstr(r[v],
		    "Signals this hand: bob after 0 tricks: useless.\n"));
		free(r[v]);
	}
	r[4] = render(st, GAME_PUBLIC);
	ck_assert_ptr_nonnull(strstr(r[4], "bob after 0 tricks: useless"));
	free(r[4]);
	free(st);
}
END_TEST

START_TEST(aluette_notation_and_errors)
{
	void *st = pos(tie_pos);
	struct game_move m;
	char err[GAME_ERRLEN], text[GAME_MOVE_TEXT];
	static const char *const same[] = { "2cl", "2CL", "play 2cl",
		"Play  2Cl", "deux-de-chene", "Deux de chêne",
		"DEUX-DE-CHENE" };
	size_t i;

	for (i = 0; i < nitems(same); i++) {
		ck_assert_msg(ops->parse_move(st, 0, same[i], &m, err,
		    sizeof(err)) == 0, "%s: %s", same[i], err);
		ops->format_move(st, 0, &m, text, sizeof(text));
		ck_assert_str_eq(text, "2cl");
	}
	ck_assert_int_eq(ops->parse_move(st, 0, "0co", &m, err, sizeof(err)),
	    -1);
	/* Aces may be written A as well as 1. */
	play_fails(st, 0, "Asw", "you do not hold 1sw (your hand: 2cl Cco "
	    "Jco 9sw 8co 7co 5cl 3sw)");
	play_fails(st, 0, "1sw", "you do not hold 1sw (your hand: 2cl Cco "
	    "Jco 9sw 8co 7co 5cl 3sw)");
	play_fails(st, 0, "monsieur", "you do not hold 3co (your hand: 2cl "
	    "Cco Jco 9sw 8co 7co 5cl 3sw)");
	play_fails(st, 0, "xyz", "`xyz` is not a card: write rank and suit "
	    "(3co, Kcl, Jsw, 1cu; suits co cu sw cl) or a name (monsieur, "
	    "madame, borgne, vache, grand-neuf, petit-neuf, deux-de-chene, "
	    "deux-decrit)");
	play_fails(st, 1, "7cu", "it is South's turn, not West's");
	play_fails(st, 0, "discard 2cl", "the changer is over: play a card");
	/* The legal moves: the seat's hand, strongest first. */
	{
		struct buf b = { 0 };

		game_legal_text(ops, st, 0, &b);
		ck_assert_str_eq(buf_str(&b), "2cl\nCco\nJco\n9sw\n8co\n7co\n"
		    "5cl\n3sw\n");
		buf_reset(&b);
		game_legal_text(ops, st, 1, &b);
		ck_assert_str_eq(buf_str(&b), "");
		buf_free(&b);
	}
	free(st);
}
END_TEST

/* The seat view the manual shows. */
START_TEST(aluette_render_seat_view)
{
	void *st = pos(tie_pos);
	char *s, *p;

	play_ok(st, 2, "signal aces-1");
	s = render(st, 0);
	ck_assert_str_eq(s,
	    "Aluette, hand 1 of 5, trick 2 of 9.  Points: North-South 0, "
	    "East-West 0.\n"
	    "Table: alice (South), bob (West), carol (North), dave (East); "
	    "dealer\n  dave, eldest alice.\n"
	    "Tricks this hand: alice 0, bob 1, carol 0, dave 0, spoiled 0.\n"
	    "Last trick: alice 4co, bob Kco, carol 5co, dave 6co: bob won.\n"
	    "On the table: bob led 1co, carol played Kcu, dave played 1sw.\n"
	    "Signals this hand: carol after 1 trick: aces-1.\n"
	    "Your hand: 2cl, Cco, Jco, 9sw, 8co, 7co, 5cl, 3sw.\n"
	    "Ranks, high to low: 3co 3cu 2co 2cu 9cu 9co 2cl 2sw, 1, K, C, J,"
	    "\n  9sw=9cl, 8, 7, 6, 5, 4, 3sw=3cl.\n"
	    "alice to play.\n");
	free(s);
	/* The public view: no hand, no partnership signal. */
	s = render(st, GAME_PUBLIC);
	ck_assert_ptr_null(strstr(s, "Your hand"));
	ck_assert_ptr_null(strstr(s, "Signals"));
	p = strstr(s, "alice to play.\n");
	ck_assert_ptr_nonnull(p);
	free(s);
	free(st);
}
END_TEST

/* Perft counts only card plays (and changer answers and discards): any
 * held card may be played, so the counts depend on hand sizes, not on
 * the deal.  Depths 1-2 by reasoning (9 leads; 9 x 9), changer 2 (change,
 * nochange) and 11 (change: 2 answers; nochange: eldest's 9 leads); all
 * depths checked against a separate model of the move structure written
 * in Python (hand sizes and phases only), not part of the tree. */
static const uint64_t perft_default[] = { 9, 81, 729, 6561, 52488 };
static const uint64_t perft_changer[] = { 2, 11, 92, 821, 7410, 60729 };

static void
check_perft(const char *opts, uint64_t seed, const uint64_t *want, int depth)
{
	void *st = tu_new("aluette", opts, seed, 4);
	int d;

	for (d = 1; d <= depth; d++)
		ck_assert_msg(game_perft(ops, st, d) == want[d - 1],
		    "%s seed %llu depth %d: got %llu want %llu", opts,
		    (unsigned long long)seed, d,
		    (unsigned long long)game_perft(ops, st, d),
		    (unsigned long long)want[d - 1]);
	free(st);
}

START_TEST(aluette_perft_seeds)
{
	static const uint64_t seeds[] = { 1, 2, 3 };
	size_t i;

	for (i = 0; i < nitems(seeds); i++) {
		check_perft("", seeds[i], perft_default, 4);
		check_perft("teams=fixed", seeds[i], perft_default, 4);
		check_perft("changer=true", seeds[i], perft_changer, 4);
	}
	check_perft("", 1, perft_default, 5);
	check_perft("changer=true", 2, perft_changer, 6);
}
END_TEST

/* The last trick of the game ends it: one leaf, not expanded; the last
 * trick of hand 4 goes on into hand 5's fresh nine cards. */
START_TEST(aluette_perft_game_end_is_leaf)
{
	static const char text[] =
	    "aluette teams=fixed changer=0 mordienne=0 signals=partner\n"
	    "hand %d dealer 3 phase play asked 0\n"
	    "points %s\n"
	    "history %s\n"
	    "seat 0 hand 1co\n"
	    "seat 1 hand 1cu\n"
	    "seat 2 hand 1sw\n"
	    "seat 3 hand 1cl\n"
	    "stock 3co 3cu 2co 2cu 9cu 9co 2sw 2cl 6cl 9cl 6sw 3cl\n"
	    "trick 0 -\n"
	    "last %d 0 - 7co 7cu 7sw 7cl\n";
	char buf[1024];
	void *st;

	snprintf(buf, sizeof(buf), text, 5, "2 1", "0:3:1 1:4:1 - 2:2:1", 5);
	st = pos(buf);
	ck_assert_uint_eq(game_perft(ops, st, 3), 1);
	ck_assert_uint_eq(game_perft(ops, st, 4), 1);
	ck_assert_uint_eq(game_perft(ops, st, 8), 1);
	play_ok(st, 0, "1co");
	play_ok(st, 1, "1cu");
	play_ok(st, 2, "1sw");
	play_ok(st, 3, "1cl");
	ck_assert_uint_eq(ops->to_move(st), 0);
	free(st);

	snprintf(buf, sizeof(buf), text, 4, "1 1", "0:3:1 1:4:1 -", 4);
	st = pos(buf);
	ck_assert_uint_eq(game_perft(ops, st, 4), 1);
	ck_assert_uint_eq(game_perft(ops, st, 5), 9);
	ck_assert_uint_eq(game_perft(ops, st, 6), 81);
	free(st);
}
END_TEST

/* Brackets and braces balance outside strings. */
static int
json_balanced(const char *s)
{
	int depth = 0, instr = 0;

	for (; *s; s++) {
		if (instr) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				instr = 0;
			continue;
		}
		if (*s == '"')
			instr = 1;
		else if (*s == '{' || *s == '[')
			depth++;
		else if ((*s == '}' || *s == ']') && --depth < 0)
			return 0;
	}
	return depth == 0 && !instr;
}

START_TEST(aluette_export_json_has_everything)
{
	void *st = pos(tie_pos);
	struct buf b = { 0 };

	play_ok(st, 2, "signal useless");
	ops->export_json(st, &b);
	ck_assert(json_balanced(buf_str(&b)));
	/* Every hand and the stock, hidden as they are from the seats. */
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "{\"seat\":0,\"name\":"
	    "\"South\",\"partner\":2,\"hand\":[\"2cl\",\"Cco\",\"Jco\","
	    "\"9sw\",\"8co\",\"7co\",\"5cl\",\"3sw\"],\"discards\":[],"
	    "\"won\":[]}"));
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "\"won\":[1]}"));
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "\"stock\":[\"3co\","
	    "\"3cu\",\"2co\",\"2cu\",\"9cu\",\"9co\",\"2sw\",\"1cu\","
	    "\"1cl\",\"9cl\",\"6sw\",\"3cl\"]"));
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "\"trick\":{\"leader\":1,"
	    "\"cards\":[\"1co\",\"Kcu\",\"1sw\"]}"));
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "\"signals\":[{\"seat\":2,"
	    "\"tricks\":1,\"signal\":\"useless\"}]"));
	ck_assert_ptr_nonnull(strstr(buf_str(&b), "\"to_move\":[0]"));
	buf_free(&b);
	free(st);
}
END_TEST

START_TEST(aluette_parse_state_refuses_the_impossible)
{
	static const char *const bad[] = {
		/* a card twice */
		"aluette teams=fixed changer=0 mordienne=0 signals=partner\n"
		"hand 1 dealer 3 phase play asked 0\nhistory\n"
		"seat 0 hand 1co 1co\n",
		/* hands of the wrong size */
		"aluette teams=fixed changer=0 mordienne=0 signals=partner\n"
		"hand 1 dealer 3 phase play asked 0\nhistory\n"
		"seat 0 hand 1co\n",
		/* points without history */
		"aluette teams=fixed changer=0 mordienne=0 signals=partner\n"
		"hand 1 dealer 3 phase play asked 0\npoints 1 0\nhistory\n",
		/* unknown line */
		"aluette teams=fixed changer=0 mordienne=0 signals=partner\n"
		"hand 1 dealer 3 phase play asked 0\nhistory\nfoo\n",
		/* a changer round without the option */
		"aluette teams=fixed changer=0 mordienne=0 signals=partner\n"
		"hand 1 dealer 3 phase ask asked 0\nhistory\n",
		"",
	};
	char err[GAME_ERRLEN];
	void *st = xcalloc(1, ops->state_size);
	size_t i;

	for (i = 0; i < nitems(bad); i++)
		ck_assert_msg(ops->parse_state(st, bad[i], err, sizeof(err))
		    == -1, "accepted: %s", bad[i]);
	free(st);
}
END_TEST

/* Random games.  Check records every passing ck_assert (a write each), too
 * slow in loops of millions: these only report failures. */
#define require(cond, ...) do {						\
	if (!(cond))							\
		ck_abort_msg(__VA_ARGS__);				\
} while (0)

static const char *const card_names[48] = {
	[2] = "monsieur", [14] = "madame", [1] = "borgne", [13] = "vache",
	[20] = "grand-neuf", [8] = "petit-neuf", [37] = "deux-de-chene",
	[25] = "deux-decrit",
};

/* The index of a card in all_cards() order, -1 if text is no card. */
static int
card_index(char cards[48][4], const char *text)
{
	static const char *const suits[] = { "co", "cu", "sw", "cl" };
	const char *r;
	int s;

	if (text[0] == '\0' || strlen(text) != 3 ||
	    (r = strchr("123456789JCK", toupper((unsigned char)text[0]))) ==
	    NULL)
		return -1;
	for (s = 0; s < 4; s++)
		if (strcasecmp(text + 1, suits[s]) == 0)
			break;
	if (s == 4)
		return -1;
	s = s * 12 + (int)(r - "123456789JCK");
	return strcasecmp(cards[s], text) == 0 ? s : -1;
}

/*
 * The cards a text names, as a bit per card: *notation for tokens like
 * `3co`, *named for tokens like `madame`.  Tokens are runs of letters,
 * digits and '-', so "3co," and "(3co)" count and "13co" does not.
 */
static void
text_cards(const char *text, char cards[48][4], uint64_t *notation,
    uint64_t *named)
{
	const char *p = text, *start;
	char tok[32];
	size_t n;
	int c;

	*notation = *named = 0;
	while (*p) {
		while (*p && !isalnum((unsigned char)*p) && *p != '-')
			p++;
		start = p;
		while (*p && (isalnum((unsigned char)*p) || *p == '-'))
			p++;
		n = (size_t)(p - start);
		if (n == 0 || n >= sizeof(tok))
			continue;
		memcpy(tok, start, n);
		tok[n] = '\0';
		if (n == 3) {
			if ((c = card_index(cards, tok)) >= 0)
				*notation |= 1ull << c;
			continue;
		}
		if (n < 5)
			continue;
		for (c = 0; c < 48; c++)
			if (card_names[c] &&
			    strcasecmp(tok, card_names[c]) == 0)
				*named |= 1ull << c;
	}
}

/* Drop the lines that start with the prefix, and the indented lines that
 * continue them (in place). */
static void
drop_lines(char *s, const char *prefix)
{
	char *p = s, *out = s, *end;
	int drop = 0;

	while (*p) {
		end = strchr(p, '\n');
		end = end ? end + 1 : p + strlen(p);
		if (strncmp(p, "  ", 2) != 0)
			drop = strncmp(p, prefix, strlen(prefix)) == 0;
		if (!drop) {
			memmove(out, p, (size_t)(end - p));
			out += end - p;
		}
		p = end;
	}
	*out = '\0';
}

/* The face-up deal lines of a rendering (a copy; "" when it shows none:
 * with teams=fixed, and once the first card is played). */
static char *
faceup_of(const char *r)
{
	const char *p = strstr(r, "Face-up deal"), *q;

	if (p == NULL)
		return xstrdup("");
	q = strstr(p, ".\n");
	if (strncmp(q + 2, "Face-up deal result", 19) == 0)
		q = strstr(q + 2, ".\n");
	return xstrndup(p, (size_t)(q - p) + 2);
}

/*
 * Where the cards are, read from the serialised state: hidden[seat] the
 * seat's hand and changer discards, hidden[4] the undealt stock.  Also
 * checks that the 48 cards are all there, each once.
 */
static void
read_hidden(const void *st, char cards[48][4], uint64_t hidden[5])
{
	static struct buf sb;
	char *s, *line, *save = NULL, *tok, *save2;
	uint64_t seen = 0;
	int seat, k, count = 0;

	buf_reset(&sb);
	ops->serialise(st, &sb);
	s = sb.s;
	memset(hidden, 0, 5 * sizeof(hidden[0]));
	for (line = strtok_r(s, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		uint64_t *dest = NULL;
		char what[16];
		int skip;

		if (sscanf(line, "seat %d %15s", &seat, what) == 2 &&
		    (strcmp(what, "hand") == 0 ||
		    strcmp(what, "discards") == 0)) {
			dest = &hidden[seat];
			skip = 3;
		} else if (strncmp(line, "stock ", 6) == 0) {
			dest = &hidden[4];
			skip = 1;
		} else if (strncmp(line, "trick ", 6) == 0)
			skip = 2;
		else if (strncmp(line, "played ", 7) == 0)
			skip = 1;
		else
			continue;
		save2 = NULL;
		for (tok = strtok_r(line, " ", &save2), k = 0; tok != NULL;
		    tok = strtok_r(NULL, " ", &save2), k++) {
			int c;

			if (k < skip || strcmp(tok, "-") == 0)
				continue;
			c = card_index(cards, tok);
			require(c >= 0, "%s", tok);
			require(!(seen >> c & 1), "%s twice", tok);
			seen |= 1ull << c;
			count++;
			if (dest)
				*dest |= 1ull << c;
		}
	}
	require(count == 48, "%d cards", count);
}

/*
 * No viewer sees another seat's hand or discards, or the stock, except
 * cards that are public: played this hand, or in the last trick shown.
 * The face-up deal is public too: it is checked to be the same for every
 * viewer at every point of the game, then left out of the search.
 * Signals (partner information by design) are left out of the search for
 * card names, not for card notation.
 */
static void
check_hidden(const void *st, char cards[48][4], uint64_t public_,
    const char *faceup)
{
	/* Kept between calls: growing buffers afresh each time is what
	 * costs most under the address sanitizer. */
	static struct buf legal, rb;
	struct game_view v = { .names = { "alice", "bob", "carol", "dave" } };
	uint64_t hidden[5], note, named, lnote, lnamed;
	char *r, *fu;
	int a, b;

	read_hidden(st, cards, hidden);
	for (a = 0; a < 5; a++) {
		v.viewer = a < 4 ? a : GAME_PUBLIC;
		buf_reset(&rb);
		ops->render(st, &v, &rb);
		r = rb.s;
		fu = faceup_of(r);
		require(*fu == '\0' || strcmp(fu, faceup) == 0,
		    "%s\n!=\n%s", fu, faceup);
		free(fu);
		drop_lines(r, "Face-up deal");
		drop_lines(r, "Ranks");
		text_cards(r, cards, &note, &lnamed);
		drop_lines(r, "Signals");
		text_cards(r, cards, &lnote, &named);
		buf_reset(&legal);
		if (a < 4)
			game_legal_text(ops, st, a, &legal);
		else
			require(strstr(r, "Your hand") == NULL,
			    "the public view shows a hand");
		text_cards(buf_str(&legal), cards, &lnote, &lnamed);
		for (b = 0; b < 5; b++) {
			uint64_t h = hidden[b] & ~public_;

			if (b == a)
				continue;
			require((note & h) == 0 && (named & h) == 0,
			    "viewer %d sees a card of %d:\n%s", a, b, r);
			require((lnote & h) == 0,
			    "viewer %d may play a card of %d", a, b);
		}
	}
}

/* The moves of the random games come from splitmix64, not from the
 * game's generator: cheap, and independent of what is tested. */
static uint32_t
pick_below(uint64_t *state, uint32_t n)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (uint32_t)(z % n);
}

struct logged {
	int	seat;
	struct game_move m;
};

/* A trick's winner (0-3 in play order) by the ranking written out above;
 * -1 when the highest cards tie. */
static int
trick_winner(char trick[4][4])
{
	static int cls[48], ready;
	static char cards[48][4];
	int i, best = 0, ties = 0, c[4];

	if (!ready++) {
		all_cards(cards);
		for (i = 0; i < 48; i++)
			cls[i] = rank_class(cards[i]);
	}
	for (i = 0; i < 4; i++)
		c[i] = cls[card_index(cards, trick[i])];
	for (i = 1; i < 4; i++)
		if (c[i] < c[best])
			best = i;
	for (i = 0; i < 4; i++)
		ties += c[i] == c[best];
	return ties > 1 ? -1 : best;
}

/*
 * The test's own referee, from the cards played: who wins each trick and
 * leads next, each hand's winner (most tricks, the first to reach that
 * number on a tie), mordienne, the points of each partnership.
 */
struct score {
	int	table[4];
	int	plays;
	int	hands;
	int	seat[4];
	char	trick[4][4];
	int	won[4];
	int	first[4];	/* trick of the first win this hand */
	int	reach[4][10];	/* trick at which the seat won its n-th */
	int	pts[2];
};

/* After a card: returns the seat that must lead next, or -1 if the
 * trick is not complete or the hand is over. */
static int
score_card(struct score *sc, int seat, const char *card, int mordienne)
{
	int i, w, tr, best = -1, k;

	sc->seat[sc->plays % 4] = seat;
	memcpy(sc->trick[sc->plays % 4], card, 4);
	sc->plays++;
	if (sc->plays % 4)
		return -1;
	tr = ((sc->plays - 1) % 36) / 4 + 1;
	w = trick_winner(sc->trick);
	if (w >= 0) {
		w = sc->seat[w];
		if (sc->won[w] == 0)
			sc->first[w] = tr;
		sc->reach[w][++sc->won[w]] = tr;
	} else
		w = sc->seat[0];
	if (sc->plays % 36)
		return w;
	sc->hands++;
	for (i = 0; i < 4; i++)
		if (sc->won[i] && (best == -1 || sc->won[i] > sc->won[best] ||
		    (sc->won[i] == sc->won[best] &&
		    sc->reach[i][sc->won[i]] < sc->reach[best][sc->won[best]])))
			best = i;
	if (best >= 0) {
		/* Tricks k..9, none before: k >= 2 and all 10 - k won. */
		k = sc->first[best];
		for (i = 0; i < 4; i++)
			if (sc->table[i] == best)
				sc->pts[i % 2] += mordienne && k >= 2 &&
				    sc->won[best] == 10 - k ? 2 : 1;
	}
	memset(sc->won, 0, sizeof(sc->won));
	return -1;
}

static void
random_games(const char *opts, int ngames, uint64_t base)
{
	static struct logged log[512];
	static const char *const sigs[] = { "signal madame", "signal aces-3",
		"signal useless", "signal mordienne", "signal deux-decrit" };
	struct game_move moves[GAME_MAX_MOVES];
	struct game_opts o;
	uint64_t rng;
	char cards[48][4], err[GAME_ERRLEN], text[GAME_MOVE_TEXT];
	int game, sigon, mord;

	tu_opts("aluette", opts, &o);
	sigon = strcmp(game_opt_str(&o, "signals"), "off") != 0;
	mord = game_opt_int(&o, "mordienne") != 0;
	all_cards(cards);
	rng = base;
	for (game = 0; game < ngames; game++) {
		void *st = tu_new("aluette", opts, base + (uint64_t)game, 4);
		struct score sc;
		struct game_result r;
		uint64_t public_ = 0;
		void *copy;
		char *a, *b, *fu;
		int nlog = 0, i, s, n, c, lead, check_at;

		memset(&sc, 0, sizeof(sc));
		a = line_of(st, "table");
		require(sscanf(a, "table %d %d %d %d", &sc.table[0],
		    &sc.table[1], &sc.table[2], &sc.table[3]) == 4, "%s", a);
		free(a);
		a = render(st, GAME_PUBLIC);
		fu = faceup_of(a);
		free(a);
		/* Hidden-information checks at a random point of every game
		 * and at its end, at every point of the first. */
		check_at = (int)pick_below(&rng, 200);

		for (;;) {
			uint32_t mask = ops->to_move(st);
			int nmask = 0, pick;

			ops->result(st, &r);
			if (r.over) {
				require(mask == 0, "moves after the end");
				break;
			}
			require(mask != 0, "nobody to move");
			if (game == 0 || nlog == check_at)
				check_hidden(st, cards, public_, fu);
			/* Now and then a signal, from any seat. */
			if (sigon && pick_below(&rng, 30) == 0) {
				s = (int)pick_below(&rng, 4);
				require(nlog < (int)nitems(log), "log full");
				if (ops->parse_move(st, s, sigs[pick_below(&rng,
				    nitems(sigs))], &log[nlog].m, err,
				    sizeof(err)) == 0) {
					log[nlog].seat = s;
					ops->apply(st, s, &log[nlog++].m);
					require(ops->to_move(st) == mask,
					    "a signal passed the turn");
				}
			}
			for (s = 0; s < 4; s++)
				nmask += (mask >> s) & 1;
			pick = (int)pick_below(&rng, (uint32_t)nmask);
			for (s = 0; s < 4; s++)
				if ((mask >> s) & 1 && pick-- == 0)
					break;
			n = ops->legal(st, s, moves, GAME_MAX_MOVES);
			require(n > 0, "no legal move");
			for (i = 0; i < 4; i++)
				if (!((mask >> i) & 1))
					require(ops->legal(st, i, moves + n,
					    GAME_MAX_MOVES - n) == 0,
					    "seat %d may move out of turn", i);
			require(nlog < (int)nitems(log), "log full");
			log[nlog].seat = s;
			log[nlog].m = moves[pick_below(&rng, (uint32_t)n)];
			ops->format_move(st, s, &log[nlog].m, text,
			    sizeof(text));
			ops->apply(st, s, &log[nlog++].m);
			if ((c = card_index(cards, text)) < 0)
				continue;	/* changer answers, discards */

			/* A card played: 9 cards in hand at the start of a
			 * hand, one fewer each trick. */
			require(n == 9 - (sc.plays % 36) / 4,
			    "%d cards in hand at play %d", n, sc.plays);
			public_ |= 1ull << c;
			lead = score_card(&sc, s, text, mord);
			if (lead >= 0)
				require(only_seat(ops->to_move(st)) == lead,
				    "%d to lead, not %d", lead,
				    only_seat(ops->to_move(st)));
			if (sc.plays % 36 == 0) {
				/* Only the last trick stays in view. */
				public_ = 0;
				for (i = 0; i < 4; i++)
					public_ |= 1ull << card_index(cards,
					    sc.trick[i]);
			}
		}
		/* Five hands of nine tricks; the points as counted here. */
		require(sc.plays == 180, "%d cards played", sc.plays);
		require(sc.hands == 5, "%d hands", sc.hands);
		for (i = 0; i < 4; i++)
			require(r.score[sc.table[i]] == sc.pts[i % 2],
			    "seat %d scored %d, not %d", sc.table[i],
			    r.score[sc.table[i]], sc.pts[i % 2]);
		require(r.draw == (sc.pts[0] == sc.pts[1]), "draw %d", r.draw);
		if (!r.draw)
			require(r.winners == (sc.pts[0] > sc.pts[1] ?
			    (1u << sc.table[0]) | (1u << sc.table[2]) :
			    (1u << sc.table[1]) | (1u << sc.table[3])),
			    "winners %u", r.winners);
		check_hidden(st, cards, public_, fu);

		/* Serialise, parse, serialise: identical. */
		a = ser(st);
		copy = xcalloc(1, ops->state_size);
		require(ops->parse_state(copy, a, err, sizeof(err)) == 0,
		    "%s\n%s", err, a);
		b = ser(copy);
		require(strcmp(a, b) == 0, "%s\n!=\n%s", a, b);
		free(b);
		free(copy);

		/* Replay through the notation from a fresh deal, with a
		 * round trip through the text form half way; every tenth
		 * game through whole lines as the referee sends them. */
		copy = tu_new("aluette", opts, base + (uint64_t)game, 4);
		for (i = 0; i < nlog; i++) {
			struct game_move m;

			ops->format_move(copy, log[i].seat, &log[i].m, text,
			    sizeof(text));
			if (game % 10 == 0)
				require(tu_play("aluette", copy, log[i].seat,
				    text, err, sizeof(err)) == 1, "%s: %s",
				    text, err);
			else {
				require(ops->parse_move(copy, log[i].seat, text,
				    &m, err, sizeof(err)) == 0, "%s: %s", text,
				    err);
				ops->apply(copy, log[i].seat, &m);
			}
			if (i == nlog / 2) {
				char *m1 = ser(copy), *m2;

				require(ops->parse_state(copy, m1, err,
				    sizeof(err)) == 0, "%s\n%s", err, m1);
				m2 = ser(copy);
				require(strcmp(m1, m2) == 0, "%s\n!=\n%s", m1,
				    m2);
				free(m1);
				free(m2);
			}
		}
		b = ser(copy);
		require(strcmp(a, b) == 0, "%s\n!=\n%s", a, b);
		free(a);
		free(b);
		free(copy);
		free(fu);
		free(st);
	}
}

START_TEST(aluette_random_default)
{
	random_games("", 5000, 100000);
}
END_TEST

START_TEST(aluette_random_changer_mordienne)
{
	random_games("changer=true mordienne=true", 5000, 200000);
}
END_TEST

START_TEST(aluette_random_fixed_table)
{
	random_games("teams=fixed signals=table", 5000, 300000);
}
END_TEST

START_TEST(aluette_random_changer_off)
{
	random_games("teams=fixed changer=true signals=off", 5000,
	    400000);
}
END_TEST

/*
 * States as serialise() wrote them before the hands became bit sets (a
 * changer hand's last two tricks, with discards and signals; a changer
 * round's discards): they read back to the same text, and perft from
 * them counts what the engine counted then, across the end of the hand,
 * the next deal and its changer round.
 */
static const char old_late[] =
	    "aluette teams=faceup changer=1 mordienne=1 signals=partner\n"
	    "rng 9e59e2196f30d276a93d37a97bddb6e5b4e57c1b7cc59f9111afbb43b97dbd6e:6:56\n"
	    "faceup 6co Jcl Jcu 6cl 2cl Ksw Kcl 8cu 3cu 9sw 1sw 8cl 4sw Kco 5cu 3cl Csw 2cu 9cl 7cl 4cl 6cu 1cl Kcu 6sw 5sw 5cl 3co 4co Jco 8sw 1co 2co\n"
	    "table 0 1 2 3\n"
	    "first_dealer 0\n"
	    "hand 1 dealer 0 phase play asked 4\n"
	    "points 0 0\n"
	    "history\n"
	    "seat 0 hand 3cu 4cl\n"
	    "seat 0 discards 5co 7co Ccu 3sw Csw Ksw\n"
	    "seat 0 won 5\n"
	    "seat 1 hand 2co 1cl\n"
	    "seat 1 discards 6co 8co 9co Kco 1cu 9cu\n"
	    "seat 1 won -\n"
	    "seat 2 hand 3co Jcu\n"
	    "seat 2 discards -\n"
	    "seat 2 won 1 2\n"
	    "seat 3 hand 4co 4cu\n"
	    "seat 3 discards -\n"
	    "seat 3 won 3 4 6 7\n"
	    "stock -\n"
	    "trick 3 -\n"
	    "played 1co Jco Cco 2cu 5cu 6cu 7cu 8cu Kcu 1sw 2sw 4sw 5sw 6sw 7sw 8sw 9sw Jsw 2cl 3cl 5cl 6cl 7cl 8cl 9cl Jcl Ccl Kcl\n"
	    "last 1 3 3 Kcu 7cu 8cl 6cl\n"
	    "signals 0:0:mordienne 3:0:monsieur 1:0:aces-3 3:0:useless 0:0:mordienne 1:1:deux-decrit 3:3:useless 0:6:useless\n";
static const char old_discard[] =
	    "aluette teams=faceup changer=1 mordienne=0 signals=off\n"
	    "rng acc025f49398485f62c5e696ef829db3a5605af44d38ab9ea8d5d8a48332ef66:15:44\n"
	    "faceup Jsw 9cu 5cu 1cl 2co 7cl 4co Kcl 4sw 2cl 5sw 6co 9cl 3sw Jcu 8co Jco 9co Kcu Ccl Ccu 3cu 8cl 7sw 2cu 2sw 6cl 4cl 1co Jcl 8cu 3co\n"
	    "table 0 1 3 2\n"
	    "first_dealer 2\n"
	    "hand 4 dealer 3 phase discard asked 4\n"
	    "points 1 2\n"
	    "history 2:3:1 3:4:1 1:4:1\n"
	    "seat 0 hand 3cu 2cl 2sw Kcl Jcu 8cl 7sw 6cu 4cl\n"
	    "seat 0 discards -\n"
	    "seat 0 won -\n"
	    "seat 1 hand 2co 1cu 1cl Csw Jco 8co 5cu 4cu 4sw\n"
	    "seat 1 discards -\n"
	    "seat 1 won -\n"
	    "seat 2 hand 3co 9cu 1co 1sw Kco Kcu Cco Ccu Jcl 9cl 8sw 7cu 5sw 3sw 3cl\n"
	    "seat 2 discards -\n"
	    "seat 2 won -\n"
	    "seat 3 hand 2cu 9co Ksw Ccl Jsw 9sw 8cu 7co 7cl 6co 6sw 5co 5cl 4co\n"
	    "seat 3 discards 6cl\n"
	    "seat 3 won -\n"
	    "stock -\n"
	    "trick 2 -\n"
	    "played -\n"
	    "last 3 3 1 6co 8cl 3cl 2co\n"
	    "signals -\n";

START_TEST(aluette_old_states_read)
{
	static const uint64_t late[] = { 2, 4, 8, 16, 16, 16, 16, 16, 32,
		176, 1472, 13136, 118560 };
	static const uint64_t discard[] = { 29, 812, 21924, 570024,
		14250600 };
	void *st = pos(old_late);
	char *text = ser(st);
	int d;

	ck_assert_str_eq(text, old_late);
	for (d = 1; d <= (int)nitems(late); d++)
		ck_assert_uint_eq(game_perft(ops, st, d), late[d - 1]);
	free(text);
	free(st);
	st = pos(old_discard);
	text = ser(st);
	ck_assert_str_eq(text, old_discard);
	ck_assert_uint_eq(ops->to_move(st), 1u << 2 | 1u << 3);
	for (d = 1; d <= (int)nitems(discard); d++)
		ck_assert_uint_eq(game_perft(ops, st, d), discard[d - 1]);
	free(text);
	free(st);
}
END_TEST

/* The suit's place in the order of a hand's equal ranks. */
static int
suit_order(const char *card)
{
	static const char *const suits[] = { "co", "cu", "sw", "cl" };
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(card + 1, suits[i]) == 0)
			return i;
	return -1;
}

/* Along random games of every variant, at every point and on the state
 * read back from its text: count_legal() and over() say what legal()
 * and result() say, and every list of cards is strongest first (equal
 * ranks coins, cups, swords, clubs). */
START_TEST(aluette_shortcuts_agree)
{
	static const char *const variants[] = { "", "changer=true",
		"teams=fixed changer=true mordienne=true signals=table",
		"changer=true signals=off" };
	struct game_move moves[GAME_MAX_MOVES];
	char text[GAME_MOVE_TEXT], prev[GAME_MOVE_TEXT];
	uint64_t rng = 18;
	size_t v;
	int game, s, n, i, k, plies;

	for (v = 0; v < nitems(variants); v++)
		for (game = 0; game < 60; game++) {
			void *st = tu_new("aluette", variants[v],
			    1000 + (uint64_t)game, 4), *back;
			char *t;

			for (plies = 0;; plies++) {
				uint32_t mask = ops->to_move(st);

				tu_check_shortcuts(ops, st);
				t = ser(st);
				back = pos(t);
				free(t);
				tu_check_shortcuts(ops, back);
				ck_assert_uint_eq(ops->to_move(back), mask);
				free(back);
				if (mask == 0)
					break;
				for (s = 0; !(mask >> s & 1); s++)
					;
				n = ops->legal(st, s, moves, GAME_MAX_MOVES);
				ck_assert_int_gt(n, 0);
				for (i = 0; i < n; i++) {
					ops->format_move(st, s, &moves[i], text,
					    sizeof(text));
					if (strncmp(text, "discard ", 8) == 0)
						memmove(text, text + 8,
						    strlen(text + 8) + 1);
					if (rank_class(text) < 0)
						continue;	/* an answer */
					if (i > 0) {
						k = rank_class(prev) -
						    rank_class(text);
						ck_assert_msg(k < 0 || (k == 0 &&
						    suit_order(prev) <
						    suit_order(text)),
						    "%s before %s", prev, text);
					}
					memcpy(prev, text, sizeof(prev));
				}
				ops->apply(st, s, &moves[pick_below(&rng,
				    (uint32_t)n)]);
			}
			ck_assert_int_ge(plies, 5 * 36);
			free(st);
		}
}
END_TEST

/* apply_span() holds: along random games of every variant, no move
 * legal() lists changes a byte of the state past the span it gives. */
START_TEST(aluette_apply_span_holds)
{
	static const char *const variants[] = { "", "changer=true",
		"teams=fixed changer=true mordienne=true signals=table" };
	struct game_move moves[GAME_MAX_MOVES];
	uint64_t rng = 7;
	size_t v, span, size = ops->state_size;
	int game, s, n, i, tight = 0;

	ck_assert_ptr_nonnull(ops->apply_span);
	for (v = 0; v < nitems(variants); v++)
		for (game = 0; game < 40; game++) {
			void *st = tu_new("aluette", variants[v],
			    2000 + (uint64_t)game, 4);
			unsigned char *after = malloc(size);
			uint32_t mask;

			while ((mask = ops->to_move(st)) != 0) {
				span = ops->apply_span(st);
				ck_assert_uint_le(span, size);
				tight += span < size;
				for (s = 0; s < 4; s++) {
					if (!(mask >> s & 1))
						continue;
					n = ops->legal(st, s, moves,
					    GAME_MAX_MOVES);
					for (i = 0; i < n; i++) {
						memcpy(after, st, size);
						ops->apply(after, s, &moves[i]);
						ck_assert(memcmp(after + span,
						    (unsigned char *)st + span,
						    size - span) == 0);
					}
				}
				for (s = 0; !(mask >> s & 1); s++)
					;
				n = ops->legal(st, s, moves, GAME_MAX_MOVES);
				ops->apply(st, s, &moves[pick_below(&rng,
				    (uint32_t)n)]);
			}
			free(after);
			free(st);
		}
	/* Most plies are cards played inside a hand. */
	ck_assert_int_gt(tight, 120 * 150);
}
END_TEST

/* aluette_last_card_points() says what the hand's last card scores: along
 * random games, for every card the last player of every hand may play,
 * the points and the side it gives are the change of the score that
 * playing it makes. */
START_TEST(aluette_last_card_points_agree)
{
	static const char *const variants[] = { "", "mordienne=true",
		"teams=fixed changer=true mordienne=true" };
	struct game_move moves[GAME_MAX_MOVES];
	struct game_result before, after;
	uint64_t rng = 11;
	uint32_t seats;
	size_t v;
	int game, s, n, i, k, pts, checked = 0, twos = 0;

	for (v = 0; v < nitems(variants); v++)
		for (game = 0; game < 40; game++) {
			struct aluette *st = tu_new("aluette", variants[v],
			    3000 + (uint64_t)game, 4), *copy;
			uint32_t mask;

			copy = malloc(sizeof(*copy));
			while ((mask = ops->to_move(st)) != 0) {
				for (s = 0; !(mask >> s & 1); s++)
					;
				n = ops->legal(st, s, moves, GAME_MAX_MOVES);
				if (st->phase == PH_PLAY && st->ndone ==
				    NTRICKS - 1 && st->ntrick == NSEATS - 1) {
					ops->result(st, &before);
					for (i = 0; i < n; i++) {
						pts = aluette_last_card_points(
						    st, moves[i].d[1], &seats);
						memcpy(copy, st, sizeof(*copy));
						ops->apply(copy, s, &moves[i]);
						ops->result(copy, &after);
						for (k = 0; k < NSEATS; k++)
							ck_assert_int_eq(
							    after.score[k] -
							    before.score[k],
							    seats >> k & 1 ?
							    pts : 0);
						ck_assert(pts == 0 ? seats == 0 :
						    __builtin_popcount(seats) ==
						    2);
						twos += pts == 2;
						checked++;
					}
				}
				ops->apply(st, s, &moves[pick_below(&rng,
				    (uint32_t)n)]);
			}
			free(copy);
			free(st);
		}
	ck_assert_int_eq(checked, 3 * 40 * 5);
	ck_assert_int_gt(twos, 0);
}
END_TEST

/*
 * count_after() is a depth-2 perft: along random games of every variant
 * (signals made now and then, the changer round, the discards, every
 * trick of every hand, the end of the game), at every position and on
 * the state read back from its text, whenever it answers it says what
 * game_perft counts move by move without it, at depth 2 and below a
 * move at depth 3; it answers in most trick play.  The perft pins count
 * the same with and without it.
 */
static void
check_count_after(const struct game_ops *plain, const void *st, int deep,
    int *known, int *unknown)
{
	uint64_t c = ops->count_after(st), g = game_perft(plain, st, 2);

	if (c == GAME_PERFT_UNKNOWN)
		++*unknown;
	else {
		++*known;
		ck_assert_msg(c == g, "count_after %llu, perft 2 %llu",
		    (unsigned long long)c, (unsigned long long)g);
	}
	ck_assert_uint_eq(game_perft(ops, st, 2), g);
	if (deep)
		ck_assert_uint_eq(game_perft(ops, st, 3),
		    game_perft(plain, st, 3));
}

START_TEST(aluette_count_after_is_perft_2)
{
	static const char *const variants[] = { "", "changer=true",
		"teams=fixed changer=true mordienne=true signals=table",
		"changer=true signals=off", "teams=fixed signals=partner" };
	static const char *const sigs[] = { "signal madame", "signal aces-3",
		"signal useless", "signal mordienne", "signal monsieur" };
	static const uint64_t late[] = { 2, 4, 8, 16, 16, 16, 16, 16, 32,
		176, 1472, 13136 };
	static const uint64_t discard[] = { 29, 812, 21924, 570024 };
	struct game_ops plain = *ops;
	struct game_move moves[GAME_MAX_MOVES], m;
	char err[GAME_ERRLEN];
	uint64_t rng = 29;
	size_t v;
	int game, s, n, d, plies, known = 0, unknown = 0, asks = 0;
	int discards = 0, signals = 0, ends = 0;
	void *st, *back;
	char *t;

	ck_assert_ptr_nonnull(ops->count_after);
	plain.count_after = NULL;
	for (v = 0; v < nitems(variants); v++)
		for (game = 0; game < 30; game++) {
			st = tu_new("aluette", variants[v],
			    3000 + (uint64_t)game, 4);
			for (plies = 0;; plies++) {
				uint32_t mask = ops->to_move(st);

				check_count_after(&plain, st, plies % 7 == 0,
				    &known, &unknown);
				if (plies % 5 == 0) {
					t = ser(st);
					back = pos(t);
					free(t);
					check_count_after(&plain, back, 0,
					    &known, &unknown);
					free(back);
				}
				if (mask == 0) {
					ends++;
					break;
				}
				for (s = 0; !(mask >> s & 1); s++)
					;
				n = ops->legal(st, s, moves, GAME_MAX_MOVES);
				ck_assert_int_gt(n, 0);
				asks += moves[0].d[0] != moves[n - 1].d[0];
				discards += mask & (mask - 1) ? 1 : 0;
				/* Now and then a signal first, by any seat. */
				d = (int)pick_below(&rng, 4);
				if (pick_below(&rng, 6) == 0 &&
				    ops->parse_move(st, d, sigs[pick_below(&rng,
				    nitems(sigs))], &m, err, sizeof(err)) == 0) {
					ops->apply(st, d, &m);
					signals++;
					check_count_after(&plain, st, 0,
					    &known, &unknown);
				}
				ops->apply(st, s, &moves[pick_below(&rng,
				    (uint32_t)n)]);
			}
			free(st);
		}
	ck_assert_int_gt(known, 20000);
	ck_assert_int_gt(unknown, 1000);
	ck_assert_int_gt(asks, 100);
	ck_assert_int_gt(discards, 100);
	ck_assert_int_gt(signals, 1000);
	ck_assert_int_eq(ends, 5 * 30);

	/* The pins, with and without the hook. */
	for (s = 0; s < 2; s++) {
		const struct game_ops *keep = ops;

		if (s == 1)
			ops = &plain;
		check_perft("", 1, perft_default, 5);
		check_perft("teams=fixed", 3, perft_default, 5);
		check_perft("changer=true", 2, perft_changer, 6);
		st = pos(old_late);
		for (d = 1; d <= (int)nitems(late); d++)
			ck_assert_uint_eq(game_perft(ops, st, d), late[d - 1]);
		free(st);
		st = pos(old_discard);
		for (d = 1; d <= (int)nitems(discard); d++)
			ck_assert_uint_eq(game_perft(ops, st, d),
			    discard[d - 1]);
		free(st);
		ops = keep;
	}
}
END_TEST

static Suite *
aluette_suite(void)
{
	Suite *s = suite_create("aluette");
	TCase *tc = tcase_create("rules");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, aluette_ranking_order);
	tcase_add_test(tc, aluette_tie_spoils_trick_same_leader);
	tcase_add_test(tc, aluette_most_tricks_first_reached_wins);
	tcase_add_test(tc, aluette_mordienne_two_points);
	tcase_add_test(tc, aluette_all_spoiled_scores_nothing);
	tcase_add_test(tc, aluette_changer_needs_all_four);
	tcase_add_test(tc, aluette_changer_discards_independent);
	tcase_add_test(tc, aluette_notation_table);
	tcase_add_test(tc, aluette_partners_from_top_cards);
	tcase_add_test(tc, aluette_dealer_passes_left);
	tcase_add_test(tc, aluette_deal_three_at_a_time);
	tcase_add_test(tc, aluette_signal_does_not_pass_turn);
	tcase_add_test(tc, aluette_signals_off_refused);
	tcase_add_test(tc, aluette_signal_partner_only);
	tcase_add_test(tc, aluette_notation_and_errors);
	tcase_add_test(tc, aluette_render_seat_view);
	tcase_add_test(tc, aluette_perft_seeds);
	tcase_add_test(tc, aluette_perft_game_end_is_leaf);
	tcase_add_test(tc, aluette_parse_state_refuses_the_impossible);
	tcase_add_test(tc, aluette_export_json_has_everything);
	tcase_add_test(tc, aluette_random_default);
	tcase_add_test(tc, aluette_random_changer_mordienne);
	tcase_add_test(tc, aluette_random_fixed_table);
	tcase_add_test(tc, aluette_random_changer_off);
	tcase_add_test(tc, aluette_old_states_read);
	tcase_add_test(tc, aluette_shortcuts_agree);
	tcase_add_test(tc, aluette_apply_span_holds);
	tcase_add_test(tc, aluette_count_after_is_perft_2);
	tcase_add_test(tc, aluette_last_card_points_agree);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(aluette_suite());
}
