/*
 * intake: one incoming message from raw bytes to committed effects.
 *
 * Parse, then in one transaction: dedupe by Message-ID and sender (a
 * SHA-256 of the raw bytes when there is no Message-ID), the guards (bounces, auto-replies, lists,
 * loops, bans), the referee, the note of what was done.  Commit, and only
 * then may the caller remove the message from where it came: a crash at any
 * point loses nothing and applies nothing twice.
 */
#ifndef LUDUS_INTAKE_H
#define LUDUS_INTAKE_H

#include <stddef.h>
#include <stdint.h>

#include "referee/referee.h"

enum intake_status {
	INTAKE_DONE,		/* committed (or seen before): mark it processed */
	INTAKE_TEMPFAIL,	/* the store failed: leave it, try again later */
	INTAKE_ROBOT,		/* nothing done: a robot must think first
				 * (referee_robot_take; see referee.h) */
	INTAKE_WAIT,		/* nothing done: the sender's earlier message
				 * waits for a robot (referee's hold) */
	INTAKE_QUARANTINE,	/* an invariant is broken: nothing applied or
				 * answered, the message recorded as
				 * quarantined (with its commands and the
				 * cause) so it is not tried again; log it as
				 * an error, then treat it as done */
};

/* *outcome (owned, may be NULL) says what happened, for the log. */
enum intake_status intake_message(struct referee *, const char *raw,
	    size_t len, int64_t now, char **outcome);

/* The dedupe key of a parsed message (owned): "<Message-ID> sender", or
 * the SHA-256 of the raw bytes when there is no Message-ID. */
char	*intake_key(const char *message_id, const char *from, const char *raw,
	    size_t len);

/* The keys a message is queued under before the referee reads it (the
 * inbound table): *key its dedupe key (intake_key), *route the game its
 * tag names ("game #ID"), else its sender, else its key.  Both owned. */
void	 intake_route(const struct config *, const char *raw, size_t len,
	    char **key, char **route);

#endif
