/*
 * refladder: ratings of ended games, club ladders and their challenges,
 * and what is posted to a ladder's club list.
 *
 * Ratings are Glicko-2 per game kind (rating.h), moved once when a rated
 * game ends other than by an abort.  A ladder is a list of rungs, top
 * first; a rung is a player, or a fixed partnership of two in a game of
 * partners (Aluette with teams=fixed).  A challenge is a game proposed
 * with the ladder's variant and clock: when the challenger's side wins,
 * or the challenged side declines or lets the invitation lapse, the
 * challenger's rung takes the challenged rung's place and every rung in
 * between moves down one; a loss or a draw changes nothing.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "log.h"
#include "rating.h"
#include "refint.h"

/* The round of inactivity drop-downs and standings postings. */
#define LADDER_WEEK		(7 * 86400)

/* ---- ratings ---- */

/* The side of a seat: partners share the lower seat number. */
static int
side(const struct play_game *g, int seat)
{
	int p;

	if (g->def->ops->partner == NULL)
		return seat;
	p = g->def->ops->partner(g->st, seat);
	return p >= 0 && p < seat ? p : seat;
}

static void
rating_to_store(const struct rating *r, struct store_rating *s)
{
	s->r = r->r;
	s->rd = r->rd;
	s->sigma = r->sigma;
	s->last = r->last;
}

static int
rating_load(struct ref_msg *x, int64_t player, const char *kind,
    struct rating *r, int *games)
{
	struct store_rating s;
	int rc;

	if ((rc = store_rating_get(x->r->store, player, kind, &s)) == -1)
		return -1;
	if (rc == 1) {
		rating_init(r);
		if (games)
			*games = 0;
		return 0;
	}
	r->r = s.r;
	r->rd = s.rd;
	r->sigma = s.sigma;
	r->last = s.last;
	if (games)
		*games = s.games;
	return 0;
}

/* Rate an ended game: ch->rated stays 0 when it does not count. */
static int
rate_game(struct ref_msg *x, const struct play_game *g,
    const struct game_result *res, struct ref_rating_change *ch)
{
	struct rating before[RATING_MAX_SEATS], after[RATING_MAX_SEATS];
	struct store_rating sr;
	double r_old[STORE_MAX_SEATS], r_new[STORE_MAX_SEATS];
	int team[RATING_MAX_SEATS], games[RATING_MAX_SEATS], i, j;
	int n = g->row.nseats, done;
	char err[200];

	/* Rated once: the end mail made again shows what was recorded. */
	if (store_rating_changes(x->r->store, g->row.id, r_old, r_new,
	    &done) == -1)
		return -1;
	if (done > 0) {
		for (i = 0; i < n && i < STORE_MAX_SEATS; i++) {
			ch->old[i] = (int)lround(r_old[i]);
			ch->now[i] = (int)lround(r_new[i]);
		}
		ch->rated = 1;
		return 0;
	}
	if (!g->row.rated || strcmp(g->row.status, "finished") != 0 ||
	    (g->row.ended != NULL && strcmp(g->row.ended, "aborted") == 0) ||
	    n < 2 || n > RATING_MAX_SEATS)
		return 0;
	for (i = 0; i < n; i++)
		team[i] = side(g, i);
	/* One player on both sides rates nothing. */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (g->row.player[i] == g->row.player[j] &&
			    team[i] != team[j])
				return 0;
	for (i = 0; i < n; i++)
		if (rating_load(x, g->row.player[i], g->row.kind, &before[i],
		    &games[i]) == -1)
			return -1;
	if (rating_game(n, team, res->draw ? 0 : res->winners, before, x->now,
	    RATING_PERIOD_DEFAULT, RATING_TAU_DEFAULT, after, err,
	    sizeof(err)) == -1) {
		log_warn("game %lld not rated: %s", (long long)g->row.id, err);
		return 0;
	}
	for (i = 0; i < n; i++) {
		ch->old[i] = (int)lround(before[i].r);
		ch->now[i] = (int)lround(after[i].r);
		rating_to_store(&after[i], &sr);
		sr.games = games[i] + 1;
		if (fx_rating_put(x, g->row.player[i],
		    g->row.kind, &sr) == -1 ||
		    fx_rating_change_add(x, g->row.id, i,
		    g->row.player[i], before[i].r, after[i].r) == -1)
			return -1;
	}
	ch->rated = 1;
	return 0;
}

int
refladder_rating_text(struct ref_msg *x, int64_t player, const char *kind,
    struct buf *b)
{
	struct rating r;
	char text[64];
	int games;

	/* A view of what was decided (refeff.h). */
	if (refeff_apply(x) != REF_OK ||
	    rating_load(x, player, kind, &r, &games) == -1)
		return -1;
	if (games == 0)
		buf_adds(b, "unrated");
	else {
		rating_format(&r, x->now, text, sizeof(text));
		buf_adds(b, text);
	}
	return games;
}

