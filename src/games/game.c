/* game: what every engine shares (the registry is registry.c). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "../i18n.h"

static const struct game_optval *
opt_find(const struct game_opts *o, const char *name)
{
	int i;

	for (i = 0; i < o->n; i++)
		if (strcmp(o->v[i].name, name) == 0)
			return &o->v[i];
	return NULL;
}

long long
game_opt_int(const struct game_opts *o, const char *name)
{
	const struct game_optval *v = opt_find(o, name);

	if (v == NULL)
		fatal("game option %s missing: engine and definition disagree",
		    name);
	return v->ival;
}

const char *
game_opt_str(const struct game_opts *o, const char *name)
{
	const struct game_optval *v = opt_find(o, name);

	if (v == NULL)
		fatal("game option %s missing: engine and definition disagree",
		    name);
	return v->sval;
}

void
game_opt_set(struct game_opts *o, const char *name, long long ival,
    const char *sval)
{
	struct game_optval *v = (struct game_optval *)opt_find(o, name);

	if (v == NULL) {
		if (o->n >= GAME_MAX_OPTS)
			fatal("too many game options");
		v = &o->v[o->n++];
		util_strlcpy(v->name, name, sizeof(v->name));
	}
	v->ival = ival;
	util_strlcpy(v->sval, sval ? sval : "", sizeof(v->sval));
}

int
game_apply_line(const struct game_ops *ops, void *st, int seat,
    const char *line, struct game_move *moves, int maxmoves, int *failed,
    char *err, size_t errlen)
{
	char *copy, *p, *piece, merr[GAME_ERRLEN];
	void *work;
	struct game_move m;
	int n = 0, idx = 0, rc = -1;

	if (failed)
		*failed = -1;
	work = xmalloc(ops->state_size);
	memcpy(work, st, ops->state_size);
	copy = xstrdup(line);
	p = copy;
	for (;;) {
		size_t len = strcspn(p, ",\n");
		int last = p[len] == '\0';

		p[len] = '\0';
		piece = util_trim(p);
		if (*piece != '\0') {
			if (ops->parse_move(work, seat, piece, &m, merr,
			    sizeof(merr)) == -1) {
				if (n == 0 && last)
					util_err(err, errlen, "%s", merr);
				else
					util_err(err, errlen, _("move %d (`%s`): "
					    "%s"), idx + 1, piece, merr);
				goto out;
			}
			ops->apply(work, seat, &m);
			if (moves != NULL && n < maxmoves)
				moves[n] = m;
			n++;
			idx++;
		}
		if (last)
			break;
		p += len + 1;
	}
	if (n == 0) {
		util_err(err, errlen, _("no move given"));
		goto out;
	}
	memcpy(st, work, ops->state_size);
	rc = n;
out:
	if (rc == -1 && failed)
		*failed = idx;
	free(copy);
	free(work);
	return rc;
}

/*
 * Words of 8 bytes, each mixed in by an xor, an odd multiply and a shift
 * (every step a bijection, so no two words collide in one lane): one lane
 * for a short state, four independent ones from HASH_LANES bytes, so a
 * long state hashes at four words per multiply's latency; the lanes and
 * the length are folded and mixed at the end.
 */
#define HASH_K1	UINT64_C(0x9e3779b97f4a7c15)
#define HASH_K2	UINT64_C(0xff51afd7ed558ccd)
#define HASH_K3	UINT64_C(0xc4ceb9fe1a85ec53)
#define HASH_LANES	128

static uint64_t
hash_lane(uint64_t v, uint64_t w)
{
	v = (v ^ w) * HASH_K2;
	return v ^ (v >> 31);
}

uint64_t
game_hash_bytes(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t v[4] = { h ^ HASH_K1, h + HASH_K2, ~h, h - HASH_K3 }, w;
	size_t i = 0, k;

	if (len >= HASH_LANES) {
		for (; i + 32 <= len; i += 32)
			for (k = 0; k < 4; k++) {
				memcpy(&w, b + i + 8 * k, 8);
				v[k] = hash_lane(v[k], w);
			}
		for (k = 1; k < 4; k++)
			v[0] = hash_lane(v[0], v[k]) + HASH_K1;
	}
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, b + i, 8);
		v[0] = hash_lane(v[0], w);
	}
	if (i < len) {
		w = 0;
		memcpy(&w, b + i, len - i);
		v[0] = hash_lane(v[0], w);
	}
	h = v[0] ^ len;
	h ^= h >> 29;
	h *= HASH_K3;
	return h ^ (h >> 32);
}

int
game_over(const struct game_ops *ops, const void *st)
{
	struct game_result res;

	if (ops->over != NULL)
		return ops->over(st);
	ops->result(st, &res);
	return res.over;
}

