/*
 * ludus: the admin and offline tool, one subcommand per job.
 */
#include "config.h"
#include "gitversion.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libetpan/libetpan.h>
#include <openssl/crypto.h>

#include "cardbot.h"
#include "clock.h"
#include "conf.h"
#include "gamedef.h"
#include "i18n.h"
#include "intake.h"
#include "mail.h"
#include "outbox.h"
#include "play.h"
#include "robot.h"
#include "site.h"
#include "stats.h"
#include "store.h"
#include "token.h"

#define EXIT_USAGE	64
#define EXIT_TEMPFAIL	75	/* sysexits EX_TEMPFAIL: the MTA tries again */

struct ctx {
	const char	*dbpath;
	const char	*config_path;	/* NULL: none read */
	struct config	 cfg;
	struct gamedef	*defs;
	int		 ndefs;
	struct store	*store;
};

struct cmd {
	const char *name;
	const char *args;
	const char *help;
	int	(*fn)(struct ctx *, int, char **);
	int	 needs_store;
};

static const struct cmd *find_cmd(const char *);

static int
usage_of(const char *name)
{
	const struct cmd *c = find_cmd(name);

	fprintf(stderr, "usage: ludus [-c CONFIG] [-d DATABASE] %s %s\n",
	    c->name, c->args);
	return EXIT_USAGE;
}

static int
err_out(const char *fmt, ...) PRINTFLIKE(1, 2);

static int
err_out(const char *fmt, ...)
{
	va_list ap;

	fputs("ludus: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static int64_t
now(void)
{
	return clock_now();
}

static int
parse_id(const char *s, int64_t *id)
{
	long long v;

	if (*s == '#')
		s++;
	if (util_parse_int(s, 1, INT64_MAX, &v) == -1)
		return -1;
	*id = v;
	return 0;
}

static int
load_defs(struct ctx *c)
{
	char err[512];

	if (c->defs != NULL)
		return 0;
	if (gamedef_load_dir(gamedef_default_dir(), &c->defs, &c->ndefs, err,
	    sizeof(err)) == -1)
		return err_out("game definitions: %s", err);
	return 0;
}

static int
load_game(struct ctx *c, const char *idtext, struct play_game *g)
{
	char err[GAME_ERRLEN];
	int64_t id;

	if (parse_id(idtext, &id) == -1)
		return err_out("`%s` is not a game number", idtext);
	if (play_load(c->store, c->defs, c->ndefs, id, g, err, sizeof(err)) !=
	    0)
		return err_out("%s", err);
	return 0;
}

/* --as ADDRESS: the seat to view as; GAME_PUBLIC without it. */
static int
viewer_seat(const struct play_game *g, const char *as, int *seat)
{
	*seat = GAME_PUBLIC;
	if (as == NULL)
		return 0;
	if ((*seat = play_seat(g, as)) == -1)
		return err_out("%s does not play game #%lld", as,
		    (long long)g->row.id);
	return 0;
}

/* Split "--as ADDRESS" out of argv; returns the remaining count. */
static int
take_as(int argc, char **argv, const char **as)
{
	int i, n = 0;

	*as = NULL;
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--as") == 0 && i + 1 < argc)
			*as = argv[++i];
		else if (strncmp(argv[i], "--as=", 5) == 0)
			*as = argv[i] + 5;
		else
			argv[n++] = argv[i];
	}
	return n;
}

/* The server secret the reply tokens derive from: the configured file, or
 * without a configuration file ludus.secret beside the database (a
 * PostgreSQL database has no beside: the configured file, whose default
 * is STATE_DIR/secret). */
static char *
secret_path(const struct ctx *c)
{
	const char *slash;

	if ((c->config_path != NULL || store_is_server(c->dbpath)) &&
	    c->cfg.referee.secret_file != NULL)
		return xstrdup(c->cfg.referee.secret_file);
	if ((slash = strrchr(c->dbpath, '/')) == NULL)
		return xstrdup("ludus.secret");
	return xasprintf("%.*s/ludus.secret", (int)(slash - c->dbpath),
	    c->dbpath);
}

/* config: the settings in effect, as YAML (like postconf); -n: only those
 * the file gives (postconf -n); KEY ...: each setting, or each of a
 * section, as "KEY: VALUE" (postconf KEY).  Passwords are never in the
 * configuration, only where they come from. */
static int
cmd_config(struct ctx *c, int argc, char **argv)
{
	struct buf b = { 0 };
	int i, bad = 0;

	if (argc == 1 && strcmp(argv[0], "-n") == 0) {
		config_dump_given(&c->cfg, &b);
		fputs(buf_str(&b), stdout);
		buf_free(&b);
		return 0;
	}
	if (argc > 0) {
		for (i = 0; i < argc; i++)
			if (argv[i][0] == '-') {
				buf_free(&b);
				return usage_of("config");
			} else if (config_dump_key(&c->cfg, argv[i], &b) == -1) {
				fprintf(stderr, "ludus: config: no setting or "
				    "section %s (see ludus.yaml(5))\n", argv[i]);
				bad = 1;
			}
		fputs(buf_str(&b), stdout);
		buf_free(&b);
		return bad;
	}
	if (c->config_path != NULL)
		printf("# %s\n", c->config_path);
	else
		printf("# no configuration file: the built-in defaults\n");
	config_dump(&c->cfg, &b);
	fputs(buf_str(&b), stdout);
	buf_free(&b);
	return 0;
}

/* prune: what the daemon does once a day, for setups without one. */
static int
cmd_stats(struct ctx *c, int argc, char **argv)
{
	struct store_stats st;
	struct buf b = { 0 };
	int om;

	om = argc == 1 && strcmp(argv[0], "--openmetrics") == 0;
	if (argc != om)
		return usage_of("stats");
	if (store_stats(c->store, &st) == -1)
		return err_out("%s", store_errmsg(c->store));
	if (om)
		stats_openmetrics(&st, now(), &b);
	else
		stats_text(&st, now(), &b);
	fputs(buf_str(&b), stdout);
	buf_free(&b);
	return 0;
}

static int
cmd_prune(struct ctx *c, int argc, char **argv)
{
	int64_t t = now();
	int n;

	(void)argv;
	if (argc != 0)
		return usage_of("prune");
	if (store_retention(c->store, t - c->cfg.retention.processed_ms / 1000,
	    t - c->cfg.retention.outbox_ms / 1000, t - 86400, &n) == -1)
		return err_out("%s", store_errmsg(c->store));
	printf("%d old record%s deleted\n", n, n == 1 ? "" : "s");
	return 0;
}

/* Is a file backup or restore would write one that must not be
 * overwritten: the database and its own files, or the secret?  Says so. */
static int
protected_target(const struct ctx *c, const char *secret, const char *path)
{
	if (store_own_file(c->dbpath, path)) {
		err_out("%s is the database %s or one of its own files: name "
		    "another file", path, c->dbpath);
		return 1;
	}
	if (util_same_file(path, secret)) {
		err_out("%s is the secret the reply tokens derive from: name "
		    "another file", path);
		return 1;
	}
	return 0;
}

/* backup FILE: the database, consistent while the daemon runs, and the
 * secret beside it as FILE.secret (tokens cannot be checked without it).
 * Neither may land on the database, its WAL or the secret: each is
 * renamed over its target, and the daemon would go on writing into the
 * inode it has open, lost at its stop. */
static int
cmd_backup(struct ctx *c, int argc, char **argv)
{
	struct token_secret sec;
	char err[512], *path, *to, *tmp, *totmp;
	int rc;

	if (argc != 1)
		return usage_of("backup");
	path = secret_path(c);
	to = xasprintf("%s.secret", argv[0]);
	tmp = xasprintf("%s.tmp", argv[0]);
	totmp = xasprintf("%s.tmp", to);
	rc = protected_target(c, path, argv[0]) ||
	    protected_target(c, path, tmp) || protected_target(c, path, to) ||
	    protected_target(c, path, totmp);
	free(tmp);
	free(totmp);
	if (rc) {
		free(path);
		free(to);
		return 1;
	}
	if (store_backup(c->store, argv[0], err, sizeof(err)) == -1) {
		free(path);
		free(to);
		return err_out("%s", err);
	}
	printf("database %s backed up to %s\n", c->dbpath, argv[0]);
	rc = token_secret_load(path, &sec, err, sizeof(err));
	if (rc == 0)
		rc = token_secret_save(&sec, to, err, sizeof(err));
	OPENSSL_cleanse(&sec, sizeof(sec));
	if (rc == 0)
		printf("secret %s backed up to %s\n", path, to);
	free(path);
	free(to);
	return rc == 0 ? 0 : err_out("%s", err);
}

/* The secret of a restore: FILE.secret in place of the running one, which
 * is kept as SECRET.ASIDE when it differs.  0, or 1 (said). */
static int
restore_secret(const char *from, const char *path, const char *aside)
{
	struct token_secret new, cur;
	struct stat old;
	char err[512], *a;
	int same, have_old, rc = 1;

	if (token_secret_load(from, &new, err, sizeof(err)) == -1) {
		OPENSSL_cleanse(&new, sizeof(new));
		return err_out("%s", err);
	}
	if ((have_old = stat(path, &old) == 0)) {
		same = token_secret_load(path, &cur, err, sizeof(err)) == 0 &&
		    CRYPTO_memcmp(cur.key, new.key, sizeof(new.key)) == 0;
		OPENSSL_cleanse(&cur, sizeof(cur));
		if (same) {
			OPENSSL_cleanse(&new, sizeof(new));
			printf("secret %s kept: the same as %s\n", path, from);
			return 0;
		}
		a = xasprintf("%s.%s", path, aside);
		if (rename(path, a) == -1) {
			err_out("%s: %s", a, strerror(errno));
			free(a);
			OPENSSL_cleanse(&new, sizeof(new));
			return 1;
		}
		printf("secret %s kept aside as %s\n", path, a);
		free(a);
	}
	if (token_secret_save(&new, path, err, sizeof(err)) == -1)
		err_out("%s", err);
	/* Root restores for the daemon's user: the file stays its own. */
	else if (have_old && geteuid() == 0 && chown(path, old.st_uid,
	    old.st_gid) == -1)
		err_out("%s: %s", path, strerror(errno));
	else {
		printf("secret %s restored from %s\n", path, from);
		rc = 0;
	}
	OPENSSL_cleanse(&new, sizeof(new));
	return rc;
}

/*
 * restore FILE: a backup made by `ludus backup` (FILE and FILE.secret) in
 * place of the database and the secret, with ludusd stopped.  The
 * database's WAL belongs to the replaced file: replayed onto the backup
 * it would damage it or bring the replaced state back.  The replaced
 * files are kept aside, named by the time.
 */
static int
cmd_restore(struct ctx *c, int argc, char **argv)
{
	struct token_secret sec;
	char err[512], aside[64], *secret, *from_secret;
	long holder;
	time_t t = time(NULL);
	struct tm tm;
	int fd, rc, version;

	if (argc != 1)
		return usage_of("restore");
	secret = secret_path(c);
	from_secret = xasprintf("%s.secret", argv[0]);
	rc = 1;
	if (protected_target(c, secret, argv[0]))
		goto out;
	/* Both parts are read before anything changes. */
	if (token_secret_load(from_secret, &sec, err, sizeof(err)) == -1) {
		err_out("%s (the secret `ludus backup` wrote beside the "
		    "database's copy)", err);
		OPENSSL_cleanse(&sec, sizeof(sec));
		goto out;
	}
	OPENSSL_cleanse(&sec, sizeof(sec));
	if ((rc = store_lock(c->dbpath, &fd, &holder, err, sizeof(err))) != 0) {
		err_out("%s%s", err, rc == 1 ? ": stop it first" : "");
		rc = 1;
		goto out;
	}
	gmtime_r(&t, &tm);
	strftime(aside, sizeof(aside), "replaced-%Y%m%dT%H%M%SZ", &tm);
	if (store_restore(c->dbpath, argv[0], aside, &version, err,
	    sizeof(err)) == -1) {
		err_out("%s", err);
		rc = 1;
	} else {
		printf("database %s restored from %s (schema version %d; the "
		    "replaced one kept as %s.%s)\n", c->dbpath, argv[0],
		    version, c->dbpath, aside);
		rc = restore_secret(from_secret, secret, aside);
	}
	store_unlock(fd);
out:
	free(secret);
	free(from_secret);
	return rc;
}

static int
cmd_init(struct ctx *c, int argc, char **argv)
{
	char err[512], *path;
	int rc;

	(void)argv;
	if (argc != 0)
		return usage_of("init");
	printf("database %s ready (schema version %d)\n", c->dbpath,
	    store_schema_version(c->store));
	path = secret_path(c);
	rc = token_secret_create(path, err, sizeof(err));
	if (rc == -1) {
		free(path);
		return err_out("%s", err);
	}
	printf("secret %s %s\n", path, rc == 1 ? "kept" : "created (mode 0600)");
	free(path);
	return 0;
}

static int
cmd_games(struct ctx *c, int argc, char **argv)
{
	int i, j;

	(void)argv;
	if (argc != 0)
		return usage_of("games");
	for (i = 0; i < c->ndefs; i++) {
		const struct gamedef *d = &c->defs[i];

		printf("%s — %s, %d players", d->name, d->title, d->seats);
		if (d->naliases) {
			printf(" (also:");
			for (j = 0; j < d->naliases; j++)
				printf(" %s", d->aliases[j]);
			printf(")");
		}
		printf("\n");
		for (j = 0; j < d->nopts; j++) {
			const struct gamedef_opt *o = &d->opts[j];
			struct buf v = { 0 };

			gamedef_opt_values(o, &v);
			printf("  %s=%s", o->name, buf_str(&v));
			buf_free(&v);
			printf(" (default %s)%s%s\n", *o->def ? o->def : "none",
			    o->help ? ": " : "", o->help ? o->help : "");
		}
	}
	return 0;
}

static int	open_referee(struct ctx *, struct referee *);

/* The key the Message-IDs of a new game's mails derive from: the number
 * it is to have, so that the same line at the same second makes other
 * mails for another game. */
static char *
new_key(int64_t next, const char *args, int64_t t)
{
	return xasprintf("ludus-new:%lld:%s:%lld", (long long)(next - 1), args,
	    (long long)t);
}

/*
 * A game made and begun by the operator, through the referee's own path:
 * the admin's `new`, needing no acceptance, then the game begins as when
 * its last seat accepts (the clock, the robots to move, the game-start
 * mails; --quiet: none queued).
 */
static int
cmd_new(struct ctx *c, int argc, char **argv)
{
	struct play_game g;
	struct referee ref;
	struct buf args = { 0 };
	unsigned char seed[RNG_SEED_LEN];
	char err[GAME_ERRLEN + 200], *key, id[32];
	int i, have_seed = 0, quiet = 0, rc;
	int64_t game, next, t = now();
	long long sv;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			if (util_parse_int(argv[++i], 0, INT64_MAX, &sv) == -1) {
				buf_free(&args);
				return err_out("--seed needs a number");
			}
			rng_seed_from_u64(seed, (uint64_t)sv);
			have_seed = 1;
		} else if (strcmp(argv[i], "--quiet") == 0)
			quiet = 1;
		else if (strcmp(argv[i], "first=given") == 0)
			;	/* the order named: the default of `new` */
		else if (args.len == 0 && gamedef_find(c->defs, c->ndefs,
		    argv[i]) == NULL) {
			buf_free(&args);
			return err_out("no game called `%s` (see `ludus games`)",
			    argv[i]);
		} else
			buf_printf(&args, "%s%s", args.len ? " " : "", argv[i]);
	}
	if (args.len == 0)
		return usage_of("new");
	if (!have_seed)
		/* Reproducible only in test builds with $LUDUS_SEED set. */
		rng_seed_new(seed, "ludus new");
	if (c->cfg.referee.address == NULL)
		c->cfg.referee.address = xstrdup("referee@localhost");
	if (open_referee(c, &ref) == -1) {
		buf_free(&args);
		return 1;
	}
	key = NULL;
	rc = -1;
	if (store_begin(c->store) == -1)
		util_strlcpy(err, store_errmsg(c->store), sizeof(err));
	else if (store_id_next(c->store, STORE_SERIES_GAME, &next) == -1) {
		util_strlcpy(err, store_errmsg(c->store), sizeof(err));
		store_rollback(c->store);
	} else {
		key = new_key(next, buf_str(&args), t);
		if ((rc = referee_new(&ref, buf_str(&args), seed, key, t,
		    quiet, &game, err, sizeof(err))) != 0 ||
		    store_commit(c->store) == -1) {
			if (rc == 0)
				util_strlcpy(err, store_errmsg(c->store),
				    sizeof(err));
			store_rollback(c->store);
			rc = -1;
		}
	}
	free(key);
	buf_free(&args);
	referee_close(&ref);
	if (rc != 0)
		return err_out("%s", err);
	snprintf(id, sizeof(id), "%lld", (long long)game);
	if (load_game(c, id, &g) != 0)
		return 1;
	printf("game #%lld: %s (%s)\n", (long long)g.row.id, g.def->title,
	    g.row.options);
	for (i = 0; i < g.row.nseats; i++)
		printf("  %s: %s\n", g.def->ops->seat_name(g.st, i),
		    g.address[i]);
	play_free(&g);
	return 0;
}

