/*
 * refeff: the effects of a command, recorded as data and applied in one
 * place (see refeff.h for when).  This is the only ref*.c file that calls
 * a store function that writes, besides the outbox's (refcore.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "refint.h"

enum fx_kind {
	FX_PLAYER_CREATE, FX_PLAYER_UPDATE, FX_PLAYER_BAN, FX_GAME_CREATE,
	FX_GAME_UPDATE, FX_MOVE_ADD, FX_MOVES_TRUNCATE, FX_EVENT_ADD,
	FX_OBSERVER_SET, FX_THANKS_ADD, FX_REPORT_ADD, FX_REPORT_RESOLVE,
	FX_CONFIRM_ADD, FX_CONFIRM_TAKE, FX_ACTION_ADD, FX_REPLY_ADD,
	FX_TIMER_ADD, FX_TIMER_DELETE, FX_TIMER_CANCEL, FX_RATING_PUT,
	FX_RATING_CHANGE_ADD, FX_LADDER_ADD, FX_LADDER_CLOSE, FX_RUNGS_SET,
	FX_CHALLENGE_ADD, FX_CHALLENGE_UPDATE, FX_DECK_PUT, FX_DECK_DEAL_ADD,
	FX_SEEK_ADD, FX_SEEK_UPDATE, FX_CONDITIONS_SET, FX_CONDITIONS_CLEAR,
	FX_TAKEBACK_SET
};

/* One write: its kind, its scalar arguments and its own copies of the
 * strings and rows it writes. */
struct ref_fx {
	enum fx_kind	 kind;
	int64_t		 a, b, c, d;	/* ids and times, by kind */
	int		 i, j;		/* seats, flags, counts */
	double		 x, y;		/* ratings */
	char		*s, *t;		/* owned strings */
	char		**v;		/* owned: conditions' lines (i) */
	struct store_rung *rungs;	/* owned (i) */
	union {
		struct store_player	 player;
		struct store_game	 game;
		struct store_timer	 timer;
		struct store_rating	 rating;
		struct store_ladder	 ladder;
		struct store_challenge	 challenge;
		struct store_seek	 seek;
	} u;				/* owned copy, by kind */
};

