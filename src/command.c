/* command: read one line of the mail command language (commands.md). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "addr.h"
#include "command.h"
#include "i18n.h"
#include "conf.h"
#include "games/game.h"
#include "yamlwalk.h"

#define MAX_ALIAS_WORDS	3
#define MAX_ALIAS_LEN	60
#define MAX_COOKIE	128
#define MAX_TOPIC	100

struct alias {
	char		*words;		/* folded, single spaces */
	char		 lang[4];	/* en, ru, ...: two or three letters */
	enum command_kind kind;
	int		 line;
};

struct command_aliases {
	struct alias	*v;
	int		 n;
	int		 cap;		/* of v */
	int		*slot;		/* while loading: index + 1 by hash */
	int		 nslot;		/* a power of two, or 0 */
};

/* Each kind's keyword (also the key of its aliases in
 * games/commands.yaml), its form and its parse step. */
static const struct command_syntax syntax[CMD_NKINDS] = {
	[CMD_NONE] = { .name = "", .usage = "" },
	[CMD_HELP] = { .name = "help",
	    .usage = "help [GAME|TOPIC]",
	    .parse = command_args_help },
	[CMD_GAMES] = { .name = "games",
	    .usage = "games",
	    .parse = command_args_none },
	[CMD_NEW] = { .name = "new",
	    .usage = "new GAME [OPT=VAL...] ADDRESS...",
	    .parse = command_args_new },
	[CMD_ACCEPT] = { .name = "accept",
	    .usage = "accept [#ID]",
	    .game = 1,
	    .parse = command_args_game },
	[CMD_DECLINE] = { .name = "decline",
	    .usage = "decline [#ID]",
	    .game = 1,
	    .parse = command_args_game },
	[CMD_MOVE] = { .name = "move",
	    .usage = "move [#ID] [N.] MOVE[, MOVE...]",
	    .game = 1,
	    .parse = command_args_moves },
	[CMD_PREVIEW] = { .name = "preview",
	    .usage = "preview [#ID] [N.] MOVE[, MOVE...]",
	    .game = 1,
	    .parse = command_args_moves },
	[CMD_BOARD] = { .name = "board",
	    .usage = "board [#ID]",
	    .game = 1,
	    .parse = command_args_game },
	[CMD_HISTORY] = { .name = "history",
	    .usage = "history [#ID]",
	    .game = 1,
	    .parse = command_args_game },
	[CMD_RESIGN] = { .name = "resign",
	    .usage = "resign [#ID]",
	    .game = 1,
	    .parse = command_args_game },
	[CMD_DRAW] = { .name = "draw",
	    .usage = "draw [#ID]",
	    .game = 1,
	    .parse = command_args_game },
	[CMD_SIGNAL] = { .name = "signal",
	    .usage = "signal [#ID] NAME",
	    .game = 1,
	    .parse = command_args_signal },
	[CMD_OBSERVE] = { .name = "observe",
	    .usage = "observe [#ID]",
	    .game = 1,
	    .parse = command_args_game },
	[CMD_UNOBSERVE] = { .name = "unobserve",
	    .usage = "unobserve [#ID]",
	    .game = 1,
	    .parse = command_args_game },
	[CMD_LIST] = { .name = "list",
	    .usage = "list",
	    .parse = command_args_none },
	[CMD_BUMP] = { .name = "bump",
	    .usage = "bump",
	    .parse = command_args_none },
	[CMD_SET_LANGUAGE] = { .name = "set language",
	    .usage = "set language CODE",
	    .parse = command_args_language },
	[CMD_SET_NOTIFY] = { .name = "set notify",
	    .usage = "set notify turn|all|off",
	    .parse = command_args_notify },
	[CMD_SET_NAME] = { .name = "set name",
	    .usage = "set name TEXT",
	    .parse = command_args_name },
	[CMD_SET_TIMEZONE] = { .name = "set timezone",
	    .usage = "set timezone ZONE",
	    .parse = command_args_timezone },
	[CMD_SET_PUBLIC_ADDRESS] = { .name = "set public-address",
	    .usage = "set public-address yes|no",
	    .parse = command_args_public_address },
	[CMD_VACATION] = { .name = "vacation",
	    .usage = "vacation DAYS|off",
	    .parse = command_args_vacation },
	[CMD_SAY] = { .name = "say",
	    .usage = "say [#ID] TEXT",
	    .game = 1,
	    .parse = command_args_say },
	[CMD_THANKS] = { .name = "thanks",
	    .usage = "thanks [#ID] [TEXT]",
	    .game = 1,
	    .parse = command_args_thanks },
	[CMD_REPORT] = { .name = "report",
	    .usage = "report [#ID] TEXT",
	    .game = 1,
	    .parse = command_args_report },
	[CMD_CONFIRM] = { .name = "confirm",
	    .usage = "confirm COOKIE",
	    .parse = command_args_confirm },
	[CMD_ADMIN_NEW] = { .name = "admin new",
	    .usage = "admin new GAME [OPT=VAL...] ADDRESS...",
	    .parse = command_args_new },
	[CMD_ADMIN_ABORT] = { .name = "admin abort",
	    .usage = "admin abort #ID [REASON]",
	    .game = 1,
	    .parse = command_args_abort },
	[CMD_ADMIN_ADJUDICATE] = { .name = "admin adjudicate",
	    .usage = "admin adjudicate #ID draw|1-0|0-1|ADDRESS|SEAT [REASON]",
	    .game = 1,
	    .parse = command_args_adjudicate },
	[CMD_ADMIN_EXTEND] = { .name = "admin extend",
	    .usage = "admin extend #ID HOURS [REASON]",
	    .game = 1,
	    .parse = command_args_extend },
	[CMD_ADMIN_BAN] = { .name = "admin ban",
	    .usage = "admin ban ADDRESS [REASON]",
	    .parse = command_args_ban },
	[CMD_ADMIN_UNBAN] = { .name = "admin unban",
	    .usage = "admin unban ADDRESS",
	    .parse = command_args_ban },
	[CMD_ADMIN_REPORTS] = { .name = "admin reports",
	    .usage = "admin reports",
	    .parse = command_args_none },
	[CMD_ADMIN_RESOLVE] = { .name = "admin resolve",
	    .usage = "admin resolve N TEXT",
	    .parse = command_args_resolve },
	[CMD_LADDER] = { .name = "ladder",
	    .usage = "ladder NAME",
	    .parse = command_args_ladder },
	[CMD_LADDER_JOIN] = { .name = "ladder join",
	    .usage = "ladder join NAME [with ADDRESS]",
	    .parse = command_args_ladder },
	[CMD_LADDER_LEAVE] = { .name = "ladder leave",
	    .usage = "ladder leave NAME",
	    .parse = command_args_ladder },
	[CMD_CHALLENGE] = { .name = "challenge",
	    .usage = "challenge ADDRESS [LADDER]",
	    .parse = command_args_ladder },
	[CMD_ADMIN_LADDER_CREATE] = { .name = "admin ladder create",
	    .usage = "admin ladder create NAME GAME [OPT=VAL...]",
	    .parse = command_args_ladder },
	[CMD_ADMIN_LADDER_CLOSE] = { .name = "admin ladder close",
	    .usage = "admin ladder close NAME",
	    .parse = command_args_ladder },
	[CMD_ADMIN_LADDER_REMOVE] = { .name = "admin ladder remove-player",
	    .usage = "admin ladder remove-player NAME ADDRESS",
	    .parse = command_args_ladder },
	[CMD_ADMIN_LADDER_ADJUST] = { .name = "admin ladder adjust",
	    .usage = "admin ladder adjust NAME ADDRESS POSITION",
	    .parse = command_args_ladder },
	[CMD_SEEK] = { .name = "seek",
	    .usage = "seek GAME [OPT=VAL...] [ladder=NAME] [rating=LOW-HIGH]",
	    .parse = command_args_seek },
	[CMD_SEEKS] = { .name = "seeks",
	    .usage = "seeks",
	    .parse = command_args_none },
	[CMD_IF] = { .name = "if",
	    .usage = "if [#ID] MOVE then MOVE [if MOVE then MOVE...]",
	    .game = 1,
	    .parse = command_args_if },
	[CMD_CONDITIONS] = { .name = "conditions",
	    .usage = "conditions [#ID]",
	    .game = 1,
	    .parse = command_args_game },
	[CMD_CONDITIONS_CLEAR] = { .name = "conditions clear",
	    .usage = "conditions clear [#ID]",
	    .game = 1,
	    .parse = command_args_game },
	[CMD_TAKEBACK] = { .name = "takeback",
	    .usage = "takeback [#ID]",
	    .game = 1,
	    .parse = command_args_game },
	[CMD_REMATCH] = { .name = "rematch",
	    .usage = "rematch [#ID]",
	    .game = 1,
	    .parse = command_args_game },
};

