/*
 * db-sqlite: the store's SQLite driver (db.h).
 *
 * journal_mode=WAL so readers never block the writer.  synchronous=NORMAL:
 * a commit survives the process at once and a power cut once the WAL is
 * synced, which sync does for everything committed so far.  Callers
 * sync before they let a message go from where it came (out of the inbox,
 * or exit 0 to the MTA): one sync for a batch of messages instead of one
 * per transaction.  What commits without a sync (a "sent" mark, a timer
 * fired) can at worst happen again after a power cut: a mail resent with
 * its own Message-ID.
 *
 * The WAL file stays between processes (no delete on close, its size
 * capped by journal_size_limit), so a short-lived `ludus deliver` does not
 * create it.  But the first connection to open the database rebuilds the
 * WAL's index by reading every frame in it, and SQLite's own checkpoint
 * at 1,000 frames never lets the WAL start over when each process makes
 * one commit (the next process's rebuild forgets the checkpoint): so a
 * connection that closes with more than SQ_CLOSE_FRAMES frames in the
 * WAL checkpoints them and truncates it, when nobody else is using it.
 * A delivery's one durable sync is the WAL's: the VFS here opens an
 * existing WAL without O_CREAT, so SQLite does not also fsync the
 * directory in every process (see sq_vfs).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db.h"
#include "log.h"
#include "util.h"

/* The WAL's size kept after a checkpoint (bytes). */
#define SQ_WAL_LIMIT	4194304
/* SQLite's page cache per connection (KiB): the database's hot pages
 * (players, games, the outbox's index) fit; SQLite's default is 2000. */
#define SQ_CACHE_KB	512
/* SQLite's automatic checkpoint, kept by our WAL hook (frames). */
#define SQ_CKPT_FRAMES	1000
/* A connection that closes with more frames than this in the WAL (about
 * six deliveries of a move) checkpoints and truncates it: the next first
 * opener reads at most this many frames (about 1.5 us each). */
#define SQ_CLOSE_FRAMES	128
#define STRINGIFY_(x)	#x
#define STRINGIFY(x)	STRINGIFY_(x)

struct sq {
	struct db	 db;
	sqlite3		*h;
	FILE		*trace;		/* test builds: $LUDUS_SQL_TRACE */
	int		 wal_frames;	/* in the WAL after our last commit */
	int		 unsynced;	/* committed since the last sync */
	int		 rc;		/* the last failure's code */
	char		 err[512];
};

struct sq_stmt {
	struct db_stmt	 st;
	sqlite3_stmt	*h;
};

#define SQ(d)	((struct sq *)(d))
#define ST(s)	(((struct sq_stmt *)(s))->h)

static int
sq_fail(struct sq *q, int rc, const char *msg)
{
	q->rc = rc;
	snprintf(q->err, sizeof(q->err), "%s", msg ? msg :
	    sqlite3_errmsg(q->h));
	return -1;
}

#ifdef LUDUS_TEST_CLOCK
/*
 * Test builds: with $LUDUS_SQL_TRACE naming a file, the text of each
 * statement run (parameters as ?) is appended to it, one line each, for
 * tests/queryplan.sh to EXPLAIN.
 */
static int
sq_trace_cb(unsigned type, void *arg, void *p, void *x)
{
	FILE *f = arg;
	const char *sql = sqlite3_sql(p);

	(void)type;
	(void)x;
	if (sql != NULL) {
		for (; *sql; sql++)
			fputc(*sql == '\n' ? ' ' : *sql, f);
		fputs(";\n", f);
		fflush(f);
	}
	return 0;
}

static void
sq_trace(struct sq *q)
{
	const char *path = getenv("LUDUS_SQL_TRACE");

	if (path != NULL && *path != '\0' &&
	    (q->trace = fopen(path, "a")) != NULL)
		sqlite3_trace_v2(q->h, SQLITE_TRACE_STMT, sq_trace_cb,
		    q->trace);
}
#else
static void
sq_trace(struct sq *q)
{
	(void)q;
}
#endif

/* After each commit: remember what close and sync need, and checkpoint as
 * SQLite's own hook would. */