static void
print_to_move(const struct play_game *g)
{
	uint32_t mask = g->def->ops->to_move(g->st);
	int i, first = 1;

	for (i = 0; i < g->row.nseats; i++)
		if (mask & (1u << i)) {
			printf("%s%s", first ? "" : ",", g->address[i]);
			first = 0;
		}
	if (first)
		printf("-");
}

static int
cmd_list(struct ctx *c, int argc, char **argv)
{
	struct play_game g;
	char err[GAME_ERRLEN];
	int64_t *ids;
	int n, i, j;

	(void)argv;
	if (argc != 0)
		return usage_of("list");
	if (store_game_ids(c->store, 0, &ids, &n) == -1)
		return err_out("%s", store_errmsg(c->store));
	for (i = 0; i < n; i++) {
		if (play_load(c->store, c->defs, c->ndefs, ids[i], &g, err,
		    sizeof(err)) != 0) {
			printf("#%lld\t(unreadable: %s)\n", (long long)ids[i],
			    err);
			continue;
		}
		/* Plies, not log rows: a signal is no move (and may be
		 * hidden from the other side). */
		printf("#%lld\t%s\t%s\tmoves %d\t", (long long)g.row.id,
		    g.row.kind, g.row.status, play_plies_stored(c->store, &g));
		for (j = 0; j < g.row.nseats; j++)
			printf("%s%s", j ? " v " : "", g.address[j]);
		printf("\tto move: ");
		print_to_move(&g);
		if (g.row.result)
			printf("\t%.*s", (int)i18n_english_len(g.row.result),
			    g.row.result);
		printf("\n");
		play_free(&g);
	}
	free(ids);
	return 0;
}

static int
cmd_show(struct ctx *c, int argc, char **argv)
{
	struct play_game g;
	struct buf b = { 0 };
	const char *as;
	int seat;

	argc = take_as(argc, argv, &as);
	if (argc != 1)
		return usage_of("show");
	if (load_game(c, argv[0], &g) != 0)
		return 1;
	if (viewer_seat(&g, as, &seat) != 0) {
		play_free(&g);
		return 1;
	}
	printf("Game #%lld: %s (%s), %s, move %d\n", (long long)g.row.id,
	    g.def->title, g.row.options, g.row.status,
	    play_plies_stored(c->store, &g));
	play_render(&g, seat, &b);
	fputs(buf_str(&b), stdout);
	buf_free(&b);
	play_free(&g);
	return 0;
}

