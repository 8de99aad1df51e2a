#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static struct gamedef *defs;
static int ndefs;
static char tmpdir[256];
static int registered;

static void
tu_cleanup(void)
{
	char cmd[300];

	if (defs)
		gamedef_free_all(defs, ndefs);
	defs = NULL;
	if (tmpdir[0] && getenv("LUDUS_KEEP_TMP") == NULL) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
}

const struct gamedef *
tu_def(const char *name)
{
	const struct gamedef *d;
	char err[512];

	if (defs == NULL) {
		if (gamedef_load_dir(gamedef_default_dir(), &defs, &ndefs, err,
		    sizeof(err)) == -1) {
			fprintf(stderr, "game definitions: %s\n", err);
			exit(99);
		}
		if (!registered++)
			atexit(tu_cleanup);
	}
	if ((d = gamedef_find(defs, ndefs, name)) == NULL) {
		fprintf(stderr, "no game definition %s\n", name);
		exit(99);
	}
	return d;
}

void
tu_opts(const char *game, const char *opts, struct game_opts *o)
{
	char err[GAME_ERRLEN];

	if (gamedef_opts_parse(tu_def(game), opts ? opts : "", o, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "%s options `%s`: %s\n", game, opts, err);
		exit(99);
	}
}

void *
tu_new(const char *game, const char *opts, uint64_t seed, int nseats)
{
	const struct gamedef *d = tu_def(game);
	unsigned char s[RNG_SEED_LEN];
	struct game_opts o;
	char err[GAME_ERRLEN];
	void *st;

	tu_opts(game, opts, &o);
	rng_seed_from_u64(s, seed);
	st = xcalloc(1, d->ops->state_size);
	if (d->ops->create(st, &o, s, nseats, err, sizeof(err)) == -1) {
		fprintf(stderr, "%s create: %s\n", game, err);
		exit(99);
	}
	return st;
}

int
tu_play(const char *game, void *st, int seat, const char *line, char *err,
    size_t errlen)
{
	int failed;

	return game_apply_line(tu_def(game)->ops, st, seat, line, NULL, 0,
	    &failed, err, errlen);
}

int
tu_reads_as(const char *game, const void *st, int seat, const char *line,
    const char *canonical)
{
	const struct game_ops *ops = tu_def(game)->ops;
	void *want = xmalloc(ops->state_size), *got = xmalloc(ops->state_size);
	char err[GAME_ERRLEN], *a, *b;
	int rc;

	memcpy(want, st, ops->state_size);
	memcpy(got, st, ops->state_size);
	if (tu_play(game, want, seat, canonical, err, sizeof(err)) < 1)
		ck_abort_msg("`%s` is not legal: %s", canonical, err);
	if (tu_play(game, got, seat, line, err, sizeof(err)) < 1)
		rc = 0;
	else {
		a = tu_serialise(ops, want);
		b = tu_serialise(ops, got);
		rc = strcmp(a, b) == 0 ? 1 : -1;
		free(a);
		free(b);
	}
	free(want);
	free(got);
	return rc;
}

void
tu_notation_check(const char *game, const void *st, int seat,
    const struct tu_notation *t, size_t n)
{
	const struct game_ops *ops = tu_def(game)->ops;
	void *copy = xmalloc(ops->state_size);
	char err[GAME_ERRLEN];
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if (t[i].as != NULL) {
			rc = tu_reads_as(game, st, seat, t[i].text, t[i].as);
			ck_assert_msg(rc == 1, "%s: `%s` %s, not read as `%s`",
			    game, t[i].text, rc == 0 ? "refused" :
			    "plays something else", t[i].as);
			continue;
		}
		memcpy(copy, st, ops->state_size);
		ck_assert_msg(tu_play(game, copy, seat, t[i].text, err,
		    sizeof(err)) == -1, "%s: `%s` accepted", game, t[i].text);
	}
	free(copy);
}

int
tu_pg(void)
{
	const char *v = getenv("LUDUS_TEST_PG");

	return v != NULL && *v != '\0';
}

