/*
 * The engine contract (src/games/game.h), checked over every entry of
 * game_engines[] alike: random games with the invariants every engine
 * keeps, the text form read back, the move log replayed, what a seat sees
 * against deals that differ only in what it cannot see, and no allocation
 * where the contract forbids it.  Each engine's own suite keeps its rules.
 *
 * Variants come from the game's definition: the defaults, then each
 * boolean option flipped, each enum value, each integer option at its
 * minimum (and at 1 when 0 turns it off, and at its maximum when that is
 * at most 64), one at a time (a combination the engine refuses is
 * skipped).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Check records every passing ck_assert (a write each), too slow in
 * loops of millions: this only reports failures. */
#define need(cond, ...) do {						\
	if (!(cond))							\
		ck_abort_msg(__VA_ARGS__);				\
} while (0)

/* Random games per variant, and the plies after which one is stopped
 * (random play in a match of rounds can be long; the invariants are
 * checked at every ply either way). */
#define GAMES		200
#define PLY_CAP		6000
#define MAX_VARIANTS	24

/*
 * Allocations counted, to prove that legal(), apply() and the other hooks
 * the contract says "Must not allocate" never do.  Under the address
 * sanitizer its allocator hooks count; otherwise malloc, calloc and
 * realloc are interposed in this program.
 */
static volatile unsigned long allocs;

#if defined(__SANITIZE_ADDRESS__)
#define ENGINES_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ENGINES_ASAN 1
#endif
#endif

#ifdef ENGINES_ASAN
/* The sanitizers' runtime has it; gcc ships no header that declares it. */
int	__sanitizer_install_malloc_and_free_hooks(
	    void (*)(const volatile void *, size_t),
	    void (*)(const volatile void *));

static void
count_malloc(const volatile void *p, size_t n)
{
	(void)p;
	(void)n;
	allocs++;
}

static void
count_free(const volatile void *p)
{
	(void)p;
}

static void
alloc_counting(void)
{
	static int done;

	if (!done++)
		__sanitizer_install_malloc_and_free_hooks(count_malloc,
		    count_free);
}
#else
void	*__libc_malloc(size_t);
void	*__libc_calloc(size_t, size_t);
void	*__libc_realloc(void *, size_t);

void *
malloc(size_t n)
{
	allocs++;
	return __libc_malloc(n);
}

void *
calloc(size_t n, size_t m)
{
	allocs++;
	return __libc_calloc(n, m);
}

void *
realloc(void *p, size_t n)
{
	allocs++;
	return __libc_realloc(p, n);
}

static void
alloc_counting(void)
{
}
#endif

struct variant {
	char	opts[256];
};

struct engine {
	const struct game_ops *ops;
	const struct gamedef *def;
	struct variant v[MAX_VARIANTS];
	int	nv;
};

static struct engine eng;

static void
add_variant(const char *opts)
{
	if (eng.nv < MAX_VARIANTS)
		snprintf(eng.v[eng.nv++].opts, sizeof(eng.v[0].opts), "%s",
		    opts);
}

/* The engine of the loop index, and its variants from the definition. */
static void
engine_at(int i)
{
	const struct gamedef_opt *o;
	char text[256];
	int k, j;

	alloc_counting();
	memset(&eng, 0, sizeof(eng));
	eng.ops = game_engines[i];
	ck_assert_ptr_nonnull(eng.ops);
	eng.def = tu_def(eng.ops->name);
	ck_assert_ptr_eq(eng.def->ops, eng.ops);
	add_variant("");
	for (k = 0; k < eng.def->nopts; k++) {
		o = &eng.def->opts[k];
		switch (o->type) {
		case GOPT_BOOL:
			snprintf(text, sizeof(text), "%s=%s", o->name,
			    strcmp(o->def, "true") == 0 ? "false" : "true");
			add_variant(text);
			break;
		case GOPT_ENUM:
			for (j = 0; j < o->nvalues; j++)
				if (strcmp(o->values[j], o->def) != 0) {
					snprintf(text, sizeof(text), "%s=%s",
					    o->name, o->values[j]);
					add_variant(text);
				}
			break;
		case GOPT_INT:
			/* The least, the least that is on when 0 is off,
			 * and the most when it keeps games short. */
			for (j = 0; j < 3; j++) {
				long long x = j == 0 ? o->min : j == 1 ?
				    (o->min == 0 ? 1 : o->min) : o->max;

				if ((j == 1 && o->min != 0) ||
				    (j == 2 && o->max > 64) ||
				    x == atoll(o->def))
					continue;
				snprintf(text, sizeof(text), "%s=%lld",
				    o->name, x);
				add_variant(text);
			}
			break;
		case GOPT_STRING:
			break;
		}
	}
}

