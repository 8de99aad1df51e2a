/* mail: reading one incoming message — headers, the game tag, the command
 * lines of its body (commands.md, "Reading a message"), the loop and bounce
 * guards, and a readable account of all that for `ludus parse`.
 *
 * Pure: no network, no SQL.  MIME structure and header syntax come from
 * libetpan, HTML-only mail is read with libxml2's HTML parser.  Body cleaning
 * (quotes, attribution lines, signatures) lives in mailtext.c. */
#ifndef LUDUS_MAIL_H
#define LUDUS_MAIL_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Defaults used when a limit is 0 (or the tag NULL). */
#define MAIL_DEFAULT_MAX_BYTES		(1024 * 1024)
#define MAIL_DEFAULT_MAX_LINES		1000
#define MAIL_DEFAULT_MAX_COMMANDS	50
#define MAIL_DEFAULT_TAG		"ludus"
#define MAIL_TOKEN_MAX			64

/* Caps and the configured words the parser looks for.  Every pointer is
 * foreign (the caller's) and only read during mail_parse. */
struct mail_limits {
	size_t		 max_bytes;	/* bigger raw message: mail_parse fails */
	int		 max_lines;	/* body lines read; the rest is ignored */
	int		 max_commands;	/* commands kept; the rest is dropped */
	const char	*tag;		/* subject tag word, e.g. "ludus" */
	/* The referee's own address (referee@domain).  When set, a plus address
	 * counts only with the same local part and domain; when NULL any
	 * LOCAL+ID.TOKEN@DOMAIN recipient counts. */
	const char	*referee;
};

/* Where the game tag came from (bits). */
#define MAIL_TAG_SUBJECT	0x1
#define MAIL_TAG_PLUS		0x2

/* Which body part the commands were read from. */
enum mail_body_source {
	MAIL_BODY_NONE,		/* no text part at all */
	MAIL_BODY_PLAIN,
	MAIL_BODY_HTML
};

/* Header fields of automatic mail (bits of mail_msg.autoresponder_header). */
#define MAIL_AUTO_HEADER	0x1	/* X-Autoreply and friends */
#define MAIL_AUTO_CHALLENGE	0x2	/* a challenge-response system's */
#define MAIL_AUTO_SUPPRESS	0x4	/* X-Auto-Response-Suppress, not None */

/* Why a line of the body was read or set aside (mail_msg.lines), as
 * `ludus parse` names it. */
enum mail_line_why {
	MAIL_LINE_READ,		/* a command line */
	MAIL_LINE_BLANK,
	MAIL_LINE_QUOTE,	/* '>', '|' or "AB>" quoting, a wrapped quote */
	MAIL_LINE_ATTRIBUTION,	/* "On ..., Name wrote:" and its kin */
	MAIL_LINE_HEADERS,	/* a header block ("From: ... Sent: ...") */
	MAIL_LINE_SEPARATOR,	/* "-----Original Message-----", a rule */
	MAIL_LINE_SIGNATURE,	/* "-- ", a footer's rule, what they open */
	MAIL_LINE_DEVICE,	/* "Sent from my iPhone" */
	MAIL_LINE_SIGNOFF,	/* "Regards," with the name below it */
	MAIL_LINE_ORIGINAL,	/* below the end of the reply: the original */
	MAIL_LINE_HELD,		/* below a possible start: not read, told */
	MAIL_LINE_LIMIT		/* over the limits on lines or commands */
};

/* One line of the body as it was read. */
struct mail_line {
	char	*text;		/* owned, trimmed */
	int	 why;		/* MAIL_LINE_* */
	int	 possible;	/* a possible start of quoted material, not a
				   sure one (attribution, headers, separator) */
	int	 below;		/* ORIGINAL, HELD, SIGNATURE, SIGNOFF: the line
				   (index) that began it; else -1 */
};

