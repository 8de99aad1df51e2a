/* Card robots: determinize keeps the seat's view, the robot's decision does
 * not depend on the hidden cards, every level plays legal moves, and the
 * obvious play is found. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cardbot.h"
#include "games/aluette.h"
#include "games/spite.h"
#include "testutil.h"

/* Check records every passing ck_assert; the loops below only call into
 * Check on failure. */
#define REQUIRE(c) do {							\
	if (!(c))							\
		ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #c);	\
} while (0)

struct gamecase {
	const char *game;
	const char *opts;
	int	nseats;
	int	maxplies;	/* random plies before the position */
	const char *match;	/* options of whole robot games */
};

/* Aluette with the changer round too, so that positions with undealt
 * cards, taken cards and hidden discards all occur. */
static const struct gamecase cases[] = {
	{ "spite", "", 2, 300, "payoff=6 target=8" },
	{ "spite", "payoff=8 hand=4 centre=2 refill_empty_hand=true", 2, 300,
	    "payoff=5 hand=4 centre=2 refill_empty_hand=true target=8" },
	{ "aluette", "", 4, 120, "" },
	{ "aluette", "changer=true teams=fixed", 4, 60,
	    "changer=true teams=fixed" },
};
#define NCASES	((int)nitems(cases))

static const char *const rank_names[] = { "?", "A", "2", "3", "4", "5", "6",
	"7", "8", "9", "10", "J", "Q", "K" };

static const struct game_ops *
ops_of(const struct gamecase *gc)
{
	return tu_def(gc->game)->ops;
}

/* Plays one uniformly random legal move; 0 once the game is over.  In the
 * changer round "change" is favoured so that all four agree now and then. */
static int
random_ply(const struct game_ops *ops, void *st, struct rng *r)
{
	struct game_move moves[GAME_MAX_MOVES];
	char text[GAME_MOVE_TEXT];
	uint32_t mask = ops->to_move(st);
	int seats[GAME_MAX_SEATS], ns = 0, s, n, k;

	for (s = 0; s < GAME_MAX_SEATS; s++)
		if (mask & (1u << s))
			seats[ns++] = s;
	if (ns == 0)
		return 0;
	s = seats[rng_below(r, (uint32_t)ns)];
	n = ops->legal(st, s, moves, GAME_MAX_MOVES);
	REQUIRE(n > 0);
	k = (int)rng_below(r, (uint32_t)n);
	ops->format_move(st, s, &moves[0], text, sizeof(text));
	if (strcmp(text, "change") == 0 && rng_below(r, 4) != 0)
		k = 0;
	ops->apply(st, s, &moves[k]);
	return 1;
}

/* A random position of a case, never over. */
static void *
random_position(const struct gamecase *gc, uint64_t seed)
{
	const struct game_ops *ops = ops_of(gc);
	unsigned char key[RNG_SEED_LEN];
	struct game_result res;
	struct rng r;
	void *st = tu_new(gc->game, gc->opts, seed, gc->nseats);
	void *prev = xmalloc(ops->state_size);
	int plies, i;

	rng_seed_from_u64(key, seed ^ 0x5eedu);
	rng_init(&r, key);
	plies = (int)rng_below(&r, (uint32_t)gc->maxplies + 1);
	for (i = 0; i < plies; i++) {
		memcpy(prev, st, ops->state_size);
		if (!random_ply(ops, st, &r))
			break;
		ops->result(st, &res);
		if (res.over) {
			memcpy(st, prev, ops->state_size);
			break;
		}
	}
	free(prev);
	return st;
}

static void
rng_from(struct rng *r, uint64_t n)
{
	unsigned char key[RNG_SEED_LEN];

	rng_seed_from_u64(key, n);
	rng_init(r, key);
}

/* What the seat sees: its board and its legal moves. */
static char *
seat_view(const struct game_ops *ops, const void *st, int seat)
{
	struct game_view v;
	struct buf b = { 0 };

	memset(&v, 0, sizeof(v));
	v.viewer = seat;
	ops->render(st, &v, &b);
	buf_adds(&b, "--legal--\n");
	game_legal_text(ops, st, seat, &b);
	return buf_steal(&b);
}

/* The serialised state without its generator line: where the cards are. */
static char *
cards_of(const struct game_ops *ops, const void *st)
{
	struct buf b = { 0 }, out = { 0 };
	const char *p, *nl;

	ops->serialise(st, &b);
	for (p = buf_str(&b); *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p) - 1;
		if (strncmp(p, "rng ", 4) != 0)
			buf_add(&out, p, (size_t)(nl - p + 1));
	}
	buf_free(&b);
	return buf_steal(&out);
}

