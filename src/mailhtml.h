/*
 * mailhtml: the text/html alternative of a referee mail, derived from the
 * rendered text/plain body and its style layer (ludus-templates(5),
 * "HTML part").
 *
 * The template renders once.  Its text is the plain part as it is; the
 * HTML part reads the same text with light structure: blank lines part
 * paragraphs, a line's leading blanks are kept, `back-quoted` words are
 * code, and the bytes of values that carry a style (tmpl_set_styled) say
 * what they are: a board (its engine's render_style() bytes), a move, the
 * move a reply hint suggests.  Nothing is written twice, so the two parts
 * cannot drift apart.
 *
 * The HTML uses inline styles only, no scripts and nothing outside the
 * mail, explicit colours on a light page that says it supports dark
 * schemes, and is well-formed XML as well as HTML.
 */
#ifndef LUDUS_MAILHTML_H
#define LUDUS_MAILHTML_H

#include <stddef.h>

/* Style bytes of the referee's template values.  A board's bytes have
 * MAILHTML_BOARD set and a GAME_STYLE_ value (games/game.h) in the low
 * seven bits; other values are one of the marks below. */
#define MAILHTML_BOARD	0x80
#define MAILHTML_MOVE	0x01	/* a move in the game's notation */
#define MAILHTML_REPLY	0x02	/* an answer the mail offers (a move, a
				 * command): a link that starts the reply,
				 * subject and body filled */
#define MAILHTML_URL	0x03	/* the game's public page: a link, when
				 * it is an http(s) address */

/* Columns of a board's diagram that fit a 375 px phone at the boards' 12
 * px; a wider diagram is set smaller, down to 10 px, which fits
 * MAILHTML_PHONE_COLUMNS_MAX. */
#define MAILHTML_PHONE_COLUMNS		48
#define MAILHTML_PHONE_COLUMNS_MAX	57

struct game_pic;

struct mailhtml_opts {
	const char *lang;	/* "en", "ru": <html lang> */
	const char *title;	/* the subject */
	const char *reply_to;	/* where a reply goes (mailto:), or NULL */
	const char *reply_subject; /* the subject a reply keeps, or NULL */
	const struct game_pic *pic; /* the drawing of every board of the
				 * text (the public pages), or NULL: each
				 * board's kept one (mailhtml_pic_keep) */
};

/* The HTML document (owned) for text (NUL-terminated) and its style layer
 * (strlen(text) bytes, or NULL for plain text). */
char	*mailhtml_render(const char *text, const char *style,
	    const struct mailhtml_opts *);
/* The same text's paragraphs and boards alone, appended to out: what
 * goes inside a page's body (the public site's boards are these). */
struct buf;
void	 mailhtml_body(struct buf *out, const char *text, const char *style,
	    const struct mailhtml_opts *);
/*
 * Keep the drawing (ops->draw) of a board text for the HTML part of the
 * mails made in the next while: the id (1..127) its text's line ends
 * carry in the style layer (MAILHTML_BOARD | id), so that a board copied
 * into any mail is drawn.  A drawing is used only for the very text it
 * was kept with, so an id used again later draws no wrong board; a
 * board without one (or whose drawing is gone) shows as text.
 */
struct game_pic;
int	 mailhtml_pic_keep(const char *board, const struct game_pic *);
/* Append s percent-encoded for a mailto: URI (RFC 6068: UTF-8, every
 * byte but the unreserved ones). */
void	 mailhtml_uri_escape(struct buf *, const char *s);

#endif
