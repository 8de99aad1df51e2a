/*
 * refview: a game as one reader sees it, as template data, and the mails
 * that go to every seat and observer of a game.
 *
 * Hidden information stays hidden here by construction: the board comes
 * from the engine's render() for the reader's seat (GAME_PUBLIC for
 * observers), legal moves only for the reader's own seat, and logged
 * moves a reader may not see (an Aluette signal meant for the partner)
 * are left out.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mailhtml.h"
#include "refint.h"
#include "site.h"

/* The longest name a board shows for a seat. */
#define REFVIEW_LABEL_LEN	80
/* At most this many legal moves are each a link in the HTML part
 * (ludus-templates(5)); with more, only the example move is. */
#define REFVIEW_MOVE_LINKS	30

int
refview_seats(struct ref_msg *x, const struct play_game *g,
    struct ref_seats *rs)
{
	int i;

	memset(rs, 0, sizeof(*rs));
	/* A view tells what was decided: the effects first (refeff.h). */
	if (refeff_apply(x) != REF_OK)
		return -1;
	for (i = 0; i < g->row.nseats; i++) {
		if (store_player_load(x->r->store, g->row.player[i],
		    &rs->p[i]) != 0) {
			refview_seats_free(rs);
			return -1;
		}
		rs->n++;
	}
	return 0;
}

void
refview_seats_free(struct ref_seats *rs)
{
	int i;

	for (i = 0; i < rs->n; i++)
		store_player_free(&rs->p[i]);
	rs->n = 0;
}

int
refview_shown(const struct play_game *g, int seat, const char *notation,
    int viewer, char *out, size_t len)
{
	return play_shown(g, seat, notation, viewer, out, len);
}

int
refview_move_visible(const struct play_game *g, int seat,
    const char *notation, int viewer)
{
	char text[GAME_MOVE_TEXT];

	return refview_shown(g, seat, notation, viewer, text, sizeof(text)) !=
	    GAME_SHOWN_NONE;
}

int
refview_is_ply(const struct play_game *g, int seat, const char *notation)
{
	return play_is_ply(g, seat, notation);
}

/* Does the turn of seat, whose last ply was notation, go on in the game's
 * state now?  Only where the engine has turns of several plies. */
static int
turn_goes_on(const struct play_game *g, int seat, const char *notation)
{
	const struct game_ops *ops = g->def->ops;

	if (ops->ends_turn == NULL || ops->ends_turn(seat, notation))
		return 0;
	return strcmp(g->row.status, "active") == 0 &&
	    (ops->to_move(g->st) & (1u << seat)) != 0;
}

int
refview_turns(const struct play_game *g, const struct store_move *log,
    int n, int *num)
{
	const struct game_ops *ops = g->def->ops;
	int i, turn = 0, open = 0, prev = -1;
	const char *last = NULL;

	for (i = 0; i < n; i++) {
		if (num != NULL)
			num[i] = 0;
		if (!refview_is_ply(g, log[i].seat, log[i].notation))
			continue;
		if (!open || log[i].seat != prev)
			turn++;
		open = ops->ends_turn != NULL &&
		    !ops->ends_turn(log[i].seat, log[i].notation);
		prev = log[i].seat;
		last = log[i].notation;
		if (num != NULL)
			num[i] = turn;
	}
	if (last != NULL && open && turn_goes_on(g, prev, last))
		return turn;
	return turn + 1;
}

static int
move_number(const struct play_game *g, const struct store_move *log, int n)
{
	return refview_turns(g, log, n, NULL);
}

/* The turn of the next ply and its place in that turn (1 at a turn's
 * first), with its label ("7", "7.2") in label. */
static int
move_at(const struct play_game *g, const struct store_move *log, int n,
    int *ply, char *label, size_t len)
{
	int *num = xcalloc((size_t)n + 1, sizeof(*num));
	int i, turn = refview_turns(g, log, n, num);

	*ply = 1;
	for (i = 0; i < n; i++)
		*ply += num[i] == turn;
	free(num);
	if (*ply > 1)
		snprintf(label, len, "%d.%d", turn, *ply);
	else
		snprintf(label, len, "%d", turn);
	return turn;
}

