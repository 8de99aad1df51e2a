/*
 * store: everything ludus keeps, in one SQLite file.
 *
 * The rest of the code never writes SQL: it calls these functions.  The
 * interface is kept narrow so another backend is a new file, not a rewrite.
 * Functions return 0 on success and -1 on error, with the reason in
 * store_errmsg(); lookups return 1 when the row does not exist.
 *
 * Writes that belong together run between store_begin() (BEGIN IMMEDIATE:
 * take the write lock up front, so a busy database waits instead of failing
 * half-way) and store_commit(); a failure anywhere is undone by
 * store_rollback().
 */
#ifndef LUDUS_STORE_H
#define LUDUS_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#define STORE_SCHEMA_VERSION	2
#define STORE_MAX_SEATS		4

struct store;

int	 store_open(const char *path, struct store **, char *err, size_t);
void	 store_close(struct store *);
/* Don't free; valid until the next call on the store. */
const char *store_errmsg(const struct store *);
int	 store_schema_version(struct store *);
/* Open without migrating past `version` (tests of the migrations). */
int	 store_open_at(const char *path, int version, struct store **,
	    char *err, size_t);

int	 store_begin(struct store *);
int	 store_commit(struct store *);
void	 store_rollback(struct store *);

/* Players, keyed by canonical address. */
struct store_player {
	int64_t	 id;
	char	*address;	/* owned */
	char	*name;		/* owned, may be NULL */
	char	*language;	/* owned */
	char	*notify;	/* owned */
	int	 banned;
};
/* The player's id, creating the row when create is set (1 if absent and
 * not created). */
int	 store_player_id(struct store *, const char *address, int create,
	    int64_t now, int64_t *id);
int	 store_player_load(struct store *, int64_t id, struct store_player *);
void	 store_player_free(struct store_player *);

/* Games and their seats. */
struct store_game {
	int64_t	 id;
	char	*kind;		/* owned */
	char	*options;	/* owned: canonical OPT=VAL text */
	unsigned char seed[RNG_SEED_LEN];
	char	*state;		/* owned: the engine's serialised snapshot */
	char	*status;	/* owned: invited, active, finished, aborted */
	char	*result;	/* owned, NULL while playing */
	int	 nmoves;	/* rows in the move log */
	int	 nseats;
	int64_t	 player[STORE_MAX_SEATS];
	int	 accepted[STORE_MAX_SEATS];
	int64_t	 created, updated;
};
int	 store_game_create(struct store *, struct store_game *);	/* sets id */
int	 store_game_load(struct store *, int64_t id, struct store_game *);
/* Write state, status, result, nmoves, updated and the seats' accepted. */
int	 store_game_update(struct store *, const struct store_game *);
void	 store_game_free(struct store_game *);
/* Ids of games, newest first; of one player's when player is not 0. */
int	 store_game_ids(struct store *, int64_t player, int64_t **ids, int *n);

/* The move log: one row per ply, in order. */
struct store_move {
	int	 ply;		/* 1-based */
	int	 seat;
	char	*notation;	/* owned */
	int64_t	 created;
};
int	 store_move_add(struct store *, int64_t game, int ply, int seat,
	    const char *notation, int64_t now);
int	 store_moves(struct store *, int64_t game, struct store_move **,
	    int *n);
void	 store_moves_free(struct store_move *, int);

/* Processed incoming messages: 0 when the key is new (and now recorded),
 * 1 when it was seen before. */
int	 store_message_seen(struct store *, const char *key, int64_t now,
	    const char *outcome);

/* What a processed message was: its sender, its command lines (one per
 * line) and what became of it. */
int	 store_message_note(struct store *, const char *key, const char *sender,
	    const char *commands, const char *outcome);
/* The note of a message (all owned, each may be NULL); 1 if unknown. */
int	 store_message_get(struct store *, const char *key, char **sender,
	    char **commands, char **outcome);

/* Banned addresses (owned vector, store_strings_free); ban or unban one
 * (the player is created when unknown). */
int	 store_banned(struct store *, char ***, int *);
int	 store_player_ban(struct store *, const char *address, int banned,
	    int64_t now);
void	 store_strings_free(char **, int);

/* A bounce reported for a player's address (1 when no player has it). */
int	 store_bounce_add(struct store *, const char *address, int64_t now,
	    const char *reason);
int	 store_player_bounces(struct store *, const char *address, int *);

/* Replies sent to a sender since a time (the error-reply rate limit). */
int	 store_reply_count(struct store *, const char *sender, int64_t since,
	    int *n);
int	 store_reply_add(struct store *, const char *sender, int64_t now);

/* The outbox.  A row is a whole RFC 5322 message with a stable Message-ID. */
struct store_mail {
	int64_t	 id;
	char	*message_id;	/* owned */
	char	*envelope_from;	/* owned */
	char	*recipients;	/* owned: comma-separated */
	char	*data;		/* owned: the message */
	int64_t	 game;		/* 0 when none */
	int	 attempts;
	int64_t	 next_try;
};
int	 store_outbox_add(struct store *, const struct store_mail *,
	    int64_t now);
/* Up to max unsent rows due at now, oldest first. */
int	 store_outbox_due(struct store *, int64_t now, int max,
	    struct store_mail **, int *n);
int	 store_outbox_sent(struct store *, int64_t id, int64_t now);
int	 store_outbox_retry(struct store *, int64_t id, int64_t next_try,
	    const char *why);
int	 store_outbox_failed(struct store *, int64_t id, const char *why);
/* When the earliest waiting row is due; 1 when none waits. */
int	 store_outbox_next(struct store *, int64_t *when);
/* Counts of rows waiting, sent and failed. */
int	 store_outbox_counts(struct store *, int *waiting, int *sent,
	    int *failed);
void	 store_mails_free(struct store_mail *, int);

/* Timers: the wheel lives in the database, ordered by due time. */
struct store_timer {
	int64_t	 id;
	int64_t	 due;
	char	*kind;		/* owned */
	int64_t	 game;		/* 0 when none */
	int64_t	 player;	/* 0 when none */
	char	*data;		/* owned, may be NULL */
};
int	 store_timer_add(struct store *, const struct store_timer *,
	    int64_t *id);
/* The earliest due time, or 1 when there is no timer. */
int	 store_timer_next(struct store *, int64_t *due);
int	 store_timer_due(struct store *, int64_t now, int max,
	    struct store_timer **, int *n);
int	 store_timer_delete(struct store *, int64_t id);
void	 store_timers_free(struct store_timer *, int);

#endif