/* NAME as a database's name: letters, digits and _ only. */
static char *
tu_pg_name(const char *name)
{
	char *n = xasprintf("t_%s", name), *p;

	for (p = n; *p; p++)
		if (!isalnum((unsigned char)*p))
			*p = '_';
	return n;
}

int
tu_psql(const char *database, const char *sql)
{
	const char *db = strncmp(database, "postgresql:///", 14) == 0 ?
	    database + 14 : database;
	char *name = xstrndup(db, strcspn(db, "?"));
	char *cmd;
	FILE *f;
	int rc;

	cmd = xasprintf("psql -X -q -v ON_ERROR_STOP=1 -U postgres -d '%s' "
	    ">/dev/null", name);
	f = popen(cmd, "w");
	ck_assert_msg(f != NULL, "%s", cmd);
	fputs(sql, f);
	rc = pclose(f);
	free(cmd);
	free(name);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

char *
tu_database(const char *name)
{
	char *p, *cmd;

	if (!tu_pg()) {
		p = xasprintf("%s/%s", tu_tmpdir(), name);
		unlink(p);
		return p;
	}
	p = tu_pg_name(name);
	cmd = xasprintf("dropdb -U postgres --if-exists '%s' 2>/dev/null && "
	    "createdb -U "
	    "postgres -O ludus '%s'", p, p);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	free(cmd);
	cmd = xasprintf("postgresql:///%s?host=%s&port=%s&user=ludus", p,
	    getenv("PGHOST"), getenv("PGPORT") ? getenv("PGPORT") : "5432");
	free(p);
	return cmd;
}

const char *
tu_tmpdir(void)
{
	const char *base;

	if (tmpdir[0] == '\0') {
		base = getenv("TMPDIR");
		snprintf(tmpdir, sizeof(tmpdir), "%s/ludus-test.XXXXXX",
		    base && *base ? base : "/tmp");
		if (mkdtemp(tmpdir) == NULL) {
			perror("mkdtemp");
			exit(99);
		}
		if (!registered++)
			atexit(tu_cleanup);
	}
	return tmpdir;
}

void *
tu_state(const struct game_ops *ops, const char *text)
{
	char err[GAME_ERRLEN];
	void *st = xcalloc(1, ops->state_size);

	ck_assert_msg(ops->parse_state(st, text, err, sizeof(err)) == 0, "%s",
	    err);
	return st;
}

char *
tu_serialise(const struct game_ops *ops, const void *st)
{
	struct buf b = { 0 };

	ops->serialise(st, &b);
	return buf_steal(&b);
}

void
tu_check_shortcuts(const struct game_ops *ops, const void *st)
{
	static struct game_move moves[GAME_MAX_MOVES];
	struct game_result r;
	int seat;

	ops->result(st, &r);
	ck_assert_int_eq(game_over(ops, st), r.over);
	if (ops->over != NULL)
		ck_assert_int_eq(ops->over(st) != 0, r.over);
	if (ops->count_legal == NULL)
		return;
	for (seat = 0; seat < GAME_MAX_SEATS; seat++)
		ck_assert_int_eq(ops->count_legal(st, seat),
		    ops->legal(st, seat, moves, GAME_MAX_MOVES));
}

int
tu_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

void
tu_referee_start(const char *yaml, const char *db, const char *secret,
    struct config *cfg, struct store **s, struct gamedef **dv, int *nd,
    struct referee *r)
{
	char err[512];

	ck_assert_msg(config_load_text("test.yaml", yaml, strlen(yaml), cfg,
	    err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(store_open(db, s, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(gamedef_load_dir(gamedef_default_dir(), dv, nd, err,
	    sizeof(err)) == 0, "%s", err);
	ck_assert_msg(referee_open(r, *s, cfg, *dv, *nd,
	    gamedef_default_dir(), secret, err, sizeof(err)) == 0, "%s", err);
}

void
tu_referee_stop(struct config *cfg, struct store *s, struct gamedef *dv,
    int nd, struct referee *r)
{
	referee_close(r);
	gamedef_free_all(dv, nd);
	store_close(s);
	config_free(cfg);
}
