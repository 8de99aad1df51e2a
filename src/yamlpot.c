/*
 * yamlpot: the words of the game definitions for the catalogue.  Prints,
 * as a .pot fragment, every text a player reads from the game definitions
 * (games/NAME.yaml: title, summary, notation, each option's help, the
 * English of each `texts:` entry), read with the same parser the
 * referee uses, so each msgid is exactly the string the referee looks up.
 * `yamlpot DIR` is run by po/mkpot.sh (`make update-po`).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gamedef.h"

static void
put(const char *file, const char *s)
{
	const char *p;

	if (s == NULL || *s == '\0')
		return;
	printf("#: %s\nmsgid \"", file);
	for (p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			putchar('\\');
		if (*p == '\n') {
			fputs("\\n", stdout);
			continue;
		}
		putchar(*p);
	}
	printf("\"\nmsgstr \"\"\n\n");
}

int
main(int argc, char **argv)
{
	struct gamedef *defs;
	char err[512];
	const char *base;
	char *file;
	int n, i, j;

	if (argc != 2) {
		fprintf(stderr, "usage: yamlpot GAMES-DIR\n");
		return 2;
	}
	if (gamedef_load_dir(argv[1], &defs, &n, err, sizeof(err)) == -1) {
		fprintf(stderr, "yamlpot: %s\n", err);
		return 1;
	}
	printf("msgid \"\"\nmsgstr \"\"\n"
	    "\"Content-Type: text/plain; charset=UTF-8\\n\"\n\n");
	for (i = 0; i < n; i++) {
		base = strrchr(defs[i].file, '/');
		base = base ? base + 1 : defs[i].file;
		file = xasprintf("games/%s", base);
		put(file, defs[i].title);
		put(file, defs[i].summary);
		put(file, defs[i].notation);
		for (j = 0; j < defs[i].nopts; j++)
			put(file, defs[i].opts[j].help);
		for (j = 0; j + 2 < defs[i].ntexts; j += 3)
			if (strcmp(defs[i].texts[j + 1], "en") == 0)
				put(file, defs[i].texts[j + 2]);
		free(file);
	}
	gamedef_free_all(defs, n);
	return 0;
}
