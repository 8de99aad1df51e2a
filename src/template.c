/* template: parse and render the outgoing-mail templates (see template.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"

#define TMPL_DEPTH	32	/* sections open at once; loops nested */

/* ---- the data tree ---- */

enum { V_STR, V_REC, V_LIST };

struct tmpl_value {
	int	kind;
	char	*str;			/* owned, V_STR */
	char	*style;			/* owned, V_STR: strlen(str) style
					 * bytes, or NULL */
	struct tmpl_data *rec;		/* owned, V_REC */
	struct tmpl_list *list;		/* owned, V_LIST */
};

struct tmpl_field {
	char	*name;			/* owned */
	struct tmpl_value v;
};

struct tmpl_data {
	struct tmpl_field *f;
	size_t	n, cap;
};

struct tmpl_list {
	struct tmpl_value *v;
	size_t	n, cap;
};

static void	list_free(struct tmpl_list *);

static void
value_clear(struct tmpl_value *v)
{
	switch (v->kind) {
	case V_STR:
		free(v->str);
		free(v->style);
		break;
	case V_REC:
		tmpl_data_free(v->rec);
		break;
	case V_LIST:
		list_free(v->list);
		break;
	}
	memset(v, 0, sizeof(*v));
}

static void
list_free(struct tmpl_list *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->n; i++)
		value_clear(&l->v[i]);
	free(l->v);
	free(l);
}

struct tmpl_data *
tmpl_data_new(void)
{
	return xcalloc(1, sizeof(struct tmpl_data));
}

void
tmpl_data_free(struct tmpl_data *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->n; i++) {
		free(d->f[i].name);
		value_clear(&d->f[i].v);
	}
	free(d->f);
	free(d);
}

static struct tmpl_value *
field_get(const struct tmpl_data *d, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (strlen(d->f[i].name) == len &&
		    memcmp(d->f[i].name, name, len) == 0)
			return &d->f[i].v;
	return NULL;
}

/* The field's value slot, added (as an empty string) when absent. */
static struct tmpl_value *
field_put(struct tmpl_data *d, const char *name, size_t len)
{
	struct tmpl_value *v = field_get(d, name, len);

	if (v != NULL)
		return v;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 8;
		d->f = xreallocarray(d->f, d->cap, sizeof(*d->f));
	}
	d->f[d->n].name = xstrndup(name, len);
	memset(&d->f[d->n].v, 0, sizeof(struct tmpl_value));
	d->f[d->n].v.kind = V_STR;
	d->f[d->n].v.str = xstrdup("");
	return &d->f[d->n++].v;
}

/* The record holding the last segment of a dotted name, sub-records made
 * (or put in place of strings and lists) on the way; *last is set to the
 * last segment. */
static struct tmpl_data *
walk_parent(struct tmpl_data *d, const char *name, const char **last)
{
	const char *dot;
	struct tmpl_value *v;

	while ((dot = strchr(name, '.')) != NULL) {
		v = field_put(d, name, (size_t)(dot - name));
		if (v->kind != V_REC) {
			value_clear(v);
			v->kind = V_REC;
			v->rec = tmpl_data_new();
		}
		d = v->rec;
		name = dot + 1;
	}
	*last = name;
	return d;
}

void
tmpl_set(struct tmpl_data *d, const char *name, const char *value)
{
	const char *last;
	struct tmpl_value *v;

	d = walk_parent(d, name, &last);
	v = field_put(d, last, strlen(last));
	value_clear(v);
	v->kind = V_STR;
	v->str = xstrdup(value != NULL ? value : "");
}

void
tmpl_set_styled(struct tmpl_data *d, const char *name, const char *value,
    const char *style)
{
	const char *last;
	struct tmpl_value *v;

	tmpl_set(d, name, value);
	d = walk_parent(d, name, &last);
	v = field_put(d, last, strlen(last));
	if (style != NULL && *v->str != '\0') {
		v->style = xmalloc(strlen(v->str));
		memcpy(v->style, style, strlen(v->str));
	}
}

const char *
tmpl_get(const struct tmpl_data *d, const char *name)
{
	const struct tmpl_value *v = NULL;
	const char *dot;
	size_t len;

	for (;;) {
		dot = strchr(name, '.');
		len = dot != NULL ? (size_t)(dot - name) : strlen(name);
		if ((v = field_get(d, name, len)) == NULL)
			return NULL;
		if (dot == NULL)
			return v->kind == V_STR ? v->str : NULL;
		if (v->kind != V_REC)
			return NULL;
		d = v->rec;
		name = dot + 1;
	}
}

