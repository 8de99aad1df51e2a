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

/*
 * Dark schemes: the inline colours are a light page's, which clients that
 * recolour mail (Gmail's and Outlook's apps) adjust themselves; a client
 * that reads a style sheet and says the reader prefers dark (Apple Mail,
 * Thunderbird, iOS and Android mail, Outlook for Mac) gets these
 * colours.  The boards keep their light card faces and pieces, which
 * read on either.
 */
#define DARK_STYLE \
	"<style type=\"text/css\">\n" \
	":root { color-scheme: light dark; supported-color-schemes: light " \
	"dark; }\n" \
	"@media (prefers-color-scheme: dark) {\n" \
	".lx-page { background-color: #1b1a17 !important; " \
	"color: #ece7dc !important; }\n" \
	".lx-t { color: #ece7dc !important; }\n" \
	".lx-board { background-color: #25231f !important; " \
	"color: #ece7dc !important; border-color: #4d483f !important; }\n" \
	".lx-dim { color: #b3ab9d !important; }\n" \
	".lx-line { border-color: #8a8276 !important; }\n" \
	".lx-chip { background-color: #3a362f !important; " \
	"color: #ece7dc !important; }\n" \
	".lx-link { background-color: #1d3357 !important; " \
	"color: #a8c7ff !important; }\n" \
	"a { color: #a8c7ff !important; }\n" \
	"}\n</style>\n"

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

/* The next run of left-to-right text in t[from..len) (i18n_next_ltr):
 * 1 with its bounds in t, else 0. */
static int
next_run(const char *t, size_t len, size_t from, size_t *a, size_t *b)
{
	if (from >= len || !i18n_next_ltr(t + from, len - from, a, b))
		return 0;
	*a += from;
	*b += from;
	return 1;
}

/* Does t[0..len) hold a right-to-left letter (Hebrew to NKo, U+0590 to
 * U+07FF, or an Arabic presentation form)? */
static int
has_rtl(const char *t, size_t len)
{
	const unsigned char *u = (const unsigned char *)t;
	size_t i;

	for (i = 0; i < len; i++)
		if ((u[i] >= 0xd6 && u[i] <= 0xdf) || (u[i] == 0xef &&
		    i + 1 < len && u[i + 1] >= 0xac && u[i + 1] <= 0xbb))
			return 1;
	return 0;
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
	buf_adds(&h->out, " class=\"lx-link\" style=\"" LINK_CHIP "\">");
	esc(&h->out, move, len);
	buf_adds(&h->out, "</code></a>");
	buf_free(&uri);
	free(m);
}

/* The club's page of the game, an http(s) address the referee wrote
 * (site.url): a link to it. */
static void
web_link(struct html *h, const char *url, size_t len)
{
	buf_adds(&h->out, "<a href=\"");
	esc(&h->out, url, len);
	buf_adds(&h->out, "\"");
	buf_adds(&h->out, h->rtl ? " dir=\"ltr\"" : "");
	buf_adds(&h->out, " style=\"color:#0b57d0;text-decoration:underline\">");
	esc(&h->out, url, len);
	buf_adds(&h->out, "</a>");
}

