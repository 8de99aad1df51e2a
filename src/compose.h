/*
 * compose: outgoing mail as RFC 5322 bytes.
 *
 * Built with libetpan's MIME writer: UTF-8 text/plain, 7bit when it is
 * ASCII in short lines and quoted-printable otherwise, with an optional
 * text/html alternative encoded the same way; header words that are not ASCII
 * (the subject, display names) as RFC 2047 encoded words.  The output is
 * a pure function of the input, so golden-file tests can compare it and a
 * message resent after a crash is byte-identical.
 */
#ifndef LUDUS_COMPOSE_H
#define LUDUS_COMPOSE_H

#include <stddef.h>
#include <time.h>

#include "util.h"

struct compose_mail {
	const char *from_name;		/* may be NULL */
	const char *from;		/* address */
	const char *to;			/* address */
	const char *to_name;		/* may be NULL */
	const char *reply_to;		/* may be NULL */
	const char *subject;		/* UTF-8 */
	const char *message_id;		/* without angle brackets */
	const char *in_reply_to;	/* without angle brackets, may be NULL */
	const char *references;		/* space-separated ids without
					 * brackets, may be NULL */
	const char *auto_submitted;	/* "auto-replied", "auto-generated" */
	const char *x_loop;		/* may be NULL */
	const char *list_id;		/* may be NULL */
	const char *list_unsubscribe;	/* a mailto: URL, may be NULL */
	const char *text;		/* UTF-8 body */
	const char *html;		/* may be NULL */
	time_t	    date;
};

/* The whole message (owned), CRLF line ends.  NULL with err filled when an
 * address or id is unusable. */
char	*compose_message(const struct compose_mail *, char *err,
	    size_t errlen);
/* An RFC 2047 encoded form of s when it is not plain ASCII (owned). */
char	*compose_header_words(const char *s);
/* Quoted-printable of text whose line ends are CRLF (owned). */
char	*compose_qp(const char *text);

#endif