void
tmpl_setf(struct tmpl_data *d, const char *name, const char *fmt, ...)
{
	struct buf b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	tmpl_set(d, name, buf_str(&b));
	buf_free(&b);
}

void
tmpl_set_int(struct tmpl_data *d, const char *name, long long n)
{
	tmpl_setf(d, name, "%lld", n);
}

struct tmpl_data *
tmpl_record(struct tmpl_data *d, const char *name)
{
	const char *last;
	struct tmpl_value *v;

	d = walk_parent(d, name, &last);
	v = field_put(d, last, strlen(last));
	if (v->kind != V_REC) {
		value_clear(v);
		v->kind = V_REC;
		v->rec = tmpl_data_new();
	}
	return v->rec;
}

struct tmpl_list *
tmpl_list(struct tmpl_data *d, const char *name)
{
	const char *last;
	struct tmpl_value *v;

	d = walk_parent(d, name, &last);
	v = field_put(d, last, strlen(last));
	if (v->kind != V_LIST) {
		value_clear(v);
		v->kind = V_LIST;
		v->list = xcalloc(1, sizeof(struct tmpl_list));
	}
	return v->list;
}

static struct tmpl_value *
list_push(struct tmpl_list *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	memset(&l->v[l->n], 0, sizeof(struct tmpl_value));
	return &l->v[l->n++];
}

struct tmpl_data *
tmpl_list_add(struct tmpl_list *l)
{
	struct tmpl_value *v = list_push(l);

	v->kind = V_REC;
	v->rec = tmpl_data_new();
	return v->rec;
}

void
tmpl_list_add_str(struct tmpl_list *l, const char *s)
{
	struct tmpl_value *v = list_push(l);

	v->kind = V_STR;
	v->str = xstrdup(s != NULL ? s : "");
}

void
tmpl_list_add_styled(struct tmpl_list *l, const char *s, const char *style)
{
	struct tmpl_value *v;

	tmpl_list_add_str(l, s);
	v = &l->v[l->n - 1];
	if (style != NULL && *v->str != '\0') {
		v->style = xmalloc(strlen(v->str));
		memcpy(v->style, style, strlen(v->str));
	}
}

size_t
tmpl_list_len(const struct tmpl_list *l)
{
	return l->n;
}

struct tmpl_data *
tmpl_list_get(struct tmpl_list *l, size_t i)
{
	return i < l->n && l->v[i].kind == V_REC ? l->v[i].rec : NULL;
}

/* ---- UTF-8 ---- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 (RFC 3629: no
 * overlongs, no surrogates, nothing above U+10FFFF). */
static size_t
utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0;
		if (c == 0xed && s[1] > 0x9f)
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0;
		if (c == 0xf4 && s[1] > 0x8f)
			return 0;
		return 4;
	}
	return 0;
}

/* ---- the parsed template ---- */

enum { N_TEXT, N_VAR, N_IF, N_UNLESS, N_EACH };

struct nodes {
	struct node **v;
	size_t	n, cap;
};

struct node {
	int	kind;
	int	line;
	char	*text;			/* N_TEXT, owned */
	char	*name;			/* N_VAR and sections, owned */
	int	raw;			/* {{&name}} */
	size_t	max;			/* |max:N, 0 for none */
	int	has_else;
	struct nodes body, alt;		/* sections */
};

struct tmpl {
	char	*file;			/* owned */
	struct node *subject;		/* the Subject line, may be NULL */
	struct nodes body;
};

static const char *const section_kw[] = { "if", "unless", "each" };

static void
nodes_free(struct nodes *ns)
{
	size_t i;

	for (i = 0; i < ns->n; i++) {
		free(ns->v[i]->text);
		free(ns->v[i]->name);
		nodes_free(&ns->v[i]->body);
		nodes_free(&ns->v[i]->alt);
		free(ns->v[i]);
	}
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}

static struct node *
nodes_add(struct nodes *ns, int kind, int line)
{
	struct node *n = xcalloc(1, sizeof(*n));

	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 8;
		ns->v = xreallocarray(ns->v, ns->cap, sizeof(*ns->v));
	}
	n->kind = kind;
	n->line = line;
	ns->v[ns->n++] = n;
	return n;
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int
name_char(char c, int first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return 1;
	return !first && ((c >= '0' && c <= '9') || c == '-');
}

