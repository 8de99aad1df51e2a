/*
 * store: everything ludus keeps, in one SQLite file or a PostgreSQL
 * database (db.h: the drivers, chosen by the database's name).
 *
 * The rest of the code never writes SQL: it calls these functions.  The
 * interface is kept narrow so another backend is a new file, not a rewrite.
 * Functions return 0 on success and -1 on error, with the reason in
 * store_errmsg(); lookups return 1 when the row does not exist.
 *
 * Writes that belong together run between store_begin() (SQLite: BEGIN
 * IMMEDIATE, the write lock taken up front, so a busy database waits
 * instead of failing half-way; PostgreSQL: SERIALIZABLE) and
 * store_commit(); a failure anywhere is undone by store_rollback().
 */
#ifndef LUDUS_STORE_H
#define LUDUS_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rng.h"

#define STORE_SCHEMA_VERSION	19
#define STORE_MAX_SEATS		4

struct store;

/*
 * A database's name says its engine: a path or sqlite:///PATH is a
 * SQLite file; postgresql://..., postgres://... or a libpq key=value
 * string (host=... dbname=...) a PostgreSQL database (store_is_server
 * 1), which needs a build with libpq.  Inline, as the configuration's
 * check of the name must not link the store.
 */
static inline int
store_is_server(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz_");

	if (strncmp(name, "postgresql://", 13) == 0 ||
	    strncmp(name, "postgres://", 11) == 0)
		return 1;
	/* libpq's key=value form: a keyword, then = (a path begins with /
	 * or ., or has no = after its first word). */
	return n > 0 && name[n + strspn(name + n, " ")] == '=';
}
int	 store_open(const char *path, struct store **, char *err, size_t);
/* A consistent copy of the database into path (a new 0600 file, renamed
 * over path when complete), safe while others write.  0, or -1 with err. */
int	 store_backup(struct store *, const char *path, char *err,
	    size_t errlen);
/* 1 when path is the database at dbpath or one of the files kept beside
 * it (its -wal, -shm, -journal, the daemon's lock). */
int	 store_own_file(const char *dbpath, const char *path);
void	 store_close(struct store *);

/*
 * One daemon per SQLite database: two would each send every answer.  The
 * lock is PATH.lock, held by *fd (0), or another process's (1: *holder
 * its pid, err says so); -1 with err.  It is the SQLite backend's: a
 * backend whose database serves several workers at once gives 0 with *fd
 * -1 and no lock.  Not inherited across fork: take it in the process
 * that keeps it.  store_lock_holder: the pid holding it, 0 when none
 * (nothing taken).  store_unlock releases it (fd -1: nothing).
 */
int	 store_lock(const char *path, int *fd, long *holder, char *err,
	    size_t errlen);
long	 store_lock_holder(const char *path);
void	 store_unlock(int fd);
/* The database at path as ludusd -n checks it: it exists, may be read
 * and written, has a schema version this ludus knows (*version) and
 * passes quick_check; a PostgreSQL one answers and has a schema version
 * this ludus knows (0: none yet).  0, or -1 with err. */
int	 store_check(const char *path, int *version, char *err,
	    size_t errlen);
/* Put the backup at from in place of the database at path, which no
 * process may have open (the caller holds store_lock): a copy of from is
 * checked beside path (integrity_check, a schema version this ludus
 * knows: *version), the database and its WAL are renamed to
 * PATH.ASIDE and PATH.ASIDE-wal, its -shm removed, and the copy renamed
 * to path.  Run as root, the new file takes the old one's owner.  0, or
 * -1 with err. */
int	 store_restore(const char *path, const char *from, const char *aside,
	    int *version, char *err, size_t errlen);
/* Don't free; valid until the next call on the store. */
const char *store_errmsg(const struct store *);
/* 1 when the last failure was a conflict with another writer (a
 * serialization failure or deadlock on PostgreSQL, a busy SQLite): the
 * caller tries the whole transaction again later, as after any failure.
 * store_rollback counts each (counter store.retries). */
int	 store_conflict(const struct store *);
/* The password the next store_open gives a database server (a copy;
 * NULL: none).  Never logged. */
