/*
 * gamedef: game definitions read from games/NAME.yaml.
 *
 * A definition names its engine, its seat count, aliases (other names and
 * languages a player may use for it) and the variant options with type,
 * range, default and help.  Options a player gives as OPT=VAL are checked
 * here and handed to the engine resolved (see struct game_opts).
 */
#ifndef LUDUS_GAMEDEF_H
#define LUDUS_GAMEDEF_H

#include <stddef.h>

#include "games/game.h"

enum gamedef_type { GOPT_INT, GOPT_BOOL, GOPT_ENUM, GOPT_STRING };

struct gamedef_opt {
	char		*name;
	enum gamedef_type type;
	long long	 min, max;	/* GOPT_INT */
	char		**values;	/* GOPT_ENUM, nvalues of them */
	int		 nvalues;
	char		*def;		/* default, as text */
	char		*help;
	int		 line;
};

#define GAMEDEF_TIMEOUT_FORFEIT	1
#define GAMEDEF_TIMEOUT_NOTIFY	2

struct gamedef {
	char		*file;
	char		*name;
	char		*title;
	char		*summary;
	char		*notation;
	int		 seats;
	int		 first_random;	/* `first: random`: without first=,
					 * draw who moves first */
	int		 timeout;	/* `timeout:` when time runs out:
					 * GAMEDEF_TIMEOUT_*, 0 for the
					 * configured clock.timeout_action */
	char		**aliases;
	int		 naliases;
	struct gamedef_opt *opts;
	int		 nopts;
	char		*data;		/* engine data block (e.g. a deck), or NULL */
	/* `texts:` KEY: LANGUAGE: TEXT, sentences the referee puts into
	 * its mails for this game (`again`: to a player who moves again);
	 * ntexts triples key, language, text, all owned. */
	char		**texts;
	int		 ntexts;
	const struct game_ops *ops;	/* foreign: the engine it names */
};

/* All definitions in a directory; *defs is owned by the caller
 * (gamedef_free_all).  -1 with "file:line: why" in err. */
int	gamedef_load_dir(const char *dir, struct gamedef **defs, int *ndefs,
	    char *err, size_t errlen);
int	gamedef_load_file(const char *path, struct gamedef *, char *err,
	    size_t errlen);
void	gamedef_free(struct gamedef *);
void	gamedef_free_all(struct gamedef *, int);

/* Definition by name or alias, case-insensitive; NULL if none. */
const struct gamedef *gamedef_find(const struct gamedef *, int, const char *);

/* The definition's text KEY in language lang, else in English; NULL when
 * the definition has none (don't free). */
const char *gamedef_text(const struct gamedef *, const char *key,
	    const char *lang);

/* Resolve OPT=VAL words against the definition into engine options (every
 * option present, defaults filled).  -1 with a message naming the option,
 * the bad value and what is allowed. */
int	gamedef_resolve(const struct gamedef *, char *const *words, int nwords,
	    struct game_opts *, char *err, size_t errlen);
/* The values an option takes, as players write them: "1-9", "true|false",
 * "faceup|fixed", "TEXT". */
void	gamedef_opt_values(const struct gamedef_opt *, struct buf *);
/* The options back as canonical "a=1 b=x" text (for storage and display);
 * owned by the caller. */
char	*gamedef_opts_text(const struct game_opts *);
/* Parse what gamedef_opts_text wrote, against the definition. */
int	gamedef_opts_parse(const struct gamedef *, const char *,
	    struct game_opts *, char *err, size_t errlen);

/* The directory the definitions come from: $LUDUS_GAMES_DIR, else the
 * installed one. */
const char *gamedef_default_dir(void);

#endif