/* A variable name: ".", @index|@number|@first|@last, or ident(.ident)*. */
static int
valid_name(const char *s, size_t len)
{
	static const char *const meta[] = { "@index", "@number", "@first",
	    "@last" };
	size_t i;
	int first = 1;

	if (len == 1 && s[0] == '.')
		return 1;
	for (i = 0; i < nitems(meta); i++)
		if (strlen(meta[i]) == len && memcmp(meta[i], s, len) == 0)
			return 1;
	if (len == 0)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] == '.' && !first && i + 1 < len) {
			first = 1;
			continue;
		}
		if (!name_char(s[i], first))
			return 0;
		first = 0;
	}
	return 1;
}

struct parser {
	const char *file;
	const char *text;
	int	line_base;		/* line number of text[0] */
	const char *seen;		/* where line_of last counted to */
	int	seen_line;		/* and the line there */
	char	*err;
	size_t	errlen;
	/* open sections, innermost last */
	struct node *open[TMPL_DEPTH];
	int	depth;
};

/* The line of at, counted on from the last place asked about (the
 * parser asks in nearly increasing order: no rescan from the start). */
static int
line_of(struct parser *p, const char *at)
{
	const char *s;

	if (p->seen == NULL) {
		p->seen = p->text;
		p->seen_line = p->line_base;
	}
	for (s = p->seen; s < at; s++)
		if (*s == '\n')
			p->seen_line++;
	for (s = p->seen; s > at; s--)
		if (s[-1] == '\n')
			p->seen_line--;
	p->seen = at;
	return p->seen_line;
}

static struct nodes *
target(struct parser *p, struct nodes *root)
{
	struct node *top;

	if (p->depth == 0)
		return root;
	top = p->open[p->depth - 1];
	return top->has_else ? &top->alt : &top->body;
}

static int
tag_unknown(struct parser *p, const char *s, size_t len, int line)
{
	util_err(p->err, p->errlen, "%s:%d: unknown tag {{%.*s}}", p->file,
	    line, (int)(len > 40 ? 40 : len), s);
	return -1;
}

/* {{#kw name}} opens a section, {{/kw}} closes the innermost one. */
static int
parse_section(struct parser *p, struct nodes *root, const char *s,
    size_t len, int line)
{
	const char *name;
	struct node *n;
	size_t i, kwlen = 0, nlen;

	for (i = 0; i < nitems(section_kw); i++) {
		kwlen = strlen(section_kw[i]);
		if (len >= 1 + kwlen && memcmp(s + 1, section_kw[i], kwlen) == 0
		    && (len == 1 + kwlen || is_blank(s[1 + kwlen])))
			break;
	}
	if (i == nitems(section_kw))
		return tag_unknown(p, s, len, line);
	if (s[0] == '/') {
		if (len != 1 + kwlen)
			return tag_unknown(p, s, len, line);
		if (p->depth == 0) {
			util_err(p->err, p->errlen,
			    "%s:%d: {{/%s}} without an open section", p->file,
			    line, section_kw[i]);
			return -1;
		}
		n = p->open[p->depth - 1];
		if (n->kind != N_IF + (int)i) {
			util_err(p->err, p->errlen,
			    "%s:%d: {{/%s}} closes {{#%s %s}} of line %d",
			    p->file, line, section_kw[i],
			    section_kw[n->kind - N_IF], n->name, n->line);
			return -1;
		}
		p->depth--;
		return 0;
	}
	name = s + 1 + kwlen;
	nlen = len - 1 - kwlen;
	while (nlen > 0 && is_blank(*name)) {
		name++;
		nlen--;
	}
	if (nlen == 0 || !valid_name(name, nlen)) {
		util_err(p->err, p->errlen, "%s:%d: {{#%s}} needs one name",
		    p->file, line, section_kw[i]);
		return -1;
	}
	if (p->depth == TMPL_DEPTH) {
		util_err(p->err, p->errlen, "%s:%d: sections nested too deeply",
		    p->file, line);
		return -1;
	}
	n = nodes_add(target(p, root), N_IF + (int)i, line);
	n->name = xstrndup(name, nlen);
	p->open[p->depth++] = n;
	return 0;
}

static int
parse_else(struct parser *p, int line)
{
	struct node *n;

	if (p->depth == 0) {
		util_err(p->err, p->errlen, "%s:%d: {{else}} outside a section",
		    p->file, line);
		return -1;
	}
	n = p->open[p->depth - 1];
	if (n->has_else) {
		util_err(p->err, p->errlen,
		    "%s:%d: a second {{else}} in {{#%s %s}} of line %d",
		    p->file, line, section_kw[n->kind - N_IF], n->name, n->line);
		return -1;
	}
	n->has_else = 1;
	return 0;
}

