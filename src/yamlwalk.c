/* yamlwalk: one YAML document as the readers of YAML files walk it. */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yamlwalk.h"

#define YW_MSGLEN	512

/*
 * libyaml marks scanner and parser errors with line and column; reader
 * errors (bytes that are not UTF-8, control characters) carry only an
 * offset, so the line is counted up to it.
 */
static void
syntax_error(struct yw *w)
{
	yaml_parser_t *p = &w->parser;
	size_t line = 1, off;

	if (!(w->flags & YW_COLUMN)) {
		util_err(w->err, w->errlen, "%s:%zu: %s", w->path,
		    p->problem_mark.line + 1,
		    p->problem ? p->problem : "YAML syntax error");
		return;
	}
	if (p->error == YAML_READER_ERROR) {
		for (off = 0; off < p->problem_offset && off < w->len; off++)
			line += w->text[off] == '\n';
		util_err(w->err, w->errlen, "%s:%zu: %s (byte %zu of the file)",
		    w->path, line, p->problem ? p->problem : "unreadable",
		    p->problem_offset + 1);
		return;
	}
	util_err(w->err, w->errlen, "%s:%zu:%zu: %s%s%s", w->path,
	    p->problem_mark.line + 1, p->problem_mark.column + 1,
	    p->problem ? p->problem : "YAML syntax error",
	    p->context ? " " : "", p->context ? p->context : "");
}

/* libyaml 0.2.5 has no nesting limit: refuse deep documents ourselves. */
static int
depth_ok(yaml_document_t *doc, yaml_node_t *n, int depth, int max)
{
	yaml_node_item_t *it;
	yaml_node_pair_t *p;

	if (n == NULL)
		return 1;
	if (depth > max)
		return 0;
	if (n->type == YAML_SEQUENCE_NODE) {
		for (it = n->data.sequence.items.start;
		    it < n->data.sequence.items.top; it++)
			if (!depth_ok(doc, yaml_document_get_node(doc, *it),
			    depth + 1, max))
				return 0;
	} else if (n->type == YAML_MAPPING_NODE) {
		for (p = n->data.mapping.pairs.start;
		    p < n->data.mapping.pairs.top; p++)
			if (!depth_ok(doc, yaml_document_get_node(doc, p->value),
			    depth + 1, max))
				return 0;
	}
	return 1;
}

int
yw_load(struct yw *w, const char *path, const char *text, size_t len,
    FILE *f, int flags, int maxdepth, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->path = path;
	w->err = err;
	w->errlen = errlen;
	w->text = text;
	w->len = len;
	w->flags = flags;
	yaml_parser_initialize(&w->parser);
	w->state = 1;
	if (text != NULL)
		yaml_parser_set_input_string(&w->parser,
		    (const unsigned char *)text, len);
	else
		yaml_parser_set_input_file(&w->parser, f);
	if (!yaml_parser_load(&w->parser, &w->store)) {
		syntax_error(w);
		return -1;
	}
	w->state = 2;
	w->doc = &w->store;
	if (maxdepth > 0 && !depth_ok(w->doc,
	    yaml_document_get_root_node(w->doc), 0, maxdepth)) {
		util_err(err, errlen, "%s: nested too deeply", path);
		return -1;
	}
	return 0;
}

static void
set_mark(yaml_mark_t *m, const unsigned int v[3])
{
	m->index = v[0];
	m->line = v[1];
	m->column = v[2];
}