static int
sq_wal_hook(void *arg, sqlite3 *h, const char *name, int frames)
{
	struct sq *q = arg;

	q->wal_frames = frames;
	q->unsynced = 1;
	if (frames >= SQ_CKPT_FRAMES)
		sqlite3_wal_checkpoint(h, name);
	return SQLITE_OK;
}

/*
 * The default VFS but for one thing: a WAL that exists is opened without
 * O_CREAT.  SQLite always asks for the WAL with SQLITE_OPEN_CREATE, and a
 * unix file opened so fsyncs its directory at its first sync: every
 * process's commit would cost a second sync for a file made long ago.
 * The process that makes the WAL still syncs the directory (its open with
 * SQLITE_OPEN_CREATE is the one that succeeds).
 */
static sqlite3_vfs *real_vfs;

static int
wal_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags,
    int *outflags)
{
	sqlite3_vfs *real = real_vfs;

	(void)vfs;
	if ((flags & SQLITE_OPEN_WAL) && (flags & SQLITE_OPEN_CREATE) &&
	    name != NULL && real->xOpen(real, name, f, flags &
	    ~SQLITE_OPEN_CREATE, outflags) == SQLITE_OK)
		return SQLITE_OK;
	return real->xOpen(real, name, f, flags, outflags);
}

static sqlite3_vfs *
sq_vfs(void)
{
	static sqlite3_vfs vfs;
	sqlite3_vfs *real;

	if (vfs.zName != NULL)
		return &vfs;
	if ((real = sqlite3_vfs_find(NULL)) == NULL)
		return NULL;
	/* A copy of the default in all else, its pAppData included. */
	real_vfs = real;
	vfs = *real;
	vfs.pNext = NULL;
	vfs.zName = "ludus";
	vfs.xOpen = wal_open;
	if (sqlite3_vfs_register(&vfs, 0) != SQLITE_OK) {
		memset(&vfs, 0, sizeof(vfs));
		return NULL;
	}
	return &vfs;
}

static void sq_close(struct db *);

