/*
 * refseek: open seeks, a lobby by mail.
 *
 * `seek GAME [OPT=VAL...]` offers a game to whoever takes it: the seeker
 * has the first seat, and `accept #ID` by anyone else takes the next free
 * one; the game begins, every seat accepted, when the last seat is taken
 * (the fourth player of Aluette), with the seats in the order they were
 * taken.  `seeks` lists the open ones; once a week they are posted to the
 * club lists configured by address (club.lists).  A seek lapses as an
 * invitation does (clock.invitation).  `ladder=NAME` keeps the seats for
 * the players of that ladder, `rating=LOW-HIGH` for those whose rating
 * in the game is in the range (unrated players count as 1500, the
 * rating's start).
 *
 * Seeks are numbered in the games' series and the game keeps the seek's
 * number, so `accept #ID` names one thing.  A seek and a seat in one are
 * commitments in a player's name: without proof of the sender the
 * referee first asks the sender to confirm (refadmin_ask), as it does for
 * admin commands, so a forged From neither posts nor takes seeks; the
 * command table asks for `seek`, the seek's own step for a seat.
 * `decline #ID` withdraws one's own seek, or gives back one's seat.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "refint.h"

#define SEEK_WEEK		(7 * 86400)
#define SEEK_OPEN_MAX		5	/* open seeks per player */
#define SEEK_UNRATED		1500	/* the rating an unrated player has */

/* 1 when the player stands on the ladder (alone or in a pair), 0 when
 * not, -1 when the store fails. */
static int
ladder_member(struct ref_msg *x, int64_t ladder, int64_t player)
{
	struct store_rung *r;
	int n, i, found = 0;

	if (store_rungs(x->r->store, ladder, &r, &n) == -1)
		return -1;
	for (i = 0; i < n; i++)
		found |= r[i].player == player || (r[i].partner != 0 &&
		    r[i].partner == player);
	free(r);
	return found;
}

/* The player's rating in a game, rounded; unrated players have the
 * start value.  -1 when the store fails. */
static int
rating_of(struct ref_msg *x, int64_t player, const char *kind, int *out)
{
	struct store_rating s;
	int rc;

	if ((rc = store_rating_get(x->r->store, player, kind, &s)) == -1)
		return -1;
	*out = rc == 1 || s.games == 0 ? SEEK_UNRATED : (int)lround(s.r);
	return 0;
}

/* "1400-1800", "1500 or more", "1700 or less", "" for none. */
static void
range_text(const struct store_seek *k, struct buf *b)
{
	if (k->rating_min && k->rating_max)
		buf_printf(b, "%d-%d", k->rating_min, k->rating_max);
	else if (k->rating_min)
		buf_printf(b, _("%d or more"), k->rating_min);
	else if (k->rating_max)
		buf_printf(b, _("%d or less"), k->rating_max);
}

static int
has_word(const struct command *c, const char *key)
{
	int i;

	for (i = 0; i < c->nopts; i++)
		if (util_strncaseeq(c->opts[i], key, strlen(key)))
			return 1;
	return 0;
}

/* Is the seek's game as written one the engine can deal?  REF_FAIL with
 * the engine's or the definition's reason. */