int
yw_load_built(struct yw *w, const char *path, const struct yw_builtin *b,
    int maxdepth, char *err, size_t errlen)
{
	yaml_document_t *d = &w->store;
	yaml_node_t *n;
	const struct yw_bnode *bn;
	int i;

	memset(w, 0, sizeof(*w));
	w->path = path;
	w->err = err;
	w->errlen = errlen;
	w->text = b->text;
	w->len = b->len;
	/* One allocation, the nodes: every string, item and pair is the
	 * built-in's own (the walkers only read). */
	d->nodes.start = xcalloc((size_t)b->nnodes, sizeof(*d->nodes.start));
	d->nodes.end = d->nodes.top = d->nodes.start + b->nnodes;
	d->start_implicit = b->start_implicit;
	d->end_implicit = b->end_implicit;
	set_mark(&d->start_mark, b->start);
	set_mark(&d->end_mark, b->end);
	for (i = 0; i < b->nnodes; i++) {
		n = d->nodes.start + i;
		bn = b->nodes + i;
		n->type = (yaml_node_type_t)bn->type;
		n->tag = (yaml_char_t *)(uintptr_t)(b->pool + bn->tag);
		switch (n->type) {
		case YAML_SCALAR_NODE:
			n->data.scalar.value = (yaml_char_t *)(uintptr_t)
			    (b->pool + bn->value);
			n->data.scalar.length = bn->count;
			n->data.scalar.style = (yaml_scalar_style_t)bn->style;
			break;
		case YAML_SEQUENCE_NODE:
			n->data.sequence.items.start = (yaml_node_item_t *)
			    (uintptr_t)(b->items + bn->first);
			n->data.sequence.items.end = n->data.sequence.items.top =
			    n->data.sequence.items.start + bn->count;
			n->data.sequence.style =
			    (yaml_sequence_style_t)bn->style;
			break;
		case YAML_MAPPING_NODE:
			n->data.mapping.pairs.start = (yaml_node_pair_t *)
			    (uintptr_t)(b->pairs + bn->first);
			n->data.mapping.pairs.end = n->data.mapping.pairs.top =
			    n->data.mapping.pairs.start + bn->count;
			n->data.mapping.style = (yaml_mapping_style_t)bn->style;
			break;
		default:
			break;
		}
		set_mark(&n->start_mark, bn->start);
		set_mark(&n->end_mark, bn->end);
	}
	w->state = 3;
	w->doc = d;
	if (maxdepth > 0 && !depth_ok(w->doc,
	    yaml_document_get_root_node(w->doc), 0, maxdepth)) {
		util_err(err, errlen, "%s: nested too deeply", path);
		return -1;
	}
	return 0;
}

int
yw_only_one(struct yw *w)
{
	yaml_document_t extra;
	int rc = 0;

	if (!yaml_parser_load(&w->parser, &extra)) {
		syntax_error(w);
		return -1;
	}
	if (yaml_document_get_root_node(&extra) != NULL)
		rc = yw_fail_line(w, yw_line(
		    yaml_document_get_root_node(&extra)),
		    "only one YAML document is allowed");
	yaml_document_delete(&extra);
	return rc;
}

void
yw_free(struct yw *w)
{
	if (w->state == 3)	/* built: no parser, and only the nodes
				 * are the walker's */
		free(w->store.nodes.start);
	if (w->state == 2)
		yaml_document_delete(&w->store);
	if (w->state == 1 || w->state == 2)
		yaml_parser_delete(&w->parser);
	w->state = 0;
	w->doc = NULL;
}

int
yw_line(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

const char *
yw_scalar(const yaml_node_t *n)
{
	if (n == NULL || n->type != YAML_SCALAR_NODE ||
	    strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return NULL;
	return (const char *)n->data.scalar.value;
}

static int
vfail(struct yw *w, int line, int zero, const char *fmt, va_list ap)
{
	char msg[YW_MSGLEN];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (line > 0 || zero)
		util_err(w->err, w->errlen, "%s:%d: %s", w->path, line, msg);
	else
		util_err(w->err, w->errlen, "%s: %s", w->path, msg);
	return -1;
}

int
yw_fail(struct yw *w, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(w, n != NULL ? yw_line(n) : 0, 1, fmt, ap);
	va_end(ap);
	return rc;
}

int
yw_fail_line(struct yw *w, int line, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(w, line, 0, fmt, ap);
	va_end(ap);
	return rc;
}