const struct command_syntax *
command_syntax(enum command_kind k)
{
	if ((int)k < 0 || k >= CMD_NKINDS || syntax[k].name == NULL)
		return &syntax[CMD_NONE];
	return &syntax[k];
}

/* The entry of kind k, short for the messages below. */
#define info(k)	command_syntax(k)

const char *
command_name(enum command_kind k)
{
	return command_syntax(k)->name;
}

const char *
command_usage(enum command_kind k)
{
	return command_syntax(k)->usage;
}

int
command_game_scoped(enum command_kind k)
{
	return command_syntax(k)->game;
}

/* Folding and words. */

char *
command_fold(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = xmalloc(strlen(s) + 1), *o = out;
	unsigned cp;

	/* Each character folds to one as long: written in place. */
	while (*p != '\0') {
		if ((p[0] == 0xd0 || p[0] == 0xd1) && p[1] >= 0x80 &&
		    p[1] <= 0xbf) {
			cp = 0x400 + (p[0] == 0xd1 ? 0x40u : 0) + (p[1] - 0x80u);
			if (cp >= 0x410 && cp <= 0x42f)
				cp += 0x20;
			else if (cp >= 0x400 && cp <= 0x40f)
				cp += 0x50;
			/* ё is written е as often as not. */
			if (cp == 0x451)
				cp = 0x435;
			*o++ = (char)(cp < 0x440 ? 0xd0 : 0xd1);
			*o++ = (char)(0x80 + (cp - (cp < 0x440 ? 0x400 :
			    0x440)));
			p += 2;
			continue;
		}
		*o++ = (char)tolower(*p);
		p++;
	}
	*o = '\0';
	return out;
}

/* Length of the white space at p (ASCII, no-break spaces), 0 if none. */
static size_t
space_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' ||
	    *p == '\v' || *p == '\f')
		return 1;
	if (p[0] == 0xc2 && p[1] == 0xa0)
		return 2;
	if (p[0] == 0xe2 && p[1] == 0x80 && p[2] == 0xaf)
		return 3;
	return 0;
}

static const char *
skip_space(const char *p)
{
	size_t n;

	while ((n = space_len(p)) > 0)
		p += n;
	return p;
}

static const char *
word_end(const char *p)
{
	while (*p != '\0' && space_len(p) == 0)
		p++;
	return p;
}

/* The next word (owned), p moved past it; NULL at the end of the line. */
static char *
next_word(const char **pp)
{
	const char *p = skip_space(*pp), *e = word_end(p);

	*pp = e;
	return e == p ? NULL : xstrndup(p, (size_t)(e - p));
}

/* The rest of the line with its ends trimmed (owned), NULL when empty. */
static char *
rest_text(const char *p)
{
	const char *e, *last;

	p = skip_space(p);
	for (e = last = p; *e != '\0'; ) {
		size_t n = space_len(e);

		if (n > 0)
			e += n;
		else
			last = ++e;
	}
	return last == p ? NULL : xstrndup(p, (size_t)(last - p));
}

static int
at_end(const char *p)
{
	return *skip_space(p) == '\0';
}

static int
is_punct_tail(char c)
{
	return c == '.' || c == ',' || c == ':' || c == ';' || c == '!' ||
	    c == '?';
}

/* util_err that returns -1, so a parser can fail in one statement. */
static int cmd_err(char *, size_t, const char *, ...) PRINTFLIKE(3, 4);

static int
cmd_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
		util_utf8_mend(err);
	}
	return -1;
}

/* Count UTF-8 characters (continuation bytes are not counted). */
static size_t
utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* The keyword table: built-in English names, then the aliases. */

struct entry {
	const char	*words;
	enum command_kind kind;
};

/* The i-th entry; 0 past the end. */
static int
entry_at(const struct command_aliases *al, int i, struct entry *e)
{
	if (i < CMD_NKINDS - 1) {
		e->words = info(i + 1)->name;
		e->kind = (enum command_kind)(i + 1);
		return 1;
	}
	i -= CMD_NKINDS - 1;
	if (al == NULL || i >= al->n)
		return 0;
	e->words = al->v[i].words;
	e->kind = al->v[i].kind;
	return 1;
}

static int
count_words(const char *s)
{
	int n = 0;

	for (;;) {
		s = skip_space(s);
		if (*s == '\0')
			return n;
		n++;
		s = word_end(s);
	}
}

/* Does the folded word w equal the n bytes at t, the last word allowed
 * trailing punctuation ("draw?", "resign.")? */
static int
word_eq(const char *t, size_t tn, const char *w, size_t wn, int last)
{
	if (last)
		while (tn > wn && is_punct_tail(t[tn - 1]))
			tn--;
	return tn == wn && memcmp(t, w, wn) == 0;
}

/* Match entry words against the folded line; the number of words matched
 * (0: no match) and *endoff, the offset in the folded line after them. */
static int
entry_match(const char *folded, const char *words, size_t *endoff)
{
	const char *t = skip_space(folded), *w = skip_space(words), *te, *we;
	int n = 0;

	/* Most entries differ from the line at its first byte. */
	if (*w == '\0' || *t != *w)
		return 0;
	for (;;) {
		w = skip_space(w);
		if (*w == '\0')
			break;
		t = skip_space(t);
		te = word_end(t);
		we = word_end(w);
		if (te == t || !word_eq(t, (size_t)(te - t), w,
		    (size_t)(we - w), *skip_space(we) == '\0'))
			return 0;
		t = te;
		w = we;
		n++;
	}
	*endoff = (size_t)(t - folded);
	return n;
}

/*
 * Find the keyword the line starts with.  Folding keeps byte lengths (each
 * folded character is as long as the original), so an offset in the folded
 * line is one in the line.
 */
static enum command_kind
keyword(const struct command_aliases *al, const char *line, size_t *endoff)
{
	struct entry e;
	char *folded = command_fold(line);
	enum command_kind best = CMD_NONE;
	size_t off;
	int i, n, bestn = 0;

	for (i = 0; entry_at(al, i, &e); i++) {
		n = entry_match(folded, e.words, &off);
		if (n > bestn) {
			bestn = n;
			best = e.kind;
			*endoff = off;
		}
	}
	/* "draw?" offers a draw, but "resign?" is a question, not a
	 * resignation: what cannot be taken back needs no question mark. */
	if (bestn > 0 && folded[*endoff - 1] == '?' && (best == CMD_RESIGN ||
	    best == CMD_DECLINE || best == CMD_ADMIN_ABORT ||
	    best == CMD_ADMIN_BAN))
		best = CMD_NONE;
	free(folded);
	return best;
}

/* A line whose first word starts a keyword of several words but matches
 * none ("set", "admin"): -1 with the forms it could have been. */
static int
partial_keyword(const struct command_aliases *al, const char *line,
    char *err, size_t errlen)
{
	struct entry e;
	struct buf b = { 0 };
	char *folded = command_fold(line), *first;
	const char *p = folded;
	int i, hit = 0, seen[CMD_NKINDS] = { 0 };
	size_t fl;

	first = next_word(&p);
	free(folded);
	if (first == NULL)
		return 0;
	fl = strlen(first);
	while (fl > 0 && is_punct_tail(first[fl - 1]))
		first[--fl] = '\0';
	for (i = 0; entry_at(al, i, &e); i++) {
		const char *we = word_end(e.words);

		if (count_words(e.words) < 2 || (size_t)(we - e.words) != fl ||
		    memcmp(e.words, first, fl) != 0 || seen[e.kind])
			continue;
		seen[e.kind] = 1;
		buf_printf(&b, "%s%s", hit++ ? "; " : "", info(e.kind)->usage);
	}
	if (hit)
		cmd_err(err, errlen, _("`%s` needs more words: %s"), first,
		    buf_str(&b));
	free(first);
	buf_free(&b);
	return hit ? -1 : 0;
}

