/*
 * db: the database drivers under the store.  The store's SQL is written
 * once, in the subset SQLite and PostgreSQL both speak (`?` placeholders,
 * ON CONFLICT, RETURNING, IS DISTINCT FROM, coalesce); a driver runs it on
 * its engine.  One file per engine (db-sqlite.c, db-pg.c), chosen by the
 * database's name as OpenSMTPD chooses its queue backend:
 *
 *   /path, sqlite:///path          SQLite (db-sqlite.c)
 *   postgresql://..., postgres://... PostgreSQL through libpq (db-pg.c)
 *
 * Only store*.c includes this: nothing above the store knows which engine
 * runs.  What cannot be written once (the schema's types, the schema
 * version's home, the file operations of a database that is one file) is
 * the driver's.
 */
#ifndef LUDUS_DB_H
#define LUDUS_DB_H

#include <stddef.h>
#include <stdint.h>

/* step's answers. */
#define DB_ROW		1
#define DB_DONE		0
#define DB_ERROR	(-1)

/* The dialects a migration is written in (struct store_migration). */
enum db_dialect {
	DB_SQLITE,
	DB_PG,
	DB_NDIALECTS
};

struct db_driver;

/* Each driver's connection and statement begin with these. */
struct db {
	const struct db_driver *drv;
};
struct db_stmt {
	struct db *db;
};

struct db_driver {
	const char	*name;		/* in errors: "SQLite", "PostgreSQL" */
	enum db_dialect	 dialect;

	/* target: a file path (SQLite) or a libpq connection string;
	 * password: NULL, or the one libpq is given (never logged).  The
	 * database made when missing (SQLite's file, 0600).  -1 with err. */
	int	 (*open)(const char *target, const char *password, int readonly,
		    struct db **, char *err, size_t errlen);
	void	 (*close)(struct db *);
	/* Statements without parameters or rows, several at once. */
	int	 (*exec)(struct db *, const char *sql);
	/* A write transaction: SQLite's BEGIN IMMEDIATE, PostgreSQL's
	 * SERIALIZABLE. */
	int	 (*begin)(struct db *);
	int	 (*in_transaction)(struct db *);
	/* keep: the statement is used again (a hint). */
	struct db_stmt *(*prepare)(struct db *, const char *sql, int keep);
	void	 (*reset)(struct db_stmt *);	/* for the next use */
	void	 (*finalize)(struct db_stmt *);
	int	 (*nparams)(struct db_stmt *);
	const char *(*sql)(struct db_stmt *);
	/* Parameters from 1; text NULL binds NULL.  0, or -1. */
	int	 (*bind_int64)(struct db_stmt *, int, int64_t);
	int	 (*bind_double)(struct db_stmt *, int, double);
	int	 (*bind_text)(struct db_stmt *, int, const char *);
	int	 (*bind_blob)(struct db_stmt *, int, const void *, int);
	int	 (*step)(struct db_stmt *);
	/* Columns from 0 of the row step gave.  A NULL reads as 0 or NULL;
	 * text and blobs are valid until the next step or reset. */
	int	 (*column_null)(struct db_stmt *, int);
	int64_t	 (*column_int64)(struct db_stmt *, int);
	double	 (*column_double)(struct db_stmt *, int);
	const char *(*column_text)(struct db_stmt *, int);
	const void *(*column_blob)(struct db_stmt *, int, int *len);
	/* Rows the last INSERT, UPDATE or DELETE changed. */
	int	 (*changes)(struct db *);
	const char *(*errmsg)(struct db *);
	/* The last failure was a conflict with another writer (SQLite busy,
	 * PostgreSQL's serialization failure or deadlock): the whole
	 * transaction may be tried again. */
	int	 (*conflict)(struct db *);
	/* Make every commit so far durable; 0 where commits already are. */
	int	 (*sync)(struct db *);
	/* The schema version (0: none yet), -1 on error; set inside the
	 * migration's transaction. */
	int	 (*version)(struct db *);
	int	 (*set_version)(struct db *, int);

	/* What only a database in one file has; NULL elsewhere. */
	int	 (*backup)(struct db *, const char *path, char *err,
		    size_t errlen);
	int	 (*check)(const char *target, int maxversion, int *version,
		    char *err, size_t errlen);
	int	 (*restore)(const char *path, const char *from,
		    const char *aside, int maxversion, int *version, char *err,
		    size_t errlen);
	/* Test builds: every table's rows as text; a database file's rows
	 * copied over this one's. */
	char	*(*test_dump)(struct db *);
	int	 (*test_restore)(struct db *, const char *path);
};

extern const struct db_driver db_sqlite;
#ifdef HAVE_LIBPQ
extern const struct db_driver db_pg;
#endif

/* The driver for a database's name and the target it is given (within
 * name); NULL with err when the name asks for an engine this build lacks
 * or none. */
const struct db_driver *db_driver_for(const char *name, const char **target,
	    char *err, size_t errlen);

#endif