/* A game of the variant from a numeric seed, or NULL when the engine
 * refuses the options together. */
static void *
new_game(const char *opts, uint64_t n, int *nseats)
{
	const struct game_ops *ops = eng.ops;
	unsigned char seed[RNG_SEED_LEN];
	struct game_opts o;
	char err[GAME_ERRLEN];
	void *st;

	if (gamedef_opts_parse(eng.def, opts, &o, err, sizeof(err)) == -1)
		return NULL;
	*nseats = ops->seats(&o);
	need(*nseats >= 1 && *nseats <= GAME_MAX_SEATS, "%s: %d seats",
	    ops->name, *nseats);
	rng_seed_from_u64(seed, n);
	st = xcalloc(1, ops->state_size);
	if (ops->create(st, &o, seed, *nseats, err, sizeof(err)) == -1) {
		free(st);
		return NULL;
	}
	return st;
}

static char *
ser(const void *st)
{
	return tu_serialise(eng.ops, st);
}

/* Serialise, parse, serialise: the same text; the state read back is
 * returned (owned). */
static void *
round_trip(const void *st)
{
	char *a = ser(st), *b, err[GAME_ERRLEN];
	void *back = xcalloc(1, eng.ops->state_size);

	need(eng.ops->parse_state(back, a, err, sizeof(err)) == 0,
	    "%s: its own text refused: %s\n%s", eng.ops->name, err, a);
	b = ser(back);
	need(strcmp(a, b) == 0, "%s: read back as another state:\n%s\n!=\n%s",
	    eng.ops->name, a, b);
	free(a);
	free(b);
	return back;
}

/*
 * The invariants of one position, every seat's moves listed into moves[]
 * (n[seat] each) with no allocation in legal(), count_legal(), over(),
 * to_move(), result(), evaluate().
 */
static void
check_position(const void *st, int nseats,
    struct game_move moves[][GAME_MAX_MOVES], int n[GAME_MAX_SEATS])
{
	const struct game_ops *ops = eng.ops;
	struct game_result r;
	unsigned long before;
	uint32_t mask;
	int seat, over, e0, e1;

	before = allocs;
	mask = ops->to_move(st);
	ops->result(st, &r);
	over = game_over(ops, st);
	need(allocs == before, "%s: to_move, result or over allocated",
	    ops->name);
	need(over == r.over, "%s: game_over %d, result %d", ops->name, over,
	    r.over);
	if (ops->over != NULL)
		need((ops->over(st) != 0) == r.over, "%s: over() disagrees "
		    "with result()", ops->name);
	need((mask >> nseats) == 0, "%s: mask %#x for %d seats", ops->name,
	    mask, nseats);
	need(r.over ? mask == 0 : mask != 0, "%s: over %d, to move %#x",
	    ops->name, r.over, mask);
	need(!r.draw || (r.over && r.winners == 0), "%s: draw %d over %d "
	    "winners %#x", ops->name, r.draw, r.over, r.winners);
	need(!r.over || r.draw || (r.winners != 0 &&
	    (r.winners >> nseats) == 0), "%s: over without a draw, winners "
	    "%#x", ops->name, r.winners);
	need(r.over || r.winners == 0, "%s: winners while going on",
	    ops->name);
	for (seat = 0; seat < nseats; seat++) {
		before = allocs;
		n[seat] = ops->legal(st, seat, moves[seat], GAME_MAX_MOVES);
		need(allocs == before, "%s: legal() allocated", ops->name);
		need(n[seat] >= 0 && n[seat] <= GAME_MAX_MOVES, "%s: %d moves",
		    ops->name, n[seat]);
		need((n[seat] > 0) == ((mask >> seat) & 1), "%s: seat %d has "
		    "%d moves, to move %#x", ops->name, seat, n[seat], mask);
		if (ops->count_legal != NULL) {
			int c = ops->count_legal(st, seat);

			need(allocs == before, "%s: count_legal() allocated",
			    ops->name);
			need(c == n[seat], "%s: count_legal %d, legal %d",
			    ops->name, c, n[seat]);
		}
	}
	if (ops->evaluate != NULL && !r.over) {
		before = allocs;
		e0 = ops->evaluate(st, 0);
		e1 = nseats == 2 ? ops->evaluate(st, 1) : -e0;
		need(allocs == before, "%s: evaluate() allocated", ops->name);
		need(e0 == -e1, "%s: evaluate %d and %d", ops->name, e0, e1);
		need(e0 > -1000000 && e0 < 1000000, "%s: evaluate %d",
		    ops->name, e0);
	}
}