static int
seek_check(struct ref_msg *x, const struct gamedef *def,
    const struct command *c, struct ref_result *res)
{
	struct game_opts o;
	char **words, err[GAME_ERRLEN + 100];
	unsigned char seed[RNG_SEED_LEN] = { 0 };
	void *st;
	int i, nw = 0, rc, colour = 0;

	(void)x;
	words = xcalloc((size_t)c->nopts + 1, sizeof(*words));
	for (i = 0; i < c->nopts; i++) {
		const char *eq = strchr(c->opts[i], '=');

		if (util_strncaseeq(c->opts[i], "colour=", 7) ||
		    util_strncaseeq(c->opts[i], "color=", 6) ||
		    util_strncaseeq(c->opts[i], "colours=", 8) ||
		    util_strncaseeq(c->opts[i], "colors=", 7)) {
			/* Checked as the colours of the first seats. */
			words[nw++] = xasprintf("colours=%s", eq + 1);
			colour = 1;
		} else
			words[nw++] = xstrdup(c->opts[i]);
	}
	rc = REF_OK;
	if (colour) {
		for (i = 0; i < def->nopts; i++)
			if (strcmp(def->opts[i].name, "colours") == 0)
				break;
		if (i == def->nopts)
			rc = ref_fail(res, _("%s has no faction colours"),
			    _(def->title));
	}
	if (rc == REF_OK && gamedef_resolve(def, words, nw, &o, err,
	    sizeof(err)) == -1)
		rc = ref_fail(res, "%s", err);
	if (rc == REF_OK) {
		st = xcalloc(1, def->ops->state_size);
		if (def->ops->create(st, &o, seed, def->seats, err,
		    sizeof(err)) == -1)
			rc = ref_fail(res, "%s", err);
		free(st);
	}
	for (i = 0; i < nw; i++)
		free(words[i]);
	free(words);
	return rc;
}

/* The seek's words for play_create: its own, first=me read as the
 * seeker in the first seat. */
static char **
seek_words(const struct store_seek *k, char **copy, int *n)
{
	char **words, *tok, *save;

	*copy = xstrdup(k->words ? k->words : "");
	words = xcalloc(strlen(*copy) / 2 + 2, sizeof(*words));
	*n = 0;
	for (tok = strtok_r(*copy, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save))
		words[(*n)++] = util_strcaseeq(tok, "first=me") ?
		    "first=given" : tok;
	return words;
}

static void
seek_variant(const struct store_seek *k, struct buf *b)
{
	char *copy = xstrdup(k->words ? k->words : ""), *tok, *save;

	for (tok = strtok_r(copy, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save))
		buf_printf(b, "%s%s", b->len ? " " : "", tok);
	free(copy);
}

/* One seek as template data: id, title, game, variant, clock, rated,
 * seeker, seats, free, takers, ladder, rating, expires, mine, seated
 * (the last two for the player `me`, 0 for a list). */
static int
seek_item(struct ref_msg *x, const struct store_seek *k,
    struct tmpl_data *it, int64_t me)
{
	const struct gamedef *def = gamedef_find(x->r->defs, x->r->ndefs,
	    k->kind);
	struct store_ladder l;
	struct buf b = { 0 };
	char when[40];
	int i, free_seats = 0, seated = 0;

	tmpl_setf(it, "id", "%lld", (long long)k->id);
	tmpl_set(it, "title", def ? _(def->title) : k->kind);
	tmpl_set(it, "game", k->kind);
	seek_variant(k, &b);
	tmpl_set(it, "variant", buf_str(&b));
	buf_reset(&b);
	if (k->clock != NULL)
		buf_adds(&b, k->clock);
	else
		config_format_clock(&x->r->cfg->clock.move, &b);
	tmpl_set(it, "clock", buf_str(&b));
	buf_reset(&b);
	tmpl_set(it, "rated", k->rated ? "1" : "");
	/* Strangers read the seeks (a club list, anyone who asks): the
	 * players are named as the public pages name them. */
	if (ref_player_public(x, k->player[0], &b) == -1)
		goto fail;
	tmpl_set(it, "seeker", buf_str(&b));
	buf_reset(&b);
	for (i = 1; i < k->nseats; i++) {
		if (k->player[i] == 0) {
			free_seats++;
			continue;
		}
		seated |= k->player[i] == me;
		if (b.len)
			buf_adds(&b, ", ");
		if (ref_player_public(x, k->player[i], &b) == -1)
			goto fail;
	}
	tmpl_set(it, "takers", buf_str(&b));
	buf_reset(&b);
	tmpl_set_int(it, "seats", k->nseats);
	tmpl_set_int(it, "free", free_seats);
	if (k->ladder != 0) {
		if (ref_must(x, store_ladder_load(x->r->store, k->ladder, &l),
		    "ladder", k->ladder) != 0)
			goto fail;
		tmpl_set(it, "ladder", l.name);
		store_ladder_free(&l);
	} else
		tmpl_set(it, "ladder", "");
	range_text(k, &b);
	tmpl_set(it, "rating", buf_str(&b));
	ref_utc(k->expires, when, sizeof(when));
	tmpl_set(it, "expires", when);
	tmpl_set(it, "mine", me != 0 && k->player[0] == me ? "1" : "");
	tmpl_set(it, "seated", seated ? "1" : "");
	buf_free(&b);
	return 0;
fail:
	buf_free(&b);
	return -1;
}