static int
is_web(const char *t, size_t len)
{
	return (len > 7 && strncmp(t, "http://", 7) == 0) ||
	    (len > 8 && strncmp(t, "https://", 8) == 0);
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
	size_t i = 0, j, ra = 0, rb = 0, cut;
	unsigned char k;
	int open = 0, rtl;

	if (!pre)
		for (; i < len && t[i] == ' '; i++)
			buf_adds(&h->out, "&#160;");
	/* Right to left: each run of notation, numbers and names is
	 * isolated as a whole, styled pieces and all (a hand "3 6 7 8 Q",
	 * a name "Robot (level 3)"), so the reader's client keeps its
	 * order; the runs are the ones the plain part isolates. */
	rtl = h->rtl && (!pre || has_rtl(t, len));
	if (rtl && !next_run(t, len, i, &ra, &rb))
		ra = rb = len + 1;
	while (i < len) {
		/* A code span may have passed a run's start. */
		if (rtl && !open && ra < i && !next_run(t, len, i, &ra, &rb))
			ra = rb = len + 1;
		if (rtl && i == ra && !open) {
			buf_adds(&h->out, "<bdi dir=\"ltr\">");
			open = 1;
		}
		if (open && i >= rb) {
			buf_adds(&h->out, "</bdi>");
			open = 0;
			if (!next_run(t, len, i, &ra, &rb))
				ra = rb = len + 1;
			continue;
		}
		/* A piece never crosses a run's edge. */
		cut = !rtl ? len : open ? rb : ra > i ? ra : len;
		if (cut > len)
			cut = len;
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
					    "<code dir=\"ltr\" class=\"lx-chip\" "
					    "style=\"" CHIP "\">" : "<code "
					    "class=\"lx-chip\" style=\"" CHIP
					    "\">");
					esc(&h->out, t + i + 1, j - i - 1);
					buf_adds(&h->out, "</code>");
				}
				i = j + 1;
				continue;
			}
		}
		for (j = i + 1; j < cut && (look(y, j) == k ||
		    (t[j] == ' ' && pre && y[j] & MAILHTML_BOARD &&
		    !has_bg(k) && !has_bg(look(y, j)))) &&
		    !(!pre && t[j] == '`' && k == 0); j++)
			;
		if (k == 0)
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
		else if (k == MAILHTML_URL && is_web(t + i, j - i))
			web_link(h, t + i, j - i);
		else if (k == MAILHTML_URL)
			esc(&h->out, t + i, j - i);
		else {
			buf_adds(&h->out, h->rtl ? "<code dir=\"ltr\" "
			    "class=\"lx-chip\" style=\"" CHIP "\">" : "<code "
			    "class=\"lx-chip\" style=\"" CHIP "\">");
			esc(&h->out, t + i, j - i);
			buf_adds(&h->out, "</code>");
		}
		i = j;
	}
	if (open)
		buf_adds(&h->out, "</bdi>");
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
		buf_adds(&h->out, "<p class=\"lx-t\" style=\"margin:0 0 12px;color:"
		    PAGE_FG "\">");
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
 * Drawings (struct game_pic): each grid a table of cells with inline
 * colours, left to right in every language.  Tables and inline styles
 * are what every client lays out alike, Outlook's Word engine included;
 * rounded corners, where a client drops them, leave squares that read
 * the same, and every cell has a letter or number as well as a colour.
 */

/* A board's widest size, and the width of a phone's text column that the
 * cell heights are made for (375 px less the page's padding). */
#define PIC_WIDE	420
#define PIC_PHONE	360
#define LINE_COLOUR	"#a39a8a"
#define DIM_COLOUR	"#8c857a"
#define SQUARE_BG	"#efe6d2"
#define LAST_BG		"#ffd84d"

/* The colour of a look's seat or suit (GAME_STYLE_ colour). */
static const char *
pic_colour(int look)
{
	static const char *const c[16] = {
		[GAME_STYLE_SEAT(0)] = "#c62828",
		[GAME_STYLE_SEAT(1)] = "#1557b0",
		[GAME_STYLE_SEAT(2)] = "#2e7d32",
		[GAME_STYLE_SEAT(3)] = "#c25400",
		[GAME_STYLE_DIM] = DIM_COLOUR,
		[GAME_STYLE_COINS] = "#9a6f00",
		[GAME_STYLE_CUPS] = "#c62828",
		[GAME_STYLE_SWORDS] = "#1557b0",
		[GAME_STYLE_CLUBS] = "#2e7d32",
		[GAME_STYLE_WILD] = "#7b1fa2",
		[GAME_STYLE_TAKEN] = "#c62828",
	};
	const char *v = c[look & GAME_STYLE_COLOUR];

	return v ? v : PAGE_FG;
}

/* A stone or piece: a disc with its letter (a square where a client
 * drops border-radius). */