/* Two moves are the same move when they make the same position. */
static int
same_move(const void *st, int seat, const struct game_move *a,
    const struct game_move *b)
{
	const struct game_ops *ops = eng.ops;
	void *x, *y;
	char *sx, *sy;
	int same;

	if (a->len == b->len && memcmp(a->d, b->d, a->len) == 0)
		return 1;
	x = xmalloc(ops->state_size);
	y = xmalloc(ops->state_size);
	memcpy(x, st, ops->state_size);
	memcpy(y, st, ops->state_size);
	ops->apply(x, seat, a);
	ops->apply(y, seat, b);
	sx = ser(x);
	sy = ser(y);
	same = strcmp(sx, sy) == 0;
	free(sx);
	free(sy);
	free(x);
	free(y);
	return same;
}

struct logged {
	int	seat;
	struct game_move m;
};

static struct game_move all[GAME_MAX_SEATS][GAME_MAX_MOVES];
static struct game_move kids[GAME_MAX_SEATS][GAME_MAX_MOVES];
static struct logged plies[PLY_CAP];

/* A random seat of those in mask. */
static int
random_seat(uint32_t mask, int nseats, struct rng *rng)
{
	int k = 0, seat, pick;

	for (seat = 0; seat < nseats; seat++)
		k += (mask >> seat) & 1;
	pick = (int)rng_below(rng, (uint32_t)k);
	for (seat = 0; seat < nseats; seat++)
		if ((mask >> seat) & 1 && pick-- == 0)
			break;
	return seat;
}

/* Every legal move of the seat applies, without allocating, to a
 * position whose invariants hold. */
static void
apply_each(const void *st, int seat, int n, int nseats, void *copy)
{
	const struct game_ops *ops = eng.ops;
	unsigned long before;
	int knids[GAME_MAX_SEATS], i;

	for (i = 0; i < n; i++) {
		memcpy(copy, st, ops->state_size);
		before = allocs;
		ops->apply(copy, seat, &all[seat][i]);
		need(allocs == before, "%s: apply() allocated", ops->name);
		check_position(copy, nseats, kids, knids);
	}
}

/* The move logged in plies[at], chosen at random among the seat's n
 * legal ones: its notation reads back as the same move, reveals() says
 * so without allocating, and it is played without allocating. */
static void
play_random(void *st, int seat, int n, int at, struct rng *rng)
{
	const struct game_ops *ops = eng.ops;
	struct game_move m;
	unsigned long before;
	char err[GAME_ERRLEN], text[GAME_MOVE_TEXT];

	plies[at].seat = seat;
	plies[at].m = all[seat][rng_below(rng, (uint32_t)n)];
	ops->format_move(st, seat, &plies[at].m, text, sizeof(text));
	need(ops->parse_move(st, seat, text, &m, err, sizeof(err)) == 0,
	    "%s: `%s` refused: %s", ops->name, text, err);
	need(same_move(st, seat, &m, &plies[at].m), "%s: `%s` read back as "
	    "another move", ops->name, text);
	before = allocs;
	if (ops->reveals != NULL)
		(void)ops->reveals(st, seat, &plies[at].m);
	ops->apply(st, seat, &plies[at].m);
	need(allocs == before, "%s: apply() or reveals() allocated",
	    ops->name);
}