/* Has player me posted seek k or taken a seat in it? */
static int
seek_has(const struct store_seek *k, int64_t me)
{
	int i;

	for (i = 0; i < k->nseats; i++)
		if (k->player[i] == me)
			return 1;
	return 0;
}

/* The open seeks as seeks[] (for the player me, or 0 for a list; with
 * own, only those me posted or has a seat in); *n how many. */
static int
seeks_data(struct ref_msg *x, struct tmpl_data *d, int64_t me, int own,
    int *n)
{
	struct tmpl_list *l = tmpl_list(d, "seeks");
	struct store_seek k;
	int64_t *ids;
	int i, count, rc = 0;

	*n = 0;
	if (store_seeks_open(x->r->store, &ids, &count) == -1)
		return -1;
	for (i = 0; i < count && rc == 0; i++) {
		if (ref_must(x, store_seek_load(x->r->store, ids[i], &k),
		    "seek", ids[i]) != 0) {
			rc = -1;
			break;
		}
		if (k.expires > x->now && (!own || seek_has(&k, me))) {
			rc = seek_item(x, &k, tmpl_list_add(l), me);
			(*n)++;
		}
		store_seek_free(&k);
	}
	free(ids);
	return rc;
}

/* Is there a club list to post the seeks to (an entry with an address,
 * not a List-Id alone)? */
static int
club_list(const struct config *cfg)
{
	int i;

	for (i = 0; i < cfg->club.lists.n; i++)
		if (strchr(cfg->club.lists.v[i], '@') != NULL)
			return 1;
	return 0;
}

/* The weekly posting of the open seeks, set when the first seek opens. */
static int
weekly_timer(struct ref_msg *x, int64_t due)
{
	struct store_timer t;
	int n;

	if (!club_list(x->r->cfg))
		return 0;
	if (store_timer_count(x->r->store, "seeks", &n) == -1)
		return -1;
	if (n > 0)
		return 0;
	memset(&t, 0, sizeof(t));
	t.due = due;
	t.kind = "seeks";
	return fx_timer_add(x, &t);
}

static int
open_seeks_of(struct ref_msg *x, int64_t player, int *n)
{
	struct store_seek k;
	int64_t *ids;
	int i, count, rc = 0;

	*n = 0;
	if (store_seeks_open(x->r->store, &ids, &count) == -1)
		return -1;
	for (i = 0; i < count && rc == 0; i++) {
		if ((rc = ref_must(x, store_seek_load(x->r->store, ids[i],
		    &k), "seek", ids[i])) != 0) {
			rc = -1;
			break;
		}
		*n += k.player[0] == player && k.expires > x->now;
		store_seek_free(&k);
	}
	free(ids);
	return rc;
}