static int
cmd_moves(struct ctx *c, int argc, char **argv)
{
	struct play_game g;
	struct buf b = { 0 };
	const char *as;
	uint32_t mask;
	int seat, i;

	argc = take_as(argc, argv, &as);
	if (argc != 1)
		return usage_of("moves");
	if (load_game(c, argv[0], &g) != 0)
		return 1;
	if (viewer_seat(&g, as, &seat) != 0) {
		play_free(&g);
		return 1;
	}
	mask = g.def->ops->to_move(g.st);
	for (i = 0; i < g.row.nseats; i++)
		if ((seat == GAME_PUBLIC && (mask & (1u << i))) || seat == i)
			game_legal_text(g.def->ops, g.st, i, &b);
	fputs(buf_str(&b), stdout);
	buf_free(&b);
	play_free(&g);
	return 0;
}

/*
 * A move entered for a player, through the referee's own command path:
 * the clock, robots, conditional moves, ratings, ladders and the mails to
 * the seats and observers follow as when the player mails it (--quiet:
 * no mail queued).  Without a configuration the referee's address is a
 * placeholder, so a database made by `ludus init` alone can be played.
 */
static int
cmd_move(struct ctx *c, int argc, char **argv)
{
	struct play_game g;
	struct referee ref;
	struct buf line = { 0 };
	char err[GAME_ERRLEN + 200], *key;
	int64_t game, t = now();
	int seat, i, n = 0, quiet = 0, rc, plies, nmoves;

	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], "--quiet") == 0)
			quiet = 1;
		else
			argv[n++] = argv[i];
	argc = n;
	if (argc < 3)
		return usage_of("move");
	if (load_game(c, argv[0], &g) != 0)
		return 1;
	if ((seat = play_seat(&g, argv[1])) == -1) {
		play_free(&g);
		return err_out("%s does not play game #%s", argv[1], argv[0]);
	}
	if ((plies = play_plies_stored(c->store, &g)) == -1) {
		play_free(&g);
		return err_out("%s", store_errmsg(c->store));
	}
	nmoves = g.row.nmoves;
	play_free(&g);
	if (c->cfg.referee.address == NULL)
		c->cfg.referee.address = xstrdup("referee@localhost");
	if (open_referee(c, &ref) == -1)
		return 1;
	buf_printf(&line, "move #%s", argv[0]);
	for (i = 2; i < argc; i++)
		buf_printf(&line, " %s", argv[i]);
	/* The Message-IDs of its mails derive from this. */
	key = xasprintf("ludus-move:%s:%d:%lld", argv[0], nmoves,
	    (long long)t);
	if (store_begin(c->store) == -1) {
		util_strlcpy(err, store_errmsg(c->store), sizeof(err));
		rc = -1;
	} else if ((rc = referee_command(&ref, argv[1], buf_str(&line), key,
	    t, quiet, &game, err, sizeof(err))) != 0 ||
	    store_commit(c->store) == -1) {
		if (rc == 0)
			util_strlcpy(err, store_errmsg(c->store), sizeof(err));
		store_rollback(c->store);
		rc = -1;
	}
	free(key);
	buf_free(&line);
	referee_close(&ref);
	if (rc != 0)
		return err_out("%s", err);
	if (load_game(c, argv[0], &g) != 0)
		return 1;
	/* A signal is logged, but it is no move; a robot's reply or a
	 * conditional move played at once is counted too. */
	n = g.row.nmoves - nmoves;
	plies = play_plies_stored(c->store, &g) - plies;
	printf("game #%lld: %d move%s played", (long long)g.row.id, plies,
	    plies == 1 ? "" : "s");
	if (n > plies)
		printf(", %d signal%s passed", n - plies, n - plies == 1 ? "" :
		    "s");
	if (g.row.result)
		printf("; game over: %.*s", (int)i18n_english_len(
		    g.row.result), g.row.result);
	printf("\n");
	play_free(&g);
	return 0;
}

/*
 * The move record.  Plies are numbered; an event (an Aluette signal) is
 * no ply and is shown in parentheses without a number.  With --as, only
 * what that player may read: a move it may not learn of is left out, a
 * face-down discard reads as one, and the numbers stay those of the
 * plies, so they never tell of a hidden signal.
 */
static int
cmd_history(struct ctx *c, int argc, char **argv)
{
	struct play_game g;
	struct store_move *log;
	char text[GAME_MOVE_TEXT];
	const char *as;
	int n, i, seat, shown, ply = 0;

	argc = take_as(argc, argv, &as);
	if (argc != 1)
		return usage_of("history");
	if (load_game(c, argv[0], &g) != 0)
		return 1;
	if (viewer_seat(&g, as, &seat) != 0) {
		play_free(&g);
		return 1;
	}
	if (store_moves(c->store, g.row.id, &log, &n) == -1) {
		play_free(&g);
		return err_out("%s", store_errmsg(c->store));
	}
	for (i = 0; i < n; i++) {
		char when[32], who[160];
		time_t t = (time_t)log[i].created;
		struct tm tm;

		if (as == NULL) {
			shown = play_is_ply(&g, log[i].seat,
			    log[i].notation) ? GAME_SHOWN_PLY :
			    GAME_SHOWN_EVENT;
			util_strlcpy(text, log[i].notation, sizeof(text));
		} else
			shown = play_shown(&g, log[i].seat, log[i].notation,
			    seat, text, sizeof(text));
		if (shown == GAME_SHOWN_NONE)
			continue;
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M",
		    gmtime_r(&t, &tm));
		snprintf(who, sizeof(who), "%s (%s)",
		    g.def->ops->seat_name(g.st, log[i].seat),
		    g.address[log[i].seat] ? g.address[log[i].seat] : "?");
		if (shown == GAME_SHOWN_PLY)
			printf("%d. %s %s  [%s UTC]\n", ++ply, who, text, when);
		else
			printf("   (%s %s)  [%s UTC]\n", who, text, when);
	}
	if (g.row.result)
		printf("%.*s\n", (int)i18n_english_len(g.row.result),
		    g.row.result);
	store_moves_free(log, n);
	play_free(&g);
	return 0;
}

static int
cmd_export(struct ctx *c, int argc, char **argv)
{
	struct play_game g;
	struct store_move *log;
	struct buf b = { 0 };
	char hex[2 * RNG_SEED_LEN + 1], commit[65];
	int n, i;

	if (argc != 1)
		return usage_of("export");
	if (load_game(c, argv[0], &g) != 0)
		return 1;
	if (store_moves(c->store, g.row.id, &log, &n) == -1) {
		play_free(&g);
		return err_out("%s", store_errmsg(c->store));
	}
	rng_commitment(g.row.seed, commit);
	buf_printf(&b, "{\"id\":%lld,\"kind\":", (long long)g.row.id);
	util_json_str(&b, g.row.kind);
	buf_adds(&b, ",\"options\":");
	util_json_str(&b, g.row.options);
	buf_adds(&b, ",\"status\":");
	util_json_str(&b, g.row.status);
	buf_printf(&b, ",\"seed_sha256\":\"%s\"", commit);
	/* The seed decides every future deal: only a finished game shows it. */
	if (strcmp(g.row.status, "active") != 0 &&
	    strcmp(g.row.status, "invited") != 0) {
		util_hex(g.row.seed, RNG_SEED_LEN, hex);
		buf_printf(&b, ",\"seed\":\"%s\"", hex);
	}
	buf_adds(&b, ",\"players\":[");
	for (i = 0; i < g.row.nseats; i++) {
		buf_adds(&b, i ? "," : "");
		buf_adds(&b, "{\"seat\":");
		util_json_str(&b, g.def->ops->seat_name(g.st, i));
		buf_adds(&b, ",\"address\":");
		util_json_str(&b, g.address[i]);
		buf_adds(&b, "}");
	}
	buf_adds(&b, "],\"moves\":[");
	for (i = 0; i < n; i++) {
		buf_printf(&b, "%s{\"ply\":%d,\"seat\":%d,\"move\":",
		    i ? "," : "", log[i].ply, log[i].seat);
		util_json_str(&b, log[i].notation);
		buf_printf(&b, ",\"time\":%lld}", (long long)log[i].created);
	}
	buf_adds(&b, "],\"result\":");
	if (g.row.result) {
		char *english = xstrndup(g.row.result,
		    i18n_english_len(g.row.result));

		util_json_str(&b, english);
		free(english);
	}
	else
		buf_adds(&b, "null");
	buf_adds(&b, ",\"state\":");
	g.def->ops->export_json(g.st, &b);
	buf_adds(&b, "}\n");
	fputs(buf_str(&b), stdout);
	buf_free(&b);
	store_moves_free(log, n);
	play_free(&g);
	return 0;
}

static int
cmd_replay(struct ctx *c, int argc, char **argv)
{
	struct play_game g;
	char err[GAME_ERRLEN], *state;
	int rc;

	(void)argv;
	if (argc != 1)
		return usage_of("replay");
	if (load_game(c, argv[0], &g) != 0)
		return 1;
	if (play_replay(c->store, &g, &state, err, sizeof(err)) == -1) {
		play_free(&g);
		return err_out("game #%s: %s", argv[0], err);
	}
	if (strcmp(state, g.row.state) == 0) {
		printf("game #%lld: %d moves replay to the stored state\n",
		    (long long)g.row.id, g.row.nmoves);
		rc = 0;
	} else {
		fprintf(stderr, "ludus: game #%lld: the move log does not "
		    "replay to the stored state\n--- stored\n%s--- replayed\n%s",
		    (long long)g.row.id, g.row.state, state);
		rc = 1;
	}
	free(state);
	play_free(&g);
	return rc;
}

/*
 * verify ID [SEED [HASH]]: the seed a finished game revealed hashes to the
 * commitment published in its first mail, and the game replays from it.
 * SEED and HASH default to the stored ones; a player passes the values
 * from the mails to check them.
 */
