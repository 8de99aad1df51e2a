/*
 * mancala: Kalah as rules.md settles it.
 *
 * The board is the ring mancala.h describes.  Sowing walks the ring
 * forwards and skips the opponent's store.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "mancala.h"
#include "../i18n.h"

#define RING		MANCALA_RING

enum { SOUTH, NORTH };

static const char *const seat_names[] = { N_("South"), N_("North") };

static int
pit_at(const struct mancala *m, int side, int pit)
{
	return side * (m->pits + 1) + pit - 1;
}

static int
store_at(const struct mancala *m, int side)
{
	return side * (m->pits + 1) + m->pits;
}

static int
mancala_seats(const struct game_opts *o)
{
	(void)o;
	return 2;
}

static const char *
mancala_seat_name(const void *st, int seat)
{
	(void)st;
	return seat >= 0 && seat < 2 ? seat_names[seat] : "?";
}

static int
mancala_create(void *st, const struct game_opts *o,
    const unsigned char seed[RNG_SEED_LEN], int nseats, char *err,
    size_t errlen)
{
	struct mancala *m = st;
	long long pits = game_opt_int(o, "pits");
	long long seeds = game_opt_int(o, "seeds");
	int side, i;

	(void)seed;
	if (nseats != 2) {
		util_err(err, errlen, _("Mancala is for 2 players, not %d"),
		    nseats);
		return -1;
	}
	if (pits < 3 || pits > MANCALA_MAXPITS || seeds < 1 || seeds > 10) {
		util_err(err, errlen, _("pits must be 3-%d and seeds 1-10"),
		    MANCALA_MAXPITS);
		return -1;
	}
	memset(m, 0, sizeof(*m));
	m->pits = (uint8_t)pits;
	m->seeds = (uint8_t)seeds;
	m->empty_capture = game_opt_int(o, "empty_capture") != 0;
	for (side = 0; side < 2; side++)
		for (i = 1; i <= m->pits; i++)
			m->ring[pit_at(m, side, i)] = m->seeds;
	return 0;
}

static uint32_t
mancala_to_move(const void *st)
{
	const struct mancala *m = st;

	return m->over ? 0 : 1u << m->turn;
}

static int
mancala_legal(const void *st, int seat, struct game_move *out, int max)
{
	const struct mancala *m = st;
	const uint8_t *row = m->ring + seat * (m->pits + 1);
	int i, n = 0;

	if (m->over || seat != m->turn)
		return 0;
	for (i = 0; i < m->pits && n < max; i++) {
		if (row[i] == 0)
			continue;
		out[n].len = 1;
		out[n].d[0] = (uint8_t)(i + 1);
		n++;
	}
	return n;
}

static void
mancala_format_move(const void *st, int seat, const struct game_move *mv,
    char *out, size_t len)
{
	(void)st;
	(void)seat;
	snprintf(out, len, "%d", mv->d[0]);
}

static void
legal_list(const struct mancala *m, int seat, char *out, size_t len)
{
	size_t used = 0;
	int i;

	out[0] = '\0';
	for (i = 1; i <= m->pits; i++) {
		if (m->ring[pit_at(m, seat, i)] == 0)
			continue;
		used += (size_t)snprintf(out + used, len - used, "%s%d",
		    used ? ", " : "", i);
		if (used >= len)
			break;
	}
}

static int
mancala_parse_move(const void *st, int seat, const char *text,
    struct game_move *mv, char *err, size_t errlen)
{
	const struct mancala *m = st;
	char legal[64];
	long long pit;

	if (m->over) {
		util_err(err, errlen, "%s", _("the game is over"));
		return -1;
	}
	if (seat != m->turn) {
		util_err(err, errlen, _("it is %s's turn, not %s's"),
		    _(seat_names[m->turn]), _(mancala_seat_name(st, seat)));
		return -1;
	}
	legal_list(m, seat, legal, sizeof(legal));
	/* The pit as ludus-games(7) writes it: one digit, without a sign
	 * or a leading zero. */
	if (text[0] < '1' || text[0] > '0' + m->pits || text[1] != '\0') {
		util_err(err, errlen, _("`%s` is not a pit: give a pit number "
		    "1-%d (legal now: %s)"), text, m->pits, legal);
		return -1;
	}
	pit = text[0] - '0';
	if (m->ring[pit_at(m, seat, (int)pit)] == 0) {
		util_err(err, errlen, _("pit %lld is empty (legal now: %s)"), pit,
		    legal);
		return -1;
	}
	mv->len = 1;
	memset(mv->d, 0, sizeof(mv->d));
	mv->d[0] = (uint8_t)pit;
	return 0;
}

