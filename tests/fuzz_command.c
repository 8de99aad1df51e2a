/* libFuzzer harness over the command parser and its alias file.  Input
 * starting with 'Y' is read as an alias file (a refusal must name the
 * file); any other input is a command line read with the shipped aliases:
 * it parses or fails with a message, and a bare move read again behind
 * `move ` gives the same move.  Built and run for a short fixed time by
 * tests/fuzz-command.sh, which passes COMMANDS_YAML. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"

#define NAME	"/nonexistent/commands.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct command_aliases *shipped;

static void
check_line(const struct command_aliases *al, const char *line)
{
	struct command c, d;
	char err[512], *again;

	err[0] = '\0';
	if (command_parse(al, line, &c, err, sizeof(err)) == -1) {
		if (err[0] == '\0') {
			fprintf(stderr, "refused without a message: %s\n", line);
			abort();
		}
		command_free(&c);
		return;
	}
	if (c.kind <= CMD_NONE || c.kind >= CMD_NKINDS || c.game < 0 ||
	    ((c.kind == CMD_MOVE || c.kind == CMD_PREVIEW) && c.text == NULL)) {
		fprintf(stderr, "inconsistent parse of: %s\n", line);
		abort();
	}
	if (c.implicit && c.game == 0 && c.guard == 0 &&
	    strlen(c.text) + 5 <= COMMAND_LINE_MAX) {
		again = xasprintf("move %s", c.text);
		if (command_parse(al, again, &d, err, sizeof(err)) == -1 ||
		    d.kind != CMD_MOVE || d.implicit || d.game != 0 ||
		    d.guard != 0 || strcmp(d.text, c.text) != 0) {
			fprintf(stderr, "`%s` and `%s` differ\n", line, again);
			abort();
		}
		command_free(&d);
		free(again);
	}
	command_free(&c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct command_aliases *al;
	char err[1024], *text;

	if (shipped == NULL && command_aliases_load(COMMANDS_YAML, &shipped,
	    err, sizeof(err)) == -1) {
		fprintf(stderr, "%s\n", err);
		abort();
	}
	text = xstrndup((const char *)data, size);
	if (size > 0 && data[0] == 'Y') {
		if (command_aliases_load_text(NAME, text + 1, strlen(text + 1),
		    &al, err, sizeof(err)) == -1) {
			if (strncmp(err, NAME, strlen(NAME)) != 0) {
				fprintf(stderr, "error without the file name: "
				    "%s\n", err);
				abort();
			}
		} else {
			check_line(al, "move 3");
			check_line(al, "ход #2 4. 5");
			command_aliases_free(al);
		}
	} else
		check_line(shipped, text);
	free(text);
	return 0;
}
