/*
 * refcond: conditional moves and takebacks by agreement.
 *
 * Conditional moves (`if MOVE then MOVE [if MOVE then MOVE...]`) are a
 * seat's replies to the opponent's possible moves, queued while the
 * opponent is to move, in the two-seat games where nothing is hidden but
 * the deck (Mancala, Alquerque, Almakleh).  Each line is kept as its
 * turns in canonical notation, tab-separated, the opponent's first; every
 * turn was played through on a copy of the state when it was queued, so
 * it is legal where it would be played.  When the opponent's turn ends,
 * the lines it starts lose their first two turns and the reply is played
 * at once (refcond_after_move); a turn no line expected clears the queue.
 * Nothing of the queue reaches the opponent until a reply is played.
 *
 * A takeback goes back to before the proposer's last turn: the log is cut
 * there and the state re-derived from the seed and the moves that are
 * left (play_takeback).  The other side's `takeback` agrees, its move
 * declines; a move that showed anyone a card it could not see before is
 * never taken back (game_ops.reveals).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "refint.h"

/* Lines one seat may have queued in one game. */
#define REFCOND_LINES_MAX	20

/* The state after the first n logged moves, re-derived from the seed
 * (owned); NULL with err when the log does not replay. */
static void *
state_at(const struct play_game *g, const struct store_move *log, int n,
    char *err, size_t errlen)
{
	const struct game_ops *ops = g->def->ops;
	struct game_move m;
	void *st = xcalloc(1, ops->state_size);
	int i;

	if (ops->create(st, &g->opts, g->row.seed, g->row.nseats, err,
	    errlen) == -1) {
		free(st);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (ops->parse_move(st, log[i].seat, log[i].notation, &m, err,
		    errlen) == -1) {
			free(st);
			return NULL;
		}
		ops->apply(st, log[i].seat, &m);
	}
	return st;
}

/* Split a stored line at its tabs: the turns (pointers into s, which is
 * changed), at most max; the count. */
static int
line_turns(char *s, char **turns, int max)
{
	int n = 0;

	while (n < max) {
		turns[n++] = s;
		if ((s = strchr(s, '\t')) == NULL)
			break;
		*s++ = '\0';
	}
	return n;
}

/* A line as the player writes it: "if A then B if C then D". */
static void
line_text(const char *stored, struct buf *b)
{
	char *copy = xstrdup(stored), *t[2 * COMMAND_IF_MAX];
	int i, n = line_turns(copy, t, 2 * COMMAND_IF_MAX);

	for (i = 0; i < n; i++)
		buf_printf(b, "%s%s %s", i ? " " : "", i % 2 ? _("then") :
		    _("if"), t[i]);
	free(copy);
}

/* The seat's legal moves in st, as "1, 2, 3". */
static void
legal_list(const struct game_ops *ops, const void *st, int seat,
    struct buf *b)
{
	struct buf l = { 0 };
	char *p, *nl;

	game_legal_text(ops, st, seat, &l);
	for (p = l.s; p != NULL && (nl = strchr(p, '\n')) != NULL; p = nl + 1)
		buf_printf(b, "%s%.*s", b->len ? ", " : "", (int)(nl - p), p);
	buf_free(&l);
}

/*
 * Play a new line through on a copy of the position it starts from
 * (base), for owner against opp; its canonical form into canon.  REF_FAIL
 * with res filled when a turn is no legal whole turn there.
 */