void
refladder_list(struct ref_msg *x, struct tmpl_data *d)
{
	struct tmpl_list *l = tmpl_list(d, "ratings");
	struct tmpl_data *it;
	struct buf b = { 0 };
	int i, games;

	for (i = 0; i < x->r->ndefs; i++) {
		buf_reset(&b);
		games = refladder_rating_text(x, x->me.id, x->r->defs[i].name,
		    &b);
		if (games == -1)
			ref_store_failed(x);
		if (games <= 0)
			continue;
		it = tmpl_list_add(l);
		tmpl_set(it, "title", _(x->r->defs[i].title));
		tmpl_set(it, "rating", buf_str(&b));
		tmpl_set_int(it, "games", games);
	}
	buf_free(&b);
}

/* ---- ladders ---- */

struct ladder {
	struct store_ladder row;
	struct store_rung *rungs;
	int	 n;
};

static void
ladder_free(struct ladder *l)
{
	store_ladder_free(&l->row);
	free(l->rungs);
	l->rungs = NULL;
	l->n = 0;
}

/* 0, 1 when there is no such ladder (res filled), -1 */
static int
ladder_get(struct ref_msg *x, const char *name, int64_t id, struct ladder *l,
    struct ref_result *res)
{
	int rc;

	memset(l, 0, sizeof(*l));
	rc = name ? store_ladder_find(x->r->store, name, &l->row) :
	    store_ladder_load(x->r->store, id, &l->row);
	if (rc == 1) {
		if (res)
			ref_fail(res, _("there is no ladder `%s`"), name ? name :
			    "?");
		return 1;
	}
	if (rc == -1 || store_rungs(x->r->store, l->row.id, &l->rungs,
	    &l->n) == -1) {
		ladder_free(l);
		return -1;
	}
	return 0;
}

/* The index of the rung a player stands on (alone or in a pair), or -1. */
static int
rung_of(const struct ladder *l, int64_t player)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (l->rungs[i].player == player ||
		    (l->rungs[i].partner != 0 && l->rungs[i].partner == player))
			return i;
	return -1;
}

/* Move rung `from` to index `to`, the rungs between shifting by one. */
static void
rung_move(struct ladder *l, int from, int to)
{
	struct store_rung r = l->rungs[from];

	if (from > to)
		memmove(&l->rungs[to + 1], &l->rungs[to],
		    (size_t)(from - to) * sizeof(r));
	else if (from < to)
		memmove(&l->rungs[from], &l->rungs[from + 1],
		    (size_t)(to - from) * sizeof(r));
	l->rungs[to] = r;
}

static int
rung_name(struct ref_msg *x, const struct store_rung *r, struct buf *b)
{
	if (ref_player_name(x, r->player, b) == -1)
		return -1;
	if (r->partner != 0) {
		buf_adds(b, " & ");
		if (ref_player_name(x, r->partner, b) == -1)
			return -1;
	}
	return 0;
}

/* The standings as template data: ladder.*, rungs[] (position, name,
 * rating, idle_days). */
static int
standings_data(struct ref_msg *x, const struct ladder *l,
    struct tmpl_data *d)
{
	const struct gamedef *def;
	struct tmpl_list *list = tmpl_list(d, "rungs");
	struct tmpl_data *it;
	struct buf b = { 0 };
	int i;

	/* A view of what was decided (refeff.h). */
	if (refeff_apply(x) != REF_OK)
		return -1;
	def = gamedef_find(x->r->defs, x->r->ndefs, l->row.kind);
	tmpl_set(d, "ladder.name", l->row.name);
	tmpl_set(d, "ladder.game", def ? _(def->title) : l->row.kind);
	tmpl_set(d, "ladder.options", l->row.options);
	tmpl_set(d, "ladder.closed", l->row.closed ? "1" : "");
	tmpl_set_int(d, "ladder.reach", l->row.reach);
	tmpl_set_int(d, "ladder.size", l->n);
	for (i = 0; i < l->n; i++) {
		it = tmpl_list_add(list);
		tmpl_set_int(it, "position", i + 1);
		buf_reset(&b);
		if (rung_name(x, &l->rungs[i], &b) == -1)
			goto fail;
		tmpl_set(it, "name", buf_str(&b));
		buf_reset(&b);
		if (refladder_rating_text(x, l->rungs[i].player, l->row.kind,
		    &b) == -1)
			goto fail;
		if (l->rungs[i].partner != 0) {
			buf_adds(&b, ", ");
			if (refladder_rating_text(x, l->rungs[i].partner,
			    l->row.kind, &b) == -1)
				goto fail;
		}
		tmpl_set(it, "rating", buf_str(&b));
	}
	buf_free(&b);
	return 0;
fail:
	buf_free(&b);
	return -1;
}

/* Post to the ladder's club list: public data only, no seat, no token. */
static int
post_list(struct ref_msg *x, const struct ladder *l, const char *tmplname,
    struct tmpl_data *d, int64_t game)
{
	if (l->row.list == NULL || l->row.list[0] == '\0')
		return 0;
	tmpl_set(d, "list.address", l->row.list);
	return ref_send_addr(x, l->row.list, tmplname, d, game);
}

/* The outcome of a challenge: "won", "lost", "drawn", "forfeit" (the
 * challenger moves up in the first and the last). */