int
refview_move_at(struct ref_msg *x, const struct play_game *g, int *ply,
    char *label, size_t len)
{
	struct store_move *log;
	int n, turn;

	if (refeff_apply(x) != REF_OK)
		return -1;
	if (store_moves(x->r->store, g->row.id, &log, &n) == -1)
		return -1;
	turn = move_at(g, log, n, ply, label, len);
	store_moves_free(log, n);
	return turn;
}

int
refview_turn_open(struct ref_msg *x, const struct play_game *g, int seat)
{
	struct store_move *log;
	int n, open = 0;

	if (refeff_apply(x) != REF_OK)
		return -1;
	if (store_moves(x->r->store, g->row.id, &log, &n) == -1)
		return -1;
	if (n > 0 && log[n - 1].seat == seat)
		open = turn_goes_on(g, seat, log[n - 1].notation);
	store_moves_free(log, n);
	return open;
}

int
refview_move_number(struct ref_msg *x, const struct play_game *g)
{
	struct store_move *log;
	int n, number;

	if (refeff_apply(x) != REF_OK)
		return -1;
	if (store_moves(x->r->store, g->row.id, &log, &n) == -1)
		return -1;
	number = move_number(g, log, n);
	store_moves_free(log, n);
	return number;
}

/* The run of one seat's moves at the end of the log as viewer sees them:
 * an extra turn or a multi-action turn reads as one line.  Sets *last to
 * that seat (-1 when nothing was played) and appends the moves to b. */
static void
last_run(const struct play_game *g, const struct store_move *log, int n,
    int viewer, int *last, struct buf *b)
{
	char text[GAME_MOVE_TEXT], prev[GAME_MOVE_TEXT];
	int i, first, repeat = 0;

	*last = -1;
	for (i = n - 1; i >= 0; i--)
		if (refview_move_visible(g, log[i].seat, log[i].notation,
		    viewer))
			break;
	if (i < 0)
		return;
	*last = log[i].seat;
	for (first = i; first > 0 && log[first - 1].seat == *last; first--)
		;
	/* The same text over and over (face-down discards) is said once,
	 * with how many times. */
	prev[0] = '\0';
	for (; first <= i; first++) {
		if (refview_shown(g, log[first].seat, log[first].notation,
		    viewer, text, sizeof(text)) == GAME_SHOWN_NONE)
			continue;
		if (strcmp(text, prev) == 0) {
			repeat++;
			continue;
		}
		if (repeat > 1)
			buf_printf(b, " (%d times)", repeat);
		buf_printf(b, "%s%s", b->len ? ", " : "", text);
		util_strlcpy(prev, text, sizeof(prev));
		repeat = 1;
	}
	if (repeat > 1)
		buf_printf(b, " (%d times)", repeat);
}

int
refview_last_move(struct ref_msg *x, const struct play_game *g, int viewer,
    struct buf *b)
{
	struct store_move *log;
	int n, last;

	if (refeff_apply(x) != REF_OK)
		return -1;
	if (store_moves(x->r->store, g->row.id, &log, &n) == -1)
		return -1;
	last_run(g, log, n, viewer, &last, b);
	store_moves_free(log, n);
	return 0;
}

/* The variant as the options that differ from the defaults; a deal the
 * server's deck gave (refdeck.c, deck 1) is no variant, nor are the
 * colours (the board's legend names them). */
char *
refview_variant(const struct play_game *g, int deck)
{
	struct game_opts def;
	struct buf b = { 0 };
	char err[200];
	int i;

	if (gamedef_resolve(g->def, NULL, 0, &def, err, sizeof(err)) == -1)
		return xstrdup(g->row.options);
	for (i = 0; i < g->opts.n && i < def.n; i++)
		if (strcmp(g->opts.v[i].sval, def.v[i].sval) != 0 &&
		    !(deck && strcmp(g->opts.v[i].name, "deal") == 0) &&
		    strcmp(g->opts.v[i].name, "colours") != 0)
			buf_printf(&b, "%s%s=%s", b.len ? " " : "",
			    g->opts.v[i].name, g->opts.v[i].sval);
	return buf_steal(&b);
}