/* {{name}}, {{&name}}, {{name|max:N}}. */
static int
parse_var(struct parser *p, struct nodes *root, const char *s, size_t len,
    int line)
{
	const char *name = s, *bar, *f;
	size_t nlen, flen;
	long long max = 0;
	char num[24];
	struct node *n;
	int raw;

	raw = len > 0 && s[0] == '&';
	if (raw)
		name++;
	bar = memchr(name, '|', len - (size_t)raw);
	nlen = bar != NULL ? (size_t)(bar - name) : len - (size_t)raw;
	while (nlen > 0 && is_blank(name[nlen - 1]))
		nlen--;
	if (!valid_name(name, nlen))
		return tag_unknown(p, s, len, line);
	if (bar != NULL) {
		f = bar + 1;
		flen = len - (size_t)(f - s);
		while (flen > 0 && is_blank(*f)) {
			f++;
			flen--;
		}
		if (flen <= 4 || memcmp(f, "max:", 4) != 0 ||
		    flen - 4 >= sizeof(num))
			return tag_unknown(p, s, len, line);
		memcpy(num, f + 4, flen - 4);
		num[flen - 4] = '\0';
		if (util_parse_int(num, 1, 100000, &max) != 0) {
			util_err(p->err, p->errlen,
			    "%s:%d: max:N needs a number 1-100000", p->file,
			    line);
			return -1;
		}
	}
	n = nodes_add(target(p, root), N_VAR, line);
	n->raw = raw;
	n->max = (size_t)max;
	n->name = xstrndup(name, nlen);
	return 0;
}

/* One tag's inside (trimmed) at line: add it to the tree.  0 or -1. */
static int
parse_tag(struct parser *p, struct nodes *root, const char *s, size_t len,
    int line)
{
	if (len > 0 && (s[0] == '#' || s[0] == '/'))
		return parse_section(p, root, s, len, line);
	if (len == 4 && memcmp(s, "else", 4) == 0)
		return parse_else(p, line);
	return parse_var(p, root, s, len, line);
}

/* Parse text (one line of subject, or the body) into root. */
static int
parse_into(struct parser *p, struct nodes *root)
{
	const char *s = p->text, *open, *close, *ls, *r, *in, *text_end;
	size_t ilen;
	int line, standalone, section;

	p->depth = 0;
	p->seen = NULL;
	for (;;) {
		open = strstr(s, "{{");
		if (open == NULL) {
			if (*s != '\0')
				nodes_add(target(p, root), N_TEXT,
				    line_of(p, s))->text = xstrdup(s);
			break;
		}
		line = line_of(p, open);
		if (open[2] == '!') {
			close = strstr(open + 3, "}}");
		} else {
			close = open + 2;
			while (*close != '\0' && *close != '\n' &&
			    strncmp(close, "}}", 2) != 0)
				close++;
			if (*close != '}')
				close = NULL;
		}
		if (close == NULL) {
			util_err(p->err, p->errlen, "%s:%d: unterminated tag",
			    p->file, line);
			return -1;
		}
		in = open + 2;
		ilen = (size_t)(close - in);
		while (ilen > 0 && is_blank(*in)) {
			in++;
			ilen--;
		}
		while (ilen > 0 && is_blank(in[ilen - 1]))
			ilen--;
		section = ilen > 0 && (in[0] == '#' || in[0] == '/' ||
		    in[0] == '!');
		section |= ilen == 4 && memcmp(in, "else", 4) == 0;

		/* A section tag or comment alone on its line vanishes with
		 * its line, so templates can be laid out readably. */
		text_end = open;
		r = close + 2;
		standalone = 0;
		if (section) {
			for (ls = open; ls > p->text && ls[-1] != '\n'; ls--)
				if (!is_blank(ls[-1]))
					break;
			if (ls == p->text || ls[-1] == '\n') {
				while (is_blank(*r))
					r++;
				if (*r == '\n' || (*r == '\r' && r[1] == '\n') ||
				    *r == '\0') {
					standalone = 1;
					text_end = ls;
					r += *r == '\r' ? 2 : *r == '\n' ? 1 : 0;
				}
			}
			if (!standalone)
				r = close + 2;
		}
		if (text_end > s)
			nodes_add(target(p, root), N_TEXT, line_of(p, s))->text =
			    xstrndup(s, (size_t)(text_end - s));
		if (in[0] != '!' && parse_tag(p, root, in, ilen, line) != 0)
			return -1;
		s = r;
	}
	if (p->depth > 0) {
		struct node *top = p->open[p->depth - 1];

		util_err(p->err, p->errlen, "%s:%d: {{#%s %s}} is never closed",
		    p->file, top->line, section_kw[top->kind - N_IF],
		    top->name);
		return -1;
	}
	return 0;
}