/* A parsed message.  Every pointer is owned by the struct and released by
 * mail_msg_free; strings are UTF-8 (invalid bytes replaced by U+FFFD) or NULL
 * when the header is absent.  Addresses are canonical: lower-cased as a
 * whole, local part included, so one person is one player whatever case
 * their client sends (see addr.h). */
struct mail_msg {
	char		*from;		/* canonical address of the first From */
	char		*from_name;	/* display name, RFC 2047 decoded */
	char		*reply_to;	/* canonical address */
	struct strv to, cc, delivered_to;	/* canonical addresses */
	char		*subject;	/* RFC 2047 decoded, unfolded */
	char		*message_id;	/* without angle brackets */
	char		*in_reply_to;	/* first id, without angle brackets */
	struct strv references;	/* ids, without angle brackets */
	char		*auto_submitted;
	char		*precedence;
	char		*return_path;	/* as written, unfolded */
	int		 return_path_null; /* Return-Path: <> (or empty) */
	char		*list_id;
	struct strv x_loop;	/* every X-Loop value, in order */
	char		*x_failed_recipients;
	int		 autoresponder_header;	/* MAIL_AUTO_* bits */
	char		*auth_results;	/* the topmost Authentication-Results */
	char		*auth_serv_id;	/* its authserv-id */
	char		*dmarc;		/* its dmarc= result, lower-cased */
	char		*dmarc_from;	/* its header.from= domain */

	char		*content_type;	/* top-level type/subtype, lower-case */
	char		*report_type;	/* report-type= of a multipart/report */

	/* The game tag: subject [TAG #ID TOKEN] or plus address. */
	int64_t		 tag_game;	/* 0 when none */
	/* Lower-cased: base32 reads the same in either case, and the plus
	 * address is lower-cased with the rest of the address. */
	char		 tag_token[MAIL_TOKEN_MAX + 1];	/* "" when none */
	int		 tag_source;	/* MAIL_TAG_* bits that were found */
	int		 tag_conflict;	/* subject and plus address disagree */

	enum mail_body_source body_source;
	char		*body;		/* decoded UTF-8 text of the part read */
	struct strv commands;	/* the command lines, in order */
	int		 from_subject;	/* commands taken from the subject */
	int		 lines_truncated;	/* body longer than max_lines */
	int		 commands_truncated;	/* more than max_commands */
	/* Every line of the body up to max_lines, with why it was read or
	 * not; lines[below] of a held line is the possible start above it. */
	struct mail_line *lines;
	int		 nlines;
	/* The lines not read because they sit below something that may start
	 * quoted or forwarded material (MAIL_LINE_HELD), as written; the
	 * sender is told.  unread_below is that start (owned), unread_why a
	 * static N_() sentence saying what it looked like; NULL when none. */
	struct strv unread;
	char		*unread_below;
	const char	*unread_why;

	char		*raw;		/* the message as given (a copy) */
	size_t		 rawlen;
};

/* Parse one raw RFC 5322 message.  On success 0 and *out filled (free it with
 * mail_msg_free).  -1 with err filled, and *out still to be freed, when the
 * message is over max_bytes, has no header block, or has neither a
 * text/plain nor a text/html part: err is then a short sentence fit for the
 * reply to the sender.  Whatever header block there is has been read into
 * *out even then (of an oversized message only its header, within
 * max_bytes), so the guards can still be asked whether to reply at all. */
int	 mail_parse(const char *raw, size_t len, const struct mail_limits *,
	    struct mail_msg *out, char *err, size_t errlen);
void	 mail_msg_free(struct mail_msg *);

/* Parse "[TAG #ID TOKEN]" anywhere in s (tag case-insensitive, TOKEN
 * optional).  Returns 1 and fills *game and token (size MAIL_TOKEN_MAX + 1),
 * else 0. */
int	 mail_subject_tag(const char *s, const char *tag, int64_t *game,
	    char *token);

/* The subject read as a command: reply/forward prefixes (Re:, Fwd:, Fw:,
 * AW:, WG:, Ответ:, Re[2]: …) and the tag removed, trimmed.  Owned. */
char	*mail_subject_command(const char *subject, const char *tag);