static int
line_check(const struct play_game *g, const void *base, int owner, int opp,
    char *const *cond, int ncond, struct buf *canon, struct ref_result *res)
{
	const struct game_ops *ops = g->def->ops;
	struct game_move moves[64];
	struct buf where = { 0 }, legal = { 0 }, path = { 0 }, turn = { 0 };
	char err[GAME_ERRLEN + 100], text[GAME_MOVE_TEXT];
	void *st = xmalloc(ops->state_size), *before;
	int i, j, k, seat, failed, rc = REF_OK;

	before = xmalloc(ops->state_size);
	memcpy(st, base, ops->state_size);
	for (i = 0; i < ncond && rc == REF_OK; i++) {
		seat = i % 2 == 0 ? opp : owner;
		memcpy(before, st, ops->state_size);
		k = game_apply_line(ops, st, seat, cond[i], moves,
		    (int)nitems(moves), &failed, err, sizeof(err));
		if (k < 0 || k > (int)nitems(moves)) {
			legal_list(ops, before, seat, &legal);
			if (path.len)
				buf_printf(&where, _("after %.200s"), path.s);
			else
				buf_adds(&where, _("in the position now"));
			rc = ref_fail(res, i % 2 ? _("`%.60s` is no legal reply "
			    "of yours %s: %s; the legal moves there: %.300s") :
			    _("`%.60s` is no legal move of your opponent's %s: "
			    "%s; the legal moves there: %.300s"), cond[i],
			    buf_str(&where), err, legal.len ? buf_str(&legal) :
			    _("none"));
			break;
		}
		buf_adds(canon, i ? "\t" : "");
		for (j = 0; j < k; j++) {
			ops->format_move(before, seat, &moves[j], text,
			    sizeof(text));
			if (ops->reveals != NULL && ops->reveals(before, seat,
			    &moves[j])) {
				rc = ref_fail(res, _("`%s` would bring a hidden "
				    "card to light: a conditional move cannot "
				    "look past it"), text);
				break;
			}
			ops->apply(before, seat, &moves[j]);
			buf_printf(canon, "%s%s", j ? ", " : "", text);
			buf_printf(&turn, "%s%s", j ? ", " : "", text);
		}
		if (rc != REF_OK)
			break;
		buf_printf(&path, "%s%s", path.len ? "; " : "", turn.s);
		buf_reset(&turn);
		if (ops->to_move(st) == 0) {
			if (i + 1 < ncond)
				rc = ref_fail(res, _("`%.60s` ends the game: "
				    "nothing can follow it"), cond[i]);
		} else if (ops->to_move(st) & (1u << seat))
			rc = ref_fail(res, _("`%.60s` does not finish the turn: "
			    "write the whole turn, its moves separated by "
			    "commas"), cond[i]);
	}
	buf_free(&where);
	buf_free(&legal);
	buf_free(&path);
	buf_free(&turn);
	free(before);
	free(st);
	return rc;
}

/* How two lines (their turns) go together: 0 apart, 1 when a holds all
 * of b, 2 when b holds all of a (and more), -1 when they answer the same
 * moves differently (*at: the reply that differs). */
static int
line_relation(char **a, int na, char **b, int nb, int *at)
{
	int i;

	for (i = 0; i < na && i < nb; i++) {
		if (strcmp(a[i], b[i]) == 0)
			continue;
		if (i % 2 == 0)
			return 0;
		*at = i;
		return -1;
	}
	return na >= nb ? 1 : 2;
}

