/* confgen: the settings written back from the table: the dump of a
 * loaded configuration, the sample file and the manual's settings. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confint.h"

#define NSETTINGS	conf_nsettings
#define NSECTIONS	conf_nsections

/* Writing settings back: the dump, the sample, the manual. */

static void
yaml_scalar(struct buf *b, const char *s, int in_flow)
{
	const char *p;
	int quote = *s == '\0' || strchr("-?:,[]{}#&*!|>'\"%@` ", *s) ||
	    s[strlen(s) - 1] == ' ' || s[strlen(s) - 1] == ':' ||
	    strstr(s, ": ") || strstr(s, " #") ||
	    strcmp(s, "~") == 0 || util_strcaseeq(s, "null") ||
	    (in_flow && strpbrk(s, ",[]{}:"));

	if (!quote) {
		buf_adds(b, s);
		return;
	}
	buf_addc(b, '"');
	for (p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_addc(b, '\\');
		buf_addc(b, *p);
	}
	buf_addc(b, '"');
}

static void
format_value(const struct config *c, const struct setting *s, struct buf *b)
{
	const void *f = conf_field(c, s);
	const struct config_list *l;
	const struct config_percents *pc;
	const struct config_processed *pr;
	const char *str;
	int i;

	switch (s->type) {
	case T_STRING:
	case T_PATH:
	case T_ADDRESS:
		str = *(char *const *)f;
		yaml_scalar(b, str ? str : "", 0);
		break;
	case T_INT:
		buf_printf(b, "%lld", *(const long long *)f);
		break;
	case T_SIZE:
		conf_format_size(*(const long long *)f, b);
		break;
	case T_DURATION:
		config_format_duration(*(const long long *)f, b);
		break;
	case T_BOOL:
		buf_adds(b, *(const int *)f ? "true" : "false");
		break;
	case T_ENUM:
		buf_adds(b, s->values[*(const int *)f]);
		break;
	case T_URL:
		str = ((const struct config_url *)f)->text;
		yaml_scalar(b, str ? str : "", 0);
		break;
	case T_CLOCK:
		config_format_clock(f, b);
		break;
	case T_PROCESSED:
		pr = f;
		buf_printf(b, "%s %s", pr->kind == CONFIG_PROCESSED_MOVE ?
		    "move" : "flag", pr->arg);
		break;
	case T_PERCENTS:
		pc = f;
		buf_addc(b, '[');
		for (i = 0; i < pc->n; i++)
			buf_printf(b, "%s%d%%", i ? ", " : "", pc->v[i]);
		buf_addc(b, ']');
		break;
	case T_ADDRESS_LIST:
	case T_LISTID_LIST:
	case T_LINE_LIST:
		l = f;
		buf_addc(b, '[');
		for (i = 0; i < l->n; i++) {
			if (i)
				buf_adds(b, ", ");
			yaml_scalar(b, l->v[i], 1);
		}
		buf_addc(b, ']');
		break;
	}
}

/* What a reader needs beside the help: choices, range, requirement. */
static void
describe(const struct setting *s, struct buf *b)
{
	int k;

	if (s->type == T_ENUM) {
		buf_adds(b, "  One of:");
		for (k = 0; s->values[k] != NULL; k++)
			buf_printf(b, "%s `%s`", k ? "," : "", s->values[k]);
		buf_addc(b, '.');
	}
	if (s->type == T_INT || s->type == T_SIZE || s->type == T_DURATION) {
		buf_adds(b, "  Between ");
		conf_range_text(s, b);
		buf_addc(b, '.');
	}
	if (s->flags & F_REQUIRED)
		buf_adds(b, "  Required.");
	if (s->defdoc != NULL)
		buf_printf(b, "  Default: %s.", s->defdoc);
}

static int
section_active(const struct config *c, const char *sec)
{
	if (strncmp(sec, "in.imap", 7) == 0)
		return c->in == CONFIG_IN_IMAP;
	if (strncmp(sec, "in.maildir", 10) == 0)
		return c->in == CONFIG_IN_MAILDIR;
	if (strncmp(sec, "out.smtp", 8) == 0)
		return c->out == CONFIG_OUT_SMTP;
	if (strncmp(sec, "out.sendmail", 12) == 0)
		return c->out == CONFIG_OUT_SENDMAIL;
	return 1;
}

static int
section_off(const char *sec, size_t len)
{
	int i;

	for (i = 0; i < NSECTIONS; i++)
		if ((conf_sections[i].flags & S_SAMPLE_OFF) &&
		    strlen(conf_sections[i].path) <= len &&
		    strncmp(conf_sections[i].path, sec,
		    strlen(conf_sections[i].path)) == 0)
			return 1;
	return 0;
}

static int
depth(const char *sec, size_t len)
{
	size_t i;
	int d = len > 0;

	for (i = 0; i < len; i++)
		d += sec[i] == '.';
	return d;
}