/* The log replayed through the notation from a fresh deal ends where
 * the game st did. */
static void
replay(const char *opts, uint64_t g, int nlog, const void *st)
{
	const struct game_ops *ops = eng.ops;
	struct game_move m;
	char err[GAME_ERRLEN], text[GAME_MOVE_TEXT], *a, *b;
	int nseats, i;
	void *copy = new_game(opts, g, &nseats);

	for (i = 0; i < nlog; i++) {
		ops->format_move(copy, plies[i].seat, &plies[i].m, text,
		    sizeof(text));
		need(ops->parse_move(copy, plies[i].seat, text, &m, err,
		    sizeof(err)) == 0, "%s: replay of `%s` at ply %d: %s",
		    ops->name, text, i + 1, err);
		ops->apply(copy, plies[i].seat, &m);
	}
	a = ser(st);
	b = ser(copy);
	need(strcmp(a, b) == 0, "%s (%s) game %llu: the replay ends "
	    "elsewhere:\n%s\n!=\n%s", ops->name, opts, (unsigned long long)g,
	    a, b);
	free(a);
	free(b);
	free(copy);
}

/* One random game of the variant from seed g: -1 when the engine
 * refuses the options, else 1 when it ended within PLY_CAP plies, 0. */
static char *view_of(const void *, int);

static int
random_game(const char *opts, uint64_t g, struct rng *rng)
{
	const struct game_ops *ops = eng.ops;
	int nseats, n[GAME_MAX_SEATS], nlog = 0, seat;
	void *st = new_game(opts, g, &nseats), *copy, *back;
	uint32_t mask;

	if (st == NULL)
		return -1;
	copy = xmalloc(ops->state_size);
	for (;;) {
		check_position(st, nseats, all, n);
		mask = ops->to_move(st);
		if (ops->draw != NULL && (nlog % 61 == 0 || mask == 0))
			for (seat = 0; seat < nseats; seat++)
				free(view_of(st, seat));
		if (mask == 0 || nlog == PLY_CAP)
			break;
		seat = random_seat(mask, nseats, rng);
		if (rng_below(rng, 16) == 0)
			apply_each(st, seat, n[seat], nseats, copy);
		play_random(st, seat, n[seat], nlog++, rng);
		if (rng_below(rng, 64) == 0) {
			/* Go on from the text read back. */
			back = round_trip(st);
			memcpy(st, back, ops->state_size);
			free(back);
		}
	}
	free(round_trip(st));
	replay(opts, g, nlog, st);
	free(copy);
	free(st);
	return mask == 0;
}

/*
 * Random games of every variant: every position's invariants; the chosen
 * move's notation reads back as that move; now and then every legal move
 * applied on a copy and the position after it checked, and the game going
 * on from its text read back; at the end the text round trip and the
 * replay of the move log through the notation from a fresh deal.
 */
START_TEST(engine_random_games)
{
	struct rng rng;
	unsigned char seed[RNG_SEED_LEN];
	int v, g, rc, played = 0, ended = 0;

	engine_at(_i);
	rng_seed_from_u64(seed, 19);
	rng_init(&rng, seed);
	for (v = 0; v < eng.nv; v++)
		for (g = 0; g < GAMES; g++) {
			if ((rc = random_game(eng.v[v].opts, (uint64_t)g,
			    &rng)) < 0)
				break;
			played++;
			ended += rc;
		}
	fprintf(stderr, "%s: %d variants, %d random games, %d ended within "
	    "%d plies\n", eng.ops->name, eng.nv, played, ended, PLY_CAP);
	/* The defaults always make a game, and random games end. */
	ck_assert_int_ge(played, GAMES);
	ck_assert_int_ge(ended, played / 2);
}
END_TEST