/* The engine reads back what it wrote: cards conserved, counts right. */
static void
require_valid(const struct game_ops *ops, const void *st)
{
	char err[GAME_ERRLEN], *a, *b;
	void *back = xcalloc(1, ops->state_size);
	int rc;

	a = tu_serialise(ops, st);
	rc = ops->parse_state(back, a, err, sizeof(err));
	if (rc != 0)
		ck_abort_msg("determinized state refused: %s\n%s", err, a);
	b = tu_serialise(ops, back);
	REQUIRE(strcmp(a, b) == 0);
	free(a);
	free(b);
	free(back);
}

START_TEST(determinize_keeps_view)
{
	const struct gamecase *gc = &cases[_i];
	const struct game_ops *ops = ops_of(gc);
	void *st, *d = xmalloc(ops->state_size);
	char *before, *after, *cb, *ca;
	struct rng r;
	int pos, seat, samples = 0, changed = 0;

	REQUIRE(ops->determinize != NULL);
	for (pos = 0; pos < 40; pos++) {
		st = random_position(gc, 1000 + (uint64_t)pos);
		for (seat = 0; seat < gc->nseats; seat++) {
			rng_from(&r, (uint64_t)(pos * 10 + seat));
			memcpy(d, st, ops->state_size);
			ops->determinize(d, seat, &r);
			before = seat_view(ops, st, seat);
			after = seat_view(ops, d, seat);
			if (strcmp(before, after) != 0)
				ck_abort_msg("seat %d sees a difference:\n%s\n"
				    "----\n%s", seat, before, after);
			require_valid(ops, d);
			cb = cards_of(ops, st);
			ca = cards_of(ops, d);
			samples++;
			changed += strcmp(cb, ca) != 0;
			free(before);
			free(after);
			free(cb);
			free(ca);
		}
		free(st);
	}
	free(d);
	/* A deal that keeps every hidden card in place is possible but
	 * rare: dozens of cards are hidden in every position. */
	ck_assert_int_ge(changed * 10, samples * 9);
}
END_TEST

/* The words of the serialised line that starts with key (a "-" word
 * dropped) into w, at most max; -1 if there is no such line. */
static int
line_words(const char *text, const char *key, char w[][8], int max)
{
	size_t klen = strlen(key);
	const char *p = text, *e;
	int n = 0;

	while (*p && !(strncmp(p, key, klen) == 0 && p[klen] == ' '))
		p = strchr(p, '\n') != NULL ? strchr(p, '\n') + 1 : p + strlen(p);
	if (*p == '\0')
		return -1;
	for (p += klen; *p && *p != '\n'; p = e) {
		while (*p == ' ')
			p++;
		for (e = p; *e && *e != ' ' && *e != '\n'; e++)
			;
		if (e > p && !(e - p == 1 && *p == '-') && n < max &&
		    e - p < 8) {
			memcpy(w[n], p, (size_t)(e - p));
			w[n++][e - p] = '\0';
		}
	}
	return n;
}

static int
rank_of(const char *t)
{
	int r;

	for (r = 1; r <= 13; r++)
		if (strcmp(t, rank_names[r]) == 0)
			return r;
	return 0;
}

/* A card as Aluette writes it, "3co", as its number. */
static int
aluette_card_of(const char *t)
{
	static const char ranks[] = "123456789JCK";
	static const char *const suits[] = { "co", "cu", "sw", "cl" };
	const char *r = strchr(ranks, t[0]);
	int s;

	for (s = 0; s < 4 && r != NULL && t[0]; s++)
		if (strcmp(t + 1, suits[s]) == 0)
			return s * 12 + (int)(r - ranks);
	return -1;
}