static int
challenge_decide(struct ref_msg *x, struct store_challenge *c,
    const char *status, const struct play_game *g,
    const struct ref_rating_change *ch)
{
	struct ladder l;
	struct tmpl_data *d;
	struct tmpl_list *pl;
	struct buf b = { 0 };
	int a, t, i, rc, up;

	if ((rc = ladder_get(x, NULL, c->ladder, &l, NULL)) != 0)
		return rc == 1 ? 0 : -1;
	free(c->status);
	c->status = xstrdup(status);
	c->decided = x->now;
	if (fx_challenge_update(x, c) == -1)
		goto fail;
	a = rung_of(&l, c->challenger);
	t = rung_of(&l, c->challenged);
	up = (strcmp(status, "won") == 0 || strcmp(status, "forfeit") == 0) &&
	    a >= 0 && t >= 0 && a > t && !l.row.closed;
	if (a >= 0 && strcmp(status, "void") != 0)
		l.rungs[a].active = x->now;
	if (t >= 0 && strcmp(status, "forfeit") != 0 &&
	    strcmp(status, "void") != 0)
		l.rungs[t].active = x->now;
	if (up)
		rung_move(&l, a, t);
	if (fx_rungs_set(x, l.row.id, l.rungs, l.n) == -1)
		goto fail;
	if (strcmp(status, "void") == 0) {
		ladder_free(&l);
		return 0;
	}
	d = tmpl_data_new();
	if (standings_data(x, &l, d) == -1) {
		tmpl_data_free(d);
		goto fail;
	}
	tmpl_set(d, "result.status", status);
	tmpl_set(d, "result.won", strcmp(status, "won") == 0 ? "1" : "");
	tmpl_set(d, "result.lost", strcmp(status, "lost") == 0 ? "1" : "");
	tmpl_set(d, "result.drawn", strcmp(status, "drawn") == 0 ? "1" : "");
	tmpl_set(d, "result.forfeit", strcmp(status, "forfeit") == 0 ? "1" :
	    "");
	tmpl_set(d, "result.moved", up ? "1" : "");
	if (a >= 0 && rung_name(x, &l.rungs[up ? t : a], &b) == -1)
		goto data_fail;
	tmpl_set(d, "challenger.name", buf_str(&b));
	tmpl_set_int(d, "challenger.position", up ? t + 1 : a + 1);
	buf_reset(&b);
	i = rung_of(&l, c->challenged);
	if (i >= 0 && rung_name(x, &l.rungs[i], &b) == -1)
		goto data_fail;
	tmpl_set(d, "challenged.name", buf_str(&b));
	tmpl_set_int(d, "challenged.position", i + 1);
	tmpl_setf(d, "game.id", "%lld", (long long)c->game);
	if (g != NULL) {
		tmpl_set(d, "game.title", _(g->def->title));
		{
			struct buf rb = { 0 };

			refview_result(g, &rb);
			tmpl_set(d, "game.result", buf_str(&rb));
			buf_free(&rb);
		}
	}
	pl = tmpl_list(d, "changes");
	for (i = 0; g != NULL && ch != NULL && ch->rated &&
	    i < g->row.nseats; i++) {
		struct tmpl_data *it = tmpl_list_add(pl);

		buf_reset(&b);
		if (ref_player_name(x, g->row.player[i], &b) == -1)
			goto data_fail;
		tmpl_set(it, "name", buf_str(&b));
		tmpl_set_int(it, "rating_old", ch->old[i]);
		tmpl_set_int(it, "rating_new", ch->now[i]);
		tmpl_setf(it, "rating_change", "%+d", ch->now[i] - ch->old[i]);
	}
	rc = post_list(x, &l, "ladder-result", d, c->game);
	tmpl_data_free(d);
	buf_free(&b);
	ladder_free(&l);
	return rc;
data_fail:
	tmpl_data_free(d);
fail:
	buf_free(&b);
	ladder_free(&l);
	return -1;
}

/* The status of a challenge decided by its game. */
static const char *
game_status(const struct play_game *g, const struct game_result *res,
    const struct store_challenge *c)
{
	int i;

	if (g->row.ended != NULL && strcmp(g->row.ended, "aborted") == 0)
		return "void";
	if (res->draw || res->winners == 0)
		return "drawn";
	for (i = 0; i < g->row.nseats; i++)
		if (g->row.player[i] == c->challenger)
			return (res->winners & (1u << i)) ? "won" : "lost";
	return "void";
}

int
refladder_end(struct ref_msg *x, const struct play_game *g,
    const struct game_result *res, struct ref_rating_change *ch)
{
	struct store_challenge c;
	int rc;

	memset(ch, 0, sizeof(*ch));
	if (rate_game(x, g, res, ch) == -1)
		return -1;
	if ((rc = store_challenge_by_game(x->r->store, g->row.id, &c)) != 0)
		return rc == 1 ? 0 : -1;
	rc = 0;
	if (strcmp(c.status, "open") == 0)
		rc = challenge_decide(x, &c, game_status(g, res, &c), g, ch);
	store_challenge_free(&c);
	return rc;
}