static void
pic_piece(struct buf *o, const struct game_cell *c, int size)
{
	int col = c->look & GAME_STYLE_COLOUR, d = size * 7 / 10;
	const char *bg, *fg = "#ffffff", *br;

	if (col == GAME_STYLE_LIGHT) {
		bg = "#f3e4b8";
		fg = "#3b2a00";
		br = "#8a6d1f";
	} else if (col == GAME_STYLE_DARK) {
		bg = "#2b2b2b";
		br = "#000000";
	} else {
		bg = pic_colour(col);
		br = "#1c1b19";
	}
	buf_printf(o, "<span style=\"display:inline-block;width:%dpx;height:%dpx;"
	    "line-height:%dpx;border-radius:50%%;background-color:%s;color:%s;"
	    "border:%s %s;font-weight:bold;font-size:%dpx;text-align:center;"
	    "font-family:" SANS "\">", d - 4, d - 4, d - 4, bg, fg,
	    "2px solid", br, d / 2);
	esc(o, c->text, strlen(c->text));
	buf_adds(o, "</span>");
}

/* A card face (or back, or an empty pile) w px wide. */
static void
pic_card(struct buf *o, const struct game_cell *c, int w)
{
	int h = w * 4 / 3, font = w >= 34 ? 15 : w >= 26 ? 13 : 11;
	const char *bg = "#ffffff", *fg = pic_colour(c->look), *br =
	    "1px solid #b9b09c", *cls = "lx-card";

	if (c->kind == GAME_CELL_BACK && strcmp(c->text, "-") == 0) {
		bg = "transparent";
		fg = DIM_COLOUR;
		br = "1px dashed " LINE_COLOUR;
		cls = "lx-dim";
	} else if (c->kind == GAME_CELL_BACK) {
		bg = "#3d5a80";
		fg = "#ffffff";
		br = "1px solid #263a55";
	} else if (c->look & GAME_STYLE_LAST) {
		bg = "#fff6cc";
		br = "2px solid #e0a800";
	}
	buf_printf(o, "<table role=\"presentation\" cellpadding=\"0\" "
	    "cellspacing=\"0\" border=\"0\" align=\"center\"><tr><td class=\"%s\" "
	    "width=\"%d\" height=\"%d\" align=\"center\" valign=\"middle\" "
	    "style=\"width:%dpx;height:%dpx;background-color:%s;color:%s;"
	    "border:%s;border-radius:4px;font-weight:bold;font-size:%dpx;"
	    "font-family:" SANS ";white-space:nowrap\">", cls, w - 2, h, w - 2,
	    h, bg, fg, br, font);
	esc(o, c->text, strlen(c->text));
	buf_adds(o, "</td></tr></table>");
}

/* A line of a board drawn through its cell: a border of a nested table
 * for the straight ones, a glyph for the diagonals. */
static void
pic_line(struct buf *o, const struct game_cell *c, int size)
{
	const char *t = c->text;

	if (strcmp(t, "-") == 0)
		buf_printf(o, "<table role=\"presentation\" width=\"100%%\" "
		    "cellpadding=\"0\" cellspacing=\"0\" border=\"0\"><tr><td "
		    "class=\"lx-line\" height=\"%d\" style=\"height:%dpx;"
		    "border-bottom:2px solid " LINE_COLOUR ";font-size:0;"
		    "line-height:0\">&#160;</td></tr><tr><td height=\"%d\" "
		    "style=\"height:%dpx;font-size:0;line-height:0\">&#160;"
		    "</td></tr></table>", size / 2 - 1, size / 2 - 1,
		    size / 2 - 1, size / 2 - 1);
	else if (strcmp(t, "|") == 0)
		buf_printf(o, "<table role=\"presentation\" width=\"100%%\" "
		    "cellpadding=\"0\" cellspacing=\"0\" border=\"0\"><tr><td "
		    "class=\"lx-line\" width=\"50%%\" height=\"%d\" "
		    "style=\"height:%dpx;border-right:2px solid " LINE_COLOUR
		    ";font-size:0;line-height:0\">&#160;</td><td width=\"50%%\" "
		    "style=\"font-size:0;line-height:0\">&#160;</td></tr>"
		    "</table>", size, size);
	else
		buf_printf(o, "<span class=\"lx-dim\" style=\"color:" LINE_COLOUR
		    ";font-size:%dpx;line-height:%dpx;font-family:"
		    "'DejaVu Sans','Segoe UI Symbol','Apple Symbols',sans-serif\">"
		    "%s</span>", size, size, strcmp(t, "/") == 0 ? "\xe2\x95\xb1" :
		    "\xe2\x95\xb2");
}

