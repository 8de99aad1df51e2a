/*
 * yamlembed FILE...: the YAML files shipped in games/ as C data, for
 * src/yamlbuiltin.c (run at build time; the output is yamldocs.inc).
 *
 * Each file's bytes are kept beside its first document as libyaml's
 * document API loads it (yaml_parser_load, as src/yamlwalk.c does), nodes
 * with their tags, scalars, items, pairs and marks, in tables without a
 * pointer (offsets only), so the data costs no relocation at start.  A
 * file libyaml refuses, or one with %YAML or %TAG directives, is left out
 * (it is read the ordinary way).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

static void
cstr(const unsigned char *s, size_t n)
{
	size_t i, col = 0;

	putchar('"');
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		/* Octal for all but plain ASCII: no trigraph (?), no hex
		 * escape running into the next character. */
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
		    c != '?') {
			putchar(c);
			col++;
		} else {
			printf("\\%03o", c);
			col += 4;
		}
		if ((c == '\n' || col >= 72) && i + 1 < n) {
			printf("\"\n    \"");
			col = 0;
		}
	}
	putchar('"');
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (f == NULL) {
		perror(path);
		exit(1);
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 8192;
			if ((buf = realloc(buf, cap)) == NULL) {
				perror("realloc");
				exit(1);
			}
		}
		if ((r = fread(buf + n, 1, cap - n, f)) == 0)
			break;
		n += r;
	}
	if (ferror(f)) {
		perror(path);
		exit(1);
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Offset of a string (n bytes) in the pool; the pool is printed as it
 * grows, each string followed by a NUL. */
struct pool {
	unsigned char	*v;
	size_t		 len, cap;
};

static size_t
pool_add(struct pool *p, const unsigned char *s, size_t n)
{
	size_t off = p->len;

	if (p->len + n + 1 > p->cap) {
		p->cap = 2 * (p->len + n + 1);
		if ((p->v = realloc(p->v, p->cap)) == NULL) {
			perror("realloc");
			exit(1);
		}
	}
	if (n > 0)
		memcpy(p->v + p->len, s, n);
	p->v[p->len + n] = '\0';
	p->len += n + 1;
	return off;
}

static void
mark(const yaml_mark_t *m)
{
	printf("{ %zu, %zu, %zu }", m->index, m->line, m->column);
}

/* Nodes without a tag, or too big for the tables' unsigned ints. */
static int
unfit(yaml_document_t *doc, size_t len)
{
	yaml_node_t *n;

	if (len >= 0x7fffffff)
		return 1;
	for (n = doc->nodes.start; n < doc->nodes.top; n++)
		if (n->tag == NULL)
			return 1;
	return 0;
}

static int
embed(int k, const char *path)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *n;
	struct pool pool = { 0 };
	size_t len, *tag, *val, nitems = 0, npairs = 0;
	char *text = slurp(path, &len);
	int i, nn, ok;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	ok = yaml_parser_load(&parser, &doc);
	yaml_parser_delete(&parser);
	if (!ok || yaml_document_get_root_node(&doc) == NULL ||
	    doc.version_directive != NULL ||
	    doc.tag_directives.start != doc.tag_directives.end ||
	    unfit(&doc, len)) {
		if (ok)
			yaml_document_delete(&doc);
		printf("/* %s: not built in */\n\n", path);
		free(text);
		return 0;
	}
	nn = (int)(doc.nodes.top - doc.nodes.start);
	tag = calloc((size_t)nn + 1, sizeof(*tag));
	val = calloc((size_t)nn + 1, sizeof(*val));
	if (tag == NULL || val == NULL) {
		perror("calloc");
		exit(1);
	}
	printf("/* %s */\nstatic const char yd_text_%d[] =\n    ", path, k);
	cstr((const unsigned char *)text, len);
	printf(";\n");
	for (i = 0; i < nn; i++) {
		n = doc.nodes.start + i;
		tag[i] = pool_add(&pool, n->tag, strlen((const char *)n->tag));
		if (n->type == YAML_SCALAR_NODE)
			val[i] = pool_add(&pool, n->data.scalar.value,
			    n->data.scalar.length);
	}
	printf("static const char yd_pool_%d[] =\n    ", k);
	/* The last NUL is the literal's own. */
	cstr(pool.v, pool.len - 1);
	printf(";\nstatic const yaml_node_item_t yd_items_%d[] = {", k);
	for (i = 0; i < nn; i++) {
		yaml_node_item_t *it;

		n = doc.nodes.start + i;
		if (n->type != YAML_SEQUENCE_NODE)
			continue;
		for (it = n->data.sequence.items.start;
		    it < n->data.sequence.items.top; it++)
			printf("%s%d,", nitems++ % 16 ? " " : "\n    ", *it);
	}
	printf("%s\n};\nstatic const yaml_node_pair_t yd_pairs_%d[] = {",
	    nitems ? "" : " 0", k);
	for (i = 0; i < nn; i++) {
		yaml_node_pair_t *p;

		n = doc.nodes.start + i;
		if (n->type != YAML_MAPPING_NODE)
			continue;
		for (p = n->data.mapping.pairs.start;
		    p < n->data.mapping.pairs.top; p++)
			printf("%s{ %d, %d },", npairs++ % 6 ? " " : "\n    ",
			    p->key, p->value);
	}
	printf("%s\n};\nstatic const struct yw_bnode yd_nodes_%d[] = {\n",
	    npairs ? "" : " { 0, 0 }", k);
	nitems = npairs = 0;
	for (i = 0; i < nn; i++) {
		size_t count = 0, first = 0;
		int style = 0;

		n = doc.nodes.start + i;
		switch (n->type) {
		case YAML_SCALAR_NODE:
			count = n->data.scalar.length;
			style = n->data.scalar.style;
			break;
		case YAML_SEQUENCE_NODE:
			first = nitems;
			count = (size_t)(n->data.sequence.items.top -
			    n->data.sequence.items.start);
			nitems += count;
			style = n->data.sequence.style;
			break;
		case YAML_MAPPING_NODE:
			first = npairs;
			count = (size_t)(n->data.mapping.pairs.top -
			    n->data.mapping.pairs.start);
			npairs += count;
			style = n->data.mapping.style;
			break;
		default:
			break;
		}
		printf("    { %d, %d, %zu, %zu, %zu, %zu, ", (int)n->type,
		    style, tag[i], val[i], count, first);
		mark(&n->start_mark);
		printf(", ");
		mark(&n->end_mark);
		printf(" },\n");
	}
	printf("};\n\n");
	printf("#define YD_DOC_%d { yd_text_%d, sizeof(yd_text_%d) - 1, "
	    "yd_pool_%d, yd_nodes_%d, %d, yd_items_%d, yd_pairs_%d, %d, %d, ",
	    k, k, k, k, k, nn, k, k, doc.start_implicit, doc.end_implicit);
	mark(&doc.start_mark);
	printf(", ");
	mark(&doc.end_mark);
	printf(" }\n\n");
	yaml_document_delete(&doc);
	free(pool.v);
	free(tag);
	free(val);
	free(text);
	return 1;
}

int
main(int argc, char **argv)
{
	int i, k = 0, *in;

	if ((in = calloc((size_t)argc, sizeof(*in))) == NULL)
		return 1;
	printf("/* Made by src/yamlembed at build time from the files below: "
	    "do not edit. */\n\n");
	for (i = 1; i < argc; i++)
		if ((in[i] = embed(k, argv[i])) == 1)
			k++;
	printf("static const struct yw_builtin yd_docs[] = {\n");
	for (i = 0; i < k; i++)
		printf("\tYD_DOC_%d,\n", i);
	if (k == 0)
		printf("\t{ NULL, 0, NULL, NULL, 0, NULL, NULL, 0, 0, "
		    "{ 0, 0, 0 }, { 0, 0, 0 } },\n");
	printf("};\nstatic const int yd_ndocs = %d;\n", k);
	free(in);
	return ferror(stdout) ? 1 : 0;
}