int
refcond_cmd_if(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	const struct command *c = k->c;
	const struct game_ops *ops = g->def->ops;
	struct store_move *log = NULL;
	struct buf canon = { 0 };
	char **lines = NULL, err[GAME_ERRLEN + 100];
	char *nt[2 * COMMAND_IF_MAX], *ot[2 * COMMAND_IF_MAX];
	void *base = NULL;
	int opp = !seat, n = 0, nlog = 0, i, j, rc, last, at = 0, nn, no;
	int drop = 0;

	if (g->row.nseats != 2 || ops->partner != NULL ||
	    ops->determinize != NULL)
		return ref_fail(res, _("%s has hidden cards: conditional moves "
		    "are for Mancala, Alquerque and Almakleh"), _(g->def->title));
	if (refrobot_level(g->address[opp]))
		return ref_fail(res, _("a robot answers at once: there is no "
		    "move of its to wait for"));
	if (!game_looks_like_move(ops, g->st, c->cond[0]))
		return REF_ASIDE;
	if (ops->to_move(g->st) != 1u << opp) {
		res->legal_seat = seat;
		return ref_fail(res, _("it is your turn in game #%lld: "
		    "conditional moves answer your opponent's next move; play "
		    "yours first (an `if` line after your move in the same "
		    "mail will do)"), (long long)g->row.id);
	}
	/* The position the opponent's turn starts from: after the sender's
	 * last move (what the opponent has played of the turn so far is not
	 * the sender's to know). */
	if (store_moves(x->r->store, g->row.id, &log, &nlog) == -1)
		return -1;
	for (last = nlog - 1; last >= 0 && log[last].seat != seat; last--)
		;
	base = state_at(g, log, last + 1, err, sizeof(err));
	store_moves_free(log, nlog);
	if (base == NULL) {
		log_err("game #%lld does not replay: %s", (long long)g->row.id,
		    err);
		return -1;
	}
	if (ops->to_move(base) != 1u << opp) {
		/* The sender's own turn ended by the opponent's moves? Only
		 * the opponent moves after the sender's last move now. */
		free(base);
		log_err("game #%lld: seat %d waits, yet is to move after its "
		    "last move", (long long)g->row.id, seat);
		return ref_fail(res, _("game #%lld is not waiting for your "
		    "opponent's move"), (long long)g->row.id);
	}
	rc = line_check(g, base, seat, opp, c->cond, c->ncond, &canon, res);
	free(base);
	if (rc != REF_OK)
		goto out;
	rc = -1;
	if (store_conditions(x->r->store, g->row.id, seat, &lines, &n) == -1)
		goto out;
	nn = line_turns(canon.s, nt, 2 * COMMAND_IF_MAX);
	for (i = 0; i < n; i++) {
		char *copy = xstrdup(lines[i]);

		no = line_turns(copy, ot, 2 * COMMAND_IF_MAX);
		switch (line_relation(nt, nn, ot, no, &at)) {
		case -1:
			ref_fail(res, _("you already answer `%s` with `%s`; send "
			    "`conditions clear` to queue other replies"),
			    ot[at - 1], ot[at]);
			free(copy);
			rc = REF_FAIL;
			goto out;
		case 1:		/* the new line holds the old one */
			free(lines[i]);
			lines[i] = NULL;
			break;
		case 2:		/* the old line holds the new one */
			drop = 1;
			break;
		}
		free(copy);
	}
	/* Put the tabs back that line_turns took out. */
	for (i = 1; i < nn; i++)
		nt[i][-1] = '\t';
	for (i = j = 0; i < n; i++)
		if (lines[i] != NULL)
			lines[j++] = lines[i];
	n = j;
	if (!drop) {
		if (n == REFCOND_LINES_MAX) {
			rc = ref_fail(res, _("at most %d conditional lines may "
			    "wait in one game"), REFCOND_LINES_MAX);
			goto out;
		}
		lines = xreallocarray(lines, (size_t)n + 1, sizeof(*lines));
		lines[n++] = xstrdup(canon.s);
	}
	if (fx_conditions_set(x, g->row.id, seat, lines, n) ==
	    -1)
		goto out;
	res->note = xasprintf(P_("queued in game #%lld: %d conditional line "
	    "waits for your opponent's move", "queued in game #%lld: %d "
	    "conditional lines wait for your opponent's move", n),
	    (long long)g->row.id, n);
	rc = REF_OK;
out:
	store_strings_free(lines, n);
	buf_free(&canon);
	return rc;
}

int
refcond_cmd_conditions(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	int clear = k->c->kind == CMD_CONDITIONS_CLEAR;
	struct ref_seats rs;
	struct tmpl_data *d;
	struct tmpl_list *l;
	char **lines;
	int n, i, rc;

	if (store_conditions(x->r->store, g->row.id, seat, &lines, &n) == -1)
		return -1;
	if (clear) {
		store_strings_free(lines, n);
		if (n == 0)
			return ref_fail(res, _("no conditional moves wait in game "
			    "#%lld"), (long long)g->row.id);
		if (fx_conditions_clear(x, g->row.id, seat) == -1)
			return -1;
		res->note = xasprintf(P_("%d conditional line cleared in game "
		    "#%lld", "%d conditional lines cleared in game #%lld", n),
		    n, (long long)g->row.id);
		return REF_OK;
	}
	if (refview_seats(x, g, &rs) == -1) {
		store_strings_free(lines, n);
		return -1;
	}
	d = refview_game(x, g, &rs, seat, NULL);
	l = tmpl_list(d, "conditions.lines");
	for (i = 0; i < n; i++) {
		struct buf b = { 0 };

		line_text(lines[i], &b);
		tmpl_list_add_str(l, buf_str(&b));
		buf_free(&b);
	}
	tmpl_set_int(d, "conditions.count", n);
	tmpl_set(d, "conditions.playable", strcmp(g->row.status, "active") ==
	    0 && g->row.nseats == 2 && g->def->ops->determinize == NULL ? "1" :
	    "");
	rc = ref_send(x, &x->me, "conditions", d, g->row.id, seat, NULL);
	tmpl_data_free(d);
	refview_seats_free(&rs);
	store_strings_free(lines, n);
	return rc;
}