/* Guard settings: every pointer foreign, read only during the call. */
struct mail_guard_cfg {
	const char		*x_loop;	/* our own X-Loop value */
	const char		*referee;	/* our own address */
	const char *const	*club_lists;	/* List-Id values we answer */
	int			 nclub_lists;
	/* Banned senders, canonical; an entry "@domain" bans the domain. */
	const char *const	*banned;
	int			 nbanned;
};

/* NULL when the message may be answered, else why not (a static string,
 * "KIND: detail", where KIND is bounce, report, auto-reply, bulk, list,
 * loop or banned). */
const char *mail_guard(const struct mail_msg *, const struct mail_guard_cfg *);

/* The failed recipients a bounce reports: from the delivery-status part
 * (Original-Recipient, else Final-Recipient, of each block whose Action is
 * failed; a returned message that is itself a bounce is not looked into),
 * else X-Failed-Recipients, else the `<address>:` lines qmail and Postfix
 * write in prose bounces, the addresses listed below Exchange's, Domino's
 * and Notes' sentences, else the To of the returned message.  Canonical,
 * each once, appended to out. */
int	 mail_bounce_recipients(const struct mail_msg *, struct strv *out);

/* What `ludus parse` prints: sender, reply-to, authentication facts, the game
 * tag and its source, the guard verdict (guard_reason from mail_guard, or
 * NULL) and, for a bounce, a "failed:" line per failed recipient
 * (mail_bounce_recipients) or "failed: (none found)", then "== commands =="
 * and the command lines, one per line. */
void	 mail_describe(const struct mail_msg *, const char *guard_reason,
	    struct buf *);

/* mailtext.c: body text to command lines. */

/* Read a decoded UTF-8 body (commands.md step 2-3 without the subject
 * fallback) into m->lines (every line with why it was read or set aside),
 * m->commands (the lines read, trimmed) and m->unread, m->unread_below and
 * m->unread_why.  Set aside: quoted lines ('>', '|', "AB>", a quoted line
 * the client wrapped), attribution lines, header blocks, separators and
 * rules, "Sent from my ..." lines, signature separators and footer rules,
 * sign-off blocks; the sure start of quoted or forwarded material, and
 * everything below it, are not the sender's.  Below a line that only may be
 * such a start nothing is read: those lines are m->unread.  An attribution
 * with quoted lines below it goes alone; so does one, a header block or a
 * "Sent from my ..." line that opens the body (below a header block
 * nothing is read).  Reads at most max_lines lines and keeps at most
 * max_commands (0: no limit), setting m->lines_truncated and
 * m->commands_truncated when it had to stop.  The phrases of each kind, in
 * the languages clients write them, are the tables of mailtext.c. */
void	 mailtext_read(const char *text, size_t len, int max_lines,
	    int max_commands, struct mail_msg *m);

/* mailtext_read's command lines alone, appended to out (mail.c). */
void	 mail_body_commands(const char *text, size_t len, int max_lines,
	    int max_commands, struct strv *out, int *lines_truncated,
	    int *commands_truncated);

/* The name `ludus parse` gives a MAIL_LINE_* ("read", "quote", ...). */
const char *mailtext_why_name(int why);

/* HTML (UTF-8) to plain text with libxml2: block elements break lines,
 * script/style/head are skipped, <blockquote> content is prefixed "> " so it
 * is read as a quote.  Owned; NULL when the elements nest too deeply to be
 * read whole (some 250 levels). */
char	*mailtext_html(const char *html, size_t len);

/* Copy of s with every invalid UTF-8 sequence replaced by U+FFFD and NUL
 * bytes dropped.  Owned. */
char	*mailtext_utf8(const char *s, size_t len);

/* Convert len bytes in charset to UTF-8 (owned).  Unknown charsets and
 * failed conversions fall back to the bytes as UTF-8 when they are valid
 * UTF-8, else as windows-1252. */
char	*mailtext_to_utf8(const char *s, size_t len, const char *charset);

#endif