/*
 * Sowing by table: less than a lap of seeds from a pit empties it and adds
 * one to a run of holes in sowing order, the same run whatever the board
 * holds.  For each board size, seat, pit and number of seeds below a lap
 * the table keeps that change of the ring and the hole of the last seed.
 * The ring is read as three 64-bit words and the change is one word add
 * each: bytewise it is taking the seeds from the pit (which holds exactly
 * that many, so no byte borrows) and adding the run (no hole ever holds
 * more than the 160 seeds of the largest board, so no byte carries), and
 * modulo 2^64 the order of the two does not matter.  The words are written
 * back at once, before any byte of them is written, so that no word is
 * read just after a byte of it was written (which stalls the read).  With
 * the tables go each side's pits as a mask of the words: a side's n <= 8
 * pits are n holes in a row, so their bytes sit at distinct places of
 * their words and the three masked words ORed keep one byte per pit.
 */
#if RING > 24
#error "the ring is kept in three words"
#endif
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif
struct sow {
	uint64_t delta[3];
	uint8_t	last;
};
struct sow_size {
	struct sow sow[2][MANCALA_MAXPITS][RING - 1];
	uint64_t row[2][3];	/* each side's pits */
	int	ready;
};
static struct sow_size sow_table[MANCALA_MAXPITS + 1];

static void
sow_build(struct sow_size *z, int n)
{
	int ringlen = 2 * (n + 1), seat, pit, seeds, pos, k;
	uint8_t bytes[24];
	uint64_t add[3], sub[3];

	for (seat = 0; seat < 2; seat++) {
		for (pit = 0; pit < n; pit++)
			for (seeds = 0; seeds < ringlen - 1; seeds++) {
				struct sow *w = &z->sow[seat][pit][seeds];

				memset(bytes, 0, sizeof(bytes));
				pos = seat * (n + 1) + pit;
				bytes[pos] = (uint8_t)seeds;
				memcpy(sub, bytes, sizeof(sub));
				memset(bytes, 0, sizeof(bytes));
				for (k = 0; k < seeds; k++) {
					if (++pos == ringlen)
						pos = 0;
					if (pos == ringlen - 1 - seat * (n + 1))
						pos = pos + 1 == ringlen ? 0 :
						    pos + 1;
					bytes[pos]++;
				}
				memcpy(add, bytes, sizeof(add));
				for (k = 0; k < 3; k++)
					w->delta[k] = add[k] - sub[k];
				w->last = (uint8_t)pos;
			}
		memset(bytes, 0, sizeof(bytes));
		memset(bytes + seat * (n + 1), 0xff, (size_t)n);
		memcpy(z->row[seat], bytes, sizeof(z->row[seat]));
	}
	z->ready = 1;
}

/*
 * The tables of a board size.  With GCC and Clang every size is built
 * before main(), so the hot paths need not ask (asking there costs more
 * than the rest of a count); elsewhere they are built on first use.
 */
#if defined(__GNUC__)
__attribute__((constructor)) static void
sow_build_all(void)
{
	int n;

	for (n = 3; n <= MANCALA_MAXPITS; n++)
		sow_build(&sow_table[n], n);
}
#define sow_size(n)	(&sow_table[n])
#else
static const struct sow_size *
sow_size(int n)
{
	struct sow_size *z = &sow_table[n];

	if (!z->ready)
		sow_build(z, n);
	return z;
}
#endif

/* A side's pits from the ring's words, one byte per pit. */
static uint64_t
row_bytes(const struct sow_size *z, int side, uint64_t w0, uint64_t w1,
    uint64_t w2)
{
	return (w0 & z->row[side][0]) | (w1 & z->row[side][1]) |
	    (w2 & z->row[side][2]);
}

