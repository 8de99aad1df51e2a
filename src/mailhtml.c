/* mailhtml: the HTML part, read off the plain text and its style layer. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "i18n.h"
#include "mailhtml.h"
#include "util.h"

/* Colours on the page's own light background, set on every element that
 * shows text, so a client's dark scheme cannot leave dark on dark. */
#define PAGE_BG		"#f6f3ec"
#define PAGE_FG		"#1c1b19"
#define BOARD_BG	"#fffdf8"
#define MONO		"Consolas,Menlo,'DejaVu Sans Mono','Liberation Mono'," \
			"'Courier New',monospace"
#define SANS		"-apple-system,'Segoe UI',Roboto,Helvetica,Arial," \
			"sans-serif"
#define CHIP_MONO	"font-family:Consolas,Menlo,monospace;"
#define CHIP		CHIP_MONO "background-color:#e9e3d5;color:" PAGE_FG \
			";white-space:nowrap"
#define LINK_CHIP	CHIP_MONO "background-color:#dbe7fb;color:#0b57d0;" \
			"white-space:nowrap"

/* The look of each GAME_STYLE_ colour. */
static const char *const colours[16] = {
	[GAME_STYLE_SEAT(0)] = "color:#c62828;font-weight:bold",
	[GAME_STYLE_SEAT(1)] = "color:#1557b0;font-weight:bold",
	[GAME_STYLE_SEAT(2)] = "color:#2e7d32;font-weight:bold",
	[GAME_STYLE_SEAT(3)] = "color:#c25400;font-weight:bold",
	[GAME_STYLE_DIM] = "color:#8c857a",
	[GAME_STYLE_COINS] = "color:#9a6f00;font-weight:bold",
	[GAME_STYLE_CUPS] = "color:#c62828;font-weight:bold",
	[GAME_STYLE_SWORDS] = "color:#1557b0;font-weight:bold",
	[GAME_STYLE_CLUBS] = "color:#2e7d32;font-weight:bold",
	[GAME_STYLE_WILD] = "color:#7b1fa2;font-weight:bold",
	[GAME_STYLE_TAKEN] = "color:#ffffff;background-color:#c62828;"
	    "font-weight:bold",
	[GAME_STYLE_LIGHT] = "color:#3b2a00;background-color:#f0d9a0;"
	    "font-weight:bold",
	[GAME_STYLE_DARK] = "color:#ffffff;background-color:#2b2b2b;"
	    "font-weight:bold",
	[GAME_STYLE_CARD] = "color:" PAGE_FG ";background-color:#ffffff;"
	    "outline:1px solid #b9b09c;font-weight:bold",
};

static void
esc_char(struct buf *b, char c)
{
	switch (c) {
	case '&': buf_adds(b, "&amp;"); break;
	case '<': buf_adds(b, "&lt;"); break;
	case '>': buf_adds(b, "&gt;"); break;
	case '"': buf_adds(b, "&quot;"); break;
	case '\'': buf_adds(b, "&#39;"); break;
	case '\t': buf_adds(b, "    "); break;
	default:
		/* Control characters are not allowed in XML. */
		if ((unsigned char)c < 0x20)
			buf_addc(b, '?');
		else
			buf_addc(b, c);
	}
}

static void
esc(struct buf *b, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		esc_char(b, s[i]);
}

void
mailhtml_uri_escape(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	unsigned char c;

	for (; *s; s++) {
		c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c) != NULL)
			buf_addc(b, (char)c);
		else
			buf_printf(b, "%%%c%c", hex[c >> 4], hex[c & 15]);
	}
}

struct html {
	struct buf out;
	const struct mailhtml_opts *o;
	int	para;			/* a <p> is open */
	int	rtl;			/* the text reads right to left */
};

/* Running text: in a right-to-left page each run of notation, numbers or
 * an address is a left-to-right span (i18n_next_ltr finds them). */
static void
esc_text(struct html *h, const char *s, size_t len)
{
	size_t i = 0, a, b;

	while (h->rtl && i < len && i18n_next_ltr(s + i, len - i, &a, &b)) {
		esc(&h->out, s + i, a);
		buf_adds(&h->out, "<span dir=\"ltr\">");
		esc(&h->out, s + i + a, b - a);
		buf_adds(&h->out, "</span>");
		i += b;
	}
	esc(&h->out, s + i, len - i);
}

