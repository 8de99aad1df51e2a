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
 * writes, but for the outbox's (refcore.c queues the mails) and the
 * transaction's (referee.c); tests/callgraph.sh holds that.  Reads stay
 * direct, and so does play.c's engine work: the referee plays in memory
 * (play_build, play_line_moves, play_takeback_to) and records the rows.
 *
 * When effects are applied.  The dispatcher (refcmd.c) applies them when
 * a run step, a prior step or a timer's step returns REF_OK, inside the
 * command's savepoint; on REF_FAIL, REF_ASIDE or REF_TEMP it discards
 * them, so a failed command writes nothing (what an earlier point below
 * applied is undone with the savepoint, as every write was before).
 * Inside a command they are applied at three named points only, where
 * what comes next reads what was decided:
 *
 *   a view: a mail is built (refview.c's entry points, ref_send,
 *	ref_send_addr, ref_player_name, ref_player_public; refladder.c's
 *	standings and rating texts).  The views read the game's move log and events, the seats'
 *	players, the observers, the ratings and the rungs from the store,
 *	and a mail tells what was decided, so the effects recorded so far
 *	are applied first.  A run step is thus: read, decide (record),
 *	tell (the first view applies);
 *   a move is played (ref_play, refcore.c: the player's, a conditional
 *	reply, a robot's).  What follows a move (the clock, the conditional
 *	queue, the robots, the end of the game with its ratings and ladder)
 *	is decided from the position after it, and some of those steps
 *	count the plies in the stored log, so each move is applied when it
 *	has been decided.  The game row the caller holds (g->row) stays the
 *	one truth that the later steps change and record again;
 *   a game is made (ref_game_make, refcore.c): the clocks that start it
 *	read its seats' players, made for invited addresses a moment
 *	before, and the robots play in it.
 *
 * Everything else that reads back what it decided carries it in memory
 * instead: the game row, a report written (its row as the admins' mail
 * shows it), a report resolved, the ladder's rungs, a seek, the sender's
 * player row (x->me).  Writes that used to answer a question by their
 * return value ask it first by a read: whether the sender thanked that
 * player (store_thanks_get), observes the game (store_observers), a
 * report is open (store_report_load), a cookie is good
 * (store_confirm_get).
 *
 * The message level (referee.c) records and applies its own writes at
 * once: the sender's player row, the reply counter, a fired timer's
 * deletion (outside the timer's savepoint, also when it is dropped),
 * and the ladders of the configuration (refladder_configured, one
 * ladder at a time, so that a name given twice is made once).
 *
 * Ids.  Rows whose id the decision needs (a new game's #ID goes into the
 * mail's subject and into the events and timers recorded after it; the
 * seats name players made for invited addresses; a seek's number, a
 * report's, a challenge's, a ladder's) get it reserved in the decide
 * step: refeff_reserve reads the id the store would give the row now
 * (store_id_next: max + 1, as SQLite numbers an INTEGER PRIMARY KEY
 * without AUTOINCREMENT; games and seeks share one series) and counts
 * the ids this list already reserved in that series, so the ids are
 * exactly those of writing at once, and the golden mails show the same
 * numbers.  refeff_apply checks that each row got its reserved id and
 * fails (ref_broken) when not.  A player made in this list is found
 * again by address (refeff_player_pending) until it is applied.  Timers
 * get no reserved id: no decision needs one.  fx_player_ban may make a
 * player row too (an address never seen); no id is reserved for it, as
 * nothing in that command needs one.

 * Mails stay as they were: held in ref_msg.outs and queued at the end of
 * the message (referee_queue writes the outbox), not effects.
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