int
refladder_unplayed(struct ref_msg *x, const struct play_game *g,
    int64_t decliner)
{
	struct store_challenge c;
	const char *status = "forfeit";
	int rc, i, side0 = -1;

	if ((rc = store_challenge_by_game(x->r->store, g->row.id, &c)) != 0)
		return rc == 1 ? 0 : -1;
	for (i = 0; i < g->row.nseats; i++)
		if (g->row.player[i] == c.challenger)
			side0 = side(g, i);
	/* The challenger's side withdrawing, or not all of it having
	 * accepted when time ran out, forfeits nothing of the other's. */
	for (i = 0; i < g->row.nseats; i++) {
		if (side(g, i) != side0)
			continue;
		if ((decliner != 0 && g->row.player[i] == decliner) ||
		    (decliner == 0 && !g->row.accepted[i]))
			status = "void";
	}
	rc = 0;
	if (strcmp(c.status, "open") == 0)
		rc = challenge_decide(x, &c, status, g, NULL);
	store_challenge_free(&c);
	return rc;
}

/* ---- commands ---- */

int
refladder_cmd_join(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	struct ladder l;
	struct store_rung *r;
	struct store_player p;
	int64_t partner = 0;
	int rc;

	if ((rc = ladder_get(x, c->ladder, 0, &l, res)) != 0)
		return rc == 1 ? REF_FAIL : -1;
	rc = REF_FAIL;
	if (l.row.closed) {
		ref_fail(res, _("ladder %s is closed"), l.row.name);
		goto out;
	}
	if (l.row.pairs && c->addr == NULL) {
		ref_fail(res, _("ladder %s ranks partnerships: write `ladder join "
		    "%s with ADDRESS` naming your partner"), l.row.name,
		    l.row.name);
		goto out;
	}
	if (!l.row.pairs && c->addr != NULL) {
		ref_fail(res, _("ladder %s ranks single players: write `ladder "
		    "join %s`"), l.row.name, l.row.name);
		goto out;
	}
	if (rung_of(&l, x->me.id) >= 0) {
		ref_fail(res, _("you are already on ladder %s"), l.row.name);
		goto out;
	}
	if (c->addr != NULL) {
		if (strcmp(c->addr, x->me.address) == 0) {
			ref_fail(res, _("name your partner, not yourself"));
			goto out;
		}
		if ((rc = store_player_find(x->r->store, c->addr, &p)) == -1)
			goto out;
		if (rc == 0 && p.banned) {
			store_player_free(&p);
			rc = ref_fail(res, _("%s does not take part in games on "
			    "this referee"), c->addr);
			goto out;
		}
		if (rc == 0)
			store_player_free(&p);
		rc = -1;
		if (ref_player_make(x, c->addr, &partner) == -1)
			goto out;
		rc = REF_FAIL;
		if (rung_of(&l, partner) >= 0) {
			ref_fail(res, _("%s is already on ladder %s"), c->addr,
			    l.row.name);
			goto out;
		}
	}
	l.rungs = xreallocarray(l.rungs, (size_t)l.n + 1, sizeof(*l.rungs));
	r = &l.rungs[l.n++];
	memset(r, 0, sizeof(*r));
	r->player = x->me.id;
	r->partner = partner;
	r->active = x->now;
	rc = -1;
	if (fx_rungs_set(x, l.row.id, l.rungs, l.n) == -1)
		goto out;
	res->note = xasprintf(_("you are on ladder %s at place %d"), l.row.name,
	    l.n);
	rc = REF_OK;
out:
	ladder_free(&l);
	return rc;
}

static int
open_challenges(struct ref_msg *x, int64_t ladder, int64_t player, int *n)
{
	struct store_challenge *v;

	if (store_challenges(x->r->store, ladder, player, 1, 0, &v, n) == -1)
		return -1;
	store_challenges_free(v, *n);
	return 0;
}

/* Remove rung i; open challenges of it become void. */
static int
rung_remove(struct ref_msg *x, struct ladder *l, int i)
{
	struct store_challenge *v;
	int n, k, rc = 0;

	if (store_challenges(x->r->store, l->row.id, l->rungs[i].player, 1, 0,
	    &v, &n) == -1)
		return -1;
	for (k = 0; k < n && rc == 0; k++) {
		free(v[k].status);
		v[k].status = xstrdup("void");
		v[k].decided = x->now;
		rc = fx_challenge_update(x, &v[k]);
	}
	store_challenges_free(v, n);
	if (rc == -1)
		return -1;
	memmove(&l->rungs[i], &l->rungs[i + 1], (size_t)(l->n - i - 1) *
	    sizeof(*l->rungs));
	l->n--;
	return fx_rungs_set(x, l->row.id, l->rungs, l->n);
}