/*
 * Whole laps (rare): every hole but the opponent's store gets one seed a
 * lap, and the sowing is back where it began, with the rest (returned)
 * still to sow from there.  Out of line, like sweep(), so that the common
 * sowing keeps few registers.
 */
NOINLINE static int
sow_laps(struct mancala *m, int seat, int start, int seeds)
{
	int n = m->pits, ringlen = 2 * (n + 1), i;
	int laps = seeds / (ringlen - 1), their_store = ringlen - 1 -
	    seat * (n + 1);

	seeds -= laps * (ringlen - 1);
	for (i = 0; i < ringlen; i++)
		m->ring[i] = (uint8_t)(m->ring[i] + laps);
	m->ring[their_store] = (uint8_t)(m->ring[their_store] - laps);
	m->ring[start] = (uint8_t)(laps + seeds);
	return seeds;
}

/* The game ends: each side's seeds go to its own store. */
NOINLINE static void
sweep(struct mancala *m)
{
	int n = m->pits, i;

	for (i = 0; i < n; i++) {
		m->ring[n] = (uint8_t)(m->ring[n] + m->ring[i]);
		m->ring[2 * n + 1] = (uint8_t)(m->ring[2 * n + 1] +
		    m->ring[n + 1 + i]);
		m->ring[i] = m->ring[n + 1 + i] = 0;
	}
	m->over = 1;
}

/* GCC's vectoriser pairs two of the words in one register and then
 * spills them to take them apart again. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-slp-vectorize")))
#endif
static void
mancala_apply(void *st, int seat, const struct game_move *mv)
{
	struct mancala *m = st;
	uint8_t *ring = m->ring;
	int n = m->pits, ringlen = 2 * (n + 1);
	int own_store = seat * (n + 1) + n;
	int start = seat * (n + 1) + mv->d[0] - 1, pos;
	int seeds = ring[start], over;
	const struct sow_size *z = sow_size(n);
	const struct sow *w;
	uint64_t w0, w1, w2;

	if (seeds >= ringlen - 1)
		seeds = sow_laps(m, seat, start, seeds);
	memcpy(&w0, ring, 8);
	memcpy(&w1, ring + 8, 8);
	memcpy(&w2, ring + 16, 8);
	w = &z->sow[seat][mv->d[0] - 1][seeds];
	pos = w->last;
	w0 += w->delta[0];
	w1 += w->delta[1];
	w2 += w->delta[2];
	memcpy(ring, &w0, 8);
	memcpy(ring + 8, &w1, 8);
	memcpy(ring + 16, &w2, 8);

	m->last_seat = (uint8_t)seat;
	m->last_pit = mv->d[0];
	m->ply++;
	if (pos != own_store) {
		m->turn = (uint8_t)!seat;
		/* Capture: the last seed made an own empty pit hold one.
		 * The pit opposite ring[pos] is ring[2n - pos] from either
		 * side. */
		if ((unsigned)(pos - seat * (n + 1)) < (unsigned)n &&
		    ring[pos] == 1 && (ring[2 * n - pos] > 0 ||
		    m->empty_capture)) {
			ring[own_store] = (uint8_t)(ring[own_store] +
			    ring[2 * n - pos] + 1);
			ring[2 * n - pos] = 0;
			ring[pos] = 0;
			memcpy(&w0, ring, 8);
			memcpy(&w1, ring + 8, 8);
			memcpy(&w2, ring + 16, 8);
		}
	}
	over = row_bytes(z, SOUTH, w0, w1, w2) == 0 ||
	    row_bytes(z, NORTH, w0, w1, w2) == 0;
	if (over)
		sweep(m);
}

/* Cheaper than result() for searches: no result to build. */
static int
mancala_over(const void *st)
{
	return ((const struct mancala *)st)->over;
}

/* The number of bytes of x that are not zero. */
static int
nonzero_bytes(uint64_t x)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;

	/* The top bit of each byte is set when the byte is not zero; then
	 * the bytes' sum. */
	x = (((x & low7) + low7) | x) & ~low7;
	return (int)(((x >> 7) * 0x0101010101010101ULL) >> 56);
}

