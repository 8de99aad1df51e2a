/* site: the club's public pages (site.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "mailhtml.h"
#include "rating.h"
#include "referee/refint.h"
#include "site.h"

/* How many games the index lists of those going on and of those over,
 * results a ladder page lists, and players its plot draws. */
#define SITE_INDEX_ACTIVE	100
#define SITE_INDEX_FINISHED	40
#define SITE_LADDER_RESULTS	25
#define SITE_PLOT_SERIES	8
/* Changes taken from the store at once. */
#define SITE_BATCH		500
#define SITE_NAME_LEN		80

/* The colours of the page: the mail's (mailhtml.c), each pair of text and
 * background at a contrast of 4.5:1 or more. */
static const char site_css[] =
	"body{margin:0;background:#f6f3ec;color:#1c1b19;font:16px/1.5 "
	"-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif}"
	"header,main,footer{max-width:46em;margin:0 auto;padding:0 12px}"
	"header{padding-top:10px;padding-bottom:6px;"
	"border-bottom:1px solid #d6cfbf}"
	"header a{font-weight:bold;text-decoration:none}"
	"a{color:#0b57d0}a:focus-visible{outline:2px solid #0b57d0;"
	"outline-offset:2px}"
	"h1{font-size:1.45em;line-height:1.25;margin:18px 0 10px}"
	"h2{font-size:1.15em;line-height:1.3;margin:26px 0 8px}"
	"p{margin:0 0 12px}"
	".wide{overflow-x:auto}"
	/* A phone stacks the cells of a wide table's row, each beside its
	 * column's heading (table_end); the headings' row is kept for
	 * screen readers. */
	"@media (max-width:559px){.stack thead{position:absolute;width:1px;"
	"height:1px;overflow:hidden;clip:rect(0 0 0 0)}"
	".stack table,.stack tbody,.stack tr,.stack td{display:block}"
	".stack tr{border-bottom:1px solid #e2dccd;padding:5px 0}"
	".stack td{border:0;padding:1px 0;padding-inline-start:8.5em;"
	"position:relative}"
	".stack td::before{content:attr(data-label);position:absolute;"
	"inset-inline-start:0;width:8em;color:#57524a;font-size:.85em;"
	"line-height:1.75}}"
	"table{border-collapse:collapse;width:100%}"
	"th,td{text-align:start;padding:5px 10px 5px 0;vertical-align:top;"
	"border-bottom:1px solid #e2dccd}"
	"th{font-size:.85em;font-weight:600;color:#57524a}"
	"td.n,.d{font-variant-numeric:tabular-nums;white-space:nowrap}"
	"@media (min-width:700px){.positions pre{font-size:15px!important}}"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr;"
	"gap:3px 14px;margin:0 0 12px}"
	"dl.facts dt{color:#57524a}dl.facts dd{margin:0;"
	"overflow-wrap:anywhere}"
	".muted{color:#57524a}"
	".pos{display:none}.pos:target,.pos.cur{display:block}"
	".pos:target~.pos.cur{display:none}"
	".pos h3{font-size:1em;margin:4px 0 6px}"
	"nav.step{display:flex;flex-wrap:wrap;gap:6px;margin:0 0 10px}"
	"nav.step a,nav.step span{display:inline-block;min-width:2.6em;"
	"padding:5px 10px;border:1px solid #c9c0ad;border-radius:4px;"
	"background:#fffdf8;text-align:center;text-decoration:none}"
	"nav.step span{color:#6b655b;border-style:dashed}"
	"ol.record{list-style:none;padding:0;margin:0 0 12px}"
	"ol.record li{display:inline-block;margin:0 1.1em 2px 0;"
	"white-space:nowrap}"
	"ol.record a{text-decoration:none}ol.record a:hover{text-decoration:"
	"underline}"
	".result{font-weight:bold}"
	"code{font-family:Consolas,Menlo,'DejaVu Sans Mono',monospace;"
	"overflow-wrap:anywhere;font-size:.9em}"
	"figure{margin:0 0 12px}svg{max-width:100%;height:auto;"
	"background:#fffdf8;border:1px solid #d6cfbf;border-radius:4px}"
	"ul.legend{list-style:none;padding:0;margin:6px 0 0;display:flex;"
	"flex-wrap:wrap;gap:4px 16px}"
	"ul.legend svg{border:0;background:none;vertical-align:middle}"
	"footer{margin-top:32px;padding-top:8px;padding-bottom:24px;"
	"border-top:1px solid #d6cfbf;color:#57524a}"
	"footer p{font-size:.85em}";

/* The plot's lines: the seats' colours of the boards, then more, each
 * with a marker of its own so colour is never all that tells them
 * apart. */
static const char *const plot_colours[SITE_PLOT_SERIES] = {
	"#c62828", "#1557b0", "#2e7d32", "#c25400", "#7b1fa2", "#00796b",
	"#5d4037", "#37474f",
};

struct site {
	const struct site_src *src;
	const char *dir;	/* NULL: nothing is written */
	const char *lang;
	int	 rtl;
	int	 pages;
	char	*err;
	size_t	 errlen;
};

/* ---- text ---- */

static void
esc(struct buf *b, const char *s)
{
	for (; s != NULL && *s; s++)
		switch (*s) {
		case '&': buf_adds(b, "&amp;"); break;
		case '<': buf_adds(b, "&lt;"); break;
		case '>': buf_adds(b, "&gt;"); break;
		case '"': buf_adds(b, "&quot;"); break;
		case '\'': buf_adds(b, "&#39;"); break;
		default:
			buf_addc(b, (unsigned char)*s < 0x20 ? '?' : *s);
		}
}

static void
escf(struct buf *b, const char *fmt, ...) PRINTFLIKE(2, 3);

static void
escf(struct buf *b, const char *fmt, ...)
{
	struct buf t = { 0 };
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&t, fmt, ap);
	va_end(ap);
	esc(b, buf_str(&t));
	buf_free(&t);
}

/* Left-to-right text (notation, numbers, an address) in a page that
 * reads right to left. */
static void
ltr(struct site *s, struct buf *b, const char *text)
{
	if (s->rtl)
		buf_adds(b, "<bdi dir=\"ltr\">");
	esc(b, text);
	if (s->rtl)
		buf_adds(b, "</bdi>");
}

/* A link to a player's page (depth: how far the page is below the
 * top). */
static void
player_link(struct site *s, struct buf *b, const struct store_player *p,
    int depth)
{
	char local[SITE_NAME_LEN];

	buf_printf(b, "<a href=\"%splayer/%lld.html\">", depth ? "../" : "",
	    (long long)p->id);
	esc(b, ref_public_name(p, local, sizeof(local)));
	buf_adds(b, "</a>");
	(void)s;
}

static int
load_player(struct site *s, int64_t id, struct store_player *p)
{
	int rc = store_player_load(s->src->store, id, p);

	if (rc != 0)
		util_err(s->err, s->errlen, "player %lld: %s", (long long)id,
		    rc == 1 ? "none" : store_errmsg(s->src->store));
	return rc == 0 ? 0 : -1;
}

/* ---- pages ---- */

static void
page_begin(struct site *s, struct buf *b, const char *title, int depth)
{
	const char *club = s->src->cfg->referee.name;

	buf_printf(b, "<!DOCTYPE html>\n<html lang=\"%s\"%s>\n<head>\n"
	    "<meta charset=\"utf-8\" />\n<meta name=\"viewport\" content=\""
	    "width=device-width, initial-scale=1\" />\n<meta name=\""
	    "color-scheme\" content=\"light\" />\n<title>", s->lang,
	    s->rtl ? " dir=\"rtl\"" : "");
	esc(b, title);
	buf_adds(b, " \xe2\x80\x93 ");
	esc(b, club);
	buf_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n"
	    "<header><a href=\"%sindex.html\">", site_css, depth ? "../" :
	    "");
	esc(b, club);
	buf_adds(b, "</a></header>\n<main>\n");
}

static void
page_end(struct site *s, struct buf *b)
{
	const char *addr = s->src->cfg->referee.address;

	buf_adds(b, "</main>\n<footer><p>");
	esc(b, _("To play, watch a game or join a ladder, write to the "
	    "referee:"));
	buf_adds(b, " <a href=\"mailto:");
	esc(b, addr);
	buf_adds(b, "\">");
	ltr(s, b, addr);
	buf_adds(b, "</a>. ");
	esc(b, _("A mail that says help gets the list of commands."));
	buf_adds(b, "</p></footer>\n</body>\n</html>\n");
}

