/*
 * refclock: the clocks of games: deadlines, Fischer reserves, reminders,
 * timeouts and vacations.
 *
 * A turn begins when the set of seats to move changes (a Mancala extra
 * turn or a Spite & Malice turn of several actions is one turn).  Its
 * deadline is the turn's start plus the time per move, or plus the seat's
 * reserve under a Fischer clock (`7d+1d`): a seat that moves keeps what
 * it did not use and gains the increment.  A player on vacation starts
 * the clock when the vacation ends; a vacation taken during a turn moves
 * the deadline by the time paused.
 *
 * The timer wheel lives in the store: one `timeout` timer per turn at the
 * deadline, one `reminder` timer per configured share of the time and per
 * player to move.  Both carry the turn's start, so a timer of a turn that
 * is over is recognised and dropped.  A reminder lists every game waiting
 * on the player and counts as that reminder for all of them: two games
 * never make two mails for the same share.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "refint.h"

static void
clock_of(struct ref_msg *x, const struct play_game *g,
    struct config_clock *ck)
{
	char err[200];

	*ck = x->r->cfg->clock.move;
	if (g->row.clock != NULL &&
	    config_parse_clock(g->row.clock, ck, err, sizeof(err)) == -1)
		*ck = x->r->cfg->clock.move;
}

static uint32_t
waiting_seats(const struct play_game *g)
{
	if (strcmp(g->row.status, "active") != 0)
		return 0;
	return g->def->ops->to_move(g->st);
}

static int
cancel_timers(struct ref_msg *x, const struct play_game *g)
{
	if (fx_timer_cancel(x, "reminder", g->row.id, 0) == -1 ||
	    fx_timer_cancel(x, "timeout", g->row.id, 0) == -1)
		return -1;
	return 0;
}

/* The timeout at the deadline and the reminders not yet sent, measured
 * from start (the moment the clock began to run for this turn). */
static int
schedule(struct ref_msg *x, const struct play_game *g, int64_t start)
{
	const struct config_percents *pc = &x->r->cfg->clock.reminders;
	struct store_timer t;
	char data[64];
	uint32_t tm = waiting_seats(g);
	int64_t span = g->row.deadline - start, due;
	int k, s;

	if (cancel_timers(x, g) == -1)
		return -1;
	if (tm == 0 || g->row.deadline == 0)
		return 0;
	memset(&t, 0, sizeof(t));
	t.game = g->row.id;
	t.kind = "timeout";
	t.due = g->row.deadline;
	snprintf(data, sizeof(data), "%lld", (long long)g->row.turn_since);
	t.data = data;
	if (fx_timer_add(x, &t) == -1)
		return -1;
	t.kind = "reminder";
	for (k = 0; k < pc->n; k++) {
		if (g->row.reminded & (1u << k))
			continue;
		due = g->row.deadline - span * pc->v[k] / 100;
		if (due <= x->now)
			continue;
		snprintf(data, sizeof(data), "%lld:%d",
		    (long long)g->row.turn_since, k);
		t.due = due;
		for (s = 0; s < g->row.nseats; s++) {
			if (!(tm & (1u << s)))
				continue;
			t.player = g->row.player[s];
			if (fx_timer_add(x, &t) == -1)
				return -1;
		}
	}
	return 0;
}

/* The clock starts when the last player to move is back from vacation. */
static int
clock_start(struct ref_msg *x, const struct play_game *g, uint32_t tm,
    int64_t *start)
{
	struct store_player p;
	int s;

	*start = x->now;
	for (s = 0; s < g->row.nseats; s++) {
		if (!(tm & (1u << s)))
			continue;
		if (ref_must(x, store_player_load(x->r->store,
		    g->row.player[s], &p), "player", g->row.player[s]) != 0)
			return -1;
		if (p.vacation_until > *start)
			*start = p.vacation_until;
		store_player_free(&p);
	}
	return 0;
}