void	 store_set_password(const char *);
int	 store_schema_version(struct store *);
/* Open without migrating past `version` (tests of the migrations). */
int	 store_open_at(const char *path, int version, struct store **,
	    char *err, size_t);

int	 store_begin(struct store *);
int	 store_commit(struct store *);
/* Make every commit so far survive a power cut (one sync of the WAL):
 * before a message is let go from where it came.  -1 with the error. */
int	 store_sync(struct store *);
void	 store_rollback(struct store *);
/* A savepoint inside a transaction: one command of a message either
 * completes or is undone alone (release keeps, undo drops its writes). */
int	 store_savepoint(struct store *);
int	 store_release(struct store *);
int	 store_undo(struct store *);

/* Players, keyed by canonical address. */
struct store_player {
	int64_t	 id;
	char	*address;	/* owned */
	char	*name;		/* owned, may be NULL */
	char	*language;	/* owned */
	char	*notify;	/* owned: turn, all or off */
	int	 banned;
	int64_t	 vacation_start;	/* 0 when none was taken */
	int64_t	 vacation_until;	/* 0 when not on vacation */
	int64_t	 vacation_used;		/* seconds taken in vacation_year */
	int	 vacation_year;		/* the UTC year of vacation_used */
	char	*timezone;	/* owned: an IANA zone name, NULL for UTC */
	int	 public_address; /* the public site may show the address */
};
/* The player's id, creating the row when create is set (1 if absent and
 * not created). */
int	 store_player_id(struct store *, const char *address, int create,
	    int64_t now, int64_t *id);
int	 store_player_load(struct store *, int64_t id, struct store_player *);
/* The same by canonical address (1 when unknown). */
int	 store_player_find(struct store *, const char *address,
	    struct store_player *);
/* Write name, language, notify, timezone, public_address and the
 * vacation fields. */
int	 store_player_update(struct store *, const struct store_player *);
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

	/* Set by the referee (all 0/NULL for games made by `ludus new`). */
	char	*clock;		/* owned: time control as written ("24h",
				 * "7d+1d"); NULL: the configured default */
	int	 rated;		/* 1 when the result counts for ratings */
	int64_t	 inviter;	/* player id of who proposed it, 0 if none */
	int64_t	 expires;	/* when the invitation lapses; 0 none */
	int64_t	 deadline;	/* when the move waited for is due; 0 none */
	unsigned draw_offer;	/* bit per seat offering a draw */
	char	*ended;		/* owned: how it ended other than by the
				 * rules: resigned, agreed, timeout,
				 * adjudicated, aborted, declined, expired;
				 * NULL otherwise */
	int64_t	 turn_since;	/* when the seats to move began to wait */
	unsigned reminded;	/* bit per reminder sent for this turn */
	int64_t	 reserve[STORE_MAX_SEATS];	/* Fischer: seconds left
						 * to each seat */
};
/* Sets id, unless it is set already (a seek's game keeps the seek's
 * number); games and seeks are numbered in one series. */
int	 store_game_create(struct store *, struct store_game *);
int	 store_game_load(struct store *, int64_t id, struct store_game *);
/* Write state, status, result, nmoves, updated, expires, deadline,
 * draw_offer, ended, turn_since, reminded and the seats' accepted and
 * reserve. */
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

/* Non-move events of a game, for its history: admin actions, resignations,
 * draw offers and agreements.  after_ply is the number of moves played
 * when it happened; player 0 when no player did it. */
struct store_event {
	int	 after_ply;
	int64_t	 player;
	char	*kind;		/* owned: "resign", "abort", ... */
	char	*text;		/* owned, may be NULL */
	int64_t	 created;
};
int	 store_event_add(struct store *, int64_t game, int after_ply,
	    int64_t player, const char *kind, const char *text, int64_t now);
/* In the order they were added. */
int	 store_events(struct store *, int64_t game, struct store_event **,
	    int *n);
void	 store_events_free(struct store_event *, int);

/* Observers of a game: on = 1 adds, 0 removes (1 when nothing changed).
 * An unknown game or player is an error (-1). */