/* The style of a board grid's cell (a square, a pit, a store, a point). */
static void
pic_cell_css(struct buf *o, const struct game_cell *c, int squares)
{
	int last = c->look & GAME_STYLE_LAST;

	switch (c->kind) {
	case GAME_CELL_PIT:
	case GAME_CELL_STORE:
		buf_printf(o, "background-color:%s;color:%s;border:3px solid "
		    BOARD_BG ";border-radius:14px;font-weight:bold;"
		    "font-size:%dpx;", last ? LAST_BG : SQUARE_BG,
		    pic_colour(c->look), c->kind == GAME_CELL_STORE ? 22 : 18);
		break;
	case GAME_CELL_POINT:
	case GAME_CELL_PIECE:
		if (squares)
			buf_printf(o, "background-color:%s;border:%s;",
			    last ? LAST_BG : SQUARE_BG, c->look &
			    GAME_STYLE_BOLD ? "3px solid " DIM_COLOUR :
			    "1px solid #d6cfbf");
		else if (last)
			buf_adds(o, "background-color:" LAST_BG ";"
			    "border-radius:50%;");
		break;
	case GAME_CELL_LABEL:
		buf_adds(o, "color:" DIM_COLOUR ";font-size:12px;"
		    "overflow-wrap:anywhere;");
		break;
	}
}

static int
pic_has(const struct game_pic *pic, const struct game_grid *g, int kind)
{
	int i;

	for (i = 0; i < g->rows * g->cols; i++)
		if (pic->cell[g->first + i].kind == kind)
			return 1;
	return 0;
}