int
refclock_begin_turn(struct ref_msg *x, struct play_game *g)
{
	struct config_clock ck;
	uint32_t tm = waiting_seats(g);
	int64_t start, span = -1;
	int s;

	g->row.reminded = 0;
	if (tm == 0) {
		g->row.deadline = 0;
		g->row.turn_since = 0;
		return cancel_timers(x, g);
	}
	clock_of(x, g, &ck);
	for (s = 0; s < g->row.nseats; s++)
		if (tm & (1u << s)) {
			int64_t mine = ck.fischer ? g->row.reserve[s] :
			    ck.base_ms / 1000;

			if (span < 0 || mine < span)
				span = mine;
		}
	if (clock_start(x, g, tm, &start) == -1)
		return -1;
	g->row.turn_since = x->now;
	g->row.deadline = start + span;
	return schedule(x, g, start);
}

int
refclock_begin_game(struct ref_msg *x, struct play_game *g)
{
	struct config_clock ck;
	int s;

	clock_of(x, g, &ck);
	for (s = 0; s < g->row.nseats; s++)
		g->row.reserve[s] = ck.fischer ? ck.base_ms / 1000 : 0;
	return refclock_begin_turn(x, g);
}

int
refclock_after_move(struct ref_msg *x, struct play_game *g, int seat,
    uint32_t before)
{
	struct config_clock ck;
	uint32_t now_waiting = waiting_seats(g);

	if (now_waiting != 0 && now_waiting == before && g->row.deadline != 0)
		return 0;	/* the same turn goes on */
	clock_of(x, g, &ck);
	if (ck.fischer && (before & (1u << seat)) && g->row.deadline != 0) {
		int64_t left = g->row.deadline - x->now;

		g->row.reserve[seat] = (left > 0 ? left : 0) +
		    ck.increment_ms / 1000;
	}
	return refclock_begin_turn(x, g);
}

int
refclock_stop(struct ref_msg *x, struct play_game *g)
{
	g->row.deadline = 0;
	g->row.turn_since = 0;
	return cancel_timers(x, g);
}

int
refclock_shift(struct ref_msg *x, struct play_game *g, int64_t delta)
{
	if (waiting_seats(g) == 0)
		return 0;
	if (g->row.deadline == 0) {
		/* A clock stopped by a timeout the admins were told of. */
		g->row.turn_since = x->now;
		g->row.reminded = 0;
		g->row.deadline = x->now;
	}
	g->row.deadline += delta;
	if (g->row.deadline < x->now)
		g->row.deadline = x->now;
	return schedule(x, g, g->row.turn_since);
}

/* Does the player have a seat in g that is to move? */
static int
waits_on(const struct play_game *g, int64_t player)
{
	uint32_t tm = waiting_seats(g);
	int s;

	for (s = 0; s < g->row.nseats; s++)
		if ((tm & (1u << s)) && g->row.player[s] == player)
			return s;
	return -1;
}

/* Every game waiting on the player, loaded (the caller frees them). */
static int
games_waiting(struct ref_msg *x, int64_t player, struct play_game **out,
    int *nout)
{
	struct play_game g;
	int64_t *ids;
	char err[300];
	int n, i, rc = 0;

	*out = NULL;
	*nout = 0;
	if (store_game_ids(x->r->store, player, &ids, &n) == -1)
		return -1;
	*out = xcalloc((size_t)(n ? n : 1), sizeof(**out));
	for (i = n - 1; i >= 0; i--) {
		if ((rc = play_load(x->r->store, x->r->defs, x->r->ndefs,
		    ids[i], &g, err, sizeof(err))) == -1)
			break;
		if (rc != 0)
			continue;
		if (waits_on(&g, player) >= 0)
			(*out)[(*nout)++] = g;
		else
			play_free(&g);
	}
	free(ids);
	return rc == -1 ? -1 : 0;
}

static void
free_games(struct play_game *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		play_free(&v[i]);
	free(v);
}

static int
send_reminder(struct ref_msg *x, const struct store_player *p,
    struct play_game *games, int n, int tier)
{
	struct tmpl_data *d = tmpl_data_new(), *it;
	struct tmpl_list *l = tmpl_list(d, "games");
	struct ref_seats rs;
	char when[120];
	int i, k, s, count = 0, rc = 0;
	unsigned bits = (2u << tier) - 1;