/*
 * A drawing of what the viewer sees (ops->draw), checked against the text
 * render() made for the same view: the drawing fits its arrays, allocates
 * nothing, and every diagram of the text (a run of lines that are not
 * running text) has grids for it, no grid stands for a diagram the text
 * lacks, and a grid that follows a line follows one the text has.
 * Appended to b as text, so that the views compared in
 * engine_hidden_cards compare the drawings too.
 */
static void
check_drawing(const void *st, const struct game_view *v, struct buf *b)
{
	const struct game_ops *ops = eng.ops;
	struct game_pic *pic = xcalloc(1, sizeof(*pic));
	struct buf t = { 0 };
	char *style;
	size_t at, end;
	int diagrams = 0, in = 0, i, k, found;
	unsigned long before;
	const struct game_grid *g;

	ops->render(st, v, &t);
	style = xcalloc(1, t.len + 1);
	if (ops->render_style != NULL)
		ops->render_style(st, v, buf_str(&t), t.len, style);
	for (at = 0; at < t.len; at = end + 1) {
		end = at + strcspn(buf_str(&t) + at, "\n");
		if (end == at || style[at] & GAME_STYLE_TEXT)
			in = 0;
		else if (!in++)
			diagrams++;
	}
	before = allocs;
	ops->draw(st, v, pic);
	need(allocs == before, "%s: draw() allocated", ops->name);
	need(!pic->full && (pic->ngrids > 0 || diagrams == 0),
	    "%s: no drawing (%d grids)", ops->name, pic->ngrids);
	for (k = 0; k < diagrams; k++) {
		for (i = 0, found = 0; i < pic->ngrids; i++)
			found |= pic->grid[i].after[0] == '\0' &&
			    pic->grid[i].block == k;
		need(found, "%s: diagram %d of the text is not drawn:\n%s",
		    ops->name, k, buf_str(&t));
	}
	for (i = 0; i < pic->ngrids; i++) {
		g = &pic->grid[i];
		if (g->after[0] == '\0')
			need(g->block < diagrams, "%s: grid %d draws diagram "
			    "%d of %d", ops->name, i, g->block, diagrams);
		else
			need(strstr(buf_str(&t), g->after) != NULL, "%s: grid "
			    "%d follows \"%s\", not in the text", ops->name, i,
			    g->after);
		buf_printf(b, "grid %d %dx%d %s|", g->block, g->rows, g->cols,
		    g->caption);
		for (k = 0; k < g->rows * g->cols; k++)
			buf_printf(b, "%d:%d:%s ", pic->cell[g->first + k].kind,
			    pic->cell[g->first + k].look,
			    pic->cell[g->first + k].text);
		buf_addc(b, '\n');
	}
	free(style);
	buf_free(&t);
	free(pic);
}

/* What a seat sees: its rendering, its legal moves in notation and the
 * public rendering, each with its drawing. */
static char *
view_of(const void *st, int seat)
{
	struct game_view v = { .viewer = seat };
	struct buf b = { 0 };

	eng.ops->render(st, &v, &b);
	if (eng.ops->draw != NULL)
		check_drawing(st, &v, &b);
	buf_adds(&b, "\n--- legal ---\n");
	game_legal_text(eng.ops, st, seat, &b);
	buf_adds(&b, "\n--- public ---\n");
	v.viewer = GAME_PUBLIC;
	eng.ops->render(st, &v, &b);
	if (eng.ops->draw != NULL)
		check_drawing(st, &v, &b);
	return buf_steal(&b);
}

static int hidden_checks, hidden_differ;

/* The seat's view of st, against three deals of what it cannot see. */
static void
check_view(const void *st, int seat, void *d, struct rng *rng)
{
	const struct game_ops *ops = eng.ops;
	char *want = view_of(st, seat), *got, *a, *b;
	unsigned long before;
	int k;

	for (k = 0; k < 3; k++) {
		memcpy(d, st, ops->state_size);
		before = allocs;
		ops->determinize(d, seat, rng);
		need(allocs == before, "%s: determinize() allocated",
		    ops->name);
		got = view_of(d, seat);
		need(strcmp(want, got) == 0, "%s: seat %d sees another deal:"
		    "\n%s\n!=\n%s", ops->name, seat, want, got);
		free(got);
		a = ser(st);
		b = ser(d);
		hidden_differ += strcmp(a, b) != 0;
		free(a);
		free(b);
		hidden_checks++;
	}
	free(want);
}