/* Arguments. */

/* "#12" at p: 1 and the number when there is one, 0 when p is not at a
 * '#', -1 with err when it is but is no game number. */
static int
game_ref(const char **pp, int64_t *id, char *err, size_t errlen)
{
	const char *p = skip_space(*pp), *d, *e = word_end(p);
	long long v = 0;

	if (*p != '#')
		return 0;
	for (d = p + 1; d < e && isdigit((unsigned char)*d); d++) {
		if (v > 99999999999LL)
			return cmd_err(err, errlen, _("`%.*s` is too large a "
			    "game number"), (int)(e - p), p);
		v = v * 10 + (*d - '0');
	}
	/* One stop may follow, as in "accept #12." or "move #12: 3". */
	if (d < e && d + 1 == e && (*d == '.' || *d == ',' || *d == ':' ||
	    *d == ';'))
		d++;
	if (d == p + 1 && d == e)
		return cmd_err(err, errlen, _("write the game number right after "
		    "the #, without a space: #12"));
	if (d != e || d == p + 1 || v == 0)
		return cmd_err(err, errlen, _("`%.*s` is not a game number: "
		    "write it as #12"), (int)(e - p) > 40 ? 40 : (int)(e - p), p);
	*id = v;
	*pp = e;
	return 1;
}

/* "7." or "7..." followed by more: the move-number guard; "7.2" or
 * "7.2." the second ply of turn 7. */
static int
move_guard(const char **pp, struct command *c, char *err, size_t errlen)
{
	const char *p = skip_space(*pp), *d = p, *after, *k;
	long long v = 0, ply = 0;

	while (isdigit((unsigned char)*d) && d - p < 7)
		v = v * 10 + (*d++ - '0');
	if (d == p || *d != '.')
		return 0;
	if (strncmp(d, "...", 3) == 0)
		d += 3;
	else
		d++;
	for (k = d; isdigit((unsigned char)*k) && k - d < 4; k++)
		ply = ply * 10 + (*k - '0');
	if (k > d && (space_len(k) > 0 || *k == '.')) {
		if (ply == 0)
			return cmd_err(err, errlen, _("move numbers start "
			    "at 1, not 0"));
		d = k + (*k == '.');
	} else
		ply = 0;
	if (space_len(d) == 0 || at_end(d))
		return 0;
	if (v == 0)
		return cmd_err(err, errlen, _("move numbers start at 1, not 0"));
	after = skip_space(d);
	if (*after == '#')
		return cmd_err(err, errlen, _("put the game before the move "
		    "number: move #12 %lld. MOVE"), v);
	c->guard = (int)v;
	c->guard_ply = (int)ply;
	*pp = d;
	return 1;
}

static int
no_more(const char *p, enum command_kind k, char *err, size_t errlen)
{
	char *w;

	if (at_end(p))
		return 0;
	w = next_word(&p);
	cmd_err(err, errlen, _("%s takes nothing more, not `%.40s`: %s"),
	    info(k)->name, w, info(k)->usage);
	free(w);
	return -1;
}

static int
take_text(const char *p, enum command_kind k, const char *what, int need,
    char **out, char *err, size_t errlen)
{
	*out = rest_text(p);
	if (*out == NULL)
		return need ? cmd_err(err, errlen, _("%s needs %s: %s"),
		    info(k)->name, what, info(k)->usage) : 0;
	if (strlen(*out) > COMMAND_TEXT_MAX)
		return cmd_err(err, errlen, _("%s: the text is too long (at most "
		    "%d bytes)"), info(k)->name, COMMAND_TEXT_MAX);
	return 0;
}

static int
need_game(const char **pp, struct command *c, char *err, size_t errlen)
{
	int r = game_ref(pp, &c->game, err, errlen);

	if (r == 0)
		return cmd_err(err, errlen, _("%s needs the game number: %s"),
		    info(c->kind)->name, info(c->kind)->usage);
	return r == 1 ? 0 : -1;
}

static int
opt_game(const char **pp, struct command *c, char *err, size_t errlen)
{
	return game_ref(pp, &c->game, err, errlen) == -1 ? -1 : 0;
}

int
command_args_moves(const char *p, struct command *c, char *err, size_t errlen)
{
	if (opt_game(&p, c, err, errlen) == -1 ||
	    move_guard(&p, c, err, errlen) == -1)
		return -1;
	c->text = rest_text(p);
	if (c->text == NULL)
		return cmd_err(err, errlen, _("%s needs the move: %s"),
		    info(c->kind)->name, c->kind == CMD_MOVE ? "move 3" :
		    "preview 3");
	if (strlen(c->text) > COMMAND_TEXT_MAX)
		return cmd_err(err, errlen, _("the move line is too long (at most "
		    "%d bytes)"), COMMAND_TEXT_MAX);
	return 0;
}

static int
yes_no(const char *s)
{
	if (util_strcaseeq(s, "yes") || util_strcaseeq(s, "true") ||
	    util_strcaseeq(s, "on"))
		return 1;
	if (util_strcaseeq(s, "no") || util_strcaseeq(s, "false") ||
	    util_strcaseeq(s, "off"))
		return 0;
	return -1;
}

/* "robot" or "robot:N" (also in Russian): the level, -1 without one, 0
 * when the word is no robot, -2 for a bad level. */
static int
robot_word(const char *folded)
{
	static const char *const names[] = { "robot", "робот" };
	size_t i, n;
	long long lvl;

	for (i = 0; i < nitems(names); i++) {
		n = strlen(names[i]);
		if (strncmp(folded, names[i], n) != 0)
			continue;
		if (folded[n] == '\0')
			return -1;
		if (folded[n] != ':')
			continue;
		if (util_parse_int(folded + n + 1, 1, COMMAND_ROBOT_MAX,
		    &lvl) == -1)
			return -2;
		return (int)lvl;
	}
	return 0;
}

static int
new_option(struct command *c, const char *word, const char *eq, char *err,
    size_t errlen)
{
	char *key = xstrndup(word, (size_t)(eq - word));
	const char *val = eq + 1;
	int rc = 0, i;

	util_lower(key);
	if (*key == '\0' || *val == '\0') {
		rc = cmd_err(err, errlen, _("`%.60s` is not OPTION=VALUE"),
		    word);
	} else if (strcmp(key, "clock") == 0) {
		struct config_clock ck;
		char msg[GAME_ERRLEN];

		if (c->clock != NULL)
			rc = cmd_err(err, errlen, _("clock= is given twice"));
		else if (config_parse_clock(val, &ck, msg, sizeof(msg)) == -1)
			rc = cmd_err(err, errlen, _("clock=: %s"), msg);
		else
			c->clock = xstrdup(val);
	} else if (strcmp(key, "first") == 0) {
		if (c->first != CMD_FIRST_DEFAULT)
			rc = cmd_err(err, errlen, _("first= is given twice"));
		else if (util_strcaseeq(val, "random"))
			c->first = CMD_FIRST_RANDOM;
		else if (util_strcaseeq(val, "me")) {
			if (c->kind == CMD_ADMIN_NEW)
				rc = cmd_err(err, errlen, _("first=me: in a game "
				    "started by an admin name the first "
				    "player's address"));
			c->first = CMD_FIRST_ME;
		} else if ((c->first_addr = addr_canon(val)) != NULL)
			c->first = CMD_FIRST_ADDRESS;
		else
			rc = cmd_err(err, errlen, _("first= takes random, me or "
			    "an address, not `%.60s`"), val);
	} else if (strcmp(key, "rated") == 0) {
		if (c->rated != -1)
			rc = cmd_err(err, errlen, _("rated= is given twice"));
		else if ((c->rated = yes_no(val)) == -1)
			rc = cmd_err(err, errlen, _("rated= takes yes or no, not "
			    "`%.60s`"), val);
	} else {
		for (i = 0; i < c->nopts && rc == 0; i++)
			if (util_strncaseeq(c->opts[i], word,
			    (size_t)(eq - word) + 1))
				rc = cmd_err(err, errlen, _("%s= is given twice"),
				    key);
		if (rc == 0 && c->nopts == GAME_MAX_OPTS)
			rc = cmd_err(err, errlen, _("too many options"));
		if (rc == 0) {
			c->opts = xreallocarray(c->opts, (size_t)c->nopts + 1,
			    sizeof(*c->opts));
			c->opts[c->nopts++] = xstrdup(word);
		}
	}
	free(key);
	return rc;
}