	ref_lang(p);
	for (i = 0; i < n && rc == 0; i++) {
		struct play_game *g = &games[i];
		int64_t left = g->row.deadline - x->now;
		struct buf opp = { 0 };
		char at[32];
		int number, ply;

		if (g->row.deadline <= x->now)
			continue;	/* the timeout takes it */
		if ((number = refview_move_at(x, g, &ply, at,
		    sizeof(at))) == -1 ||
		    refview_seats(x, g, &rs) == -1) {
			rc = -1;
			break;
		}
		s = waits_on(g, p->id);
		it = tmpl_list_add(l);
		tmpl_set_int(it, "id", g->row.id);
		tmpl_set(it, "title", _(g->def->title));
		for (k = 0; k < rs.n; k++)
			if (k != s)
				buf_printf(&opp, "%s%s", opp.len ? ", " : "",
				    ref_name(&rs.p[k]));
		tmpl_set(it, "opponents", buf_str(&opp));
		buf_free(&opp);
		tmpl_set(it, "move_number", at);
		if (refview_last_move(x, g, s, &opp) == -1) {
			refview_seats_free(&rs);
			rc = -1;
			break;
		}
		tmpl_set(it, "last_move", buf_str(&opp));
		buf_free(&opp);
		ref_utc(g->row.deadline, when, sizeof(when));
		tmpl_set(it, "deadline_utc", when);
		ref_local(p, g->row.deadline, when, sizeof(when));
		tmpl_set(it, "deadline_local", when);
		tmpl_set_int(it, "days", left / 86400);
		tmpl_set_int(it, "hours", left % 86400 / 3600);
		tmpl_set_int(it, "minutes", left % 3600 / 60);
		refview_seats_free(&rs);
		/* This mail is the reminder of this share for every game in
		 * it, so none of them sends its own. */
		g->row.reminded |= bits;
		if (fx_game_update(x, &g->row) == -1)
			rc = -1;
		count++;
	}
	if (rc == 0 && count > 0) {
		tmpl_set_int(d, "games_count", count);
		rc = ref_send(x, p, "reminder", d, 0, -1, "auto-generated");
	}
	tmpl_data_free(d);
	ref_lang(x->me.id != 0 ? &x->me : NULL);
	return rc;
}

static int
timer_reminder(struct ref_msg *x, const struct store_timer *t)
{
	struct play_game g, *games;
	struct ref_result res;
	struct store_player p;
	long long since;
	int tier, n, rc;

	memset(&res, 0, sizeof(res));
	if (t->data == NULL || sscanf(t->data, "%lld:%d", &since, &tier) != 2 ||
	    tier < 0 || tier >= CONFIG_MAX_REMINDERS)
		return 0;
	if ((rc = ref_load(x, t->game, &g, &res)) != REF_OK)
		return rc == REF_TEMP ? -1 : 0;
	rc = g.row.turn_since == since && waits_on(&g, t->player) >= 0 &&
	    !(g.row.reminded & (1u << tier)) && g.row.deadline > x->now;
	play_free(&g);
	if (!rc)
		return 0;	/* a past turn, already reminded, or too late */
	if (ref_must(x, store_player_load(x->r->store, t->player, &p),
	    "player", t->player) != 0)
		return -1;
	if ((rc = games_waiting(x, t->player, &games, &n)) == 0)
		rc = send_reminder(x, &p, games, n, tier);
	free_games(games, n);
	store_player_free(&p);
	return rc;
}

struct timeout_info {
	const char	*name;
	uint32_t	 late;		/* bit per seat that ran out of time */
};

static void
timeout_extra(struct tmpl_data *d, void *arg, int viewer)
{
	struct timeout_info *ti = arg;

	tmpl_set(d, "timeout.name", ti->name);
	tmpl_set(d, "timeout.you", viewer >= 0 && viewer < 32 &&
	    (ti->late & (1u << viewer)) ? "1" : "");
}

