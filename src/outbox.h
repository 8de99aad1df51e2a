/*
 * outbox: send what the referee queued, over SMTP or through sendmail.
 *
 * At least once: a row is marked sent only after the server accepted it,
 * and every row keeps its Message-ID, so a resend after a crash is the same
 * message.  Temporary failures (4xx, network) wait with capped exponential
 * backoff; a permanent one (5xx) is given up, recorded, and reported to the
 * admins.
 */
#ifndef LUDUS_OUTBOX_H
#define LUDUS_OUTBOX_H

#include <stdint.h>

#include "conf.h"
#include "store.h"

struct outbox_stats {
	int	sent;
	int	retry;
	int	failed;
};

/* Send every row due at now, in batches.  -1 with err when the store or
 * the settings failed (rows stay queued). */
int	outbox_flush(struct store *, const struct config *, int64_t now,
	    struct outbox_stats *, char *err, size_t errlen);

/* When a row that failed for the attempts-th time is tried again. */
int64_t	outbox_next_try(const struct config *, int attempts, int64_t now);

#endif