/* The inline style of a board byte, appended to b (nothing when plain). */
static void
board_css(struct buf *b, unsigned char y)
{
	const char *c = colours[y & GAME_STYLE_COLOUR];

	if (c != NULL)
		buf_printf(b, "%s;", c);
	if (y & GAME_STYLE_LAST)
		buf_adds(b, "background-color:#ffd84d;color:" PAGE_FG ";");
	if (y & GAME_STYLE_BOLD)
		buf_adds(b, "font-weight:bold;");
}

/* Does the look paint a background?  A blank in a run of a look without
 * one may join the run, which keeps a board's spans few. */
static int
has_bg(unsigned char k)
{
	unsigned char c = k & GAME_STYLE_COLOUR;

	return (k & GAME_STYLE_LAST) || c == GAME_STYLE_TAKEN ||
	    c == GAME_STYLE_LIGHT || c == GAME_STYLE_DARK ||
	    c == GAME_STYLE_CARD;
}

static unsigned char
look(const unsigned char *y, size_t i)
{
	return y ? (unsigned char)(y[i] & ~(MAILHTML_BOARD |
	    GAME_STYLE_TEXT)) : 0;
}

static void
reply_link(struct html *h, const char *move, size_t len)
{
	char *m = xstrndup(move, len);
	struct buf uri = { 0 };

	buf_adds(&uri, "mailto:");
	buf_adds(&uri, h->o->reply_to);
	buf_adds(&uri, "?subject=");
	mailhtml_uri_escape(&uri, h->o->reply_subject ? h->o->reply_subject :
	    "");
	buf_adds(&uri, "&body=");
	mailhtml_uri_escape(&uri, m);
	buf_adds(&h->out, "<a href=\"");
	esc(&h->out, buf_str(&uri), uri.len);
	buf_adds(&h->out, "\" style=\"color:#0b57d0;text-decoration:underline\">"
	    "<code");
	buf_adds(&h->out, h->rtl ? " dir=\"ltr\"" : "");
	buf_adds(&h->out, " style=\"" LINK_CHIP "\">");
	esc(&h->out, move, len);
	buf_adds(&h->out, "</code></a>");
	buf_free(&uri);
	free(m);
}

static int
all_marked(const unsigned char *y, size_t from, size_t to, unsigned char mark)
{
	size_t i;

	if (y == NULL || from == to)
		return 0;
	for (i = from; i < to; i++)
		if (y[i] != mark)
			return 0;
	return 1;
}

/*
 * One line of text: runs of one look become spans; outside boards a
 * `quoted` word is code, a move a chip, the suggested move a link.
 * Leading blanks are kept (the text indents lists and blocks so).
 */
static void
inline_line(struct html *h, const char *t, const unsigned char *y,
    size_t len, int pre)
{
	struct buf css = { 0 };
	size_t i = 0, j;
	unsigned char k;

	if (!pre)
		for (; i < len && t[i] == ' '; i++)
			buf_adds(&h->out, "&#160;");
	while (i < len) {
		k = look(y, i);
		if (!pre && t[i] == '`' && k == 0) {
			for (j = i + 1; j < len && !(t[j] == '`' &&
			    look(y, j) == 0); j++)
				;
			if (j < len && j > i + 1) {
				if (h->o->reply_to && all_marked(y, i + 1, j,
				    MAILHTML_REPLY))
					reply_link(h, t + i + 1, j - i - 1);
				else {
					buf_adds(&h->out, h->rtl ?
					    "<code dir=\"ltr\" style=\"" CHIP
					    "\">" : "<code style=\"" CHIP
					    "\">");
					esc(&h->out, t + i + 1, j - i - 1);
					buf_adds(&h->out, "</code>");
				}
				i = j + 1;
				continue;
			}
		}
		for (j = i + 1; j < len && (look(y, j) == k ||
		    (t[j] == ' ' && pre && y[j] & MAILHTML_BOARD &&
		    !has_bg(k) && !has_bg(look(y, j)))) &&
		    !(!pre && t[j] == '`' && k == 0); j++)
			;
		if (k == 0 && !pre)
			esc_text(h, t + i, j - i);
		else if (k == 0)
			esc(&h->out, t + i, j - i);
		else if (y[i] & MAILHTML_BOARD) {
			buf_reset(&css);
			board_css(&css, k);
			if (css.len) {
				buf_printf(&h->out, "<span style=\"%s\">",
				    buf_str(&css));
				esc(&h->out, t + i, j - i);
				buf_adds(&h->out, "</span>");
			} else
				esc(&h->out, t + i, j - i);
		} else if (k == MAILHTML_REPLY && h->o->reply_to)
			reply_link(h, t + i, j - i);
		else {
			buf_adds(&h->out, h->rtl ? "<code dir=\"ltr\" style=\""
			    CHIP "\">" : "<code style=\"" CHIP "\">");
			esc(&h->out, t + i, j - i);
			buf_adds(&h->out, "</code>");
		}
		i = j;
	}
	buf_free(&css);
}