/* spite_seen() agrees with what the serialised text shows. */
static void
require_spite_seen(const char *text, int seat, const struct spite_seen *v)
{
	static const char *const who[] = { "south", "north" };
	char w[SPITE_CARDS][8], key[32];
	int n, i, p, k;

	REQUIRE(line_words(text, "stock:", w, SPITE_CARDS) == v->nstock);
	for (k = 0; k < v->ncentre; k++) {
		snprintf(key, sizeof(key), "c%d:", k + 1);
		REQUIRE(line_words(text, key, w, SPITE_CARDS) == v->centre[k]);
	}
	for (p = 0; p < 2; p++) {
		snprintf(key, sizeof(key), "%s payoff:", who[p]);
		n = line_words(text, key, w, SPITE_CARDS);
		REQUIRE(n == v->npay[p]);
		REQUIRE(v->top[p] == (n > 0 ? rank_of(w[n - 1]) : 0));
		snprintf(key, sizeof(key), "%s hand:", who[p]);
		n = line_words(text, key, w, SPITE_CARDS);
		REQUIRE(n == v->nhand[p]);
		for (i = 0; i < n; i++)
			REQUIRE(v->hand[p][i] == (p == seat || seat < 0 ?
			    rank_of(w[i]) : 0));
		for (k = 0; k < SPITE_SIDES; k++) {
			snprintf(key, sizeof(key), "%s s%d:", who[p], k + 1);
			n = line_words(text, key, w, SPITE_CARDS);
			REQUIRE(n == v->nside[p][k]);
			for (i = 0; i < n; i++)
				REQUIRE(v->side[p][k][i] == rank_of(w[i]));
		}
	}
}

/* aluette_seen() agrees with what the serialised text shows. */
static void
require_aluette_seen(const char *text, int seat, const struct aluette_seen *v)
{
	char w[NCARDS][8], key[32];
	unsigned char seen[NCARDS] = { 0 };
	int n, i, unseen = 0;

	snprintf(key, sizeof(key), "seat %d hand", seat);
	n = line_words(text, key, w, NCARDS);
	REQUIRE(n == v->nhand);
	for (i = 0; i < n; i++) {
		REQUIRE(v->hand[i] == aluette_card_of(w[i]));
		seen[v->hand[i]] = 1;
	}
	snprintf(key, sizeof(key), "seat %d discards", seat);
	n = line_words(text, key, w, NCARDS);
	for (i = 0; i < n; i++)
		seen[aluette_card_of(w[i])] = 1;
	n = line_words(text, "trick", w, NCARDS);
	REQUIRE(n == v->ntrick + 1);
	REQUIRE(atoi(w[0]) == v->leader);
	for (i = 1; i < n; i++) {
		REQUIRE(v->trick[i - 1] == aluette_card_of(w[i]));
		seen[v->trick[i - 1]] = 1;
	}
	n = line_words(text, "played", w, NCARDS);
	for (i = 0; i < n; i++)
		seen[aluette_card_of(w[i])] = 1;
	for (i = 0; i < NCARDS; i++) {
		REQUIRE(v->seen[i] == seen[i]);
		unseen += !seen[i];
	}
	REQUIRE(v->unseen == unseen);
}

/* The robot's view of a position, as one block of bytes. */
static void
robot_seen(const struct gamecase *gc, const void *st, int seat,
    struct spite_seen *sv, struct aluette_seen *av)
{
	memset(sv, 0, sizeof(*sv));
	memset(av, 0, sizeof(*av));
	if (strcmp(gc->game, "spite") == 0)
		spite_seen(st, seat, sv);
	else
		aluette_seen(st, seat, av);
}

/*
 * The robots read a position from the engine's state (spite_seen(),
 * aluette_seen()), and only what the seat may see of it: the view is the
 * same over deals of the hidden cards the seat cannot tell apart (the
 * stock's order, the other hands, the payoff cards under the tops, the
 * other seats' discards), and it agrees with the serialised text.
 */
START_TEST(robot_view_is_the_seats)
{
	const struct gamecase *gc = &cases[_i];
	const struct game_ops *ops = ops_of(gc);
	struct spite_seen *s0 = xmalloc(sizeof(*s0)), *s1 =
	    xmalloc(sizeof(*s1));
	struct aluette_seen a0, a1;
	void *st, *d = xmalloc(ops->state_size);
	char *text, *cb, *cd;
	struct rng r;
	int pos, seat, k, samples = 0, changed = 0;

	for (pos = 0; pos < 40; pos++) {
		st = random_position(gc, 5000 + (uint64_t)pos);
		text = cards_of(ops, st);
		for (seat = 0; seat < gc->nseats; seat++) {
			robot_seen(gc, st, seat, s0, &a0);
			if (strcmp(gc->game, "spite") == 0)
				require_spite_seen(text, seat, s0);
			else
				require_aluette_seen(text, seat, &a0);
			for (k = 0; k < 3; k++) {
				rng_from(&r, (uint64_t)(pos * 40 + seat * 4 +
				    k));
				memcpy(d, st, ops->state_size);
				ops->determinize(d, seat, &r);
				robot_seen(gc, d, seat, s1, &a1);
				REQUIRE(memcmp(s0, s1, sizeof(*s0)) == 0);
				REQUIRE(memcmp(&a0, &a1, sizeof(a0)) == 0);
				cb = cards_of(ops, st);
				cd = cards_of(ops, d);
				samples++;
				changed += strcmp(cb, cd) != 0;
				free(cb);
				free(cd);
			}
		}
		if (strcmp(gc->game, "spite") == 0) {
			/* Both hands, for a simulation's state. */
			spite_seen(st, -1, s0);
			require_spite_seen(text, -1, s0);
		}
		free(text);
		free(st);
	}
	/* The hidden cards did move, so the check can fail. */
	ck_assert_int_ge(changed * 10, samples * 9);
	free(d);
	free(s0);
	free(s1);
}
END_TEST