/* Takebacks. */

/* What a takeback undoes: the log from entry keep on. */
struct tb_plan {
	int	 keep;
	struct store_move *log;	/* owned: the whole log */
	int	 nlog;
};

static void
plan_free(struct tb_plan *p)
{
	store_moves_free(p->log, p->nlog);
	memset(p, 0, sizeof(*p));
}

/* The takeback of seat's last turn and everything after it, checked:
 * REF_OK with the plan, REF_FAIL with res. */
static int
tb_plan(struct ref_msg *x, const struct play_game *g, int seat,
    struct tb_plan *p, struct ref_result *res)
{
	const struct game_ops *ops = g->def->ops;
	struct game_move m;
	char err[GAME_ERRLEN + 100], text[GAME_MOVE_TEXT];
	void *st;
	int *num, i, k, open, rc = REF_OK;

	memset(p, 0, sizeof(*p));
	if ((open = refview_turn_open(x, g, seat)) == -1)
		return -1;
	if (open)
		return ref_fail(res, _("your turn goes on in game #%lld: a turn "
		    "is taken back whole, once it is over"),
		    (long long)g->row.id);
	if (store_moves(x->r->store, g->row.id, &p->log, &p->nlog) == -1)
		return -1;
	num = xcalloc((size_t)p->nlog + 1, sizeof(*num));
	refview_turns(g, p->log, p->nlog, num);
	for (i = p->nlog - 1; i >= 0; i--)
		if (p->log[i].seat == seat && num[i] != 0)
			break;
	if (i < 0) {
		free(num);
		plan_free(p);
		return ref_fail(res, _("you have made no move in game #%lld to "
		    "take back"), (long long)g->row.id);
	}
	for (k = i; k > 0 && num[k - 1] == num[i]; k--)
		;
	free(num);
	p->keep = k;
	if (ops->reveals == NULL)
		return REF_OK;
	if ((st = state_at(g, p->log, k, err, sizeof(err))) == NULL) {
		log_err("game #%lld does not replay: %s", (long long)g->row.id,
		    err);
		plan_free(p);
		return -1;
	}
	for (i = k; i < p->nlog && rc == REF_OK; i++) {
		if (ops->parse_move(st, p->log[i].seat, p->log[i].notation, &m,
		    err, sizeof(err)) == -1) {
			log_err("game #%lld: ply %d does not replay: %s",
			    (long long)g->row.id, i + 1, err);
			rc = -1;
			break;
		}
		if (ops->reveals(st, p->log[i].seat, &m)) {
			if (refview_shown(g, p->log[i].seat, p->log[i].notation,
			    seat, text, sizeof(text)) == GAME_SHOWN_NONE)
				util_strlcpy(text, "?", sizeof(text));
			rc = ref_fail(res, _("`%s` brought a hidden card to "
			    "light, and what has been seen cannot be unseen: "
			    "it cannot be taken back (see ludus-games(7))"),
			    text);
		}
		ops->apply(st, p->log[i].seat, &m);
	}
	free(st);
	if (rc != REF_OK)
		plan_free(p);
	return rc;
}

struct tb_info {
	const struct play_game *g;
	const struct tb_plan *plan;
	const char	*name;		/* the proposer's */
	unsigned	 side;		/* the proposer's side */
	int		 done;
};

static void
tb_extra(struct tmpl_data *d, void *arg, int viewer)
{
	struct tb_info *ti = arg;
	struct buf b = { 0 };
	char text[GAME_MOVE_TEXT];
	int i;

	for (i = ti->plan->keep; i < ti->plan->nlog; i++) {
		if (refview_shown(ti->g, ti->plan->log[i].seat,
		    ti->plan->log[i].notation, viewer, text, sizeof(text)) ==
		    GAME_SHOWN_NONE)
			continue;
		buf_printf(&b, "%s%s", b.len ? ", " : "", text);
	}
	tmpl_set(d, "takeback.moves", buf_str(&b));
	tmpl_set(d, "takeback.name", ti->name);
	tmpl_set(d, "takeback.you", viewer >= 0 && viewer < 32 &&
	    (ti->side & (1u << viewer)) ? "1" : "");
	tmpl_set(d, "takeback.done", ti->done ? "1" : "");
	buf_free(&b);
}