static void
clock_text(struct ref_msg *x, const struct play_game *g, struct buf *b)
{
	if (g->row.clock != NULL)
		buf_adds(b, g->row.clock);
	else
		config_format_clock(&x->r->cfg->clock.move, b);
}

void
refview_legal(struct tmpl_data *d, const struct play_game *g, int seat)
{
	struct tmpl_list *l = tmpl_list(d, "legal");
	struct buf b = { 0 };
	char *text, *p, *nl, mark[GAME_MOVE_TEXT];
	int first = 1, n = 0;

	game_legal_text(g->def->ops, g->st, seat, &b);
	text = buf_steal(&b);
	/* Few enough moves are each a link that starts the reply with it;
	 * more would make the HTML part a wall of links. */
	for (p = text; (nl = strchr(p, '\n')) != NULL; p = nl + 1)
		n++;
	for (p = text; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = '\0';
		memset(mark, n <= REFVIEW_MOVE_LINKS ? MAILHTML_REPLY :
		    MAILHTML_MOVE, sizeof(mark));
		tmpl_list_add_styled(l, p, strlen(p) < sizeof(mark) ? mark :
		    NULL);
		if (first) {
			memset(mark, MAILHTML_REPLY, sizeof(mark));
			tmpl_set_styled(d, "example_move", p,
			    strlen(p) < sizeof(mark) ? mark : NULL);
		}
		first = 0;
	}
	free(text);
}

void
refview_set_board(struct tmpl_data *d, const struct play_game *g,
    const struct game_view *v, const char *board)
{
	size_t i, len = strlen(board);
	char *style = xcalloc(1, len + 1);

	struct game_pic *pic;
	int id = 0;

	if (g->def->ops->render_style != NULL)
		g->def->ops->render_style(g->st, v, board, len, style);
	/* The HTML part draws the board from the state (ops->draw): the
	 * drawing is kept under an id its line ends carry. */
	if (g->def->ops->draw != NULL) {
		pic = xcalloc(1, sizeof(*pic));
		g->def->ops->draw(g->st, v, pic);
		if (!pic->full && pic->ngrids > 0)
			id = mailhtml_pic_keep(board, pic);
		free(pic);
	}
	for (i = 0; i < len; i++)
		style[i] = (char)(MAILHTML_BOARD | (board[i] == '\n' ? id :
		    style[i] & 0x7f));
	tmpl_set_styled(d, "board", board, style);
	free(style);
}

/*
 * The names a game mail uses after its player list (on the board, for the
 * last move and whose turn it is): a player's chosen name, else the local
 * part of the address ("ann" for ann@example.org), unless two seats would
 * read alike, when the whole addresses are kept.  The player list gives
 * the full addresses once; repeating them everywhere made board lines wide
 * on a phone, and a Russian mail with more than 20 Latin e's (a few
 * example.org addresses) scores 1.0 in SpamAssassin's MIXED_ES.
 */
static void
board_labels(const struct ref_seats *rs, char labels[][REFVIEW_LABEL_LEN],
    const char *names[])
{
	const char *at;
	int i, j, clash = 0;

	for (i = 0; i < rs->n; i++) {
		const struct store_player *p = &rs->p[i];

		if (p->name != NULL && *p->name != '\0')
			util_strlcpy(labels[i], p->name, REFVIEW_LABEL_LEN);
		else if ((at = strchr(p->address, '@')) != NULL &&
		    (size_t)(at - p->address) < REFVIEW_LABEL_LEN)
			snprintf(labels[i], REFVIEW_LABEL_LEN, "%.*s",
			    (int)(at - p->address), p->address);
		else
			util_strlcpy(labels[i], p->address, REFVIEW_LABEL_LEN);
	}
	for (i = 0; i < rs->n; i++)
		for (j = i + 1; j < rs->n; j++)
			clash |= strcmp(labels[i], labels[j]) == 0 &&
			    strcmp(rs->p[i].address, rs->p[j].address) != 0;
	for (i = 0; i < rs->n; i++)
		names[i] = clash ? ref_name(&rs->p[i]) : labels[i];
}