/*
 * reveals() says which moves show some seat a card it could not see (the
 * referee takes none of them back): a move it passes looks the same to
 * every seat whatever the hidden cards were, over deals the seat cannot
 * tell apart; and some move it flags does show a seat something new, so
 * the check can fail.
 */
START_TEST(reveals_matches_what_seats_see)
{
	const struct gamecase *gc = &cases[_i];
	const struct game_ops *ops = ops_of(gc);
	struct game_move moves[GAME_MAX_MOVES], m;
	char text[GAME_MOVE_TEXT], err[GAME_ERRLEN];
	void *st, *after = xmalloc(ops->state_size);
	void *d = xmalloc(ops->state_size);
	char *want, *got;
	struct rng r;
	uint32_t mask;
	int pos, seat, n, i, v, k, rev, differs, named, quiet = 0, shown = 0;

	REQUIRE(ops->reveals != NULL);
	for (pos = 0; pos < 30; pos++) {
		st = random_position(gc, 5000 + (uint64_t)pos);
		mask = ops->to_move(st);
		for (seat = 0; seat < gc->nseats; seat++) {
			if (!(mask & (1u << seat)))
				continue;
			n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
			for (i = 0; i < n && i < 12; i++) {
				rev = ops->reveals(st, seat, &moves[i]);
				ops->format_move(st, seat, &moves[i], text,
				    sizeof(text));
				memcpy(after, st, ops->state_size);
				ops->apply(after, seat, &moves[i]);
				differs = named = 0;
				for (v = 0; v < gc->nseats && !differs; v++) {
					want = seat_view(ops, after, v);
					for (k = 0; k < 3 && !differs; k++) {
						rng_from(&r, (uint64_t)(pos * 1000 +
						    i * 10 + v * 3 + k));
						memcpy(d, st, ops->state_size);
						ops->determinize(d, v, &r);
						/* A card v cannot place is not in
						 * this deal: nothing to compare. */
						if (ops->parse_move(d, seat, text,
						    &m, err, sizeof(err)) == -1) {
							named = 1;
							continue;
						}
						ops->apply(d, seat, &m);
						got = seat_view(ops, d, v);
						differs = strcmp(want, got) != 0;
						free(got);
					}
					free(want);
				}
				if (!rev && differs)
					ck_abort_msg("%s: `%s` by seat %d shows a "
					    "seat something new, and reveals() "
					    "says it does not", gc->game, text,
					    seat);
				quiet += !rev;
				/* A card played from a hand the others cannot
				 * place is shown to them by the move itself. */
				shown += rev && (differs || named);
			}
		}
		free(st);
	}
	free(after);
	free(d);
	ck_assert_int_gt(shown, 0);
	/* Side-stack plays in Spite & Malice, discards and answers in an
	 * Aluette changer round. */
	if (strcmp(gc->game, "spite") == 0 || strstr(gc->opts, "changer"))
		ck_assert_int_gt(quiet, 0);
}
END_TEST

/* Two deals of the hidden cards the seat cannot tell apart become the same
 * state when determinized with the same numbers. */
START_TEST(determinize_depends_on_view_only)
{
	const struct gamecase *gc = &cases[_i];
	const struct game_ops *ops = ops_of(gc);
	void *st, *a = xmalloc(ops->state_size), *b = xmalloc(ops->state_size);
	char *ta, *tb, *ca, *cb;
	struct rng ra, rb;
	int pos, seat, differ = 0, n = 0;

	for (pos = 0; pos < 30; pos++) {
		st = random_position(gc, 2000 + (uint64_t)pos);
		for (seat = 0; seat < gc->nseats; seat++) {
			memcpy(a, st, ops->state_size);
			memcpy(b, st, ops->state_size);
			rng_from(&ra, 1);
			rng_from(&rb, 2);
			ops->determinize(a, seat, &ra);
			ops->determinize(b, seat, &rb);
			ca = cards_of(ops, a);
			cb = cards_of(ops, b);
			differ += strcmp(ca, cb) != 0;
			n++;
			free(ca);
			free(cb);
			rng_from(&ra, 3);
			rng_from(&rb, 3);
			ops->determinize(a, seat, &ra);
			ops->determinize(b, seat, &rb);
			ta = tu_serialise(ops, a);
			tb = tu_serialise(ops, b);
			REQUIRE(strcmp(ta, tb) == 0);
			REQUIRE(memcmp(a, b, ops->state_size) == 0);
			free(ta);
			free(tb);
		}
		free(st);
	}
	ck_assert_int_ge(differ * 10, n * 9);
	free(a);
	free(b);
}
END_TEST

