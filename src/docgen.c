/*
 * docgen: write the parts of the documentation that come from the
 * program's own tables.
 *
 *   docgen sample            contrib/ludus.yaml.sample.in, from the
 *                            settings table (conf.c)
 *   docgen settings FILE     FILE (man/ludus.yaml.5.in) with the text
 *                            between its SETTINGS marker comments replaced
 *   docgen commands FILE     FILE (man/ludus-commands.7) with the text
 *                            between its COMMANDS marker comments replaced,
 *                            from the command table (refcmd.c)
 *
 * Run by `make config-doc` and `make commands-doc`; check_config and
 * check_command fail when the committed files differ from what this
 * prints.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "conf.h"

/* A generated part of a page: its marker and what writes it. */
static const struct part {
	const char	*name;
	const char	*mark;	/* the marker comments say BEGIN/END this */
	void		(*write)(struct buf *);
} parts[] = {
	{ "settings", "SETTINGS", config_doc_man },
	{ "commands", "COMMANDS", command_table_man },
};

/* FILE with the text between its marker comments replaced by the part. */
static int
replace(const struct part *p, const char *path)
{
	struct buf b = { 0 }, begin_mark = { 0 }, end_mark = { 0 };
	size_t len;
	char *text, *begin, *end;
	int rc = 1;

	if ((text = util_read_file(path, 1 << 24, &len)) == NULL) {
		perror(path);
		return 1;
	}
	buf_printf(&begin_mark, ".\\\" BEGIN %s\n", p->mark);
	buf_printf(&end_mark, ".\\\" END %s\n", p->mark);
	begin = strstr(text, buf_str(&begin_mark));
	end = begin ? strstr(begin, buf_str(&end_mark)) : NULL;
	if (end == NULL)
		fprintf(stderr, "%s: no .\\\" BEGIN %s ... .\\\" END %s "
		    "lines\n", path, p->mark, p->mark);
	else {
		begin += strlen(buf_str(&begin_mark));
		p->write(&b);
		printf("%.*s%s%s", (int)(begin - text), text, buf_str(&b), end);
		rc = 0;
	}
	free(text);
	buf_free(&b);
	buf_free(&begin_mark);
	buf_free(&end_mark);
	return rc;
}

int
main(int argc, char **argv)
{
	struct buf b = { 0 };
	size_t i;

	if (argc == 2 && strcmp(argv[1], "sample") == 0) {
		config_doc_sample(&b);
		fputs(buf_str(&b), stdout);
		buf_free(&b);
		return ferror(stdout) ? 1 : 0;
	}
	for (i = 0; argc == 3 && i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strcmp(argv[1], parts[i].name) == 0) {
			if (replace(&parts[i], argv[2]) != 0)
				return 1;
			return ferror(stdout) ? 1 : 0;
		}
	fprintf(stderr, "usage: docgen sample | docgen settings FILE | "
	    "docgen commands FILE\n");
	return 2;
}