static int
new_seat(struct command *c, char *addr, int robot, char *err, size_t errlen)
{
	int i, max = c->kind == CMD_ADMIN_NEW ? GAME_MAX_SEATS :
	    GAME_MAX_SEATS - 1;

	if (c->nseats == max) {
		free(addr);
		return cmd_err(err, errlen, _("too many players: a game has at "
		    "most %d seats%s"), GAME_MAX_SEATS, c->kind == CMD_NEW ?
		    ", yours included" : "");
	}
	for (i = 0; addr != NULL && i < c->nseats; i++)
		if (c->seats[i].addr != NULL &&
		    strcmp(c->seats[i].addr, addr) == 0) {
			cmd_err(err, errlen, _("%s is named twice"), addr);
			free(addr);
			return -1;
		}
	c->seats = xreallocarray(c->seats, (size_t)c->nseats + 1,
	    sizeof(*c->seats));
	c->seats[c->nseats].addr = addr;
	c->seats[c->nseats].robot = robot;
	c->nseats++;
	return 0;
}

/* new GAME [OPT=VAL...] ADDRESS...: commas separate like spaces. */
int
command_args_new(const char *p, struct command *c, char *err, size_t errlen)
{
	char *copy = xstrdup(p), *s, *w, *folded, *eq;
	const char *q;
	int rc = 0, i, robot;

	/* Commas separate addresses, but belong to an option's value
	 * (colours=red,blue); one ending an option is a separator. */
	for (s = copy; *s != '\0'; ) {
		char *e = s + strcspn(s, " \t"), *t;
		int opt = memchr(s, '=', (size_t)(e - s)) != NULL;

		for (t = s; t < e; t++)
			if (*t == ',' && (!opt || t + 1 == e || t[1] == ','))
				*t = ' ';
		s = *e != '\0' ? e + 1 : e;
	}
	q = copy;
	w = next_word(&q);
	folded = w != NULL ? command_fold(w) : NULL;
	if (w == NULL || strchr(w, '@') != NULL || strchr(w, '=') != NULL ||
	    robot_word(folded) != 0) {
		rc = cmd_err(err, errlen, _("%s needs the game first: %s mancala "
		    "bob@example.org"), info(c->kind)->name,
		    info(c->kind)->name);
		free(folded);
		free(w);
		free(copy);
		return rc;
	}
	free(folded);
	c->gamename = command_fold(w);
	free(w);
	while (rc == 0 && (w = next_word(&q)) != NULL) {
		folded = command_fold(w);
		if ((eq = strchr(w, '=')) != NULL)
			rc = new_option(c, w, eq, err, errlen);
		else if ((robot = robot_word(folded)) == -2)
			rc = cmd_err(err, errlen, _("`%.40s`: a robot's level is "
			    "1 to %d: robot:2"), w, COMMAND_ROBOT_MAX);
		else if (robot != 0)
			rc = new_seat(c, NULL, robot, err, errlen);
		else if (strchr(w, '@') != NULL) {
			char *a = addr_canon(w);

			if (a == NULL)
				rc = cmd_err(err, errlen, _("`%.80s` is not a "
				    "mail address"), w);
			else
				rc = new_seat(c, a, 0, err, errlen);
		} else
			rc = cmd_err(err, errlen, _("`%.60s` is neither "
			    "OPTION=VALUE, an address nor robot: %s"), w,
			    info(c->kind)->usage);
		free(folded);
		free(w);
	}
	free(copy);
	if (rc == 0 && c->nseats == 0)
		rc = cmd_err(err, errlen, _("%s needs the %s' addresses (or "
		    "robot): %s %s bob@example.org"), info(c->kind)->name,
		    c->kind == CMD_NEW ? "other players" : "players",
		    info(c->kind)->name, c->gamename);
	/* In `new` the proposer plays too, so first= may name them: only
	 * the referee, who knows the sender, can check that. */
	if (rc == 0 && c->first == CMD_FIRST_ADDRESS &&
	    c->kind == CMD_ADMIN_NEW) {
		for (i = 0; i < c->nseats; i++)
			if (c->seats[i].addr != NULL &&
			    strcmp(c->seats[i].addr, c->first_addr) == 0)
				break;
		if (i == c->nseats)
			rc = cmd_err(err, errlen, _("first=%s is not one of the "
			    "players"), c->first_addr);
	}
	return rc;
}

int
command_args_language(const char *p, struct command *c, char *err,
    size_t errlen)
{
	static const struct { const char *name, *code; } names[] = {
		{ "english", "en" }, { "английский", "en" },
		{ "russian", "ru" }, { "русский", "ru" },
		{ "arabic", "ar" }, { "арабский", "ar" },
		{ "العربية", "ar" }, { "عربي", "ar" },
	};
	char *w = next_word(&p), *f;
	size_t i, n;
	int ok;

	if (w == NULL)
		return cmd_err(err, errlen, _("set language needs a language "
		    "code: set language ru"));
	if (no_more(p, CMD_SET_LANGUAGE, err, errlen) == -1) {
		free(w);
		return -1;
	}
	f = command_fold(w);
	free(w);
	for (i = 0; i < nitems(names); i++)
		if (strcmp(f, names[i].name) == 0) {
			c->lang = xstrdup(names[i].code);
			free(f);
			return 0;
		}
	/* ll, lll, ll-rr: a language tag's first two parts. */
	for (n = 0; islower((unsigned char)f[n]); n++)
		;
	ok = n >= 2 && n <= 3;
	if (ok && f[n] == '-') {
		for (i = n + 1; isalnum((unsigned char)f[i]); i++)
			;
		ok = i - n - 1 >= 2 && i - n - 1 <= 8 && f[i] == '\0';
	} else if (ok)
		ok = f[n] == '\0';
	if (!ok) {
		cmd_err(err, errlen, _("`%.40s` is not a language code: set "
		    "language en, set language ru"), f);
		free(f);
		return -1;
	}
	c->lang = f;
	return 0;
}

int
command_args_notify(const char *p, struct command *c, char *err, size_t errlen)
{
	char *w = next_word(&p);
	int rc = 0;

	if (w == NULL || no_more(p, CMD_SET_NOTIFY, err, errlen) == -1) {
		if (w == NULL)
			cmd_err(err, errlen, _("set notify needs turn, all or "
			    "off: set notify turn"));
		free(w);
		return -1;
	}
	if (util_strcaseeq(w, "turn"))
		c->notify = CMD_NOTIFY_TURN;
	else if (util_strcaseeq(w, "all"))
		c->notify = CMD_NOTIFY_ALL;
	else if (util_strcaseeq(w, "off"))
		c->notify = CMD_NOTIFY_OFF;
	else
		rc = cmd_err(err, errlen, _("set notify takes turn, all or off, "
		    "not `%.40s`"), w);
	free(w);
	return rc;
}

/* set public-address yes|no: may the public site show the address? */
int
command_args_public_address(const char *p, struct command *c, char *err,
    size_t errlen)
{
	char *w = next_word(&p);
	int rc = 0;

	if (w == NULL || no_more(p, CMD_SET_PUBLIC_ADDRESS, err, errlen) ==
	    -1) {
		if (w == NULL)
			cmd_err(err, errlen, _("set public-address needs yes or "
			    "no: set public-address yes"));
		free(w);
		return -1;
	}
	if (util_strcaseeq(w, "yes") || util_strcaseeq(w, "on"))
		c->yes = 1;
	else if (util_strcaseeq(w, "no") || util_strcaseeq(w, "off"))
		c->yes = 0;
	else
		rc = cmd_err(err, errlen, _("set public-address takes yes or "
		    "no, not `%.40s`"), w);
	free(w);
	return rc;
}

/* set timezone ZONE: one word, checked against the system's zones when
 * the command runs (c->text). */