/* Write dir/rel from b: a temporary file renamed over it. */
static int
write_page(struct site *s, const char *rel, const struct buf *b)
{
	char *path, *tmp;
	FILE *f;
	int rc = 0;

	if (s->dir == NULL)
		return 0;
	path = xasprintf("%s/%s", s->dir, rel);
	tmp = xasprintf("%s/%s.%ld.tmp", s->dir, rel, (long)getpid());
	if ((f = fopen(tmp, "w")) == NULL ||
	    fwrite(b->s ? b->s : "", 1, b->len, f) != b->len ||
	    fclose(f) != 0) {
		util_err(s->err, s->errlen, "%s: %s", tmp, strerror(errno));
		if (f != NULL)
			fclose(f);
		unlink(tmp);
		rc = -1;
	} else if (rename(tmp, path) == -1) {
		util_err(s->err, s->errlen, "%s: %s", path, strerror(errno));
		unlink(tmp);
		rc = -1;
	} else
		s->pages++;
	free(tmp);
	free(path);
	return rc;
}

static int
make_dirs(struct site *s)
{
	static const char *const sub[] = { "", "/game", "/ladder", "/player" };
	char *p;
	size_t i;

	for (i = 0; i < nitems(sub); i++) {
		p = xasprintf("%s%s", s->dir, sub[i]);
		if (mkdir(p, 0755) == -1 && errno != EEXIST) {
			util_err(s->err, s->errlen, "%s: %s", p,
			    strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	return 0;
}

/* ---- games ---- */

/* Has the game a page: did it begin? */
static int
game_public(const struct store_game *row)
{
	if (strcmp(row->status, "invited") == 0)
		return 0;
	if (row->ended != NULL && (strcmp(row->ended, "declined") == 0 ||
	    strcmp(row->ended, "expired") == 0))
		return 0;
	return strcmp(row->status, "active") == 0 || row->nmoves > 0 ||
	    row->ended != NULL;
}

/* The names on the boards: as the mails' (the chosen name, else the
 * part before the @), or the seat names where two would read alike. */
struct names {
	struct store_player p[STORE_MAX_SEATS];
	int	 n;
	char	 label[STORE_MAX_SEATS][SITE_NAME_LEN];
	const char *board[GAME_MAX_SEATS];	/* NULL: the seat name */
};

static void
names_free(struct names *nm)
{
	int i;

	for (i = 0; i < nm->n; i++)
		store_player_free(&nm->p[i]);
	nm->n = 0;
}

static int
names_load(struct site *s, const struct play_game *g, struct names *nm)
{
	const char *at;
	int i, j, clash = 0;

	memset(nm, 0, sizeof(*nm));
	for (i = 0; i < g->row.nseats; i++) {
		if (load_player(s, g->row.player[i], &nm->p[i]) == -1) {
			names_free(nm);
			return -1;
		}
		nm->n++;
	}
	for (i = 0; i < nm->n; i++) {
		const struct store_player *p = &nm->p[i];

		if (refrobot_level(p->address) > 0)
			util_strlcpy(nm->label[i], ref_name(p), SITE_NAME_LEN);
		else if (p->name != NULL && *p->name != '\0')
			util_strlcpy(nm->label[i], p->name, SITE_NAME_LEN);
		else if ((at = strchr(p->address, '@')) != NULL &&
		    (size_t)(at - p->address) < SITE_NAME_LEN)
			snprintf(nm->label[i], SITE_NAME_LEN, "%.*s",
			    (int)(at - p->address), p->address);
		else
			util_strlcpy(nm->label[i], "?", SITE_NAME_LEN);
	}
	for (i = 0; i < nm->n; i++)
		for (j = i + 1; j < nm->n; j++)
			clash |= strcmp(nm->label[i], nm->label[j]) == 0 &&
			    nm->p[i].id != nm->p[j].id;
	for (i = 0; i < nm->n && i < GAME_MAX_SEATS; i++)
		nm->board[i] = clash ? NULL : nm->label[i];
	return 0;
}

/* A board for observers, as the mails show it. */
static void
board_html(struct site *s, const struct play_game *g, const void *st,
    const struct names *nm, struct buf *out)
{
	const struct game_ops *ops = g->def->ops;
	struct mailhtml_opts mo;
	struct game_view v;
	struct game_pic *pic = NULL;
	struct buf t = { 0 };
	char *style;
	size_t i;
	int k;

	memset(&v, 0, sizeof(v));
	v.viewer = GAME_PUBLIC;
	v.no_turn = 1;
	for (k = 0; k < GAME_MAX_SEATS; k++)
		v.names[k] = nm->board[k];
	ops->render(st, &v, &t);
	while (t.len > 0 && t.s[t.len - 1] == '\n')
		t.s[--t.len] = '\0';
	style = xcalloc(1, t.len + 1);
	if (ops->render_style != NULL)
		ops->render_style(st, &v, buf_str(&t), t.len, style);
	for (i = 0; i < t.len; i++)
		style[i] = (char)(MAILHTML_BOARD | (style[i] & 0x7f));
	memset(&mo, 0, sizeof(mo));
	mo.lang = s->lang;
	/* The mails' drawing of the board, when the game has one. */
	if (ops->draw != NULL) {
		pic = xcalloc(1, sizeof(*pic));
		ops->draw(st, &v, pic);
		if (!pic->full && pic->ngrids > 0)
			mo.pic = pic;
	}
	mailhtml_body(out, buf_str(&t), style, &mo);
	free(pic);
	free(style);
	buf_free(&t);
}

/*
 * How much of the log observers have been told of: all of it, unless the
 * last seat's turn of several plies goes on (observers hear of it when it
 * ends), then the log before that turn.
 */
static int
told_plies(const struct play_game *g, const struct store_move *log, int n)
{
	const struct game_ops *ops = g->def->ops;
	int seat, k;

	if (n == 0 || ops->ends_turn == NULL ||
	    strcmp(g->row.status, "active") != 0)
		return n;
	seat = log[n - 1].seat;
	if (ops->ends_turn(seat, log[n - 1].notation) ||
	    !(ops->to_move(g->st) & (1u << seat)))
		return n;
	for (k = n; k > 0 && log[k - 1].seat == seat &&
	    !ops->ends_turn(seat, log[k - 1].notation); k--)
		;
	return k;
}

/* Whether the server's deck dealt the game (its deal= is then no
 * variant, as in the mails). */
static int
deck_dealt(struct site *s, int64_t game)
{
	char *cards;
	int cycle, turn;

	if (store_deck_deal(s->src->store, game, &cycle, &turn, &cards) != 0)
		return 0;
	free(cards);
	return 1;
}

static void
fact(struct buf *b, const char *term)
{
	buf_adds(b, "<dt>");
	esc(b, term);
	buf_adds(b, "</dt><dd>");
}

/* The players of a game, linked, with their seats (and who won). */
static void
players_line(struct site *s, struct buf *b, const struct play_game *g,
    const struct names *nm, const struct game_result *res, int depth)
{
	int i;

	for (i = 0; i < nm->n; i++) {
		if (i > 0)
			buf_adds(b, ", ");
		player_link(s, b, &nm->p[i], depth);
		buf_adds(b, " (");
		esc(b, _(g->def->ops->seat_name(g->st, i)));
		buf_adds(b, ")");
		if (res != NULL && res->over && !res->draw &&
		    (res->winners & (1u << i))) {
			buf_adds(b, " \xe2\x80\x94 ");
			esc(b, _("won"));
		}
	}
}

/* The stepper's links under a position: first, previous, next, now. */
static void
step_nav(struct buf *b, int k, int last)
{
	buf_printf(b, "<nav class=\"step\" aria-label=\"%s\">",
	    _("positions"));
#define STEP(cond, to, arrow, word, label) do {			\
	const char *a_ = (to) < k ? (arrow) : "", *z_ = (to) < k ? "" :	\
	    (arrow);							\
									\
	if (cond)							\
		buf_printf(b, "<a href=\"#p%d\" title=\"%s\">%s%s%s%s%s</a>", \
		    (to), (label), a_, *a_ ? " " : "", (word), *z_ ? " " : \
		    "", z_);						\
	else								\
		buf_printf(b, "<span aria-hidden=\"true\">%s%s%s%s%s</span>", \
		    a_, *a_ ? " " : "", (word), *z_ ? " " : "", z_);	\
} while (0)
	/* The arrows are mirrored in text that reads right to left. */
	STEP(k > 0, 0, "\xc2\xab", _("Start"), _("the start"));
	STEP(k > 0, k - 1, "\xe2\x80\xb9", _("Back"),
	    _("the position before"));
	STEP(k < last, k + 1, "\xe2\x80\xba", _("Next"),
	    _("the position after"));
	STEP(k < last, last, "\xc2\xbb", _("Now"), _("the position now"));
#undef STEP
	buf_adds(b, "</nav>\n");
}

static int
game_page(struct site *s, const struct play_game *g, struct buf *b)
{
	const struct game_ops *ops = g->def->ops;
	struct store_move *log = NULL;
	struct names nm;
	struct game_result res;
	struct buf t = { 0 }, rec = { 0 }, pos = { 0 };
	char text[GAME_MOVE_TEXT], when[64], hash[65], seed[2 * RNG_SEED_LEN
	    + 1], merr[GAME_ERRLEN], *variant, *title;
	int n = 0, told, i, k, npos = 0, *num = NULL, shown, over, tm, first;
	void *st = NULL;
	struct game_move mv;

	if (!game_public(&g->row))
		return 1;
	if (names_load(s, g, &nm) == -1)
		return -1;
	if (store_moves(s->src->store, g->row.id, &log, &n) == -1) {
		util_err(s->err, s->errlen, "%s", store_errmsg(s->src->store));
		names_free(&nm);
		return -1;
	}
	told = told_plies(g, log, n);
	ops->result(g->st, &res);
	over = strcmp(g->row.status, "active") != 0;

	title = xasprintf(_("Game #%lld, %s"), (long long)g->row.id,
	    _(g->def->title));
	page_begin(s, b, title, 1);
	buf_adds(b, "<h1>");
	esc(b, title);
	buf_adds(b, "</h1>\n<dl class=\"facts\">");
	fact(b, _("Players"));
	players_line(s, b, g, &nm, over ? &res : NULL, 1);
	buf_adds(b, "</dd>");
	variant = refview_variant(g, deck_dealt(s, g->row.id));
	fact(b, _("Variant"));
	if (*variant)
		ltr(s, b, variant);
	else
		esc(b, _("as the rules have it"));
	free(variant);
	buf_adds(b, "</dd>");
	fact(b, _("Clock"));
	if (g->row.clock != NULL)
		buf_adds(&t, g->row.clock);
	else
		config_format_clock(&s->src->cfg->clock.move, &t);
	ltr(s, b, buf_str(&t));
	buf_reset(&t);
	buf_adds(b, "</dd>");
	fact(b, _("Rated"));
	esc(b, g->row.rated ? _("yes") : _("no"));
	buf_adds(b, "</dd>");
	fact(b, _("Status"));
	esc(b, refview_status(g->row.status));
	buf_adds(b, "</dd>");
	if (over) {
		refview_result(g, &t);
		fact(b, _("Result"));
		buf_adds(b, "<span class=\"result\">");
		esc(b, t.len ? buf_str(&t) : res.over ? res.text :
		    refview_status(g->row.status));
		buf_adds(b, "</span></dd>");
		buf_reset(&t);
	} else {
		/* Whose turn, in the position observers were last told of:
		 * the same seats while a turn goes on. */
		tm = (int)ops->to_move(g->st);
		for (i = 0, first = 1; i < nm.n; i++)
			if (tm & (1 << i)) {
				buf_printf(&t, "%s%s (%s)", first ? "" : ", ",
				    nm.label[i], _(ops->seat_name(g->st, i)));
				first = 0;
			}
		if (t.len) {
			fact(b, _("To move"));
			esc(b, buf_str(&t));
			buf_adds(b, "</dd>");
		}
		buf_reset(&t);
		if (g->row.deadline != 0) {
			ref_utc(g->row.deadline, when, sizeof(when));
			fact(b, _("Move due by"));
			ltr(s, b, when);
			buf_adds(b, "</dd>");
		}
	}
	if (told > 0) {
		ref_utc(log[told - 1].created, when, sizeof(when));
		fact(b, _("Last move"));
		ltr(s, b, when);
		buf_adds(b, "</dd>");
	}
	buf_adds(b, "</dl>\n");

	/* Every position observers may see: the start, then one after each
	 * ply; the last is the board now (from the stored state, unless a
	 * turn goes on). */
	num = xcalloc((size_t)n + 1, sizeof(*num));
	refview_turns(g, log, n, num);
	st = xcalloc(1, ops->state_size);
	if (ops->create(st, &g->opts, g->row.seed, g->row.nseats, merr,
	    sizeof(merr)) == -1) {
		util_err(s->err, s->errlen, "game %lld: %s",
		    (long long)g->row.id, merr);
		goto fail;
	}
	for (i = 0, k = 0; i <= told; i++) {
		int ply = i > 0 ? refview_shown(g, log[i - 1].seat,
		    log[i - 1].notation, GAME_PUBLIC, text, sizeof(text)) :
		    GAME_SHOWN_PLY;
		int last = 0;

		if (i > 0) {
			if (ops->parse_move(st, log[i - 1].seat,
			    log[i - 1].notation, &mv, merr, sizeof(merr)) ==
			    -1) {
				util_err(s->err, s->errlen, "game %lld ply %d: "
				    "%s", (long long)g->row.id, i, merr);
				goto fail;
			}
			ops->apply(st, log[i - 1].seat, &mv);
		}
		shown = ply;
		if (i > 0 && shown == GAME_SHOWN_EVENT) {
			buf_adds(&rec, "<li class=\"muted\">(");
			esc(&rec, nm.label[log[i - 1].seat]);
			buf_adds(&rec, ": ");
			ltr(s, &rec, text);
			buf_adds(&rec, ")</li>\n");
		}
		if (shown != GAME_SHOWN_PLY)
			continue;
		/* Is a later ply shown as a position?  Then this is not the
		 * last one. */
		last = 1;
		for (int j = i + 1; j <= told && last; j++) {
			char t2[GAME_MOVE_TEXT];

			last = refview_shown(g, log[j - 1].seat,
			    log[j - 1].notation, GAME_PUBLIC, t2,
			    sizeof(t2)) != GAME_SHOWN_PLY;
		}
		buf_printf(&pos, "<section class=\"pos%s\" id=\"p%d\">\n<h3>",
		    last ? " cur" : "", k);
		if (i == 0)
			esc(&pos, _("The start"));
		else {
			escf(&pos, _("Move %d: %s (%s) played "), num[i - 1],
			    nm.label[log[i - 1].seat],
			    _(ops->seat_name(st, log[i - 1].seat)));
			ltr(s, &pos, text);
			buf_adds(&rec, "<li><a href=\"#p");
			buf_printf(&rec, "%d\"><bdi>%d.</bdi> <bdi>", k,
			    num[i - 1]);
			esc(&rec, nm.label[log[i - 1].seat]);
			buf_adds(&rec, "</bdi>: ");
			ltr(s, &rec, text);
			buf_adds(&rec, "</a></li>\n");
		}
		buf_adds(&pos, "</h3>\n");
		buf_printf(&pos, "@NAV%d@", k);
		board_html(s, g, last && told == n ? g->st : st, &nm, &pos);
		buf_adds(&pos, "</section>\n");
		k++;
	}
	npos = k;

	buf_adds(b, "<h2>");
	esc(b, _("The board"));
	buf_adds(b, "</h2>\n<p class=\"muted\">");
	esc(b, _("The arrows step through the game, one position at a "
	    "time; each move of the record below shows the position after "
	    "it."));
	buf_adds(b, "</p>\n<div class=\"positions\">\n");
	{
		/* The stepper's links, now that the count is known. */
		const char *p = buf_str(&pos), *at;
		int m;

		while ((at = strstr(p, "@NAV")) != NULL) {
			buf_add(b, p, (size_t)(at - p));
			m = atoi(at + 4);
			step_nav(b, m, npos - 1);
			p = strchr(at + 4, '@') + 1;
		}
		buf_adds(b, p);
	}
	buf_adds(b, "</div>\n<h2>");
	esc(b, _("The moves"));
	buf_adds(b, "</h2>\n");
	if (rec.len) {
		buf_adds(b, "<ol class=\"record\">\n");
		buf_add(b, rec.s, rec.len);
		buf_adds(b, "</ol>\n");
	} else {
		buf_adds(b, "<p>");
		esc(b, _("No move has been played yet."));
		buf_adds(b, "</p>\n");
	}
	if (ops->chance) {
		buf_adds(b, "<h2>");
		esc(b, _("The deal"));
		buf_adds(b, "</h2>\n<p>");
		rng_commitment(g->row.seed, hash);
		esc(b, _("The cards were dealt from a seed whose SHA-256 was "
		    "published when the game began:"));
		buf_adds(b, " <code>");
		esc(b, hash);
		buf_adds(b, "</code></p>\n<p>");
		if (over) {
			util_hex(g->row.seed, RNG_SEED_LEN, seed);
			esc(b, _("The seed, revealed now that the game is "
			    "over:"));
			buf_adds(b, " <code>");
			esc(b, seed);
			buf_adds(b, "</code> ");
			escf(b, _("(`ludus verify %lld` checks it and replays "
			    "the game)."), (long long)g->row.id);
		} else
			esc(b, _("The seed itself is revealed when the game "
			    "is over."));
		buf_adds(b, "</p>\n");
	}
	page_end(s, b);
	free(title);
	free(st);
	free(num);
	buf_free(&t);
	buf_free(&rec);
	buf_free(&pos);
	store_moves_free(log, n);
	names_free(&nm);
	return 0;
fail:
	free(title);
	free(st);
	free(num);
	buf_free(&t);
	buf_free(&rec);
	buf_free(&pos);
	store_moves_free(log, n);
	names_free(&nm);
	return -1;
}

int
site_game_page(const struct site_src *src, const struct play_game *g,
    struct buf *out, char *err, size_t errlen)
{
	struct site s;
	char was[16];
	int rc;

	memset(&s, 0, sizeof(s));
	s.src = src;
	s.err = err;
	s.errlen = errlen;
	s.lang = src->cfg->referee.language == CONFIG_LANG_RU ? "ru" :
	    src->cfg->referee.language == CONFIG_LANG_AR ? "ar" : "en";
	s.rtl = i18n_rtl(s.lang);
	util_strlcpy(was, i18n_lang(), sizeof(was));
	i18n_set(s.lang);
	rc = game_page(&s, g, out);
	i18n_set(was);
	return rc;
}

char *
site_game_url(const struct config *cfg, int64_t game)
{
	size_t len;

	if (cfg->site.url == NULL)
		return NULL;
	len = strlen(cfg->site.url);
	while (len > 0 && cfg->site.url[len - 1] == '/')
		len--;
	return xasprintf("%.*s/game/%lld.html", (int)len, cfg->site.url,
	    (long long)game);
}

/* Write one game's page (nothing when it has none). */
static int
write_game(struct site *s, int64_t id)
{
	struct play_game g;
	struct buf b = { 0 };
	char rel[64];
	int rc;

	if ((rc = play_load(s->src->store, s->src->defs, s->src->ndefs, id, &g,
	    s->err, s->errlen)) != 0)
		return rc == 1 ? 0 : -1;
	rc = game_page(s, &g, &b);
	if (rc == 0) {
		snprintf(rel, sizeof(rel), "game/%lld.html", (long long)id);
		rc = write_page(s, rel, &b);
	} else if (rc == 1)
		rc = 0;
	buf_free(&b);
	play_free(&g);
	return rc;
}

/* One row of a list of games: number, game, players, and the result or
 * the last move. */
static int
game_row(struct site *s, struct buf *b, int64_t id, int depth,
    int64_t except)
{
	struct play_game g;
	struct names nm;
	struct game_result res;
	struct buf t = { 0 };
	char when[64];
	int i, first = 1, over;

	if (play_load(s->src->store, s->src->defs, s->src->ndefs, id, &g,
	    s->err, s->errlen) != 0)
		return -1;
	if (!game_public(&g.row)) {
		play_free(&g);
		return 1;
	}
	if (names_load(s, &g, &nm) == -1) {
		play_free(&g);
		return -1;
	}
	over = strcmp(g.row.status, "active") != 0;
	g.def->ops->result(g.st, &res);
	buf_printf(b, "<tr><td class=\"n\"><a href=\"%sgame/%lld.html\">"
	    "#%lld</a></td><td>", depth ? "../" : "", (long long)id,
	    (long long)id);
	esc(b, _(g.def->title));
	buf_adds(b, "</td><td>");
	for (i = 0; i < nm.n; i++) {
		if (nm.p[i].id == except)
			continue;
		if (!first)
			buf_adds(b, ", ");
		first = 0;
		player_link(s, b, &nm.p[i], depth);
	}
	buf_adds(b, "</td><td>");
	if (over) {
		refview_result(&g, &t);
		esc(b, t.len ? buf_str(&t) : res.over ? res.text :
		    refview_status(g.row.status));
	} else {
		esc(b, refview_status(g.row.status));
		if (g.row.nmoves > 0) {
			buf_adds(b, "<br /><span class=\"d muted\">");
			ref_utc(g.row.updated, when, sizeof(when));
			ltr(s, b, when);
			buf_adds(b, "</span>");
		}
	}
	buf_adds(b, "</td></tr>\n");
	buf_free(&t);
	names_free(&nm);
	play_free(&g);
	return 0;
}

/* A table's head: the column headings, NULL-terminated.  A table of
 * stack (too wide for a phone's screen) has its rows' cells stacked
 * there, each beside its heading; the others scroll if they must. */
static void
table_head(struct buf *b, int stack, ...)
{
	const char *h;
	va_list ap;
	int i = 0;

	buf_adds(b, stack ? "<div class=\"wide stack\"><table>\n<thead><tr>" :
	    "<div class=\"wide\"><table>\n<thead><tr>");
	va_start(ap, stack);
	while ((h = va_arg(ap, const char *)) != NULL) {
		buf_adds(b, i++ ? "</th><th>" : "<th>");
		esc(b, h);
	}
	va_end(ap);
	buf_adds(b, "</th></tr></thead>\n<tbody>\n");
}

static void
games_table_begin(struct buf *b, const char *who)
{
	table_head(b, 1, _("Game"), _("Kind"), who, _("State"), NULL);
}

/*
 * The end of the table table_head began: each cell is given its column's
 * heading (data-label), which the phone layout shows beside the cell when
 * it stacks a row's cells (site_css).  The table is this page's own
 * markup, every text in it escaped, so "<th>" and "<td" only start cells
 * and a heading can go into an attribute as it is.
 */
#define TABLE_COLS	8

static void
table_end(struct buf *b)
{
	static const char open[] = "<div class=\"wide";
	struct buf t = { 0 };
	const char *label[TABLE_COLS], *p, *q, *body;
	size_t llen[TABLE_COLS], at;
	int n = 0, col = 0;

	for (p = b->s, q = NULL; (p = strstr(p, open)) != NULL; p++)
		q = p;
	if (q == NULL || (body = strstr(q, "</thead>")) == NULL) {
		buf_adds(b, "</tbody></table></div>\n");
		return;
	}
	at = (size_t)(q - b->s);
	for (p = q; n < TABLE_COLS && (p = strstr(p, "<th>")) != NULL &&
	    p < body; p += 4) {
		label[n] = p + 4;
		llen[n++] = (size_t)(strstr(p, "</th>") - (p + 4));
	}
	buf_add(&t, q, (size_t)(body - q));
	for (p = body; *p != '\0'; p++) {
		if (strncmp(p, "<tr>", 4) == 0)
			col = 0;
		else if (strncmp(p, "<td", 3) == 0 &&
		    (p[3] == ' ' || p[3] == '>')) {
			buf_adds(&t, "<td");
			if (col < n) {
				buf_adds(&t, " data-label=\"");
				buf_add(&t, label[col], llen[col]);
				buf_addc(&t, '"');
			}
			col++;
			p += 2;
			continue;
		}
		buf_addc(&t, *p);
	}
	b->len = at;
	b->s[at] = '\0';
	buf_add(b, t.s, t.len);
	buf_free(&t);
	buf_adds(b, "</tbody></table></div>\n");
}

/* The rows of the games ids that have a page, under a table headed who,
 * or the paragraph none when no game has one; -1 when a game cannot be
 * read. */
static int
games_table(struct site *s, struct buf *b, const int64_t *ids, int n,
    int depth, int64_t except, const char *who, const char *none)
{
	int i, rc, rows = 0;

	for (i = 0; i < n; i++) {
		struct buf row = { 0 };

		if ((rc = game_row(s, &row, ids[i], depth, except)) == -1) {
			buf_free(&row);
			return -1;
		}
		if (rc == 0) {
			if (rows++ == 0)
				games_table_begin(b, who);
			buf_add(b, row.s, row.len);
		}
		buf_free(&row);
	}
	if (rows)
		table_end(b);
	else {
		buf_adds(b, "<p>");
		esc(b, none);
		buf_adds(b, "</p>\n");
	}
	return 0;
}

/* ---- ratings ---- */

/* As the mails show it (rating_format()), as of the page's writing. */
static void
rating_text(const struct store_rating *sr, struct buf *b)
{
	struct rating r = { sr->r, sr->rd, sr->sigma, sr->last };
	char text[64];

	rating_format(&r, clock_now(), text, sizeof(text));
	buf_adds(b, text);
}

/* The rating history of the players of a ladder, as an SVG plot: x is
 * the rated games of the ladder's game in the order they ended, y the
 * rating after each. */
struct series {
	const struct store_player *p;
	struct store_rating_point *pt;
	int	 n;
};

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The marker of series k at (x, y). */
static void
marker(struct buf *b, int k, double x, double y, const char *colour)
{
	switch (k % 4) {
	case 0:
		buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\""
		    " />", x, y, colour);
		break;
	case 1:
		buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\""
		    " fill=\"%s\" />", x - 4, y - 4, colour);
		break;
	case 2:
		buf_printf(b, "<path d=\"M%.1f %.1fl5 8.5h-10z\" fill=\"%s\" />",
		    x, y - 5, colour);
		break;
	default:
		buf_printf(b, "<path d=\"M%.1f %.1fl5 5-5 5-5-5z\" fill=\"white\""
		    " stroke=\"%s\" stroke-width=\"2\" />", x, y - 5, colour);
	}
}