static int
is_legal(const struct game_ops *ops, const void *st, int seat,
    const struct game_move *m)
{
	struct game_move moves[GAME_MAX_MOVES];
	int n = ops->legal(st, seat, moves, GAME_MAX_MOVES), i;

	for (i = 0; i < n; i++)
		if (moves[i].len == m->len &&
		    memcmp(moves[i].d, m->d, m->len) == 0)
			return 1;
	return 0;
}

static int
first_seat(const struct game_ops *ops, const void *st)
{
	uint32_t mask = ops->to_move(st);
	int s;

	for (s = 0; s < GAME_MAX_SEATS; s++)
		if (mask & (1u << s))
			return s;
	return -1;
}

/*
 * The key property: hand the robot the same position with the hidden
 * cards dealt differently (all deals the seat cannot tell apart) and, with
 * its generator in the same state, it makes the same move.
 */
START_TEST(decision_ignores_hidden_cards)
{
	const struct gamecase *gc = &cases[_i];
	const struct game_ops *ops = ops_of(gc);
	struct cardbot_budget budget = { 40, 0 };
	struct game_move m0, m1, m2;
	struct rng r, bot0, bot1, bot2;
	char err[GAME_ERRLEN], *c1, *c2;
	void *st, *s1 = xmalloc(ops->state_size), *s2 =
	    xmalloc(ops->state_size);
	uint32_t x;
	int pos, seat, level, checked = 0, differ = 0;

	for (pos = 0; pos < 24; pos++) {
		st = random_position(gc, 3000 + (uint64_t)pos);
		seat = first_seat(ops, st);
		REQUIRE(seat >= 0);
		memcpy(s1, st, ops->state_size);
		memcpy(s2, st, ops->state_size);
		rng_from(&r, 77 + (uint64_t)pos);
		ops->determinize(s1, seat, &r);
		ops->determinize(s2, seat, &r);
		c1 = cards_of(ops, s1);
		c2 = cards_of(ops, s2);
		differ += strcmp(c1, c2) != 0;
		free(c1);
		free(c2);
		for (level = 1; level <= CARDBOT_MAXLEVEL; level++) {
			rng_from(&bot0, 500 + (uint64_t)(pos * 4 + level));
			bot1 = bot0;
			bot2 = bot0;
			REQUIRE(cardbot_choose(ops, st, seat, level, &budget,
			    &bot0, &m0, err, sizeof(err)) == 0);
			REQUIRE(cardbot_choose(ops, s1, seat, level, &budget,
			    &bot1, &m1, err, sizeof(err)) == 0);
			REQUIRE(cardbot_choose(ops, s2, seat, level, &budget,
			    &bot2, &m2, err, sizeof(err)) == 0);
			REQUIRE(is_legal(ops, st, seat, &m0));
			REQUIRE(m0.len == m1.len && memcmp(m0.d, m1.d,
			    m0.len) == 0);
			REQUIRE(m0.len == m2.len && memcmp(m0.d, m2.d,
			    m0.len) == 0);
			/* The generator is used identically as well. */
			x = rng_u32(&bot0);
			REQUIRE(x == rng_u32(&bot1));
			REQUIRE(x == rng_u32(&bot2));
			checked++;
		}
		free(st);
	}
	ck_assert_int_eq(checked, 24 * CARDBOT_MAXLEVEL);
	ck_assert_int_ge(differ * 10, 24 * 9);
	free(s1);
	free(s2);
}
END_TEST

/* The harness itself can see a dependence on the hidden cards: a chooser
 * that reads the whole state (hidden cards included) is caught. */