int	 store_observer_set(struct store *, int64_t game, int64_t player,
	    int on);
/* Player ids, in the order they started observing. */
int	 store_observers(struct store *, int64_t game, int64_t **players,
	    int *n);

/* Thanks after a game: 0 when recorded, 1 when this player already thanked
 * that one for this game.  A player's authority is the number of thanks
 * received.  Who may thank whom, and when, is the caller's to check. */
int	 store_thanks_add(struct store *, int64_t game, int64_t from,
	    int64_t to, int64_t now);
int	 store_player_authority(struct store *, int64_t player, int *n);

/* Complaints about a game's conduct. */
struct store_report {
	int64_t	 id;
	int64_t	 game;
	int64_t	 reporter;	/* player id */
	char	*text;		/* owned */
	int64_t	 created;
	int64_t	 resolved;	/* 0 while open */
	char	*resolution;	/* owned, NULL while open */
};
int	 store_report_add(struct store *, int64_t game, int64_t reporter,
	    const char *text, int64_t now, int64_t *id);
int	 store_report_load(struct store *, int64_t id, struct store_report *);
/* Open reports, oldest first. */
int	 store_reports_open(struct store *, struct store_report **, int *n);
/* Close an open report: 1 when there is no open report with that id. */
int	 store_report_resolve(struct store *, int64_t id, const char *text,
	    int64_t now);
void	 store_report_free(struct store_report *);
void	 store_reports_free(struct store_report *, int);

/* Confirmation round trips: a one-time cookie stands for a command a
 * player sent and must confirm.  take() returns the command (owned) and
 * marks the cookie used; 1 when the cookie is unknown, used, expired or
 * belongs to another player.  A cookie is good while now < expires;
 * adding drops the cookies expired at now, and adding a cookie still kept
 * is an error. */
int	 store_confirm_add(struct store *, const char *cookie, int64_t player,
	    const char *command, int64_t now, int64_t expires);
/* How many of the player's confirmations wait, neither taken nor
 * lapsed, into *n. */
int	 store_confirm_waiting(struct store *, int64_t player, int64_t now,
	    int *n);
int	 store_confirm_take(struct store *, const char *cookie, int64_t player,
	    int64_t now, char **command);

/* Rate counters: one row per action of a kind by a player (say, report). */
int	 store_action_add(struct store *, int64_t player, const char *kind,
	    int64_t now);
int	 store_action_count(struct store *, int64_t player, const char *kind,
	    int64_t since, int *n);

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

/* Replies sent to a sender since a time (the reply rate limits; sender
 * is the key the referee counts under), and the time of the oldest of
 * them (0 when there is none). */
int	 store_reply_count(struct store *, const char *sender, int64_t since,
	    int *n);
int	 store_reply_oldest(struct store *, const char *sender, int64_t since,
	    int64_t *at);
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
	int64_t	 created;
	char	*last_error;	/* owned, NULL when none */
	char	*failed;	/* owned: why it was given up, NULL when not */
};
int	 store_outbox_add(struct store *, const struct store_mail *,
	    int64_t now);
/* The same unless a row with its Message-ID exists (then 1). */
int	 store_outbox_add_once(struct store *, const struct store_mail *,
	    int64_t now);
/* Up to max unsent rows due at now, oldest first. */
int	 store_outbox_due(struct store *, int64_t now, int max,
	    struct store_mail **, int *n);
int	 store_outbox_sent(struct store *, int64_t id, int64_t now);
int	 store_outbox_retry(struct store *, int64_t id, int64_t next_try,
	    const char *why);
int	 store_outbox_failed(struct store *, int64_t id, const char *why);

/*
 * Counters that outlive a process (`ludus stats`, ludusd's metrics): each
 * added to in the caller's transaction, so a message rolled back is not
 * counted.  Names: "messages.OUTCOME" (store_outcomes), "send.failures"
 * (every failed sending attempt; the two calls above count it),
 * "imap.contact" (set: the time of the last IMAP answer), "store.retries"
 * (store_rollback counts each transaction undone for a conflict).
 */