/* Comment lines, wrapped. */
static void
comment(struct buf *b, int indent, const char *text)
{
	const char *p = text, *end, *brk;
	size_t width = 72 - (size_t)indent - 2;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		end = p + strlen(p);
		if ((size_t)(end - p) > width) {
			for (brk = p + width; brk > p && *brk != ' '; brk--)
				;
			if (brk > p)
				end = brk;
		}
		buf_printf(b, "%*s# %.*s\n", indent, "", (int)(end - p), p);
		p = end;
	}
}

/* Open the headers of sec that are not yet open. */
static void
open_sections(struct buf *b, char *open, size_t opensz, const char *sec,
    size_t seclen, int sample)
{
	size_t common = 0, i, end;
	int si;

	/* Longest common whole-component prefix of open and sec. */
	for (i = 0; ; i++) {
		int oe = open[i] == '\0', se = i == seclen;

		if (oe || se || open[i] == '.' || sec[i] == '.') {
			if ((oe || open[i] == '.') && (se || sec[i] == '.') &&
			    strncmp(open, sec, i) == 0)
				common = i;
			if (oe || se)
				break;
		}
	}
	if (seclen == 0 && open[0] != '\0' && sample) {
		buf_addc(b, '\n');
		comment(b, 0, conf_sections[conf_section_index("", 0)].help);
		buf_addc(b, '\n');
	}
	for (end = common ? common + 1 : 0; end < seclen; end++) {
		while (end < seclen && sec[end] != '.')
			end++;
		si = conf_section_index(sec, end);
		if (sample) {
			if (depth(sec, end) == 1)
				buf_addc(b, '\n');
			comment(b, 2 * (depth(sec, end) - 1),
			    conf_sections[si].help);
		}
		buf_printf(b, "%*s%s%s:\n", 2 * (depth(sec, end) - 1), "",
		    sample && section_off(sec, end) ? "#" : "",
		    conf_leaf(conf_sections[si].path));
	}
	util_strlcpy(open, sec, opensz < seclen + 1 ? opensz : seclen + 1);
}

/* What emit writes: the settings in effect, the sample, or those given. */
enum emit_what { EMIT_DUMP, EMIT_SAMPLE, EMIT_GIVEN };

static void
emit(struct buf *b, const struct config *c, enum emit_what what)
{
	int sample = what == EMIT_SAMPLE;
	const struct setting *s;
	struct buf help = { 0 };
	char open[64] = "";
	size_t plen;
	int i, ind, commented;

	for (i = 0; i < NSETTINGS; i++) {
		s = &conf_settings[i];
		plen = conf_parent_len(s->path);
		if (!sample && !section_active(c, s->path))
			continue;
		if (what == EMIT_GIVEN && (c->given == NULL || !c->given[i]))
			continue;
		if (plen != strlen(open) || strncmp(open, s->path, plen) != 0)
			open_sections(b, open, sizeof(open), s->path, plen,
			    sample);
		ind = 2 * depth(s->path, plen);
		commented = 0;
		if (sample) {
			buf_reset(&help);
			buf_adds(&help, s->help);
			describe(s, &help);
			comment(b, ind, help.s);
			commented = section_off(s->path, plen) ||
			    (!(s->flags & (F_REQUIRED | F_SAMPLE)) &&
			    (s->def == NULL || s->defdoc != NULL));
		}
		buf_printf(b, "%*s%s%s: ", ind, "", commented ? "#" : "",
		    conf_leaf(s->path));
		if (commented && s->def == NULL && s->example == NULL)
			fatal("config: %s needs an example", s->path);
		if (commented && (s->def == NULL || s->defdoc != NULL))
			buf_adds(b, s->example);
		else
			format_value(c, s, b);
		buf_addc(b, '\n');
	}
	buf_free(&help);
}

void
config_dump(const struct config *c, struct buf *b)
{
	emit(b, c, EMIT_DUMP);
}

void
config_dump_given(const struct config *c, struct buf *b)
{
	emit(b, c, EMIT_GIVEN);
}

int
config_dump_key(const struct config *c, const char *key, struct buf *b)
{
	size_t n = strlen(key);
	int i, found = 0;

	for (i = 0; i < NSETTINGS; i++) {
		const char *p = conf_settings[i].path;

		if (strcmp(p, key) != 0 && (strncmp(p, key, n) != 0 ||
		    p[n] != '.'))
			continue;
		found = 1;
		buf_printf(b, "%s: ", p);
		format_value(c, &conf_settings[i], b);
		buf_addc(b, '\n');
	}
	return found ? 0 : -1;
}