/* Take back what the plan says: the log, the state, the clock. */
static int
tb_apply(struct ref_msg *x, struct play_game *g, struct tb_plan *p,
    struct tb_info *ti)
{
	char err[GAME_ERRLEN + 100], num[16], *text, *kept;
	int robots, rc;

	if (play_takeback_to(x->r->store, g, p->keep, x->now, err,
	    sizeof(err)) == -1) {
		log_err("game #%lld: takeback: %s", (long long)g->row.id, err);
		return -1;
	}
	fx_moves_truncate(x, g->row.id, p->keep);
	fx_game_update(x, &g->row);
	g->row.draw_offer = 0;
	if ((rc = refview_move_number(x, g)) == -1)
		return -1;
	snprintf(num, sizeof(num), "%d", rc);
	if (fx_takeback_set(x, g->row.id, 0, 0, x->now) == -1 ||
	    fx_conditions_clear(x, g->row.id, -1) == -1 ||
	    refclock_begin_turn(x, g) == -1 ||
	    refrobot_play(x, g, &robots) == -1 ||
	    fx_game_update(x, &g->row) == -1)
		return -1;
	text = i18n_defer(N_("takeback agreed: back to move %s"), num,
	    (char *)NULL);
	kept = i18n_keep(text);
	free(text);
	rc = fx_event_add(x, g->row.id, p->keep, x->me.id,
	    "takeback", kept, x->now);
	free(kept);
	if (rc == -1)
		return -1;
	ti->done = 1;
	if (strcmp(g->row.status, "finished") == 0)
		return reflife_over(x, g, NULL);
	return refview_fanout(x, g, "takeback", REFVIEW_SEATS |
	    REFVIEW_OBSERVERS, tb_extra, ti);
}

int
refcond_cmd_takeback(struct ref_msg *x, const struct ref_call *k,
    struct ref_result *res)
{
	struct play_game *g = k->g;
	int seat = k->seat;
	struct tb_plan plan;
	struct tb_info ti;
	struct ref_seats rs;
	unsigned seats = 0, others = 0, mine = play_side_mask(g, seat);
	int at = 0, rc, i, proposer = seat;

	if ((rc = store_takeback_get(x->r->store, g->row.id, &seats, &at)) ==
	    -1)
		return -1;
	if (rc == 1)
		seats = 0;
	if (seats & mine)
		return ref_fail(res, _("you have already asked to take back a "
		    "move in game #%lld; the other side answers with "
		    "`takeback`"), (long long)g->row.id);
	if (seats != 0) {
		for (i = 0; i < g->row.nseats; i++)
			if (seats & (1u << i)) {
				proposer = i;
				break;
			}
	}
	if ((rc = tb_plan(x, g, proposer, &plan, res)) != REF_OK) {
		/* A request that can no longer be granted goes. */
		if (rc == REF_FAIL && seats != 0 &&
		    fx_takeback_set(x, g->row.id, 0, 0, x->now) == -1)
			return -1;
		return rc;
	}
	if (refview_seats(x, g, &rs) == -1) {
		plan_free(&plan);
		return -1;
	}
	memset(&ti, 0, sizeof(ti));
	ti.g = g;
	ti.plan = &plan;
	ti.name = ref_name(&rs.p[proposer]);
	ti.side = play_side_mask(g, proposer);
	for (i = 0; i < g->row.nseats; i++)
		if (!(ti.side & (1u << i)))
			others |= 1u << i;
	if (seats != 0) {
		res->note = xasprintf(_("takeback agreed in game #%lld"),
		    (long long)g->row.id);
		rc = tb_apply(x, g, &plan, &ti);
	} else if ((others & ~refrobot_seats(g)) == 0) {
		/* Robots never mind. */
		res->note = xasprintf(_("takeback agreed in game #%lld"),
		    (long long)g->row.id);
		rc = tb_apply(x, g, &plan, &ti);
	} else {
		rc = -1;
		if (fx_takeback_set(x, g->row.id, 1u << seat,
		    g->row.nmoves, x->now) == -1 ||
		    fx_event_add(x, g->row.id, g->row.nmoves,
		    x->me.id, "takeback asked", N_("takeback asked"),
		    x->now) == -1)
			goto out;
		res->note = xasprintf(_("takeback asked in game #%lld"),
		    (long long)g->row.id);
		rc = refview_fanout(x, g, "takeback", REFVIEW_SEATS, tb_extra,
		    &ti);
	}
out:
	refview_seats_free(&rs);
	plan_free(&plan);
	return rc;
}