int
refseek_cmd_seek(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	const struct config *cfg = x->r->cfg;
	const struct gamedef *def;
	struct store_seek sk;
	struct store_ladder l;
	struct store_timer t;
	struct config_clock ck;
	struct buf words = { 0 }, clock = { 0 }, lim = { 0 };
	char err[300], when[40];
	int i, n, rc;

	if ((def = gamedef_find(x->r->defs, x->r->ndefs, c->gamename)) ==
	    NULL)
		return ref_fail(res, _("there is no game `%s`; send `games` for "
		    "the list"), c->gamename);
	memset(&sk, 0, sizeof(sk));
	if (c->ladder != NULL) {
		if ((rc = store_ladder_find(x->r->store, c->ladder, &l)) == -1)
			return -1;
		if (rc == 1)
			return ref_fail(res, _("there is no ladder `%s`"),
			    c->ladder);
		sk.ladder = l.id;
		rc = REF_OK;
		if (l.closed)
			rc = ref_fail(res, _("ladder %s is closed"), l.name);
		else if (strcmp(l.kind, def->name) != 0)
			rc = ref_fail(res, _("ladder %s plays %s, not %s"),
			    l.name, l.kind, def->name);
		store_ladder_free(&l);
		if (rc != REF_OK)
			return rc;
		if ((rc = ladder_member(x, sk.ladder, x->me.id)) == -1)
			return -1;
		if (rc == 0)
			return ref_fail(res, _("you are not on ladder %s: a seek "
			    "for its players is theirs to post"), c->ladder);
	}
	if (c->clock != NULL) {
		if (config_parse_clock(c->clock, &ck, err, sizeof(err)) == -1)
			return ref_fail(res, _("clock=%s: %s"), c->clock, err);
		config_format_clock(&ck, &clock);
	}
	if ((rc = seek_check(x, def, c, res)) != REF_OK) {
		buf_free(&clock);
		return rc;
	}
	rc = REF_FAIL;
	if (has_word(c, "colours=") || has_word(c, "colors=")) {
		/* The seeker names the colours of seats nobody has taken:
		 * only their own is theirs to choose. */
		ref_fail(res, _("in a seek, choose your own colour with "
		    "colour=; the others are assigned"));
		goto out;
	}
	if (store_action_count(x->r->store, x->me.id, "new", x->now - 86400,
	    &n) == -1) {
		rc = -1;
		goto out;
	}
	if (n >= REF_NEW_PER_DAY) {
		ref_fail(res, _("you have proposed %d games in the last day; "
		    "wait before proposing more"), n);
		goto out;
	}
	if (open_seeks_of(x, x->me.id, &n) == -1) {
		rc = -1;
		goto out;
	}
	if (n >= SEEK_OPEN_MAX) {
		ref_fail(res, _("you have %d open seeks, the most allowed; "
		    "`decline #ID` withdraws one"), n);
		goto out;
	}
	for (i = 0; i < c->nopts; i++)
		buf_printf(&words, "%s%s", words.len ? " " : "", c->opts[i]);
	if (c->first == CMD_FIRST_RANDOM || c->first == CMD_FIRST_ME)
		buf_printf(&words, "%sfirst=%s", words.len ? " " : "",
		    c->first == CMD_FIRST_ME ? "me" : "random");
	sk.kind = (char *)def->name;
	sk.words = (char *)buf_str(&words);
	sk.clock = clock.len ? (char *)buf_str(&clock) : NULL;
	sk.rated = c->rated != 0;
	sk.nseats = def->seats;
	sk.player[0] = x->me.id;
	sk.rating_min = c->rating_min;
	sk.rating_max = c->rating_max;
	sk.status = "open";
	sk.created = x->now;
	sk.expires = x->now + cfg->clock.invitation_ms / 1000;
	rc = -1;
	if (refeff_reserve(x, STORE_SERIES_GAME, &sk.id) == -1 ||
	    fx_seek_add(x, &sk) == -1 ||
	    fx_action_add(x, x->me.id, "new", x->now) == -1)
		goto out;
	memset(&t, 0, sizeof(t));
	t.due = sk.expires;
	t.kind = "seek";
	t.data = xasprintf("%lld", (long long)sk.id);
	rc = fx_timer_add(x, &t);
	free(t.data);
	if (rc == -1 || weekly_timer(x, x->now + SEEK_WEEK) == -1) {
		rc = -1;
		goto out;
	}
	ref_utc(sk.expires, when, sizeof(when));
	if (c->ladder != NULL)
		buf_printf(&lim, _(" for the players of ladder %s"), c->ladder);
	if (sk.rating_min || sk.rating_max) {
		struct buf r = { 0 };

		range_text(&sk, &r);
		buf_printf(&lim, _(" rated %s"), buf_str(&r));
		buf_free(&r);
	}
	res->note = xasprintf(_("seek #%lld is open: %s%s; others take a seat "
	    "with `accept #%lld`; it lapses on %s"), (long long)sk.id,
	    _(def->title), buf_str(&lim), (long long)sk.id, when);
	rc = REF_OK;
out:
	buf_free(&words);
	buf_free(&clock);
	buf_free(&lim);
	return rc;
}