START_TEST(peeking_chooser_is_caught)
{
	const struct gamecase *gc = &cases[_i];
	const struct game_ops *ops = ops_of(gc);
	struct game_move moves[GAME_MAX_MOVES];
	struct rng r;
	void *st, *s1 = xmalloc(ops->state_size), *s2 =
	    xmalloc(ops->state_size);
	char *t1, *t2;
	int pos, seat, n, caught = 0;
	uint32_t h1, h2;
	const char *p;

	for (pos = 0; pos < 24; pos++) {
		st = random_position(gc, 3000 + (uint64_t)pos);
		seat = first_seat(ops, st);
		memcpy(s1, st, ops->state_size);
		memcpy(s2, st, ops->state_size);
		rng_from(&r, 77 + (uint64_t)pos);
		ops->determinize(s1, seat, &r);
		ops->determinize(s2, seat, &r);
		n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
		t1 = cards_of(ops, s1);
		t2 = cards_of(ops, s2);
		for (h1 = 0, p = t1; *p; p++)
			h1 = h1 * 31 + (unsigned char)*p;
		for (h2 = 0, p = t2; *p; p++)
			h2 = h2 * 31 + (unsigned char)*p;
		caught += n > 1 && h1 % (uint32_t)n != h2 % (uint32_t)n;
		free(t1);
		free(t2);
		free(st);
	}
	ck_assert_int_gt(caught, 0);
	free(s1);
	free(s2);
}
END_TEST

/* Whole games between robots of mixed levels: every move they choose is
 * legal, for the seat to move, and a single action. */
START_TEST(robots_play_legal_moves)
{
	const struct gamecase *gc = &cases[_i];
	const struct game_ops *ops = ops_of(gc);
	struct cardbot_budget budget = { 12, 0 };
	struct game_result res;
	struct game_move m;
	struct rng bot;
	char err[GAME_ERRLEN];
	void *st;
	int game, ply, seat, level, moves = 0, levels[4] = { 0 };

	for (game = 0; game < 2; game++) {
		st = tu_new(gc->game, gc->match, 4000 + (uint64_t)game,
		    gc->nseats);
		rng_from(&bot, 9000 + (uint64_t)game);
		for (ply = 0; ply < 1500; ply++) {
			ops->result(st, &res);
			if (res.over)
				break;
			seat = first_seat(ops, st);
			level = 1 + (int)rng_below(&bot, CARDBOT_MAXLEVEL);
			REQUIRE(cardbot_choose(ops, st, seat, level, &budget,
			    &bot, &m, err, sizeof(err)) == 0);
			REQUIRE(is_legal(ops, st, seat, &m));
			ops->apply(st, seat, &m);
			moves++;
			levels[level]++;
		}
		free(st);
	}
	ck_assert_int_ge(moves, 300);
	ck_assert_int_gt(levels[1], 0);
	ck_assert_int_gt(levels[2], 0);
	ck_assert_int_gt(levels[3], 0);
}
END_TEST