/* ---- run steps (the command table in refcmd.c) ---- */

/* The opponent's turn just ended: the run of its plies at the end of the
 * log since the owner's last, as "3, 6". */
static int
last_turn(struct ref_msg *x, const struct play_game *g, int owner,
    struct buf *b)
{
	struct store_move *log;
	int n, i;

	if (store_moves(x->r->store, g->row.id, &log, &n) == -1)
		return -1;
	for (i = n; i > 0 && log[i - 1].seat != owner; i--)
		;
	for (; i < n; i++)
		buf_printf(b, "%s%s", b->len ? ", " : "", log[i].notation);
	store_moves_free(log, n);
	return 0;
}

int
refcond_after_move(struct ref_msg *x, struct play_game *g, int *seat,
    uint32_t *before, struct ref_cond *rc)
{
	const struct game_ops *ops = g->def->ops;
	struct buf turn = { 0 };
	char **lines = NULL, *t[2 * COMMAND_IF_MAX], *reply = NULL;
	char err[GAME_ERRLEN + 100];
	unsigned seats;
	int owner = !*seat, n = 0, i, j, nt, at, r, ret = -1, kept = 0, left;
	uint32_t b2;

	memset(rc, 0, sizeof(*rc));
	rc->owner = -1;
	/* Any move answers a takeback asked for: the other side's declines
	 * it, the proposer's own withdraws it. */
	if ((r = store_takeback_get(x->r->store, g->row.id, &seats, &at)) ==
	    -1)
		return -1;
	if (r == 0) {
		if (fx_takeback_set(x, g->row.id, 0, 0, x->now) ==
		    -1)
			return -1;
		if ((seats & play_side_mask(g, *seat)) == 0) {
			rc->game = g->row.id;
			rc->tb_declined = seats;
			if (fx_event_add(x, g->row.id,
			    g->row.nmoves, x->me.id, "takeback declined",
			    N_("takeback declined"), x->now) == -1)
				return -1;
		}
	}
	if (strcmp(g->row.status, "active") != 0)
		return fx_conditions_clear(x, g->row.id, -1);
	if (g->row.nseats != 2 || !(ops->to_move(g->st) & (1u << owner)))
		return 0;
	if (store_conditions(x->r->store, g->row.id, owner, &lines, &n) == -1)
		return -1;
	if (n == 0)
		return 0;
	if (last_turn(x, g, owner, &turn) == -1) {
		kept = n;	/* every line still to free */
		goto out;
	}
	/* The lines this turn starts give up their first two turns. */
	for (i = j = 0; i < n; i++) {
		nt = line_turns(lines[i], t, 2 * COMMAND_IF_MAX);
		if (nt < 2 || strcmp(t[0], buf_str(&turn)) != 0) {
			free(lines[i]);
			continue;
		}
		if (reply == NULL)
			reply = xstrdup(t[1]);
		if (nt > 2) {
			char *rest = t[2];
			int k;

			for (k = 3; k < nt; k++)
				t[k][-1] = '\t';
			rest = xstrdup(rest);
			free(lines[i]);
			lines[j++] = rest;
		} else
			free(lines[i]);
	}
	kept = j;
	rc->game = g->row.id;
	rc->owner = owner;
	util_strlcpy(rc->after, buf_str(&turn), sizeof(rc->after));
	if (reply == NULL) {
		rc->cleared = 1;
		ret = fx_conditions_clear(x, g->row.id, owner);
		goto out;
	}
	/* The opponent's move is a move for the clock, and so is the
	 * reply. */
	if (refclock_after_move(x, g, *seat, *before) == -1)
		goto out;
	b2 = ops->to_move(g->st);
	if ((r = ref_play(x, g, owner, reply, NULL, err, sizeof(err))) ==
	    REF_TEMP)
		goto out;
	if (r == REF_FAIL) {
		/* Checked when it was queued: the engine disagrees now. */
		log_err("game #%lld: conditional move `%s` refused: %s",
		    (long long)g->row.id, reply, err);
		rc->cleared = 1;
		ret = fx_conditions_clear(x, g->row.id, owner);
		goto out;
	}
	play_draw_declined(g, owner);
	/* A reply that ended the game leaves nothing to wait for. */
	left = strcmp(g->row.status, "active") == 0 ? kept : 0;
	if (fx_conditions_set(x, g->row.id, owner, lines,
	    left) == -1 || fx_event_add(x, g->row.id,
	    g->row.nmoves - 1, g->row.player[owner], "conditional",
	    N_("conditional move, played at once"), x->now) == -1)
		goto out;
	rc->fired = 1;
	rc->left = left;
	util_strlcpy(rc->reply, reply, sizeof(rc->reply));
	*seat = owner;
	*before = b2;
	ret = 0;
out:
	for (i = 0; i < kept; i++)
		free(lines[i]);
	free(lines);
	free(reply);
	buf_free(&turn);
	return ret;
}