int
command_args_timezone(const char *p, struct command *c, char *err,
    size_t errlen)
{
	char *w = next_word(&p);

	if (w == NULL)
		return cmd_err(err, errlen, "set timezone needs a zone name: "
		    "set timezone Europe/Moscow");
	if (no_more(p, CMD_SET_TIMEZONE, err, errlen) == -1) {
		free(w);
		return -1;
	}
	c->text = w;
	return 0;
}

int
command_args_name(const char *p, struct command *c, char *err, size_t errlen)
{
	const unsigned char *s;

	c->text = rest_text(p);
	if (c->text == NULL)
		return cmd_err(err, errlen, _("set name needs the name: set name "
		    "Ada Lovelace"));
	if (utf8_chars(c->text) > COMMAND_NAME_MAX)
		return cmd_err(err, errlen, _("the name is too long (at most %d "
		    "characters)"), COMMAND_NAME_MAX);
	for (s = (const unsigned char *)c->text; *s != '\0'; s++)
		if (*s < 0x20 || *s == 0x7f || strchr("@<>\"\\", *s) != NULL)
			return cmd_err(err, errlen, _("a name may not contain @, "
			    "<, >, \" or \\"));
	return 0;
}

int
command_args_vacation(const char *p, struct command *c, char *err,
    size_t errlen)
{
	char *w = next_word(&p);
	long long days;
	int rc = 0;

	static const char *const unit[] = { "day", "days", "день", "дня",
		"дней" };
	const char *q;
	char *u, *f;
	size_t i, n;

	if (w == NULL)
		return cmd_err(err, errlen, _("vacation needs a number of days or "
		    "off: vacation 7"));
	/* "vacation 7d" and "vacation 7 days" say the same. */
	n = strlen(w);
	if (n > 1 && isdigit((unsigned char)w[0]) && (w[n - 1] == 'd' ||
	    w[n - 1] == 'D'))
		w[n - 1] = '\0';
	q = p;
	if ((u = next_word(&q)) != NULL) {
		f = command_fold(u);
		for (i = 0; i < nitems(unit); i++)
			if (strcmp(f, unit[i]) == 0)
				p = q;
		free(f);
		free(u);
	}
	if (no_more(p, CMD_VACATION, err, errlen) == -1)
		rc = -1;
	else if (util_strcaseeq(w, "off"))
		c->days = 0;
	else if (util_parse_int(w, 1, COMMAND_DAYS_MAX, &days) == 0)
		c->days = (int)days;
	else
		rc = cmd_err(err, errlen, _("vacation takes days from 1 to %d, "
		    "or off, not `%.40s`"), COMMAND_DAYS_MAX, w);
	free(w);
	return rc;
}

int
command_args_signal(const char *p, struct command *c, char *err, size_t errlen)
{
	const char *start;
	char *line;

	if (opt_game(&p, c, err, errlen) == -1)
		return -1;
	start = p;
	if ((c->text = next_word(&p)) == NULL)
		return cmd_err(err, errlen, _("signal needs the signal's name: "
		    "signal madame"));
	/* `signal madame, 2cl`: a signal and moves in one line make a line
	 * of moves (ludus-games(7)). */
	if (c->text[strlen(c->text) - 1] == ',' || *skip_space(p) == ',') {
		line = rest_text(start);
		free(c->text);
		c->text = xasprintf("signal %s", line);
		free(line);
		c->kind = CMD_MOVE;
		if (strlen(c->text) > COMMAND_TEXT_MAX)
			return cmd_err(err, errlen, _("the move line is too "
			    "long (at most %d bytes)"), COMMAND_TEXT_MAX);
		return 0;
	}
	return no_more(p, c->kind, err, errlen);
}

int
command_args_confirm(const char *p, struct command *c, char *err, size_t errlen)
{
	const char *s;

	if ((c->text = next_word(&p)) == NULL)
		return cmd_err(err, errlen, _("confirm needs the code from the "
		    "referee's mail: confirm CODE"));
	for (s = c->text; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			break;
	if (*s != '\0' || s - c->text > MAX_COOKIE)
		return cmd_err(err, errlen, _("`%.40s` is not a confirmation code: "
		    "copy it from the referee's mail"), c->text);
	return no_more(p, c->kind, err, errlen);
}

int
command_args_adjudicate(const char *p, struct command *c, char *err,
    size_t errlen)
{
	char *w;
	size_t n;

	if (need_game(&p, c, err, errlen) == -1)
		return -1;
	if ((w = next_word(&p)) == NULL)
		return cmd_err(err, errlen, _("admin adjudicate needs the result: "
		    "%s"), info(c->kind)->usage);
	n = strlen(w);
	if (util_strcaseeq(w, "draw") || strcmp(w, "1/2-1/2") == 0 ||
	    strcmp(w, "\xc2\xbd-\xc2\xbd") == 0)
		c->result = CMD_RESULT_DRAW;
	else if (strcmp(w, "1-0") == 0 || strcmp(w, "0-1") == 0) {
		c->result = CMD_RESULT_SEAT;
		c->result_seat = w[0] == '1' ? 0 : 1;
	} else if (strchr(w, '@') != NULL) {
		if ((c->addr = addr_canon(w)) == NULL) {
			cmd_err(err, errlen, _("`%.80s` is not a mail address"), w);
			free(w);
			return -1;
		}
		c->result = CMD_RESULT_ADDRESS;
	} else if (n <= 32 && isalpha((unsigned char)w[0])) {
		c->result = CMD_RESULT_NAME;
		c->result_name = xstrdup(w);
	} else {
		cmd_err(err, errlen, _("`%.40s` is not a result: draw, 1-0, 0-1, "
		    "the winner's address or seat"), w);
		free(w);
		return -1;
	}
	free(w);
	return take_text(p, c->kind, "", 0, &c->text, err, errlen);
}

int
command_args_extend(const char *p, struct command *c, char *err, size_t errlen)
{
	char *w;
	size_t n;
	long long h;
	int rc = 0;

	if (need_game(&p, c, err, errlen) == -1)
		return -1;
	if ((w = next_word(&p)) == NULL)
		return cmd_err(err, errlen, _("admin extend needs the hours: "
		    "admin extend #12 48"));
	n = strlen(w);
	if (n > 1 && (w[n - 1] == 'h' || w[n - 1] == 'H'))
		w[n - 1] = '\0';
	if (util_parse_int(w, 1, COMMAND_HOURS_MAX, &h) == -1)
		rc = cmd_err(err, errlen, _("admin extend takes hours from 1 to "
		    "%d, not `%.40s`"), COMMAND_HOURS_MAX, w);
	else
		c->hours = (int)h;
	free(w);
	return rc == 0 ? take_text(p, c->kind, "", 0, &c->text, err, errlen) :
	    -1;
}

int
command_args_ban(const char *p, struct command *c, char *err, size_t errlen)
{
	char *w = next_word(&p);

	if (w == NULL)
		return cmd_err(err, errlen, _("%s needs the address: %s"),
		    info(c->kind)->name, info(c->kind)->usage);
	c->addr = addr_canon(w);
	if (c->addr == NULL) {
		cmd_err(err, errlen, _("`%.80s` is not a mail address"), w);
		free(w);
		return -1;
	}
	free(w);
	if (c->kind == CMD_ADMIN_UNBAN)
		return no_more(p, c->kind, err, errlen);
	return take_text(p, c->kind, "", 0, &c->text, err, errlen);
}

int
command_args_resolve(const char *p, struct command *c, char *err, size_t errlen)
{
	char *w = next_word(&p);
	long long n;
	int rc;

	if (w == NULL)
		return cmd_err(err, errlen, _("admin resolve needs the report's "
		    "number and what was done: admin resolve 3 TEXT"));
	rc = util_parse_int(w[0] == '#' ? w + 1 : w, 1, 999999999999LL, &n);
	if (rc == -1)
		cmd_err(err, errlen, _("`%.40s` is not a report number (see admin "
		    "reports)"), w);
	else
		c->report = n;
	free(w);
	if (rc == -1)
		return -1;
	return take_text(p, c->kind, "what was done", 1, &c->text, err,
	    errlen);
}

/* A ladder's name: letters, digits, '-' and '_', lower-cased; `join`
 * and `leave` would read as the keywords. */
static int
ladder_name(const char **pp, struct command *c, int need, char *err,
    size_t errlen)
{
	char *w;
	size_t i;

	if ((w = next_word(pp)) == NULL) {
		if (!need)
			return 0;
		return cmd_err(err, errlen, _("%s needs the ladder's name: %s"),
		    info(c->kind)->name, info(c->kind)->usage);
	}
	for (i = 0; w[i] != '\0'; i++) {
		if (w[i] >= 'A' && w[i] <= 'Z')
			w[i] = (char)(w[i] - 'A' + 'a');
		if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= '0' &&
		    w[i] <= '9') || w[i] == '-' || w[i] == '_'))
			break;
	}
	if (w[i] != '\0' || i > COMMAND_LADDER_NAME_MAX ||
	    strcmp(w, "join") == 0 || strcmp(w, "leave") == 0) {
		cmd_err(err, errlen, _("`%.60s` is no ladder name (letters, "
		    "digits, - and _, at most %d)"), w,
		    COMMAND_LADDER_NAME_MAX);
		free(w);
		return -1;
	}
	c->ladder = w;
	return 0;
}

