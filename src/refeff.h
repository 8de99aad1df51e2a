/*
 * refeff: a command's writes, held as data until they are applied.
 *
 * Decide, then apply.  A run step (and a timer's step) reads what it
 * needs with direct store calls, decides, and records each write it
 * decided as one effect: fx_NAME takes the arguments of the store_NAME
 * call it stands for and keeps its own copy of them, so the caller may
 * change or free what it passed at once.  refeff_apply() is the one place
 * that writes: it applies the effects in the order they were recorded and
 * empties the list.  No other ref*.c file calls a store function that
 * writes (tests/callgraph.sh holds that); reads stay direct.
 *
 * When effects are applied.  The dispatcher (refcmd.c) applies them when
 * a run step or a timer's step returns REF_OK, inside the command's
 * savepoint; on REF_FAIL, REF_ASIDE or REF_TEMP it discards them, so a
 * failed command writes nothing, as before (the savepoint is undone too,
 * for what was applied earlier).  Inside a command they are applied at
 * two named points only, where what comes next reads what was decided:
 *
 *   a mail is rendered (ref_render, refcore.c): the views read the game,
 *	its move log and events, the seats' players, the observers and the
 *	ratings from the store, and a mail tells what was decided, so the
 *	effects recorded so far are applied first;
 *   a move is played (ref_play, refgame.c: the player's, a conditional
 *	reply, a robot's): what follows a move (the clock, the conditional
 *	queue, the robots, the end of the game, its ratings, ladder and
 *	mails) is decided from the position after it, and some of those
 *	steps read the move log, so each move is applied when it has been
 *	decided; the game row the caller holds in memory (g->row) stays
 *	the one truth the later steps change and record again.
 *
 * Besides those, a command that reads back what it wrote carries what it
 * decided in memory instead (the game row, the ladder's rungs, a seek).
 *
 * Rows whose id the decision needs (a new game's #ID goes into the mail's
 * subject, its seats name players made for invited addresses, a seek's
 * number, a report's, a challenge's, a ladder's) get it reserved in the
 * decide step: refeff_reserve reads the id the store would give the row
 * now (store_id_next: max + 1, as SQLite gives an INTEGER PRIMARY KEY)
 * and counts the ids this list already reserved in that series, so the
 * ids are exactly those of writing at once.  refeff_apply checks that the
 * store gave each row its reserved id and fails (a broken invariant)
 * when not.  A player made in this list is found again by address
 * (refeff_player_pending) until it is applied.
 *
 * Mails stay as they were: held in ref_msg.outs and queued at the end of
 * the message (ref_queue_now), not effects.
 */
#ifndef LUDUS_REFEFF_H
#define LUDUS_REFEFF_H

#include <stdint.h>

#include "store.h"

struct ref_msg;
struct ref_fx;

/* The effects of a message not applied yet (in struct ref_msg). */
struct ref_effects {
	struct ref_fx	*v;	/* owned */
	int		 n, cap;
};

/* Apply every effect recorded, in order, and empty the list (emptied
 * also when one fails).  REF_OK, or REF_TEMP when the store failed or
 * (ref_broken) a row did not get its reserved id. */
int	refeff_apply(struct ref_msg *);
/* Drop every effect not applied. */
void	refeff_discard(struct ref_msg *);
/* The number of effects waiting (tests, assertions). */
int	refeff_pending(const struct ref_msg *);

/* Reserve the id the next row of a series will get: 0, or -1 when the
 * store failed. */
int	refeff_reserve(struct ref_msg *, enum store_series, int64_t *id);
/* The id of a player this list makes for a canonical address: 0 found,
 * 1 none. */
int	refeff_player_pending(const struct ref_msg *, const char *address,
	    int64_t *id);

/*
 * The recorders: one per store write, with its arguments.  Each returns
 * 0, so that a chain of them reads as the chain of store calls it
 * replaces.  Rows that get an id take it reserved (refeff_reserve) in
 * their id field or argument.
 */
/* A new player row, its name and language set when not NULL. */
int	fx_player_create(struct ref_msg *, const char *address,
	    const char *name, const char *language, int64_t now, int64_t id);
int	fx_player_update(struct ref_msg *, const struct store_player *);
int	fx_player_ban(struct ref_msg *, const char *address, int banned,
	    int64_t now);
int	fx_game_create(struct ref_msg *, const struct store_game *);
int	fx_game_update(struct ref_msg *, const struct store_game *);
int	fx_move_add(struct ref_msg *, int64_t game, int ply, int seat,
	    const char *notation, int64_t now);
int	fx_moves_truncate(struct ref_msg *, int64_t game, int keep);
int	fx_event_add(struct ref_msg *, int64_t game, int after_ply,
	    int64_t player, const char *kind, const char *text, int64_t now);
int	fx_observer_set(struct ref_msg *, int64_t game, int64_t player,
	    int on);
int	fx_thanks_add(struct ref_msg *, int64_t game, int64_t from,
	    int64_t to, int64_t now);
int	fx_report_add(struct ref_msg *, int64_t game, int64_t reporter,
	    const char *text, int64_t now, int64_t id);
int	fx_report_resolve(struct ref_msg *, int64_t id, const char *text,
	    int64_t now);
int	fx_confirm_add(struct ref_msg *, const char *cookie, int64_t player,
	    const char *command, int64_t now, int64_t expires);
int	fx_confirm_take(struct ref_msg *, const char *cookie, int64_t player,
	    int64_t now);
int	fx_action_add(struct ref_msg *, int64_t player, const char *kind,
	    int64_t now);
int	fx_reply_add(struct ref_msg *, const char *sender, int64_t now);
int	fx_timer_add(struct ref_msg *, const struct store_timer *);
int	fx_timer_delete(struct ref_msg *, int64_t id);
int	fx_timer_cancel(struct ref_msg *, const char *kind, int64_t game,
	    int64_t player);
int	fx_rating_put(struct ref_msg *, int64_t player, const char *kind,
	    const struct store_rating *);
int	fx_rating_change_add(struct ref_msg *, int64_t game, int seat,
	    int64_t player, double r_old, double r_new);
int	fx_ladder_add(struct ref_msg *, const struct store_ladder *);
int	fx_ladder_close(struct ref_msg *, int64_t id, int64_t now);
int	fx_rungs_set(struct ref_msg *, int64_t ladder,
	    const struct store_rung *, int n);
int	fx_challenge_add(struct ref_msg *, const struct store_challenge *);
int	fx_challenge_update(struct ref_msg *, const struct store_challenge *);
int	fx_deck_put(struct ref_msg *, const char *name, int cycle,
	    const char *cards);
int	fx_deck_deal_add(struct ref_msg *, int64_t game, const char *deck,
	    int cycle, int turn, const char *cards);
int	fx_seek_add(struct ref_msg *, const struct store_seek *);
int	fx_seek_update(struct ref_msg *, const struct store_seek *);
int	fx_conditions_set(struct ref_msg *, int64_t game, int seat,
	    char *const *lines, int n);
int	fx_conditions_clear(struct ref_msg *, int64_t game, int seat);
int	fx_takeback_set(struct ref_msg *, int64_t game, unsigned seats,
	    int at_ply, int64_t now);

#endif