static int
timer_timeout(struct ref_msg *x, const struct store_timer *t)
{
	const struct game_ops *ops;
	struct play_game g;
	struct ref_result res;
	struct ref_seats rs;
	struct timeout_info ti;
	struct buf late = { 0 }, seats = { 0 };
	char *text = NULL;
	uint32_t tm;
	unsigned losers = 0, winners = 0;
	int s, action, rc = 0, i;

	memset(&res, 0, sizeof(res));
	if ((rc = ref_load(x, t->game, &g, &res)) != REF_OK)
		return rc == REF_TEMP ? -1 : 0;
	ops = g.def->ops;
	tm = waiting_seats(&g);
	if (tm == 0 || g.row.deadline == 0 || g.row.deadline > x->now ||
	    t->data == NULL || atoll(t->data) != g.row.turn_since) {
		play_free(&g);
		return 0;
	}
	if (refview_seats(x, &g, &rs) == -1) {
		play_free(&g);
		return -1;
	}
	for (s = 0; s < g.row.nseats; s++) {
		if (!(tm & (1u << s)))
			continue;
		losers |= 1u << s;
		if (ops->partner != NULL && (i = ops->partner(g.st, s)) >= 0)
			losers |= 1u << i;
		buf_printf(&late, "%s%s", late.len ? ", " : "",
		    ref_name(&rs.p[s]));
		buf_printf(&seats, "%s%s", seats.len ? ", " : I18N_TR,
		    ops->seat_name(g.st, s));
	}
	/* Several seats (both Aluette changers) read as they are. */
	if (seats.len && strchr(seats.s, ',') != NULL) {
		char *plain = xstrdup(seats.s + 1);

		buf_reset(&seats);
		buf_adds(&seats, plain);
		free(plain);
	}
	for (s = 0; s < g.row.nseats; s++)
		if (!(losers & (1u << s)))
			winners |= 1u << s;
	action = g.def->timeout ? g.def->timeout :
	    x->r->cfg->clock.timeout_action == CONFIG_TIMEOUT_NOTIFY ?
	    GAMEDEF_TIMEOUT_NOTIFY : GAMEDEF_TIMEOUT_FORFEIT;
	ti.name = buf_str(&late);
	ti.late = tm;
	if (action == GAMEDEF_TIMEOUT_FORFEIT) {
		/* The result names the seat, as "North resigned" does: the
		 * end mail's subject then never names its reader's address.
		 * One seat's name is translated for each reader. */
		text = i18n_defer(N_("%s ran out of time"), buf_str(&seats),
		    (char *)NULL);
		rc = reflife_finish(x, &g, winners == 0, winners, "timeout",
		    text, ti.name);
	} else {
		const struct config_list *admins = &x->r->cfg->referee.admins;

		{
			char *d = i18n_defer(N_("%s ran out of time; the "
			    "admins decide"), ti.name, (char *)NULL);

			text = i18n_keep(d);
			free(d);
		}
		if (refclock_stop(x, &g) == -1 ||
		    fx_game_update(x, &g.row) == -1 ||
		    fx_event_add(x, g.row.id, g.row.nmoves, 0,
		    "timeout", text, x->now) == -1)
			rc = -1;
		if (rc == 0)
			rc = refview_fanout(x, &g, "timeout", REFVIEW_SEATS |
			    REFVIEW_OBSERVERS, timeout_extra, &ti);
		for (i = 0; rc == 0 && i < admins->n; i++) {
			struct tmpl_data *d = refview_game(x, &g, &rs,
			    GAME_PUBLIC, NULL);

			tmpl_set(d, "timeout.name", ti.name);
			rc = ref_send_addr(x, admins->v[i], "timeout-admin", d,
			    g.row.id);
			tmpl_data_free(d);
		}
	}
	buf_free(&late);
	free(text);
	buf_free(&seats);
	refview_seats_free(&rs);
	play_free(&g);
	return rc;
}

int
refclock_timer(struct ref_msg *x, const struct store_timer *t)
{
	if (strcmp(t->kind, "timeout") == 0)
		return timer_timeout(x, t);
	return timer_reminder(x, t);
}

static int
utc_year(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	return tm.tm_year + 1900;
}

/* Shift the deadlines of the games waiting on the player; tell each
 * opponent once (when told is set). */