/* A random game of the variant, every seat's view checked every 37th
 * ply and at the end. */
static int
hidden_game(const char *opts, uint64_t g, struct rng *rng)
{
	const struct game_ops *ops = eng.ops;
	int nseats, n[GAME_MAX_SEATS], seat, ply;
	void *st = new_game(opts, g, &nseats), *d;
	uint32_t mask;

	if (st == NULL)
		return -1;
	d = xmalloc(ops->state_size);
	for (ply = 0; ply < PLY_CAP; ply++) {
		check_position(st, nseats, all, n);
		mask = ops->to_move(st);
		if (ply % 37 == 0 || mask == 0)
			for (seat = 0; seat < nseats; seat++)
				check_view(st, seat, d, rng);
		if (mask == 0)
			break;
		seat = random_seat(mask, nseats, rng);
		ops->apply(st, seat, &all[seat][rng_below(rng,
		    (uint32_t)n[seat])]);
	}
	free(d);
	free(st);
	return 0;
}

/*
 * Engines with hidden cards (those with determinize()): at random points
 * of random games, each seat's view is the same in every deal that differs
 * from the real one only in cards the seat cannot see, dealt by
 * determinize() with fresh numbers (the seat's own cards, the public ones
 * and the counts stay); such deals do differ from the real one, and
 * determinize() does not allocate.
 */
START_TEST(engine_hidden_cards)
{
	struct rng rng;
	unsigned char seed[RNG_SEED_LEN];
	int v, g;

	engine_at(_i);
	if (eng.ops->determinize == NULL)
		return;		/* nothing hidden to deal afresh */
	rng_seed_from_u64(seed, 6);
	rng_init(&rng, seed);
	hidden_checks = hidden_differ = 0;
	for (v = 0; v < eng.nv; v++)
		for (g = 0; g < GAMES / 4; g++)
			if (hidden_game(eng.v[v].opts, (uint64_t)g + 500,
			    &rng) < 0)
				break;
	fprintf(stderr, "%s: %d views against other deals, %d of the deals "
	    "differ\n", eng.ops->name, hidden_checks, hidden_differ);
	ck_assert_int_gt(hidden_checks, 100);
	/* Most positions hide something (a hand, the stock). */
	ck_assert_int_gt(hidden_differ, hidden_checks / 2);
}
END_TEST

/*
 * The registry: every engine is found by its name and has a definition
 * naming it; names are unique; the mandatory hooks are there.
 */
START_TEST(engine_table)
{
	const struct game_ops *ops;
	int j;

	engine_at(_i);
	ops = eng.ops;
	ck_assert_ptr_eq(game_find(ops->name), ops);
	for (j = 0; game_engines[j] != NULL; j++)
		if (j != _i)
			ck_assert_str_ne(game_engines[j]->name, ops->name);
	ck_assert(ops->state_size > 0);
	ck_assert(ops->create && ops->seats && ops->seat_name &&
	    ops->to_move && ops->legal && ops->parse_move &&
	    ops->format_move && ops->apply && ops->result && ops->render &&
	    ops->serialise && ops->parse_state && ops->export_json);
	ck_assert_int_ge(eng.nv, 1);
	/* Every game's board is drawn in the HTML part. */
	ck_assert(ops->draw != NULL);
}
END_TEST

static int
nengines(void)
{
	int n = 0;

	while (game_engines[n] != NULL)
		n++;
	return n;
}

static Suite *
engines_suite(void)
{
	Suite *s = suite_create("engines");
	TCase *tc = tcase_create("contract");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, engine_table, 0, nengines());
	tcase_add_loop_test(tc, engine_random_games, 0, nengines());
	tcase_add_loop_test(tc, engine_hidden_cards, 0, nengines());
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(engines_suite());
}