/* Without an iteration count level 3 stops on the clock. */
START_TEST(wall_time_budget)
{
	const struct gamecase *gc = &cases[_i];
	const struct game_ops *ops = ops_of(gc);
	struct cardbot_budget budget = { 0, 100 };
	struct game_move m;
	struct timespec a, b;
	struct rng bot;
	char err[GAME_ERRLEN];
	void *st = random_position(gc, 5000);
	int seat = first_seat(ops, st);
	double secs;

	rng_from(&bot, 5);
	clock_gettime(CLOCK_MONOTONIC, &a);
	ck_assert_int_eq(cardbot_choose(ops, st, seat, 3, &budget, &bot, &m,
	    err, sizeof(err)), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	ck_assert(is_legal(ops, st, seat, &m));
	/* A forced move returns at once; otherwise about 0.1 s (slower
	 * builds overrun by one batch of iterations at most). */
	ck_assert_msg(secs < 2.0, "took %.2f s", secs);
	free(st);
}
END_TEST

START_TEST(refuses_what_it_cannot_do)
{
	const struct game_ops *sp = tu_def("spite")->ops;
	struct game_move m;
	struct rng bot;
	char err[GAME_ERRLEN];
	void *st = tu_new("spite", "", 1, 2);
	void *mst = tu_new("mancala", "", 1, 2);
	int seat = first_seat(sp, st);

	rng_from(&bot, 1);
	ck_assert_int_eq(cardbot_choose(sp, st, !seat, 1, NULL, &bot, &m, err,
	    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "may not move"));
	ck_assert_int_eq(cardbot_choose(sp, st, seat, 4, NULL, &bot, &m, err,
	    sizeof(err)), -1);
	ck_assert_int_eq(cardbot_choose(sp, st, seat, 0, NULL, &bot, &m, err,
	    sizeof(err)), -1);
	ck_assert_int_eq(cardbot_supports(tu_def("mancala")->ops), 0);
	ck_assert_ptr_null(tu_def("mancala")->ops->determinize);
	ck_assert_int_eq(cardbot_choose(tu_def("mancala")->ops, mst, 0, 1,
	    NULL, &bot, &m, err, sizeof(err)), -1);
	free(st);
	free(mst);
}
END_TEST

/*
 * South's last payoff card is an Ace and every centre stack is empty:
 * playing it wins the round at once.  No other move plays a payoff card
 * (South holds no Ace, no King), and the stock takes what is left of the
 * two packs.
 */
static void *
spite_payoff_position(void)
{
	static const int spay[] = { 1 };
	static const int npay[] = { 9, 8, 7, 6, 5, 10 };
	static const int shand[] = { 4, 7, 9, 11, 12 };
	static const int nhand[] = { 3, 5, 5, 10, 11 };
	int left[14], r, i;
	struct buf b = { 0 };
	void *st;

	for (r = 1; r <= 13; r++)
		left[r] = 8;
	left[spay[0]]--;
	for (i = 0; i < 6; i++)
		left[npay[i]]--;
	for (i = 0; i < 5; i++) {
		left[shand[i]]--;
		left[nhand[i]]--;
	}
	buf_adds(&b, "spite payoff=6 hand=5 centre=3 target=50 "
	    "refill_empty_hand=0 dry_rounds=5\n"
	    "round=1 starter=0 turn=0 over=0 winner=-1 score=0:0 dry=0 "
	    "prev=none\nrng 000102030405060708090a0b0c0d0e0f"
	    "101112131415161718191a1b1c1d1e1f:0:64\nstock:");
	for (r = 1; r <= 13; r++)
		for (i = 0; i < left[r]; i++)
			buf_printf(&b, " %s", rank_names[r]);
	buf_printf(&b, "\nc1: -\nc2: -\nc3: -\nsouth payoff: %s",
	    rank_names[spay[0]]);
	buf_adds(&b, "\nsouth hand:");
	for (i = 0; i < 5; i++)
		buf_printf(&b, " %s", rank_names[shand[i]]);
	buf_adds(&b, "\nsouth s1: -\nsouth s2: -\nsouth s3: -\nsouth s4: -\n"
	    "north payoff:");
	for (i = 0; i < 6; i++)
		buf_printf(&b, " %s", rank_names[npay[i]]);
	buf_adds(&b, "\nnorth hand:");
	for (i = 0; i < 5; i++)
		buf_printf(&b, " %s", rank_names[nhand[i]]);
	buf_adds(&b, "\nnorth s1: -\nnorth s2: -\nnorth s3: -\nnorth s4: -\n");
	st = tu_state(tu_def("spite")->ops, buf_str(&b));
	buf_free(&b);
	return st;
}

START_TEST(spite_plays_payoff_ace)
{
	const struct game_ops *ops = tu_def("spite")->ops;
	struct cardbot_budget budget = { 300, 0 };
	struct game_move m;
	struct rng bot;
	char err[GAME_ERRLEN], text[GAME_MOVE_TEXT];
	void *st = spite_payoff_position();
	int level, trial;

	for (level = 1; level <= CARDBOT_MAXLEVEL; level++)
		for (trial = 0; trial < 3; trial++) {
			rng_from(&bot, (uint64_t)(level * 10 + trial));
			ck_assert_int_eq(cardbot_choose(ops, st, 0, level,
			    &budget, &bot, &m, err, sizeof(err)), 0);
			ops->format_move(st, 0, &m, text, sizeof(text));
			ck_assert_msg(text[0] == 'p' && text[1] == ' ',
			    "level %d played %s", level, text);
		}
	free(st);
}
END_TEST

/*
 * The deal is uniform: in the position below South sees its hand, both
 * payoff tops and nothing else, so each of North's five cards is any of
 * the 97 unseen cards alike; the count of each rank in North's hand over
 * many deals is compared with 5 * unseen(rank) / 97 per deal.
 */
START_TEST(spite_deal_is_uniform)
{
	const struct game_ops *ops = tu_def("spite")->ops;
	static const int visible[14] = { 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1,
		0 };	/* South's A top and 4 7 9 J Q, North's 10 top */
	void *st = spite_payoff_position(), *d = xmalloc(ops->state_size);
	int counts[14] = { 0 }, trial, r, k;
	const int trials = 2000;
	char *text, *line, *w, *save = NULL;
	struct rng rng;
	double want, sd;

	rng_from(&rng, 4242);
	for (trial = 0; trial < trials; trial++) {
		memcpy(d, st, ops->state_size);
		ops->determinize(d, 0, &rng);
		text = tu_serialise(ops, d);
		line = strstr(text, "north hand:");
		REQUIRE(line != NULL);
		line += strlen("north hand:");
		line[strcspn(line, "\n")] = '\0';
		k = 0;
		for (w = strtok_r(line, " ", &save); w != NULL;
		    w = strtok_r(NULL, " ", &save)) {
			for (r = 1; r <= 13; r++)
				if (strcmp(w, rank_names[r]) == 0)
					counts[r]++;
			k++;
		}
		REQUIRE(k == 5);
		free(text);
	}
	for (r = 1; r <= 13; r++) {
		want = (double)trials * 5 * (8 - visible[r]) / 97.0;
		sd = sqrt(want * (1 - (8.0 - visible[r]) / 97.0));
		ck_assert_msg(fabs(counts[r] - want) < 5 * sd, "rank %d: %d "
		    "in North's hand, want about %.0f", r, counts[r], want);
	}
	free(d);
	free(st);
}
END_TEST

/*
 * Aluette, last hand, points 2-2, trick 8 of 9.  West (3 tricks) led the
 * Ace of coins, North and East played low; South (3 tricks, reached first)
 * holds Monsieur and the 4 of swords.  Monsieur takes the trick and South's
 * fourth trick comes first, which wins the hand and the game whatever
 * happens in trick 9; the 4 lets West reach four tricks first, and South's
 * Monsieur in trick 9 only ties West's count, too late.
 */
static const char aluette_take[] =
	"aluette teams=fixed changer=0 mordienne=0 signals=off\n"
	"rng seed 7\n"
	"table 0 1 2 3\n"
	"first_dealer 0\n"
	"hand 5 dealer 0 phase play asked 0\n"
	"points 2 2\n"
	"history 0:5:1 1:5:1 0:5:1 1:5:1\n"
	"seat 0 hand 3co 4sw\n"
	"seat 0 won 1 2 3\n"
	"seat 1 hand Kco\n"
	"seat 1 won 4 5 6\n"
	"seat 2 hand Kcu\n"
	"seat 2 won -\n"
	"seat 3 hand Ksw\n"
	"seat 3 won -\n"
	"stock 7co 7cu 7sw 7cl 8co 8cu 8sw 8cl 9sw 9cl Jco Jcu\n"
	"trick 1 1co 4cu 5cu\n"
	"last 5 1 - 6co 6cu 6sw 6cl\n"
	"signals -\n";

START_TEST(aluette_takes_the_deciding_trick)
{
	const struct game_ops *ops = tu_def("aluette")->ops;
	struct cardbot_budget budget = { 300, 0 };
	struct game_move m;
	struct rng bot;
	char err[GAME_ERRLEN], text[GAME_MOVE_TEXT];
	void *st = tu_state(ops, aluette_take);
	int level, trial;

	ck_assert_int_eq(first_seat(ops, st), 0);
	for (level = 1; level <= CARDBOT_MAXLEVEL; level++)
		for (trial = 0; trial < 3; trial++) {
			rng_from(&bot, (uint64_t)(level * 10 + trial));
			ck_assert_int_eq(cardbot_choose(ops, st, 0, level,
			    &budget, &bot, &m, err, sizeof(err)), 0);
			ops->format_move(st, 0, &m, text, sizeof(text));
			if (level >= 2)
				ck_assert_msg(strcmp(text, "3co") == 0,
				    "level %d played %s", level, text);
		}
	free(st);
}
END_TEST

static Suite *
cardbot_suite(void)
{
	Suite *s = suite_create("cardbot");
	TCase *tc = tcase_create("robots");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, determinize_keeps_view, 0, NCASES);
	tcase_add_loop_test(tc, robot_view_is_the_seats, 0, NCASES);
	tcase_add_loop_test(tc, determinize_depends_on_view_only, 0, NCASES);
	tcase_add_loop_test(tc, reveals_matches_what_seats_see, 0, NCASES);
	tcase_add_loop_test(tc, decision_ignores_hidden_cards, 0, NCASES);
	tcase_add_loop_test(tc, peeking_chooser_is_caught, 0, NCASES);
	tcase_add_loop_test(tc, robots_play_legal_moves, 0, NCASES);
	tcase_add_loop_test(tc, wall_time_budget, 0, NCASES);
	tcase_add_test(tc, refuses_what_it_cannot_do);
	tcase_add_test(tc, spite_plays_payoff_ace);
	tcase_add_test(tc, spite_deal_is_uniform);
	tcase_add_test(tc, aluette_takes_the_deciding_trick);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(cardbot_suite());
}
