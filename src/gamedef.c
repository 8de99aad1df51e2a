/* gamedef: read games/NAME.yaml with libyaml's document API. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gamedef.h"
#include "i18n.h"
#include "yamlwalk.h"

static int
get_string(struct yw *w, yaml_node_t *n, const char *key, char **out)
{
	const char *s = yw_scalar(n);

	if (s == NULL)
		return yw_fail(w, n, "%s must be a text value", key);
	free(*out);
	*out = xstrdup(s);
	return 0;
}

static int
get_int(struct yw *w, yaml_node_t *n, const char *key, long long min,
    long long max, long long *out)
{
	const char *s = yw_scalar(n);
	char range[64];

	snprintf(range, sizeof(range), "%lld-%lld", min, max);
	if (s == NULL || util_parse_int(s, min, max, out) == -1)
		return yw_fail(w, n, "%s must be a whole number in %s", key,
		    range);
	return 0;
}

static int
get_list(struct yw *w, yaml_node_t *n, const char *key, char ***out,
    int *nout)
{
	yaml_node_item_t *it;
	yaml_node_t *item;

	if (yw_scalar(n) != NULL) {
		*out = xreallocarray(*out, (size_t)*nout + 1, sizeof(char *));
		(*out)[(*nout)++] = xstrdup(yw_scalar(n));
		return 0;
	}
	if (n->type != YAML_SEQUENCE_NODE)
		return yw_fail(w, n, "%s must be a list", key);
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	    it++) {
		item = yaml_document_get_node(w->doc, *it);
		if (item == NULL || yw_scalar(item) == NULL)
			return yw_fail(w, n, "%s must be a list of text values",
			    key);
		*out = xreallocarray(*out, (size_t)*nout + 1, sizeof(char *));
		(*out)[(*nout)++] = xstrdup(yw_scalar(item));
	}
	return 0;
}

/* texts: KEY: LANGUAGE: TEXT. */
static int
get_texts(struct gamedef *d, struct yw *w, yaml_node_t *n)
{
	yaml_node_pair_t *p, *q;
	yaml_node_t *k, *v, *lk, *lv;

	if (n->type != YAML_MAPPING_NODE)
		return yw_fail(w, n, "texts must be a mapping of KEY: "
		    "LANGUAGE: TEXT");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
		k = yaml_document_get_node(w->doc, p->key);
		v = yaml_document_get_node(w->doc, p->value);
		if (k == NULL || v == NULL || yw_scalar(k) == NULL ||
		    v->type != YAML_MAPPING_NODE)
			return yw_fail(w, n, "texts must be a mapping of KEY: "
			    "LANGUAGE: TEXT");
		for (q = v->data.mapping.pairs.start;
		    q < v->data.mapping.pairs.top; q++) {
			lk = yaml_document_get_node(w->doc, q->key);
			lv = yaml_document_get_node(w->doc, q->value);
			if (lk == NULL || lv == NULL || yw_scalar(lk) == NULL ||
			    yw_scalar(lv) == NULL)
				return yw_fail(w, v, "texts: %s: each language "
				    "needs one text", yw_scalar(k));
			d->texts = xreallocarray(d->texts,
			    (size_t)d->ntexts + 3, sizeof(char *));
			d->texts[d->ntexts++] = xstrdup(yw_scalar(k));
			d->texts[d->ntexts++] = xstrdup(yw_scalar(lk));
			d->texts[d->ntexts++] = xstrdup(yw_scalar(lv));
		}
	}
	return 0;
}

const char *
gamedef_text(const struct gamedef *d, const char *key, const char *lang)
{
	const char *en = NULL;
	int i;

	for (i = 0; i + 2 < d->ntexts; i += 3) {
		if (strcmp(d->texts[i], key) != 0)
			continue;
		if (lang != NULL && strcmp(d->texts[i + 1], lang) == 0)
			return d->texts[i + 2];
		if (strcmp(d->texts[i + 1], "en") == 0)
			en = d->texts[i + 2];
	}
	/* A language the definition does not name reads the catalogue's
	 * translation of the English text (in the language in effect). */
	return en != NULL ? _(en) : NULL;
}

static int
bool_text(const char *s, long long *v)
{
	if (util_strcaseeq(s, "true") || util_strcaseeq(s, "yes") ||
	    util_strcaseeq(s, "on") || strcmp(s, "1") == 0)
		*v = 1;
	else if (util_strcaseeq(s, "false") || util_strcaseeq(s, "no") ||
	    util_strcaseeq(s, "off") || strcmp(s, "0") == 0)
		*v = 0;
	else
		return -1;
	return 0;
}