int	 store_counter_add(struct store *, const char *name, int64_t n);
int	 store_counter_set(struct store *, const char *name, int64_t v);
#define STORE_NOUTCOMES	7
extern const char *const store_outcomes[STORE_NOUTCOMES];
struct store_stats {
	int64_t	 messages[STORE_NOUTCOMES];	/* by store_outcomes */
	int64_t	 queue;		/* mails waiting to be sent */
	int64_t	 queue_oldest;	/* when the oldest was queued, 0: none */
	int64_t	 given_up;	/* mails given up, still in the outbox */
	int64_t	 send_failures;
	int64_t	 robot_backlog;	/* robot moves waited for */
	int64_t	 games_active;
	int64_t	 imap_contact;	/* 0: never */
	int64_t	 inbound;	/* LMTP's mail waiting for the referee */
	int64_t	 inbound_dead;	/* set aside after repeated failures */
	int64_t	 retries;	/* transactions undone for a conflict */
};
int	 store_stats(struct store *, struct store_stats *);
/* Up to max rows not sent (waiting, then given up), oldest first, for the
 * operator's view. */
int	 store_outbox_unsent(struct store *, int max, struct store_mail **,
	    int *n);
/* Make a row not sent (id 0: every waiting row) due at now; a given-up
 * row waits again with a new lifetime from now.  *changed: how many. */
int	 store_outbox_requeue(struct store *, int64_t id, int64_t now,
	    int *changed);
/* Delete a row not sent (id 0: every one, given up ones included);
 * *changed: how many. */
int	 store_outbox_delete(struct store *, int64_t id, int *changed);
/* A waiting row held is never due (its next_try is STORE_OUTBOX_HELD)
 * until released, due at now; retrying every row leaves it held.
 * *changed is 0 when no row was held or released. */
#define STORE_OUTBOX_HELD	INT64_MAX
int	 store_outbox_hold(struct store *, int64_t id, int hold, int64_t now,
	    int *changed);
/* When the earliest waiting row not held is due; 1 when none waits. */
int	 store_outbox_next(struct store *, int64_t *when);
/* Counts of rows waiting, sent and failed. */
/* A robot move being waited for: a message ludusd parked while a worker
 * thinks, or a delivery whose robot thinks (pid: the process that waits,
 * since: when the message came, referee time). */
struct store_robot_wait {
	int64_t	 id;
	int64_t	 game;
	int	 pid;
	int64_t	 since;
	int	 thinking;	/* a worker thinks it (else it waits for one) */
};
int	 store_robot_wait_add(struct store *, int64_t game, int pid,
	    int64_t since, int thinking, int64_t *id);
int	 store_robot_wait_set(struct store *, int64_t id, int thinking);
int	 store_robot_wait_del(struct store *, int64_t id);
/* Oldest first; free *out. */
int	 store_robot_waits(struct store *, struct store_robot_wait **out,
	    int *n);
/*
 * Mail handed in by LMTP, waiting for the referee (ludusd's inbound
 * queue).  A row is added (in the caller's transaction) once per dedupe
 * key: *dup is 1 when the key was there already and nothing was added.
 * The referee takes the waiting rows in arrival order (the id), the
 * messages of one route in order; a row whose message failed for a
 * while is 'dead' and stays for the operator.
 */
struct store_inbound {
	int64_t	 id;
	char	*key;		/* owned */
	char	*route;		/* owned: "game #ID" or the sender */
	int64_t	 arrived;
	int	 attempts;	/* temporary failures so far */
	int64_t	 next_try;	/* not tried again before this */
	int	 dead;		/* given up (dead-lettered) */
	char	*cause;		/* owned, NULL: the last failure's outcome */
	char	*raw;		/* owned, NUL-terminated; NULL in listings */
	size_t	 len;		/* of the message */
};
int	 store_inbound_add(struct store *, const char *key, const char *route,
	    int64_t now, const char *raw, size_t len, int *dup);
/* The first waiting row after id `after` (0: the oldest); 1 when none. */
int	 store_inbound_next(struct store *, int64_t after,
	    struct store_inbound *);