static void
plot(struct site *s, struct buf *b, const char *title,
    const struct series *sv, int ns)
{
	const double W = 640, H = 280, L = 52, R = 14, T = 14, B = 34;
	int64_t *games;
	char local[SITE_NAME_LEN], when[64];
	double lo = 1e9, hi = -1e9, step, y0, xs, ys, x, y;
	int i, j, total = 0, ng = 0, idx;

	(void)s;
	for (i = 0; i < ns; i++)
		total += sv[i].n;
	games = xcalloc((size_t)total + 1, sizeof(*games));
	for (i = 0; i < ns; i++)
		for (j = 0; j < sv[i].n; j++) {
			games[ng++] = sv[i].pt[j].when * 1000000 +
			    sv[i].pt[j].game % 1000000;
			if (j == 0) {
				lo = fmin(lo, sv[i].pt[j].r_old);
				hi = fmax(hi, sv[i].pt[j].r_old);
			}
			lo = fmin(lo, sv[i].pt[j].r_new);
			hi = fmax(hi, sv[i].pt[j].r_new);
		}
	qsort(games, (size_t)ng, sizeof(*games), cmp_i64);
	for (i = 0, j = 0; i < ng; i++)
		if (j == 0 || games[i] != games[j - 1])
			games[j++] = games[i];
	ng = j;
	/* A round scale: steps of 25, 50, 100 or 200 points. */
	for (step = 25; (hi - lo) / step > 6; step *= 2)
		;
	y0 = floor((lo - step / 2) / step) * step;
	hi = ceil((hi + step / 2) / step) * step;
	xs = (W - L - R) / (ng > 0 ? ng : 1);
	ys = (H - T - B) / (hi - y0);

	buf_printf(b, "<figure><svg viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
	    "height=\"%.0f\" role=\"img\" aria-labelledby=\"plot-t plot-d\" "
	    "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" "
	    "font-size=\"12\"><title id=\"plot-t\">", W, H, W, H);
	esc(b, title);
	buf_adds(b, "</title><desc id=\"plot-d\">");
	for (i = 0; i < ns; i++) {
		if (sv[i].n == 0)
			continue;
		escf(b, P_("%s: from %ld to %ld after %d rated game. ",
		    "%s: from %ld to %ld after %d rated games. ", sv[i].n),
		    ref_public_name(sv[i].p, local, sizeof(local)),
		    lround(sv[i].pt[0].r_old), lround(sv[i].pt[sv[i].n - 1].r_new),
		    sv[i].n);
	}
	buf_adds(b, "</desc>");
	/* The grid and the rating scale. */
	for (y = y0; y <= hi + 0.5; y += step) {
		double py = H - B - (y - y0) * ys;

		buf_printf(b, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" "
		    "y2=\"%.1f\" stroke=\"#e2dccd\" /><text x=\"%.0f\" "
		    "y=\"%.1f\" text-anchor=\"end\" fill=\"#57524a\">%.0f</text>",
		    L, py, W - R, py, L - 6, py + 4, y);
	}
	buf_printf(b, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
	    "stroke=\"#8c857a\" />", L, H - B, W - R, H - B);
	if (ng > 0) {
		ref_utc(games[0] / 1000000, when, sizeof(when));
		when[10] = '\0';
		buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#57524a\">",
		    L + xs, H - B + 18);
		esc(b, when);
		buf_adds(b, "</text>");
		ref_utc(games[ng - 1] / 1000000, when, sizeof(when));
		when[10] = '\0';
		buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" "
		    "fill=\"#57524a\">", W - R, H - B + 18);
		esc(b, when);
		buf_adds(b, "</text>");
	}
	/* A line a player, from the rating before the first game. */
	for (i = 0; i < ns; i++) {
		if (sv[i].n == 0)
			continue;
		buf_printf(b, "<g><polyline fill=\"none\" stroke=\"%s\" "
		    "stroke-width=\"2\" points=\"", plot_colours[i]);
		for (j = -1; j < sv[i].n; j++) {
			int64_t key = sv[i].pt[j < 0 ? 0 : j].when * 1000000 +
			    sv[i].pt[j < 0 ? 0 : j].game % 1000000;
			int64_t *hit = bsearch(&key, games, (size_t)ng,
			    sizeof(*games), cmp_i64);

			idx = hit ? (int)(hit - games) + 1 : 0;
			if (j < 0)
				idx--;
			x = L + idx * xs;
			y = H - B - ((j < 0 ? sv[i].pt[0].r_old :
			    sv[i].pt[j].r_new) - y0) * ys;
			buf_printf(b, "%s%.1f,%.1f", j < 0 ? "" : " ", x, y);
		}
		buf_adds(b, "\" />");
		for (j = 0; j < sv[i].n; j++) {
			int64_t key = sv[i].pt[j].when * 1000000 +
			    sv[i].pt[j].game % 1000000;
			int64_t *hit = bsearch(&key, games, (size_t)ng,
			    sizeof(*games), cmp_i64);

			idx = hit ? (int)(hit - games) + 1 : 0;
			marker(b, i, L + idx * xs, H - B - (sv[i].pt[j].r_new -
			    y0) * ys, plot_colours[i]);
		}
		buf_adds(b, "</g>");
	}
	buf_adds(b, "</svg>\n<figcaption><ul class=\"legend\">");
	for (i = 0; i < ns; i++) {
		if (sv[i].n == 0)
			continue;
		buf_adds(b, "<li><svg width=\"26\" height=\"14\" viewBox=\"0 0 26 "
		    "14\" aria-hidden=\"true\">");
		buf_printf(b, "<line x1=\"0\" y1=\"7\" x2=\"26\" y2=\"7\" "
		    "stroke=\"%s\" stroke-width=\"2\" />", plot_colours[i]);
		marker(b, i, 13, 7, plot_colours[i]);
		buf_adds(b, "</svg> ");
		esc(b, ref_public_name(sv[i].p, local, sizeof(local)));
		buf_printf(b, " %ld</li>", lround(sv[i].pt[sv[i].n - 1].r_new));
	}
	buf_adds(b, "</ul></figcaption></figure>\n");
	free(games);
}