struct tmpl *
tmpl_parse(const char *text, const char *file, char *err, size_t errlen)
{
	struct tmpl *t = xcalloc(1, sizeof(*t));
	struct parser p = { 0 };
	const unsigned char *u;
	const char *nl;
	char *subj;
	size_t n;
	int line = 1;

	t->file = xstrdup(file != NULL ? file : "(template)");
	for (u = (const unsigned char *)text; *u != '\0'; u += n) {
		if (*u == '\n')
			line++;
		if ((n = utf8_seq(u)) == 0) {
			util_err(err, errlen, "%s:%d: invalid UTF-8", t->file,
			    line);
			goto fail;
		}
	}
	p.file = t->file;
	p.err = err;
	p.errlen = errlen;
	p.line_base = 1;
	if (strncmp(text, "Subject:", 8) == 0) {
		nl = strchr(text, '\n');
		n = nl != NULL ? (size_t)(nl - text) : strlen(text);
		if (n > 8 && text[n - 1] == '\r')
			n--;
		subj = xstrndup(text + 8, n - 8);
		t->subject = xcalloc(1, sizeof(struct node));
		t->subject->kind = N_IF;	/* an always-true holder */
		p.text = util_trim(subj);
		if (parse_into(&p, &t->subject->body) != 0) {
			free(subj);
			goto fail;
		}
		free(subj);
		text = nl != NULL ? nl + 1 : text + n;
		p.line_base = 2;
	}
	p.text = text;
	if (parse_into(&p, &t->body) != 0)
		goto fail;
	return t;
fail:
	tmpl_free(t);
	return NULL;
}

static int
valid_path_word(const char *s, int lang)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 32)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
			continue;
		if (c == '-' && i > 0)
			continue;
		if (!lang && c >= '0' && c <= '9')
			continue;
		return 0;
	}
	return 1;
}

static char *
read_file(const char *path, int *missing, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct buf b = { 0 };
	char chunk[4096];
	size_t n;

	*missing = 0;
	if (f == NULL) {
		*missing = errno == ENOENT;
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(f) || memchr(buf_str(&b), '\0', b.len) != NULL) {
		util_err(err, errlen, "%s: %s", path,
		    ferror(f) ? "read error" : "contains a NUL byte");
		fclose(f);
		buf_free(&b);
		return NULL;
	}
	fclose(f);
	return buf_steal(&b);
}

struct tmpl *
tmpl_load(const char *dir, const char *lang, const char *name, char *err,
    size_t errlen)
{
	struct tmpl *t;
	char *path, *text;
	int missing;

	if (!valid_path_word(lang, 1) || !valid_path_word(name, 0)) {
		util_err(err, errlen, "bad template language or name: %s/%s",
		    lang, name);
		return NULL;
	}
	path = xasprintf("%s/%s/%s.tmpl", dir, lang, name);
	text = read_file(path, &missing, err, errlen);
	if (text == NULL && missing && strcmp(lang, "en") != 0) {
		free(path);
		path = xasprintf("%s/en/%s.tmpl", dir, name);
		text = read_file(path, &missing, err, errlen);
	}
	if (text == NULL) {
		free(path);
		return NULL;
	}
	t = tmpl_parse(text, path, err, errlen);
	free(text);
	free(path);
	return t;
}

void
tmpl_free(struct tmpl *t)
{
	if (t == NULL)
		return;
	if (t->subject != NULL) {
		nodes_free(&t->subject->body);
		free(t->subject);
	}
	nodes_free(&t->body);
	free(t->file);
	free(t);
}

const char *
tmpl_file(const struct tmpl *t)
{
	return t->file;
}

static void cache_put(struct tmpl_cache *, char *key, struct tmpl *);

int
tmpl_check_dir(const char *dir, struct buf *errors)
{
	return tmpl_cache_fill(NULL, dir, errors);
}