static int
cmd_verify(struct ctx *c, int argc, char **argv)
{
	struct play_game g;
	char err[GAME_ERRLEN], commit[65], *state;
	int rc = 1;

	if (argc < 1 || argc > 3)
		return usage_of("verify");
	if (load_game(c, argv[0], &g) != 0)
		return 1;
	if (strcmp(g.row.status, "active") == 0 ||
	    strcmp(g.row.status, "invited") == 0) {
		err_out("game #%s is %s: its seed is revealed when it ends",
		    argv[0], g.row.status);
		goto out;
	}
	if (argc >= 2 && (strlen(argv[1]) != 2 * RNG_SEED_LEN ||
	    util_unhex(argv[1], g.row.seed, RNG_SEED_LEN) == -1)) {
		err_out("the seed is %d hex digits", 2 * RNG_SEED_LEN);
		goto out;
	}
	rng_commitment(g.row.seed, commit);
	if (argc == 3 ? !util_strcaseeq(argv[2], commit) : 0) {
		printf("game #%s: SHA-256 of the seed is %s, not the "
		    "commitment %s\n", argv[0], commit, argv[2]);
		goto out;
	}
	if (argc < 3) {
		struct store_game stored;

		if (store_game_load(c->store, g.row.id, &stored) != 0) {
			err_out("%s", store_errmsg(c->store));
			goto out;
		}
		rng_commitment(stored.seed, err);
		store_game_free(&stored);
		if (strcmp(err, commit) != 0) {
			printf("game #%s: SHA-256 of the seed is %s, not the "
			    "published %s\n", argv[0], commit, err);
			goto out;
		}
	}
	printf("game #%s: the seed's SHA-256 is the published commitment "
	    "%s\n", argv[0], commit);
	if (play_replay(c->store, &g, &state, err, sizeof(err)) == -1) {
		printf("game #%s: the moves do not replay from this seed: "
		    "%s\n", argv[0], err);
		goto out;
	}
	if (strcmp(state, g.row.state) == 0) {
		printf("game #%s: the deal and all %d moves replay from the "
		    "seed to the final position\n", argv[0], g.row.nmoves);
		rc = 0;
	} else
		printf("game #%s: the moves replay from this seed to another "
		    "position than the game's\n", argv[0]);
	free(state);
out:
	play_free(&g);
	return rc;
}

static int
cmd_perft(struct ctx *c, int argc, char **argv)
{
	const struct gamedef *d;
	struct game_opts o;
	unsigned char seed[RNG_SEED_LEN];
	char err[GAME_ERRLEN], **words;
	long long depth, sv = 1;
	void *st;
	int i, nw = 0, d_i;

	if (argc < 2)
		return usage_of("perft");
	if ((d = gamedef_find(c->defs, c->ndefs, argv[0])) == NULL)
		return err_out("no game called `%s` (see `ludus games`)",
		    argv[0]);
	if (util_parse_int(argv[1], 0, 64, &depth) == -1)
		return err_out("depth must be a number 0-64");
	words = xcalloc((size_t)argc, sizeof(*words));
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			if (util_parse_int(argv[++i], 0, INT64_MAX, &sv) == -1) {
				free(words);
				return err_out("--seed needs a number");
			}
		} else
			words[nw++] = argv[i];
	}
	if (gamedef_resolve(d, words, nw, &o, err, sizeof(err)) == -1) {
		free(words);
		return err_out("%s", err);
	}
	free(words);
	rng_seed_from_u64(seed, (uint64_t)sv);
	st = xcalloc(1, d->ops->state_size);
	if (d->ops->create(st, &o, seed, d->seats, err, sizeof(err)) == -1) {
		free(st);
		return err_out("%s", err);
	}
	for (d_i = 1; d_i <= depth; d_i++) {
		printf("depth %d: %" PRIu64 "\n", d_i,
		    game_perft(d->ops, st, d_i));
		fflush(stdout);
	}
	free(st);
	return 0;
}

/*
 * deal GAME SEED [OPT=VAL ...]: the start of a game from a revealed seed,
 * each seat's view in turn, so a player can check offline, from the
 * mails alone, that the deal they were given is the one the seed makes.
 */
static int
cmd_deal(struct ctx *c, int argc, char **argv)
{
	const struct gamedef *d;
	struct game_opts o;
	struct game_view v;
	struct buf b = { 0 };
	unsigned char seed[RNG_SEED_LEN];
	char err[GAME_ERRLEN], commit[65];
	void *st;
	int seat, json = 0;

	if (argc >= 1 && strcmp(argv[argc - 1], "--json") == 0) {
		json = 1;
		argc--;
	}
	if (argc < 2)
		return usage_of("deal");
	if ((d = gamedef_find(c->defs, c->ndefs, argv[0])) == NULL)
		return err_out("no game called `%s` (see `ludus games`)",
		    argv[0]);
	if (strlen(argv[1]) != 2 * RNG_SEED_LEN ||
	    util_unhex(argv[1], seed, RNG_SEED_LEN) == -1)
		return err_out("the seed is %d hex digits", 2 * RNG_SEED_LEN);
	if (gamedef_resolve(d, argv + 2, argc - 2, &o, err, sizeof(err)) == -1)
		return err_out("%s", err);
	st = xcalloc(1, d->ops->state_size);
	if (d->ops->create(st, &o, seed, d->seats, err, sizeof(err)) == -1) {
		free(st);
		return err_out("%s", err);
	}
	if (json) {
		/* The whole start position, hidden cards included: the seed
		 * is revealed, so nothing in it is secret any more. */
		d->ops->export_json(st, &b);
		printf("%s\n", buf_str(&b));
		buf_free(&b);
		free(st);
		return 0;
	}
	rng_commitment(seed, commit);
	printf("%s, seed SHA-256 %s\n", d->title, commit);
	memset(&v, 0, sizeof(v));
	for (seat = 0; seat < d->seats; seat++) {
		v.viewer = seat;
		buf_reset(&b);
		d->ops->render(st, &v, &b);
		printf("\n== seat %d, %s ==\n%s", seat + 1,
		    d->ops->seat_name(st, seat), buf_str(&b));
	}
	buf_free(&b);
	free(st);
	return 0;
}

/* What follows a position, for `ludus robot`: "next SEAT" or "over DRAW
 * WINNERS TEXT". */
static void
robot_status(const struct game_ops *ops, const void *st)
{
	struct game_result res;
	uint32_t tm;
	int seat;

	ops->result(st, &res);
	if (res.over)
		printf("over %d %u %s\n", res.draw, (unsigned)res.winners,
		    res.text);
	else {
		tm = ops->to_move(st);
		for (seat = 0; !(tm & (1u << seat)); seat++)
			;
		printf("next %d\n", seat);
	}
}

/* A "SEAT NOTATION" line played on st.  0, or -1 with err filled. */
static int
robot_read_move(const struct game_ops *ops, void *st, int nseats,
    const char *line, char *err, size_t errlen)
{
	struct game_move mv;
	long long seat;
	char *sp;

	seat = strtoll(line, &sp, 10);
	if (sp == line || *sp != ' ' || seat < 0 || seat >= nseats) {
		snprintf(err, errlen, "not SEAT NOTATION");
		return -1;
	}
	if (ops->parse_move(st, (int)seat, sp + 1, &mv, err, errlen) == -1)
		return -1;
	ops->apply(st, (int)seat, &mv);
	return 0;
}

/* The robot's move for the first seat to move, printed and played. */
static int
robot_play(const struct game_ops *ops, void *st,
    const unsigned char seed[RNG_SEED_LEN], int nmoves, int level, long ms,
    long nodes)
{
	static struct game_move moves[GAME_MAX_MOVES];
	struct game_move mv;
	struct cardbot_budget cb;
	struct rng r;
	char err[GAME_ERRLEN], text[GAME_MOVE_TEXT], label[32];
	uint32_t tm = ops->to_move(st);
	int seat, k;

	for (seat = 0; !(tm & (1u << seat)); seat++)
		;
	snprintf(label, sizeof(label), "robot/%d", nmoves);
	rng_init_sub(&r, seed, label);
	if (level == 0) {
		k = ops->legal(st, seat, moves, GAME_MAX_MOVES);
		mv = moves[rng_below(&r, (uint32_t)k)];
	} else if (cardbot_supports(ops)) {
		cb.iterations = nodes;
		cb.millis = ms;
		if (cardbot_choose(ops, st, seat, level, &cb, &r, &mv, err,
		    sizeof(err)) == -1)
			return err_out("%s", err);
	} else if ((nodes > 0 ? robot_choose_nodes(ops, st, seat, level, nodes,
	    &r, &mv, NULL, err, sizeof(err)) : robot_choose(ops, st, seat,
	    level, ms, &r, &mv, err, sizeof(err))) == -1)
		return err_out("%s", err);
	ops->format_move(st, seat, &mv, text, sizeof(text));
	printf("%d %s\n", seat, text);
	ops->apply(st, seat, &mv);
	return 0;
}

/* The first seat to move, or -1 once the game is over. */
static int
robot_first(const struct game_ops *ops, const void *st)
{
	uint32_t tm = ops->to_move(st);
	int seat;

	for (seat = 0; seat < GAME_MAX_SEATS; seat++)
		if (tm & (1u << seat))
			return seat;
	return -1;
}

/*
 * `new SEED [OPT=VAL ...]` of robot --serve: a new game in st, dealt from
 * the seed, with the command line's options and then the line's (a later
 * one wins).  0, or -1 with err filled and st as it was.
 */
static int
robot_new(const struct gamedef *d, char **cmdwords, int ncmd,
    const char *rest, long long *sv, unsigned char seed[RNG_SEED_LEN],
    void *st, char *err, size_t errlen)
{
	struct game_opts o;
	char *copy = xstrdup(rest), *w[GAME_MAX_OPTS + 1], **all;
	unsigned char s2[RNG_SEED_LEN];
	void *fresh = xcalloc(1, d->ops->state_size);
	long long v;
	int n, i, rc = -1;

	n = game_bot_words(copy, w, GAME_MAX_OPTS + 1);
	all = xcalloc((size_t)(ncmd + n + 1), sizeof(*all));
	for (i = 0; i < ncmd; i++)
		all[i] = cmdwords[i];
	for (i = 1; i < n; i++)
		all[ncmd + i - 1] = w[i];
	if (n < 1 || util_parse_int(w[0], 0, INT64_MAX, &v) == -1)
		util_err(err, errlen, "give a seed number, then any "
		    "OPTION=VALUE");
	else if (gamedef_resolve(d, all, ncmd + n - 1, &o, err,
	    errlen) == 0) {
		rng_seed_from_u64(s2, (uint64_t)v);
		if (d->ops->create(fresh, &o, s2, d->seats, err, errlen) == 0) {
			memcpy(st, fresh, d->ops->state_size);
			memcpy(seed, s2, RNG_SEED_LEN);
			*sv = v;
			rc = 0;
		}
	}
	free(all);
	free(fresh);
	free(copy);
	return rc;
}

