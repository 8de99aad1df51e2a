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

struct referee {
	struct store		*store;		/* foreign */
	const struct config	*cfg;		/* foreign */
	const struct gamedef	*defs;		/* foreign */
	int			 ndefs;
	struct token_secret	 secret;
	struct command_aliases	*aliases;	/* owned */
	struct tmpl_cache	*tmpl;		/* owned */
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
 * that sentence, within the error-reply rate limit).  *outcome (owned)
 * says in a few words what was done.  -1 only on a store error: the
 * caller rolls back and the message is tried again later.
 */
int	referee_handle(struct referee *, const struct mail_msg *,
	    const char *key, const char *parse_error, int64_t now,
	    char **outcome);

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