/* The moves of every seat in mask, counted by legal(). */
static uint64_t
perft_last_legal(const struct game_ops *ops, const void *st, uint32_t mask)
{
	struct game_move moves[GAME_MAX_MOVES];
	uint64_t total = 0;
	int seat;

	for (seat = 0; mask != 0; seat++, mask >>= 1)
		if (mask & 1)
			total += (uint64_t)(ops->count_legal != NULL ?
			    ops->count_legal(st, seat) :
			    ops->legal(st, seat, moves, GAME_MAX_MOVES));
	return total;
}

/* The seat of a mask with one bit set, else -1. */
static const int8_t perft_single[1u << GAME_MAX_SEATS] = { -1, 0, 1, -1, 2,
	-1, -1, -1, 3, -1, -1, -1, -1, -1, -1, -1 };

/* The leaves one ply below st: its moves counted, none made (bulk
 * counting, with count_legal where the engine has it). */
static inline uint64_t
perft_last(const struct game_ops *ops, const void *st)
{
	uint32_t mask;

	/* A seat to move means the game goes on (to_move is 0 once it is
	 * over), which saves asking game_over at nearly every node. */
	if ((mask = ops->to_move(st)) == 0)
		return game_over(ops, st) ? 1 : 0;
	if (mask < nitems(perft_single) && perft_single[mask] >= 0 &&
	    ops->count_legal != NULL)
		return (uint64_t)ops->count_legal(st, perft_single[mask]);
	return perft_last_legal(ops, st, mask);
}

/*
 * States of at most PERFT_SMALL bytes sit PERFT_SMALL bytes apart, the
 * root's copy included, so that a copy is always PERFT_SMALL bytes: a
 * constant size the compiler copies in a few moves rather than a call.
 */
#define PERFT_SMALL	64

static void
perft_copy(unsigned char *dst, const void *src, size_t size)
{
	if (size <= PERFT_SMALL)
		memcpy(dst, src, PERFT_SMALL);
	else
		memcpy(dst, src, size);
}

/* depth >= 2; scratch has a state's place for each level below. */
static uint64_t
perft_rec(const struct game_ops *ops, const void *st, int depth,
    unsigned char *scratch, size_t stride)
{
	struct game_move moves[GAME_MAX_MOVES];
	size_t size = ops->state_size, span;
	uint64_t total = 0;
	uint64_t bulk;
	uint32_t mask;
	int seat, i, n;

	/* Two plies counted at once where the engine knows them. */
	if (depth == 2 && ops->count_after != NULL &&
	    (bulk = ops->count_after(st)) != GAME_PERFT_UNKNOWN)
		return bulk;
	if ((mask = ops->to_move(st)) == 0)
		return game_over(ops, st) ? 1 : 0;
	/* When the moves all change only the first span bytes, the rest of
	 * the copy is made once and stays st's through all of them. */
	if (ops->apply_span != NULL && (span = ops->apply_span(st)) < size) {
		memcpy(scratch, st, size);
		size = span;
	}
	for (seat = 0; mask != 0; seat++, mask >>= 1) {
		if (!(mask & 1))
			continue;
		n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
		if (depth == 2)
			/* Two loops, so that the count below each move is
			 * made here, without a call of its own. */
			for (i = 0; i < n; i++) {
				perft_copy(scratch, st, size);
				ops->apply(scratch, seat, &moves[i]);
				total += perft_last(ops, scratch);
			}
		else
			for (i = 0; i < n; i++) {
				perft_copy(scratch, st, size);
				ops->apply(scratch, seat, &moves[i]);
				total += perft_rec(ops, scratch, depth - 1,
				    scratch + stride, stride);
			}
	}
	return total;
}

uint64_t
game_perft(const struct game_ops *ops, const void *st, int depth)
{
	/* Each level's state on a cache line of its own: how fast a copy
	 * is depends on where it starts, and the heap's layout must not
	 * decide that (it made one engine 40% slower). */
	size_t stride = (ops->state_size + PERFT_SMALL - 1) / PERFT_SMALL *
	    PERFT_SMALL;
	unsigned char *scratch;
	uint64_t n;

	if (depth < 0)
		return 0;
	if (depth < 2)
		return depth == 0 ? 1 : perft_last(ops, st);
	/* One state per level and the root's copy, allocated once: the
	 * search itself never allocates. */
	if ((scratch = aligned_alloc(PERFT_SMALL, ((size_t)depth + 1) *
	    stride)) == NULL)
		fatal("out of memory");
	memset(scratch, 0, ((size_t)depth + 1) * stride);
	memcpy(scratch, st, ops->state_size);
	n = perft_rec(ops, scratch, depth, scratch + stride, stride);
	free(scratch);
	return n;
}

void
game_legal_text(const struct game_ops *ops, const void *st, int seat,
    struct buf *out)
{
	struct game_move moves[GAME_MAX_MOVES];
	char text[GAME_MOVE_TEXT];
	int i, n;

	n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
	for (i = 0; i < n; i++) {
		ops->format_move(st, seat, &moves[i], text, sizeof(text));
		buf_printf(out, "%s\n", text);
	}
}

/* Punctuation that may stand around a word of a move: `3.`, `(b2-c3)`,
 * `3co!`, `"s1 c2"`. */
