/* play: games as the store keeps them, driven through their engines. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "play.h"
#include "i18n.h"

void
play_free(struct play_game *g)
{
	int i;

	store_game_free(&g->row);
	free(g->st);
	for (i = 0; i < STORE_MAX_SEATS; i++)
		free(g->address[i]);
	memset(g, 0, sizeof(*g));
}

static void
result_text(const struct play_game *g, struct game_result *r)
{
	g->def->ops->result(g->st, r);
}

/* Update status and result after a change of state. */
static void
play_refresh(struct play_game *g)
{
	struct game_result r;
	struct buf b = { 0 };
	char lang[16];

	free(g->row.state);
	g->def->ops->serialise(g->st, &b);
	g->row.state = buf_steal(&b);
	/* Stored in English for the operator's tools; mails ask the engine
	 * again in each reader's language (refview_result). */
	util_strlcpy(lang, i18n_lang(), sizeof(lang));
	i18n_set("en");
	result_text(g, &r);
	i18n_set(lang);
	if (r.over) {
		free(g->row.status);
		g->row.status = xstrdup("finished");
		free(g->row.result);
		g->row.result = xstrdup(r.text);
	}
}

int
play_create(struct store *s, const struct gamedef *def, char *const *words,
    int nwords, char *const *addresses, int naddresses,
    const unsigned char seed[RNG_SEED_LEN], const char *status, int64_t now,
    struct play_game *g, char *err, size_t errlen)
{
	return play_create_with(s, def, NULL, words, nwords, addresses,
	    naddresses, seed, status, now, g, err, errlen);
}

/* "colours=A,B" by seat from the colours of the players as they were
 * named (one when `only` is set: the first player named's), or NULL with
 * err. */
static char *
colours_by_seat(const char *text, int only, char *const *addresses,
    int n, char *const *canon, char *err, size_t errlen)
{
	char *copy = xstrdup(text), *p = copy, *given[STORE_MAX_SEATS] = { 0 };
	char *want;
	struct buf b = { 0 };
	int i, k, ngiven = 0;

	while (p != NULL && ngiven <= n) {
		if (ngiven < n)
			given[ngiven] = p;
		ngiven++;
		if ((p = strchr(p, ',')) != NULL)
			*p++ = '\0';
	}
	if (ngiven > n || (only && ngiven > 1)) {
		util_err(err, errlen, only ? _("colour= takes one colour, as "
		    "colour=green") : _("colours=: at most one colour for each "
		    "of the %d players"), n);
		free(copy);
		return NULL;
	}
	buf_adds(&b, "colours=");
	for (i = 0; i < n; i++) {
		/* The player in seat i, by the order they were named. */
		for (k = 0; k < n; k++) {
			want = addr_canon(addresses[k]);
			if (want != NULL && strcmp(want, canon[i]) == 0) {
				free(want);
				break;
			}
			free(want);
		}
		buf_printf(&b, "%s%s", i ? "," : "", k < n && given[k] ?
		    given[k] : "");
	}
	free(copy);
	return buf_steal(&b);
}

int
play_create_with(struct store *s, const struct gamedef *def,
    const struct play_settings *set, char *const *words, int nwords,
    char *const *addresses, int naddresses,
    const unsigned char seed[RNG_SEED_LEN], const char *status, int64_t now,
    struct play_game *g, char *err, size_t errlen)
{
	char **optwords, *canon[STORE_MAX_SEATS] = { 0 }, *first = NULL;
	char *colourw = NULL;
	const char *colour = NULL, *colours = NULL;
	const struct game_ops *ops = def->ops;
	int i, j, nopt = 0, rc = -1;

