/* smtp: hand finished RFC 5322 messages to a mail server (SMTP through
 * libcurl) or to a local sendmail binary, and say per message whether it
 * was taken, may be retried, or never will be. */
#ifndef LUDUS_SMTP_H
#define LUDUS_SMTP_H

#include <stddef.h>

#define SMTP_REPLYLEN 512

/* How a server or sendmail answered one message. */
enum smtp_status {
	SMTP_SENT,		/* accepted for delivery */
	SMTP_TEMPFAIL,		/* 4xx, network or local trouble: retry later */
	SMTP_PERMFAIL,		/* 5xx or a final sendmail refusal: give up */
};

/* All strings are foreign: the caller keeps them alive during the call. */
struct smtp_settings {
	const char *url;	/* smtps://host[:port] (TLS from the start) or
				 * smtp://host[:port] (STARTTLS, required) */
	const char *user;	/* NULL: no AUTH */
	const char *password;
	const char *ca_file;	/* NULL: the system's trust store */
	int	 no_verify;	/* 1: skip the chain and host name checks.
				 * 0, the zero value, is the default: a
				 * zeroed struct verifies */
	int	 plain;		/* 1: smtp:// without any TLS, for loopback
				 * test servers only */
	long	 connect_timeout;	/* seconds until the server is ready
				 * for MAIL: TCP, greeting, TLS, AUTH
				 * (libcurl counts all of it); 0: 30 */
	long	 timeout;	/* seconds per message; 0: 120 */
	/* Called with each message's index as soon as it has its status
	 * (NULL: never).  A non-zero return stops the batch there: no
	 * message starts after it, the one on its way on the other
	 * connection finishes and is passed too, and the rest are not
	 * tried and keep SMTP_TEMPFAIL, without a call. */
	int	(*done)(void *arg, size_t i);
	void	*done_arg;
};

/* One message of a batch.  Inputs are foreign; the outputs are filled by
 * smtp_send_batch and smtp_sendmail. */
struct smtp_msg {
	const char *data;	/* the whole message, CRLF or LF line ends */
	size_t	 len;
	const char *from;	/* envelope sender; "" is the null sender */
	const char *const *rcpt;	/* envelope recipients */
	size_t	 nrcpt;

	enum smtp_status status;
	int	 code;		/* last SMTP reply code, sendmail's exit
				 * status, or 0 when none came */
	char	 reply[SMTP_REPLYLEN];	/* the server's text or our reason */
	int	 untrusted;	/* TEMPFAIL: the server's certificate was
				 * refused (no verdict from the server) */
};

/* Send msgs[0..n) over up to two connections at once, each driven by a
 * thread of its own, kept for the next batch.  A message starts only after every earlier one that shares a
 * recipient has its answer, so each recipient's mail is handed over in
 * order.  Every message gets a status; the done callback is called, in
 * the calling thread, as each gets it, in the order the answers come.  After a network failure
 * the messages not yet started are marked SMTP_TEMPFAIL without being
 * tried (each still passed to the done callback); those on their way
 * finish.  Returns the number sent, or -1 (err filled) when the settings
 * themselves are unusable (then nothing was tried). */
int	smtp_send_batch(const struct smtp_settings *, struct smtp_msg *msgs,
	    size_t n, char *err, size_t errlen);

/* Check the server without sending: connect, TLS and its verification,
 * AUTH when a user is set, NOOP, QUIT.  Returns 0 with *tls saying what
 * the connection used, or -1 with the reason in err and *untrusted set
 * when the certificate was refused. */
#define SMTP_TLS_NONE		0
#define SMTP_TLS_UNVERIFIED	1	/* tls_verify: false */
#define SMTP_TLS_VERIFIED	2
int	smtp_probe(const struct smtp_settings *, int *untrusted, int *tls,
	    char *err, size_t errlen);

/* Pipe one message, CRLF turned into LF, into `path -i -f FROM -- RCPT...`,
 * or `path -t -i -f FROM` when it has no recipients (sendmail then reads
 * them from the headers); the null sender is passed as "<>".  Exit
 * status 0 is SMTP_SENT; 75 (EX_TEMPFAIL), other transient sysexits, a
 * signal, or a failure to run it is SMTP_TEMPFAIL; any other status is
 * SMTP_PERMFAIL.  The first line sendmail printed on stderr goes to reply.
 * Returns 0, or -1 when the message is not SMTP_SENT. */
int	smtp_sendmail(const char *path, struct smtp_msg *);
/* smtp_send_batch keeps its connections for the next batch; this closes
 * them and frees what they hold (a daemon going idle). */
void	smtp_release(void);

#endif