/* Every row, waiting and dead, oldest first, without the messages; free
 * with store_inbound_free(*out, *n). */
int	 store_inbound_list(struct store *, struct store_inbound **out, int *n);
/* The referee took it: the row goes. */
int	 store_inbound_done(struct store *, int64_t id);
/* It failed once more: not again before next_try; dead: given up. */
int	 store_inbound_retry(struct store *, int64_t id, int64_t next_try,
	    int dead, const char *cause);
/* A dead row waits again with its attempts from zero; *changed: 0 when
 * no dead row has that id. */
int	 store_inbound_requeue(struct store *, int64_t id, int *changed);
int	 store_inbound_counts(struct store *, int64_t *waiting, int64_t *dead);
/* Frees one row's strings (the row stays, zeroed). */
void	 store_inbound_clear(struct store_inbound *);
/* Frees n rows and the array. */
void	 store_inbound_free(struct store_inbound *, int n);
int	 store_outbox_counts(struct store *, int *waiting, int *sent,
	    int *failed);
void	 store_mails_free(struct store_mail *, int);
/* Retention: delete at most max rows in all of processed-message keys
 * received before the first time, outbox rows sent or given up that were
 * queued before the second, and error-reply counts before the third;
 * *deleted says how many went (max: call again). */
int	 store_prune(struct store *, int64_t processed_before,
	    int64_t outbox_before, int64_t replies_before, int max,
	    int *deleted);
/* store_prune until nothing is left to prune, 500 rows a transaction;
 * *total: rows deleted. */
int	 store_retention(struct store *, int64_t processed_before,
	    int64_t outbox_before, int64_t replies_before, int *total);

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
/* Delete the timers of a kind for a game (and player, when not 0); game 0
 * names the timers of that kind that have no game. */
int	 store_timer_cancel(struct store *, const char *kind, int64_t game,
	    int64_t player);
void	 store_timers_free(struct store_timer *, int);

/* Every outbox row with an id above after, sent or not, in id order, up to
 * max (for reading back what the referee wrote, as `ludus outbox --all`
 * does). */
int	 store_outbox_all(struct store *, int64_t after, int max,
	    struct store_mail **, int *n);

/* Ratings: one row per (player, game kind), as rating.h's struct rating
 * (the store does not compute: the referee rates and writes back). */
struct store_rating {
	double	 r, rd, sigma;
	int64_t	 last;		/* the last rated game; 0 never */
	int	 games;		/* rated games played */
};
/* 1 when the player has no rating in that kind. */
int	 store_rating_get(struct store *, int64_t player, const char *kind,
	    struct store_rating *);
int	 store_rating_put(struct store *, int64_t player, const char *kind,
	    const struct store_rating *);

/* What a rated game did to each seat's rating; *n is the number of seats
 * recorded (0: the game was not rated). */
int	 store_rating_change_add(struct store *, int64_t game, int seat,
	    int64_t player, double r_old, double r_new);
int	 store_rating_changes(struct store *, int64_t game,
	    double r_old[STORE_MAX_SEATS], double r_new[STORE_MAX_SEATS],
	    int *n);

/* Ladders: players (or fixed pairs, pairs = 1) ranked on rungs; durations
 * in seconds. */
struct store_ladder {
	int64_t	 id;
	char	*name;		/* owned, unique */
	char	*kind;		/* owned: the game */
	char	*options;	/* owned: OPT=VAL words, space-separated */
	char	*clock;		/* owned, NULL: the configured default */
	char	*list;		/* owned: the club list address, or NULL */
	int	 pairs;		/* 1: each rung is a fixed partnership */
	int	 reach;		/* how many places up one may challenge */
	int64_t	 accept;	/* time to accept a challenge */
	int	 open_cap;	/* open challenges per rung */
	int64_t	 cooldown;	/* no rematch of the same two rungs within */
	int64_t	 idle;		/* drop one place after this long idle; 0
				 * never */
	int64_t	 created;
	int64_t	 closed;	/* 0 while open */
};
/* Sets id; a name already taken is an error. */
int	 store_ladder_add(struct store *, struct store_ladder *);
/* 1 when there is none. */
int	 store_ladder_find(struct store *, const char *name,
	    struct store_ladder *);