/* The pits of the seat that hold seeds, counted a word at a time. */
static int
mancala_count_legal(const void *st, int seat)
{
	const struct mancala *m = st;
	const struct sow_size *z;
	uint64_t w0, w1, w2;

	if (m->over || seat != m->turn)
		return 0;
	z = sow_size(m->pits);
	memcpy(&w0, m->ring, 8);
	memcpy(&w1, m->ring + 8, 8);
	memcpy(&w2, m->ring + 16, 8);
	return nonzero_bytes(row_bytes(z, seat, w0, w1, w2));
}

static void
mancala_result(const void *st, struct game_result *r)
{
	const struct mancala *m = st;
	int s = m->ring[store_at(m, SOUTH)], n = m->ring[store_at(m, NORTH)];

	memset(r, 0, sizeof(*r));
	r->score[SOUTH] = s;
	r->score[NORTH] = n;
	if (!m->over)
		return;
	r->over = 1;
	if (s == n) {
		r->draw = 1;
		snprintf(r->text, sizeof(r->text), _("draw, %d-%d"), s, n);
	} else {
		r->winners = 1u << (s > n ? SOUTH : NORTH);
		snprintf(r->text, sizeof(r->text), _("%s wins %d-%d"),
		    _(seat_names[s > n ? SOUTH : NORTH]), s > n ? s : n,
		    s > n ? n : s);
	}
}

static const char *
view_name(const struct game_view *v, int seat)
{
	return v->names[seat] ? v->names[seat] : _(seat_names[seat]);
}

static void
render_row_line(struct buf *b, int pits)
{
	int i;

	buf_adds(b, "      +");
	for (i = 0; i < pits; i++)
		buf_adds(b, "----+");
	buf_addc(b, '\n');
}

/*
 * The look of mancala_render()'s text: each side's seeds in its seat's
 * colour, the stores bold, the pit last sown highlighted, the lines under
 * the board running text.  Lines are found by their place in the layout.
 */
static void
mancala_render_style(const void *st, const struct game_view *v,
    const char *text, size_t len, char *style)
{
	const struct mancala *m = st;
	int me = v->viewer == NORTH ? NORTH : SOUTH, them = !me, line = 0;
	int seat, pit, k;
	size_t at = 0, end, i;

	for (; at < len; at = end + 1, line++) {
		end = at + strcspn(text + at, "\n");
		if (end > len)
			end = len;
		if (line >= 9 || line == 0 || line == 8) {
			/* The lines naming the sides are text: a long name
			 * must not widen the board. */
			if (end > at)
				style[at] |= GAME_STYLE_TEXT;
		}
		if (line >= 9)
			continue;
		for (i = at; i < end; i++) {
			char c = text[i];

			if (c == '+' || c == '-' || c == '|' ||
			    line == 1 || line == 7)
				style[i] = c == ' ' ? 0 : GAME_STYLE_DIM;
		}
		if (line == 0 || line == 8) {
			seat = line == 0 ? them : me;
			/* The seat's name in brackets: "(North)". */
			for (i = end; i > at && text[i - 1] != '('; i--)
				;
			for (; i > at && i < end && text[i] != ')'; i++)
				style[i] = GAME_STYLE_SEAT(seat);
			style[at] |= GAME_STYLE_TEXT;
		} else if (line == 3 || line == 5) {
			seat = line == 3 ? them : me;
			for (k = 0; k < m->pits; k++) {
				pit = line == 3 ? m->pits - k : k + 1;
				i = at + 7 + 5 * (size_t)k;
				if (i + 4 > end)
					break;
				style[i] = style[i + 1] = style[i + 2] =
				    style[i + 3] = (char)GAME_STYLE_SEAT(seat);
				if (m->ply > 0 && m->last_seat == seat &&
				    m->last_pit == pit)
					style[i] = style[i + 1] = style[i + 2] =
					    style[i + 3] = (char)(GAME_STYLE_SEAT(
					    seat) | GAME_STYLE_LAST);
			}
		} else if (line == 4) {
			/* " [ 0] +----+ [ 0]": them left, me right. */
			for (i = at; i < end; i++) {
				if (text[i] == '[' || text[i] == ']' ||
				    (text[i] >= '0' && text[i] <= '9') ||
				    (text[i] == ' ' && i > at && i + 1 < end &&
				    (text[i - 1] == '[' || text[i + 1] == ']')))
					style[i] = (char)(GAME_STYLE_SEAT(i <
					    at + 6 ? them : me) |
					    GAME_STYLE_BOLD);
			}
		}
	}
}