/* One grid as a table (its caption above it). */
static void
pic_grid(struct html *h, const struct game_pic *pic,
    const struct game_grid *g)
{
	struct buf *o = &h->out;
	const struct game_cell *c;
	unsigned char cover[255 * 4];	/* spanned cells, rows x cols bits */
	int r, k, i, j, size, cw = 0, w, squares, cards;
	size_t bit;

	if (g->caption[0] != '\0') {
		buf_adds(o, "<p class=\"lx-t\" style=\"margin:0 0 4px;color:"
		    PAGE_FG "\">");
		inline_line(h, g->caption, NULL, strlen(g->caption), 0);
		buf_adds(o, "</p>\n");
	}
	if ((size_t)g->rows * g->cols > sizeof(cover) * 8)
		return;
	memset(cover, 0, sizeof(cover));
	cards = g->kind == GAME_GRID_CARDS;
	squares = !pic_has(pic, g, GAME_CELL_LINE);
	size = g->kind == GAME_GRID_MOVES ? 14 : PIC_PHONE / g->cols;
	if (size > 64)
		size = 64;
	if (cards) {
		/* Cards packed from the left, as many as a phone's width
		 * takes at once. */
		cw = (PIC_PHONE - 8) / g->cols;
		if (cw > 42)
			cw = 42;
	}
	if (g->kind == GAME_GRID_MOVES)
		buf_adds(o, "<table role=\"presentation\" dir=\"ltr\" "
		    "cellpadding=\"0\" cellspacing=\"0\" border=\"0\" "
		    "style=\"border-collapse:separate\">\n");
	else
		buf_printf(o, "<table role=\"presentation\" dir=\"ltr\" "
		    "class=\"lx-board\" width=\"%d\" cellpadding=\"%d\" "
		    "cellspacing=\"0\" border=\"0\" style=\"width:100%%;"
		    "max-width:%dpx;%sbackground-color:" BOARD_BG ";"
		    "border:1px solid #d6cfbf;border-radius:6px;margin:0 0 12px;"
		    "color:" PAGE_FG "\">\n", PIC_WIDE, cards ? 2 : 0, PIC_WIDE,
		    cards ? "" : "table-layout:fixed;");
	for (r = 0; r < g->rows; r++) {
		buf_adds(o, "<tr>");
		for (k = 0; k < g->cols; k++) {
			bit = (size_t)r * g->cols + (size_t)k;
			if (cover[bit / 8] & (1u << (bit % 8)))
				continue;
			c = game_pic_cell(pic, g, r, k);
			for (i = 0; i < (c->rowspan ? c->rowspan : 1); i++)
				for (j = 0; j < (c->colspan ? c->colspan : 1);
				    j++) {
					bit = (size_t)(r + i) * g->cols +
					    (size_t)(k + j);
					if (r + i < g->rows && k + j < g->cols)
						cover[bit / 8] |= (unsigned char)
						    (1u << (bit % 8));
				}
			if (g->kind == GAME_GRID_MOVES) {
				buf_printf(o, "<td width=\"%d\" height=\"%d\" "
				    "align=\"center\" style=\"width:%dpx;"
				    "height:%dpx;background-color:%s;color:"
				    "#ffffff;border:1px solid " BOARD_BG ";"
				    "font-size:9px;line-height:9px;"
				    "font-family:" SANS "\">", size, size,
				    size, size, strcmp(c->text, "o") == 0 ?
				    PAGE_FG : strcmp(c->text, "x") == 0 ?
				    pic_colour(c->look) : SQUARE_BG);
				esc(o, c->text, strlen(c->text));
				buf_adds(o, "</td>");
				continue;
			}
			buf_adds(o, "<td");
			if (c->rowspan > 1)
				buf_printf(o, " rowspan=\"%d\"", c->rowspan);
			if (c->colspan > 1)
				buf_printf(o, " colspan=\"%d\"", c->colspan);
			w = c->kind == GAME_CELL_LABEL && g->rows > 1 &&
			    g->cols > 1 && k == 0 ? 28 : cw;
			if (cards)
				buf_printf(o, " width=\"%d\"", w);
			else
				buf_printf(o, " height=\"%d\"", size);
			buf_printf(o, " align=\"center\" valign=\"middle\"%s "
			    "style=\"padding:0;", c->kind == GAME_CELL_LABEL ?
			    " dir=\"auto\" class=\"lx-dim\"" : "");
			if (cards)
				buf_printf(o, "width:%dpx;min-width:%dpx;", w, w);
			else
				buf_printf(o, "height:%dpx;", size);
			pic_cell_css(o, c, squares);
			buf_adds(o, "\">");
			switch (c->kind) {
			case GAME_CELL_LINE:
				pic_line(o, c, size);
				break;
			case GAME_CELL_PIECE:
				pic_piece(o, c, size);
				break;
			case GAME_CELL_CARD:
			case GAME_CELL_BACK:
				pic_card(o, c, cw ? cw : size);
				break;
			case GAME_CELL_POINT:
				if (c->text[0] != '\0' && !squares)
					buf_printf(o, "<span style=\"color:%s;"
					    "font-weight:bold;font-size:%dpx\">"
					    "%s</span>", c->text[0] == 'x' ?
					    "#c62828" : PAGE_FG, size / 2,
					    c->text[0] == 'x' ? "&#215;" :
					    "&#9675;");
				else if (!squares)
					buf_printf(o, "<span class=\"lx-dim\" "
					    "style=\"color:" LINE_COLOUR ";"
					    "font-size:%dpx\">&#9679;</span>",
					    size / 3);
				break;
			default:
				esc(o, c->text, strlen(c->text));
			}
			buf_adds(o, "</td>");
		}
		/* Cards: the rest of the row is the board's background. */
		if (cards)
			buf_adds(o, "<td>&#160;</td>");
		buf_adds(o, "</tr>\n");
	}
	buf_adds(o, "</table>\n");
}

/* The grids of a diagram (`block`), or those after a line (`after`):
 * card diagrams side by side, others one below the other.  The count
 * drawn. */