static int
sq_exec(struct db *d, const char *sql)
{
	struct sq *q = SQ(d);
	char *msg = NULL;
	int rc;

	if ((rc = sqlite3_exec(q->h, sql, NULL, NULL, &msg)) != SQLITE_OK) {
		sq_fail(q, rc, msg);
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int
sq_open(const char *path, const char *password, int readonly, struct db **out,
    char *err, size_t errlen)
{
	sqlite3_vfs *vfs;
	struct sq *q;
	int fd, keep = 1;

	(void)password;
	/* Create the file 0600 ourselves: SQLite would use the umask, and
	 * the database holds every hidden hand.  Its -wal and -shm files
	 * take the database file's mode. */
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	/* Nothing here reads SQLite's memory statistics: without them its
	 * allocations take no lock (before SQLite starts, else a no-op,
	 * like the next). */
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	/* No bulk of page-cache lines either (20 of them, 87 KB allocated
	 * and touched whole at the first read): each page is allocated
	 * when it is first read. */
	(void)sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	q = xcalloc(1, sizeof(*q));
	q->db.drv = &db_sqlite;
	vfs = sq_vfs();
	if (sqlite3_open_v2(path, &q->h, (readonly ? SQLITE_OPEN_READONLY :
	    SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX, vfs ? vfs->zName :
	    NULL) != SQLITE_OK) {
		util_err(err, errlen, "%s: %s", path, q->h ?
		    sqlite3_errmsg(q->h) : "cannot open");
		sq_close(&q->db);
		return -1;
	}
	sqlite3_busy_timeout(q->h, 10000);
	sq_trace(q);
	/* The WAL outlives the connection: no checkpoint, no delete, no new
	 * file at the next open (but see sq_close). */
	sqlite3_db_config(q->h, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_file_control(q->h, "main", SQLITE_FCNTL_PERSIST_WAL, &keep);
	sqlite3_wal_hook(q->h, sq_wal_hook, q);
	if (sq_exec(&q->db, "PRAGMA journal_mode = WAL;"
	    "PRAGMA synchronous = NORMAL;"
	    "PRAGMA journal_size_limit = " STRINGIFY(SQ_WAL_LIMIT) ";"
	    "PRAGMA cache_size = -" STRINGIFY(SQ_CACHE_KB) ";"
	    "PRAGMA foreign_keys = ON;"
	    /* Statement journals and sorts in memory, not in a temporary
	     * file made and unlinked per transaction. */
	    "PRAGMA temp_store = MEMORY;") == -1) {
		util_err(err, errlen, "%s: %s", path, q->err);
		sq_close(&q->db);
		return -1;
	}
	*out = &q->db;
	return 0;
}

static void
sq_close(struct db *d)
{
	struct sq *q = SQ(d);

	if (q == NULL)
		return;
	/* A long WAL costs the next first opener its rebuild: checkpoint
	 * and truncate it, unless another connection is using it (then it
	 * is that one's to checkpoint, and waiting for it here would hold
	 * up this process's exit). */
	if (q->h != NULL && q->wal_frames > SQ_CLOSE_FRAMES) {
		sqlite3_busy_timeout(q->h, 0);
		sqlite3_wal_checkpoint_v2(q->h, "main",
		    SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	}
	sqlite3_close(q->h);
	if (q->trace != NULL)
		fclose(q->trace);
	free(q);
}

static int
sq_begin(struct db *d)
{
	/* Take the write lock up front, so a busy database waits instead of
	 * failing half-way. */
	return sq_exec(d, "BEGIN IMMEDIATE");
}

static int
sq_in_transaction(struct db *d)
{
	return sqlite3_get_autocommit(SQ(d)->h) == 0;
}

static struct db_stmt *
sq_prepare(struct db *d, const char *sql, int keep)
{
	struct sq *q = SQ(d);
	struct sq_stmt *s;
	sqlite3_stmt *h = NULL;
	int rc;

	if ((rc = sqlite3_prepare_v3(q->h, sql, -1, keep ?
	    SQLITE_PREPARE_PERSISTENT : 0, &h, NULL)) != SQLITE_OK) {
		sq_fail(q, rc, NULL);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->st.db = d;
	s->h = h;
	return &s->st;
}

static void
sq_reset(struct db_stmt *s)
{
	sqlite3_reset(ST(s));
	sqlite3_clear_bindings(ST(s));
}

static void
sq_finalize(struct db_stmt *s)
{
	if (s == NULL)
		return;
	sqlite3_finalize(ST(s));
	free(s);
}

static int
sq_nparams(struct db_stmt *s)
{
	return sqlite3_bind_parameter_count(ST(s));
}

static const char *
sq_sql(struct db_stmt *s)
{
	return sqlite3_sql(ST(s));
}

static int
sq_bound(struct db_stmt *s, int rc)
{
	return rc == SQLITE_OK ? 0 : sq_fail(SQ(s->db), rc, NULL);
}

static int
sq_bind_int64(struct db_stmt *s, int i, int64_t v)
{
	return sq_bound(s, sqlite3_bind_int64(ST(s), i, v));
}

static int
sq_bind_double(struct db_stmt *s, int i, double v)
{
	return sq_bound(s, sqlite3_bind_double(ST(s), i, v));
}

static int
sq_bind_text(struct db_stmt *s, int i, const char *v)
{
	return sq_bound(s, sqlite3_bind_text(ST(s), i, v, -1,
	    SQLITE_TRANSIENT));
}

static int
sq_bind_blob(struct db_stmt *s, int i, const void *p, int len)
{
	return sq_bound(s, sqlite3_bind_blob(ST(s), i, p, len,
	    SQLITE_TRANSIENT));
}

static int
sq_step(struct db_stmt *s)
{
	int rc = sqlite3_step(ST(s));

	if (rc == SQLITE_ROW)
		return DB_ROW;
	if (rc == SQLITE_DONE)
		return DB_DONE;
	sq_fail(SQ(s->db), rc, NULL);
	return DB_ERROR;
}

static int
sq_column_null(struct db_stmt *s, int i)
{
	return sqlite3_column_type(ST(s), i) == SQLITE_NULL;
}

static int64_t
sq_column_int64(struct db_stmt *s, int i)
{
	return sqlite3_column_int64(ST(s), i);
}

static double
sq_column_double(struct db_stmt *s, int i)
{
	return sqlite3_column_double(ST(s), i);
}

static const char *
sq_column_text(struct db_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(ST(s), i);
}

static const void *
sq_column_blob(struct db_stmt *s, int i, int *len)
{
	const void *p = sqlite3_column_blob(ST(s), i);

	*len = sqlite3_column_bytes(ST(s), i);
	return p;
}

static int
sq_changes(struct db *d)
{
	return sqlite3_changes(SQ(d)->h);
}

static const char *
sq_errmsg(struct db *d)
{
	return SQ(d)->err;
}

static int
sq_conflict(struct db *d)
{
	int rc = SQ(d)->rc & 0xff;

	return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

static int
sq_sync(struct db *d)
{
	struct sq *q = SQ(d);
	sqlite3_file *wal = NULL;

	if (!q->unsynced)
		return 0;
	/* In WAL mode the journal pointer is the WAL file. */
	if (sqlite3_file_control(q->h, "main", SQLITE_FCNTL_JOURNAL_POINTER,
	    &wal) != SQLITE_OK || wal == NULL || wal->pMethods == NULL)
		return 0;
	if (wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL) != SQLITE_OK)
		return sq_fail(q, SQLITE_IOERR, "sync of the WAL failed");
	q->unsynced = 0;
	return 0;
}

/* One text value of a pragma (NULL when it gives none). */
static char *
pragma_text(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st;
	char *v = NULL;

	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

static int
sq_version(struct db *d)
{
	struct sq *q = SQ(d);
	char *v;
	int n;

	if ((v = pragma_text(q->h, "PRAGMA user_version")) == NULL)
		return sq_fail(q, sqlite3_errcode(q->h), NULL);
	n = atoi(v);
	free(v);
	return n;
}

static int
sq_set_version(struct db *d, int v)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
	return sq_exec(d, sql);
}

static int
sq_backup(struct db *d, const char *path, char *err, size_t errlen)
{
	struct sq *q = SQ(d);
	sqlite3 *dst = NULL;
	sqlite3_backup *b;
	char *tmp = xasprintf("%s.tmp", path);
	int fd, rc;

	/* Into a new 0600 file beside the target, renamed over it when
	 * complete: a backup is never half written. */
	unlink(tmp);
	if ((fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1) {
		util_err(err, errlen, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	close(fd);
	if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		util_err(err, errlen, "%s: %s", tmp, dst ?
		    sqlite3_errmsg(dst) : "cannot open");
		goto fail;
	}
	/* One step copies every page under one read transaction: a
	 * consistent snapshot while the daemon goes on writing (WAL). */
	if ((b = sqlite3_backup_init(dst, "main", q->h, "main")) == NULL) {
		util_err(err, errlen, "backup: %s", sqlite3_errmsg(dst));
		goto fail;
	}
	while ((rc = sqlite3_backup_step(b, -1)) == SQLITE_BUSY ||
	    rc == SQLITE_LOCKED)
		sqlite3_sleep(100);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		util_err(err, errlen, "backup: %s", sqlite3_errstr(rc));
		goto fail;
	}
	if (sqlite3_close(dst) != SQLITE_OK) {
		dst = NULL;
		util_err(err, errlen, "%s: cannot close", tmp);
		goto fail;
	}
	dst = NULL;
	if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) == -1 || fsync(fd) == -1) {
		util_err(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd != -1)
			close(fd);
		goto fail;
	}
	close(fd);
	if (rename(tmp, path) == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	sqlite3_close(dst);
	unlink(tmp);
	free(tmp);
	return -1;
}

/* A plain connection to an existing database, for the checks below (no
 * migration, no creation). */
static int
check_open(const char *path, sqlite3 **h, char *err, size_t errlen)
{
	if (sqlite3_open_v2(path, h, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		util_err(err, errlen, "%s: %s", path, *h ?
		    sqlite3_errmsg(*h) : "cannot open");
		sqlite3_close(*h);
		*h = NULL;
		return -1;
	}
	sqlite3_busy_timeout(*h, 10000);
	return 0;
}

/* An open database's version and soundness: 0, or -1 with err. */
static int
check_db(sqlite3 *h, const char *path, const char *integrity, int maxversion,
    int *version, char *err, size_t errlen)
{
	char *v, *ok;

	if ((v = pragma_text(h, "PRAGMA user_version")) == NULL) {
		util_err(err, errlen, "%s: %s", path, sqlite3_errmsg(h));
		return -1;
	}
	*version = atoi(v);
	free(v);
	if (*version > maxversion) {
		util_err(err, errlen, "%s: schema version %d, newer than this "
		    "ludus understands (%d)", path, *version, maxversion);
		return -1;
	}
	ok = pragma_text(h, integrity);
	if (ok == NULL || strcmp(ok, "ok") != 0) {
		util_err(err, errlen, "%s: damaged (%s: %s)", path, integrity,
		    ok ? ok : sqlite3_errmsg(h));
		free(ok);
		return -1;
	}
	free(ok);
	return 0;
}

static int
sq_check(const char *path, int maxversion, int *version, char *err,
    size_t errlen)
{
	sqlite3 *h;
	int rc;

	if (access(path, R_OK | W_OK) == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (check_open(path, &h, err, errlen) == -1)
		return -1;
	rc = check_db(h, path, "PRAGMA quick_check", maxversion, version, err,
	    errlen);
	sqlite3_close(h);
	return rc;
}

/* Copy the bytes of from into a new 0600 file to, synced. */
static int
copy_file(const char *from, const char *to, char *err, size_t errlen)
{
	char chunk[65536];
	ssize_t n = 0;
	int in, out, rc = -1;

	if ((in = open(from, O_RDONLY | O_CLOEXEC)) == -1) {
		util_err(err, errlen, "%s: %s", from, strerror(errno));
		return -1;
	}
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1) {
		util_err(err, errlen, "%s: %s", to, strerror(errno));
		close(in);
		return -1;
	}
	while ((n = read(in, chunk, sizeof(chunk))) > 0)
		if (write(out, chunk, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n == 0 && fsync(out) == 0)
		rc = 0;
	if (close(out) == -1)
		rc = -1;
	close(in);
	if (rc == -1)
		util_err(err, errlen, "%s: %s", to, strerror(errno));
	return rc;
}

/* Remove path's -wal, -shm and -journal (none of them may be needed). */
static void
unlink_companions(const char *path)
{
	static const char *const sfx[] = { "-wal", "-shm", "-journal" };
	size_t i;
	char *f;

	for (i = 0; i < nitems(sfx); i++) {
		f = xasprintf("%s%s", path, sfx[i]);
		unlink(f);
		free(f);
	}
}

static int
sq_restore(const char *path, const char *from, const char *aside,
    int maxversion, int *version, char *err, size_t errlen)
{
	char *tmp = xasprintf("%s.restoring", path), *a, *f;
	struct stat old;
	sqlite3 *h = NULL;
	int have_old, rc = -1;

	have_old = stat(path, &old) == 0;
	unlink(tmp);
	unlink_companions(tmp);
	/* The backup is checked in its copy, beside the database: what is
	 * checked is what is put in place, and a WAL beside the backup is
	 * never read. */
	if (copy_file(from, tmp, err, errlen) == -1)
		goto out;
	if (check_open(tmp, &h, err, errlen) == -1)
		goto out;
	if (check_db(h, from, "PRAGMA integrity_check", maxversion, version,
	    err, errlen) == -1)
		goto out;
	if (*version == 0) {
		util_err(err, errlen, "%s: not a ludus database", from);
		goto out;
	}
	if (sqlite3_close(h) != SQLITE_OK) {
		util_err(err, errlen, "%s: cannot close", tmp);
		goto out;
	}
	h = NULL;
	unlink_companions(tmp);
	/* Root restores for the daemon's user: the files stay its own. */
	if (have_old && geteuid() == 0 && chown(tmp, old.st_uid, old.st_gid) ==
	    -1) {
		util_err(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	/* The replaced database goes aside with its WAL, a pair that opens
	 * as it was; its -shm is only an index of that WAL. */
	if (have_old) {
		f = xasprintf("%s-wal", path);
		a = xasprintf("%s.%s-wal", path, aside);
		if (rename(f, a) == -1 && errno != ENOENT) {
			util_err(err, errlen, "%s: %s", a, strerror(errno));
			free(f);
			free(a);
			goto out;
		}
		free(f);
		free(a);
		a = xasprintf("%s.%s", path, aside);
		if (rename(path, a) == -1) {
			util_err(err, errlen, "%s: %s", a, strerror(errno));
			free(a);
			goto out;
		}
		free(a);
	}
	unlink_companions(path);
	if (rename(tmp, path) == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	sqlite3_close(h);
	if (rc == -1) {
		unlink(tmp);
		unlink_companions(tmp);
	}
	free(tmp);
	return rc;
}

#ifdef LUDUS_TEST_CLOCK
static void
dump_table(sqlite3 *h, const char *name, struct buf *b)
{
	sqlite3_stmt *st;
	char *sql, hex[3];
	int i, k, n, len;

	buf_printf(b, "table %s\n", name);
	sql = xasprintf("SELECT * FROM \"%s\" ORDER BY rowid", name);
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		fatal("store dump %s: %s", name, sqlite3_errmsg(h));
	free(sql);
	n = sqlite3_column_count(st);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (i = 0; i < n; i++) {
			buf_printf(b, "%s%s=", i ? "|" : "",
			    sqlite3_column_name(st, i));
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				buf_adds(b, "NULL");
				break;
			case SQLITE_BLOB: {
				const unsigned char *p =
				    sqlite3_column_blob(st, i);

				/* Blobs as hex, so a dump is text. */
				len = sqlite3_column_bytes(st, i);
				for (k = 0; k < len; k++) {
					snprintf(hex, sizeof(hex), "%02x",
					    p[k]);
					buf_adds(b, hex);
				}
				break;
			}
			default:
				buf_adds(b, (const char *)
				    sqlite3_column_text(st, i));
			}
		}
		buf_adds(b, "\n");
	}
	sqlite3_finalize(st);
}

static char *
sq_test_dump(struct db *d)
{
	sqlite3 *h = SQ(d)->h;
	struct buf b = { 0 };
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(h, "SELECT name FROM sqlite_schema WHERE "
	    "type = 'table' ORDER BY name", -1, &st, NULL) != SQLITE_OK)
		fatal("store dump: %s", sqlite3_errmsg(h));
	while (sqlite3_step(st) == SQLITE_ROW)
		dump_table(h, (const char *)sqlite3_column_text(st, 0), &b);
	sqlite3_finalize(st);
	buf_adds(&b, "");
	return buf_steal(&b);
}

static int
sq_test_restore(struct db *d, const char *path)
{
	sqlite3 *src;
	sqlite3_backup *bk;
	int rc;

	if (sqlite3_open_v2(path, &src, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK)
		return -1;
	bk = sqlite3_backup_init(SQ(d)->h, "main", src, "main");
	rc = bk != NULL && sqlite3_backup_step(bk, -1) == SQLITE_DONE ? 0 : -1;
	if (bk != NULL)
		sqlite3_backup_finish(bk);
	sqlite3_close(src);
	return rc;
}
#endif

const struct db_driver db_sqlite = {
	.name = "SQLite",
	.dialect = DB_SQLITE,
	.open = sq_open,
	.close = sq_close,
	.exec = sq_exec,
	.begin = sq_begin,
	.in_transaction = sq_in_transaction,
	.prepare = sq_prepare,
	.reset = sq_reset,
	.finalize = sq_finalize,
	.nparams = sq_nparams,
	.sql = sq_sql,
	.bind_int64 = sq_bind_int64,
	.bind_double = sq_bind_double,
	.bind_text = sq_bind_text,
	.bind_blob = sq_bind_blob,
	.step = sq_step,
	.column_null = sq_column_null,
	.column_int64 = sq_column_int64,
	.column_double = sq_column_double,
	.column_text = sq_column_text,
	.column_blob = sq_column_blob,
	.changes = sq_changes,
	.errmsg = sq_errmsg,
	.conflict = sq_conflict,
	.sync = sq_sync,
	.version = sq_version,
	.set_version = sq_set_version,
	.backup = sq_backup,
	.check = sq_check,
	.restore = sq_restore,
#ifdef LUDUS_TEST_CLOCK
	.test_dump = sq_test_dump,
	.test_restore = sq_test_restore,
#endif
};