/*
 * The viewer's own row is at the bottom, numbered 1..n left to right as
 * they count; the far row is numbered as its owner counts, so right to left.
 * The bottom player's store is on the right, the other's on the left.
 */
static void
mancala_render(const void *st, const struct game_view *v, struct buf *b)
{
	const struct mancala *m = st;
	int me = v->viewer == NORTH ? NORTH : SOUTH, them = !me, i;

	buf_adds(b, "        ");
	buf_printf(b, _("%s (%s), store on the left"), view_name(v, them),
	    _(seat_names[them]));
	buf_addc(b, '\n');
	buf_adds(b, "      ");
	for (i = m->pits; i >= 1; i--)
		buf_printf(b, "  %d  ", i);
	buf_addc(b, '\n');
	render_row_line(b, m->pits);
	buf_adds(b, "      |");
	for (i = m->pits; i >= 1; i--)
		buf_printf(b, " %2d |", m->ring[pit_at(m, them, i)]);
	buf_addc(b, '\n');
	buf_printf(b, " [%2d] ", m->ring[store_at(m, them)]);
	for (i = 0; i < m->pits; i++)
		buf_adds(b, i ? "+----" : "+----");
	buf_printf(b, "+ [%2d]\n", m->ring[store_at(m, me)]);
	buf_adds(b, "      |");
	for (i = 1; i <= m->pits; i++)
		buf_printf(b, " %2d |", m->ring[pit_at(m, me, i)]);
	buf_addc(b, '\n');
	render_row_line(b, m->pits);
	buf_adds(b, "      ");
	for (i = 1; i <= m->pits; i++)
		buf_printf(b, "  %d  ", i);
	buf_addc(b, '\n');
	buf_adds(b, "        ");
	buf_printf(b, _("%s (%s), store on the right"), view_name(v, me),
	    _(seat_names[me]));
	buf_adds(b, "\n\n");

	buf_printf(b, _("Stores: %s %d, %s %d."), _(seat_names[SOUTH]),
	    m->ring[store_at(m, SOUTH)], _(seat_names[NORTH]),
	    m->ring[store_at(m, NORTH)]);
	buf_addc(b, '\n');
	if (m->ply == 0)
		buf_printf(b, "%s\n", _("No move yet."));
	else {
		buf_printf(b, _("Last move: %s (%s) sowed pit %d."),
		    view_name(v, m->last_seat), _(seat_names[m->last_seat]),
		    m->last_pit);
		buf_addc(b, '\n');
	}
	if (m->over) {
		struct game_result r;

		mancala_result(st, &r);
		buf_printf(b, _("Game over: %s."), r.text);
		buf_addc(b, '\n');
	} else if (!v->no_turn) {
		buf_printf(b, _("%s (%s) to move."), view_name(v, m->turn),
		    _(seat_names[m->turn]));
		buf_addc(b, '\n');
	}
}

/*
 * The drawing: the far row above (numbered as its owner counts, so right
 * to left), the viewer's row below, each side's store at its end as
 * mancala_render() places them, the pit last sown marked.
 */
static void
mancala_draw(const void *st, const struct game_view *v, struct game_pic *pic)
{
	const struct mancala *m = st;
	int me = v->viewer == NORTH ? NORTH : SOUTH, them = !me, i, col, seat;
	int pit, look;
	struct game_grid *g;
	struct game_cell *c;
	char t[8];

	g = game_pic_grid(pic, GAME_GRID_BOARD, 4, m->pits + 2, 0, NULL);
	if (g == NULL)
		return;
	for (i = 0; i < m->pits; i++) {
		col = i + 1;
		for (seat = 0; seat < 2; seat++) {
			pit = seat == them ? m->pits - i : i + 1;
			snprintf(t, sizeof(t), "%d", pit);
			game_pic_set(pic, g, seat == them ? 0 : 3, col,
			    GAME_CELL_LABEL, GAME_STYLE_DIM, t);
			snprintf(t, sizeof(t), "%d",
			    m->ring[pit_at(m, seat, pit)]);
			look = GAME_STYLE_SEAT(seat);
			if (m->ply > 0 && m->last_seat == seat &&
			    m->last_pit == pit)
				look |= GAME_STYLE_LAST;
			game_pic_set(pic, g, seat == them ? 1 : 2, col,
			    GAME_CELL_PIT, look, t);
		}
	}
	for (seat = 0; seat < 2; seat++) {
		col = seat == them ? 0 : m->pits + 1;
		snprintf(t, sizeof(t), "%d", m->ring[store_at(m, seat)]);
		c = game_pic_set(pic, g, 1, col, GAME_CELL_STORE,
		    GAME_STYLE_SEAT(seat) | GAME_STYLE_BOLD, t);
		if (c != NULL)
			c->rowspan = 2;
	}
}