void
config_doc_sample(struct buf *b)
{
	struct config c;
	char msg[MSGLEN];
	int i;

	config_defaults(&c);
	for (i = 0; i < NSETTINGS; i++)
		if ((conf_settings[i].flags & (F_REQUIRED | F_SAMPLE)) &&
		    conf_set_text(&c, &conf_settings[i],
		    conf_settings[i].example, msg, sizeof(msg)) == -1)
			fatal("config: example of %s: %s",
			    conf_settings[i].path, msg);
	buf_adds(b,
	    "# ludus.yaml: the configuration of the ludus referee.\n"
	    "#\n"
	    "# Every setting is shown with its default value; the few without\n"
	    "# one show an example.  Lines starting with # are comments: remove\n"
	    "# the # of a setting to use it.  See ludus.yaml(5) for the value\n"
	    "# syntax.  `ludusd -n` checks a file and reports the first problem\n"
	    "# with its line number.\n");
	emit(b, &c, EMIT_SAMPLE);
	config_free(&c);
}

/* Text for a roff line: escape backslashes, `x` as quotes. */
static void
roff_text(struct buf *b, const char *text)
{
	const char *s;
	int open = 0;

	for (s = text; *s; s++) {
		if (*s == '\\')
			buf_adds(b, "\\e");
		else if (*s == '`') {
			buf_adds(b, open ? "\\(cq" : "\\(oq");
			open = !open;
		} else if (*s == ' ' && s > text && s[-1] == '.' &&
		    s[1] == ' ') {
			/* One sentence a line, as mdoc wants. */
			buf_addc(b, '\n');
			while (s[1] == ' ')
				s++;
		} else
			buf_addc(b, *s);
	}
	buf_addc(b, '\n');
}

static void
roff_arg(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	for (; *s; s++) {
		if (*s == '\\')
			buf_adds(b, "\\e");
		else if (*s == '"')
			buf_adds(b, "\\(dq");
		else
			buf_addc(b, *s);
	}
	buf_addc(b, '"');
}

static const char *
type_name(enum ctype t)
{
	switch (t) {
	case T_STRING:		return "text";
	case T_INT:		return "number";
	case T_SIZE:		return "size";
	case T_BOOL:		return "bool";
	case T_DURATION:	return "duration";
	case T_ENUM:		return "word";
	case T_ADDRESS:		return "address";
	case T_ADDRESS_LIST:	return "address-list";
	case T_LISTID_LIST:	return "mailing-lists";
	case T_PATH:		return "path";
	case T_URL:		return "URL";
	case T_CLOCK:		return "clock";
	case T_PERCENTS:	return "percent-list";
	case T_PROCESSED:	return "action";
	case T_LINE_LIST:	return "line-list";
	}
	return "?";
}

void
config_doc_man(struct buf *b)
{
	const struct setting *s;
	struct config c;
	struct buf t = { 0 };
	size_t plen;
	int i, j, sec, last = -1, k, shown[CONF_MAX_SECTIONS] = { 0 };
	size_t jl;

	config_defaults(&c);
	for (i = 0; i < NSETTINGS; i++) {
		s = &conf_settings[i];
		plen = conf_parent_len(s->path);
		sec = conf_section_index(s->path, plen);
		if (sec != last) {
			if (last != -1)
				buf_adds(b, ".El\n");
			/* Sections that hold only sections (in, out) too. */
			for (j = 0; j < NSECTIONS; j++) {
				jl = strlen(conf_sections[j].path);
				if (shown[j] || jl == 0 || jl >= plen ||
				    strncmp(conf_sections[j].path, s->path,
				    jl) != 0 ||
				    s->path[jl] != '.')
					continue;
				buf_printf(b, ".Ss %s\n",
				    conf_sections[j].path);
				roff_text(b, conf_sections[j].help);
				shown[j] = 1;
			}
			buf_printf(b, ".Ss %s\n", plen ?
			    conf_sections[sec].path : "Files");
			roff_text(b, conf_sections[sec].help);
			buf_adds(b, ".Bl -tag -width Ds\n");
			shown[sec] = 1;
			last = sec;
		}
		buf_printf(b, ".It Ic %s", s->path);
		if (s->type == T_ENUM)
			for (k = 0; s->values[k] != NULL; k++)
				buf_printf(b, "%s Cm %s", k ? " |" : "",
				    s->values[k]);
		else
			buf_printf(b, " Ar %s", type_name(s->type));
		buf_addc(b, '\n');
		buf_reset(&t);
		buf_adds(&t, s->help);
		if (s->type != T_ENUM)
			describe(s, &t);
		else if (s->flags & F_REQUIRED)
			buf_adds(&t, "  Required.");
		roff_text(b, t.s);
		if (s->def != NULL && s->defdoc == NULL) {
			buf_reset(&t);
			format_value(&c, s, &t);
			buf_adds(b, "Default:\n.Ql ");
			roff_arg(b, t.s);
			buf_adds(b, " .\n");
		}
	}
	buf_adds(b, ".El\n");
	buf_free(&t);
	config_free(&c);
}