int
refladder_cmd_leave(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	struct ladder l;
	int i, n, rc;

	if ((rc = ladder_get(x, c->ladder, 0, &l, res)) != 0)
		return rc == 1 ? REF_FAIL : -1;
	if ((i = rung_of(&l, x->me.id)) < 0) {
		ref_fail(res, _("you are not on ladder %s"), l.row.name);
		ladder_free(&l);
		return REF_FAIL;
	}
	if (open_challenges(x, l.row.id, l.rungs[i].player, &n) == -1) {
		ladder_free(&l);
		return -1;
	}
	if (n > 0) {
		ref_fail(res, P_("you have %d open challenge on ladder %s: "
		    "play it first", "you have %d open challenges on ladder "
		    "%s: play them first", n), n, l.row.name);
		ladder_free(&l);
		return REF_FAIL;
	}
	rc = rung_remove(x, &l, i);
	if (rc == 0)
		res->note = xasprintf(_("you have left ladder %s"), l.row.name);
	ladder_free(&l);
	return rc == 0 ? REF_OK : -1;
}

int
refladder_cmd_ladder(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	struct ladder l;
	struct tmpl_data *d;
	int rc;

	if ((rc = ladder_get(x, c->ladder, 0, &l, res)) != 0)
		return rc == 1 ? REF_FAIL : -1;
	d = tmpl_data_new();
	rc = standings_data(x, &l, d);
	if (rc == 0)
		rc = ref_send(x, &x->me, "ladder", d, 0, -1, NULL);
	tmpl_data_free(d);
	ladder_free(&l);
	return rc == 0 ? REF_OK : -1;
}

/* The one open ladder both players stand on (res filled when none or
 * several). */
static int
common_ladder(struct ref_msg *x, int64_t a, int64_t b, struct ladder *out,
    struct ref_result *res)
{
	struct ladder l;
	int64_t *ids;
	int i, n, found = 0;

