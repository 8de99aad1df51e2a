/*
 * db-pg: the store's PostgreSQL driver (db.h), through libpq.
 *
 * The target is a libpq connection string or URI, multi-host ones
 * included (host=a,b target_session_attrs=read-write: libpq tries each
 * host and keeps the one that takes writes).  A password comes from the
 * configuration's credential (store_set_password), never from the
 * string that is logged.
 *
 * Each write transaction runs SERIALIZABLE, the isolation the referee
 * assumes from SQLite's single writer.  A serialization failure or a
 * deadlock (SQLSTATE 40001, 40P01) is a conflict (db.h): the store fails
 * the transaction and its caller tries the whole message again.
 *
 * The store's `?` placeholders become $1, $2, ... once, at prepare; a
 * statement kept is prepared on the server at its first run, when the
 * types of its parameters are known (int8, float8, bytea; text is left
 * for the server to infer from where it is used).  Results come as text.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "db.h"
#include "util.h"

/* Type OIDs (pg_type.dat; stable across versions). */
#define PG_BOOL		16
#define PG_BYTEA	17
#define PG_INT8		20
#define PG_FLOAT8	701

struct pg {
	struct db	 db;
	PGconn		*conn;
	unsigned	 nstmts;	/* names given to statements so far */
	int		 changes;
	int		 conflict;
	char		 err[512];
};

struct pg_stmt {
	struct db_stmt	 st;
	char		*sql;		/* the store's text, with ? */
	char		*pgsql;		/* with $n */
	char		 name[24];	/* "" when not kept */
	int		 prepared;
	int		 nparams;
	char		**values;
	int		*lengths;
	int		*formats;
	Oid		*types;
	PGresult	*res;
	int		 row;		/* the row step gave, -1 before */
	unsigned char	*blob;		/* the last column_blob's bytes */
};

#define PG(d)	((struct pg *)(d))
#define PS(s)	((struct pg_stmt *)(s))

/* The first line of a libpq message, kept. */
static void
pg_seterr(struct pg *p, const char *msg)
{
	size_t n;

	snprintf(p->err, sizeof(p->err), "%s", msg && *msg ? msg :
	    "PostgreSQL failed");
	n = strcspn(p->err, "\n");
	p->err[n] = '\0';
}

/* A result's failure: its message, and whether it was a conflict. */
static int
pg_fail(struct pg *p, PGresult *res)
{
	const char *state = res ? PQresultErrorField(res,
	    PG_DIAG_SQLSTATE) : NULL;

	p->conflict = state != NULL && (strcmp(state, "40001") == 0 ||
	    strcmp(state, "40P01") == 0);
	pg_seterr(p, res && *PQresultErrorMessage(res) ?
	    PQresultErrorMessage(res) : PQerrorMessage(p->conn));
	return -1;
}

static void
pg_quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static void pg_close(struct db *);

static int
pg_open(const char *target, const char *password, int readonly,
    struct db **out, char *err, size_t errlen)
{
	const char *keys[] = { "dbname", "password", "application_name",
		"connect_timeout", NULL };
	const char *vals[] = { target, password, "ludus", "10", NULL };
	struct pg *p;

	(void)readonly;
	/* No password: the slot ends the list (libpq's own sources then:
	 * ~/.pgpass, PGPASSWORD, peer or certificate). */
	if (password == NULL) {
		keys[1] = "application_name";
		vals[1] = "ludus";
		keys[2] = "connect_timeout";
		vals[2] = "10";
		keys[3] = NULL;
		vals[3] = NULL;
	}
	p = xcalloc(1, sizeof(*p));
	p->db.drv = &db_pg;
	p->conn = PQconnectdbParams(keys, vals, 1);
	if (p->conn == NULL || PQstatus(p->conn) != CONNECTION_OK) {
		pg_seterr(p, p->conn ? PQerrorMessage(p->conn) : "out of "
		    "memory");
		util_err(err, errlen, "PostgreSQL database: %s", p->err);
		pg_close(&p->db);
		return -1;
	}
	PQsetNoticeProcessor(p->conn, pg_quiet, NULL);
	*out = &p->db;
	return 0;
}

static void
pg_close(struct db *d)
{
	struct pg *p = PG(d);

	if (p == NULL)
		return;
	PQfinish(p->conn);
	free(p);
}

static int
pg_exec(struct db *d, const char *sql)
{
	struct pg *p = PG(d);
	PGresult *res = PQexec(p->conn, sql);
	ExecStatusType st = PQresultStatus(res);
	int rc = 0;

	p->conflict = 0;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		rc = pg_fail(p, res);
	PQclear(res);
	return rc;
}

static int
pg_begin(struct db *d)
{
	return pg_exec(d, "BEGIN ISOLATION LEVEL SERIALIZABLE");
}

static int
pg_in_transaction(struct db *d)
{
	return PQtransactionStatus(PG(d)->conn) != PQTRANS_IDLE;
}

/* The store's SQL with ? as $1, $2, ... (not inside quotes); *n the
 * count. */