int	 store_ladder_load(struct store *, int64_t id, struct store_ladder *);
int	 store_ladder_close(struct store *, int64_t id, int64_t now);
/* Ids of the open ladders, oldest first. */
int	 store_ladder_ids(struct store *, int64_t **ids, int *n);
void	 store_ladder_free(struct store_ladder *);

/* One rung: a player, and the partner of a pair (0 when single). */
struct store_rung {
	int	 position;	/* 1 = top */
	int64_t	 player;
	int64_t	 partner;
	int64_t	 active;	/* when it joined or last played */
};
/* The rungs top first (owned array). */
int	 store_rungs(struct store *, int64_t ladder, struct store_rung **,
	    int *n);
/* Replace the ladder's rungs: rung i gets position i + 1. */
int	 store_rungs_set(struct store *, int64_t ladder,
	    const struct store_rung *, int n);

/* Challenges between two rungs, each named by its first player. */
struct store_challenge {
	int64_t	 id;
	int64_t	 ladder;
	int64_t	 challenger, challenged;
	int64_t	 game;		/* 0 until there is one */
	char	*status;	/* owned: open, won, lost, drawn, forfeit,
				 * void */
	int64_t	 created;
	int64_t	 decided;	/* 0 while open */
};
/* Sets id. */
int	 store_challenge_add(struct store *, struct store_challenge *);
/* Write game, status and decided. */
int	 store_challenge_update(struct store *, const struct store_challenge *);
/* The challenge a game was played for (1 when none). */
int	 store_challenge_by_game(struct store *, int64_t game,
	    struct store_challenge *);
/* A ladder's challenges with player as challenger or challenged (0: any),
 * open ones (open set) or those decided since `since`, oldest first. */
int	 store_challenges(struct store *, int64_t ladder, int64_t player,
	    int open, int64_t since, struct store_challenge **, int *n);
void	 store_challenge_free(struct store_challenge *);
void	 store_challenges_free(struct store_challenge *, int);

/* The public site (site.h). */

/* Ids of the games that began, the last changed first: those going on
 * (finished 0) or those over (finished 1), at most max. */
int	 store_games_public(struct store *, int finished, int max,
	    int64_t **ids, int *n);
/* A player's rated games of a kind, oldest first: when each ended and
 * the rating before and after. */
struct store_rating_point {
	int64_t	 game;
	int64_t	 when;
	double	 r_old, r_new;
};
int	 store_rating_history(struct store *, int64_t player, const char *kind,
	    struct store_rating_point **, int *n);
/* What changed since the site's pages were written, oldest first, at most
 * max, by kind: 'g' a game, 'G' a game's status, 'n' a player's name or
 * public_address, 'p' the thanks a player received, 'l' a ladder, its
 * rungs or challenges, 's' a seek (the index only).  Every change,
 * from any process, renumbers its row; done deletes the rows up to a
 * seq read, so a row changed again meanwhile is kept. */
struct store_site_change {
	int64_t	 seq;
	char	 kind;
	int64_t	 id;
};
int	 store_site_changes(struct store *, int max,
	    struct store_site_change **, int *n);
int	 store_site_changes_done(struct store *, int64_t upto);
/* How many timers of a kind are set. */
int	 store_timer_count(struct store *, const char *kind, int *n);

/* Card decks the server keeps across games (Almakleh's): the cards left,
 * their up sides' names in draw order, space-separated (owned), and how
 * often the deck was shuffled.  1 when the deck has no row yet. */
int	 store_deck_get(struct store *, const char *name, int *cycle,
	    char **cards);
int	 store_deck_put(struct store *, const char *name, int cycle,
	    const char *cards);
/* The cards a game was dealt from a deck (its deal= value), the cycle
 * its first card came from, and the place in the deal where the deck
 * ran out and the next cycle began (0: none did); 1 when the game was
 * not dealt from one. */