	memset(g, 0, sizeof(*g));
	g->def = def;
	optwords = xcalloc((size_t)nwords + 2, sizeof(*optwords));
	for (i = 0; i < nwords; i++) {
		if (util_strncaseeq(words[i], "first=", 6))
			first = words[i] + 6;
		else if (util_strncaseeq(words[i], "colour=", 7) ||
		    util_strncaseeq(words[i], "color=", 6))
			colour = strchr(words[i], '=') + 1;
		else if (util_strncaseeq(words[i], "colours=", 8) ||
		    util_strncaseeq(words[i], "colors=", 7))
			colours = strchr(words[i], '=') + 1;
		else
			optwords[nopt++] = words[i];
	}
	if (colour != NULL && colours != NULL) {
		util_err(err, errlen, _("give colour= (yours) or colours= (every "
		    "player's), not both"));
		goto out;
	}
	if (naddresses != def->seats) {
		util_err(err, errlen, _("%s is for %d players; %d given"),
		    def->title, def->seats, naddresses);
		goto out;
	}
	for (i = 0; i < naddresses; i++) {
		if ((canon[i] = addr_canon(addresses[i])) == NULL) {
			util_err(err, errlen, _("`%s` is not a mail address"),
			    addresses[i]);
			goto out;
		}
		for (j = 0; j < i; j++)
			if (strcmp(canon[i], canon[j]) == 0) {
				util_err(err, errlen, _("%s is named twice"),
				    canon[i]);
				goto out;
			}
	}
	/* Seat 0 moves first where the rules have a first player. */
	if (first == NULL && def->first_random)
		first = "random";
	if (first != NULL && util_strcaseeq(first, "random")) {
		struct rng r;
		uint32_t k;

		rng_init_sub(&r, seed, "first");
		k = rng_below(&r, (uint32_t)naddresses);
		if (k != 0) {
			char *t = canon[0];

			canon[0] = canon[k];
			canon[k] = t;
		}
	} else if (first != NULL && !util_strcaseeq(first, "given") &&
	    !util_strcaseeq(first, "me")) {
		char *want = addr_canon(first);

		for (i = 0; want != NULL && i < naddresses; i++)
			if (strcmp(canon[i], want) == 0)
				break;
		if (want == NULL || i == naddresses) {
			free(want);
			util_err(err, errlen, _("first=%s: give random, me or "
			    "the address of one of the players"), first);
			goto out;
		}
		free(want);
		{
			char *t = canon[i];

			memmove(&canon[1], &canon[0],
			    (size_t)i * sizeof(canon[0]));
			canon[0] = t;
		}
	}

	/* Colours are chosen per player, in the order named; the engine
	 * takes them per seat. */
	if (colour != NULL || colours != NULL) {
		for (i = 0; i < def->nopts; i++)
			if (strcmp(def->opts[i].name, "colours") == 0)
				break;
		if (i == def->nopts) {
			util_err(err, errlen, _("%s has no faction colours"),
			    def->title);
			goto out;
		}
		if ((colourw = colours_by_seat(colour ? colour : colours,
		    colour != NULL, addresses, naddresses, canon, err,
		    errlen)) == NULL)
			goto out;
		optwords[nopt++] = colourw;
	}
	if (gamedef_resolve(def, optwords, nopt, &g->opts, err, errlen) == -1)
		goto out;

	g->st = xcalloc(1, ops->state_size);
	if (ops->create(g->st, &g->opts, seed, naddresses, err, errlen) == -1)
		goto out;
	g->row.kind = xstrdup(def->name);
	g->row.options = gamedef_opts_text(&g->opts);
	memcpy(g->row.seed, seed, RNG_SEED_LEN);
	g->row.status = xstrdup(status);
	g->row.created = g->row.updated = now;
	g->row.nseats = naddresses;
	if (set != NULL) {
		g->row.clock = set->clock ? xstrdup(set->clock) : NULL;
		g->row.rated = set->rated;
		g->row.inviter = set->inviter;
		g->row.expires = set->expires;
		g->row.deadline = set->deadline;
		g->row.id = set->id;
	}
	for (i = 0; i < naddresses; i++) {
		if (s != NULL && store_player_id(s, canon[i], 1, now,
		    &g->row.player[i]) != 0) {
			util_err(err, errlen, "%s", store_errmsg(s));
			rc = PLAY_TEMP;
			goto out;
		}
		g->row.accepted[i] = strcmp(status, "active") == 0;
		g->address[i] = canon[i];
		canon[i] = NULL;
	}
	play_refresh(g);
	if (s != NULL && store_game_create(s, &g->row) == -1) {
		util_err(err, errlen, "%s", store_errmsg(s));
		rc = PLAY_TEMP;
		goto out;
	}
	rc = 0;
out:
	for (i = 0; i < STORE_MAX_SEATS; i++)
		free(canon[i]);
	free(optwords);
	free(colourw);
	if (rc != 0)
		play_free(g);
	return rc;
}

int
play_build(const struct gamedef *def, const struct play_settings *set,
    char *const *words, int nwords, char *const *addresses, int naddresses,
    const unsigned char seed[RNG_SEED_LEN], const char *status, int64_t now,
    struct play_game *g, char *err, size_t errlen)
{
	return play_create_with(NULL, def, set, words, nwords, addresses,
	    naddresses, seed, status, now, g, err, errlen);
}

int
play_load(struct store *s, const struct gamedef *defs, int ndefs, int64_t id,
    struct play_game *g, char *err, size_t errlen)
{
	struct store_player p;
	int rc, i;