/* Check a value against an option; fills ival/sval.  -1 with msg set. */
static int
opt_value(const struct gamedef_opt *o, const char *val, long long *ival,
    char *sval, size_t svallen, char *msg, size_t msglen)
{
	int i;

	*ival = 0;
	sval[0] = '\0';
	switch (o->type) {
	case GOPT_INT:
		if (util_parse_int(val, o->min, o->max, ival) == -1) {
			util_err(msg, msglen, _("%s must be a whole number "
			    "%lld-%lld, not `%s`"), o->name, o->min, o->max,
			    val);
			return -1;
		}
		snprintf(sval, svallen, "%lld", *ival);
		return 0;
	case GOPT_BOOL:
		if (bool_text(val, ival) == -1) {
			util_err(msg, msglen, _("%s must be true or false, not "
			    "`%s`"), o->name, val);
			return -1;
		}
		util_strlcpy(sval, *ival ? "true" : "false", svallen);
		return 0;
	case GOPT_ENUM:
		for (i = 0; i < o->nvalues; i++)
			if (util_strcaseeq(o->values[i], val)) {
				util_strlcpy(sval, o->values[i], svallen);
				*ival = i;
				return 0;
			}
		{
			struct buf b = { 0 };

			for (i = 0; i < o->nvalues; i++)
				buf_printf(&b, "%s%s", i ? ", " : "",
				    o->values[i]);
			util_err(msg, msglen, _("%s must be one of %s, not `%s`"),
			    o->name, buf_str(&b), val);
			buf_free(&b);
		}
		return -1;
	case GOPT_STRING:
		if (strpbrk(val, " \t\r\n") != NULL) {
			util_err(msg, msglen, _("%s may not contain spaces"),
			    o->name);
			return -1;
		}
		if (strlen(val) >= svallen) {
			util_err(msg, msglen, _("%s is too long"), o->name);
			return -1;
		}
		util_strlcpy(sval, val, svallen);
		return 0;
	}
	return -1;
}

static int
walk_option(struct yw *w, yaml_node_t *n, struct gamedef_opt *o)
{
	yaml_node_pair_t *p;
	yaml_node_t *k, *v, *defnode = NULL;
	const char *key;
	char *type = NULL, msg[GAME_ERRLEN], sval[GAME_OPT_STRLEN];
	long long ival;
	int have_min = 0, have_max = 0;

	o->line = yw_line(n);
	if (n->type != YAML_MAPPING_NODE)
		return yw_fail(w, n, "an option must be a mapping");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
		k = yaml_document_get_node(w->doc, p->key);
		v = yaml_document_get_node(w->doc, p->value);
		if (k == NULL || v == NULL || (key = yw_scalar(k)) == NULL)
			return yw_fail(w, n, "malformed option");
		if (strcmp(key, "name") == 0) {
			if (get_string(w, v, key, &o->name) == -1)
				goto bad;
		} else if (strcmp(key, "type") == 0) {
			if (get_string(w, v, key, &type) == -1)
				goto bad;
		} else if (strcmp(key, "min") == 0) {
			if (get_int(w, v, key, -1000000, 1000000, &o->min) == -1)
				goto bad;
			have_min = 1;
		} else if (strcmp(key, "max") == 0) {
			if (get_int(w, v, key, -1000000, 1000000, &o->max) == -1)
				goto bad;
			have_max = 1;
		} else if (strcmp(key, "values") == 0) {
			if (get_list(w, v, key, &o->values, &o->nvalues) == -1)
				goto bad;
		} else if (strcmp(key, "default") == 0) {
			if (get_string(w, v, key, &o->def) == -1)
				goto bad;
			defnode = v;
		} else if (strcmp(key, "help") == 0) {
			if (get_string(w, v, key, &o->help) == -1)
				goto bad;
		} else {
			yw_fail(w, k, "unknown option key `%s` (name, type, "
			    "min, max, values, default, help)", key);
			goto bad;
		}
	}
	if (o->name == NULL || type == NULL || o->def == NULL) {
		yw_fail(w, n, "an option needs name, type and default");
		goto bad;
	}
	if (strcmp(type, "int") == 0) {
		o->type = GOPT_INT;
		if (!have_min || !have_max || o->min > o->max) {
			yw_fail(w, n, "int option %s needs min <= max",
			    o->name);
			goto bad;
		}
	} else if (strcmp(type, "bool") == 0)
		o->type = GOPT_BOOL;
	else if (strcmp(type, "enum") == 0) {
		o->type = GOPT_ENUM;
		if (o->nvalues == 0) {
			yw_fail(w, n, "enum option %s needs values", o->name);
			goto bad;
		}
	} else if (strcmp(type, "string") == 0)
		o->type = GOPT_STRING;
	else {
		yw_fail(w, n, "unknown type `%s` (int, bool, enum, string)",
		    type);
		goto bad;
	}
	if (opt_value(o, o->def, &ival, sval, sizeof(sval), msg,
	    sizeof(msg)) == -1) {
		yw_fail(w, defnode, "default: %s", msg);
		goto bad;
	}
	free(type);
	return 0;