/*
 * robot GAME [--level N] [--ms MS | --nodes N] [--seed N] [--status |
 * --serve] [OPT=VAL ...] < MOVES: the move a robot plays in the position
 * the moves (one a line, "SEAT NOTATION", seats from 0) reach from the
 * seed's start, for the first seat to move; the robot chooses as the
 * daemon's do (a card robot from its seat's view only).  Level 0 is a
 * uniformly random legal move.  Prints "SEAT NOTATION", then "next SEAT"
 * or "over DRAW WINNERS TEXT" for the position after it ("over" alone
 * when the game is already over), so that two builds can play each other
 * (bench/match.sh).  --status prints only that last line.  --serve keeps
 * one game and answers line by line (the protocol of ludus(1)): "new SEED
 * [OPT=VAL ...]" deals (the options over the command line's), "SEAT
 * NOTATION" plays a move, "go [LEVEL]" has the robot move (at another
 * level than --level's when given), "think MS" sets the time per move,
 * "side SEAT" (or "side none") names the seat the robot plays of its own
 * accord whenever it is to move; each answered by the status line, after
 * the robot's moves.
 */
static int
cmd_robot(struct ctx *c, int argc, char **argv)
{
	const struct gamedef *d;
	const struct game_ops *ops;
	struct game_opts o;
	unsigned char seed[RNG_SEED_LEN];
	char err[GAME_ERRLEN], line[512], **words;
	long long sv = 1, level = 3, ms = 0, nodes = 0;
	void *st;
	int i, nw = 0, nmoves = 0, rc = 1, status = 0, serve = 0, side = -1;

	if (argc < 1)
		return usage_of("robot");
	if ((d = gamedef_find(c->defs, c->ndefs, argv[0])) == NULL)
		return err_out("no game called `%s` (see `ludus games`)",
		    argv[0]);
	ops = d->ops;
	words = xcalloc((size_t)argc, sizeof(*words));
	for (i = 1; i < argc; i++) {
		long long *v = NULL, max = INT64_MAX;

		if (strcmp(argv[i], "--status") == 0) {
			status = 1;
			continue;
		}
		if (strcmp(argv[i], "--serve") == 0) {
			serve = 1;
			continue;
		}
		if (strcmp(argv[i], "--seed") == 0)
			v = &sv;
		else if (strcmp(argv[i], "--level") == 0) {
			v = &level;
			max = 3;
		} else if (strcmp(argv[i], "--ms") == 0)
			v = &ms;
		else if (strcmp(argv[i], "--nodes") == 0)
			v = &nodes;
		if (v == NULL)
			words[nw++] = argv[i];
		else if (i + 1 == argc ||
		    util_parse_int(argv[++i], 0, max, v) == -1) {
			free(words);
			return usage_of("robot");
		}
	}
	if (gamedef_resolve(d, words, nw, &o, err, sizeof(err)) == -1) {
		free(words);
		return err_out("%s", err);
	}
	rng_seed_from_u64(seed, (uint64_t)sv);
	st = xcalloc(1, ops->state_size);
	if (ops->create(st, &o, seed, d->seats, err, sizeof(err)) == -1) {
		err_out("%s", err);
		goto out;
	}
	while (fgets(line, sizeof(line), stdin) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0')
			continue;
		if (serve && strncmp(line, "new ", 4) == 0) {
			if (robot_new(d, words, nw, line + 4, &sv, seed, st,
			    err, sizeof(err)) == -1) {
				err_out("new: %s", err);
				goto out;
			}
			nmoves = 0;
		} else if (serve && strncmp(line, "think ", 6) == 0) {
			if (util_parse_int(line + 6, 1, 3600000, &ms) == -1) {
				err_out("think takes milliseconds, 1-3600000");
				goto out;
			}
			nodes = 0;
		} else if (serve && strncmp(line, "side ", 5) == 0) {
			long long sd;

			if (strcmp(line + 5, "none") == 0)
				side = -1;
			else if (util_parse_int(line + 5, 0, d->seats - 1,
			    &sd) == 0)
				side = (int)sd;
			else {
				err_out("side takes a seat 0-%d or none",
				    d->seats - 1);
				goto out;
			}
		} else if (serve && (strcmp(line, "go") == 0 ||
		    strncmp(line, "go ", 3) == 0)) {
			long long lv = level;

			if (line[2] == ' ' && util_parse_int(line + 3, 0, 3,
			    &lv) == -1) {
				err_out("go takes a level 0-3");
				goto out;
			}
			if (ops->to_move(st) == 0) {
				err_out("go: the game is over");
				goto out;
			}
			if (robot_play(ops, st, seed, nmoves, (int)lv, ms,
			    nodes) != 0)
				goto out;
			nmoves++;
		} else if (robot_read_move(ops, st, d->seats, line, err,
		    sizeof(err)) == -1) {
			err_out("move %d (`%s`): %s", nmoves + 1,
			    strchr(line, ' ') ? strchr(line, ' ') + 1 : line,
			    err);
			goto out;
		} else
			nmoves++;
		if (serve) {
			/* The robot's own seat plays as long as it is to
			 * move (Mancala's extra turns). */
			while (side >= 0 && robot_first(ops, st) == side) {
				if (robot_play(ops, st, seed, nmoves,
				    (int)level, ms, nodes) != 0)
					goto out;
				nmoves++;
			}
			robot_status(ops, st);
			fflush(stdout);
		}
	}
	if (!serve) {
		if (!status && ops->to_move(st) != 0 &&
		    robot_play(ops, st, seed, nmoves, (int)level, ms,
		    nodes) != 0)
			goto out;
		robot_status(ops, st);
	}
	rc = 0;
out:
	free(st);
	free(words);
	return rc;
}

static size_t
stdin_cap(const struct config *cfg)
{
	/* Read a little past the limit so the parser itself can say the
	 * message is too big. */
	return (size_t)cfg->limits.message_size + 65536;
}

static int
open_referee(struct ctx *c, struct referee *ref)
{
	char err[512], *path = secret_path(c);
	int rc;

	rc = referee_open(ref, c->store, &c->cfg, c->defs, c->ndefs,
	    gamedef_default_dir(), path, err, sizeof(err));
	free(path);
	if (rc == -1)
		err_out("%s", err);
	return rc;
}

/* Times a message is handed in again because its game moved on while a
 * robot thought, before the robots think inline instead. */
#define DELIVER_ROUNDS	20

/*
 * One message through the referee with the robots apart: when a robot is
 * to move, its moves are thought here with no transaction open (so other
 * deliveries are not held up by the write lock), then the message is
 * handed in again and the moves applied in its own transaction.
 */
static enum intake_status
deliver_one(struct referee *ref, struct store *store, const char *raw,
    size_t len, int64_t t, char **outcome)
{
	struct referee_plans plans = { 0 };
	struct referee_robot *j;
	enum intake_status st;
	int64_t wait = 0;
	int round;

	ref->robots_apart = 1;
	ref->plans = &plans;
	for (round = 0;; round++) {
		if (round == DELIVER_ROUNDS)
			ref->robots_apart = 0;
		st = intake_message(ref, raw, len, t, outcome);
		if (st != INTAKE_ROBOT)
			break;
		free(*outcome);
		*outcome = NULL;
		j = referee_robot_take(ref);
		/* Shown by `ludus outbox` while the robot thinks. */
		if (wait == 0 && store_robot_wait_add(store,
		    referee_robot_game(j), (int)getpid(), t, 1, &wait) == -1)
			wait = 0;
		referee_robot_think(j);
		referee_plans_add(&plans, j);
	}
	ref->plans = NULL;
	referee_plans_free(&plans);
	if (wait != 0)
		(void)store_robot_wait_del(store, wait);
	return st;
}

static int
cmd_deliver(struct ctx *c, int argc, char **argv)
{
	struct referee ref;
	enum intake_status st;
	char *raw, *outcome;
	size_t len;
	int too_big;

	(void)argv;
	if (argc != 0)
		return usage_of("deliver");
	raw = util_read_stream(stdin, stdin_cap(&c->cfg), &len, &too_big);
	if (c->cfg.referee.address == NULL) {
		free(raw);
		err_out("referee.address is not set (give -c CONFIG)");
		return EXIT_TEMPFAIL;
	}
	if (open_referee(c, &ref) == -1) {
		free(raw);
		return EXIT_TEMPFAIL;
	}
	st = deliver_one(&ref, c->store, raw, len, now(), &outcome);
	/* Quarantined: recorded with its commands and the cause, never to
	 * be tried again; the MTA may forget it (no bounce to the sender). */
	if (st == INTAKE_QUARANTINE) {
		if (outcome)
			fprintf(stderr, "ludus: error: %s\n", outcome);
		free(outcome);
		outcome = NULL;
		st = INTAKE_DONE;
	}
	/* The MTA forgets the message at exit 0: the commit must last. */
	if (st == INTAKE_DONE && store_sync(c->store) == -1) {
		err_out("%s", store_errmsg(c->store));
		st = INTAKE_TEMPFAIL;
	}
	referee_close(&ref);
	free(raw);
	if (outcome)
		fprintf(stderr, "ludus: %s\n", outcome);
	free(outcome);
	return st == INTAKE_DONE ? 0 : EXIT_TEMPFAIL;
}

static int
cmd_tick(struct ctx *c, int argc, char **argv)
{
	struct referee ref;
	int n;

	(void)argv;
	if (argc != 0)
		return usage_of("tick");
	if (c->cfg.referee.address == NULL)
		return err_out("referee.address is not set (give -c CONFIG)");
	if (open_referee(c, &ref) == -1)
		return 1;
	n = referee_timers(&ref, now());
	referee_close(&ref);
	if (n == -1)
		return err_out("%s", store_errmsg(c->store));
	printf("%d timer%s fired\n", n, n == 1 ? "" : "s");
	return 0;
}