int
tmpl_cache_fill(struct tmpl_cache *c, const char *dir, struct buf *errors)
{
	DIR *top, *sub;
	struct dirent *l, *f;
	struct tmpl *t;
	char err[512], *path, *text;
	size_t len;
	int broken = 0, missing;

	if ((top = opendir(dir)) == NULL) {
		buf_printf(errors, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((l = readdir(top)) != NULL) {
		if (l->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, l->d_name);
		sub = opendir(path);
		free(path);
		if (sub == NULL)
			continue;
		while ((f = readdir(sub)) != NULL) {
			len = strlen(f->d_name);
			if (f->d_name[0] == '.' || len <= 5 ||
			    strcmp(f->d_name + len - 5, ".tmpl") != 0)
				continue;
			path = xasprintf("%s/%s/%s", dir, l->d_name,
			    f->d_name);
			text = read_file(path, &missing, err, sizeof(err));
			t = text != NULL ? tmpl_parse(text, path, err,
			    sizeof(err)) : NULL;
			if (t == NULL) {
				buf_printf(errors, "%s\n", err);
				broken++;
			} else if (c != NULL) {
				cache_put(c, xasprintf("%s/%.*s", l->d_name,
				    (int)len - 5, f->d_name), t);
				t = NULL;
			}
			tmpl_free(t);
			free(text);
			free(path);
		}
		closedir(sub);
	}
	closedir(top);
	return broken;
}

struct tmpl_cache_entry {
	char	*key;			/* "lang/name", owned */
	struct tmpl *t;			/* owned */
};

struct tmpl_cache {
	char	*dir;
	struct tmpl_cache_entry *v;
	size_t	n, cap;
};

struct tmpl_cache *
tmpl_cache_new(const char *dir)
{
	struct tmpl_cache *c = xcalloc(1, sizeof(*c));

	c->dir = xstrdup(dir);
	return c;
}

void
tmpl_cache_free(struct tmpl_cache *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->v[i].key);
		tmpl_free(c->v[i].t);
	}
	free(c->v);
	free(c->dir);
	free(c);
}

const struct tmpl *
tmpl_cache_get(struct tmpl_cache *c, const char *lang, const char *name,
    char *err, size_t errlen)
{
	struct tmpl *t;
	char *key = xasprintf("%s/%s", lang, name);
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->v[i].key, key) == 0) {
			free(key);
			return c->v[i].t;
		}
	if ((t = tmpl_load(c->dir, lang, name, err, errlen)) == NULL) {
		free(key);
		return NULL;
	}
	cache_put(c, key, t);
	return t;
}

/* Keep t under key (both owned by the cache now). */
static void
cache_put(struct tmpl_cache *c, char *key, struct tmpl *t)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 32;
		c->v = xreallocarray(c->v, c->cap, sizeof(*c->v));
	}
	c->v[c->n].key = key;
	c->v[c->n].t = t;
	c->n++;
}

/* ---- listing names ---- */

struct names {
	char	**v;
	size_t	n, cap;
};

static void
names_walk(const struct nodes *ns, const char *scope, struct names *out)
{
	size_t i;
	char *s, *inner;

	for (i = 0; i < ns->n; i++) {
		const struct node *n = ns->v[i];

		if (n->kind == N_TEXT)
			continue;
		if (out->n == out->cap) {
			out->cap = out->cap ? out->cap * 2 : 64;
			out->v = xreallocarray(out->v, out->cap,
			    sizeof(*out->v));
		}
		s = n->kind == N_VAR ? xasprintf("%s%s", scope, n->name) :
		    xasprintf("%s#%s %s", scope, section_kw[n->kind - N_IF],
		    n->name);
		out->v[out->n++] = s;
		if (n->kind == N_EACH) {
			inner = xasprintf("%seach %s/", scope, n->name);
			names_walk(&n->body, inner, out);
			names_walk(&n->alt, scope, out);
			free(inner);
		} else if (n->kind != N_VAR) {
			names_walk(&n->body, scope, out);
			names_walk(&n->alt, scope, out);
		}
	}
}

static int
strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
tmpl_names(const struct tmpl *t, struct buf *out)
{
	struct names ns = { 0 };
	size_t i;

	if (t->subject != NULL)
		names_walk(&t->subject->body, "", &ns);
	names_walk(&t->body, "", &ns);
	if (ns.n > 0)
		qsort(ns.v, ns.n, sizeof(*ns.v), strp_cmp);
	for (i = 0; i < ns.n; i++) {
		if (i == 0 || strcmp(ns.v[i], ns.v[i - 1]) != 0) {
			buf_adds(out, ns.v[i]);
			buf_addc(out, '\n');
		}
	}
	for (i = 0; i < ns.n; i++)
		free(ns.v[i]);
	free(ns.v);
}

/* ---- rendering ---- */

struct frame {
	const struct tmpl_value *item;	/* a record or a string */
	int	loop;
	size_t	index, count;
};

struct render {
	const struct tmpl *t;
	int	flags;
	int	subject;		/* line ends become spaces */
	struct frame fr[TMPL_DEPTH + 1];
	int	nfr;
	struct buf *out;
	struct buf *style;		/* the body's style layer, or NULL */
	char	*err;
	size_t	errlen;
	int	failed;
};

/* What a name refers to: a value, or a loop counter written into tmp. */
struct ref {
	const struct tmpl_value *v;
	const char *s;
	char	tmp[24];
};