	if (store_ladder_ids(x->r->store, &ids, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (ladder_get(x, NULL, ids[i], &l, NULL) != 0) {
			free(ids);
			if (found)
				ladder_free(out);
			return -1;
		}
		if (rung_of(&l, a) >= 0 && rung_of(&l, b) >= 0) {
			if (found++) {
				ladder_free(out);
				ladder_free(&l);
				free(ids);
				return ref_fail(res, _("you are both on several "
				    "ladders: name one (challenge ADDRESS "
				    "LADDER)"));
			}
			*out = l;
		} else
			ladder_free(&l);
	}
	free(ids);
	if (!found)
		return ref_fail(res, _("you are not both on a ladder"));
	return 0;
}

int
refladder_cmd_challenge(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	struct ladder l;
	struct store_player them;
	struct store_challenge ch, *past;
	struct ref_proposal p;
	struct command_seat *seats;
	char **words = NULL;
	int nseats = 0, nwords = 0;
	struct play_game g;
	int64_t them_id;
	char *tok, *save, *opts = NULL;
	int a, t, n, i, np, rc;

	if ((rc = store_player_find(x->r->store, c->addr, &them)) == -1)
		return -1;
	if (rc == 1)
		return ref_fail(res, _("%s is on no ladder"), c->addr);
	them_id = them.id;
	if (c->ladder != NULL)
		rc = ladder_get(x, c->ladder, 0, &l, res);
	else
		rc = common_ladder(x, x->me.id, them_id, &l, res);
	store_player_free(&them);
	if (rc != 0)
		return rc;
	rc = REF_FAIL;
	a = rung_of(&l, x->me.id);
	t = rung_of(&l, them_id);
	if (l.row.closed) {
		ref_fail(res, _("ladder %s is closed"), l.row.name);
		goto out;
	}
	if (a < 0 || t < 0) {
		if (a < 0)
			ref_fail(res, _("you are not on ladder %s"), l.row.name);
		else
			ref_fail(res, _("%s is not on ladder %s"), c->addr,
			    l.row.name);
		goto out;
	}
	if (a == t) {
		ref_fail(res, _("you cannot challenge your own rung"));
		goto out;
	}
	if (t > a) {
		ref_fail(res, _("%s stands below you on ladder %s (place %d; "
		    "you are at %d): challenge upwards"), c->addr, l.row.name,
		    t + 1, a + 1);
		goto out;
	}
	if (a - t > l.row.reach) {
		ref_fail(res, _("%s is %d places above you on ladder %s; you "
		    "may challenge up to %d places up"), c->addr, a - t,
		    l.row.name, l.row.reach);
		goto out;
	}
	rc = -1;
	if (store_challenges(x->r->store, l.row.id, l.rungs[a].player, 1, 0,
	    &past, &np) == -1)
		goto out;
	for (i = 0; i < np; i++)
		if (past[i].challenger == l.rungs[t].player ||
		    past[i].challenged == l.rungs[t].player)
			break;
	store_challenges_free(past, np);
	rc = REF_FAIL;
	if (i < np) {
		ref_fail(res, _("there is already an open challenge between you "
		    "on ladder %s"), l.row.name);
		goto out;
	}
	if (np >= l.row.open_cap) {
		ref_fail(res, P_("you have %d open challenge on ladder %s, the "
		    "most allowed", "you have %d open challenges on ladder %s, "
		    "the most allowed", np), np, l.row.name);
		goto out;
	}
	rc = -1;
	if (open_challenges(x, l.row.id, l.rungs[t].player, &n) == -1)
		goto out;
	rc = REF_FAIL;
	if (n >= l.row.open_cap) {
		ref_fail(res, _("%s has %d open challenges on ladder %s, the most "
		    "allowed; try later"), c->addr, n, l.row.name);
		goto out;
	}
	rc = -1;
	if (store_challenges(x->r->store, l.row.id, l.rungs[a].player, 0,
	    x->now - l.row.cooldown, &past, &np) == -1)
		goto out;
	/* A void challenge (withdrawn, aborted) was no meeting. */
	for (i = 0; i < np; i++)
		if ((past[i].challenger == l.rungs[t].player ||
		    past[i].challenged == l.rungs[t].player) &&
		    strcmp(past[i].status, "void") != 0)
			break;
	store_challenges_free(past, np);
	rc = REF_FAIL;
	if (i < np && l.row.cooldown > 0) {
		ref_fail(res, _("you met %s on ladder %s less than %lld days "
		    "ago; a rematch must wait"), c->addr, l.row.name,
		    (long long)(l.row.cooldown / 86400));
		goto out;
	}

	/* The game: the ladder's variant and clock, rated; partners sit
	 * opposite (1st and 3rd against 2nd and 4th). */
	memset(&p, 0, sizeof(p));
	p.game = l.row.kind;
	p.clock = l.row.clock;
	p.rated = 1;
	p.invite_for = l.row.accept;
	seats = xcalloc(3, sizeof(*seats));
	seats[nseats++].addr = c->addr;
	if (l.row.pairs) {
		struct store_player p1, p2;

		/* The other three seats: the challenged, the challenger's
		 * partner, the challenged's partner. */
		int64_t mine = l.rungs[a].player == x->me.id ?
		    l.rungs[a].partner : l.rungs[a].player;
		int64_t theirs = l.rungs[t].player == them_id ?
		    l.rungs[t].partner : l.rungs[t].player;

		/* Every rung's players exist: a failure here is the store's
		 * (rolled back and tried again) or a broken ladder
		 * (quarantined), never the player's. */
		if (ref_must(x, store_player_load(x->r->store, mine, &p1),
		    "player", mine) != 0) {
			free(seats);
			rc = -1;
			goto out;
		}
		if (ref_must(x, store_player_load(x->r->store, theirs, &p2),
		    "player", theirs) != 0) {
			store_player_free(&p1);
			free(seats);
			rc = -1;
			goto out;
		}
		seats[nseats++].addr = xstrdup(p1.address);
		seats[nseats++].addr = xstrdup(p2.address);
		store_player_free(&p1);
		store_player_free(&p2);
		p.first = CMD_FIRST_ME;
	}
	opts = xstrdup(l.row.options);
	for (tok = strtok_r(opts, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save)) {
		words = xreallocarray(words, (size_t)nwords + 1,
		    sizeof(*words));
		words[nwords++] = tok;
	}
	p.seats = seats;
	p.nseats = nseats;
	p.opts = words;
	p.nopts = nwords;
	rc = reflife_propose(x, &p, res);
	for (i = 1; i < nseats; i++)
		free(seats[i].addr);
	free(seats);
	free(words);
	if (rc != REF_OK)
		goto out;
	rc = -1;
	/* Challenging is accepting for the challenger's own seat.  The game
	 * was made a moment ago: not reading it is the store's failure or
	 * a broken invariant, never the player's mistake. */
	if ((i = play_load(x->r->store, x->r->defs, x->r->ndefs, res->game,
	    &g, res->why, sizeof(res->why))) != 0) {
		if (i != -1)
			ref_broken(x, "game #%lld of a challenge: %s",
			    (long long)res->game, res->why);
		goto out;
	}
	i = play_seat(&g, x->me.address);
	if (i >= 0)
		g.row.accepted[i] = 1;
	if (fx_game_update(x, &g.row) == -1) {
		play_free(&g);
		goto out;
	}
	play_free(&g);
	memset(&ch, 0, sizeof(ch));
	ch.ladder = l.row.id;
	ch.challenger = l.rungs[a].player;
	ch.challenged = l.rungs[t].player;
	ch.game = res->game;
	ch.status = "open";
	ch.created = x->now;
	if (refeff_reserve(x, STORE_SERIES_CHALLENGE, &ch.id) == -1 ||
	    fx_challenge_add(x, &ch) == -1)
		goto out;
	free(res->note);
	res->note = xasprintf(_("challenge on ladder %s: game #%lld proposed "
	    "to %s"), l.row.name, (long long)res->game, c->addr);
	rc = REF_OK;
out:
	free(opts);
	ladder_free(&l);
	return rc;
}

/* ---- admin ---- */

static int
dur_opt(const char *val, int64_t *out, struct ref_result *res,
    const char *name)
{
	long long ms;
	char err[200];

	if (strcmp(val, "off") == 0 || strcmp(val, "0") == 0) {
		*out = 0;
		return 0;
	}
	if (config_parse_duration(val, &ms, err, sizeof(err)) == -1 ||
	    ms < 1000)
		return ref_fail(res, _("%s=%s: a time such as 3d or 12h"), name,
		    val);
	*out = ms / 1000;
	return 0;
}

static int
admin_create(struct ref_msg *x, const struct command *c,
    struct ref_result *res)
{
	const struct gamedef *def;
	struct store_ladder row, old;
	struct game_opts go;
	struct buf ck = { 0 };
	char **words, err[400];
	int i, nw = 0, rc = REF_FAIL, teams = 0;
	long long v;