static int
pic_block(struct html *h, const struct game_pic *pic, int block,
    const char *line, size_t len)
{
	const struct game_grid *g;
	int i, n = 0, moves = 0;

	for (i = 0; i < pic->ngrids; i++) {
		g = &pic->grid[i];
		if (line == NULL ? g->after[0] != '\0' || g->block != block :
		    g->after[0] == '\0' || strlen(g->after) > len ||
		    strncmp(line, g->after, strlen(g->after)) != 0)
			continue;
		if (g->kind == GAME_GRID_MOVES) {
			if (moves++ == 0)
				buf_adds(&h->out, "<table role=\"presentation\" "
				    "dir=\"ltr\" cellpadding=\"0\" "
				    "cellspacing=\"0\" border=\"0\" "
				    "style=\"margin:0 0 12px\"><tr>");
			buf_adds(&h->out, "<td valign=\"top\" "
			    "style=\"padding:0 14px 0 0\">");
			pic_grid(h, pic, g);
			buf_adds(&h->out, "</td>");
		} else
			pic_grid(h, pic, g);
		n++;
	}
	if (moves)
		buf_adds(&h->out, "</tr></table>\n");
	return n;
}

/* Drawings kept for the boards of mails being made (mailhtml_pic_keep):
 * a ring, each with the text it was drawn for. */
#define PIC_KEPT	127
static struct {
	char	*board;
	struct game_pic *pic;
} kept[PIC_KEPT];
static int kept_next;

int
mailhtml_pic_keep(const char *board, const struct game_pic *pic)
{
	int i = kept_next;

	kept_next = (kept_next + 1) % PIC_KEPT;
	free(kept[i].board);
	if (kept[i].pic == NULL)
		kept[i].pic = xmalloc(sizeof(*kept[i].pic));
	kept[i].board = xstrdup(board);
	memcpy(kept[i].pic, pic, sizeof(*pic));
	return i + 1;
}

/* The drawing of the board text t[0..len) whose line ends carry id, when
 * it is still kept for that very text. */
static const struct game_pic *
pic_find(int id, const char *t, size_t len)
{
	const char *b;
	size_t n;

	if (id < 1 || id > PIC_KEPT || kept[id - 1].board == NULL)
		return NULL;
	b = kept[id - 1].board;
	n = strlen(b);
	while (n > 0 && b[n - 1] == '\n')
		n--;
	while (len > 0 && t[len - 1] == '\n')
		len--;
	return n == len && memcmp(b, t, n) == 0 ? kept[id - 1].pic : NULL;
}

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

/* Does a drawing have a grid to follow the line t[0..len)? */
static int
pic_after(const struct game_pic *pic, const char *t, size_t len)
{
	int i;
	size_t n;

	for (i = 0; pic != NULL && i < pic->ngrids; i++) {
		n = strlen(pic->grid[i].after);
		if (n > 0 && n <= len && strncmp(t, pic->grid[i].after, n) == 0)
			return 1;
	}
	return 0;
}

/*
 * A board: its lines of running text as paragraphs, each diagram as the
 * drawing's grids for it when there is a drawing (pic), else as the text
 * in a monospace block.
 */