static int
lookup(struct render *r, const char *name, struct ref *ref)
{
	const struct tmpl_value *v = NULL;
	const char *seg, *dot;
	size_t len;
	int i;

	memset(ref, 0, sizeof(*ref));
	if (name[0] == '@') {
		for (i = r->nfr - 1; i >= 0 && !r->fr[i].loop; i--)
			;
		if (i < 0)
			return -1;
		if (strcmp(name, "@index") == 0)
			snprintf(ref->tmp, sizeof(ref->tmp), "%zu",
			    r->fr[i].index);
		else if (strcmp(name, "@number") == 0)
			snprintf(ref->tmp, sizeof(ref->tmp), "%zu",
			    r->fr[i].index + 1);
		else if (strcmp(name, "@first") == 0)
			util_strlcpy(ref->tmp, r->fr[i].index == 0 ? "1" : "0",
			    sizeof(ref->tmp));
		else
			util_strlcpy(ref->tmp,
			    r->fr[i].index + 1 == r->fr[i].count ? "1" : "0",
			    sizeof(ref->tmp));
		ref->s = ref->tmp;
		return 0;
	}
	if (strcmp(name, ".") == 0) {
		ref->v = r->fr[r->nfr - 1].item;
		return 0;
	}
	dot = strchr(name, '.');
	len = dot != NULL ? (size_t)(dot - name) : strlen(name);
	for (i = r->nfr - 1; i >= 0 && v == NULL; i--)
		if (r->fr[i].item->kind == V_REC)
			v = field_get(r->fr[i].item->rec, name, len);
	while (v != NULL && dot != NULL) {
		seg = dot + 1;
		dot = strchr(seg, '.');
		len = dot != NULL ? (size_t)(dot - seg) : strlen(seg);
		v = v->kind == V_REC ? field_get(v->rec, seg, len) : NULL;
	}
	if (v == NULL)
		return -1;
	ref->v = v;
	return 0;
}

static void
render_fail(struct render *r, const struct node *n, const char *why)
{
	if (!(r->flags & TMPL_STRICT) || r->failed)
		return;
	r->failed = 1;
	if (n->kind == N_VAR)
		util_err(r->err, r->errlen, "%s:%d: {{%s}} %s", r->t->file,
		    n->line, n->name, why);
	else
		util_err(r->err, r->errlen, "%s:%d: {{#%s %s}} %s", r->t->file,
		    n->line, section_kw[n->kind - N_IF], n->name, why);
}

/* Append s: invalid UTF-8 becomes U+FFFD, at most max characters (0: no
 * limit; a cut ends in "…"), HTML-escaped when asked. */
static void
emit(struct render *r, const char *s, size_t max, int escape)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0, chars = 0, total = 0;

	if (max > 0) {
		const unsigned char *q;

		for (q = u; *q != '\0'; q += n ? n : 1)
			total++, n = utf8_seq(q);
	}
	for (; *u != '\0'; u += n ? n : 1) {
		n = utf8_seq(u);
		if (max > 0 && total > max && chars + 1 == max) {
			buf_adds(r->out, "\xe2\x80\xa6");
			break;
		}
		chars++;
		if (n == 0) {
			buf_adds(r->out, "\xef\xbf\xbd");
			continue;
		}
		if (r->subject && (*u == '\n' || *u == '\r' || *u == '\t')) {
			buf_addc(r->out, ' ');
			continue;
		}
		if (escape) {
			switch (*u) {
			case '&': buf_adds(r->out, "&amp;"); continue;
			case '<': buf_adds(r->out, "&lt;"); continue;
			case '>': buf_adds(r->out, "&gt;"); continue;
			case '"': buf_adds(r->out, "&quot;"); continue;
			case '\'': buf_adds(r->out, "&#39;"); continue;
			}
		}
		buf_add(r->out, u, n);
	}
}

/* Bring the style layer up to the text: the value's own style when what
 * was appended since start is its text unchanged, else plain bytes. */
static void
style_pad(struct render *r, const struct tmpl_value *v, size_t start)
{
	size_t have;

	if (r->style == NULL || r->subject)
		return;
	have = r->style->len;
	if (v != NULL && v->style != NULL && have == start &&
	    r->out->len - start == strlen(v->str) &&
	    memcmp(r->out->s + start, v->str, strlen(v->str)) == 0) {
		buf_add(r->style, v->style, strlen(v->str));
		return;
	}
	while (have++ < r->out->len)
		buf_addc(r->style, 0);
}

