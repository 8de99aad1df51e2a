/* testutil: shared helpers for the Check suites. */
#ifndef LUDUS_TESTUTIL_H
#define LUDUS_TESTUTIL_H

#include <stdint.h>

#include <check.h>

#include "conf.h"
#include "gamedef.h"
#include "games/game.h"
#include "referee/referee.h"
#include "store.h"

/* The definition of a game from $LUDUS_GAMES_DIR (loaded once; don't free). */
const struct gamedef *tu_def(const char *name);
/* A new game state (owned, free() it) from "opt=val opt=val" and a numeric
 * seed; aborts the test run on any error. */
void	*tu_new(const char *game, const char *opts, uint64_t seed, int nseats);
/* Resolve options for a game, aborting on error. */
void	 tu_opts(const char *game, const char *opts, struct game_opts *);
/* Play a line for a seat; returns the number applied, -1 on error (err
 * filled). */
int	 tu_play(const char *game, void *st, int seat, const char *line,
	    char *err, size_t errlen);
/* How a line reads for the seat in st (left unchanged): 1 when it plays
 * just what the line canonical plays (which must be legal), 0 when it is
 * refused, -1 when it plays something else. */
int	 tu_reads_as(const char *game, const void *st, int seat,
	    const char *line, const char *canonical);
/* A notation table: each text with the canonical line it must read as,
 * or NULL when it must be refused; fails the test naming the first text
 * read otherwise. */
struct tu_notation {
	const char *text;
	const char *as;
};
void	 tu_notation_check(const char *game, const void *st, int seat,
	    const struct tu_notation *, size_t n);
/* A state read from its serialised text (owned); fails the test when the
 * engine refuses it. */
void	*tu_state(const struct game_ops *, const char *text);
/* The serialised text of a state (owned). */
char	*tu_serialise(const struct game_ops *, const void *st);
/* Fail the test unless the engine's optional shortcuts agree with what
 * they stand for in st: over() with result(), count_legal() with the
 * number of moves legal() lists, for every seat. */
void	 tu_check_shortcuts(const struct game_ops *, const void *st);
/* Run a suite, free it, and return the exit status for main(). */
int	 tu_run(Suite *);
/* A temporary directory made for this process (removed at exit). */
const char *tu_tmpdir(void);
/*
 * The database a store test opens: a file NAME in tu_tmpdir (removed
 * first), or, in a PostgreSQL run ($LUDUS_TEST_PG set, the server named by
 * $PGHOST and $PGPORT, as tests/pgenv/pgenv gives them), a new empty
 * database made for NAME and its connection string.  Owned.  tu_pg: 1 in
 * a PostgreSQL run.  tu_psql: run one SQL text in that database as the
 * server's superuser; its exit status.
 */
char	*tu_database(const char *name);
int	 tu_pg(void);
int	 tu_psql(const char *database, const char *sql);

/* The referee of a test, as a restart makes it: the settings from yaml,
 * the store at db, the game definitions, the secret at secret; fails the
 * test on any error.  tu_referee_stop undoes it. */
void	 tu_referee_start(const char *yaml, const char *db, const char *secret,
	    struct config *, struct store **, struct gamedef **, int *ndefs,
	    struct referee *);
void	 tu_referee_stop(struct config *, struct store *, struct gamedef *,
	    int ndefs, struct referee *);

#endif