static int
cmd_parse(struct ctx *c, int argc, char **argv)
{
	struct mail_limits lim;
	struct mail_guard_cfg gc;
	struct mail_msg m;
	struct buf b = { 0 };
	const char *guard;
	char *raw, perr[256];
	size_t len;
	int too_big, rc;

	(void)argv;
	if (argc != 0)
		return usage_of("parse");
	raw = util_read_stream(stdin, stdin_cap(&c->cfg), &len, &too_big);
	memset(&lim, 0, sizeof(lim));
	lim.max_bytes = (size_t)c->cfg.limits.message_size;
	lim.max_lines = (int)c->cfg.limits.lines;
	lim.max_commands = (int)c->cfg.limits.commands;
	lim.tag = c->cfg.referee.tag;
	lim.referee = c->cfg.referee.address;
	memset(&m, 0, sizeof(m));
	rc = mail_parse(raw, len, &lim, &m, perr, sizeof(perr));
	memset(&gc, 0, sizeof(gc));
	gc.x_loop = c->cfg.referee.address;
	gc.referee = c->cfg.referee.address;
	gc.club_lists = (const char *const *)c->cfg.club.lists.v;
	gc.nclub_lists = c->cfg.club.lists.n;
	guard = mail_guard(&m, &gc);
	if (rc == -1)
		printf("unreadable: %s\n", perr);
	mail_describe(&m, guard, &b);
	fputs(buf_str(&b), stdout);
	buf_free(&b);
	mail_msg_free(&m);
	free(raw);
	return rc == -1 ? 1 : 0;
}

/* Text with CR LF line ends as LF, ending in one newline. */
static void
print_lf(const char *s)
{
	size_t len = strlen(s);

	for (; *s; s++)
		if (!(s[0] == '\r' && s[1] == '\n'))
			putchar(*s);
	if (len == 0 || s[-1] != '\n')
		putchar('\n');
}

static void
print_addrs(const char *name, const struct strv *v)
{
	int i;

	if (v->n == 0)
		return;
	printf("%s:", name);
	for (i = 0; i < v->n; i++)
		printf("%s %s", i ? "," : "", v->v[i]);
	printf("\n");
}

static const char *
mechanism_name(int enc)
{
	switch (enc) {
	case MAILMIME_MECHANISM_7BIT: return "7bit";
	case MAILMIME_MECHANISM_8BIT: return "8bit";
	case MAILMIME_MECHANISM_BINARY: return "binary";
	case MAILMIME_MECHANISM_QUOTED_PRINTABLE: return "quoted-printable";
	case MAILMIME_MECHANISM_BASE64: return "base64";
	default: return "other";
	}
}

/* Each leaf part's type and transfer encoding into parts ("text/plain
 * 7bit, text/html quoted-printable"), and the decoded text/html part into
 * *html (owned, NULL when there is none). */
static void
mime_leaves(struct mailmime *mm, struct buf *parts, char **html)
{
	struct mailmime_content *ct = mm->mm_content_type;
	clistiter *it;
	char *dec = NULL;
	size_t idx = 0, dlen = 0;
	int enc = MAILMIME_MECHANISM_7BIT;

	switch (mm->mm_type) {
	case MAILMIME_MULTIPLE:
		for (it = clist_begin(mm->mm_data.mm_multipart.mm_mp_list); it;
		    it = clist_next(it))
			mime_leaves(clist_content(it), parts, html);
		return;
	case MAILMIME_MESSAGE:
		if (mm->mm_data.mm_message.mm_msg_mime)
			mime_leaves(mm->mm_data.mm_message.mm_msg_mime, parts,
			    html);
		return;
	}
	if (mm->mm_mime_fields)
		for (it = clist_begin(mm->mm_mime_fields->fld_list); it;
		    it = clist_next(it)) {
			struct mailmime_field *f = clist_content(it);

			if (f->fld_type == MAILMIME_FIELD_TRANSFER_ENCODING)
				enc = f->fld_data.fld_encoding->enc_type;
		}
	buf_printf(parts, "%s%s/%s %s", parts->len ? ", " : "",
	    ct && ct->ct_type && ct->ct_type->tp_type ==
	    MAILMIME_TYPE_DISCRETE_TYPE && ct->ct_type->tp_data.tp_discrete_type->dt_type == MAILMIME_DISCRETE_TYPE_TEXT ? "text" : "other",
	    ct && ct->ct_subtype ? ct->ct_subtype : "?", mechanism_name(enc));
	if (*html == NULL && ct && ct->ct_subtype &&
	    strcasecmp(ct->ct_subtype, "html") == 0 &&
	    mailmime_part_parse(mm->mm_data.mm_single->dt_data.dt_text.dt_data,
	    mm->mm_data.mm_single->dt_data.dt_text.dt_length, &idx, enc, &dec,
	    &dlen) == MAILIMF_NO_ERROR) {
		*html = xstrndup(dec, dlen);
		mailmime_decoded_part_free(dec);
	}
}

/* The unfolded value of the first header line called name in a message's
 * header block (owned), or NULL: for the headers mail_parse does not keep. */
static char *
raw_header(const char *raw, const char *name)
{
	struct buf b = { 0 };
	size_t nlen = strlen(name);
	const char *p = raw, *e;
	char *v;

	while (*p != '\0' && *p != '\r' && *p != '\n') {
		if (util_strncaseeq(p, name, nlen) && p[nlen] == ':') {
			for (p += nlen + 1; *p == ' ' || *p == '\t'; p++)
				;
			for (;;) {
				e = p + strcspn(p, "\r\n");
				buf_add(&b, p, (size_t)(e - p));
				p = e + (*e == '\r' && e[1] == '\n' ? 2 :
				    *e != '\0');
				if (*p != ' ' && *p != '\t')
					break;
			}
			/* A value folded right after the colon starts blank. */
			v = xstrdup(buf_str(&b) + strspn(buf_str(&b), " \t"));
			buf_free(&b);
			return v;
		}
		p += strcspn(p, "\n");
		if (*p == '\n')
			p++;
	}
	return NULL;
}

/* One stored mail as a reader sees it: the headers that tell where it
 * goes and which thread it belongs to, decoded, then its text.  No Date,
 * no MIME framing: only what the referee decided. */
static void
print_mail(const struct ctx *c, const struct store_mail *row)
{
	struct mail_limits lim;
	struct mail_msg m;
	struct mailmime *mime = NULL;
	struct buf parts = { 0 };
	char perr[256], *html = NULL;
	size_t len = strlen(row->data), idx;
	char *unsub;
	int i, rc;

	memset(&lim, 0, sizeof(lim));
	lim.max_bytes = len + 1;
	lim.tag = c->cfg.referee.tag;
	memset(&m, 0, sizeof(m));
	rc = mail_parse(row->data, len, &lim, &m, perr, sizeof(perr));
	printf("=== mail %lld ===\n", (long long)row->id);
	print_addrs("To", &m.to);
	print_addrs("Cc", &m.cc);
	if (m.subject)
		printf("Subject: %s\n", m.subject);
	if (m.message_id)
		printf("Message-ID: <%s>\n", m.message_id);
	if (m.in_reply_to)
		printf("In-Reply-To: <%s>\n", m.in_reply_to);
	if (m.references.n) {
		printf("References:");
		for (i = 0; i < m.references.n; i++)
			printf(" <%s>", m.references.v[i]);
		printf("\n");
	}
	if (m.auto_submitted)
		printf("Auto-Submitted: %s\n", m.auto_submitted);
	if (m.reply_to)
		printf("Reply-To: %s\n", m.reply_to);
	if (m.list_id)
		printf("List-Id: %s\n", m.list_id);
	if ((unsub = raw_header(row->data, "List-Unsubscribe")) != NULL)
		printf("List-Unsubscribe: %s\n", unsub);
	free(unsub);
	/* Plain text is the rule; say when there is more (an HTML part). */
	if (m.content_type && strcmp(m.content_type, "text/plain") != 0)
		printf("Content-Type: %s\n", m.content_type);
	idx = 0;
	if (mailmime_parse(row->data, len, &idx, &mime) == MAILIMF_NO_ERROR) {
		mime_leaves(mime, &parts, &html);
		mailmime_free(mime);
		printf("Parts: %s\n", buf_str(&parts));
	}
	printf("\n");
	if (rc == -1)
		printf("(unreadable: %s)\n", perr);
	else
		print_lf(m.body ? m.body : "");
	if (html != NULL) {
		printf("--- text/html ---\n");
		print_lf(html);
	}
	free(html);
	buf_free(&parts);
	mail_msg_free(&m);
}

/* Every row, sent or not, in id order. */
static int
outbox_all(struct ctx *c)
{
	struct store_mail *rows;
	int64_t after = 0;
	int n, i;

	do {
		if (store_outbox_all(c->store, after, 100, &rows, &n) == -1)
			return err_out("%s", store_errmsg(c->store));
		for (i = 0; i < n; i++) {
			if (after != 0 || i != 0)
				printf("\n");
			print_mail(c, &rows[i]);
			after = rows[i].id;
		}
		store_mails_free(rows, n);
	} while (n > 0);
	return 0;
}

/* "2026-12-01 14:05 CET" in the operator's local time. */
static void
local_time(int64_t t, char *out, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (localtime_r(&tt, &tm) == NULL ||
	    strftime(out, len, "%Y-%m-%d %H:%M %Z", &tm) == 0)
		snprintf(out, len, "@%lld", (long long)t);
}

/*
 * Robots falling behind: the robot moves being waited for (ludusd's
 * parked messages, deliveries whose robot thinks), how many a worker
 * thinks and how long the oldest has waited since its message came.
 * Rows of processes that are gone are left out.  Nothing when none.
 */