static void
para_close(struct html *h)
{
	if (h->para)
		buf_adds(&h->out, "</p>\n");
	h->para = 0;
}

static void
para_line(struct html *h, const char *t, const unsigned char *y, size_t len)
{
	if (h->para)
		buf_adds(&h->out, "<br />\n");
	else
		buf_adds(&h->out, "<p style=\"margin:0 0 12px;color:" PAGE_FG
		    "\">");
	h->para = 1;
	inline_line(h, t, y, len, 0);
}

struct line {
	const char *t;
	const unsigned char *y;		/* NULL: plain */
	size_t	len;
	int	board;			/* a byte of it, or its line end, is a
					 * board's */
	int	text;			/* a board's line of running text */
};

/*
 * The font size of a diagram: 12 px keeps MAILHTML_PHONE_COLUMNS columns
 * inside a 375 px phone's box (349 px for the 0.602 em advance of the
 * widest fonts of the stack); a wider diagram gets a smaller font, down to
 * 10 px, rather than a scroll bar.
 */
static const char *
board_font(const struct line *l, size_t n)
{
	static char size[16];
	size_t i, k, cols, most = 0;
	unsigned tenths;

	for (i = 0; i < n; i++) {
		for (k = 0, cols = 0; k < l[i].len; k++)
			cols += ((unsigned char)l[i].t[k] & 0xc0) != 0x80;
		if (cols > most)
			most = cols;
	}
	if (most <= MAILHTML_PHONE_COLUMNS)
		return "12px";
	tenths = (unsigned)(120 * MAILHTML_PHONE_COLUMNS / most);
	tenths -= tenths % 5;
	if (tenths < 100)
		tenths = 100;
	snprintf(size, sizeof(size), "%u.%upx", tenths / 10, tenths % 10);
	return size;
}

static void
board_block(struct html *h, const struct line *l, size_t n)
{
	size_t i = 0, j;

	while (i < n) {
		if (l[i].len == 0) {
			i++;
			continue;
		}
		for (j = i; j < n && l[j].len > 0 && l[j].text == l[i].text;
		    j++)
			;
		if (l[i].text) {
			for (; i < j; i++) {
				size_t k = strspn(l[i].t, " ");

				/* An indented line continues the one before
				 * (the text wraps long lines so). */
				if (h->para && k >= 2 && k < l[i].len)
					buf_addc(&h->out, '\n');
				else if (h->para)
					buf_adds(&h->out, "<br />\n");
				else
					buf_adds(&h->out, "<p style=\"margin:0 "
					    "0 12px;color:" PAGE_FG "\">");
				h->para = 1;
				/* Blanks that align text in a monospace
				 * board mean nothing in running text. */
				inline_line(h, l[i].t + k, l[i].y + k,
				    l[i].len - k, 0);
			}
			para_close(h);
			continue;
		}
		/* An inline block as wide as the board, never wider than
		 * the page: a wider board scrolls in its box. */
		/* Right to left: the board stands at the start (right) of
		 * the text like a paragraph, but keeps its own direction and
		 * its lines' left alignment. */
		buf_printf(&h->out, "<div style=\"margin:0 0 12px\">"
		    "<pre%s style=\"display:inline-block;max-width:100%%;"
		    "box-sizing:border-box;margin:0;padding:8px 6px;"
		    "background-color:" BOARD_BG ";color:" PAGE_FG ";"
		    "border:1px solid #d6cfbf;border-radius:4px;font-family:"
		    MONO ";font-size:%s;line-height:1.35;white-space:pre;"
		    "overflow-x:auto%s\">", h->rtl ? " dir=\"ltr\"" : "",
		    board_font(l + i, j - i), h->rtl ? ";text-align:left" : "");
		for (; i < j; i++) {
			inline_line(h, l[i].t, l[i].y, l[i].len, 1);
			if (i + 1 < j)
				buf_addc(&h->out, '\n');
		}
		buf_adds(&h->out, "</pre></div>\n");
	}
}