/* ---- ladders ---- */

static const char *
challenge_word(const char *status)
{
	static const char *const words[][2] = {
		{ "open", N_("open") }, { "won", N_("won by the challenger") },
		{ "lost", N_("won by the challenged") },
		{ "drawn", N_("drawn") }, { "forfeit", N_("forfeit") },
		{ "void", N_("void") },
	};
	size_t i;

	for (i = 0; i < nitems(words); i++)
		if (strcmp(status, words[i][0]) == 0)
			return _(words[i][1]);
	return status;
}

static int
ladder_page(struct site *s, int64_t id, struct buf *b, int64_t **players,
    int *nplayers)
{
	struct store *st = s->src->store;
	struct store_ladder l;
	struct store_rung *rungs = NULL;
	struct store_challenge *ch = NULL;
	struct store_player *pl = NULL;
	struct series sv[SITE_PLOT_SERIES];
	const struct gamedef *def;
	struct store_rating r;
	struct store_game row;
	struct buf t = { 0 };
	char when[64], *title;
	int i, j, n = 0, nch = 0, ns = 0, rc = -1, from, pub;

	if (store_ladder_load(st, id, &l) != 0) {
		util_err(s->err, s->errlen, "ladder %lld: %s", (long long)id,
		    store_errmsg(st));
		return -1;
	}
	def = gamedef_find(s->src->defs, s->src->ndefs, l.kind);
	memset(sv, 0, sizeof(sv));
	if (store_rungs(st, id, &rungs, &n) == -1)
		goto store;
	pl = xcalloc((size_t)n * 2 + 1, sizeof(*pl));
	for (i = 0; i < n; i++) {
		if (load_player(s, rungs[i].player, &pl[2 * i]) == -1 ||
		    (rungs[i].partner != 0 && load_player(s, rungs[i].partner,
		    &pl[2 * i + 1]) == -1))
			goto out;
		*players = xreallocarray(*players, (size_t)*nplayers + 2,
		    sizeof(**players));
		(*players)[(*nplayers)++] = rungs[i].player;
		if (rungs[i].partner != 0)
			(*players)[(*nplayers)++] = rungs[i].partner;
	}
	title = xasprintf(_("Ladder %s"), l.name);
	page_begin(s, b, title, 1);
	buf_adds(b, "<h1>");
	esc(b, title);
	free(title);
	buf_adds(b, "</h1>\n<dl class=\"facts\">");
	fact(b, _("Game"));
	esc(b, def ? _(def->title) : l.kind);
	buf_adds(b, "</dd>");
	if (l.options != NULL && *l.options) {
		fact(b, _("Variant"));
		ltr(s, b, l.options);
		buf_adds(b, "</dd>");
	}
	fact(b, _("Clock"));
	if (l.clock != NULL)
		buf_adds(&t, l.clock);
	else
		config_format_clock(&s->src->cfg->clock.move, &t);
	ltr(s, b, buf_str(&t));
	buf_reset(&t);
	buf_adds(b, "</dd>");
	fact(b, _("Challenges"));
	escf(b, P_("up to %d place above", "up to %d places above", l.reach),
	    l.reach);
	buf_adds(b, "</dd>");
	if (l.closed != 0) {
		fact(b, _("Closed"));
		ref_utc(l.closed, when, sizeof(when));
		ltr(s, b, when);
		buf_adds(b, "</dd>");
	}
	buf_adds(b, "</dl>\n<h2>");
	esc(b, _("Standings"));
	buf_adds(b, "</h2>\n");
	if (n == 0) {
		buf_adds(b, "<p>");
		esc(b, _("Nobody has joined yet."));
		buf_adds(b, "</p>\n");
	} else {
		table_head(b, 0, "#", l.pairs ? _("Pair") : _("Player"),
		    _("Rating"), _("Rated games"), NULL);
		for (i = 0; i < n; i++) {
			buf_printf(b, "<tr><td class=\"n\">%d</td><td>",
			    rungs[i].position);
			player_link(s, b, &pl[2 * i], 1);
			if (rungs[i].partner != 0) {
				buf_adds(b, " &amp; ");
				player_link(s, b, &pl[2 * i + 1], 1);
			}
			buf_adds(b, "</td><td class=\"n\">");
			if ((rc = store_rating_get(st, rungs[i].player, l.kind,
			    &r)) == -1)
				goto store;
			if (rc == 0 && r.games > 0) {
				rating_text(&r, &t);
				ltr(s, b, buf_str(&t));
				buf_reset(&t);
			} else
				esc(b, _("unrated"));
			buf_printf(b, "</td><td class=\"n\">%d</td></tr>\n",
			    rc == 0 ? r.games : 0);
		}
		table_end(b);
	}

	/* The plot: the players of the top rungs. */
	for (i = 0; i < 2 * n && ns < SITE_PLOT_SERIES; i++) {
		if (pl[i].address == NULL)
			continue;
		sv[ns].p = &pl[i];
		if (store_rating_history(st, pl[i].id, l.kind, &sv[ns].pt,
		    &sv[ns].n) == -1)
			goto store;
		ns += sv[ns].n > 0;
	}
	buf_adds(b, "<h2>");
	esc(b, _("Ratings over time"));
	buf_adds(b, "</h2>\n");
	if (ns == 0) {
		buf_adds(b, "<p>");
		esc(b, _("No rated game yet."));
		buf_adds(b, "</p>\n");
	} else {
		title = xasprintf(_("The ratings of the ladder's players after "
		    "each rated game of %s"), def ? _(def->title) : l.kind);
		plot(s, b, title, sv, ns);
		free(title);
	}

	for (from = 0; from < 2; from++) {
		if (store_challenges(st, id, 0, from == 0, 0, &ch, &nch) == -1)
			goto store;
		buf_adds(b, "<h2>");
		esc(b, from == 0 ? _("Open challenges") : _("Results"));
		buf_adds(b, "</h2>\n");
		if (nch == 0) {
			buf_adds(b, "<p>");
			esc(b, from == 0 ? _("None.") : _("No challenge has "
			    "been decided yet."));
			buf_adds(b, "</p>\n");
			store_challenges_free(ch, nch);
			ch = NULL;
			nch = 0;
			continue;
		}
		table_head(b, 1, _("Date"), _("Challenger"), _("Challenged"),
		    _("Outcome"), NULL);
		/* The newest first, a page's worth. */
		for (i = nch - 1; i >= 0 && i >= nch - SITE_LADDER_RESULTS;
		    i--) {
			struct store_player a, c;

			ref_utc(from == 0 ? ch[i].created : ch[i].decided,
			    when, sizeof(when));
			when[10] = '\0';
			buf_adds(b, "<tr><td class=\"n\">");
			ltr(s, b, when);
			buf_adds(b, "</td><td>");
			if (load_player(s, ch[i].challenger, &a) == -1)
				goto out;
			if (load_player(s, ch[i].challenged, &c) == -1) {
				store_player_free(&a);
				goto out;
			}
			player_link(s, b, &a, 1);
			buf_adds(b, "</td><td>");
			player_link(s, b, &c, 1);
			*players = xreallocarray(*players, (size_t)*nplayers +
			    2, sizeof(**players));
			(*players)[(*nplayers)++] = a.id;
			(*players)[(*nplayers)++] = c.id;
			store_player_free(&a);
			store_player_free(&c);
			buf_adds(b, "</td><td>");
			esc(b, challenge_word(ch[i].status));
			pub = 0;
			if (ch[i].game != 0) {
				if ((rc = store_game_load(st, ch[i].game,
				    &row)) == -1)
					goto store;
				pub = rc == 0 && game_public(&row);
				if (rc == 0)
					store_game_free(&row);
			}
			if (pub)
				buf_printf(b, ", <a href=\"../game/%lld.html\">"
				    "#%lld</a>", (long long)ch[i].game,
				    (long long)ch[i].game);
			buf_adds(b, "</td></tr>\n");
		}
		table_end(b);
		store_challenges_free(ch, nch);
		ch = NULL;
		nch = 0;
	}
	page_end(s, b);
	rc = 0;
	goto out;
store:
	util_err(s->err, s->errlen, "ladder %lld: %s", (long long)id,
	    store_errmsg(st));
	rc = -1;
out:
	for (i = 0; i < SITE_PLOT_SERIES; i++)
		free(sv[i].pt);
	for (j = 0; pl != NULL && j < 2 * n; j++)
		store_player_free(&pl[j]);
	free(pl);
	free(rungs);
	store_challenges_free(ch, nch);
	store_ladder_free(&l);
	buf_free(&t);
	return rc;
}