static char *
dup0(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static struct ref_fx *
fx_new(struct ref_msg *x, enum fx_kind kind)
{
	struct ref_effects *e = &x->fx;
	struct ref_fx *f;

	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 16;
		e->v = xreallocarray(e->v, (size_t)e->cap, sizeof(*e->v));
	}
	f = &e->v[e->n++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	return f;
}

static void
fx_free(struct ref_fx *f)
{
	int k;

	free(f->s);
	free(f->t);
	if (f->v != NULL) {
		for (k = 0; k < f->i; k++)
			free(f->v[k]);
		free(f->v);
	}
	free(f->rungs);
	switch (f->kind) {
	case FX_PLAYER_CREATE:
		free(f->u.player.language);
		break;
	case FX_PLAYER_UPDATE:
		store_player_free(&f->u.player);
		break;
	case FX_GAME_CREATE:
	case FX_GAME_UPDATE:
		store_game_free(&f->u.game);
		break;
	case FX_TIMER_ADD:
		free(f->u.timer.kind);
		free(f->u.timer.data);
		break;
	case FX_LADDER_ADD:
		store_ladder_free(&f->u.ladder);
		break;
	case FX_CHALLENGE_ADD:
	case FX_CHALLENGE_UPDATE:
		store_challenge_free(&f->u.challenge);
		break;
	case FX_SEEK_ADD:
	case FX_SEEK_UPDATE:
		store_seek_free(&f->u.seek);
		break;
	default:
		break;
	}
}

void
refeff_discard(struct ref_msg *x)
{
	int k;

	for (k = 0; k < x->fx.n; k++)
		fx_free(&x->fx.v[k]);
	free(x->fx.v);
	memset(&x->fx, 0, sizeof(x->fx));
}

int
refeff_pending(const struct ref_msg *x)
{
	return x->fx.n;
}

/* A row created with a reserved id got another: the reservation was
 * wrong, which must never be. */
static int
fx_id(struct ref_msg *x, const char *what, int64_t want, int64_t got)
{
	if (want == got)
		return 0;
	ref_broken(x, "%s got id %lld, not the %lld reserved", what,
	    (long long)got, (long long)want);
	return -1;
}

/* One effect: 0, or -1 (the store failed, or x->cause says why). */
static int
fx_one(struct ref_msg *x, struct ref_fx *f)
{
	struct store *s = x->r->store;
	struct store_ladder l;
	struct store_challenge ch;
	struct store_seek k;
	int64_t id;
	int rc;

	switch (f->kind) {
	case FX_PLAYER_CREATE: {
		struct store_player p;

		if (store_player_id(s, f->s, 1, f->b, &id) != 0 ||
		    fx_id(x, "player", f->a, id) == -1)
			return -1;
		if (f->t == NULL && f->u.player.language == NULL)
			return 0;
		if (store_player_load(s, id, &p) != 0)
			return -1;
		if (f->t != NULL) {
			free(p.name);
			p.name = xstrdup(f->t);
		}
		if (f->u.player.language != NULL) {
			free(p.language);
			p.language = xstrdup(f->u.player.language);
		}
		rc = store_player_update(s, &p);
		store_player_free(&p);
		return rc;
	}
	case FX_PLAYER_UPDATE:
		return store_player_update(s, &f->u.player);
	case FX_PLAYER_BAN:
		return store_player_ban(s, f->s, f->i, f->b);
	case FX_GAME_CREATE:
		return store_game_create(s, &f->u.game);
	case FX_GAME_UPDATE:
		return store_game_update(s, &f->u.game);
	case FX_MOVE_ADD:
		return store_move_add(s, f->a, f->i, f->j, f->s, f->b);
	case FX_MOVES_TRUNCATE:
		return store_moves_truncate(s, f->a, f->i);
	case FX_EVENT_ADD:
		return store_event_add(s, f->a, f->i, f->b, f->s, f->t, f->c);
	case FX_OBSERVER_SET:
		return store_observer_set(s, f->a, f->b, f->i) == -1 ? -1 : 0;
	case FX_THANKS_ADD:
		return store_thanks_add(s, f->a, f->b, f->c, f->d) == -1 ?
		    -1 : 0;
	case FX_REPORT_ADD:
		if (store_report_add(s, f->a, f->b, f->s, f->c, &id) == -1)
			return -1;
		return fx_id(x, "report", f->d, id);
	case FX_REPORT_RESOLVE:
		if ((rc = store_report_resolve(s, f->a, f->s, f->b)) == 1)
			ref_broken(x, "report %lld was not open",
			    (long long)f->a);
		return rc == 0 ? 0 : -1;
	case FX_CONFIRM_ADD:
		return store_confirm_add(s, f->s, f->a, f->t, f->b, f->c);
	case FX_CONFIRM_TAKE: {
		char *cmd;

		if ((rc = store_confirm_take(s, f->s, f->a, f->b, &cmd)) == 1)
			ref_broken(x, "confirmation %s was no longer good",
			    f->s);
		free(cmd);
		return rc == 0 ? 0 : -1;
	}
	case FX_ACTION_ADD:
		return store_action_add(s, f->a, f->s, f->b);
	case FX_REPLY_ADD:
		return store_reply_add(s, f->s, f->a);
	case FX_TIMER_ADD:
		return store_timer_add(s, &f->u.timer, &id);
	case FX_TIMER_DELETE:
		return store_timer_delete(s, f->a);
	case FX_TIMER_CANCEL:
		return store_timer_cancel(s, f->s, f->a, f->b);
	case FX_RATING_PUT:
		return store_rating_put(s, f->a, f->s, &f->u.rating);
	case FX_RATING_CHANGE_ADD:
		return store_rating_change_add(s, f->a, f->i, f->b, f->x, f->y);
	case FX_LADDER_ADD:
		l = f->u.ladder;
		if (store_ladder_add(s, &l) == -1)
			return -1;
		return fx_id(x, "ladder", f->u.ladder.id, l.id);
	case FX_LADDER_CLOSE:
		return store_ladder_close(s, f->a, f->b);
	case FX_RUNGS_SET:
		return store_rungs_set(s, f->a, f->rungs, f->i);
	case FX_CHALLENGE_ADD:
		ch = f->u.challenge;
		if (store_challenge_add(s, &ch) == -1)
			return -1;
		return fx_id(x, "challenge", f->u.challenge.id, ch.id);
	case FX_CHALLENGE_UPDATE:
		return store_challenge_update(s, &f->u.challenge);
	case FX_DECK_PUT:
		return store_deck_put(s, f->s, f->i, f->t);
	case FX_DECK_DEAL_ADD:
		return store_deck_deal_add(s, f->a, f->s, f->i, f->j, f->t);
	case FX_SEEK_ADD:
		k = f->u.seek;
		if (store_seek_add(s, &k) == -1)
			return -1;
		return fx_id(x, "seek", f->u.seek.id, k.id);
	case FX_SEEK_UPDATE:
		return store_seek_update(s, &f->u.seek);
	case FX_CONDITIONS_SET:
		return store_conditions_set(s, f->a, f->j, f->v, f->i);
	case FX_CONDITIONS_CLEAR:
		return store_conditions_clear(s, f->a, f->j);
	case FX_TAKEBACK_SET:
		return store_takeback_set(s, f->a, (unsigned)f->i, f->j, f->b);
	}
	return ref_broken(x, "effect of unknown kind %d", (int)f->kind);
}

int
refeff_apply(struct ref_msg *x)
{
	int k, rc = REF_OK;

	for (k = 0; k < x->fx.n && rc == REF_OK; k++)
		if (fx_one(x, &x->fx.v[k]) == -1)
			rc = REF_TEMP;
	refeff_discard(x);
	return rc;
}

/* The id a pending effect reserved in a series, or 0. */
static int64_t
fx_reserved(const struct ref_fx *f, enum store_series series)
{
	switch (series) {
	case STORE_SERIES_GAME:
		if (f->kind == FX_GAME_CREATE)
			return f->u.game.id;
		if (f->kind == FX_SEEK_ADD)
			return f->u.seek.id;
		return 0;
	case STORE_SERIES_PLAYER:
		return f->kind == FX_PLAYER_CREATE ? f->a : 0;
	case STORE_SERIES_REPORT:
		return f->kind == FX_REPORT_ADD ? f->d : 0;
	case STORE_SERIES_LADDER:
		return f->kind == FX_LADDER_ADD ? f->u.ladder.id : 0;
	case STORE_SERIES_CHALLENGE:
		return f->kind == FX_CHALLENGE_ADD ? f->u.challenge.id : 0;
	default:
		return 0;
	}
}

int
refeff_reserve(struct ref_msg *x, enum store_series series, int64_t *id)
{
	int64_t next;
	int k;

	if (store_id_next(x->r->store, series, &next) == -1)
		return -1;
	for (k = 0; k < x->fx.n; k++)
		if (fx_reserved(&x->fx.v[k], series) >= next)
			next = fx_reserved(&x->fx.v[k], series) + 1;
	*id = next;
	return 0;
}

int
refeff_player_pending(const struct ref_msg *x, const char *address,
    int64_t *id)
{
	int k;

	for (k = 0; k < x->fx.n; k++)
		if (x->fx.v[k].kind == FX_PLAYER_CREATE &&
		    strcmp(x->fx.v[k].s, address) == 0) {
			*id = x->fx.v[k].a;
			return 0;
		}
	return 1;
}

/* The recorders. */

int
fx_player_create(struct ref_msg *x, const char *address, const char *name,
    const char *language, int64_t now, int64_t id)
{
	struct ref_fx *f = fx_new(x, FX_PLAYER_CREATE);

	f->s = xstrdup(address);
	f->t = dup0(name);
	f->u.player.language = dup0(language);
	f->b = now;
	f->a = id;
	return 0;
}

int
fx_player_update(struct ref_msg *x, const struct store_player *p)
{
	struct ref_fx *f = fx_new(x, FX_PLAYER_UPDATE);

	f->u.player = *p;
	f->u.player.address = dup0(p->address);
	f->u.player.name = dup0(p->name);
	f->u.player.language = dup0(p->language);
	f->u.player.notify = dup0(p->notify);
	f->u.player.timezone = dup0(p->timezone);
	return 0;
}

int
fx_player_ban(struct ref_msg *x, const char *address, int banned,
    int64_t now)
{
	struct ref_fx *f = fx_new(x, FX_PLAYER_BAN);

	f->s = xstrdup(address);
	f->i = banned;
	f->b = now;
	return 0;
}

static void
game_copy(struct store_game *to, const struct store_game *g)
{
	*to = *g;
	to->kind = dup0(g->kind);
	to->options = dup0(g->options);
	to->state = dup0(g->state);
	to->status = dup0(g->status);
	to->result = dup0(g->result);
	to->clock = dup0(g->clock);
	to->ended = dup0(g->ended);
}

int
fx_game_create(struct ref_msg *x, const struct store_game *g)
{
	game_copy(&fx_new(x, FX_GAME_CREATE)->u.game, g);
	return 0;
}

int
fx_game_update(struct ref_msg *x, const struct store_game *g)
{
	game_copy(&fx_new(x, FX_GAME_UPDATE)->u.game, g);
	return 0;
}

int
fx_move_add(struct ref_msg *x, int64_t game, int ply, int seat,
    const char *notation, int64_t now)
{
	struct ref_fx *f = fx_new(x, FX_MOVE_ADD);

	f->a = game;
	f->i = ply;
	f->j = seat;
	f->s = xstrdup(notation);
	f->b = now;
	return 0;
}

int
fx_moves_truncate(struct ref_msg *x, int64_t game, int keep)
{
	struct ref_fx *f = fx_new(x, FX_MOVES_TRUNCATE);

	f->a = game;
	f->i = keep;
	return 0;
}

int
fx_event_add(struct ref_msg *x, int64_t game, int after_ply, int64_t player,
    const char *kind, const char *text, int64_t now)
{
	struct ref_fx *f = fx_new(x, FX_EVENT_ADD);

	f->a = game;
	f->i = after_ply;
	f->b = player;
	f->s = xstrdup(kind);
	f->t = dup0(text);
	f->c = now;
	return 0;
}

int
fx_observer_set(struct ref_msg *x, int64_t game, int64_t player, int on)
{
	struct ref_fx *f = fx_new(x, FX_OBSERVER_SET);

	f->a = game;
	f->b = player;
	f->i = on;
	return 0;
}

int
fx_thanks_add(struct ref_msg *x, int64_t game, int64_t from, int64_t to,
    int64_t now)
{
	struct ref_fx *f = fx_new(x, FX_THANKS_ADD);

	f->a = game;
	f->b = from;
	f->c = to;
	f->d = now;
	return 0;
}

int
fx_report_add(struct ref_msg *x, int64_t game, int64_t reporter,
    const char *text, int64_t now, int64_t id)
{
	struct ref_fx *f = fx_new(x, FX_REPORT_ADD);

	f->a = game;
	f->b = reporter;
	f->s = xstrdup(text);
	f->c = now;
	f->d = id;
	return 0;
}

int
fx_report_resolve(struct ref_msg *x, int64_t id, const char *text,
    int64_t now)
{
	struct ref_fx *f = fx_new(x, FX_REPORT_RESOLVE);

	f->a = id;
	f->s = xstrdup(text);
	f->b = now;
	return 0;
}

int
fx_confirm_add(struct ref_msg *x, const char *cookie, int64_t player,
    const char *command, int64_t now, int64_t expires)
{
	struct ref_fx *f = fx_new(x, FX_CONFIRM_ADD);

	f->s = xstrdup(cookie);
	f->a = player;
	f->t = xstrdup(command);
	f->b = now;
	f->c = expires;
	return 0;
}

int
fx_confirm_take(struct ref_msg *x, const char *cookie, int64_t player,
    int64_t now)
{
	struct ref_fx *f = fx_new(x, FX_CONFIRM_TAKE);

	f->s = xstrdup(cookie);
	f->a = player;
	f->b = now;
	return 0;
}

int
fx_action_add(struct ref_msg *x, int64_t player, const char *kind,
    int64_t now)
{
	struct ref_fx *f = fx_new(x, FX_ACTION_ADD);

	f->a = player;
	f->s = xstrdup(kind);
	f->b = now;
	return 0;
}

int
fx_reply_add(struct ref_msg *x, const char *sender, int64_t now)
{
	struct ref_fx *f = fx_new(x, FX_REPLY_ADD);

	f->s = xstrdup(sender);
	f->a = now;
	return 0;
}

int
fx_timer_add(struct ref_msg *x, const struct store_timer *t)
{
	struct ref_fx *f = fx_new(x, FX_TIMER_ADD);

	f->u.timer = *t;
	f->u.timer.kind = dup0(t->kind);
	f->u.timer.data = dup0(t->data);
	return 0;
}

int
fx_timer_delete(struct ref_msg *x, int64_t id)
{
	fx_new(x, FX_TIMER_DELETE)->a = id;
	return 0;
}

int
fx_timer_cancel(struct ref_msg *x, const char *kind, int64_t game,
    int64_t player)
{
	struct ref_fx *f = fx_new(x, FX_TIMER_CANCEL);

	f->s = xstrdup(kind);
	f->a = game;
	f->b = player;
	return 0;
}

int
fx_rating_put(struct ref_msg *x, int64_t player, const char *kind,
    const struct store_rating *r)
{
	struct ref_fx *f = fx_new(x, FX_RATING_PUT);

	f->a = player;
	f->s = xstrdup(kind);
	f->u.rating = *r;
	return 0;
}

int
fx_rating_change_add(struct ref_msg *x, int64_t game, int seat,
    int64_t player, double r_old, double r_new)
{
	struct ref_fx *f = fx_new(x, FX_RATING_CHANGE_ADD);

	f->a = game;
	f->i = seat;
	f->b = player;
	f->x = r_old;
	f->y = r_new;
	return 0;
}

int
fx_ladder_add(struct ref_msg *x, const struct store_ladder *l)
{
	struct store_ladder *c = &fx_new(x, FX_LADDER_ADD)->u.ladder;

	*c = *l;
	c->name = dup0(l->name);
	c->kind = dup0(l->kind);
	c->options = dup0(l->options);
	c->clock = dup0(l->clock);
	c->list = dup0(l->list);
	return 0;
}

int
fx_ladder_close(struct ref_msg *x, int64_t id, int64_t now)
{
	struct ref_fx *f = fx_new(x, FX_LADDER_CLOSE);

	f->a = id;
	f->b = now;
	return 0;
}

int
fx_rungs_set(struct ref_msg *x, int64_t ladder, const struct store_rung *r,
    int n)
{
	struct ref_fx *f = fx_new(x, FX_RUNGS_SET);

	f->a = ladder;
	f->i = n;
	f->rungs = xreallocarray(NULL, n > 0 ? (size_t)n : 1,
	    sizeof(*f->rungs));
	if (n > 0)
		memcpy(f->rungs, r, (size_t)n * sizeof(*r));
	return 0;
}

static void
challenge_copy(struct store_challenge *to, const struct store_challenge *c)
{
	*to = *c;
	to->status = dup0(c->status);
}

int
fx_challenge_add(struct ref_msg *x, const struct store_challenge *c)
{
	challenge_copy(&fx_new(x, FX_CHALLENGE_ADD)->u.challenge, c);
	return 0;
}

int
fx_challenge_update(struct ref_msg *x, const struct store_challenge *c)
{
	challenge_copy(&fx_new(x, FX_CHALLENGE_UPDATE)->u.challenge, c);
	return 0;
}

int
fx_deck_put(struct ref_msg *x, const char *name, int cycle,
    const char *cards)
{
	struct ref_fx *f = fx_new(x, FX_DECK_PUT);

	f->s = xstrdup(name);
	f->i = cycle;
	f->t = xstrdup(cards);
	return 0;
}

int
fx_deck_deal_add(struct ref_msg *x, int64_t game, const char *deck,
    int cycle, int turn, const char *cards)
{
	struct ref_fx *f = fx_new(x, FX_DECK_DEAL_ADD);

	f->a = game;
	f->s = xstrdup(deck);
	f->i = cycle;
	f->j = turn;
	f->t = xstrdup(cards);
	return 0;
}

static void
seek_copy(struct store_seek *to, const struct store_seek *k)
{
	*to = *k;
	to->kind = dup0(k->kind);
	to->words = dup0(k->words);
	to->clock = dup0(k->clock);
	to->status = dup0(k->status);
}

int
fx_seek_add(struct ref_msg *x, const struct store_seek *k)
{
	seek_copy(&fx_new(x, FX_SEEK_ADD)->u.seek, k);
	return 0;
}

int
fx_seek_update(struct ref_msg *x, const struct store_seek *k)
{
	seek_copy(&fx_new(x, FX_SEEK_UPDATE)->u.seek, k);
	return 0;
}

int
fx_conditions_set(struct ref_msg *x, int64_t game, int seat,
    char *const *lines, int n)
{
	struct ref_fx *f = fx_new(x, FX_CONDITIONS_SET);
	int k;

	f->a = game;
	f->j = seat;
	f->i = n;
	f->v = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*f->v));
	for (k = 0; k < n; k++)
		f->v[k] = xstrdup(lines[k]);
	return 0;
}

int
fx_conditions_clear(struct ref_msg *x, int64_t game, int seat)
{
	struct ref_fx *f = fx_new(x, FX_CONDITIONS_CLEAR);

	f->a = game;
	f->j = seat;
	return 0;
}

int
fx_takeback_set(struct ref_msg *x, int64_t game, unsigned seats, int at_ply,
    int64_t now)
{
	struct ref_fx *f = fx_new(x, FX_TAKEBACK_SET);

	f->a = game;
	f->i = (int)seats;
	f->j = at_ply;
	f->b = now;
	return 0;
}