static char *
pg_numbered(const char *sql, int *n)
{
	struct buf b = { 0 };
	char quote = 0;

	*n = 0;
	for (; *sql; sql++) {
		if (quote) {
			if (*sql == quote)
				quote = 0;
			buf_addc(&b, *sql);
		} else if (*sql == '\'' || *sql == '"') {
			quote = *sql;
			buf_addc(&b, *sql);
		} else if (*sql == '?')
			buf_printf(&b, "$%d", ++*n);
		else
			buf_addc(&b, *sql);
	}
	buf_adds(&b, "");
	return buf_steal(&b);
}

static struct db_stmt *
pg_prepare(struct db *d, const char *sql, int keep)
{
	struct pg *p = PG(d);
	struct pg_stmt *s = xcalloc(1, sizeof(*s));

	s->st.db = d;
	s->sql = xstrdup(sql);
	s->pgsql = pg_numbered(sql, &s->nparams);
	if (keep)
		snprintf(s->name, sizeof(s->name), "ludus%u", ++p->nstmts);
	if (s->nparams > 0) {
		s->values = xcalloc((size_t)s->nparams, sizeof(*s->values));
		s->lengths = xcalloc((size_t)s->nparams, sizeof(*s->lengths));
		s->formats = xcalloc((size_t)s->nparams, sizeof(*s->formats));
		s->types = xcalloc((size_t)s->nparams, sizeof(*s->types));
	}
	s->row = -1;
	return &s->st;
}

static void
pg_reset(struct db_stmt *st)
{
	struct pg_stmt *s = PS(st);
	int i;

	PQclear(s->res);
	s->res = NULL;
	s->row = -1;
	if (s->blob != NULL)
		PQfreemem(s->blob);
	s->blob = NULL;
	for (i = 0; i < s->nparams; i++) {
		free(s->values[i]);
		s->values[i] = NULL;
	}
}

static void
pg_finalize(struct db_stmt *st)
{
	struct pg_stmt *s = PS(st);

	if (s == NULL)
		return;
	pg_reset(st);
	/* A kept statement lives as long as the connection. */
	free(s->values);
	free(s->lengths);
	free(s->formats);
	free(s->types);
	free(s->sql);
	free(s->pgsql);
	free(s);
}

static int
pg_nparams(struct db_stmt *st)
{
	return PS(st)->nparams;
}

static const char *
pg_sql(struct db_stmt *st)
{
	return PS(st)->sql;
}

static int
pg_set(struct db_stmt *st, int i, char *v, int len, int format, Oid type)
{
	struct pg_stmt *s = PS(st);

	if (i < 1 || i > s->nparams) {
		free(v);
		pg_seterr(PG(st->db), "bind: no such parameter");
		return -1;
	}
	free(s->values[i - 1]);
	s->values[i - 1] = v;
	s->lengths[i - 1] = len;
	s->formats[i - 1] = format;
	/* A statement's parameter types are fixed at its preparation. */
	if (!s->prepared)
		s->types[i - 1] = type;
	return 0;
}

static int
pg_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	return pg_set(st, i, xasprintf("%" PRId64, v), 0, 0, PG_INT8);
}

static int
pg_bind_double(struct db_stmt *st, int i, double v)
{
	return pg_set(st, i, xasprintf("%.17g", v), 0, 0, PG_FLOAT8);
}

static int
pg_bind_text(struct db_stmt *st, int i, const char *v)
{
	return pg_set(st, i, v ? xstrdup(v) : NULL, 0, 0, 0);
}

static int
pg_bind_blob(struct db_stmt *st, int i, const void *v, int len)
{
	char *c = xmalloc(len > 0 ? (size_t)len : 1);

	if (len > 0)
		memcpy(c, v, (size_t)len);
	return pg_set(st, i, c, len, 1, PG_BYTEA);
}

/* Run the statement with its parameters: the result in s->res. */
static int
pg_run(struct pg_stmt *s)
{
	struct pg *p = PG(s->st.db);
	const char *const *vals = (const char *const *)s->values;
	ExecStatusType est;
	PGresult *res;

	p->conflict = 0;
	if (s->name[0] != '\0' && !s->prepared) {
		res = PQprepare(p->conn, s->name, s->pgsql, s->nparams,
		    s->types);
		if (PQresultStatus(res) != PGRES_COMMAND_OK) {
			pg_fail(p, res);
			PQclear(res);
			return -1;
		}
		PQclear(res);
		s->prepared = 1;
	}
	if (s->prepared)
		res = PQexecPrepared(p->conn, s->name, s->nparams, vals,
		    s->lengths, s->formats, 0);
	else
		res = PQexecParams(p->conn, s->pgsql, s->nparams, s->types,
		    vals, s->lengths, s->formats, 0);
	est = PQresultStatus(res);
	if (est != PGRES_COMMAND_OK && est != PGRES_TUPLES_OK) {
		pg_fail(p, res);
		PQclear(res);
		return -1;
	}
	p->changes = atoi(PQcmdTuples(res));
	s->res = res;
	return 0;
}