static int
write_ladder(struct site *s, int64_t id, int64_t **players, int *nplayers)
{
	struct buf b = { 0 };
	char rel[64];
	int rc;

	if ((rc = ladder_page(s, id, &b, players, nplayers)) == 0) {
		snprintf(rel, sizeof(rel), "ladder/%lld.html", (long long)id);
		rc = write_page(s, rel, &b);
	}
	buf_free(&b);
	return rc;
}

/* ---- players ---- */

static int
player_page(struct site *s, int64_t id, struct buf *b)
{
	struct store *st = s->src->store;
	struct store_player p;
	struct store_rating r;
	struct store_rung *rungs;
	struct store_ladder l;
	struct buf t = { 0 };
	int64_t *ids = NULL, *lad = NULL;
	char local[SITE_NAME_LEN], *title;
	int i, j, n = 0, nl = 0, nr, thanks, rc, head = 0;

	if (load_player(s, id, &p) == -1)
		return -1;
	title = xstrdup(ref_public_name(&p, local, sizeof(local)));
	page_begin(s, b, title, 1);
	buf_adds(b, "<h1>");
	esc(b, title);
	free(title);
	buf_adds(b, "</h1>\n<dl class=\"facts\">");
	if (p.public_address && refrobot_level(p.address) == 0) {
		fact(b, _("Address"));
		ltr(s, b, p.address);
		buf_adds(b, "</dd>");
	}
	if (store_player_authority(st, id, &thanks) == -1)
		goto store;
	fact(b, _("Thanks received"));
	buf_printf(b, "%d</dd>", thanks);
	buf_adds(b, "</dl>\n");

	/* Ratings, a game kind a row. */
	for (i = 0; i < s->src->ndefs; i++) {
		if ((rc = store_rating_get(st, id, s->src->defs[i].name, &r)) ==
		    -1)
			goto store;
		if (rc == 1 || r.games == 0)
			continue;
		if (!head) {
			buf_adds(b, "<h2>");
			esc(b, _("Ratings"));
			buf_adds(b, "</h2>\n");
			table_head(b, 0, _("Game"), _("Rating"), _("Rated games"),
			    NULL);
			head = 1;
		}
		buf_adds(b, "<tr><td>");
		esc(b, _(s->src->defs[i].title));
		buf_adds(b, "</td><td class=\"n\">");
		rating_text(&r, &t);
		ltr(s, b, buf_str(&t));
		buf_reset(&t);
		buf_printf(b, "</td><td class=\"n\">%d</td></tr>\n", r.games);
	}
	if (head)
		table_end(b);

	/* The ladders the player stands on. */
	if (store_ladder_ids(st, &lad, &nl) == -1)
		goto store;
	for (i = 0, head = 0; i < nl; i++) {
		if (store_rungs(st, lad[i], &rungs, &nr) == -1)
			goto store;
		for (j = 0; j < nr; j++)
			if (rungs[j].player == id || rungs[j].partner == id)
				break;
		if (j < nr && store_ladder_load(st, lad[i], &l) == 0) {
			if (!head) {
				buf_adds(b, "<h2>");
				esc(b, _("Ladders"));
				buf_adds(b, "</h2>\n<ul>\n");
				head = 1;
			}
			buf_printf(b, "<li><a href=\"../ladder/%lld.html\">",
			    (long long)lad[i]);
			esc(b, l.name);
			buf_adds(b, "</a>: ");
			escf(b, _("place %d of %d"), rungs[j].position, nr);
			buf_adds(b, "</li>\n");
			store_ladder_free(&l);
		}
		free(rungs);
	}
	if (head)
		buf_adds(b, "</ul>\n");

	buf_adds(b, "<h2>");
	esc(b, _("Games"));
	buf_adds(b, "</h2>\n");
	if (store_game_ids(st, id, &ids, &n) == -1)
		goto store;
	if (games_table(s, b, ids, n, 1, id, _("With"), _("No game yet.")) ==
	    -1)
		goto out;
	page_end(s, b);
	free(ids);
	free(lad);
	buf_free(&t);
	store_player_free(&p);
	return 0;
store:
	util_err(s->err, s->errlen, "player %lld: %s", (long long)id,
	    store_errmsg(st));
out:
	free(ids);
	free(lad);
	buf_free(&t);
	store_player_free(&p);
	return -1;
}