static void
mancala_serialise(const void *st, struct buf *b)
{
	const struct mancala *m = st;
	int side, i;

	buf_printf(b, "mancala pits=%d seeds=%d empty_capture=%d\n", m->pits,
	    m->seeds, m->empty_capture);
	for (side = 0; side < 2; side++) {
		buf_adds(b, side == SOUTH ? "south" : "north");
		for (i = 1; i <= m->pits; i++)
			buf_printf(b, " %d", m->ring[pit_at(m, side, i)]);
		buf_printf(b, " store %d\n", m->ring[store_at(m, side)]);
	}
	buf_printf(b, "turn=%d over=%d ply=%d last=%d:%d\n", m->turn, m->over,
	    m->ply, m->last_seat, m->last_pit);
}

static int
parse_row(struct mancala *m, int side, const char *line)
{
	const char *want = side == SOUTH ? "south" : "north";
	int i, v, used;

	if (strncmp(line, want, strlen(want)) != 0)
		return -1;
	line += strlen(want);
	for (i = 1; i <= m->pits; i++) {
		if (sscanf(line, " %d%n", &v, &used) != 1 || v < 0 || v > 255)
			return -1;
		m->ring[pit_at(m, side, i)] = (uint8_t)v;
		line += used;
	}
	if (sscanf(line, " store %d%n", &v, &used) != 1 || v < 0 || v > 255 ||
	    line[used] != '\0')
		return -1;
	m->ring[store_at(m, side)] = (uint8_t)v;
	return 0;
}

static int
mancala_parse_state(void *st, const char *text, char *err, size_t errlen)
{
	struct mancala m;
	char *copy, *line[4], *p;
	int pits, seeds, ec, turn, over, ply, ls, lp, n = 0, rc = -1, end;

	memset(&m, 0, sizeof(m));
	copy = xstrdup(text);
	for (p = copy; n < 4 && p != NULL; n++) {
		line[n] = p;
		if ((p = strchr(p, '\n')) != NULL)
			*p++ = '\0';
	}
	if (n < 4)
		goto bad;
	if (sscanf(line[0], "mancala pits=%d seeds=%d empty_capture=%d%n",
	    &pits, &seeds, &ec, &end) != 3 || line[0][end] != '\0' ||
	    pits < 3 || pits > MANCALA_MAXPITS || seeds < 1 || seeds > 10 ||
	    (ec != 0 && ec != 1))
		goto bad;
	m.pits = (uint8_t)pits;
	m.seeds = (uint8_t)seeds;
	m.empty_capture = (uint8_t)ec;
	if (parse_row(&m, SOUTH, line[1]) == -1 ||
	    parse_row(&m, NORTH, line[2]) == -1)
		goto bad;
	if (sscanf(line[3], "turn=%d over=%d ply=%d last=%d:%d%n", &turn,
	    &over, &ply, &ls, &lp, &end) != 5 || line[3][end] != '\0' ||
	    turn < 0 || turn > 1 || over < 0 || over > 1 || ply < 0 ||
	    ply > 65535 || ls < 0 || ls > 1 || lp < 0 || lp > pits)
		goto bad;
	m.turn = (uint8_t)turn;
	m.over = (uint8_t)over;
	m.ply = (uint16_t)ply;
	m.last_seat = (uint8_t)ls;
	m.last_pit = (uint8_t)lp;
	memcpy(st, &m, sizeof(m));
	rc = 0;
bad:
	if (rc == -1)
		util_err(err, errlen, "malformed Mancala state");
	free(copy);
	return rc;
}

