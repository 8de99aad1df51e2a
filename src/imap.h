/* imap: one IMAP session (libetpan) reading the referee's mailbox: fetch
 * what is unprocessed without marking it \Seen, then, once the caller has
 * committed a message, move it to the processed folder or flag it; IDLE
 * between rounds when the server offers it.
 *
 * TLS: libetpan as built by Debian (GnuTLS) does not check certificates,
 * so every TLS connection is verified here with OpenSSL, chain and host
 * name, before anything else is sent on it.
 *
 * Every function returns -1 with a message in err on failure and never
 * exits; after a failure the caller calls imap_close and reconnects later
 * (see backoff.h). */
#ifndef LUDUS_IMAP_H
#define LUDUS_IMAP_H

#include <stddef.h>
#include <stdint.h>

/* All strings are foreign and must outlive the struct imap using them. */
struct imap_settings {
	const char *url;	/* imaps://host[:port] (TLS from the start) or
				 * imap://host[:port] (STARTTLS, required) */
	const char *user;
	const char *password;
	const char *ca_file;	/* NULL: the system's default trust store */
	const char *mailbox;	/* NULL: INBOX */
	const char *processed;	/* folder that processed mail is moved to
				 * (created when missing); NULL: flag instead */
	const char *flag;	/* keyword set on processed mail when
				 * processed is NULL; NULL: "$Ludus" */
	int	 no_verify;	/* 1: skip the chain and host name checks.
				 * 0, the zero value, is the default: a
				 * zeroed struct verifies */
	int	 plain;		/* 1: imap:// without STARTTLS, for loopback
				 * test servers only */
	int	 timeout;	/* seconds per network operation; 0: 60 */
};

struct imap;	/* opaque */

/* A session that is not yet connected; settings are kept by reference. */
struct imap *imap_new(const struct imap_settings *);
void	 imap_free(struct imap *);	/* closes first; NULL is fine */

/* Connect, TLS and its verification, LOGIN, SELECT the mailbox.  Sets
 * SIGPIPE to be ignored, process-wide: libetpan writes to its sockets in
 * a way that raises it when the server has gone. */
int	 imap_connect(struct imap *, char *err, size_t errlen);
/* Drop the connection (LOGOUT when it still works). */
void	 imap_close(struct imap *);
int	 imap_connected(const struct imap *);
/* Did the last imap_connect fail because the server's certificate was
 * not trusted (as opposed to the network or the login)? */
int	 imap_untrusted(const struct imap *);
/* The connected session's transport, as it is (not as configured). */
#define IMAP_TLS_NONE		0
#define IMAP_TLS_UNVERIFIED	1	/* tls_verify: false */
#define IMAP_TLS_VERIFIED	2
int	 imap_tls(const struct imap *);

/* UIDVALIDITY of the selected mailbox (0 before SELECT).  UIDs are only
 * comparable while it stays the same. */
uint32_t imap_uidvalidity(const struct imap *);
/* 1 when the server offers IDLE (known after imap_connect). */
int	 imap_has_idle(const struct imap *);

/* UIDs of the unprocessed messages, ascending: every undeleted message of
 * the mailbox when processing moves them away, else those without the
 * keyword.  *uids is owned by the caller (free()); NULL when *n is 0. */
int	 imap_search(struct imap *, uint32_t **uids, size_t *n, char *err,
	    size_t errlen);

/* The whole message by UID without setting \Seen.  *data (owned, free())
 * is NUL-terminated; *len excludes the NUL.  A UID that no longer exists
 * is an error. */
int	 imap_fetch(struct imap *, uint32_t uid, char **data, size_t *len,
	    char *err, size_t errlen);

/* One message of imap_fetch_many: data (owned, NUL-terminated) is NULL
 * when the UID no longer exists. */
struct imap_msg {
	uint32_t uid;
	char	*data;
	size_t	 len;
};

/* Many messages in one UID FETCH (one round trip): out[i] is uids[i]'s,
 * NULL data for a UID that has gone.  *out is owned by the caller
 * (imap_msgs_free); n at most IMAP_FETCH_MAX. */
#define IMAP_FETCH_MAX	64
int	 imap_fetch_many(struct imap *, const uint32_t *uids, size_t n,
	    struct imap_msg **out, char *err, size_t errlen);
void	 imap_msgs_free(struct imap_msg *, size_t n);

/* Mark a committed message as processed: UID MOVE to the processed
 * folder (COPY, STORE \Deleted and EXPUNGE where MOVE is missing), or
 * STORE the keyword. */
int	 imap_done(struct imap *, uint32_t uid, char *err, size_t errlen);
/* The same for many messages in one command (a UID set). */
int	 imap_done_many(struct imap *, const uint32_t *uids, size_t n,
	    char *err, size_t errlen);

/* Wait in IDLE for news in the mailbox, at most timeout_ms (capped below
 * the 29 minutes after which servers may drop an idle client) or until
 * wakefd (-1: none) is readable.  Returns 1 when the server said
 * something (search again), 0 on timeout or wake-up, -1 on error
 * (reconnect).  Returns 1 at once, without IDLE, when new mail was
 * announced since the last imap_search began (in the answer to a FETCH or
 * a MOVE, say).  Only when imap_has_idle; otherwise the caller polls. */
int	 imap_idle(struct imap *, int timeout_ms, int wakefd, char *err,
	    size_t errlen);

/* Verify a DER certificate chain (leaf first) for host: against ca_file,
 * or the system's default paths when ca_file is NULL.  Exposed for tests. */
int	 imap_verify_chain(const unsigned char *const *der, const size_t *derlen,
	    size_t n, const char *host, const char *ca_file, char *err,
	    size_t errlen);

#endif