struct tmpl_data *
refview_game(struct ref_msg *x, const struct play_game *g,
    const struct ref_seats *rs, int viewer, const struct refview_about *ab)
{
	const struct ref_cond *cond = ab != NULL ? ab->cond : NULL;
	char labels[STORE_MAX_SEATS][REFVIEW_LABEL_LEN];
	const struct game_ops *ops = g->def->ops;
	struct tmpl_data *d = tmpl_data_new(), *it;
	struct tmpl_list *l;
	struct game_result res;
	struct game_view v;
	struct store_move *log = NULL;
	struct buf b = { 0 }, b2 = { 0 };
	char commit[65], when[120], *variant;
	const char *again;
	uint32_t tm;
	int i, n = 0, turn = -1, last = -1;

	tmpl_setf(d, "game.id", "%lld", (long long)g->row.id);
	tmpl_set(d, "game.title", _(g->def->title));
	tmpl_set(d, "game.name", g->def->name);
	variant = refview_variant(g, refdeck_dealt(x, g->def, g->row.id) == 1);
	tmpl_set(d, "game.variant", variant);
	free(variant);
	clock_text(x, g, &b);
	tmpl_set(d, "game.clock", buf_str(&b));
	buf_reset(&b);
	tmpl_set(d, "game.rated", g->row.rated ? "1" : "");
	if (ab != NULL && ab->ending != NULL)
		res = *ab->ending;
	else
		ops->result(g->st, &res);
	tmpl_set(d, "game.over", res.over || strcmp(g->row.status,
	    "active") != 0 ? "1" : "");

	l = tmpl_list(d, "game.players");
	for (i = 0; i < rs->n; i++) {
		it = tmpl_list_add(l);
		tmpl_set(it, "seat", _(ops->seat_name(g->st, i)));
		tmpl_set(it, "name", ref_name(&rs->p[i]));
		tmpl_set_int(it, "score", res.score[i]);
		tmpl_set(it, "you", i == viewer ? "1" : "");
		tmpl_set(it, "partner", viewer >= 0 && i != viewer &&
		    ops->partner != NULL && ops->partner(g->st, viewer) == i ?
		    "1" : "");
		tmpl_set(it, "accepted", g->row.accepted[i] ? "1" : "");
		tmpl_set(it, "winner", res.over && !res.draw &&
		    (res.winners & (1u << i)) ? "1" : "");
	}
	if (viewer >= 0) {
		tmpl_set(d, "you.seat", _(ops->seat_name(g->st, viewer)));
		if (ops->partner != NULL && (i = ops->partner(g->st,
		    viewer)) >= 0 && i < rs->n && i != viewer) {
			tmpl_set(d, "you.partner.name", ref_name(&rs->p[i]));
			tmpl_set(d, "you.partner.seat", _(ops->seat_name(g->st,
			    i)));
		}
	} else
		tmpl_set(d, "you.observer", "1");

	memset(&v, 0, sizeof(v));
	v.viewer = viewer;
	v.no_turn = 1;	/* the mails say whose turn it is, or that it ended */
	board_labels(rs, labels, v.names);
	ops->render(g->st, &v, &b);
	/* The templates put the blank lines around the board. */
	while (b.len > 0 && b.s[b.len - 1] == '\n')
		b.s[--b.len] = '\0';
	refview_set_board(d, g, &v, buf_str(&b));
	buf_reset(&b);

	/* The last moves the reader may see: the run of one seat's moves
	 * at the end of the log (an extra turn, a multi-action turn). */
	if (refeff_apply(x) != REF_OK ||
	    store_moves(x->r->store, g->row.id, &log, &n) == -1)
		ref_store_failed(x);
	else {
		char at[32];
		int ply;

		move_at(g, log, n, &ply, at, sizeof(at));
		tmpl_set(d, "game.move_number", at);
		last_run(g, log, n, viewer, &last, &b);
		if (last >= 0 && last < rs->n) {
			tmpl_set(d, "last_move.seat", _(ops->seat_name(g->st,
			    last)));
			tmpl_set(d, "last_move.name", v.names[last]);
			tmpl_set(d, "last_move.text", buf_str(&b));
			tmpl_set(d, "last_move.you", last == viewer ? "1" :
			    "");
		}
		buf_reset(&b);
		store_moves_free(log, n);
	}

	tm = strcmp(g->row.status, "active") == 0 ? ops->to_move(g->st) : 0;
	/* Who is to move: all of them when several are (the two changers
	 * of an Aluette hand). */
	for (i = 0; i < rs->n; i++)
		if (tm & (1u << i)) {
			buf_printf(&b, "%s%s", turn >= 0 ? ", " : "",
			    v.names[i]);
			buf_printf(&b2, "%s%s", turn >= 0 ? ", " : "",
			    _(ops->seat_name(g->st, i)));
			turn = i;
		}
	if (turn >= 0) {
		tmpl_set(d, "turn.seat", buf_str(&b2));
		tmpl_set(d, "turn.name", buf_str(&b));
	}
	buf_reset(&b);
	buf_free(&b2);
	if (viewer >= 0 && (tm & (1u << viewer))) {
		tmpl_set(d, "turn.you", "1");
		refview_legal(d, g, viewer);
		/* The reader played last and plays on: the game says why (a
		 * Mancala extra turn, a Spite & Malice turn before its
		 * discard). */
		if (last == viewer && (again = gamedef_text(g->def, "again",
		    rs->p[viewer].language)) != NULL)
			tmpl_set(d, "turn.again", again);
	}
	/* A draw on the table: offered by the other side (draw_offer.name)
	 * or by the reader's own (draw_offer.you). */
	tmpl_set(d, "draw_offer.you", "");
	for (i = 0; i < rs->n; i++) {
		if (!(g->row.draw_offer & (1u << i)))
			continue;
		if (viewer >= 0 && (i == viewer || (ops->partner != NULL &&
		    ops->partner(g->st, viewer) == i)))
			tmpl_set(d, "draw_offer.you", "1");
		else
			buf_printf(&b, "%s%s", b.len ? ", " : "",
			    ref_name(&rs->p[i]));
	}
	tmpl_set(d, "draw_offer.name", buf_str(&b));
	buf_free(&b);

	if (g->row.deadline != 0) {
		int64_t left = g->row.deadline - x->now;

		if (left < 0)
			left = 0;
		ref_utc(g->row.deadline, when, sizeof(when));
		tmpl_set(d, "deadline.utc", when);
		if (viewer >= 0 && viewer < rs->n)
			ref_local(&rs->p[viewer], g->row.deadline, when,
			    sizeof(when));
		else
			when[0] = '\0';
		tmpl_set(d, "deadline.local", when);
		tmpl_set_int(d, "deadline.days", left / 86400);
		tmpl_set_int(d, "deadline.hours", left % 86400 / 3600);
		tmpl_set_int(d, "deadline.minutes", left % 3600 / 60);
	}
	variant = site_game_url(x->r->cfg, g->row.id);
	if (variant != NULL) {
		char *mark = xmalloc(strlen(variant) + 1);

		memset(mark, MAILHTML_URL, strlen(variant) + 1);
		tmpl_set_styled(d, "game.url", variant, mark);
		free(mark);
	} else
		tmpl_set(d, "game.url", "");
	free(variant);
	/* What the move being mailed did to conditional moves and
	 * takebacks; the takebacks a rated game has seen. */
	refcond_view(g, cond, d, viewer, cond != NULL && cond->owner >= 0 &&
	    cond->owner < rs->n ? v.names[cond->owner] : "");
	tmpl_set(d, "game.takebacks", "");
	if (g->row.rated) {
		struct store_event *ev;
		int ne, k, tb = 0;

		if (store_events(x->r->store, g->row.id, &ev, &ne) == 0) {
			for (k = 0; k < ne; k++)
				tb += strcmp(ev[k].kind, "takeback") == 0;
			store_events_free(ev, ne);
		}
		if (tb > 0)
			tmpl_set_int(d, "game.takebacks", tb);
	}
	rng_commitment(g->row.seed, commit);
	tmpl_set(d, "seed.hash", commit);
	tmpl_set(d, "game.chance", ops->chance ? "1" : "");
	return d;
}

