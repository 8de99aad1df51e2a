/*
 * yamlbuiltin: the YAML files shipped in games/ as libyaml loaded them at
 * build time (yamldocs.inc, from src/yamlembed), found by their bytes.  A
 * file read at run time that is byte for byte one of them gives the same
 * document without parsing it again, wherever it lies; any other text is
 * parsed (yamlwalk.c).  libyaml spends about 180 instructions a byte: the
 * definitions and the command aliases came to 2.3 M of a delivery's 22 M.
 */
#include "config.h"

#include <string.h>

#include "yamlwalk.h"

#include "yamldocs.inc"

const struct yw_builtin *
yw_builtin_find(const char *text, size_t len)
{
	int i;

	for (i = 0; i < yd_ndocs; i++)
		if (yd_docs[i].len == len && yd_docs[i].text != NULL &&
		    memcmp(yd_docs[i].text, text, len) == 0)
			return &yd_docs[i];
	return NULL;
}

/* Here rather than in yamlwalk.c, which the configuration's fuzz harness
 * builds alone, without the built-in documents. */
int
yw_load_text(struct yw *w, const char *path, const char *text, size_t len,
    int maxdepth, char *err, size_t errlen)
{
	const struct yw_builtin *b = yw_builtin_find(text, len);

	if (b != NULL)
		return yw_load_built(w, path, b, maxdepth, err, errlen);
	return yw_load(w, path, text, len, NULL, 0, maxdepth, err, errlen);
}