int	 store_deck_deal_add(struct store *, int64_t game, const char *deck,
	    int cycle, int turn, const char *cards);
int	 store_deck_deal(struct store *, int64_t game, int *cycle, int *turn,
	    char **cards);

/* Open seeks: a game offered to whoever takes its free seats.  Seat 0 is
 * the seeker's; the others fill in the order they are taken (0: free). */
struct store_seek {
	int64_t	 id;		/* from the games' series of numbers */
	char	*kind;		/* owned: the game */
	char	*words;		/* owned: the OPT=VAL words as given */
	char	*clock;		/* owned, NULL: the configured default */
	int	 rated;
	int	 nseats;
	int64_t	 player[STORE_MAX_SEATS];
	int64_t	 ladder;	/* only its members may take a seat; 0 */
	int	 rating_min;	/* rating range of who may take a seat; 0 */
	int	 rating_max;	/* for no bound */
	char	*status;	/* owned: open, filled, withdrawn, expired */
	int64_t	 created;
	int64_t	 expires;
	int64_t	 game;		/* the game once filled, else 0 */
};
/* Sets id. */
int	 store_seek_add(struct store *, struct store_seek *);
/* 1 when there is none. */
int	 store_seek_load(struct store *, int64_t id, struct store_seek *);
/* Write the seats, status and game. */
int	 store_seek_update(struct store *, const struct store_seek *);
/* Ids of the open seeks, oldest first. */
int	 store_seeks_open(struct store *, int64_t **ids, int *n);
void	 store_seek_free(struct store_seek *);
/* Conditional moves: each seat's queued lines, in order (owned vector,
 * store_strings_free); set replaces them all; clear drops a seat's (seat
 * -1: every seat's).  What a line holds is the referee's business. */
int	 store_conditions(struct store *, int64_t game, int seat, char ***,
	    int *n);
int	 store_conditions_set(struct store *, int64_t game, int seat,
	    char *const *lines, int n);
int	 store_conditions_clear(struct store *, int64_t game, int seat);

/* A takeback asked for: a bit per seat that asked, and the number of
 * moves logged when it was (1 when none stands).  seats 0 drops it. */
int	 store_takeback_get(struct store *, int64_t game, unsigned *seats,
	    int *at_ply);
int	 store_takeback_set(struct store *, int64_t game, unsigned seats,
	    int at_ply, int64_t now);
/* Keep the first `keep` moves of the log (a takeback); events after the
 * moves dropped become events after move `keep`.  The caller writes the
 * game's nmoves and state. */
int	 store_moves_truncate(struct store *, int64_t game, int keep);

/*
 * Test builds only (--enable-test-clock).  fault: count every statement
 * step and exec from now on and make the nth fail (SQLITE_FULL when full
 * is set, else SQLITE_IOERR); nth 0 only counts.  calls: how many were
 * counted.  readonly: the next store_open opens the file read-only.  dump:
 * every table's rows as text (owned).  restore: the contents of the
 * database at path copied over the store's, outside a transaction.
 */
void	 store_test_fault(long nth, int full);
long	 store_test_calls(void);
void	 store_test_readonly(int on);
char	*store_test_dump(struct store *);
int	 store_test_restore(struct store *, const char *path);

/*
 * Reads for a referee that decides before it writes (refeff.h).  The id
 * the next row of a series gets (games and seeks share one series), as
 * the insert would give it now; whether a player thanked another for a
 * game (0 yes, 1 no); the command of a confirmation cookie still good for
 * that player, as store_confirm_take would return it, without taking it.
 */
enum store_series {
	STORE_SERIES_GAME,
	STORE_SERIES_PLAYER,
	STORE_SERIES_REPORT,
	STORE_SERIES_LADDER,
	STORE_SERIES_CHALLENGE,
	STORE_NSERIES
};
int	 store_id_next(struct store *, enum store_series, int64_t *id);
int	 store_thanks_get(struct store *, int64_t game, int64_t from,
	    int64_t to);
int	 store_confirm_get(struct store *, const char *cookie, int64_t player,
	    int64_t now, char **command);

#endif