/* Does a seat want this mail, by its notify setting? */
static int
seat_wants(const struct play_game *g, const struct store_player *p, int seat)
{
	uint32_t tm;

	if (p->notify == NULL || strcmp(p->notify, "all") == 0)
		return 1;
	if (strcmp(p->notify, "off") == 0)
		return 0;
	tm = strcmp(g->row.status, "active") == 0 ?
	    g->def->ops->to_move(g->st) : 0;
	return (tm & (1u << seat)) != 0;
}

int
refview_fanout(struct ref_msg *x, const struct play_game *g,
    const char *tmplname, int flags, refview_extra_fn extra, void *arg)
{
	return refview_fanout_about(x, g, tmplname, flags, 0, NULL, extra,
	    arg);
}

int
refview_fanout_about(struct ref_msg *x, const struct play_game *g,
    const char *tmplname, int flags, unsigned skip,
    const struct refview_about *ab, refview_extra_fn extra, void *arg)
{
	struct ref_seats rs;
	struct tmpl_data *d;
	struct store_player p;
	int64_t *obs = NULL;
	int i, n = 0, rc = 0;

	if (refview_seats(x, g, &rs) == -1)
		return -1;
	for (i = 0; (flags & REFVIEW_SEATS) && i < rs.n && rc == 0; i++) {
		if (((flags & REFVIEW_NOTIFY) && !seat_wants(g, &rs.p[i], i)) ||
		    (skip & (1u << i)))
			continue;
		/* The reader's language before anything is written. */
		ref_lang(&rs.p[i]);
		d = refview_game(x, g, &rs, i, ab);
		if (extra)
			extra(d, arg, i);
		rc = ref_send(x, &rs.p[i], tmplname, d, g->row.id, i, NULL);
		tmpl_data_free(d);
	}
	if (rc == 0 && (flags & REFVIEW_OBSERVERS) &&
	    (rc = store_observers(x->r->store, g->row.id, &obs, &n)) == 0) {
		for (i = 0; i < n && rc == 0; i++) {
			if (ref_must(x, store_player_load(x->r->store, obs[i],
			    &p), "player", obs[i]) != 0) {
				rc = -1;
				break;
			}
			ref_lang(&p);
			d = refview_game(x, g, &rs, GAME_PUBLIC, ab);
			if (extra)
				extra(d, arg, GAME_PUBLIC);
			rc = ref_send(x, &p, tmplname, d, g->row.id, -1,
			    NULL);
			tmpl_data_free(d);
			store_player_free(&p);
		}
		free(obs);
	}
	refview_seats_free(&rs);
	ref_lang(x->me.id != 0 ? &x->me : NULL);
	return rc;
}