static int
write_player(struct site *s, int64_t id)
{
	struct buf b = { 0 };
	char rel[64];
	int rc;

	if ((rc = player_page(s, id, &b)) == 0) {
		snprintf(rel, sizeof(rel), "player/%lld.html", (long long)id);
		rc = write_page(s, rel, &b);
	}
	buf_free(&b);
	return rc;
}

/* ---- the index ---- */

/* The open seeks: who seeks what, the seats taken, who may take one,
 * until when, and how to take one by mail. */
static int
seeks_section(struct site *s, struct buf *b)
{
	struct store *st = s->src->store;
	struct store_seek k;
	struct store_player p;
	struct store_ladder l;
	const struct gamedef *def;
	char when[32];
	int64_t *ids;
	int i, j, n, taken;

	if (store_seeks_open(st, &ids, &n) == -1) {
		util_err(s->err, s->errlen, "seeks: %s", store_errmsg(st));
		return -1;
	}
	buf_adds(b, "<h2>");
	esc(b, _("Open seeks"));
	buf_adds(b, "</h2>\n");
	if (n == 0) {
		buf_adds(b, "<p>");
		esc(b, _("Nobody is looking for an opponent just now."));
		buf_adds(b, "</p>\n");
		free(ids);
		return 0;
	}
	buf_adds(b, "<p>");
	escf(b, _("To take a seat, mail %s the line accept #NUMBER."),
	    s->src->cfg->referee.address);
	buf_adds(b, "</p>\n");
	table_head(b, 1, "#", _("Game"), _("Sought by"), _("Seats"),
	    _("Open to"), _("Until"), NULL);
	for (i = 0; i < n; i++) {
		if (store_seek_load(st, ids[i], &k) != 0)
			continue;
		def = gamedef_find(s->src->defs, s->src->ndefs, k.kind);
		buf_printf(b, "<tr><td class=\"n\">%lld</td><td>",
		    (long long)k.id);
		esc(b, def ? _(def->title) : k.kind);
		if (*k.words) {
			buf_adds(b, " ");
			ltr(s, b, k.words);
		}
		buf_adds(b, "</td><td>");
		if (load_player(s, k.player[0], &p) == 0) {
			player_link(s, b, &p, 0);
			store_player_free(&p);
		}
		for (j = 0, taken = 0; j < k.nseats; j++)
			taken += k.player[j] != 0;
		buf_printf(b, "</td><td class=\"n\">%d/%d</td><td>", taken,
		    k.nseats);
		if (k.ladder != 0 && store_ladder_load(st, k.ladder, &l) == 0) {
			escf(b, _("ladder %s"), l.name);
			store_ladder_free(&l);
			if (k.rating_min || k.rating_max)
				buf_adds(b, ", ");
		}
		if (k.rating_min && k.rating_max)
			escf(b, _("rating %d to %d"), k.rating_min,
			    k.rating_max);
		else if (k.rating_min)
			escf(b, _("rating %d or more"), k.rating_min);
		else if (k.rating_max)
			escf(b, _("rating %d or less"), k.rating_max);
		else if (k.ladder == 0)
			esc(b, _("anyone"));
		ref_utc(k.expires, when, sizeof(when));
		buf_adds(b, "</td><td>");
		ltr(s, b, when);
		buf_adds(b, "</td></tr>\n");
		store_seek_free(&k);
	}
	table_end(b);
	free(ids);
	return 0;
}