int
refseek_cmd_seeks(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct tmpl_data *d = tmpl_data_new();
	int n, rc;

	(void)k;
	(void)res;
	if ((rc = seeks_data(x, d, x->me.id, 0, &n)) == 0)
		rc = ref_send(x, &x->me, "seeks", d, 0, -1, NULL);
	tmpl_data_free(d);
	return rc;
}

/* accept #ID, decline #ID: the prior step of the table, a seek's answer
 * when #ID is one. */
/* The mail that a seek closed without a game: to its seeker (lapsed)
 * and to those who had taken a seat, but not to the sender. */
static int
closed_mail(struct ref_msg *x, const struct store_seek *k, int withdrawn)
{
	const struct gamedef *def = gamedef_find(x->r->defs, x->r->ndefs,
	    k->kind);
	struct store_player p;
	struct tmpl_data *d;
	int i, rc = 0;

	for (i = withdrawn ? 1 : 0; i < k->nseats && rc == 0; i++) {
		if (k->player[i] == 0 || k->player[i] == x->me.id)
			continue;
		if (ref_must(x, store_player_load(x->r->store, k->player[i],
		    &p), "player", k->player[i]) != 0)
			return -1;
		ref_lang(&p);
		d = tmpl_data_new();
		tmpl_setf(d, "seek.id", "%lld", (long long)k->id);
		tmpl_set(d, "seek.title", def ? _(def->title) : k->kind);
		tmpl_set(d, "seek.withdrawn", withdrawn ? "1" : "");
		tmpl_set(d, "seek.yours", i == 0 ? "1" : "");
		rc = ref_send(x, &p, "seek-closed", d, 0, -1, NULL);
		tmpl_data_free(d);
		store_player_free(&p);
	}
	ref_lang(&x->me);
	return rc;
}

/* Every seat taken: the game, with the seek's number and every seat
 * accepted. */
static int
seek_fill(struct ref_msg *x, struct store_seek *k, struct ref_result *res)
{
	const struct gamedef *def;
	struct play_settings set;
	struct play_game g;
	struct refdeck_draw draw;
	struct store_player p;
	char *addrs[STORE_MAX_SEATS] = { 0 }, **words, *copy, *dealw = NULL;
	char err[400];
	unsigned char seed[RNG_SEED_LEN];
	int i, nw, rc = -1;

	if ((def = gamedef_find(x->r->defs, x->r->ndefs, k->kind)) == NULL)
		return ref_fail(res, _("there is no game `%s`; send `games` for "
		    "the list"), k->kind);
	for (i = 0; i < k->nseats; i++) {
		if (ref_must(x, store_player_load(x->r->store, k->player[i],
		    &p), "player", k->player[i]) != 0)
			goto out;
		addrs[i] = xstrdup(p.address);
		store_player_free(&p);
	}
	words = seek_words(k, &copy, &nw);
	ref_seed(x, seed);
	if (refdeck_deal(x, def, words, nw, seed, &dealw, &draw) == -1)
		goto words;
	if (dealw != NULL)
		words[nw++] = dealw;
	memset(&set, 0, sizeof(set));
	set.clock = k->clock;
	set.rated = k->rated;
	set.inviter = k->player[0];
	set.id = k->id;
	if ((rc = ref_game_make(x, def, &set, words, nw, addrs, k->nseats,
	    seed, "active", &g, err, sizeof(err))) != REF_OK) {
		if (rc == REF_FAIL)
			ref_fail(res, "%s", err);
		goto words;
	}
	rc = -1;
	res->game = g.row.id;
	free(k->status);
	k->status = xstrdup("filled");
	k->game = g.row.id;
	if (refdeck_record(x, g.row.id, &draw) == -1 ||
	    fx_seek_update(x, k) == -1 ||
	    reflife_start(x, &g, k->player[0], "new") == -1)
		goto game;
	res->note = xasprintf(_("game #%lld, %s, begins"),
	    (long long)g.row.id, _(def->title));
	rc = REF_OK;
game:
	play_free(&g);
words:
	refdeck_draw_free(&draw);
	free(dealw);
	free(words);
	free(copy);
out:
	for (i = 0; i < STORE_MAX_SEATS; i++)
		free(addrs[i]);
	return rc;
}

