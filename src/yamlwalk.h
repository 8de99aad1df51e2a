/*
 * yamlwalk: one YAML document as the three readers of YAML files walk it
 * (conf.c: ludus.yaml; gamedef.c: games/NAME.yaml; command.c:
 * games/commands.yaml).  The document is parsed with libyaml's document
 * API (aliases are never expanded), refused when it nests deeper than the
 * reader's cap, and every error names the file and the line:
 * "FILE:LINE: what".  Functions and types are prefixed yw_.
 */
#ifndef LUDUS_YAMLWALK_H
#define LUDUS_YAMLWALK_H

#include <stdio.h>

#include <yaml.h>

#include "util.h"

#define YW_MAX_DEPTH	8	/* the readers' cap on nesting */

/* How a syntax error reads: "FILE:LINE: problem" (the default), or with
 * YW_COLUMN "FILE:LINE:COLUMN: problem context", and for a byte the
 * reader refuses "FILE:LINE: problem (byte N of the file)" (ludus.yaml). */
#define YW_COLUMN	0x01

struct yw {
	yaml_document_t	*doc;		/* the document once loaded, the
					 * walker's until yw_free() */
	const char	*path;		/* foreign: the name errors give */
	char		*err;		/* foreign: where errors go */
	size_t		 errlen;
	/* The walker's own. */
	yaml_parser_t	 parser;
	yaml_document_t	 store;
	const char	*text;		/* foreign, for YW_COLUMN */
	size_t		 len;
	int		 flags;
	int		 state;		/* 1: parser set up, 2: store loaded,
					 * 3: store built from a yw_builtin */
};

/*
 * A YAML file shipped with ludus (the game definitions, commands.yaml),
 * its first document as libyaml loaded it at build time (src/yamlembed
 * writes yamldocs.inc): nodes by offsets into pool (tags and scalars, each
 * NUL-terminated), items and pairs, marks as index, line, column.
 */
struct yw_bnode {
	unsigned int	 type, style;	/* yaml_node_type_t, its style */
	unsigned int	 tag, value;	/* offsets in the pool */
	unsigned int	 count;		/* bytes, items or pairs */
	unsigned int	 first;		/* the first item or pair */
	unsigned int	 start[3], end[3];
};

struct yw_builtin {
	const char	*text;		/* the file's bytes */
	size_t		 len;
	const char	*pool;
	const struct yw_bnode *nodes;
	int		 nnodes;
	const yaml_node_item_t *items;
	const yaml_node_pair_t *pairs;
	int		 start_implicit, end_implicit;
	unsigned int	 start[3], end[3];
};

/* The built-in document of a text byte for byte equal to a shipped file,
 * else NULL (src/yamlbuiltin.c). */
const struct yw_builtin *yw_builtin_find(const char *text, size_t len);

/*
 * Parse the first document of text (len bytes) or of the stream f (text
 * NULL) into w->doc.  With maxdepth > 0 a document nesting deeper than
 * that is refused ("FILE: nested too deeply").  0, or -1 with err filled;
 * either way yw_free() afterwards.
 */
int	 yw_load(struct yw *, const char *path, const char *text, size_t len,
	    FILE *f, int flags, int maxdepth, char *err, size_t errlen);
/*
 * The same for a text yw_builtin_find() found: the document is the one
 * libyaml gave at build time for the same bytes, built without parsing
 * (its strings are the built-in's, read only).  Not for yw_only_one().
 */
int	 yw_load_built(struct yw *, const char *path,
	    const struct yw_builtin *, int maxdepth, char *err, size_t errlen);
/* Either: the built-in document of text when there is one, else text
 * parsed (src/yamlbuiltin.c). */
int	 yw_load_text(struct yw *, const char *path, const char *text,
	    size_t len, int maxdepth, char *err, size_t errlen);
/* For a reader whose file holds one document: 0 when nothing but
 * comments follows the first, or -1 with err filled ("FILE:LINE: only one
 * YAML document is allowed", or the syntax error after it). */
int	 yw_only_one(struct yw *);
void	 yw_free(struct yw *);

/* The line a node starts on, 1 for the first. */
int	 yw_line(const yaml_node_t *);
/* The text of a scalar node; NULL for anything else (NULL included) and
 * for text with a NUL in it ("\0" in double quotes), which C strings would
 * cut short. */
const char *yw_scalar(const yaml_node_t *);
/* Fill err with "FILE:LINE: " and the message, LINE the node's (0 for
 * NULL); -1. */
int	 yw_fail(struct yw *, const yaml_node_t *, const char *, ...)
	    PRINTFLIKE(3, 4);
/* The same at a line; line 0 gives "FILE: " and the message. */
int	 yw_fail_line(struct yw *, int line, const char *, ...)
	    PRINTFLIKE(3, 4);

#endif