static int
robot_waits(struct ctx *c)
{
	struct store_robot_wait *v;
	int i, n, live = 0, thinking = 0;
	int64_t oldest = 0, game = 0, t = now();

	if (store_robot_waits(c->store, &v, &n) == -1)
		return err_out("%s", store_errmsg(c->store));
	for (i = 0; i < n; i++) {
		if (kill(v[i].pid, 0) == -1 && errno == ESRCH)
			continue;
		if (live++ == 0) {
			oldest = t - v[i].since;
			game = v[i].game;
		}
		thinking += v[i].thinking != 0;
	}
	free(v);
	if (live > 0)
		printf("%d robot move%s waiting (%d thinking, %d for a worker), "
		    "the oldest for %lld s (game #%lld)\n", live, live == 1 ?
		    "" : "s", thinking, live - thinking, (long long)(oldest < 0 ?
		    0 : oldest), (long long)game);
	return 0;
}

static int
outbox_list(struct ctx *c)
{
	struct store_mail *rows;
	char queued[64], next[64];
	int waiting, sent, failed, n, i;

	if (store_outbox_counts(c->store, &waiting, &sent, &failed) == -1 ||
	    store_outbox_unsent(c->store, 1000, &rows, &n) == -1)
		return err_out("%s", store_errmsg(c->store));
	printf("%d waiting, %d sent, %d given up\n", waiting, sent, failed);
	if (robot_waits(c) == -1) {
		store_mails_free(rows, n);
		return 1;
	}
	for (i = 0; i < n; i++) {
		local_time(rows[i].created, queued, sizeof(queued));
		local_time(rows[i].next_try, next, sizeof(next));
		printf("%lld\t<%s>\tto %s\n", (long long)rows[i].id,
		    rows[i].message_id, rows[i].recipients);
		if (rows[i].failed != NULL)
			printf("\tqueued %s, given up after %d attempt%s: %s\n",
			    queued, rows[i].attempts, rows[i].attempts == 1 ?
			    "" : "s", rows[i].failed);
		else
			printf("\tqueued %s, %d attempt%s, %s%s%s%s\n",
			    queued, rows[i].attempts, rows[i].attempts == 1 ?
			    "" : "s", rows[i].next_try == STORE_OUTBOX_HELD ?
			    "held" : "next ", rows[i].next_try ==
			    STORE_OUTBOX_HELD ? "" : next, rows[i].last_error ?
			    ", last error: " : "", rows[i].last_error ?
			    rows[i].last_error : "");
	}
	store_mails_free(rows, n);
	return 0;
}

/* After mail was made due: the running daemon is told to send now (as
 * postqueue -f), else the operator how to. */
static void
wake_daemon(const struct ctx *c)
{
	long pid = store_lock_holder(c->dbpath);

	if (pid > 0 && kill((pid_t)pid, SIGUSR1) == 0)
		printf("ludusd (pid %ld) told to send now\n", pid);
	else
		printf("no ludusd runs on %s: `ludus flush` sends now\n",
		    c->dbpath);
}

/* outbox retry ID|all, delete ID|all, hold ID, release ID. */
static int
outbox_steer(struct ctx *c, const char *verb, const char *arg)
{
	long long id = 0;
	int changed, rc, all = strcmp(arg, "all") == 0;

	if (all && (strcmp(verb, "retry") == 0 || strcmp(verb, "delete") == 0))
		id = 0;
	else if (util_parse_int(arg, 1, INT64_MAX, &id) == -1)
		return usage_of("outbox");
	if (strcmp(verb, "retry") == 0)
		rc = store_outbox_requeue(c->store, id, now(), &changed);
	else if (strcmp(verb, "delete") == 0)
		rc = store_outbox_delete(c->store, id, &changed);
	else if (strcmp(verb, "hold") == 0 || strcmp(verb, "release") == 0)
		rc = store_outbox_hold(c->store, id, verb[0] == 'h', now(),
		    &changed);
	else
		return usage_of("outbox");
	if (rc == -1)
		return err_out("%s", store_errmsg(c->store));
	if (id != 0 && changed == 0)
		return err_out("no mail %lld %s in the outbox", id,
		    strcmp(verb, "release") == 0 ? "is held" : "waits");
	if (strcmp(verb, "retry") == 0)
		printf("%d mail%s due now\n", changed, changed == 1 ? "" : "s");
	else if (id == 0)
		printf("%d mail%s deleted\n", changed, changed == 1 ? "" : "s");
	else
		printf("mail %lld %s\n", id, verb[0] == 'd' ? "deleted" :
		    verb[0] == 'h' ? "held" : "released");
	/* What became due goes at once: the daemon's next look may be
	 * the end of a retry's backoff. */
	if (changed > 0 && (strcmp(verb, "retry") == 0 ||
	    strcmp(verb, "release") == 0)) {
		if (store_sync(c->store) == -1)
			return err_out("%s", store_errmsg(c->store));
		wake_daemon(c);
	}
	return 0;
}

static int
cmd_outbox(struct ctx *c, int argc, char **argv)
{
	if (argc == 1 && strcmp(argv[0], "--all") == 0)
		return outbox_all(c);
	if (argc == 2)
		return outbox_steer(c, argv[0], argv[1]);
	if (argc != 0)
		return usage_of("outbox");
	return outbox_list(c);
}

static int
cmd_flush(struct ctx *c, int argc, char **argv)
{
	struct outbox_stats st;
	struct outbox_unmarked unmarked;
	char err[512];
	int rc;

	(void)argv;
	if (argc != 0)
		return usage_of("flush");
	memset(&unmarked, 0, sizeof(unmarked));
	rc = outbox_flush(c->store, &c->cfg, &unmarked, now(), &st, err,
	    sizeof(err));
	outbox_unmarked_free(&unmarked);
	if (rc == -1)
		return err_out("%s", err);
	printf("%d sent, %d to retry, %d given up\n", st.sent, st.retry,
	    st.failed);
	return st.retry || st.failed ? 1 : 0;
}

static int
cmd_token(struct ctx *c, int argc, char **argv)
{
	struct play_game g;
	struct token_secret secret;
	char err[512], tok[TOKEN_LEN + 1], *path;
	long long v;
	int seat, rc;

	if (argc != 2)
		return usage_of("token");
	if (load_game(c, argv[0], &g) != 0)
		return 1;
	if (util_parse_int(argv[1], 0, INT_MAX, &v) == 0) {
		if (v >= g.row.nseats) {
			rc = err_out("game #%lld has seats 0-%d", (long long)
			    g.row.id, g.row.nseats - 1);
			play_free(&g);
			return rc;
		}
		seat = (int)v;
	} else if ((seat = play_seat(&g, argv[1])) == -1) {
		rc = err_out("%s does not play game #%lld", argv[1],
		    (long long)g.row.id);
		play_free(&g);
		return rc;
	}
	path = secret_path(c);
	rc = token_secret_load(path, &secret, err, sizeof(err));
	free(path);
	if (rc == -1) {
		play_free(&g);
		return err_out("%s", err);
	}
	token_make(&secret, g.row.id, seat, tok);
	OPENSSL_cleanse(&secret, sizeof(secret));
	printf("%s\n", tok);
	play_free(&g);
	return 0;
}

static int
cmd_site(struct ctx *c, int argc, char **argv)
{
	struct site_src src;
	char err[512];
	int pages;

	if (argc != 1)
		return usage_of("site");
	src.store = c->store;
	src.cfg = &c->cfg;
	src.defs = c->defs;
	src.ndefs = c->ndefs;
	if (site_write_all(&src, argv[0], &pages, err, sizeof(err)) == -1)
		return err_out("%s", err);
	printf("%d page%s written in %s\n", pages, pages == 1 ? "" : "s",
	    argv[0]);
	return 0;
}

/* inbound: the mail LMTP stored for the referee, and the messages set
 * aside after repeated temporary failures (retry ID puts one back). */
static int
cmd_inbound(struct ctx *c, int argc, char **argv)
{
	struct store_inbound *v;
	char when[32];
	long long id;
	int i, n, changed;

	if (argc == 2 && strcmp(argv[0], "retry") == 0) {
		if (util_parse_int(argv[1], 1, INT64_MAX, &id) == -1)
			return usage_of("inbound");
		if (store_inbound_requeue(c->store, id, &changed) == -1 ||
		    store_sync(c->store) == -1)
			return err_out("%s", store_errmsg(c->store));
		if (changed == 0)
			return err_out("no message %lld is set aside", id);
		printf("message %lld waits again\n", id);
		wake_daemon(c);
		return 0;
	}
	if (argc != 0)
		return usage_of("inbound");
	if (store_inbound_list(c->store, &v, &n) == -1)
		return err_out("%s", store_errmsg(c->store));
	for (i = 0; i < n; i++) {
		time_t t = (time_t)v[i].arrived;
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ",
		    gmtime_r(&t, &tm));
		printf("%lld %s %s %zu bytes, %s, %d attempt%s%s%s\n",
		    (long long)v[i].id, when, v[i].route, v[i].len,
		    v[i].dead ? "set aside" : "waiting", v[i].attempts,
		    v[i].attempts == 1 ? "" : "s", v[i].cause ? ": " : "",
		    v[i].cause ? v[i].cause : "");
	}
	if (n == 0)
		printf("no mail waits\n");
	store_inbound_free(v, n);
	return 0;
}

static int cmd_help(struct ctx *, int, char **);

