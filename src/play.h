/*
 * play: games as the store keeps them, driven through their engines.
 *
 * The glue the referee and the `ludus` tool share: create a game from a
 * definition, options and players; load it (engine state from the stored
 * snapshot); play a line for a seat, appending to the move log and
 * updating the snapshot; re-derive a game from (kind, options, seed, log).
 * Nothing here touches mail.  Writers hold a store transaction around
 * play_create and play_line.
 */
#ifndef LUDUS_PLAY_H
#define LUDUS_PLAY_H

#include <stdint.h>

#include "gamedef.h"
#include "store.h"

struct play_game {
	struct store_game row;		/* owned */
	const struct gamedef *def;	/* foreign */
	struct game_opts opts;
	void	*st;			/* owned: engine state */
	char	*address[STORE_MAX_SEATS]; /* owned: each seat's player */
};

/*
 * Create a game.  words are the player's OPT=VAL words: the game's variant
 * options plus `first=given|random|ADDRESS` (who takes seat 0, which moves
 * first where the rules have a first player).  Addresses in the order given
 * fill the seats.  status is "active" or "invited".
 */
int	 play_create(struct store *, const struct gamedef *,
	    char *const *words, int nwords, char *const *addresses,
	    int naddresses, const unsigned char seed[RNG_SEED_LEN],
	    const char *status, int64_t now, struct play_game *,
	    char *err, size_t errlen);
/* The same with the referee's settings of the new row (NULL: none). */
struct play_settings {
	const char *clock;	/* NULL: the configured default */
	int	 rated;
	int64_t	 inviter;
	int64_t	 expires;
	int64_t	 deadline;
	int64_t	 id;		/* the game's number; 0: the next one */
};
int	 play_create_with(struct store *, const struct gamedef *,
	    const struct play_settings *, char *const *words, int nwords,
	    char *const *addresses, int naddresses,
	    const unsigned char seed[RNG_SEED_LEN], const char *status,
	    int64_t now, struct play_game *, char *err, size_t errlen);
/* The same without the store: the row as it would be created, seats'
 * player ids 0 and g->address[] the canonical addresses, for a caller
 * that writes the row itself (the referee's effects, refeff.h). */
int	 play_build(const struct gamedef *, const struct play_settings *,
	    char *const *words, int nwords, char *const *addresses,
	    int naddresses, const unsigned char seed[RNG_SEED_LEN],
	    const char *status, int64_t now, struct play_game *, char *err,
	    size_t errlen);
/* 1 when there is no such game, PLAY_BROKEN when the stored game cannot
 * be read (a kind this ludus does not know, a state its engine refuses, a
 * seat without a player: err says which), -1 when the store failed. */
#define PLAY_BROKEN	2
/* play_create_with and play_line: the store failed (err says how); -1 is
 * the player's mistake (err says which). */
#define PLAY_TEMP	(-2)
int	 play_load(struct store *, const struct gamedef *defs, int ndefs,
	    int64_t id, struct play_game *, char *err, size_t errlen);
void	 play_free(struct play_game *);

/* The seat of an address (canonicalised here), or -1. */
int	 play_seat(const struct play_game *, const char *address);
/* The seat's side: partners share one (the lower seat number). */
int	 play_side(const struct play_game *, int seat);
/* The seats of seat's side, a bit each. */
unsigned play_side_mask(const struct play_game *, int seat);
/* seat moved: a draw the other side offered is declined by it (the
 * offers of seat's own side stand). */
void	 play_draw_declined(struct play_game *, int seat);

/* Play a line of moves for a seat (all or nothing).  Returns the number
 * of moves played, or -1 with err saying why (nothing changed). */
int	 play_line(struct store *, struct play_game *, int seat,
	    const char *line, int64_t now, char *err, size_t errlen);
/* The same in memory only: the moves played get their logged notation
 * in texts[] (at most max, PLAY_LINE_MAX will do); g's state and row
 * (nmoves, updated, status and result) change, the store does not. */
#define PLAY_LINE_MAX	64
int	 play_line_moves(struct play_game *, int seat, const char *line,
	    int64_t now, char (*texts)[GAME_MOVE_TEXT], int max, char *err,
	    size_t errlen);

/* Re-derive the state from the seed and the move log; its serialised form
 * is returned (owned).  -1 with err when a logged move does not replay. */
int	 play_replay(struct store *, const struct play_game *, char **state,
	    char *err, size_t errlen);

/* How a logged move of seat reads to viewer (a seat or GAME_PUBLIC), by
 * the engine's shown_move: GAME_SHOWN_PLY, GAME_SHOWN_EVENT (logged but
 * no ply: an Aluette signal) or GAME_SHOWN_NONE (the viewer may not learn
 * of it), with the text the viewer may read in out. */
int	 play_shown(const struct play_game *, int seat, const char *notation,
	    int viewer, char *out, size_t len);
/* Is a logged move a ply?  Events (an Aluette signal) are logged like
 * moves but are none: they count nowhere, so no count that a seat reads
 * tells it of a signal it may not see. */
int	 play_is_ply(const struct play_game *, int seat, const char *notation);
/* The plies among the n moves of a log; play_plies_stored reads the
 * game's log from the store (-1 when the store fails). */
int	 play_plies(const struct play_game *, const struct store_move *log,
	    int n);
int	 play_plies_stored(struct store *, const struct play_game *);
/* Go back to the position after the first `keep` logged moves: the log
 * is cut there and the state re-derived from the seed and what is left,
 * as play_replay does, so replay and verification stay exact.  The game
 * must still be active.  -1 with err (the caller rolls back). */
int	 play_takeback(struct store *, struct play_game *, int keep,
	    int64_t now, char *err, size_t errlen);
/* The same in memory only (the log is read, not cut; g's state and row
 * change): the caller cuts the log and writes the row. */
int	 play_takeback_to(struct store *, struct play_game *, int keep,
	    int64_t now, char *err, size_t errlen);

/* A rendering for a seat (or GAME_PUBLIC), with players' addresses as
 * names. */
void	 play_render(const struct play_game *, int viewer, struct buf *);

#endif