bad:
	free(type);
	return -1;
}

static int
walk_options(struct yw *w, yaml_node_t *n, struct gamedef *d)
{
	yaml_node_item_t *it;
	yaml_node_t *item;
	int i;

	if (n->type != YAML_SEQUENCE_NODE)
		return yw_fail(w, n, "options must be a list");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	    it++) {
		if (d->nopts >= GAME_MAX_OPTS)
			return yw_fail(w, n, _("too many options"));
		item = yaml_document_get_node(w->doc, *it);
		d->opts = xreallocarray(d->opts, (size_t)d->nopts + 1,
		    sizeof(*d->opts));
		memset(&d->opts[d->nopts], 0, sizeof(*d->opts));
		d->nopts++;
		if (item == NULL ||
		    walk_option(w, item, &d->opts[d->nopts - 1]) == -1)
			return -1;
		for (i = 0; i < d->nopts - 1; i++)
			if (strcmp(d->opts[i].name,
			    d->opts[d->nopts - 1].name) == 0)
				return yw_fail(w, item, "option %s defined "
				    "twice", d->opts[i].name);
		if (strlen(d->opts[d->nopts - 1].name) >=
		    sizeof(((struct game_optval *)0)->name))
			return yw_fail(w, item, "option name too long");
	}
	return 0;
}

static int
walk_root(struct yw *w, yaml_node_t *root, struct gamedef *d)
{
	yaml_node_pair_t *p;
	yaml_node_t *k, *v;
	const char *key;
	long long seats;

	if (root == NULL)
		return yw_fail(w, NULL, "empty game definition");
	if (root->type != YAML_MAPPING_NODE)
		return yw_fail(w, root, "a game definition must be a mapping");
	for (p = root->data.mapping.pairs.start;
	    p < root->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(w->doc, p->key);
		v = yaml_document_get_node(w->doc, p->value);
		if (k == NULL || v == NULL || (key = yw_scalar(k)) == NULL)
			return yw_fail(w, root, "malformed mapping");
		if (strcmp(key, "name") == 0) {
			if (get_string(w, v, key, &d->name) == -1)
				return -1;
			if ((d->ops = game_find(d->name)) == NULL)
				return yw_fail(w, v, "no engine called `%s`",
				    d->name);
		} else if (strcmp(key, "title") == 0) {
			if (get_string(w, v, key, &d->title) == -1)
				return -1;
		} else if (strcmp(key, "summary") == 0) {
			if (get_string(w, v, key, &d->summary) == -1)
				return -1;
		} else if (strcmp(key, "notation") == 0) {
			if (get_string(w, v, key, &d->notation) == -1)
				return -1;
		} else if (strcmp(key, "data") == 0) {
			if (get_string(w, v, key, &d->data) == -1)
				return -1;
		} else if (strcmp(key, "seats") == 0) {
			if (get_int(w, v, key, 1, GAME_MAX_SEATS, &seats) == -1)
				return -1;
			d->seats = (int)seats;
		} else if (strcmp(key, "first") == 0) {
			const char *f = yw_scalar(v);

			if (f == NULL || (strcmp(f, "given") != 0 &&
			    strcmp(f, "random") != 0))
				return yw_fail(w, v, "first must be given or "
				    "random");
			d->first_random = strcmp(f, "random") == 0;
		} else if (strcmp(key, "timeout") == 0) {
			const char *f = yw_scalar(v);

			if (f == NULL || (strcmp(f, "forfeit") != 0 &&
			    strcmp(f, "notify") != 0))
				return yw_fail(w, v, "timeout must be forfeit "
				    "or notify");
			d->timeout = strcmp(f, "forfeit") == 0 ?
			    GAMEDEF_TIMEOUT_FORFEIT : GAMEDEF_TIMEOUT_NOTIFY;
		} else if (strcmp(key, "aliases") == 0) {
			if (get_list(w, v, key, &d->aliases, &d->naliases) == -1)
				return -1;
		} else if (strcmp(key, "options") == 0) {
			if (walk_options(w, v, d) == -1)
				return -1;
		} else if (strcmp(key, "texts") == 0) {
			if (get_texts(d, w, v) == -1)
				return -1;
		} else
			return yw_fail(w, k, "unknown key `%s` (name, title, "
			    "seats, first, aliases, summary, notation, options, "
			    "texts, data)",
			    key);
	}
	if (d->name == NULL || d->title == NULL || d->seats == 0)
		return yw_fail(w, root, "a game definition needs name, title "
		    "and seats");
	return 0;
}