	if ((def = gamedef_find(x->r->defs, x->r->ndefs, c->gamename)) == NULL)
		return ref_fail(res, _("there is no game `%s`; send `games` for "
		    "the list"), c->gamename);
	if ((rc = store_ladder_find(x->r->store, c->ladder, &old)) == -1)
		return -1;
	if (rc == 0) {
		store_ladder_free(&old);
		return ref_fail(res, _("there is already a ladder %s"), c->ladder);
	}
	memset(&row, 0, sizeof(row));
	row.name = c->ladder;
	row.kind = (char *)def->name;
	row.reach = (int)x->r->cfg->ladder.reach;
	row.accept = x->r->cfg->ladder.accept_ms / 1000;
	row.open_cap = (int)x->r->cfg->ladder.open_challenges;
	row.cooldown = x->r->cfg->ladder.rematch_ms / 1000;
	row.idle = x->r->cfg->ladder.idle_ms / 1000;
	row.created = x->now;
	if (def->seats == 4 && def->ops->partner != NULL)
		row.pairs = 1;
	else if (def->seats != 2)
		return ref_fail(res, _("ladders are for games of two players or "
		    "two partnerships; %s is for %d"), _(def->title), def->seats);
	words = xcalloc((size_t)c->nopts + 2, sizeof(*words));
	rc = REF_FAIL;
	for (i = 0; i < c->nopts; i++) {
		char *eq = strchr(c->opts[i], '='), *val = eq + 1;
		size_t kl = (size_t)(eq - c->opts[i]);

#define KEY(k)	(kl == strlen(k) && strncmp(c->opts[i], k, kl) == 0)
		if (KEY("reach") || KEY("cap")) {
			if (util_parse_int(val, 1, 1000, &v) == -1) {
				ref_fail(res, _("%s: a number from 1 to 1000"),
				    c->opts[i]);
				goto out;
			}
			if (KEY("reach"))
				row.reach = (int)v;
			else
				row.open_cap = (int)v;
		} else if (KEY("accept")) {
			if (dur_opt(val, &row.accept, res, "accept") != 0)
				goto out;
			if (row.accept == 0) {
				ref_fail(res, _("accept= needs a time"));
				goto out;
			}
		} else if (KEY("cooldown")) {
			if (dur_opt(val, &row.cooldown, res, "cooldown") != 0)
				goto out;
		} else if (KEY("idle")) {
			if (dur_opt(val, &row.idle, res, "idle") != 0)
				goto out;
		} else if (KEY("list")) {
			free(row.list);
			if ((row.list = addr_canon(val)) == NULL) {
				ref_fail(res, _("list=%s is not a mail address"),
				    val);
				goto out;
			}
		} else if (KEY("clock")) {
			struct config_clock cc;

			if (config_parse_clock(val, &cc, err, sizeof(err)) ==
			    -1) {
				ref_fail(res, _("clock=%s: %s"), val, err);
				goto out;
			}
			buf_reset(&ck);
			config_format_clock(&cc, &ck);
		} else {
			if (KEY("teams"))
				teams = 1;
			words[nw++] = c->opts[i];
		}
#undef KEY
	}
	if (row.pairs && !teams)
		words[nw++] = "teams=fixed";
	if (gamedef_resolve(def, words, nw, &go, err, sizeof(err)) == -1) {
		ref_fail(res, "%s", err);
		goto out;
	}
	row.options = gamedef_opts_text(&go);
	if (row.pairs && strstr(row.options, "teams=fixed") == NULL) {
		ref_fail(res, _("a ladder of partnerships plays with teams=fixed"));
		goto out;
	}
	row.clock = ck.len ? buf_steal(&ck) : NULL;
	rc = -1;
	if (refeff_reserve(x, STORE_SERIES_LADDER, &row.id) == -1 ||
	    fx_ladder_add(x, &row) == -1)
		goto out;
	{
		struct store_timer t;

		memset(&t, 0, sizeof(t));
		t.due = x->now + LADDER_WEEK;
		t.kind = "ladder";
		t.data = xasprintf("%lld", (long long)row.id);
		rc = fx_timer_add(x, &t);
		free(t.data);
		if (rc == -1)
			goto out;
	}
	res->note = row.list ? xasprintf(_("ladder %s of %s created; results "
	    "go to %s"), row.name, _(def->title), row.list) :
	    xasprintf(_("ladder %s of %s created"), row.name, _(def->title));
	rc = REF_OK;
out:
	free(row.options);
	free(row.list);
	free(row.clock);
	free(words);
	buf_free(&ck);
	return rc;
}

int
refladder_configured(struct ref_msg *x)
{
	const struct config_list *l = &x->r->cfg->ladder.create;
	struct store_ladder old;
	struct ref_result res;
	struct command c;
	char *line, err[300];
	int i, rc;

	for (i = 0; i < l->n; i++) {
		line = xasprintf("admin ladder create %s", l->v[i]);
		rc = command_parse(x->r->aliases, line, &c, err, sizeof(err));
		free(line);
		if (rc == -1) {
			log_warn("ladder.create `%s`: %s", l->v[i], err);
			command_free(&c);
			continue;
		}
		if ((rc = store_ladder_find(x->r->store, c.ladder, &old)) == 0)
			store_ladder_free(&old);
		if (rc == 1) {
			memset(&res, 0, sizeof(res));
			if ((rc = admin_create(x, &c, &res)) == REF_FAIL)
				log_warn("ladder.create `%s`: %s", l->v[i],
				    res.why);
			else if (rc == REF_OK)
				log_info("%s", res.note);
			free(res.note);
			/* Each ladder made before the next is looked for. */
			if (rc == REF_OK)
				rc = refeff_apply(x);
			else
				refeff_discard(x);
		}
		command_free(&c);
		if (rc == -1)
			return -1;
	}
	return 0;
}

int
refladder_cmd_admin(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	struct ladder l;
	int i, rc;

	if (c->kind == CMD_ADMIN_LADDER_CREATE)
		return admin_create(x, c, res);
	if ((rc = ladder_get(x, c->ladder, 0, &l, res)) != 0)
		return rc == 1 ? REF_FAIL : -1;
	rc = REF_OK;
	switch (c->kind) {
	case CMD_ADMIN_LADDER_CLOSE:
		if (l.row.closed)
			rc = ref_fail(res, _("ladder %s is already closed"),
			    l.row.name);
		else if (fx_ladder_close(x, l.row.id, x->now) ==
		    -1)
			rc = -1;
		else
			res->note = xasprintf(_("ladder %s is closed"),
			    l.row.name);
		break;
	case CMD_ADMIN_LADDER_REMOVE:
	case CMD_ADMIN_LADDER_ADJUST: {
		struct store_player p;

		if ((rc = store_player_find(x->r->store, c->addr, &p)) == -1)
			break;
		i = -1;
		if (rc == 0) {
			i = rung_of(&l, p.id);
			store_player_free(&p);
		}
		rc = REF_OK;
		if (i < 0) {
			rc = ref_fail(res, _("%s is not on ladder %s"), c->addr,
			    l.row.name);
			break;
		}
		if (c->kind == CMD_ADMIN_LADDER_REMOVE) {
			if (rung_remove(x, &l, i) == -1)
				rc = -1;
			else
				res->note = xasprintf(_("%s is off ladder %s"),
				    c->addr, l.row.name);
			break;
		}
		rung_move(&l, i, c->position > l.n ? l.n - 1 :
		    c->position - 1);
		if (fx_rungs_set(x, l.row.id, l.rungs, l.n) == -1)
			rc = -1;
		else
			res->note = xasprintf(_("%s is at place %d on ladder %s"),
			    c->addr, c->position > l.n ? l.n : c->position,
			    l.row.name);
		break;
	}
	default:
		rc = ref_fail(res, _("`%s` is not a ladder command"),
		    command_name(c->kind));
		break;
	}
	ladder_free(&l);
	return rc;
}

/* ---- run steps (the command table in refcmd.c) ---- */

/* admin ladder create, close, remove-player, adjust */
/* ---- the weekly timer: inactivity, standings to the list ---- */

int
refladder_timer(struct ref_msg *x, const struct store_timer *t)
{
	struct ladder l;
	struct tmpl_data *d;
	struct store_timer next;
	long long id;
	int i, rc, moved = 0;

	if (t->data == NULL || util_parse_int(t->data, 1, INT64_MAX, &id) ==
	    -1)
		return 0;
	if ((rc = ladder_get(x, NULL, id, &l, NULL)) != 0)
		return rc == 1 ? 0 : -1;
	if (l.row.closed) {
		ladder_free(&l);
		return 0;
	}
	/* A rung idle longer than the ladder allows drops one place (from
	 * the bottom up, so one drop does not carry a rung twice), and its
	 * idle time starts again. */
	for (i = l.n - 2; l.row.idle > 0 && i >= 0; i--)
		if (x->now - l.rungs[i].active >= l.row.idle) {
			l.rungs[i].active = x->now;
			rung_move(&l, i, i + 1);
			moved++;
		}
	rc = -1;
	if (moved && fx_rungs_set(x, l.row.id, l.rungs, l.n) ==
	    -1)
		goto out;
	d = tmpl_data_new();
	if (standings_data(x, &l, d) == -1) {
		tmpl_data_free(d);
		goto out;
	}
	tmpl_set_int(d, "ladder.dropped", moved);
	rc = post_list(x, &l, "ladder-standings", d, 0);
	tmpl_data_free(d);
	if (rc == -1)
		goto out;
	memset(&next, 0, sizeof(next));
	next.due = t->due + LADDER_WEEK;
	while (next.due <= x->now)
		next.due += LADDER_WEEK;
	next.kind = "ladder";
	next.data = xasprintf("%lld", id);
	rc = fx_timer_add(x, &next);
	free(next.data);
out:
	ladder_free(&l);
	return rc;
}
