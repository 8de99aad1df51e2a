/*
 * referee: what the referee does with one message it may answer.
 *
 * Pure core: it reads a parsed message and the store, and writes its
 * answers into the outbox, inside the caller's transaction.  No network.
 */
#ifndef LUDUS_REFEREE_H
#define LUDUS_REFEREE_H

#include <stdint.h>

#include "conf.h"
#include "gamedef.h"
#include "mail.h"
#include "store.h"
#include "token.h"

struct command_aliases;
struct tmpl_cache;
struct referee_robot;

/* The robots' answers a message may use (see "Robots apart" below). */
struct referee_plans {
	struct referee_robot	**v;	/* owned */
	int			 n;
};

struct referee {
	struct store		*store;		/* foreign */
	const struct config	*cfg;		/* foreign */
	const struct gamedef	*defs;		/* foreign */
	int			 ndefs;
	struct token_secret	 secret;
	struct command_aliases	*aliases;	/* owned */
	struct tmpl_cache	*tmpl;		/* owned */

	/* Robots apart (set by the caller; 0: robots think inline). */
	int			 robots_apart;
	struct referee_plans	*plans;		/* foreign, may be NULL */
	struct referee_robot	*robot_want;	/* owned until taken */
	/* When not NULL: 1 when a message from this sender must wait
	 * (their earlier message waits for a robot), so one player's mail
	 * is taken in the order it came. */
	int			(*hold)(void *arg, const char *from);
	void			*hold_arg;
};

/*
 * Set up a referee over an open store, configuration and game
 * definitions: read the secret file, the keyword aliases
 * (GAMES_DIR/commands.yaml) and prepare the templates (templates_dir, or
 * $LUDUS_TEMPLATES_DIR when set).  -1 with err.
 */
int	referee_open(struct referee *, struct store *, const struct config *,
	    const struct gamedef *, int ndefs, const char *games_dir,
	    const char *secret_path, char *err, size_t errlen);
void	referee_close(struct referee *);

/* Fire the timers due at now (invitations that lapse, reports still
 * open), each in its own transaction.  Returns how many fired, -1 when
 * the store failed. */
int	referee_timers(struct referee *, int64_t now);

/*
 * Answer one message.  key is its dedupe key (outgoing Message-IDs derive
 * from it, so a message seen again after a crash yields the same ids);
 * parse_error is set when the message could not be read (the sender gets
 * that sentence, within the error-reply rate limit).  The outcome's text
 * says in a few words what was done.  -1 on a store error (a temporary
 * failure): the caller rolls back and the message is tried again later.
 * REFEREE_BROKEN when an invariant is broken (a stored game that cannot
 * be read): nothing is answered, the text says what is broken, and the
 * caller rolls back and quarantines the message.
 */
#define REFEREE_BROKEN	(-2)
/* What a message came to, for the log line and the counters of `ludus
 * stats`: the name of its kind (a literal) and the game it was about. */
struct referee_outcome {
	char		*text;		/* owned, NULL when nothing */
	const char	*kind;		/* "applied": every command that ran
					 * was applied; "failed": one was
					 * refused; "remarks": nothing read
					 * as a command; "unreadable" */
	int64_t		 game;		/* 0 when none */
};
int	referee_handle(struct referee *, const struct mail_msg *,
	    const char *key, const char *parse_error, int64_t now,
	    struct referee_outcome *);

/*
 * The admin tool's write path: one command line run for the player at
 * address as the referee runs a line of their mail (`ludus move`), inside
 * the caller's transaction, so clocks, robots (inline), ratings, ladders
 * and notifications follow as they do for mail.  Timers due at now fire
 * first.  The operator vouches for the player (no token needed).  The
 * mails are queued as for a message, the player's own included, unless
 * quiet (then none of the command's; everything else is the same).
 * Returns 0 done, 1 the command failed (err says why), -1 the store
 * failed, REFEREE_BROKEN an invariant is broken (err says which); *game
 * is the game concerned (0: none).
 */
int	referee_command(struct referee *, const char *address,
	    const char *line, const char *key, int64_t now, int quiet,
	    int64_t *game, char *err, size_t errlen);

/*
 * The admin tool's `ludus new`: args as after `admin new` in a mail
 * (GAME [OPT=VAL...] ADDRESS|robot[:LEVEL]...), the game made as an
 * admin's `new` and begun at once, needing no acceptance: its clock, its
 * robots' moves (inline) and the game-start mails (unless quiet) as when
 * the last seat accepts.  seed: the game's seed.  Returns as
 * referee_command, *game the game made.
 */
int	referee_new(struct referee *, const char *args,
	    const unsigned char seed[RNG_SEED_LEN], const char *key,
	    int64_t now, int quiet, int64_t *game, char *err, size_t errlen);

/*
 * Robots apart.  With robots_apart set, a message after which a robot is
 * to move is not committed while the robot thinks: where the robot would
 * think, the referee leaves a job in robot_want (the position as the robot
 * sees it) and gives up the message (intake rolls it back and says
 * INTAKE_ROBOT).  The caller takes the job, has it thought through by
 * referee_robot_think outside any transaction (in a worker process, say),
 * adds it to the message's plans and hands the message in again with
 * plans set: the robot's moves are then applied in the message's own
 * short transaction, each only when the game is still where the robot saw
 * it; when it has moved on, a new job is left and the robot thinks again.
 * Timers and the admin tool keep robots inline.
 */
/* The job left by the last message (owned by the caller now), or NULL. */
struct referee_robot *referee_robot_take(struct referee *);
/* Think: every robot move in a row from the job's position, within the
 * robots' budget.  Touches no store; safe in a forked child. */
void	referee_robot_think(struct referee_robot *);
/* The answers as bytes (for a worker process to pass back; the pointer is
 * into the job) and read back into a job of the same position: -1 when
 * they do not fit it. */
const void *referee_robot_answers(const struct referee_robot *, size_t *len);
int	referee_robot_set_answers(struct referee_robot *, const void *,
	    size_t len);
/* For logs: the game, the robot moves thought (-1 before), the sender of
 * the message that waits, and the budget of one move in milliseconds. */
int64_t	referee_robot_game(const struct referee_robot *);
int	referee_robot_moves(const struct referee_robot *);
/* The game's log length at the job's position. */
int	referee_robot_ply(const struct referee_robot *);
const char *referee_robot_from(const struct referee_robot *);
long	referee_robot_budget(const struct referee_robot *);
/* 1 when a robot of the job searches within the budget (level 3); the
 * others choose in microseconds, not worth a worker. */
int	referee_robot_searches(const struct referee_robot *);
void	referee_robot_free(struct referee_robot *);
void	referee_plans_add(struct referee_plans *, struct referee_robot *);
void	referee_plans_free(struct referee_plans *);

/* The Message-ID (without brackets, owned) of the n-th mail written for
 * the incoming message with this key. */
char	*referee_message_id(const struct config *, const char *key, int n);

/* Queue one mail to one address in the outbox (composed here). */
struct referee_mail {
	const char	*to;
	const char	*reply_to;	/* may be NULL */
	const char	*subject;
	const char	*text;
	const char	*html;		/* the alternative, may be NULL */
	const char	*in_reply_to;	/* may be NULL */
	const char	*references;	/* may be NULL */
	const char	*auto_submitted;
	const char	*list_unsubscribe;	/* may be NULL */
	int64_t		 game;		/* 0 when none */
};
int	referee_queue(struct referee *, const struct referee_mail *,
	    const char *message_id, int64_t now);

#endif