static int
pg_step(struct db_stmt *st)
{
	struct pg_stmt *s = PS(st);

	if (s->blob != NULL)
		PQfreemem(s->blob);
	s->blob = NULL;
	if (s->res == NULL && pg_run(s) == -1)
		return DB_ERROR;
	if (s->row + 1 < PQntuples(s->res)) {
		s->row++;
		return DB_ROW;
	}
	s->row = PQntuples(s->res);
	return DB_DONE;
}

static int
pg_column_null(struct db_stmt *st, int i)
{
	struct pg_stmt *s = PS(st);

	return s->res == NULL || s->row < 0 || s->row >= PQntuples(s->res) ||
	    i >= PQnfields(s->res) || PQgetisnull(s->res, s->row, i);
}

static int64_t
pg_column_int64(struct db_stmt *st, int i)
{
	struct pg_stmt *s = PS(st);
	const char *v;

	if (pg_column_null(st, i))
		return 0;
	v = PQgetvalue(s->res, s->row, i);
	/* A comparison's value is a boolean (SQLite's 1 and 0). */
	if (PQftype(s->res, i) == PG_BOOL)
		return *v == 't';
	return strtoll(v, NULL, 10);
}

static double
pg_column_double(struct db_stmt *st, int i)
{
	struct pg_stmt *s = PS(st);

	if (pg_column_null(st, i))
		return 0;
	return strtod(PQgetvalue(s->res, s->row, i), NULL);
}

static const char *
pg_column_text(struct db_stmt *st, int i)
{
	struct pg_stmt *s = PS(st);

	if (pg_column_null(st, i))
		return NULL;
	return PQgetvalue(s->res, s->row, i);
}

static const void *
pg_column_blob(struct db_stmt *st, int i, int *len)
{
	struct pg_stmt *s = PS(st);
	size_t n = 0;

	*len = 0;
	if (pg_column_null(st, i))
		return NULL;
	if (PQftype(s->res, i) != PG_BYTEA) {
		*len = PQgetlength(s->res, s->row, i);
		return PQgetvalue(s->res, s->row, i);
	}
	if (s->blob != NULL)
		PQfreemem(s->blob);
	s->blob = PQunescapeBytea((const unsigned char *)PQgetvalue(s->res,
	    s->row, i), &n);
	*len = s->blob != NULL && n <= INT32_MAX ? (int)n : 0;
	return s->blob;
}

static int
pg_changes(struct db *d)
{
	return PG(d)->changes;
}

static const char *
pg_errmsg(struct db *d)
{
	return PG(d)->err;
}

static int
pg_conflict(struct db *d)
{
	return PG(d)->conflict;
}

static int
pg_sync(struct db *d)
{
	/* A commit the server answered is on its disk (and its synchronous
	 * standby's, when it has one). */
	(void)d;
	return 0;
}

/* One number a query gives (-1: failed, 0 when it gives no row). */
static int64_t
pg_number(struct pg *p, const char *sql, int *ok)
{
	PGresult *res = PQexec(p->conn, sql);
	int64_t v = 0;

	*ok = PQresultStatus(res) == PGRES_TUPLES_OK;
	if (!*ok)
		pg_fail(p, res);
	else if (PQntuples(res) > 0 && !PQgetisnull(res, 0, 0))
		v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return v;
}

/* The schema version lives in a table of its own (SQLite's is a pragma). */
static int
pg_version(struct db *d)
{
	struct pg *p = PG(d);
	int64_t v;
	int ok;

	v = pg_number(p, "SELECT count(*) FROM pg_catalog.pg_tables WHERE "
	    "schemaname = current_schema() AND tablename = 'ludus_schema'",
	    &ok);
	if (!ok)
		return -1;
	if (v == 0)
		return 0;
	v = pg_number(p, "SELECT max(version) FROM ludus_schema", &ok);
	return ok ? (int)v : -1;
}

static int
pg_set_version(struct db *d, int v)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "CREATE TABLE IF NOT EXISTS ludus_schema "
	    "(version BIGINT NOT NULL); DELETE FROM ludus_schema; INSERT INTO "
	    "ludus_schema (version) VALUES (%d)", v);
	return pg_exec(d, sql);
}

const struct db_driver db_pg = {
	.name = "PostgreSQL",
	.dialect = DB_PG,
	.open = pg_open,
	.close = pg_close,
	.exec = pg_exec,
	.begin = pg_begin,
	.in_transaction = pg_in_transaction,
	.prepare = pg_prepare,
	.reset = pg_reset,
	.finalize = pg_finalize,
	.nparams = pg_nparams,
	.sql = pg_sql,
	.bind_int64 = pg_bind_int64,
	.bind_double = pg_bind_double,
	.bind_text = pg_bind_text,
	.bind_blob = pg_bind_blob,
	.step = pg_step,
	.column_null = pg_column_null,
	.column_int64 = pg_column_int64,
	.column_double = pg_column_double,
	.column_text = pg_column_text,
	.column_blob = pg_column_blob,
	.changes = pg_changes,
	.errmsg = pg_errmsg,
	.conflict = pg_conflict,
	.sync = pg_sync,
	.version = pg_version,
	.set_version = pg_set_version,
};