static int
ladder_addr(const char **pp, struct command *c, char *err, size_t errlen)
{
	char *w = next_word(pp);

	if (w == NULL)
		return cmd_err(err, errlen, _("%s needs an address: %s"),
		    info(c->kind)->name, info(c->kind)->usage);
	if ((c->addr = addr_canon(w)) == NULL) {
		cmd_err(err, errlen, _("`%.80s` is not a mail address"), w);
		free(w);
		return -1;
	}
	free(w);
	return 0;
}

int
command_args_ladder(const char *p, struct command *c, char *err, size_t errlen)
{
	char *w;
	long long n;
	int rc;

	switch (c->kind) {
	case CMD_CHALLENGE:
		if (ladder_addr(&p, c, err, errlen) == -1 ||
		    ladder_name(&p, c, 0, err, errlen) == -1)
			return -1;
		return no_more(p, c->kind, err, errlen);
	case CMD_LADDER_JOIN:
		if (ladder_name(&p, c, 1, err, errlen) == -1)
			return -1;
		if ((w = next_word(&p)) == NULL)
			return 0;
		rc = util_strcaseeq(w, "with") || strcmp(w, "с") == 0 ||
		    strcmp(w, "С") == 0;
		free(w);
		if (!rc)
			return cmd_err(err, errlen, _("after the ladder's name "
			    "comes `with ADDRESS` or nothing: %s"),
			    info(c->kind)->usage);
		if (ladder_addr(&p, c, err, errlen) == -1)
			return -1;
		return no_more(p, c->kind, err, errlen);
	case CMD_ADMIN_LADDER_CREATE:
		if (ladder_name(&p, c, 1, err, errlen) == -1)
			return -1;
		if ((w = next_word(&p)) == NULL)
			return cmd_err(err, errlen, _("admin ladder create needs "
			    "the game: %s"), info(c->kind)->usage);
		c->gamename = command_fold(w);
		free(w);
		while ((w = next_word(&p)) != NULL) {
			if (strchr(w, '=') == NULL || w[0] == '=') {
				cmd_err(err, errlen, _("`%.60s` is no OPT=VAL: "
				    "%s"), w, info(c->kind)->usage);
				free(w);
				return -1;
			}
			c->opts = xreallocarray(c->opts, (size_t)c->nopts + 1,
			    sizeof(*c->opts));
			c->opts[c->nopts++] = w;
		}
		return 0;
	case CMD_ADMIN_LADDER_REMOVE:
	case CMD_ADMIN_LADDER_ADJUST:
		if (ladder_name(&p, c, 1, err, errlen) == -1 ||
		    ladder_addr(&p, c, err, errlen) == -1)
			return -1;
		if (c->kind == CMD_ADMIN_LADDER_REMOVE)
			return no_more(p, c->kind, err, errlen);
		if ((w = next_word(&p)) == NULL)
			return cmd_err(err, errlen, _("admin ladder adjust needs "
			    "the new position: %s"), info(c->kind)->usage);
		rc = util_parse_int(w, 1, 100000, &n);
		if (rc == -1)
			cmd_err(err, errlen, _("`%.40s` is no position (1 is the "
			    "top)"), w);
		free(w);
		if (rc == -1)
			return -1;
		c->position = (int)n;
		return no_more(p, c->kind, err, errlen);
	default:
		if (ladder_name(&p, c, 1, err, errlen) == -1)
			return -1;
		return no_more(p, c->kind, err, errlen);
	}
}

/* rating=LOW-HIGH, rating=LOW- (at least), rating=-HIGH (at most). */
static int
seek_rating(struct command *c, const char *val, char *err, size_t errlen)
{
	const char *dash = strchr(val, '-');
	char *lo = NULL, *hi = NULL;
	long long v;
	int rc = 0;

	if (dash == NULL)
		rc = -1;
	else {
		lo = xstrndup(val, (size_t)(dash - val));
		hi = xstrdup(dash + 1);
		if (*lo == '\0' && *hi == '\0')
			rc = -1;
	}
	if (rc == 0 && *lo != '\0') {
		if (util_parse_int(lo, 1, COMMAND_RATING_MAX, &v) == -1)
			rc = -1;
		else
			c->rating_min = (int)v;
	}
	if (rc == 0 && *hi != '\0') {
		if (util_parse_int(hi, 1, COMMAND_RATING_MAX, &v) == -1)
			rc = -1;
		else
			c->rating_max = (int)v;
	}
	if (rc == 0 && c->rating_max != 0 && c->rating_min > c->rating_max)
		rc = -1;
	free(lo);
	free(hi);
	if (rc == -1)
		return cmd_err(err, errlen, _("rating=%.40s: write the range as "
		    "rating=1400-1800, rating=1500- (at least) or rating=-1700 "
		    "(at most)"), val);
	return 0;
}

/* seek GAME [OPT=VAL...]: as new, without players; ladder= and rating=
 * say who may take the seats. */
int
command_args_seek(const char *p, struct command *c, char *err, size_t errlen)
{
	char *w, *eq;
	int rc = 0;

	w = next_word(&p);
	if (w == NULL || strchr(w, '=') != NULL || strchr(w, '@') != NULL) {
		free(w);
		return cmd_err(err, errlen, _("seek needs the game first: seek "
		    "mancala"));
	}
	c->gamename = command_fold(w);
	free(w);
	while (rc == 0 && (w = next_word(&p)) != NULL) {
		if ((eq = strchr(w, '=')) == NULL || eq == w)
			rc = cmd_err(err, errlen, _("`%.60s`: a seek names no "
			    "players, only OPTION=VALUE: %s"), w,
			    info(c->kind)->usage);
		else if (util_strncaseeq(w, "ladder=", 7)) {
			const char *q = eq + 1;

			if (c->ladder != NULL)
				rc = cmd_err(err, errlen, _("ladder= is given "
				    "twice"));
			else
				rc = ladder_name(&q, c, 1, err, errlen);
		} else if (util_strncaseeq(w, "rating=", 7)) {
			if (c->rating_min || c->rating_max)
				rc = cmd_err(err, errlen, _("rating= is given "
				    "twice"));
			else
				rc = seek_rating(c, eq + 1, err, errlen);
		} else
			rc = new_option(c, w, eq, err, errlen);
		free(w);
	}
	if (rc == 0 && c->first == CMD_FIRST_ADDRESS)
		rc = cmd_err(err, errlen, _("first= in a seek takes random or me: "
		    "who takes the other seats is not known yet"));
	return rc;
}

/* The words inside a conditional line, in every language the keywords
 * have (the line's own keyword may also be an alias: commands.yaml). */
static int
cond_word(const char *word, int then)
{
	static const char *const ifs[] = { "if", "если", "إذا", "اذا" };
	static const char *const thens[] = { "then", "то", "тогда", "ثم" };
	const char *const *v = then ? thens : ifs;
	char *f = command_fold(word);
	size_t i, n = strlen(f);
	int hit = 0;

	while (n > 0 && is_punct_tail(f[n - 1]))
		f[--n] = '\0';
	for (i = 0; i < 4 && !hit; i++)
		hit = strcmp(f, v[i]) == 0;
	free(f);
	return hit;
}