struct end_info {
	const struct play_game *g;
	int	 plies;
	const char *by;
	struct buf winners;
	char seed[2 * RNG_SEED_LEN + 1];
	struct game_result res;
	struct ref_rating_change rating;
};

/* The rating block of the end mail: each seat's old and new rating. */
static void
end_ratings(struct tmpl_data *d, const struct end_info *e)
{
	struct tmpl_list *l = tmpl_list(d, "game.players");
	struct tmpl_data *it;
	int i;

	tmpl_set(d, "game.rated", e->rating.rated ? "1" : "");
	for (i = 0; e->rating.rated && i < e->g->row.nseats; i++) {
		if ((it = tmpl_list_get(l, (size_t)i)) == NULL)
			continue;
		tmpl_set_int(it, "rating_old", e->rating.old[i]);
		tmpl_set_int(it, "rating_new", e->rating.now[i]);
		tmpl_setf(it, "rating_change", "%+d", e->rating.now[i] -
		    e->rating.old[i]);
	}
}

static void
end_extra(struct tmpl_data *d, void *arg, int viewer)
{
	struct end_info *e = arg;
	const char *ended = e->g->row.ended;
	struct buf b = { 0 };

	(void)viewer;

	refview_result(e->g, &b);
	tmpl_set(d, "result.text", b.len ? buf_str(&b) : e->res.text);
	buf_free(&b);
	tmpl_set(d, "result.draw", e->res.draw ? "1" : "");
	/* The names are kept one a line and joined in the reader's
	 * language. */
	{
		struct buf w = { 0 };
		const char *p = buf_str(&e->winners), *nl;

		while (*p) {
			nl = strchr(p, '\n');
			if (w.len)
				buf_adds(&w, nl ? ", " : _(" and "));
			buf_add(&w, p, nl ? (size_t)(nl - p) : strlen(p));
			p = nl ? nl + 1 : p + strlen(p);
		}
		tmpl_set(d, "result.winners", buf_str(&w));
		buf_free(&w);
	}
	if (ended != NULL) {
		if (strcmp(ended, "resigned") == 0)
			tmpl_set(d, "end.resigned", "1");
		else if (strcmp(ended, "timeout") == 0)
			tmpl_set(d, "end.timeout", "1");
		else if (strcmp(ended, "agreed") == 0)
			tmpl_set(d, "end.agreed", "1");
		else if (strcmp(ended, "adjudicated") == 0)
			tmpl_set(d, "end.adjudicated", "1");
		else if (strcmp(ended, "aborted") == 0)
			tmpl_set(d, "end.aborted", "1");
	}
	tmpl_set(d, "end.by", e->by ? e->by : "");
	tmpl_set(d, "seed.value", e->seed);
	end_ratings(d, e);
	/* The moves played, not the next move's number. */
	tmpl_set_int(d, "game.move_number", e->plies);
}