	memset(g, 0, sizeof(*g));
	if ((rc = store_game_load(s, id, &g->row)) != 0) {
		if (rc == 1)
			util_err(err, errlen, _("no game #%lld"), (long long)id);
		else
			util_err(err, errlen, "%s", store_errmsg(s));
		return rc;
	}
	rc = PLAY_BROKEN;
	if ((g->def = gamedef_find(defs, ndefs, g->row.kind)) == NULL) {
		util_err(err, errlen, _("game #%lld is %s, which this ludus does "
		    "not know"), (long long)id, g->row.kind);
		goto bad;
	}
	if (gamedef_opts_parse(g->def, g->row.options, &g->opts, err,
	    errlen) == -1)
		goto bad;
	g->st = xcalloc(1, g->def->ops->state_size);
	if (g->def->ops->parse_state(g->st, g->row.state, err, errlen) == -1)
		goto bad;
	for (i = 0; i < g->row.nseats; i++) {
		if ((rc = store_player_load(s, g->row.player[i], &p)) != 0) {
			if (rc == -1)
				util_err(err, errlen, "%s", store_errmsg(s));
			else
				util_err(err, errlen, _("game #%lld: seat %d "
				    "has no player"), (long long)id, i);
			rc = rc == -1 ? -1 : PLAY_BROKEN;
			goto bad;
		}
		g->address[i] = p.address;
		p.address = NULL;
		store_player_free(&p);
	}
	return 0;
bad:
	play_free(g);
	return rc;
}

int
play_seat(const struct play_game *g, const char *address)
{
	char *canon = addr_canon(address);
	int i, seat = -1;

	for (i = 0; canon != NULL && i < g->row.nseats; i++)
		if (g->address[i] && strcmp(g->address[i], canon) == 0)
			seat = i;
	free(canon);
	return seat;
}

int
play_side(const struct play_game *g, int seat)
{
	int p;

	if (g->def->ops->partner == NULL)
		return seat;
	p = g->def->ops->partner(g->st, seat);
	return p >= 0 && p < seat ? p : seat;
}

unsigned
play_side_mask(const struct play_game *g, int seat)
{
	unsigned m = 0;
	int i;

	for (i = 0; i < g->row.nseats; i++)
		if (play_side(g, i) == play_side(g, seat))
			m |= 1u << i;
	return m;
}

void
play_draw_declined(struct play_game *g, int seat)
{
	g->row.draw_offer &= play_side_mask(g, seat);
}

int
play_line_moves(struct play_game *g, int seat, const char *line, int64_t now,
    char (*texts)[GAME_MOVE_TEXT], int max, char *err, size_t errlen)
{
	const struct game_ops *ops = g->def->ops;
	struct game_move moves[PLAY_LINE_MAX];
	void *before;
	int n, i, failed;

	if (strcmp(g->row.status, "active") != 0) {
		util_err(err, errlen, _("game #%lld is %s"), (long long)g->row.id,
		    g->row.status);
		return -1;
	}
	before = xmalloc(ops->state_size);
	memcpy(before, g->st, ops->state_size);
	n = game_apply_line(ops, g->st, seat, line, moves,
	    (int)nitems(moves), &failed, err, errlen);
	if (n > (int)nitems(moves)) {
		memcpy(g->st, before, ops->state_size);
		util_err(err, errlen, _("too many moves in one line (at most "
		    "%d)"), (int)nitems(moves));
		n = -1;
	}
	if (n < 0) {
		free(before);
		return -1;
	}
	/* Log each move in canonical notation, formatted in the position it
	 * was played from. */
	for (i = 0; i < n && i < max; i++) {
		ops->format_move(before, seat, &moves[i], texts[i],
		    GAME_MOVE_TEXT);
		ops->apply(before, seat, &moves[i]);
	}
	g->row.nmoves += n;
	g->row.updated = now;
	play_refresh(g);
	free(before);
	return n;
}

int
play_line(struct store *s, struct play_game *g, int seat, const char *line,
    int64_t now, char *err, size_t errlen)
{
	char texts[PLAY_LINE_MAX][GAME_MOVE_TEXT];
	int n, i;

	if ((n = play_line_moves(g, seat, line, now, texts, PLAY_LINE_MAX, err,
	    errlen)) < 0)
		return n;
	for (i = 0; i < n; i++)
		if (store_move_add(s, g->row.id, g->row.nmoves - n + i + 1,
		    seat, texts[i], now) == -1) {
			util_err(err, errlen, "%s", store_errmsg(s));
			return PLAY_TEMP;
		}
	if (store_game_update(s, &g->row) == -1) {
		util_err(err, errlen, "%s", store_errmsg(s));
		return PLAY_TEMP;
	}
	return n;
}