/* The paragraphs and boards of text, into h->out. */
static void
body(struct html *h, const char *text, const char *style)
{
	struct line *lines = NULL;
	const unsigned char *y = (const unsigned char *)style;
	size_t n = 0, cap = 0, off = 0, len, i, j, k;

	while (text[off] != '\0') {
		len = strcspn(text + off, "\n");
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			lines = xreallocarray(lines, cap, sizeof(*lines));
		}
		lines[n].t = text + off;
		lines[n].y = y ? y + off : NULL;
		lines[n].len = len;
		lines[n].board = 0;
		for (k = 0; y && k < len + (text[off + len] == '\n'); k++)
			if (y[off + k] & MAILHTML_BOARD)
				lines[n].board = 1;
		lines[n].text = y && len > 0 &&
		    (y[off] & (MAILHTML_BOARD | GAME_STYLE_TEXT)) ==
		    (MAILHTML_BOARD | GAME_STYLE_TEXT);
		n++;
		off += len + (text[off + len] == '\n');
	}
	for (i = 0; i < n; i = j) {
		if (lines[i].board) {
			para_close(h);
			for (j = i; j < n && lines[j].board; j++)
				;
			board_block(h, lines + i, j - i);
			continue;
		}
		j = i + 1;
		if (lines[i].len == 0)
			para_close(h);
		else
			para_line(h, lines[i].t, lines[i].y, lines[i].len);
	}
	para_close(h);
	free(lines);
}

void
mailhtml_body(struct buf *out, const char *text, const char *style,
    const struct mailhtml_opts *o)
{
	struct html h;

	memset(&h, 0, sizeof(h));
	h.o = o;
	h.rtl = o->lang != NULL && i18n_rtl(o->lang);
	h.out = *out;
	body(&h, text, style);
	*out = h.out;
}

char *
mailhtml_render(const char *text, const char *style,
    const struct mailhtml_opts *o)
{
	struct html h;

	memset(&h, 0, sizeof(h));
	h.o = o;
	h.rtl = o->lang != NULL && i18n_rtl(o->lang);

	buf_printf(&h.out, "<!DOCTYPE html>\n<html lang=\"%s\"%s>\n<head>\n"
	    "<meta charset=\"utf-8\" />\n"
	    "<meta name=\"viewport\" content=\"width=device-width, "
	    "initial-scale=1\" />\n"
	    "<meta name=\"color-scheme\" content=\"light dark\" />\n"
	    "<meta name=\"supported-color-schemes\" content=\"light dark\" />\n"
	    "<title>", o->lang ? o->lang : "en", h.rtl ? " dir=\"rtl\"" : "");
	esc(&h.out, o->title ? o->title : "", o->title ? strlen(o->title) : 0);
	buf_printf(&h.out, "</title>\n</head>\n<body style=\"margin:0;padding:0;"
	    "background-color:" PAGE_BG ";color:" PAGE_FG "\">\n"
	    "<table role=\"presentation\" width=\"100%%\" cellpadding=\"0\" "
	    "cellspacing=\"0\" border=\"0\" style=\"table-layout:fixed;"
	    "background-color:" PAGE_BG ";color:" PAGE_FG "\"><tr><td%s "
	    "style=\"padding:12px 6px;overflow-wrap:anywhere;"
	    "font-family:" SANS ";font-size:15px;line-height:1.45;color:"
	    PAGE_FG "\">\n<div%s style=\"max-width:44em\">\n",
	    h.rtl ? " dir=\"rtl\" align=\"right\"" : "",
	    h.rtl ? " dir=\"rtl\"" : "");
	body(&h, text, style);
	buf_adds(&h.out, "</div>\n</td></tr></table>\n</body>\n</html>\n");
	return buf_steal(&h.out);
}