void
refview_result(const struct play_game *g, struct buf *b)
{
	struct game_result r;

	if (g->row.result != NULL && strpbrk(g->row.result, "\x1d\x1f") !=
	    NULL) {
		i18n_expand(g->row.result, b);
		return;
	}
	if (g->row.ended == NULL) {
		g->def->ops->result(g->st, &r);
		if (r.over) {
			buf_adds(b, r.text);
			return;
		}
	}
	if (g->row.result != NULL)
		i18n_expand(g->row.result, b);
}

/* A game's status word (invited, active, finished, aborted) for people. */
const char *
refview_status(const char *status)
{
	static const char *const words[] = { N_("invited"), N_("active"),
	    N_("finished"), N_("aborted") };
	size_t i;

	for (i = 0; i < nitems(words); i++)
		if (strcmp(status, words[i]) == 0)
			return _(words[i]);
	return status;
}

int
refview_end(struct ref_msg *x, const struct play_game *g, const char *by,
    const struct game_result *res, const struct ref_rating_change *ch,
    const struct ref_cond *cond)
{
	struct refview_about ab = { cond, res };
	struct end_info e;
	struct ref_seats rs;
	int i, rc;

	memset(&e, 0, sizeof(e));
	e.g = g;
	if ((e.plies = refview_move_number(x, g) - 1) < 0)
		return -1;
	e.by = by;
	e.res = *res;
	e.rating = *ch;
	if (refview_seats(x, g, &rs) == -1)
		return -1;
	for (i = 0; i < rs.n; i++)
		if (!res->draw && (res->winners & (1u << i)))
			buf_printf(&e.winners, "%s%s", e.winners.len ? "\n" :
			    "", ref_name(&rs.p[i]));
	refview_seats_free(&rs);
	util_hex(g->row.seed, RNG_SEED_LEN, e.seed);
	rc = refview_fanout_about(x, g, "end", REFVIEW_SEATS |
	    REFVIEW_OBSERVERS, 0, &ab, end_extra, &e);
	buf_free(&e.winners);
	return rc;
}