/* The state after the first keep logged moves (keep -1: all of them). */
static int
replay(struct store *s, const struct play_game *g, int keep, char **state,
    char *err, size_t errlen)
{
	const struct game_ops *ops = g->def->ops;
	struct store_move *log;
	struct game_move m;
	struct buf b = { 0 };
	char merr[GAME_ERRLEN];
	void *st;
	int n, i, upto, rc = -1;

	if (store_moves(s, g->row.id, &log, &n) == -1) {
		util_err(err, errlen, "%s", store_errmsg(s));
		return -1;
	}
	upto = keep >= 0 && keep < n ? keep : n;
	st = xcalloc(1, ops->state_size);
	if (ops->create(st, &g->opts, g->row.seed, g->row.nseats, err,
	    errlen) == -1)
		goto out;
	for (i = 0; i < upto; i++) {
		if (log[i].ply != i + 1) {
			util_err(err, errlen, _("move log has a gap at ply %d"),
			    i + 1);
			goto out;
		}
		if (ops->parse_move(st, log[i].seat, log[i].notation, &m, merr,
		    sizeof(merr)) == -1) {
			util_err(err, errlen, _("ply %d (`%s` by seat %d) does "
			    "not replay: %s"), log[i].ply, log[i].notation,
			    log[i].seat, merr);
			goto out;
		}
		ops->apply(st, log[i].seat, &m);
	}
	ops->serialise(st, &b);
	*state = buf_steal(&b);
	rc = 0;
out:
	store_moves_free(log, n);
	free(st);
	return rc;
}

int
play_replay(struct store *s, const struct play_game *g, char **state,
    char *err, size_t errlen)
{
	return replay(s, g, -1, state, err, errlen);
}

int
play_shown(const struct play_game *g, int seat, const char *notation,
    int viewer, char *out, size_t len)
{
	const struct game_ops *ops = g->def->ops;

	if (ops->shown_move == NULL) {
		util_strlcpy(out, notation, len);
		return GAME_SHOWN_PLY;
	}
	return ops->shown_move(g->st, seat, notation, viewer, out, len);
}

int
play_is_ply(const struct play_game *g, int seat, const char *notation)
{
	char text[GAME_MOVE_TEXT];

	return play_shown(g, seat, notation, seat, text, sizeof(text)) ==
	    GAME_SHOWN_PLY;
}

int
play_plies(const struct play_game *g, const struct store_move *log, int n)
{
	int i, plies = 0;

	for (i = 0; i < n; i++)
		plies += play_is_ply(g, log[i].seat, log[i].notation);
	return plies;
}

int
play_plies_stored(struct store *s, const struct play_game *g)
{
	struct store_move *log;
	int n, plies;

	/* Only an engine that logs events besides plies (shown_move: an
	 * Aluette signal) needs its log read; in the others every logged
	 * move is a ply. */
	if (g->def->ops->shown_move == NULL)
		return g->row.nmoves;
	if (store_moves(s, g->row.id, &log, &n) == -1)
		return -1;
	plies = play_plies(g, log, n);
	store_moves_free(log, n);
	return plies;
}

int
play_takeback_to(struct store *s, struct play_game *g, int keep, int64_t now,
    char *err, size_t errlen)
{
	char *state = NULL;
	int rc;

	if (keep < 0 || keep > g->row.nmoves) {
		util_err(err, errlen, "no move %d to go back to", keep);
		return -1;
	}
	if (replay(s, g, keep, &state, err, errlen) == -1)
		return -1;
	rc = g->def->ops->parse_state(g->st, state, err, errlen);
	free(state);
	if (rc == -1)
		return -1;
	g->row.nmoves = keep;
	g->row.updated = now;
	play_refresh(g);
	return 0;
}

int
play_takeback(struct store *s, struct play_game *g, int keep, int64_t now,
    char *err, size_t errlen)
{
	if (play_takeback_to(s, g, keep, now, err, errlen) == -1)
		return -1;
	if (store_moves_truncate(s, g->row.id, keep) == -1 ||
	    store_game_update(s, &g->row) == -1) {
		util_err(err, errlen, "%s", store_errmsg(s));
		return -1;
	}
	return 0;
}

void
play_render(const struct play_game *g, int viewer, struct buf *out)
{
	struct game_view v;
	int i;

	memset(&v, 0, sizeof(v));
	v.viewer = viewer;
	for (i = 0; i < g->row.nseats && i < GAME_MAX_SEATS; i++)
		v.names[i] = g->address[i];
	g->def->ops->render(g->st, &v, out);
}