/* decline #ID of a seek: the seeker withdraws it, a taker gives the seat
 * back (the later takers move up one). */
static int
seek_decline(struct ref_msg *x, struct store_seek *k, int seat,
    const char *line, struct ref_result *res)
{
	int i;

	if (seat < 0)
		return ref_fail(res, _("you have no seat in seek #%lld"),
		    (long long)k->id);
	if (!x->proven && !x->confirmed)
		return refadmin_ask(x, line, 0, res);
	if (seat == 0) {
		free(k->status);
		k->status = xstrdup("withdrawn");
		if (fx_seek_update(x, k) == -1)
			return -1;
		res->note = xasprintf(_("seek #%lld is withdrawn"),
		    (long long)k->id);
		return closed_mail(x, k, 1);
	}
	for (i = seat; i + 1 < k->nseats; i++)
		k->player[i] = k->player[i + 1];
	k->player[k->nseats - 1] = 0;
	if (fx_seek_update(x, k) == -1)
		return -1;
	res->note = xasprintf(_("you gave back your seat in seek #%lld"),
	    (long long)k->id);
	return REF_OK;
}

int
refseek_cmd_answer(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	const struct command *c = k->c;
	const char *line = k->line;
	const struct gamedef *def;
	struct store_seek sk;
	struct store_player me;
	int rc, i, seat = -1, rating, left = 0;

	if ((rc = store_seek_load(x->r->store, c->game, &sk)) == -1)
		return -1;
	if (rc == 1)
		return REF_NOSEEK;
	res->game = 0;
	for (i = 0; i < sk.nseats; i++)
		if (sk.player[i] == x->me.id)
			seat = i;
	def = gamedef_find(x->r->defs, x->r->ndefs, sk.kind);
	/* A taken seek is its game: the seats answer there. */
	if (strcmp(sk.status, "filled") == 0) {
		if (seat >= 0) {
			store_seek_free(&sk);
			return REF_NOSEEK;
		}
		rc = ref_fail(res, _("seek #%lld is taken: it became game "
		    "#%lld"), (long long)sk.id, (long long)sk.game);
		goto out;
	}
	if (strcmp(sk.status, "open") != 0 || sk.expires <= x->now) {
		rc = ref_fail(res, strcmp(sk.status, "withdrawn") == 0 ?
		    _("seek #%lld was withdrawn") : _("seek #%lld has lapsed"),
		    (long long)sk.id);
		goto out;
	}
	if (c->kind == CMD_DECLINE) {
		rc = seek_decline(x, &sk, seat, line, res);
		goto out;
	}
	rc = REF_FAIL;
	if (seat == 0) {
		ref_fail(res, _("seek #%lld is yours; `decline #%lld` withdraws "
		    "it"), (long long)sk.id, (long long)sk.id);
		goto out;
	}
	if (seat > 0) {
		ref_fail(res, _("you already have a seat in seek #%lld"),
		    (long long)sk.id);
		goto out;
	}
	if (ref_must(x, store_player_load(x->r->store, x->me.id, &me),
	    "player", x->me.id) != 0) {
		rc = -1;
		goto out;
	}
	i = me.banned;
	store_player_free(&me);
	if (i) {
		ref_fail(res, _("%s does not take part in games on this "
		    "referee"), x->me.address);
		goto out;
	}
	if (sk.ladder != 0) {
		struct store_ladder l;

		if ((rc = ladder_member(x, sk.ladder, x->me.id)) == -1 ||
		    ref_must(x, store_ladder_load(x->r->store, sk.ladder, &l),
		    "ladder", sk.ladder) != 0) {
			rc = -1;
			goto out;
		}
		if (rc == 0)
			ref_fail(res, _("seek #%lld is for the players of ladder "
			    "%s; `ladder join %s` first"), (long long)sk.id,
			    l.name, l.name);
		store_ladder_free(&l);
		if (rc == 0) {
			rc = REF_FAIL;
			goto out;
		}
	}
	if (sk.rating_min || sk.rating_max) {
		struct buf b = { 0 };

		if (rating_of(x, x->me.id, sk.kind, &rating) == -1) {
			rc = -1;
			goto out;
		}
		if ((sk.rating_min && rating < sk.rating_min) ||
		    (sk.rating_max && rating > sk.rating_max)) {
			range_text(&sk, &b);
			ref_fail(res, _("seek #%lld is for players rated %s in "
			    "%s; your rating is %d"), (long long)sk.id,
			    buf_str(&b), def ? _(def->title) : sk.kind, rating);
			buf_free(&b);
			rc = REF_FAIL;
			goto out;
		}
	}
	if (!x->proven && !x->confirmed) {
		rc = refadmin_ask(x, line, 0, res);
		goto out;
	}
	for (i = 1; i < sk.nseats && sk.player[i] != 0; i++)
		;
	sk.player[i] = x->me.id;
	for (i = 1; i < sk.nseats; i++)
		left += sk.player[i] == 0;
	if (left == 0) {
		rc = seek_fill(x, &sk, res);
		goto out;
	}
	rc = -1;
	if (fx_seek_update(x, &sk) == -1)
		goto out;
	res->note = xasprintf(P_("you have a seat in seek #%lld; %d seat is "
	    "still free", "you have a seat in seek #%lld; %d seats are still "
	    "free", left), (long long)sk.id, left);
	rc = REF_OK;
out:
	store_seek_free(&sk);
	return rc;
}