#define GAMEDEF_TEXT_MAX	(1 << 20)

int
gamedef_load_file(const char *path, struct gamedef *d, char *err,
    size_t errlen)
{
	struct yw w;
	FILE *f;
	char *text;
	size_t len;
	int rc, truncated;

	memset(d, 0, sizeof(*d));
	d->file = xstrdup(path);
	if ((f = fopen(path, "rb")) == NULL) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* Read whole, a shipped definition is not parsed again (its
	 * document is built in: yamlbuiltin.c); past 1 MiB, streamed. */
	text = util_read_stream(f, GAMEDEF_TEXT_MAX, &len, &truncated);
	if (!truncated && !ferror(f))
		rc = yw_load_text(&w, path, text, len, YW_MAX_DEPTH, err,
		    errlen);
	else {
		rewind(f);
		rc = yw_load(&w, path, NULL, 0, f, 0, YW_MAX_DEPTH, err,
		    errlen);
	}
	free(text);
	if (rc == 0)
		rc = walk_root(&w, yaml_document_get_root_node(w.doc), d);
	yw_free(&w);
	fclose(f);
	return rc;
}

void
gamedef_free(struct gamedef *d)
{
	int i, j;

	free(d->file);
	free(d->name);
	free(d->title);
	free(d->summary);
	free(d->notation);
	free(d->data);
	for (i = 0; i < d->naliases; i++)
		free(d->aliases[i]);
	free(d->aliases);
	for (i = 0; i < d->nopts; i++) {
		free(d->opts[i].name);
		for (j = 0; j < d->opts[i].nvalues; j++)
			free(d->opts[i].values[j]);
		free(d->opts[i].values);
		free(d->opts[i].def);
		free(d->opts[i].help);
	}
	free(d->opts);
	for (i = 0; i < d->ntexts; i++)
		free(d->texts[i]);
	free(d->texts);
	memset(d, 0, sizeof(*d));
}