static int
truthy(const struct ref *ref)
{
	if (ref->s != NULL)
		return ref->s[0] != '\0' && strcmp(ref->s, "0") != 0;
	switch (ref->v->kind) {
	case V_STR:
		return ref->v->str[0] != '\0' && strcmp(ref->v->str, "0") != 0;
	case V_LIST:
		return ref->v->list->n > 0;
	default:
		return 1;
	}
}

static void render_nodes(struct render *, const struct nodes *);

static void
render_each(struct render *r, const struct node *n, const struct ref *ref)
{
	const struct tmpl_list *l;
	size_t i;

	if (ref->v == NULL || ref->v->kind != V_LIST) {
		render_fail(r, n, "is not a list");
		return;
	}
	l = ref->v->list;
	if (l->n == 0) {
		render_nodes(r, &n->alt);
		return;
	}
	for (i = 0; i < l->n; i++) {
		r->fr[r->nfr].item = &l->v[i];
		r->fr[r->nfr].loop = 1;
		r->fr[r->nfr].index = i;
		r->fr[r->nfr].count = l->n;
		r->nfr++;
		render_nodes(r, &n->body);
		r->nfr--;
	}
}

static void
render_nodes(struct render *r, const struct nodes *ns)
{
	struct ref ref;
	size_t i, start;
	int t;

	for (i = 0; i < ns->n; i++) {
		const struct node *n = ns->v[i];

		if (n->kind == N_TEXT) {
			buf_adds(r->out, n->text);
			style_pad(r, NULL, 0);
			continue;
		}
		if (lookup(r, n->name, &ref) != 0) {
			render_fail(r, n, "has no value");
			if (n->kind == N_IF)
				render_nodes(r, &n->alt);
			else if (n->kind == N_UNLESS)
				render_nodes(r, &n->body);
			continue;
		}
		switch (n->kind) {
		case N_VAR:
			if (ref.s == NULL && ref.v->kind != V_STR) {
				render_fail(r, n, ref.v->kind == V_LIST ?
				    "is a list, not text" :
				    "is a record, not text");
				break;
			}
			start = r->out->len;
			emit(r, ref.s != NULL ? ref.s : ref.v->str, n->max,
			    (r->flags & TMPL_HTML) && !n->raw);
			style_pad(r, ref.s == NULL ? ref.v : NULL, start);
			break;
		case N_IF:
		case N_UNLESS:
			t = truthy(&ref);
			if (n->kind == N_UNLESS)
				t = !t;
			render_nodes(r, t ? &n->body : &n->alt);
			break;
		case N_EACH:
			render_each(r, n, &ref);
			break;
		}
	}
}

int
tmpl_render(const struct tmpl *t, const struct tmpl_data *d, int flags,
    char **subject, char **body, char *err, size_t errlen)
{
	return tmpl_render_styled(t, d, flags, subject, body, NULL, err,
	    errlen);
}

int
tmpl_render_styled(const struct tmpl *t, const struct tmpl_data *d,
    int flags, char **subject, char **body, char **style, char *err,
    size_t errlen)
{
	struct tmpl_value top = { 0 };
	struct render r = { 0 };
	struct buf sb = { 0 }, bb = { 0 }, yb = { 0 };
	const char *s, *e;
	char *subj;

	*subject = *body = NULL;
	if (style != NULL) {
		*style = NULL;
		r.style = &yb;
	}
	top.kind = V_REC;
	top.rec = (struct tmpl_data *)d;
	r.t = t;
	r.flags = flags;
	r.fr[0].item = &top;
	r.nfr = 1;
	r.err = err;
	r.errlen = errlen;
	if (t->subject != NULL) {
		r.out = &sb;
		r.subject = 1;
		render_nodes(&r, &t->subject->body);
		r.subject = 0;
	}
	r.out = &bb;
	render_nodes(&r, &t->body);
	if (r.failed) {
		buf_free(&sb);
		buf_free(&bb);
		buf_free(&yb);
		return -1;
	}
	/* Blank lines between the Subject line and the text are layout. */
	s = buf_str(&bb);
	for (;;) {
		for (e = s; is_blank(*e) || *e == '\r'; e++)
			;
		if (*e != '\n')
			break;
		s = e + 1;
	}
	*body = xstrdup(s);
	if (style != NULL) {
		size_t off = (size_t)(s - buf_str(&bb)), len = bb.len - off;

		*style = xmalloc(len + 1);
		memcpy(*style, buf_str(&yb) + off, len);
		(*style)[len] = 0;
	}
	buf_free(&bb);
	buf_free(&yb);
	subj = buf_steal(&sb);
	*subject = xstrdup(util_trim(subj));
	free(subj);
	return 0;
}