/* Does the rest of an `if` line hold a `then`?  Without one a line of
 * more words is no conditional move but a remark ("If you like, ..."). */
static int
has_then(const char *p)
{
	char *w;
	int hit = 0;

	while (!hit && (w = next_word(&p)) != NULL) {
		hit = cond_word(w, 1);
		free(w);
	}
	return hit;
}

static void
cond_add(struct command *c, struct buf *move)
{
	size_t n = move->len;

	/* "if b4-c3, then d2-e3": the comma belongs to the sentence. */
	while (n > 0 && (move->s[n - 1] == ',' || move->s[n - 1] == ';'))
		n--;
	c->cond = xreallocarray(c->cond, (size_t)c->ncond + 1,
	    sizeof(*c->cond));
	c->cond[c->ncond++] = xstrndup(n ? move->s : "", n);
	buf_reset(move);
}

/* if [#ID] MOVE then MOVE [if MOVE then MOVE...] */
int
command_args_if(const char *p, struct command *c, char *err, size_t errlen)
{
	struct buf move = { 0 };
	char *w;
	int then = 0, rc = 0;

	if (opt_game(&p, c, err, errlen) == -1)
		return -1;
	if ((c->text = rest_text(p)) != NULL &&
	    strlen(c->text) > COMMAND_TEXT_MAX)
		return cmd_err(err, errlen, _("the line is too long (at most %d "
		    "bytes)"), COMMAND_TEXT_MAX);
	while (rc == 0 && (w = next_word(&p)) != NULL) {
		if (cond_word(w, !then)) {
			if (move.len == 0)
				rc = cmd_err(err, errlen, _("a move is missing "
				    "before `%.20s`: %s"), w, info(CMD_IF)->usage);
			else
				cond_add(c, &move);
			then = !then;
		} else
			buf_printf(&move, "%s%s", move.len ? " " : "", w);
		free(w);
	}
	if (rc == 0 && move.len == 0)
		rc = cmd_err(err, errlen, _("the line ends without the move: %s"),
		    info(CMD_IF)->usage);
	else if (rc == 0 && !then)
		rc = cmd_err(err, errlen, _("`then` and your reply are missing "
		    "after `%.40s`: %s"), buf_str(&move), info(CMD_IF)->usage);
	else if (rc == 0)
		cond_add(c, &move);
	if (rc == 0 && c->ncond > 2 * COMMAND_IF_MAX)
		rc = cmd_err(err, errlen, _("at most %d moves and replies in one "
		    "line"), COMMAND_IF_MAX);
	buf_free(&move);
	return rc;
}

/* The parse steps of the commands without one of their own. */

int
command_args_help(const char *p, struct command *c, char *err, size_t errlen)
{
	if (take_text(p, c->kind, "", 0, &c->text, err, errlen) == -1)
		return -1;
	if (c->text != NULL && strlen(c->text) > MAX_TOPIC)
		return cmd_err(err, errlen, _("help takes one game or "
		    "topic: help mancala"));
	/* Topics are names, compared as keywords are. */
	if (c->text != NULL) {
		char *f = command_fold(c->text);

		free(c->text);
		c->text = f;
	}
	return 0;
}

int
command_args_none(const char *p, struct command *c, char *err, size_t errlen)
{
	return no_more(p, c->kind, err, errlen);
}

int
command_args_game(const char *p, struct command *c, char *err, size_t errlen)
{
	if (opt_game(&p, c, err, errlen) == -1)
		return -1;
	return no_more(p, c->kind, err, errlen);
}

int
command_args_thanks(const char *p, struct command *c, char *err,
    size_t errlen)
{
	/* "Thanks for the game!" is how people write it. */
	if (opt_game(&p, c, err, errlen) == -1)
		return -1;
	return take_text(p, c->kind, "", 0, &c->text, err, errlen);
}

int
command_args_say(const char *p, struct command *c, char *err, size_t errlen)
{
	if (opt_game(&p, c, err, errlen) == -1)
		return -1;
	return take_text(p, c->kind, "the message", 1, &c->text, err, errlen);
}

int
command_args_report(const char *p, struct command *c, char *err,
    size_t errlen)
{
	if (opt_game(&p, c, err, errlen) == -1)
		return -1;
	return take_text(p, c->kind, "what happened", 1, &c->text, err,
	    errlen);
}

int
command_args_abort(const char *p, struct command *c, char *err,
    size_t errlen)
{
	if (need_game(&p, c, err, errlen) == -1)
		return -1;
	return take_text(p, c->kind, "", 0, &c->text, err, errlen);
}

/* The arguments by the command's parse step in the table. */
static int
parse_args(const char *p, struct command *c, char *err, size_t errlen)
{
	const struct command_syntax *e = command_syntax(c->kind);

	if (e->parse == NULL)
		return cmd_err(err, errlen, _("unknown command"));
	return e->parse(p, c, err, errlen);
}

/* A line with no keyword: [#ID] [N.] MOVE in the tagged game. */
static int
parse_implicit(const char *p, struct command *c, char *err, size_t errlen)
{
	int r;

	c->kind = CMD_MOVE;
	c->implicit = 1;
	if ((r = game_ref(&p, &c->game, err, errlen)) == -1)
		return -1;
	if (move_guard(&p, c, err, errlen) == -1)
		return -1;
	c->text = rest_text(p);
	if (c->text == NULL)
		return cmd_err(err, errlen, _("what to play in game #%lld? write "
		    "the move after it: #%lld 3"), (long long)c->game,
		    (long long)c->game);
	if (strlen(c->text) > COMMAND_TEXT_MAX)
		return cmd_err(err, errlen, _("the move line is too long (at most "
		    "%d bytes)"), COMMAND_TEXT_MAX);
	return 0;
}

int
command_parse(const struct command_aliases *al, const char *line,
    struct command *c, char *err, size_t errlen)
{
	size_t off = 0;

	memset(c, 0, sizeof(*c));
	c->rated = -1;
	if (strlen(line) > COMMAND_LINE_MAX)
		return cmd_err(err, errlen, _("the line is too long (at most %d "
		    "bytes): one command per line"), COMMAND_LINE_MAX);
	if (at_end(line))
		return cmd_err(err, errlen, _("the line is empty"));
	c->kind = keyword(al, line, &off);
	if (c->kind == CMD_IF && !at_end(line + off) && !has_then(line + off))
		c->kind = CMD_NONE;
	if (c->kind == CMD_NONE) {
		if (partial_keyword(al, line, err, errlen) == -1)
			return -1;
		return parse_implicit(line, c, err, errlen);
	}
	return parse_args(line + off, c, err, errlen);
}

void
command_free(struct command *c)
{
	int i;

	free(c->text);
	free(c->gamename);
	for (i = 0; i < c->nopts; i++)
		free(c->opts[i]);
	free(c->opts);
	for (i = 0; i < c->nseats; i++)
		free(c->seats[i].addr);
	free(c->seats);
	free(c->clock);
	free(c->first_addr);
	free(c->lang);
	free(c->addr);
	free(c->result_name);
	free(c->ladder);
	for (i = 0; i < c->ncond; i++)
		free(c->cond[i]);
	free(c->cond);
	memset(c, 0, sizeof(*c));
}

/* The alias file. */

static enum command_kind
kind_by_name(const char *s)
{
	int k;

	for (k = CMD_NONE + 1; k < CMD_NKINDS; k++)
		if (syntax[k].name[0] == s[0] && strcmp(syntax[k].name, s) == 0)
			return (enum command_kind)k;
	return CMD_NONE;
}

/* The alias as stored: folded, words separated by one space (owned). */
static char *
alias_norm(const char *s)
{
	char *f = command_fold(s), *o = f;
	const char *p = f, *e;

	/* In place: what is written never passes what is read. */
	for (;;) {
		p = skip_space(p);
		if (*p == '\0')
			break;
		e = word_end(p);
		if (o != f)
			*o++ = ' ';
		memmove(o, p, (size_t)(e - p));
		o += e - p;
		p = e;
	}
	*o = '\0';
	return f;
}

/* The aliases loaded so far, by a hash of their words: each is checked
 * against the others as it is read. */