static int
move_word_punct(int c)
{
	return c != '\0' && strchr("!?.,;:'\"()[]{}<>*_-", c) != NULL;
}

int
game_looks_like_move(const struct game_ops *ops, const void *st,
    const char *line)
{
	char *copy, *p, *w, *e;
	int words = 0, moves = 0;

	if (ops->move_word == NULL)
		return 1;
	copy = xstrdup(line);
	for (p = copy; *p != '\0'; p = e) {
		p += strspn(p, " \t\r\n,;");
		if (*p == '\0')
			break;
		e = p + strcspn(p, " \t\r\n,;");
		if (*e != '\0')
			*e++ = '\0';
		for (w = p; *w != '\0'; w++)
			*w = (char)tolower((unsigned char)*w);
		for (w = p; move_word_punct(*w); w++)
			;
		for (p = w + strlen(w); p > w && move_word_punct(p[-1]); p--)
			p[-1] = '\0';
		if (*w == '\0')
			continue;
		words++;
		moves += ops->move_word(st, w) != 0;
	}
	free(copy);
	return moves > 0 && 2 * moves >= words;
}

int
game_word_is_points(const char *w)
{
	const unsigned char *p = (const unsigned char *)w;

	for (;;) {
		if (!isalpha(p[0]) || !isdigit(p[1]))
			return 0;
		p += isdigit(p[2]) ? 3 : 2;
		if (*p == '\0')
			return 1;
		if (*p == '-' || *p == 'x' || *p == ':')
			p++;
		if (*p == '\0')
			return 1;
	}
}

static int
bot_move_eq(const struct game_move *a, const struct game_move *b)
{
	return a->len == b->len && memcmp(a->d, b->d, a->len) == 0;
}

uint32_t
game_bot_below(struct game_botctx *c, uint32_t n)
{
	return rng_byte_below(c->rng, &c->bytes, n);
}

const struct game_botmove *
game_bot_move(struct game_botctx *c, const void *st, int seat,
    const struct game_move *m)
{
	uint32_t h = 2166136261u;
	int i;

	for (i = 0; i < m->len; i++)
		h = (h ^ m->d[i]) * 16777619u;
	for (i = 0; i < GAME_BOT_CACHE; i++) {
		struct game_botmove *mi =
		    &c->cache[(h + (uint32_t)i) % GAME_BOT_CACHE];

		if (mi->used && bot_move_eq(&mi->m, m))
			return mi;
		if (!mi->used) {
			mi->used = 1;
			mi->m = *m;
			mi->kind = 0;
			mi->card = -1;
			mi->target = 0;
			c->bot->classify(c, st, seat, mi);
			return mi;
		}
	}
	fatal("cardbot: move cache full");
}

int
game_bot_words(char *s, char **w, int max)
{
	char *save = NULL, *t;
	int n = 0;

	for (t = strtok_r(s, " ", &save); t != NULL && n < max;
	    t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	return n;
}

struct game_grid *
game_pic_grid(struct game_pic *pic, int kind, int rows, int cols, int block,
    const char *caption)
{
	struct game_grid *g;
	int n = rows * cols;

	if (pic->ngrids >= GAME_PIC_GRIDS || rows < 1 || cols < 1 ||
	    rows > 255 || cols > 255 || n > GAME_PIC_CELLS - pic->ncells) {
		pic->full = 1;
		return NULL;
	}
	g = &pic->grid[pic->ngrids++];
	memset(g, 0, sizeof(*g));
	g->kind = (uint8_t)kind;
	g->rows = (uint8_t)rows;
	g->cols = (uint8_t)cols;
	g->block = (uint8_t)block;
	g->first = (uint16_t)pic->ncells;
	memset(&pic->cell[pic->ncells], 0, (size_t)n * sizeof(pic->cell[0]));
	pic->ncells += n;
	if (caption != NULL)
		util_strlcpy(g->caption, caption, sizeof(g->caption));
	return g;
}

struct game_cell *
game_pic_set(struct game_pic *pic, struct game_grid *g, int row, int col,
    int kind, int look, const char *text)
{
	struct game_cell *c;
	size_t n;

	if (g == NULL || row < 0 || col < 0 || row >= g->rows ||
	    col >= g->cols)
		return NULL;
	c = &pic->cell[g->first + row * g->cols + col];
	c->kind = (uint8_t)kind;
	c->look = (uint8_t)look;
	n = text ? strlen(text) : 0;
	if (n >= sizeof(c->text)) {
		/* Cut at a character's end, never inside UTF-8. */
		n = sizeof(c->text) - 1;
		while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80)
			n--;
	}
	if (n > 0)
		memcpy(c->text, text, n);
	c->text[n] = '\0';
	return c;
}

const struct game_cell *
game_pic_cell(const struct game_pic *pic, const struct game_grid *g, int row,
    int col)
{
	if (row < 0 || col < 0 || row >= g->rows || col >= g->cols)
		return NULL;
	return &pic->cell[g->first + row * g->cols + col];
}
