/*
 * confdoc: write the parts of the documentation that come from the settings
 * table.  `confdoc sample` prints contrib/ludus.yaml.sample; `confdoc man
 * FILE` prints FILE (man/ludus.yaml.5) with the text between its two
 * marker comments replaced.  Run by `make config-doc`; check_config fails
 * when the committed files differ from what this prints.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

#define MARK_BEGIN	".\\\" BEGIN SETTINGS"
#define MARK_END	".\\\" END SETTINGS"

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

	if (argc == 2 && strcmp(argv[1], "sample") == 0) {
		config_doc_sample(&b);
		fputs(buf_str(&b), stdout);
	} else if (argc == 3 && strcmp(argv[1], "man") == 0) {
		text = slurp(argv[2]);
		begin = strstr(text, MARK_BEGIN "\n");
		end = begin ? strstr(begin, MARK_END "\n") : NULL;
		if (end == NULL) {
			fprintf(stderr, "%s: no %s ... %s lines\n", argv[2],
			    MARK_BEGIN, MARK_END);
			return 1;
		}
		begin += strlen(MARK_BEGIN "\n");
		config_doc_man(&b);
		printf("%.*s%s%s", (int)(begin - text), text, buf_str(&b), end);
		free(text);
	} else {
		fprintf(stderr, "usage: confdoc sample | confdoc man FILE\n");
		return 2;
	}
	buf_free(&b);
	return ferror(stdout) ? 1 : 0;
}