static const struct cmd cmds[] = {
	{ "init", "", "create the database (or migrate it) and exit",
	    cmd_init, 1 },
	{ "games", "", "list the game kinds and their options", cmd_games, 0 },
	{ "new", "[--quiet] GAME [OPT=VAL ...] [--seed N] ADDRESS|robot[:N] ...",
	    "start a game between the addresses (the first named is seat 1)",
	    cmd_new, 1 },
	{ "list", "", "list the games", cmd_list, 1 },
	{ "show", "ID [--as ADDRESS]",
	    "the board, as ADDRESS sees it or as an observer does", cmd_show,
	    1 },
	{ "moves", "ID [--as ADDRESS]",
	    "legal moves, one per line (of the seat to move without --as)",
	    cmd_moves, 1 },
	{ "move", "[--quiet] ID ADDRESS MOVE ...", "play a move (or a line "
	    "of moves) for a player as their mail would, the seats told "
	    "(--quiet: no mail)", cmd_move, 1 },
	{ "history", "ID [--as ADDRESS]",
	    "the move record (as ADDRESS may read it)", cmd_history, 1 },
	{ "export", "ID", "the game as JSON, hidden cards included",
	    cmd_export, 1 },
	{ "replay", "ID",
	    "re-derive the state from seed and move log and compare",
	    cmd_replay, 1 },
	{ "perft", "GAME DEPTH [--seed N] [OPT=VAL ...]",
	    "count the leaves of the move tree to each depth", cmd_perft, 0 },
	{ "deal", "GAME SEED [OPT=VAL ...] [--json]",
	    "the start of a game from a revealed seed, as each seat saw it",
	    cmd_deal, 0 },
	{ "robot", "GAME [--level N] [--ms MS|--nodes N] [--seed N] "
	    "[--status|--serve] [OPT=VAL ...] < MOVES",
	    "the move a robot plays after the moves on standard input\n"
	    "           (\"SEAT NOTATION\" lines) from the seed's start",
	    cmd_robot, 0 },
	{ "deliver", "< MESSAGE",
	    "take one message from standard input through the referee",
	    cmd_deliver, 1 },
	{ "parse", "< MESSAGE",
	    "show how a message is read: sender, tag, guards, commands",
	    cmd_parse, 0 },
	{ "verify", "ID [SEED [SHA256]]", "check a finished game's revealed "
	    "seed against its published commitment and replay it", cmd_verify,
	    1 },
	{ "tick", "", "fire the timers that are due (invitations that lapse, "
	    "reports still open)", cmd_tick, 1 },
	{ "outbox", "[--all | retry ID|all | delete ID|all | hold ID | "
	    "release ID]",
	    "what waits to be sent or was given up, with local times and the "
	    "last error;\n           --all: every mail written, decoded; retry: "
	    "due now (a given-up mail\n           is queued again), and the "
	    "running ludusd told to send it; delete:\n           drop mail not "
	    "sent; hold: never due until released",
	    cmd_outbox, 1 },
	{ "flush", "", "send what is due now", cmd_flush, 1 },
	{ "inbound", "[retry ID]", "the mail received by LMTP that waits for "
	    "the referee, and the messages set aside after repeated "
	    "temporary failures; retry puts one back in line",
	    cmd_inbound, 1 },
	{ "stats", "[--openmetrics]", "messages taken by outcome, the queue "
	    "and its oldest mail's age, send\n           failures, robot "
	    "backlog, games being played, the last IMAP contact\n           "
	    "(--openmetrics: as ludusd's metrics socket serves them)",
	    cmd_stats, 1 },
	{ "config", "[-n | KEY ...]", "the settings in effect, as YAML that "
	    "ludusd reads back (passwords\n           only by where they come "
	    "from); -n: those the file gives; KEY: a setting\n           or a "
	    "section, as KEY: VALUE lines",
	    cmd_config, 0 },
	{ "prune", "", "delete what the retention settings no longer keep, as "
	    "ludusd does daily", cmd_prune, 1 },
	{ "backup", "FILE", "a consistent copy of the database (safe while "
	    "ludusd runs),\n           and of the secret as FILE.secret",
	    cmd_backup, 1 },
	{ "restore", "FILE", "put a backup (FILE and FILE.secret) in place "
	    "of the database and the\n           secret, ludusd stopped; the "
	    "replaced files are kept aside", cmd_restore, 0 },
	{ "site", "DIR", "the club's public pages (games, ladders, players) as "
	    "static HTML into DIR", cmd_site, 1 },
	{ "token", "ID SEAT|ADDRESS",
	    "the reply token of a seat (numbered from 0) of a game",
	    cmd_token, 1 },
	{ "help", "[COMMAND]", "this summary, or one command's", cmd_help, 0 },
};

static const struct cmd *
find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < nitems(cmds); i++)
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	return NULL;
}

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: ludus [-c CONFIG] [-d DATABASE] COMMAND [ARGS]\n\n"
	    "  -c CONFIG    the configuration (default %s when it exists)\n"
	    "  -d DATABASE  the SQLite database (default $LUDUS_DB, else the "
	    "configuration's,\n               else ./ludus.db)\n"
	    "  -V           the version (and whether this is a test build)\n\n"
	    "commands:\n", config_default_path());
	for (i = 0; i < nitems(cmds); i++)
		fprintf(f, "  %-8s %s\n           %s\n", cmds[i].name,
		    cmds[i].args, cmds[i].help);
}

static void
version(void)
{
	printf("ludus %s\n", LUDUS_VERSION);
#ifdef LUDUS_TEST_CLOCK
	/* The golden tests need this build and look for the line. */
	printf("test build: $LUDUS_NOW and $LUDUS_SEED are honoured\n");
#endif
}

static int
cmd_help(struct ctx *c, int argc, char **argv)
{
	const struct cmd *cmd;

	(void)c;
	if (argc == 0) {
		usage(stdout);
		return 0;
	}
	if ((cmd = find_cmd(argv[0])) == NULL)
		return err_out("no command `%s`", argv[0]);
	printf("usage: ludus [-c CONFIG] [-d DATABASE] %s %s\n  %s\n",
	    cmd->name, cmd->args, cmd->help);
	return 0;
}

int
main(int argc, char **argv)
{
	struct ctx c = { 0 };
	const struct cmd *cmd;
	const char *dbfrom;	/* where dbpath came from, for errors */
	char err[512];
	int ch, rc, i;
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "database", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};

	/*
	 * Before anything else from libcrypto: this program only hashes,
	 * makes MACs and draws random bytes through the objects and fetches
	 * it names (EVP_sha256(), EVP_chacha20()...), and never looks a
	 * cipher or digest up by name, so it needs neither openssl.cnf nor
	 * the tables of every algorithm's names, whose building was most of
	 * what a delivery spent in libcrypto.  Nor does it print
	 * libcrypto's error texts, or need its memory freed at exit.
	 */
	OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG |
	    OPENSSL_INIT_NO_ADD_ALL_CIPHERS | OPENSSL_INIT_NO_ADD_ALL_DIGESTS |
	    OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS | OPENSSL_INIT_NO_ATEXIT, NULL);
	c.dbpath = getenv("LUDUS_DB");
	if (c.dbpath != NULL && *c.dbpath == '\0')
		c.dbpath = NULL;
	dbfrom = "$LUDUS_DB";
	/* "+": stop at the command; its own options follow it. */
	while ((ch = getopt_long(argc, argv, "+c:d:hV", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'c':
			c.config_path = optarg;
			break;
		case 'd':
			c.dbpath = optarg;
			dbfrom = "-d";
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			version();
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((cmd = find_cmd(argv[0])) == NULL) {
		fprintf(stderr, "ludus: no command `%s`\n", argv[0]);
		usage(stderr);
		return EXIT_USAGE;
	}
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") ==
		    0) {
			printf("usage: ludus [-c CONFIG] [-d DATABASE] %s "
			    "%s\n  %s\n", cmd->name, cmd->args, cmd->help);
			return 0;
		}
	/* The default configuration when it is there, readable or not: one
	 * this user may not read is said so, not passed over for a stray
	 * ./ludus.db. */
	if (c.config_path == NULL && access(config_default_path(), F_OK) == 0)
		c.config_path = config_default_path();
	if (c.config_path != NULL) {
		char *pw;

		if (config_load(c.config_path, &c.cfg, err, sizeof(err)) ==
		    -1) {
			config_free(&c.cfg);
			err_out("%s", err);
			return cmd->fn == cmd_deliver ? EXIT_TEMPFAIL : 1;
		}
		if (c.dbpath == NULL) {
			c.dbpath = c.cfg.database;
			dbfrom = c.config_path;
		}
		if (config_db_password(&c.cfg, &pw, err, sizeof(err)) == -1) {
			config_free(&c.cfg);
			err_out("%s", err);
			return cmd->fn == cmd_deliver ? EXIT_TEMPFAIL : 1;
		}
		store_set_password(pw);
		config_password_free(pw);
		if (c.cfg.games_dir != NULL && getenv("LUDUS_GAMES_DIR") ==
		    NULL)
			setenv("LUDUS_GAMES_DIR", c.cfg.games_dir, 1);
	} else
		config_defaults(&c.cfg);
	if (c.dbpath == NULL) {
		c.dbpath = "ludus.db";
		dbfrom = "the default without a configuration";
	}
	if (cmd->fn != cmd_help && load_defs(&c) != 0) {
		config_free(&c.cfg);
		return cmd->fn == cmd_deliver ? EXIT_TEMPFAIL : 1;
	}
	/* Only init makes a database: anything else on a path where there is
	 * none would report on an empty one it just invented. */
	if (cmd->needs_store && cmd->fn != cmd_init &&
	    !store_is_server(c.dbpath) && access(c.dbpath, F_OK) == -1) {
		/* Before config_free: the path may be the configuration's. */
		err_out("no database at %s (from %s): `ludus init` creates one; "
		    "-d, $LUDUS_DB or -c name another", c.dbpath, dbfrom);
		gamedef_free_all(c.defs, c.ndefs);
		config_free(&c.cfg);
		return cmd->fn == cmd_deliver ? EXIT_TEMPFAIL : 1;
	}
	if (cmd->needs_store && store_open(c.dbpath, &c.store, err,
	    sizeof(err)) == -1) {
		gamedef_free_all(c.defs, c.ndefs);
		config_free(&c.cfg);
		err_out("%s", err);
		return cmd->fn == cmd_deliver ? EXIT_TEMPFAIL : 1;
	}
	rc = cmd->fn(&c, argc - 1, argv + 1);
	/* What a command committed lasts before it says it is done. */
	if (c.store != NULL && store_sync(c.store) == -1) {
		err_out("%s", store_errmsg(c.store));
		rc = rc ? rc : 1;
	}
	store_close(c.store);
	gamedef_free_all(c.defs, c.ndefs);
	config_free(&c.cfg);
	return rc;
}