/* ---- timers ---- */

static int
timer_lapse(struct ref_msg *x, const struct store_timer *t)
{
	struct store_seek k;
	long long id;
	int rc;

	if (t->data == NULL || util_parse_int(t->data, 1, INT64_MAX, &id) ==
	    -1)
		return 0;
	if ((rc = store_seek_load(x->r->store, id, &k)) != 0)
		return rc == 1 ? 0 : -1;
	rc = 0;
	if (strcmp(k.status, "open") == 0 && k.expires <= x->now) {
		free(k.status);
		k.status = xstrdup("expired");
		rc = fx_seek_update(x, &k);
		if (rc == 0)
			rc = closed_mail(x, &k, 0);
	}
	store_seek_free(&k);
	return rc;
}

static int
timer_week(struct ref_msg *x, const struct store_timer *t)
{
	const struct config_list *lists = &x->r->cfg->club.lists;
	struct tmpl_data *d = tmpl_data_new();
	int i, n, rc;

	if ((rc = seeks_data(x, d, 0, 0, &n)) == 0 && n > 0) {
		for (i = 0; i < lists->n && rc == 0; i++) {
			if (strchr(lists->v[i], '@') == NULL)
				continue;
			tmpl_set(d, "list.address", lists->v[i]);
			rc = ref_send_addr(x, lists->v[i], "seeks", d, 0);
		}
	}
	tmpl_data_free(d);
	/* Until no seek is open; the next seek sets it again. */
	if (rc == 0 && n > 0) {
		struct store_timer next;

		memset(&next, 0, sizeof(next));
		next.due = t->due + SEEK_WEEK;
		while (next.due <= x->now)
			next.due += SEEK_WEEK;
		next.kind = "seeks";
		rc = fx_timer_add(x, &next);
	}
	return rc;
}

int
refseek_timer(struct ref_msg *x, const struct store_timer *t)
{
	if (strcmp(t->kind, "seek") == 0)
		return timer_lapse(x, t);
	return timer_week(x, t);
}

int
refseek_list(struct ref_msg *x, struct tmpl_data *d)
{
	int n;

	return seeks_data(x, d, x->me.id, 1, &n);
}