static void
mancala_export_json(const void *st, struct buf *b)
{
	const struct mancala *m = st;
	int side, i;

	buf_printf(b, "{\"game\":\"mancala\",\"pits\":%d,\"seeds\":%d,"
	    "\"empty_capture\":%s,\"ply\":%d,\"to_move\":%s,\"over\":%s",
	    m->pits, m->seeds, m->empty_capture ? "true" : "false", m->ply,
	    m->over ? "null" : m->turn == SOUTH ? "\"South\"" : "\"North\"",
	    m->over ? "true" : "false");
	for (side = 0; side < 2; side++) {
		buf_printf(b, ",\"%s\":{\"pits\":[", side ? "north" : "south");
		for (i = 1; i <= m->pits; i++)
			buf_printf(b, "%s%d", i > 1 ? "," : "",
			    m->ring[pit_at(m, side, i)]);
		buf_printf(b, "],\"store\":%d}", m->ring[store_at(m, side)]);
	}
	if (m->ply)
		buf_printf(b, ",\"last\":{\"seat\":\"%s\",\"pit\":%d}",
		    seat_names[m->last_seat], m->last_pit);
	buf_adds(b, "}");
}

/*
 * For the robots.  Seeds in a store are won for good.  Seeds still in a
 * seat's own pits count only a little: the final sweep gives each side its
 * own pits, but hoarding them (rather than sowing on past the store) lost
 * to the plainest play in robot-against-robot trials.  A pit whose seeds end
 * exactly in the store is a free extra turn waiting to be taken, and being
 * the seat to move is worth about a seed.  Every term is counted for both
 * seats alike and subtracted, which makes the score antisymmetric.
 */
static int
mancala_side_value(const struct mancala *m, int side)
{
	int i, v = 100 * m->ring[store_at(m, side)];

	if (!m->over && m->turn == side)
		v += 100;
	for (i = 1; i <= m->pits; i++) {
		int seeds = m->ring[pit_at(m, side, i)];

		v += 5 * seeds;
		if (seeds == m->pits + 1 - i)
			v += 30;
	}
	return v;
}

static int
mancala_evaluate(const void *st, int seat)
{
	const struct mancala *m = st;

	return mancala_side_value(m, seat) - mancala_side_value(m, !seat);
}

/* The endgame database's value, as the final margin for seat. */
static int
mancala_exact(const void *st, int seat, int *margin)
{
	const struct mancala *m = st;
	int gain;

	if (mancala_db_value(&mancala_ops, m, &gain) == 0)
		return 0;
	*margin = m->ring[store_at(m, seat)] - m->ring[store_at(m, !seat)] +
	    (seat == m->turn ? gain : -gain);
	return 1;
}

/* A pit is a number; any number is an attempt at one. */
static int
mancala_move_word(const void *st, const char *w)
{
	(void)st;
	return strspn(w, "0123456789") == strlen(w);
}

/* An extra turn goes on with the same player's turn: no sowing closes it
 * while its player is still to move, so the opponent hears of the whole
 * run (`3, 6`) once. */
static int
mancala_ends_turn(int seat, const char *notation)
{
	(void)seat;
	(void)notation;
	return 0;
}

const struct game_ops mancala_ops = {
	.name = "mancala",
	.title = N_("Mancala (Kalah)"),
	.state_size = sizeof(struct mancala),
	.create = mancala_create,
	.seats = mancala_seats,
	.seat_name = mancala_seat_name,
	.to_move = mancala_to_move,
	.legal = mancala_legal,
	.parse_move = mancala_parse_move,
	.format_move = mancala_format_move,
	.apply = mancala_apply,
	.result = mancala_result,
	.render = mancala_render,
	.render_style = mancala_render_style,
	.draw = mancala_draw,
	.serialise = mancala_serialise,
	.parse_state = mancala_parse_state,
	.export_json = mancala_export_json,
	.evaluate = mancala_evaluate,
	.move_word = mancala_move_word,
	.ends_turn = mancala_ends_turn,
	.over = mancala_over,
	.count_legal = mancala_count_legal,
	.exact = mancala_exact,
};