static int
index_page(struct site *s, struct buf *b)
{
	struct store *st = s->src->store;
	struct store_ladder l;
	struct store_rung *rungs;
	struct store_player p;
	const struct gamedef *def;
	int64_t *ids = NULL;
	int i, n = 0, nr, part;

	page_begin(s, b, _("The club"), 0);
	buf_adds(b, "<h1>");
	esc(b, s->src->cfg->referee.name);
	buf_adds(b, "</h1>\n<p>");
	esc(b, _("Games played by mail with this referee, as everyone may "
	    "watch them: the ladders, the games going on and the games "
	    "over."));
	buf_adds(b, "</p>\n<h2>");
	esc(b, _("Ladders"));
	buf_adds(b, "</h2>\n");
	if (store_ladder_ids(st, &ids, &n) == -1)
		goto store;
	if (n == 0) {
		buf_adds(b, "<p>");
		esc(b, _("No ladder is open."));
		buf_adds(b, "</p>\n");
	} else {
		table_head(b, 1, _("Ladder"), _("Kind"), _("Rungs"),
		    _("At the top"), NULL);
		for (i = 0; i < n; i++) {
			if (store_ladder_load(st, ids[i], &l) != 0)
				goto store;
			if (store_rungs(st, ids[i], &rungs, &nr) == -1) {
				store_ladder_free(&l);
				goto store;
			}
			def = gamedef_find(s->src->defs, s->src->ndefs, l.kind);
			buf_printf(b, "<tr><td><a href=\"ladder/%lld.html\">",
			    (long long)ids[i]);
			esc(b, l.name);
			buf_adds(b, "</a></td><td>");
			esc(b, def ? _(def->title) : l.kind);
			buf_printf(b, "</td><td class=\"n\">%d</td><td>", nr);
			for (part = 0; nr > 0 && part < 2; part++) {
				int64_t who = part ? rungs[0].partner :
				    rungs[0].player;

				if (who == 0)
					continue;
				if (load_player(s, who, &p) == -1) {
					free(rungs);
					store_ladder_free(&l);
					goto out;
				}
				if (part)
					buf_adds(b, " &amp; ");
				player_link(s, b, &p, 0);
				store_player_free(&p);
			}
			buf_adds(b, "</td></tr>\n");
			free(rungs);
			store_ladder_free(&l);
		}
		table_end(b);
	}
	free(ids);
	ids = NULL;
	if (seeks_section(s, b) == -1)
		goto out;

	for (part = 0; part < 2; part++) {
		buf_adds(b, "<h2>");
		esc(b, part == 0 ? _("Games going on") : _("Games over"));
		buf_adds(b, "</h2>\n");
		if (store_games_public(st, part, part == 0 ? SITE_INDEX_ACTIVE :
		    SITE_INDEX_FINISHED, &ids, &n) == -1)
			goto store;
		if (games_table(s, b, ids, n, 0, 0, _("Players"), part == 0 ?
		    _("No game is going on.") : _("No game is over yet.")) == -1)
			goto out;
		free(ids);
		ids = NULL;
	}
	page_end(s, b);
	return 0;
store:
	util_err(s->err, s->errlen, "index: %s", store_errmsg(st));
out:
	free(ids);
	return -1;
}