void
gamedef_free_all(struct gamedef *defs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		gamedef_free(&defs[i]);
	free(defs);
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
gamedef_load_dir(const char *dir, struct gamedef **out, int *nout, char *err,
    size_t errlen)
{
	struct gamedef *defs = NULL;
	struct dirent *de;
	char **names = NULL, *path;
	size_t len;
	int n = 0, ndefs = 0, i, rc = 0;
	DIR *dp;

	if ((dp = opendir(dir)) == NULL) {
		util_err(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(dp)) != NULL) {
		len = strlen(de->d_name);
		if (len < 6 || de->d_name[0] == '.' ||
		    strcmp(de->d_name + len - 5, ".yaml") != 0)
			continue;
		/* The command keyword aliases (src/command.c), not a game. */
		if (strcmp(de->d_name, "commands.yaml") == 0)
			continue;
		names = xreallocarray(names, (size_t)n + 1, sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(dp);
	qsort(names, (size_t)n, sizeof(*names), name_cmp);
	for (i = 0; i < n && rc == 0; i++) {
		path = xasprintf("%s/%s", dir, names[i]);
		defs = xreallocarray(defs, (size_t)ndefs + 1, sizeof(*defs));
		if (gamedef_load_file(path, &defs[ndefs], err, errlen) == -1)
			rc = -1;
		ndefs++;
		free(path);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == -1) {
		gamedef_free_all(defs, ndefs);
		return -1;
	}
	*out = defs;
	*nout = ndefs;
	return 0;
}

const struct gamedef *
gamedef_find(const struct gamedef *defs, int n, const char *name)
{
	int i, j;

	for (i = 0; i < n; i++) {
		if (util_strcaseeq(defs[i].name, name))
			return &defs[i];
		for (j = 0; j < defs[i].naliases; j++)
			if (util_strcaseeq(defs[i].aliases[j], name))
				return &defs[i];
	}
	/* Aliases may be non-ASCII (манкала): compare those byte-exactly. */
	for (i = 0; i < n; i++)
		for (j = 0; j < defs[i].naliases; j++)
			if (strcmp(defs[i].aliases[j], name) == 0)
				return &defs[i];
	return NULL;
}

static const struct gamedef_opt *
def_opt(const struct gamedef *d, const char *name, size_t len)
{
	int i;

	for (i = 0; i < d->nopts; i++)
		if (strlen(d->opts[i].name) == len &&
		    util_strncaseeq(d->opts[i].name, name, len))
			return &d->opts[i];
	return NULL;
}

int
gamedef_resolve(const struct gamedef *d, char *const *words, int nwords,
    struct game_opts *o, char *err, size_t errlen)
{
	char sval[GAME_OPT_STRLEN], msg[GAME_ERRLEN];
	const struct gamedef_opt *opt;
	const char *eq;
	long long ival;
	int i;

	memset(o, 0, sizeof(*o));
	o->data = d->data;
	for (i = 0; i < d->nopts; i++) {
		if (opt_value(&d->opts[i], d->opts[i].def, &ival, sval,
		    sizeof(sval), msg, sizeof(msg)) == -1) {
			util_err(err, errlen, "%s", msg);
			return -1;
		}
		game_opt_set(o, d->opts[i].name, ival, sval);
	}
	for (i = 0; i < nwords; i++) {
		if ((eq = strchr(words[i], '=')) == NULL) {
			util_err(err, errlen, _("`%s` is not OPTION=VALUE"),
			    words[i]);
			return -1;
		}
		if ((opt = def_opt(d, words[i], (size_t)(eq - words[i]))) ==
		    NULL) {
			struct buf b = { 0 };
			int j;

			for (j = 0; j < d->nopts; j++)
				buf_printf(&b, "%s%s", j ? ", " : "",
				    d->opts[j].name);
			util_err(err, errlen, _("%s has no option `%.*s` (options: "
			    "%s)"), d->name, (int)(eq - words[i]), words[i],
			    b.len ? buf_str(&b) : _("none"));
			buf_free(&b);
			return -1;
		}
		if (opt_value(opt, eq + 1, &ival, sval, sizeof(sval), msg,
		    sizeof(msg)) == -1) {
			util_err(err, errlen, "%s", msg);
			return -1;
		}
		game_opt_set(o, opt->name, ival, sval);
	}
	return 0;
}

void
gamedef_opt_values(const struct gamedef_opt *o, struct buf *out)
{
	int i;

	switch (o->type) {
	case GOPT_INT:
		buf_printf(out, "%lld-%lld", o->min, o->max);
		break;
	case GOPT_BOOL:
		buf_adds(out, "true|false");
		break;
	case GOPT_ENUM:
		for (i = 0; i < o->nvalues; i++)
			buf_printf(out, "%s%s", i ? "|" : "", o->values[i]);
		break;
	case GOPT_STRING:
		buf_adds(out, "TEXT");
		break;
	}
}

char *
gamedef_opts_text(const struct game_opts *o)
{
	struct buf b = { 0 };
	int i;

	for (i = 0; i < o->n; i++)
		buf_printf(&b, "%s%s=%s", i ? " " : "", o->v[i].name,
		    o->v[i].sval);
	return buf_steal(&b);
}

int
gamedef_opts_parse(const struct gamedef *d, const char *text,
    struct game_opts *o, char *err, size_t errlen)
{
	char *copy = xstrdup(text), *words[GAME_MAX_OPTS], *p, *tok;
	int n = 0, rc;

	for (p = copy; (tok = strtok_r(p, " ", &p)) != NULL;) {
		if (n == GAME_MAX_OPTS) {
			free(copy);
			util_err(err, errlen, _("too many options"));
			return -1;
		}
		words[n++] = tok;
	}
	rc = gamedef_resolve(d, words, n, o, err, errlen);
	free(copy);
	return rc;
}

const char *
gamedef_default_dir(void)
{
	const char *dir = getenv("LUDUS_GAMES_DIR");

	return dir && *dir ? dir : LUDUS_GAMES_DIR;
}
