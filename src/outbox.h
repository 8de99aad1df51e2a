/*
 * outbox: send what the referee queued, over SMTP or through sendmail.
 *
 * At least once: a row is marked sent only after the server accepted it,
 * in a commit of its own, and every row keeps its Message-ID, so a crash
 * resends at most the mails in flight (one per connection, smtp.h), as
 * the same messages.  Temporary failures (4xx, network) wait with capped exponential
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
	int	unreachable;	/* of retry: no answer from the server */
	int	untrusted;	/* the server's certificate was refused */
};

/* Rows a server took whose "sent" mark did not commit because the store
 * failed: the caller keeps this for the life of the process, so they are
 * not sent again, and the next flush marks them before anything else. */
struct outbox_unmarked {
	int64_t	*id;
	size_t	 n;
	size_t	 cap;
};
void	outbox_unmarked_free(struct outbox_unmarked *);

/* Send every row due at now, in batches, each row's outcome committed as
 * soon as it is known.  -1 with err when the store or the settings failed
 * (rows not sent stay queued): the caller should wait before trying
 * again. */
int	outbox_flush(struct store *, const struct config *,
	    struct outbox_unmarked *, int64_t now, struct outbox_stats *,
	    char *err, size_t errlen);

/* Queue a mail to every admin, once: the Message-ID comes from key (say
 * "tls.smtp.mail.example.org.20261201"), and a key already queued queues
 * nothing.  Inside the caller's transaction. */
int	outbox_notice(struct store *, const struct config *, const char *key,
	    const char *subject, const char *text, int64_t now);
/* A server's certificate was refused: logged as an error and told to the
 * admins once per server and day (what: "imap" or "smtp"). */
int	outbox_untrusted(struct store *, const struct config *,
	    const char *what, const char *server, const char *why,
	    int64_t now);

/* When a row that failed for the attempts-th time is tried again. */
int64_t	outbox_next_try(const struct config *, int attempts, int64_t now);

#endif