static uint32_t
alias_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The index of the alias spelt words, or -1. */
static int
alias_find(const struct command_aliases *al, const char *words)
{
	int j, mask = al->nslot - 1;

	if (al->nslot == 0)
		return -1;
	for (j = (int)(alias_hash(words) & (uint32_t)mask); al->slot[j] != 0;
	    j = (j + 1) & mask)
		if (strcmp(al->v[al->slot[j] - 1].words, words) == 0)
			return al->slot[j] - 1;
	return -1;
}

/* Put alias i in its slot. */
static void
alias_slot(struct command_aliases *al, const char *words, int i)
{
	int j, mask = al->nslot - 1;

	for (j = (int)(alias_hash(words) & (uint32_t)mask); al->slot[j] != 0;
	    j = (j + 1) & mask)
		;
	al->slot[j] = i + 1;
}

/* Index the alias just appended, the table kept at most half full. */
static void
alias_index_last(struct command_aliases *al)
{
	int i;

	if (2 * al->n <= al->nslot) {
		alias_slot(al, al->v[al->n - 1].words, al->n - 1);
		return;
	}
	free(al->slot);
	al->nslot = al->nslot ? 2 * al->nslot : 64;
	al->slot = xcalloc((size_t)al->nslot, sizeof(*al->slot));
	for (i = 0; i < al->n; i++)
		alias_slot(al, al->v[i].words, i);
}

static int
add_alias(struct yw *w, struct command_aliases *al, const yaml_node_t *n,
    const char *lang, enum command_kind kind)
{
	const char *s = yw_scalar(n);
	char *norm;
	int i, words;

	if (s == NULL)
		return yw_fail(w, n, "an alias must be a text value");
	norm = alias_norm(s);
	/* Normalised: the words are one space apart. */
	for (words = *norm != '\0', i = 0; norm[i] != '\0'; i++)
		words += norm[i] == ' ';
	if (words == 0 || words > MAX_ALIAS_WORDS ||
	    strlen(norm) > MAX_ALIAS_LEN || norm[0] == '#' ||
	    isdigit((unsigned char)norm[0]) || strpbrk(norm, "=@") != NULL ||
	    is_punct_tail(norm[strlen(norm) > 0 ? strlen(norm) - 1 : 0])) {
		yw_fail(w, n, "`%s` cannot be an alias: one to %d words, not "
		    "starting with # or a digit, without = or @", s,
		    MAX_ALIAS_WORDS);
		free(norm);
		return -1;
	}
	if ((i = kind_by_name(norm)) != CMD_NONE) {
		yw_fail(w, n, "`%s` is already the command %s", s,
		    info(i)->name);
		free(norm);
		return -1;
	}
	if ((i = alias_find(al, norm)) >= 0) {
		yw_fail(w, n, "`%s` is already an alias of %s (line %d)", s,
		    info(al->v[i].kind)->name, al->v[i].line);
		free(norm);
		return -1;
	}
	if (al->n == al->cap) {
		al->cap = al->cap ? 2 * al->cap : 64;
		al->v = xreallocarray(al->v, (size_t)al->cap, sizeof(*al->v));
	}
	al->v[al->n].words = norm;
	util_strlcpy(al->v[al->n].lang, lang, sizeof(al->v[al->n].lang));
	al->v[al->n].kind = kind;
	al->v[al->n].line = (int)n->start_mark.line + 1;
	al->n++;
	alias_index_last(al);
	return 0;
}

static int
walk_language(struct yw *w, struct command_aliases *al, yaml_node_t *n,
    const char *lang)
{
	yaml_node_pair_t *p;
	yaml_node_item_t *it;
	yaml_node_t *k, *v;
	enum command_kind kind;
	const char *key;

	if (n->type != YAML_MAPPING_NODE)
		return yw_fail(w, n, "the aliases of %s must be a mapping "
		    "from command to a list of aliases", lang);
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
		k = yaml_document_get_node(w->doc, p->key);
		v = yaml_document_get_node(w->doc, p->value);
		if ((key = yw_scalar(k)) == NULL || v == NULL)
			return yw_fail(w, n, "malformed mapping");
		if ((kind = kind_by_name(key)) == CMD_NONE)
			return yw_fail(w, k, "unknown command `%s` (help, "
			    "games, new, ..., set language, admin new, ...: "
			    "see ludus-commands(7))", key);
		if (v->type == YAML_SCALAR_NODE) {
			if (add_alias(w, al, v, lang, kind) == -1)
				return -1;
			continue;
		}
		if (v->type != YAML_SEQUENCE_NODE)
			return yw_fail(w, v, "the aliases of %s must be a "
			    "list", key);
		for (it = v->data.sequence.items.start;
		    it < v->data.sequence.items.top; it++)
			if (add_alias(w, al, yaml_document_get_node(w->doc,
			    *it), lang, kind) == -1)
				return -1;
	}
	return 0;
}

static int
lang_code_ok(const char *s)
{
	size_t n;

	for (n = 0; islower((unsigned char)s[n]); n++)
		;
	return n >= 2 && n <= 3 && s[n] == '\0';
}

static int
walk_root(struct yw *w, struct command_aliases *al, yaml_node_t *root)
{
	yaml_node_pair_t *p, *q;
	yaml_node_t *k, *v, *lk, *lv;
	const char *key, *lang;

	if (root == NULL)
		return yw_fail(w, NULL, "empty file");
	if (root->type != YAML_MAPPING_NODE)
		return yw_fail(w, root, "the file must be a mapping with "
		    "`aliases`");
	for (p = root->data.mapping.pairs.start;
	    p < root->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(w->doc, p->key);
		v = yaml_document_get_node(w->doc, p->value);
		if ((key = yw_scalar(k)) == NULL || v == NULL)
			return yw_fail(w, root, "malformed mapping");
		if (strcmp(key, "aliases") != 0)
			return yw_fail(w, k, "unknown key `%s` (aliases)",
			    key);
		if (v->type != YAML_MAPPING_NODE)
			return yw_fail(w, v, "aliases must be a mapping from "
			    "language code to commands");
		for (q = v->data.mapping.pairs.start;
		    q < v->data.mapping.pairs.top; q++) {
			lk = yaml_document_get_node(w->doc, q->key);
			lv = yaml_document_get_node(w->doc, q->value);
			if ((lang = yw_scalar(lk)) == NULL || lv == NULL)
				return yw_fail(w, v, "malformed mapping");
			if (!lang_code_ok(lang))
				return yw_fail(w, lk, "`%s` is not a language "
				    "code (en, ru, ...)", lang);
			if (walk_language(w, al, lv, lang) == -1)
				return -1;
		}
	}
	return 0;
}

int
command_aliases_load_text(const char *name, const char *text, size_t len,
    struct command_aliases **out, char *err, size_t errlen)
{
	struct yw w;
	struct command_aliases *al;
	int rc;

	*out = NULL;
	if (yw_load_text(&w, name, text, len, YW_MAX_DEPTH, err,
	    errlen) == -1) {
		yw_free(&w);
		return -1;
	}
	al = xcalloc(1, sizeof(*al));
	rc = walk_root(&w, al, yaml_document_get_root_node(w.doc));
	yw_free(&w);
	if (rc == -1) {
		command_aliases_free(al);
		return -1;
	}
	*out = al;
	return 0;
}

int
command_aliases_load(const char *path, struct command_aliases **out,
    char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc;

	*out = NULL;
	if ((text = util_read_file(path, 1 << 20, &len)) == NULL)
		return cmd_err(err, errlen, "%s: %s", path, strerror(errno));
	rc = command_aliases_load_text(path, text, len, out, err, errlen);
	free(text);
	return rc;
}

void
command_aliases_free(struct command_aliases *al)
{
	int i;

	if (al == NULL)
		return;
	for (i = 0; i < al->n; i++) {
		free(al->v[i].words);
	}
	free(al->v);
	free(al->slot);
	free(al);
}

void
command_aliases_text(const struct command_aliases *al, enum command_kind k,
    const char *lang, struct buf *b)
{
	int i, n = 0;

	for (i = 0; al != NULL && i < al->n; i++)
		if (al->v[i].kind == k && strcmp(al->v[i].lang, lang) == 0)
			buf_printf(b, "%s%s", n++ ? ", " : "", al->v[i].words);
}