static int
shift_games(struct ref_msg *x, const struct store_player *p, int64_t delta,
    int tell)
{
	struct play_game *games;
	struct tmpl_data *d, *it;
	int64_t *told = NULL;
	int64_t *ids;
	char err[300], when[40];
	int n, i, s, k, ntold = 0, rc = 0;

	if (store_game_ids(x->r->store, p->id, &ids, &n) == -1)
		return -1;
	games = xcalloc((size_t)(n ? n : 1), sizeof(*games));
	told = xcalloc((size_t)(n ? n : 1) * STORE_MAX_SEATS, sizeof(*told));
	for (i = 0; i < n && rc == 0; i++)
		if ((k = play_load(x->r->store, x->r->defs, x->r->ndefs,
		    ids[i], &games[i], err, sizeof(err))) != 0) {
			memset(&games[i], 0, sizeof(games[i]));
			if (k == -1)
				rc = -1;
		}
	for (i = 0; i < n && rc == 0; i++) {
		struct play_game *g = &games[i];

		if (g->st == NULL || strcmp(g->row.status, "active") != 0)
			continue;
		if (waits_on(g, p->id) >= 0 && g->row.deadline != 0) {
			if (refclock_shift(x, g, delta) == -1 ||
			    fx_game_update(x, &g->row) == -1)
				rc = -1;
		}
		if (!tell)
			continue;
		/* Each opponent hears of it once, whatever the games. */
		for (s = 0; s < g->row.nseats && rc == 0; s++) {
			struct store_player o;

			if (g->row.player[s] == p->id)
				continue;
			for (k = 0; k < ntold; k++)
				if (told[k] == g->row.player[s])
					break;
			if (k < ntold)
				continue;
			told[ntold++] = g->row.player[s];
			if (store_player_load(x->r->store, g->row.player[s],
			    &o) != 0) {
				rc = -1;
				break;
			}
			ref_lang(&o);
			d = tmpl_data_new();
			tmpl_set(d, "vacation.name", ref_name(p));
			ref_utc(p->vacation_until, when, sizeof(when));
			tmpl_set(d, "vacation.until", when);
			for (k = i; k < n; k++) {
				struct play_game *h = &games[k];
				int j, shared = 0;

				if (h->st == NULL || strcmp(h->row.status,
				    "active") != 0)
					continue;
				for (j = 0; j < h->row.nseats; j++)
					shared |= h->row.player[j] == o.id;
				if (!shared)
					continue;
				it = tmpl_list_add(tmpl_list(d, "games"));
				tmpl_set_int(it, "id", h->row.id);
				tmpl_set(it, "title", _(h->def->title));
			}
			rc = ref_send(x, &o, "vacation-notice", d, 0, -1,
			    "auto-generated");
			tmpl_data_free(d);
			store_player_free(&o);
		}
	}
	ref_lang(&x->me);
	for (i = 0; i < n; i++)
		if (games[i].st != NULL)
			play_free(&games[i]);
	free(games);
	free(told);
	free(ids);
	return rc;
}

int
refclock_vacation(struct ref_msg *x, int days, struct ref_result *res,
    int64_t *left)
{
	const int64_t allowance = x->r->cfg->clock.vacation_ms / 1000;
	struct store_player *p = &x->me;
	int year = utc_year(x->now);
	int64_t unused;

	if (p->vacation_year != year) {
		p->vacation_year = year;
		p->vacation_used = 0;
	}
	if (p->vacation_until > x->now) {
		/* End the running vacation first: its unused days return. */
		unused = p->vacation_until - x->now;
		p->vacation_used -= unused;
		if (p->vacation_used < 0)
			p->vacation_used = 0;
		if (shift_games(x, p, -unused, 0) == -1)
			return -1;
		p->vacation_until = 0;
	} else if (days == 0)
		return ref_fail(res, _("you are not on vacation"));
	if (days > 0) {
		if (p->vacation_used + (int64_t)days * 86400 > allowance)
			return ref_fail(res, P_("you have %lld vacation day "
			    "left this year; %d asked for", "you have %lld "
			    "vacation days left this year; %d asked for",
			    (allowance - p->vacation_used) / 86400),
			    (long long)((allowance - p->vacation_used) / 86400),
			    days);
		p->vacation_start = x->now;
		p->vacation_until = x->now + (int64_t)days * 86400;
		p->vacation_used += (int64_t)days * 86400;
	}
	if (fx_player_update(x, p) == -1)
		return -1;
	if (days > 0 && shift_games(x, p, (int64_t)days * 86400, 1) == -1)
		return -1;
	*left = (allowance - p->vacation_used) / 86400;
	return REF_OK;
}