static int
write_index(struct site *s)
{
	struct buf b = { 0 };
	int rc;

	if ((rc = index_page(s, &b)) == 0)
		rc = write_page(s, "index.html", &b);
	buf_free(&b);
	return rc;
}

/* ---- what to write ---- */

/* A set of ids. */
struct ids {
	int64_t	*v;
	int	 n;
};

static void
ids_add(struct ids *set, int64_t id)
{
	set->v = xreallocarray(set->v, (size_t)set->n + 1, sizeof(*set->v));
	set->v[set->n++] = id;
}

static void
ids_sort(struct ids *set)
{
	int i, j;

	if (set->n == 0)
		return;
	qsort(set->v, (size_t)set->n, sizeof(*set->v), cmp_i64);
	for (i = 0, j = 0; i < set->n; i++)
		if (j == 0 || set->v[i] != set->v[j - 1])
			set->v[j++] = set->v[i];
	set->n = j;
}

static void
site_init(struct site *s, const struct site_src *src, const char *dir,
    char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->src = src;
	s->dir = dir;
	s->err = err;
	s->errlen = errlen;
	s->lang = src->cfg->referee.language == CONFIG_LANG_RU ? "ru" :
	    src->cfg->referee.language == CONFIG_LANG_AR ? "ar" : "en";
	s->rtl = i18n_rtl(s->lang);
}

/* Write the pages of the games, ladders and players named, and the
 * index. */
static int
write_set(struct site *s, struct ids *games, struct ids *ladders,
    struct ids *players)
{
	struct store_game row;
	int i, k, rc;

	ids_sort(games);
	for (i = 0; i < games->n; i++)
		if (write_game(s, games->v[i]) == -1)
			return -1;
	ids_sort(ladders);
	for (i = 0; i < ladders->n; i++)
		if (write_ladder(s, ladders->v[i], &players->v, &players->n) ==
		    -1)
			return -1;
	/* The players of the games too: their lists of games changed. */
	for (i = 0; i < games->n; i++) {
		if ((rc = store_game_load(s->src->store, games->v[i], &row)) ==
		    -1)
			return -1;
		if (rc == 0 && game_public(&row))
			for (k = 0; k < row.nseats; k++)
				ids_add(players, row.player[k]);
		if (rc == 0)
			store_game_free(&row);
	}
	ids_sort(players);
	for (i = 0; i < players->n; i++)
		if (write_player(s, players->v[i]) == -1)
			return -1;
	return write_index(s);
}

static int
write_all(struct site *s)
{
	struct ids games = { 0 }, ladders = { 0 }, players = { 0 };
	int64_t *v;
	int n, rc = -1;

	if (make_dirs(s) == -1)
		return -1;
	if (store_game_ids(s->src->store, 0, &v, &n) == -1)
		goto store;
	games.v = v;
	games.n = n;
	if (store_ladder_ids(s->src->store, &v, &n) == -1)
		goto store;
	ladders.v = v;
	ladders.n = n;
	rc = write_set(s, &games, &ladders, &players);
	goto out;
store:
	util_err(s->err, s->errlen, "%s", store_errmsg(s->src->store));
out:
	free(games.v);
	free(ladders.v);
	free(players.v);
	return rc;
}

int
site_write_all(const struct site_src *src, const char *dir, int *pages,
    char *err, size_t errlen)
{
	struct site s;
	char was[16];
	int rc;

	site_init(&s, src, dir, err, errlen);
	util_strlcpy(was, i18n_lang(), sizeof(was));
	i18n_set(s.lang);
	rc = write_all(&s);
	i18n_set(was);
	*pages = s.pages;
	return rc;
}

/* One batch of recorded changes: 1 when there was none, 0 when they were
 * written and taken. */
static int
refresh_batch(struct site *s)
{
	struct store *st = s->src->store;
	struct ids games = { 0 }, ladders = { 0 }, players = { 0 }, more;
	struct store_site_change *c;
	struct store_game row;
	int64_t *v, *lad = NULL;
	int n, i, k, m, nl = 0, rc = -1;

	if (store_site_changes(st, SITE_BATCH, &c, &n) == -1) {
		util_err(s->err, s->errlen, "%s", store_errmsg(st));
		return -1;
	}
	if (n == 0)
		return 1;
	if (store_ladder_ids(st, &lad, &nl) == -1)
		goto store;
	for (i = 0; i < n; i++)
		switch (c[i].kind) {
		case 'G':
			/* Begun or over: the ladders of its game show
			 * ratings that may have moved. */
			if ((rc = store_game_load(st, c[i].id, &row)) == -1)
				goto store;
			for (k = 0; rc == 0 && k < nl; k++) {
				struct store_ladder l;

				if (store_ladder_load(st, lad[k], &l) != 0)
					continue;
				if (strcmp(l.kind, row.kind) == 0)
					ids_add(&ladders, lad[k]);
				store_ladder_free(&l);
			}
			if (rc == 0)
				store_game_free(&row);
			/* FALLTHROUGH */
		case 'g':
			ids_add(&games, c[i].id);
			break;
		case 'n':
			/* A new name shows on the player's games and
			 * ladders. */
			if (store_game_ids(st, c[i].id, &v, &m) == -1)
				goto store;
			more.v = v;
			more.n = m;
			for (k = 0; k < more.n; k++)
				ids_add(&games, more.v[k]);
			free(more.v);
			for (k = 0; k < nl; k++)
				ids_add(&ladders, lad[k]);
			ids_add(&players, c[i].id);
			break;
		case 'p':
			ids_add(&players, c[i].id);
			break;
		case 'l':
			ids_add(&ladders, c[i].id);
			break;
		/* 's', a seek: the index, which every batch rewrites. */
		}
	rc = write_set(s, &games, &ladders, &players);
	if (rc == 0 && store_site_changes_done(st, c[n - 1].seq) == -1)
		goto store;
	goto out;
store:
	util_err(s->err, s->errlen, "%s", store_errmsg(st));
	rc = -1;
out:
	free(c);
	free(lad);
	free(games.v);
	free(ladders.v);
	free(players.v);
	return rc;
}

int
site_refresh(const struct site_src *src, const char *dir, int *pages,
    char *err, size_t errlen)
{
	struct store_site_change *c;
	struct site s;
	char was[16], *index;
	int rc = 0, n, i;
	int64_t top = 0;

	site_init(&s, src, dir, err, errlen);
	util_strlcpy(was, i18n_lang(), sizeof(was));
	i18n_set(s.lang);
	index = xasprintf("%s/index.html", dir);
	if (access(index, F_OK) == -1) {
		/* Everything, then the changes made before are taken. */
		do {
			if (store_site_changes(src->store, SITE_BATCH, &c,
			    &n) == -1) {
				util_err(err, errlen, "%s",
				    store_errmsg(src->store));
				rc = -1;
				break;
			}
			for (i = 0; i < n; i++)
				if (c[i].seq > top)
					top = c[i].seq;
			free(c);
		} while (n == SITE_BATCH && rc == 0 &&
		    store_site_changes_done(src->store, top) == 0);
		if (rc == 0)
			rc = write_all(&s);
		if (rc == 0 && top > 0 && store_site_changes_done(src->store,
		    top) == -1) {
			util_err(err, errlen, "%s", store_errmsg(src->store));
			rc = -1;
		}
	} else if (make_dirs(&s) == 0) {
		while ((rc = refresh_batch(&s)) == 0)
			;
		rc = rc == 1 ? 0 : -1;
	} else
		rc = -1;
	free(index);
	i18n_set(was);
	*pages = s.pages;
	return rc;
}