int
refcond_tell(struct ref_msg *x, const struct play_game *g,
    const struct ref_cond *rc)
{
	struct refview_about ab = { rc, NULL };
	struct ref_seats rs;
	struct tmpl_data *d;
	const char *notify;
	int r = 0;

	if (rc->game != g->row.id || rc->owner < 0 ||
	    strcmp(g->row.status, "active") != 0)
		return 0;
	if (refview_seats(x, g, &rs) == -1)
		return -1;
	notify = rs.p[rc->owner].notify ? rs.p[rc->owner].notify : "all";
	/* The owner hears of a reply played for them even when they hear
	 * only of their turns; of a cleared queue even when they hear of
	 * nothing (the move mail that says it went to no one). */
	if ((rc->fired && strcmp(notify, "turn") == 0) ||
	    (rc->cleared && strcmp(notify, "off") == 0)) {
		ref_lang(&rs.p[rc->owner]);
		d = refview_game(x, g, &rs, rc->owner, &ab);
		tmpl_list(d, "conditions.lines");
		tmpl_set(d, "conditions.count", "0");
		tmpl_set(d, "conditions.playable", "");
		r = ref_send(x, &rs.p[rc->owner], rc->fired ? "move" :
		    "conditions", d, g->row.id, rc->owner, NULL);
		tmpl_data_free(d);
		ref_lang(x->me.id != 0 ? &x->me : NULL);
	}
	refview_seats_free(&rs);
	return r;
}

void
refcond_view(const struct play_game *g, const struct ref_cond *rc,
    struct tmpl_data *d, int viewer, const char *owner_name)
{

	tmpl_set(d, "conditional.text", "");
	tmpl_set(d, "conditional.after", "");
	tmpl_set(d, "conditional.name", "");
	tmpl_set(d, "conditional.you", "");
	tmpl_set(d, "conditions.left", "");
	tmpl_set(d, "conditions.cleared", "");
	tmpl_set(d, "conditions.after", "");
	tmpl_set(d, "takeback.declined", "");
	if (rc == NULL || rc->game != g->row.id)
		return;
	if (rc->fired) {
		tmpl_set(d, "conditional.text", rc->reply);
		tmpl_set(d, "conditional.after", rc->after);
		tmpl_set(d, "conditional.name", owner_name);
		tmpl_set(d, "conditional.you", viewer == rc->owner ? "1" : "");
		if (viewer == rc->owner && rc->left > 0)
			tmpl_set_int(d, "conditions.left", rc->left);
	}
	if (rc->cleared && viewer == rc->owner) {
		tmpl_set(d, "conditions.cleared", "1");
		tmpl_set(d, "conditions.after", rc->after);
	}
	if (viewer >= 0 && viewer < 32 && (rc->tb_declined & (1u << viewer)))
		tmpl_set(d, "takeback.declined", "1");
}
