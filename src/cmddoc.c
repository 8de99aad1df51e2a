/*
 * cmddoc: write the part of ludus-commands(7) that comes from the command
 * table.  `cmddoc man FILE` prints FILE (man/ludus-commands.7) with the
 * text between its two marker comments replaced.  Run by `make
 * commands-doc`; check_command fails when the committed page differs from
 * what this prints.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"

#define MARK_BEGIN	".\\\" BEGIN COMMANDS"
#define MARK_END	".\\\" END COMMANDS"

/* The whole file, or exit with why not. */
static char *
slurp(const char *path)
{
	size_t len;
	char *text;

	if ((text = util_read_file(path, 1 << 24, &len)) == NULL) {
		perror(path);
		exit(1);
	}
	return text;
}

int
main(int argc, char **argv)
{
	struct buf b = { 0 };
	char *text, *begin, *end;

	if (argc != 3 || strcmp(argv[1], "man") != 0) {
		fprintf(stderr, "usage: cmddoc man FILE\n");
		return 1;
	}
	text = slurp(argv[2]);
	begin = strstr(text, MARK_BEGIN "\n");
	end = begin ? strstr(begin, MARK_END "\n") : NULL;
	if (end == NULL) {
		fprintf(stderr, "%s: no %s ... %s lines\n", argv[2],
		    MARK_BEGIN, MARK_END);
		return 1;
	}
	begin += strlen(MARK_BEGIN "\n");
	command_table_man(&b);
	printf("%.*s%s%s", (int)(begin - text), text, buf_str(&b), end);
	free(text);
	buf_free(&b);
	return 0;
}
