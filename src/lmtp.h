/*
 * lmtp: ludusd's LMTP server (RFC 2033), for a mail server that hands
 * mail over as Postfix hands it to Dovecot: no process per mail.
 *
 * One listening socket (a Unix socket, or TCP on a loopback address) and
 * its connections, all non-blocking, served from the daemon's own loop:
 * lmtp_fd() is one descriptor (an epoll set) that is readable when
 * anything here (or the extra descriptor given at the start, the
 * daemon's wake pipe) wants attention; lmtp_service() then does what can
 * be done without waiting.  Each message received whole is handed to the
 * deliver hook, which answers for every accepted recipient: the mail
 * server is told 250 only when the hook says the message is stored.
 */
#ifndef LUDUS_LMTP_H
#define LUDUS_LMTP_H

#include <stddef.h>
#include <stdint.h>

enum lmtp_stored {
	LMTP_STORED,		/* durably stored: 250 */
	LMTP_TEMP,		/* try again later: 451 4.3.0 */
	LMTP_FULL,		/* no room now: 452 4.3.1 */
};

struct lmtp_hooks {
	/* Is this envelope recipient (the address, without <>) ours? */
	int	(*recipient)(void *arg, const char *address);
	/* The message, dot-unstuffed, as received (foreign, valid during
	 * the call). */
	enum lmtp_stored (*deliver)(void *arg, const char *data, size_t len);
	void	*arg;
};

struct lmtp;

/*
 * Listen on `where`: "unix:/path" (a socket left by a daemon that did
 * not stop cleanly is replaced; made mode 0660) or "HOST:PORT" /
 * "[V6]:PORT" (a loopback address).  max_size: the largest message
 * taken (SIZE).  wakefd (may be -1) is watched with the connections.
 * NULL with err filled on failure.
 */
struct lmtp *lmtp_start(const char *where, size_t max_size, int wakefd,
	    const struct lmtp_hooks *, char *err, size_t errlen);
void	 lmtp_set_max(struct lmtp *, size_t max_size);
/* Readable when there is something to do. */
int	 lmtp_fd(const struct lmtp *);
/* Accept, read, answer, store and close what is ready; never waits. */
void	 lmtp_service(struct lmtp *, int64_t now_ms);
/* Milliseconds of now_ms (the monotonic clock) until the next idle
 * connection is to be closed; -1 when none is open. */
int64_t	 lmtp_next_ms(const struct lmtp *, int64_t now_ms);
/* Connections open now. */
int	 lmtp_connections(const struct lmtp *);
/* Closes every connection (nothing half-received is stored), the socket,
 * and removes a Unix socket's file. */
void	 lmtp_stop(struct lmtp *);

/* Is rcpt the address `own`, or own with a +detail?  Local parts and
 * domains compared without case. */
int	 lmtp_address_is(const char *rcpt, const char *own);

/* Syntax check of an in.lmtp value, for the configuration. */
int	 lmtp_where_check(const char *where, char *msg, size_t len);

#endif