static void
board_block(struct html *h, const struct line *l, size_t n,
    const struct game_pic *pic)
{
	struct line *turned = NULL, t;
	size_t i = 0, j, after = 0;
	int diagram = 0, pending = 0;

	/* A diagram drawn turned round for the reader: its legends (the
	 * lines of running text right above and below it) trade places, so
	 * each still names the side next to it. */
	if (pic != NULL && pic->turned) {
		for (i = 0; i < n && (l[i].len == 0 || l[i].text); i++)
			;
		for (j = i; j < n && l[j].len > 0 && !l[j].text; j++)
			;
		if (i > 0 && j < n && l[i - 1].len > 0 && l[i - 1].text &&
		    l[j].text) {
			turned = xreallocarray(NULL, n, sizeof(*turned));
			memcpy(turned, l, n * sizeof(*turned));
			t = turned[i - 1];
			turned[i - 1] = turned[j];
			turned[j] = t;
			l = turned;
		}
		i = 0;
	}

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
				int cont = h->para && k >= 2 && k < l[i].len;

				/* The grids that follow a line come after
				 * its paragraph. */
				if (pending && !cont) {
					para_close(h);
					pic_block(h, pic, -1, l[after].t +
					    strspn(l[after].t, " "),
					    l[after].len - strspn(l[after].t,
					    " "));
					pending = 0;
				}
				/* An indented line continues the one before
				 * (the text wraps long lines so). */
				if (cont)
					buf_addc(&h->out, '\n');
				else if (h->para)
					buf_adds(&h->out, "<br />\n");
				else
					buf_adds(&h->out, "<p class=\"lx-t\" "
					    "style=\"margin:0 0 12px;color:"
					    PAGE_FG "\">");
				h->para = 1;
				/* Blanks that align text in a monospace
				 * board mean nothing in running text. */
				inline_line(h, l[i].t + k, l[i].y + k,
				    l[i].len - k, 0);
				if (!cont && pic_after(pic, l[i].t + k,
				    l[i].len - k)) {
					pending = 1;
					after = i;
				}
			}
			para_close(h);
			if (pending)
				pic_block(h, pic, -1, l[after].t +
				    strspn(l[after].t, " "), l[after].len -
				    strspn(l[after].t, " "));
			pending = 0;
			continue;
		}
		if (pic != NULL && pic_block(h, pic, diagram++, NULL, 0) > 0) {
			i = j;
			continue;
		}
		/* An inline block as wide as the board, never wider than
		 * the page: a wider board scrolls in its box. */
		/* Right to left: the board stands at the start (right) of
		 * the text like a paragraph, but keeps its own direction and
		 * its lines' left alignment. */
		buf_printf(&h->out, "<div style=\"margin:0 0 12px\">"
		    "<pre%s class=\"lx-board\" style=\"display:inline-block;max-width:100%%;"
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
	free(turned);
}

/* The drawing of a board's lines: the one the page was given, else the
 * one kept for the id its line ends carry (mailhtml_pic_keep). */
static const struct game_pic *
board_pic(struct html *h, const struct line *l, size_t n)
{
	size_t i, len;
	unsigned id;

	if (h->o->pic != NULL)
		return h->o->pic;
	len = (size_t)(l[n - 1].t + l[n - 1].len - l[0].t);
	for (i = 0; i + 1 < n; i++) {
		if (l[i].t[l[i].len] != '\n' || l[i].y == NULL)
			continue;
		id = l[i].y[l[i].len] & 0x7f;
		if (id != 0)
			return pic_find((int)id, l[0].t, len);
	}
	return NULL;
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
			board_block(h, lines + i, j - i,
			    board_pic(h, lines + i, j - i));
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
	buf_adds(&h.out, "</title>\n" DARK_STYLE);
	buf_printf(&h.out, "</head>\n<body class=\"lx-page\" "
	    "style=\"margin:0;padding:0;background-color:" PAGE_BG ";color:"
	    PAGE_FG "\">\n"
	    "<table role=\"presentation\" class=\"lx-page\" width=\"100%%\" "
	    "cellpadding=\"0\" cellspacing=\"0\" border=\"0\" "
	    "style=\"table-layout:fixed;"
	    "background-color:" PAGE_BG ";color:" PAGE_FG "\"><tr><td%s "
	    "class=\"lx-t\" style=\"padding:12px 6px;overflow-wrap:anywhere;"
	    "font-family:" SANS ";font-size:15px;line-height:1.45;color:"
	    PAGE_FG "\">\n<div%s style=\"max-width:44em\">\n",
	    h.rtl ? " dir=\"rtl\" align=\"right\"" : "",
	    h.rtl ? " dir=\"rtl\"" : "");
	body(&h, text, style);
	buf_adds(&h.out, "</div>\n</td></tr></table>\n</body>\n</html>\n");
	return buf_steal(&h.out);
}
