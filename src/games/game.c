/* game: the engine registry and what every engine shares. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "../i18n.h"

extern const struct game_ops mancala_ops;
extern const struct game_ops almakleh_ops;
extern const struct game_ops alquerque_ops;
extern const struct game_ops aluette_ops;
extern const struct game_ops spite_ops;

const struct game_ops *const game_engines[] = {
	&mancala_ops,
	&alquerque_ops,
	&almakleh_ops,
	&aluette_ops,
	&spite_ops,
	NULL
};

const struct game_ops *
game_find(const char *name)
{
	int i;

	for (i = 0; game_engines[i] != NULL; i++)
		if (util_strcaseeq(game_engines[i]->name, name))
			return game_engines[i];
	return NULL;
}

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

static uint64_t
perft_rec(const struct game_ops *ops, const void *st, int depth,
    unsigned char *scratch)
{
	struct game_move moves[GAME_MAX_MOVES];
	struct game_result res;
	uint64_t total = 0;
	uint32_t mask;
	int seat, i, n;

	ops->result(st, &res);
	if (res.over || depth == 0)
		return 1;
	mask = ops->to_move(st);
	for (seat = 0; seat < GAME_MAX_SEATS; seat++) {
		if (!(mask & (1u << seat)))
			continue;
		n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
		if (depth == 1) {
			total += (uint64_t)n;
			continue;
		}
		for (i = 0; i < n; i++) {
			memcpy(scratch, st, ops->state_size);
			ops->apply(scratch, seat, &moves[i]);
			total += perft_rec(ops, scratch, depth - 1,
			    scratch + ops->state_size);
		}
	}
	return total;
}

uint64_t
game_perft(const struct game_ops *ops, const void *st, int depth)
{
	unsigned char *scratch;
	uint64_t n;

	if (depth < 0)
		return 0;
	/* One state per level, allocated once: the search itself never
	 * allocates. */
	scratch = xcalloc((size_t)depth + 1, ops->state_size);
	n = perft_rec(ops, st, depth, scratch);
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
