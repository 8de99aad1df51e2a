/* store: create, migrate, reopen, refuse newer, dedupe, outbox, timers,
 * the referee's tables (events, observers, thanks, reports, confirmations,
 * action counters, ratings, ladders);
 * play: create, move, replay on a database file on disk. */
#include "config.h"

#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "play.h"
#include "store.h"
#include "testutil.h"

/* A new database for a test: a file, or one on the PostgreSQL server of a
 * PostgreSQL run (tests/store-pg.sh). */
static char *
dbpath(const char *name)
{
	return tu_database(name);
}

static struct store *
open_ok(const char *path)
{
	struct store *s;
	char err[512];

	ck_assert_msg(store_open(path, &s, err, sizeof(err)) == 0, "%s", err);
	return s;
}

START_TEST(store_create_is_0600_wal_and_current)
{
	char *path = dbpath("create.db");
	struct store *s = open_ok(path);
	struct stat sb;
	sqlite3 *db;
	sqlite3_stmt *st;

	ck_assert_int_eq(store_schema_version(s), STORE_SCHEMA_VERSION);
	store_close(s);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st,
	    NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);
}
END_TEST

/* A game and its seat written with the SQL of schema 1, which later
 * migrations must keep. */
static void
old_game(const char *path, int64_t player)
{
	sqlite3 *db;
	char *sql;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	sql = xasprintf("INSERT INTO games (id, kind, options, seed, state, "
	    "status, nmoves, created, updated) VALUES (7, 'mancala', "
	    "'pits=6', zeroblob(32), 'old state', 'active', 3, 10, 20);"
	    "INSERT INTO seats (game_id, seat, player_id, accepted) VALUES "
	    "(7, 1, %lld, 1);", (long long)player);
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	free(sql);
	sqlite3_close(db);
}

/* The copy taken before a migration: schema version v and the game of
 * old_game, complete. */
static void
old_copy_ok(const char *path, int v)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	struct stat sb;

	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT (SELECT user_version "
	    "FROM pragma_user_version), (SELECT count(*) FROM games WHERE "
	    "state = 'old state'), (SELECT integrity_check FROM "
	    "pragma_integrity_check)", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), v);
	ck_assert_int_eq(sqlite3_column_int(st, 1), 1);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 2), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

START_TEST(store_migrates_from_every_earlier_version)
{
	struct store *s;
	struct store_game g;
	struct store_player p;
	struct store_event *ev;
	char err[512], *path, *bak;
	int64_t id = 0, id2 = 0;
	int v, n;

	for (v = 0; v < STORE_SCHEMA_VERSION; v++) {
		path = dbpath("migrate.db");
		ck_assert_int_eq(store_open_at(path, v, &s, err, sizeof(err)),
		    0);
		ck_assert_int_eq(store_schema_version(s), v);
		/* From version 1 on there are players and games: those made
		 * before the migration must survive it. */
		if (v >= 1)
			ck_assert_int_eq(store_player_id(s, "a@example.org",
			    1, 1, &id), 0);
		store_close(s);
		if (v >= 1)
			old_game(path, id);
		bak = xasprintf("%s.v%d.bak", path, v);
		unlink(bak);
		s = open_ok(path);
		ck_assert_int_eq(store_schema_version(s), STORE_SCHEMA_VERSION);
		/* A migrated database was copied first, as it was. */
		if (v >= 1)
			old_copy_ok(bak, v);
		else
			ck_assert_int_eq(access(bak, F_OK), -1);
		unlink(bak);
		/* The migrated schema works. */
		ck_assert_int_eq(store_player_id(s, "a@example.org", 1, 1,
		    &id2), 0);
		if (v >= 1)
			ck_assert_int_eq(id, id2);
		id = id2;
		ck_assert_int_eq(store_bounce_add(s, "a@example.org", 5,
		    "550 no such user"), 0);
		ck_assert_int_eq(store_player_load(s, id, &p), 0);
		ck_assert_str_eq(p.language, "en");
		ck_assert_str_eq(p.notify, "all");
		ck_assert_int_eq(p.vacation_start, 0);
		ck_assert_int_eq(p.vacation_until, 0);
		store_player_free(&p);
		if (v >= 1) {
			/* The old game reads with the referee's fields
			 * empty, and takes them. */
			ck_assert_int_eq(store_game_load(s, 7, &g), 0);
			ck_assert_str_eq(g.kind, "mancala");
			ck_assert_str_eq(g.state, "old state");
			ck_assert_int_eq(g.nmoves, 3);
			ck_assert_int_eq(g.nseats, 2);
			ck_assert_int_eq(g.player[1], id);
			ck_assert_int_eq(g.accepted[1], 1);
			ck_assert_ptr_null(g.clock);
			ck_assert_int_eq(g.rated, 0);
			ck_assert_int_eq(g.inviter, 0);
			ck_assert_int_eq(g.expires, 0);
			ck_assert_int_eq(g.deadline, 0);
			ck_assert_uint_eq(g.draw_offer, 0);
			ck_assert_ptr_null(g.ended);
			g.deadline = 500;
			g.draw_offer = 2;
			ck_assert_int_eq(store_game_update(s, &g), 0);
			store_game_free(&g);
			ck_assert_int_eq(store_event_add(s, 7, 3, id, "resign",
			    NULL, 30), 0);
		}
		store_close(s);
		/* Reopening keeps the data and migrates nothing. */
		s = open_ok(path);
		ck_assert_int_eq(access(bak, F_OK), -1);
		free(bak);
		ck_assert_int_eq(store_player_id(s, "a@example.org", 0, 1,
		    &id2), 0);
		ck_assert_int_eq(id, id2);
		if (v >= 1) {
			ck_assert_int_eq(store_game_load(s, 7, &g), 0);
			ck_assert_int_eq(g.deadline, 500);
			ck_assert_uint_eq(g.draw_offer, 2);
			store_game_free(&g);
			ck_assert_int_eq(store_events(s, 7, &ev, &n), 0);
			ck_assert_int_eq(n, 1);
			ck_assert_str_eq(ev[0].kind, "resign");
			store_events_free(ev, n);
		}
		store_close(s);
		free(path);
	}
}
END_TEST

START_TEST(store_refuses_newer_database)
{
	char *path = dbpath("newer.db"), err[512];
	struct store *s = open_ok(path);
	sqlite3 *db;

	store_close(s);
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA user_version = 99", NULL,
	    NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	ck_assert_int_eq(store_open(path, &s, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "schema version 99, newer than this ludus")
	    != NULL, "%s", err);
	free(path);
}
END_TEST

/* PostgreSQL: a database of a newer schema is refused by name. */
START_TEST(pg_refuses_newer_database)
{
	char *db = dbpath("newer"), err[512];
	struct store *s = open_ok(db);
	int version;

	store_close(s);
	ck_assert_int_eq(tu_psql(db, "UPDATE ludus_schema SET version = 99"),
	    0);
	ck_assert_int_eq(store_open(db, &s, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "schema version 99, newer than this ludus")
	    != NULL, "%s", err);
	ck_assert_int_eq(store_check(db, &version, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "schema version 99") != NULL, "%s", err);
	free(db);
}
END_TEST

/* PostgreSQL: a server that is not there, a string libpq cannot read and
 * a database that does not exist each fail with libpq's reason, and a
 * password in the string is never in the error. */
START_TEST(pg_bad_connection_named)
{
	char *db = dbpath("ok"), *other, err[512];
	struct store *s;
	int version;

	ck_assert_int_eq(store_open("postgresql:///x?host=/nonexistent&"
	    "password=hunter2", &s, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "PostgreSQL database:") != NULL &&
	    strstr(err, "/nonexistent") != NULL, "%s", err);
	ck_assert_msg(strstr(err, "hunter2") == NULL, "%s", err);
	ck_assert_int_eq(store_open("postgresql://[::1", &s, err,
	    sizeof(err)), -1);
	ck_assert_msg(strstr(err, "PostgreSQL database:") != NULL, "%s", err);
	other = xasprintf("postgresql:///nosuchdb?host=%s&port=%s&user=ludus",
	    getenv("PGHOST"), getenv("PGPORT"));
	ck_assert_int_eq(store_open(other, &s, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "nosuchdb") != NULL, "%s", err);
	/* ludusd -n: an empty database has no schema yet. */
	ck_assert_msg(store_check(db, &version, err, sizeof(err)) == 0, "%s",
	    err);
	ck_assert_int_eq(version, 0);
	s = open_ok(db);
	store_close(s);
	ck_assert_int_eq(store_check(db, &version, err, sizeof(err)), 0);
	ck_assert_int_eq(version, STORE_SCHEMA_VERSION);
	free(other);
	free(db);
}
END_TEST

/* PostgreSQL: two writers whose transactions each read what the other
 * writes cannot both commit under SERIALIZABLE.  The loser's failure is a
 * conflict (the caller tries the whole message again) and is counted. */
START_TEST(pg_conflict_is_temporary_and_counted)
{
	char *db = dbpath("conflict");
	struct store *a = open_ok(db), *b = open_ok(db);
	struct store_stats st;

	ck_assert_int_eq(store_begin(a), 0);
	ck_assert_int_eq(store_stats(a, &st), 0);
	ck_assert_int_eq(store_begin(b), 0);
	ck_assert_int_eq(store_stats(b, &st), 0);
	ck_assert_int_eq(store_counter_set(a, "x.a", 1), 0);
	ck_assert_int_eq(store_counter_set(b, "x.b", 1), 0);
	ck_assert_int_eq(store_commit(a), 0);
	ck_assert_int_eq(store_conflict(a), 0);
	ck_assert_int_eq(store_commit(b), -1);
	ck_assert_msg(store_conflict(b), "not a conflict: %s",
	    store_errmsg(b));
	store_rollback(b);
	ck_assert_int_eq(store_stats(a, &st), 0);
	ck_assert_int_eq(st.retries, 1);
	/* Tried again, the transaction goes through. */
	ck_assert_int_eq(store_begin(b), 0);
	ck_assert_int_eq(store_counter_set(b, "x.b", 1), 0);
	ck_assert_int_eq(store_commit(b), 0);
	ck_assert_int_eq(store_conflict(b), 0);
	store_close(a);
	store_close(b);
	free(db);
}
END_TEST

START_TEST(store_dedupe_key_unique)
{
	char *path = dbpath("dedupe.db");
	struct store *s = open_ok(path);

	ck_assert_int_eq(store_begin(s), 0);
	ck_assert_int_eq(store_message_seen(s, "<a@x>", 1, "ok"), 0);
	ck_assert_int_eq(store_message_seen(s, "<a@x>", 2, "ok"), 1);
	ck_assert_int_eq(store_message_seen(s, "<b@x>", 2, "ok"), 0);
	ck_assert_int_eq(store_commit(s), 0);
	store_close(s);
	/* Across a reopen, as after a crash and restart. */
	s = open_ok(path);
	ck_assert_int_eq(store_message_seen(s, "<a@x>", 3, "ok"), 1);
	/* A rolled-back transaction records nothing. */
	ck_assert_int_eq(store_begin(s), 0);
	ck_assert_int_eq(store_message_seen(s, "<c@x>", 3, "ok"), 0);
	store_rollback(s);
	ck_assert_int_eq(store_message_seen(s, "<c@x>", 4, "ok"), 0);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_inbound_queue_dedupe_order_and_dead_letters)
{
	char *path = dbpath("inbound.db");
	struct store *s = open_ok(path);
	struct store_inbound r, *v;
	static const char raw[] = "From: a@x\r\n\r\nhelp\0binary";
	int64_t waiting, dead;
	int dup, n, changed;

	ck_assert_int_eq(store_begin(s), 0);
	ck_assert_int_eq(store_inbound_add(s, "<1@x> a@x", "a@x", 10, raw,
	    sizeof(raw), &dup), 0);
	ck_assert_int_eq(dup, 0);
	ck_assert_int_eq(store_inbound_add(s, "<2@x> b@x", "game #4", 11,
	    "two", 3, &dup), 0);
	/* The same key again: kept once. */
	ck_assert_int_eq(store_inbound_add(s, "<1@x> a@x", "a@x", 12, "x", 1,
	    &dup), 0);
	ck_assert_int_eq(dup, 1);
	ck_assert_int_eq(store_commit(s), 0);
	store_close(s);

	/* Across a reopen: in arrival order, the bytes as they came. */
	s = open_ok(path);
	ck_assert_int_eq(store_inbound_next(s, 0, &r), 0);
	ck_assert_int_eq(r.len, sizeof(raw));
	ck_assert_int_eq(memcmp(r.raw, raw, sizeof(raw)), 0);
	ck_assert_str_eq(r.route, "a@x");
	ck_assert_int_eq(r.arrived, 10);
	ck_assert_int_eq(r.attempts, 0);
	int64_t first = r.id;
	store_inbound_clear(&r);
	ck_assert_int_eq(store_inbound_next(s, first, &r), 0);
	ck_assert_str_eq(r.route, "game #4");
	int64_t second = r.id;
	store_inbound_clear(&r);
	ck_assert_int_eq(store_inbound_next(s, second, &r), 1);

	/* A failure counts; a dead row is no longer waiting. */
	ck_assert_int_eq(store_inbound_retry(s, first, 50, 0, "busy"), 0);
	ck_assert_int_eq(store_inbound_next(s, 0, &r), 0);
	ck_assert_int_eq(r.attempts, 1);
	ck_assert_int_eq(r.next_try, 50);
	ck_assert_str_eq(r.cause, "busy");
	store_inbound_clear(&r);
	ck_assert_int_eq(store_inbound_retry(s, first, 90, 1, "gave up"), 0);
	ck_assert_int_eq(store_inbound_next(s, 0, &r), 0);
	ck_assert_int_eq(r.id, second);
	store_inbound_clear(&r);
	ck_assert_int_eq(store_inbound_counts(s, &waiting, &dead), 0);
	ck_assert_int_eq(waiting, 1);
	ck_assert_int_eq(dead, 1);
	ck_assert_int_eq(store_inbound_list(s, &v, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(v[0].dead, 1);
	ck_assert_int_eq(v[0].attempts, 2);
	ck_assert_ptr_null(v[0].raw);
	ck_assert_int_eq(v[1].dead, 0);
	store_inbound_free(v, n);

	/* Put back by the operator: waiting again, from zero. */
	ck_assert_int_eq(store_inbound_requeue(s, second, &changed), 0);
	ck_assert_int_eq(changed, 0);
	ck_assert_int_eq(store_inbound_requeue(s, first, &changed), 0);
	ck_assert_int_eq(changed, 1);
	ck_assert_int_eq(store_inbound_next(s, 0, &r), 0);
	ck_assert_int_eq(r.id, first);
	ck_assert_int_eq(r.attempts, 0);
	store_inbound_clear(&r);

	/* Done: gone; the key may come again (intake's own dedupe then
	 * knows it). */
	ck_assert_int_eq(store_inbound_done(s, first), 0);
	ck_assert_int_eq(store_inbound_done(s, second), 0);
	ck_assert_int_eq(store_inbound_next(s, 0, &r), 1);
	ck_assert_int_eq(store_inbound_add(s, "<1@x> a@x", "a@x", 20, "x", 1,
	    &dup), 0);
	ck_assert_int_eq(dup, 0);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_outbox_due_retry_sent_failed)
{
	char *path = dbpath("outbox.db");
	struct store *s = open_ok(path);
	struct store_mail m = { 0 }, *due;
	int n, w, sent, failed;

	m.message_id = "<1@ludus>";
	m.envelope_from = "referee@example.org";
	m.recipients = "a@example.org";
	m.data = "Subject: x\r\n\r\nhello\r\n";
	ck_assert_int_eq(store_outbox_add(s, &m, 100), 0);
	m.message_id = "<2@ludus>";
	ck_assert_int_eq(store_outbox_add(s, &m, 101), 0);
	/* A Message-ID is stable per row: adding it twice fails. */
	ck_assert_int_eq(store_outbox_add(s, &m, 102), -1);
	ck_assert_int_eq(store_outbox_due(s, 100, 10, &due, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(due[0].message_id, "<1@ludus>");
	ck_assert_str_eq(due[0].data, "Subject: x\r\n\r\nhello\r\n");
	ck_assert_int_eq(store_outbox_retry(s, due[0].id, 200, "421 busy"),
	    0);
	store_mails_free(due, n);
	ck_assert_int_eq(store_outbox_due(s, 150, 10, &due, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(due[0].message_id, "<2@ludus>");
	ck_assert_int_eq(store_outbox_sent(s, due[0].id, 150), 0);
	store_mails_free(due, n);
	ck_assert_int_eq(store_outbox_due(s, 300, 10, &due, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(due[0].attempts, 1);
	ck_assert_int_eq(store_outbox_failed(s, due[0].id, "550 no user"), 0);
	store_mails_free(due, n);
	ck_assert_int_eq(store_outbox_counts(s, &w, &sent, &failed), 0);
	ck_assert_int_eq(w, 0);
	ck_assert_int_eq(sent, 1);
	ck_assert_int_eq(failed, 1);
	store_close(s);
	free(path);
}
END_TEST

static const struct gamedef *mancala(void);

/* Each figure of `ludus stats` as the rows and counters say. */
START_TEST(store_stats_count_each_figure)
{
	char *path = dbpath("stats.db"), err[GAME_ERRLEN];
	struct store *s = open_ok(path);
	struct store_stats st;
	struct store_mail m = { 0 }, *due;
	struct play_game g;
	unsigned char seed[RNG_SEED_LEN];
	char *addrs[] = { "alice@example.org", "bob@example.org" };
	int64_t id;
	int i, n;

	ck_assert_int_eq(store_stats(s, &st), 0);
	for (i = 0; i < STORE_NOUTCOMES; i++)
		ck_assert_int_eq(st.messages[i], 0);
	ck_assert_int_eq(st.queue + st.queue_oldest + st.given_up +
	    st.send_failures + st.robot_backlog + st.games_active +
	    st.imap_contact, 0);

	/* Messages by outcome; one rolled back is not counted. */
	ck_assert_int_eq(store_counter_add(s, "messages.failed", 1), 0);
	ck_assert_int_eq(store_counter_add(s, "messages.failed", 1), 0);
	ck_assert_int_eq(store_counter_add(s, "messages.applied", 1), 0);
	ck_assert_int_eq(store_begin(s), 0);
	ck_assert_int_eq(store_counter_add(s, "messages.applied", 1), 0);
	store_rollback(s);
	ck_assert_int_eq(store_counter_set(s, "imap.contact", 500), 0);
	ck_assert_int_eq(store_counter_set(s, "imap.contact", 600), 0);

	/* The queue, its oldest, the failed attempts, the given up. */
	m.envelope_from = "referee@example.org";
	m.recipients = "a@example.org";
	m.data = "Subject: x\r\n\r\nhello\r\n";
	m.message_id = "<1@ludus>";
	ck_assert_int_eq(store_outbox_add(s, &m, 100), 0);
	m.message_id = "<2@ludus>";
	ck_assert_int_eq(store_outbox_add(s, &m, 130), 0);
	m.message_id = "<3@ludus>";
	ck_assert_int_eq(store_outbox_add(s, &m, 140), 0);
	ck_assert_int_eq(store_outbox_due(s, 200, 10, &due, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(store_outbox_retry(s, due[1].id, 300, "421"), 0);
	ck_assert_int_eq(store_outbox_retry(s, due[1].id, 400, "421"), 0);
	ck_assert_int_eq(store_outbox_failed(s, due[0].id, "550"), 0);
	ck_assert_int_eq(store_outbox_sent(s, due[2].id, 200), 0);
	store_mails_free(due, n);

	/* Robots waited for, games being played (not those invited). */
	ck_assert_int_eq(store_robot_wait_add(s, 1, 10, 100, 1, &id), 0);
	ck_assert_int_eq(store_robot_wait_add(s, 2, 10, 100, 0, &id), 0);
	rng_seed_from_u64(seed, 5);
	ck_assert_int_eq(store_begin(s), 0);
	ck_assert_msg(play_create(s, mancala(), NULL, 0, addrs, 2, seed,
	    "active", 10, &g, err, sizeof(err)) == 0, "%s", err);
	play_free(&g);
	ck_assert_msg(play_create(s, mancala(), NULL, 0, addrs, 2, seed,
	    "invited", 10, &g, err, sizeof(err)) == 0, "%s", err);
	play_free(&g);
	ck_assert_int_eq(store_commit(s), 0);

	ck_assert_int_eq(store_stats(s, &st), 0);
	ck_assert_str_eq(store_outcomes[0], "applied");
	ck_assert_int_eq(st.messages[0], 1);
	ck_assert_str_eq(store_outcomes[1], "failed");
	ck_assert_int_eq(st.messages[1], 2);
	ck_assert_int_eq(st.messages[2], 0);
	ck_assert_int_eq(st.imap_contact, 600);
	ck_assert_int_eq(st.queue, 1);
	ck_assert_int_eq(st.queue_oldest, 130);
	ck_assert_int_eq(st.send_failures, 3);
	ck_assert_int_eq(st.given_up, 1);
	ck_assert_int_eq(st.robot_backlog, 2);
	ck_assert_int_eq(st.games_active, 1);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_timers_in_due_order)
{
	char *path = dbpath("timers.db");
	struct store *s = open_ok(path);
	struct store_timer t = { 0 }, *due;
	int64_t next;
	int n;

	ck_assert_int_eq(store_timer_next(s, &next), 1);
	t.kind = "reminder";
	t.due = 300;
	ck_assert_int_eq(store_timer_add(s, &t, NULL), 0);
	t.kind = "timeout";
	t.due = 200;
	ck_assert_int_eq(store_timer_add(s, &t, NULL), 0);
	ck_assert_int_eq(store_timer_next(s, &next), 0);
	ck_assert_int_eq(next, 200);
	ck_assert_int_eq(store_timer_due(s, 1000, 10, &due, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(due[0].kind, "timeout");
	ck_assert_str_eq(due[1].kind, "reminder");
	ck_assert_int_eq(store_timer_delete(s, due[0].id), 0);
	store_timers_free(due, n);
	ck_assert_int_eq(store_timer_due(s, 250, 10, &due, &n), 0);
	ck_assert_int_eq(n, 0);
	store_timers_free(due, n);
	store_close(s);
	free(path);
}
END_TEST

static const struct gamedef *
mancala(void)
{
	return tu_def("mancala");
}

START_TEST(play_create_move_reload_replay)
{
	char *path = dbpath("play.db"), err[GAME_ERRLEN], *state;
	struct store *s = open_ok(path);
	struct play_game g, h;
	unsigned char seed[RNG_SEED_LEN];
	char *addrs[] = { "Alice@Example.ORG", "<bob@example.org>" };
	char *words[] = { "seeds=3" };

	rng_seed_from_u64(seed, 5);
	ck_assert_int_eq(store_begin(s), 0);
	ck_assert_msg(play_create(s, mancala(), words, 1, addrs, 2, seed,
	    "active", 10, &g, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(store_commit(s), 0);
	ck_assert_str_eq(g.address[0], "alice@example.org");
	ck_assert_str_eq(g.address[1], "bob@example.org");
	ck_assert_int_eq(play_seat(&g, "ALICE@example.org"), 0);
	ck_assert_int_eq(play_seat(&g, "carol@example.org"), -1);

	ck_assert_int_eq(store_begin(s), 0);
	/* Seeds=3: pit 4 ends in the store, so South plays again. */
	ck_assert_msg(play_line(s, &g, 0, "4, 1", 11, err, sizeof(err)) == 2,
	    "%s", err);
	ck_assert_int_eq(store_commit(s), 0);
	ck_assert_int_eq(store_begin(s), 0);
	ck_assert_int_eq(play_line(s, &g, 0, "2", 12, err, sizeof(err)), -1);
	store_rollback(s);
	ck_assert_int_eq(g.row.nmoves, 2);

	/* A fresh load sees the same game; replay reaches the same state. */
	ck_assert_int_eq(play_load(s, tu_def("mancala"), 1, g.row.id, &h, err,
	    sizeof(err)), 0);
	ck_assert_str_eq(h.row.state, g.row.state);
	ck_assert_str_eq(h.row.options, "pits=6 seeds=3 empty_capture=false");
	ck_assert_int_eq(h.row.nmoves, 2);
	ck_assert_int_eq(play_replay(s, &h, &state, err, sizeof(err)), 0);
	ck_assert_str_eq(state, h.row.state);
	free(state);
	play_free(&h);
	play_free(&g);
	ck_assert_int_eq(play_load(s, tu_def("mancala"), 1, 999, &h, err,
	    sizeof(err)), 1);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(play_create_rejects_bad_players_and_options)
{
	char *path = dbpath("bad.db"), err[GAME_ERRLEN];
	struct store *s = open_ok(path);
	struct play_game g;
	unsigned char seed[RNG_SEED_LEN] = { 0 };
	char *one[] = { "a@example.org" };
	char *twice[] = { "a@example.org", "A@EXAMPLE.org" };
	char *junk[] = { "a@example.org", "not-an-address" };
	char *two[] = { "a@example.org", "b@example.org" };
	char *badopt[] = { "pits=12" }, *first[] = { "first=b@example.org" };

	ck_assert_int_eq(play_create(s, mancala(), NULL, 0, one, 1, seed,
	    "active", 1, &g, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "Mancala (Kalah) is for 2 players; 1 given");
	ck_assert_int_eq(play_create(s, mancala(), NULL, 0, twice, 2, seed,
	    "active", 1, &g, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "a@example.org is named twice");
	ck_assert_int_eq(play_create(s, mancala(), NULL, 0, junk, 2, seed,
	    "active", 1, &g, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "`not-an-address` is not a mail address");
	ck_assert_int_eq(play_create(s, mancala(), badopt, 1, two, 2, seed,
	    "active", 1, &g, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "pits must be a whole number 3-8, not `12`");
	ck_assert_int_eq(play_create(s, mancala(), first, 1, two, 2, seed,
	    "active", 1, &g, err, sizeof(err)), 0);
	ck_assert_str_eq(g.address[0], "b@example.org");
	ck_assert_str_eq(g.address[1], "a@example.org");
	play_free(&g);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_message_note_bounces_and_replies)
{
	char *path = dbpath("notes.db"), *a, *b, *c;
	struct store *s = open_ok(path);
	int64_t id;
	int n;

	ck_assert_int_eq(store_message_seen(s, "k1", 1, "received"), 0);
	ck_assert_int_eq(store_message_note(s, "k1", "a@x.org", "3\n5",
	    "answered"), 0);
	ck_assert_int_eq(store_message_get(s, "k1", &a, &b, &c), 0);
	ck_assert_str_eq(a, "a@x.org");
	ck_assert_str_eq(b, "3\n5");
	ck_assert_str_eq(c, "answered");
	free(a);
	free(b);
	free(c);
	ck_assert_int_eq(store_message_get(s, "k2", &a, &b, &c), 1);

	ck_assert_int_eq(store_bounce_add(s, "nobody@x.org", 1, "x"), 1);
	ck_assert_int_eq(store_player_id(s, "p@x.org", 1, 1, &id), 0);
	ck_assert_int_eq(store_bounce_add(s, "p@x.org", 2, "550"), 0);
	ck_assert_int_eq(store_bounce_add(s, "p@x.org", 3, "550"), 0);
	ck_assert_int_eq(store_player_bounces(s, "p@x.org", &n), 0);
	ck_assert_int_eq(n, 2);

	ck_assert_int_eq(store_reply_add(s, "p@x.org", 1000), 0);
	ck_assert_int_eq(store_reply_add(s, "p@x.org", 2000), 0);
	ck_assert_int_eq(store_reply_add(s, "q@x.org", 2000), 0);
	ck_assert_int_eq(store_reply_count(s, "p@x.org", 1500, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(store_reply_count(s, "p@x.org", 0, &n), 0);
	ck_assert_int_eq(n, 2);
	/* A day later the old rows are pruned. */
	ck_assert_int_eq(store_reply_add(s, "q@x.org", 100000), 0);
	ck_assert_int_eq(store_reply_count(s, "p@x.org", 0, &n), 0);
	ck_assert_int_eq(n, 0);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_outbox_all_lists_every_row_in_id_order)
{
	char *path = dbpath("outbox-all.db");
	struct store *s = open_ok(path);
	struct store_mail m = { 0 }, *all;
	int64_t first;
	int n;

	m.envelope_from = "referee@example.org";
	m.recipients = "a@example.org";
	m.data = "Subject: x\r\n\r\nhello\r\n";
	/* Due times against the id order, so id order is not due order. */
	m.message_id = "<1@ludus>";
	m.next_try = 300;
	ck_assert_int_eq(store_outbox_add(s, &m, 100), 0);
	m.message_id = "<2@ludus>";
	m.next_try = 200;
	ck_assert_int_eq(store_outbox_add(s, &m, 100), 0);
	m.message_id = "<3@ludus>";
	m.next_try = 100;
	ck_assert_int_eq(store_outbox_add(s, &m, 100), 0);
	ck_assert_int_eq(store_outbox_all(s, 0, 10, &all, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(store_outbox_sent(s, all[0].id, 150), 0);
	ck_assert_int_eq(store_outbox_failed(s, all[1].id, "550 no user"), 0);
	store_mails_free(all, n);

	/* Sent and given-up rows are still listed. */
	ck_assert_int_eq(store_outbox_all(s, 0, 10, &all, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(all[0].message_id, "<1@ludus>");
	ck_assert_str_eq(all[1].message_id, "<2@ludus>");
	ck_assert_str_eq(all[2].message_id, "<3@ludus>");
	ck_assert_str_eq(all[2].data, "Subject: x\r\n\r\nhello\r\n");
	ck_assert_int_lt(all[0].id, all[1].id);
	ck_assert_int_lt(all[1].id, all[2].id);
	first = all[0].id;
	store_mails_free(all, n);

	/* Paging: rows after an id, at most max of them. */
	ck_assert_int_eq(store_outbox_all(s, first, 1, &all, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(all[0].message_id, "<2@ludus>");
	store_mails_free(all, n);
	ck_assert_int_eq(store_outbox_all(s, first + 2, 10, &all, &n), 0);
	ck_assert_int_eq(n, 0);
	store_mails_free(all, n);
	store_close(s);
	free(path);
}
END_TEST

/* A player by address, created at time 1. */
static int64_t
player(struct store *s, const char *address)
{
	int64_t id;

	ck_assert_int_eq(store_player_id(s, address, 1, 1, &id), 0);
	return id;
}

/* A two-seat game between a and b, as `ludus new` makes it. */
static int64_t
game(struct store *s, int64_t a, int64_t b)
{
	struct store_game g = { 0 };

	g.kind = "mancala";
	g.options = "pits=6";
	g.state = "s";
	g.status = "active";
	g.nseats = 2;
	g.player[0] = a;
	g.player[1] = b;
	g.created = g.updated = 1;
	ck_assert_int_eq(store_game_create(s, &g), 0);
	return g.id;
}

START_TEST(store_game_referee_fields_round_trip)
{
	char *path = dbpath("referee.db");
	struct store *s = open_ok(path);
	struct store_game g = { 0 }, h;
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org"), plain;

	g.kind = "mancala";
	g.options = "pits=6";
	g.state = "s0";
	g.status = "invited";
	g.nseats = 2;
	g.player[0] = a;
	g.player[1] = b;
	g.accepted[0] = 1;
	g.created = g.updated = 100;
	g.clock = "7d+1d";
	g.rated = 1;
	g.inviter = a;
	g.expires = 1000;
	g.deadline = 2000;
	g.draw_offer = 2;
	g.ended = NULL;
	ck_assert_int_eq(store_game_create(s, &g), 0);
	ck_assert_int_eq(store_game_load(s, g.id, &h), 0);
	ck_assert_str_eq(h.clock, "7d+1d");
	ck_assert_int_eq(h.rated, 1);
	ck_assert_int_eq(h.inviter, a);
	ck_assert_int_eq(h.expires, 1000);
	ck_assert_int_eq(h.deadline, 2000);
	ck_assert_uint_eq(h.draw_offer, 2);
	ck_assert_ptr_null(h.ended);
	ck_assert_str_eq(h.status, "invited");
	ck_assert_int_eq(h.accepted[0], 1);
	ck_assert_int_eq(h.accepted[1], 0);

	/* Update writes the changing fields; clock, rated and inviter are
	 * fixed at creation. */
	free(h.state);
	h.state = xstrdup("s1");
	free(h.status);
	h.status = xstrdup("aborted");
	h.accepted[1] = 1;
	h.expires = 0;
	h.deadline = 3000;
	h.draw_offer = 3;
	h.ended = xstrdup("declined");
	free(h.clock);
	h.clock = xstrdup("1h");
	h.rated = 0;
	h.inviter = b;
	h.updated = 150;
	ck_assert_int_eq(store_game_update(s, &h), 0);
	store_game_free(&h);
	ck_assert_int_eq(store_game_load(s, g.id, &h), 0);
	ck_assert_str_eq(h.state, "s1");
	ck_assert_str_eq(h.status, "aborted");
	ck_assert_int_eq(h.accepted[1], 1);
	ck_assert_int_eq(h.expires, 0);
	ck_assert_int_eq(h.deadline, 3000);
	ck_assert_uint_eq(h.draw_offer, 3);
	ck_assert_str_eq(h.ended, "declined");
	ck_assert_int_eq(h.updated, 150);
	ck_assert_str_eq(h.clock, "7d+1d");
	ck_assert_int_eq(h.rated, 1);
	ck_assert_int_eq(h.inviter, a);
	/* Clearing ended and the deadline reads back as NULL and 0. */
	free(h.ended);
	h.ended = NULL;
	h.deadline = 0;
	ck_assert_int_eq(store_game_update(s, &h), 0);
	store_game_free(&h);
	ck_assert_int_eq(store_game_load(s, g.id, &h), 0);
	ck_assert_ptr_null(h.ended);
	ck_assert_int_eq(h.deadline, 0);
	store_game_free(&h);

	/* A game made without them reads them as 0 and NULL. */
	plain = game(s, a, b);
	ck_assert_int_eq(store_game_load(s, plain, &h), 0);
	ck_assert_ptr_null(h.clock);
	ck_assert_int_eq(h.rated, 0);
	ck_assert_int_eq(h.inviter, 0);
	ck_assert_int_eq(h.expires, 0);
	ck_assert_int_eq(h.deadline, 0);
	ck_assert_uint_eq(h.draw_offer, 0);
	ck_assert_ptr_null(h.ended);
	store_game_free(&h);
	/* An unknown game is refused. */
	h.id = 999;
	h.nseats = 0;
	ck_assert_int_eq(store_game_update(s, &h), -1);
	store_close(s);
	free(path);
}
END_TEST

/* Schema 4: the clock fields of a game, its seats and its players. */
START_TEST(store_clock_fields_round_trip)
{
	char *path = dbpath("clock.db");
	struct store *s = open_ok(path);
	struct store_game g = { 0 }, h;
	struct store_player p;
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");

	g.kind = "mancala";
	g.options = "pits=6";
	g.state = "s0";
	g.status = "active";
	g.nseats = 2;
	g.player[0] = a;
	g.player[1] = b;
	g.created = g.updated = 100;
	g.turn_since = 150;
	g.reminded = 1;
	g.reserve[0] = 604800;
	g.reserve[1] = 7;
	ck_assert_int_eq(store_game_create(s, &g), 0);
	ck_assert_int_eq(store_game_load(s, g.id, &h), 0);
	ck_assert_int_eq(h.turn_since, 150);
	ck_assert_uint_eq(h.reminded, 1);
	ck_assert_int_eq(h.reserve[0], 604800);
	ck_assert_int_eq(h.reserve[1], 7);
	h.turn_since = 0;
	h.reminded = 3;
	h.reserve[1] = 86400;
	ck_assert_int_eq(store_game_update(s, &h), 0);
	store_game_free(&h);
	ck_assert_int_eq(store_game_load(s, g.id, &h), 0);
	ck_assert_int_eq(h.turn_since, 0);
	ck_assert_uint_eq(h.reminded, 3);
	ck_assert_int_eq(h.reserve[0], 604800);
	ck_assert_int_eq(h.reserve[1], 86400);
	store_game_free(&h);

	ck_assert_int_eq(store_player_load(s, b, &p), 0);
	ck_assert_int_eq(p.vacation_used, 0);
	ck_assert_int_eq(p.vacation_year, 0);
	p.vacation_used = 10 * 86400;
	p.vacation_year = 2026;
	ck_assert_int_eq(store_player_update(s, &p), 0);
	store_player_free(&p);
	ck_assert_int_eq(store_player_load(s, b, &p), 0);
	ck_assert_int_eq(p.vacation_used, 10 * 86400);
	ck_assert_int_eq(p.vacation_year, 2026);
	store_player_free(&p);
	ck_assert_int_eq(store_player_load(s, a, &p), 0);
	ck_assert_int_eq(p.vacation_used, 0);
	store_player_free(&p);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_player_find_update_vacation)
{
	char *path = dbpath("player.db");
	struct store *s = open_ok(path);
	struct store_player p, q;
	int64_t a;

	ck_assert_int_eq(store_player_find(s, "a@x.org", &p), 1);
	a = player(s, "a@x.org");
	(void)player(s, "b@x.org");
	ck_assert_int_eq(store_player_find(s, "a@x.org", &p), 0);
	ck_assert_int_eq(p.id, a);
	ck_assert_str_eq(p.address, "a@x.org");
	ck_assert_ptr_null(p.name);
	ck_assert_str_eq(p.language, "en");
	ck_assert_str_eq(p.notify, "all");
	ck_assert_int_eq(p.banned, 0);
	ck_assert_int_eq(p.vacation_start, 0);
	ck_assert_int_eq(p.vacation_until, 0);

	p.name = xstrdup("Ann");
	free(p.language);
	p.language = xstrdup("de");
	free(p.notify);
	p.notify = xstrdup("turn");
	p.vacation_start = 1000;
	p.vacation_until = 1000 + 7 * 86400;
	ck_assert_int_eq(store_player_update(s, &p), 0);
	ck_assert_int_eq(store_player_load(s, a, &q), 0);
	ck_assert_str_eq(q.address, "a@x.org");
	ck_assert_str_eq(q.name, "Ann");
	ck_assert_str_eq(q.language, "de");
	ck_assert_str_eq(q.notify, "turn");
	ck_assert_int_eq(q.vacation_start, 1000);
	ck_assert_int_eq(q.vacation_until, 1000 + 7 * 86400);
	store_player_free(&q);
	/* The other player is untouched. */
	ck_assert_int_eq(store_player_find(s, "b@x.org", &q), 0);
	ck_assert_ptr_null(q.name);
	ck_assert_str_eq(q.language, "en");
	ck_assert_int_eq(q.vacation_until, 0);
	store_player_free(&q);

	/* Back from vacation: the start stays, the end clears. */
	p.vacation_until = 0;
	ck_assert_int_eq(store_player_update(s, &p), 0);
	ck_assert_int_eq(store_player_find(s, "a@x.org", &q), 0);
	ck_assert_int_eq(q.vacation_start, 1000);
	ck_assert_int_eq(q.vacation_until, 0);
	store_player_free(&q);
	p.id = 999;
	ck_assert_int_eq(store_player_update(s, &p), -1);
	store_player_free(&p);
	ck_assert_int_eq(store_player_load(s, 999, &p), 1);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_events_in_order_per_game)
{
	char *path = dbpath("events.db");
	struct store *s = open_ok(path);
	struct store_event *e;
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");
	int64_t g1 = game(s, a, b), g2 = game(s, b, a);
	int n;

	ck_assert_int_eq(store_events(s, g1, &e, &n), 0);
	ck_assert_int_eq(n, 0);
	store_events_free(e, n);
	/* Same time, same ply: the order of adding decides. */
	ck_assert_int_eq(store_event_add(s, g1, 4, b, "draw-offer", NULL, 50),
	    0);
	ck_assert_int_eq(store_event_add(s, g2, 0, 0, "abort", "by admin",
	    50), 0);
	ck_assert_int_eq(store_event_add(s, g1, 4, a, "draw-decline", NULL,
	    50), 0);
	ck_assert_int_eq(store_event_add(s, g1, 2, 0, "adjudicate",
	    "admin note", 40), 0);
	ck_assert_int_eq(store_event_add(s, 999, 0, 0, "abort", NULL, 1), -1);
	ck_assert_int_eq(store_events(s, g1, &e, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(e[0].kind, "draw-offer");
	ck_assert_int_eq(e[0].after_ply, 4);
	ck_assert_int_eq(e[0].player, b);
	ck_assert_ptr_null(e[0].text);
	ck_assert_int_eq(e[0].created, 50);
	ck_assert_str_eq(e[1].kind, "draw-decline");
	ck_assert_int_eq(e[1].player, a);
	ck_assert_str_eq(e[2].kind, "adjudicate");
	ck_assert_int_eq(e[2].after_ply, 2);
	ck_assert_int_eq(e[2].player, 0);
	ck_assert_str_eq(e[2].text, "admin note");
	ck_assert_int_eq(e[2].created, 40);
	store_events_free(e, n);
	ck_assert_int_eq(store_events(s, g2, &e, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(e[0].text, "by admin");
	store_events_free(e, n);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_observers_on_off)
{
	char *path = dbpath("observers.db");
	struct store *s = open_ok(path);
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");
	int64_t c = player(s, "c@x.org"), g = game(s, a, b), *ids;
	int n;

	ck_assert_int_eq(store_observers(s, g, &ids, &n), 0);
	ck_assert_int_eq(n, 0);
	free(ids);
	/* c before a: the list is in the order they began, not by id. */
	ck_assert_int_eq(store_observer_set(s, g, c, 1), 0);
	ck_assert_int_eq(store_observer_set(s, g, a, 1), 0);
	ck_assert_int_eq(store_observer_set(s, g, c, 1), 1);
	ck_assert_int_eq(store_observers(s, g, &ids, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(ids[0], c);
	ck_assert_int_eq(ids[1], a);
	free(ids);
	ck_assert_int_eq(store_observer_set(s, g, c, 0), 0);
	ck_assert_int_eq(store_observer_set(s, g, c, 0), 1);
	ck_assert_int_eq(store_observer_set(s, g, b, 0), 1);
	ck_assert_int_eq(store_observers(s, g, &ids, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(ids[0], a);
	free(ids);
	/* No such game. */
	ck_assert_int_eq(store_observer_set(s, 999, a, 1), -1);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_thanks_once_per_pair_and_authority)
{
	char *path = dbpath("thanks.db");
	struct store *s = open_ok(path);
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");
	int64_t c = player(s, "c@x.org");
	int64_t g1 = game(s, a, b), g2 = game(s, a, b);
	int n;

	ck_assert_int_eq(store_player_authority(s, b, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(store_thanks_add(s, g1, a, b, 10), 0);
	ck_assert_int_eq(store_thanks_add(s, g1, a, b, 11), 1);
	ck_assert_int_eq(store_thanks_add(s, g1, a, c, 12), 0);
	ck_assert_int_eq(store_thanks_add(s, g2, a, b, 13), 0);
	ck_assert_int_eq(store_thanks_add(s, g1, c, b, 14), 0);
	ck_assert_int_eq(store_thanks_add(s, g1, b, a, 15), 0);
	ck_assert_int_eq(store_thanks_add(s, g1, b, a, 16), 1);
	ck_assert_int_eq(store_player_authority(s, b, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(store_player_authority(s, c, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(store_player_authority(s, a, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(store_player_authority(s, 999, &n), 0);
	ck_assert_int_eq(n, 0);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_ratings_per_player_and_kind)
{
	char *path = dbpath("ratings.db");
	struct store *s = open_ok(path);
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");
	struct store_rating r = { 1662.25, 290.5, 0.0599, 1000, 1 }, got;

	ck_assert_int_eq(store_rating_get(s, a, "mancala", &got), 1);
	ck_assert_int_eq(store_rating_put(s, a, "mancala", &r), 0);
	r.r = 1337.75;
	r.games = 3;
	ck_assert_int_eq(store_rating_put(s, a, "aluette", &r), 0);
	ck_assert_int_eq(store_rating_get(s, a, "mancala", &got), 0);
	ck_assert(got.r == 1662.25 && got.rd == 290.5 && got.sigma == 0.0599);
	ck_assert_int_eq(got.last, 1000);
	ck_assert_int_eq(got.games, 1);
	ck_assert_int_eq(store_rating_get(s, a, "aluette", &got), 0);
	ck_assert(got.r == 1337.75);
	ck_assert_int_eq(got.games, 3);
	ck_assert_int_eq(store_rating_get(s, b, "mancala", &got), 1);
	/* put replaces */
	r.r = 1700;
	r.games = 2;
	ck_assert_int_eq(store_rating_put(s, a, "mancala", &r), 0);
	ck_assert_int_eq(store_rating_get(s, a, "mancala", &got), 0);
	ck_assert(got.r == 1700);
	ck_assert_int_eq(got.games, 2);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_rating_changes_per_game)
{
	char *path = dbpath("ratingchanges.db");
	struct store *s = open_ok(path);
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");
	int64_t g = game(s, a, b), g2 = game(s, a, b);
	double o[STORE_MAX_SEATS], r[STORE_MAX_SEATS];
	int n;

	ck_assert_int_eq(store_rating_changes(s, g, o, r, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(store_rating_change_add(s, g, 1, b, 1500, 1662.25),
	    0);
	ck_assert_int_eq(store_rating_change_add(s, g, 0, a, 1500, 1337.75),
	    0);
	/* a seat is rated once per game */
	ck_assert_int_eq(store_rating_change_add(s, g, 0, a, 1, 2), -1);
	ck_assert_int_eq(store_rating_changes(s, g, o, r, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert(o[0] == 1500 && r[0] == 1337.75);
	ck_assert(o[1] == 1500 && r[1] == 1662.25);
	ck_assert_int_eq(store_rating_changes(s, g2, o, r, &n), 0);
	ck_assert_int_eq(n, 0);
	store_close(s);
	free(path);
}
END_TEST

/* An open challenge on a ladder, for its game. */
static struct store_challenge
open_challenge(int64_t ladder, int64_t from, int64_t to, int64_t game,
    int64_t created)
{
	struct store_challenge c;

	memset(&c, 0, sizeof(c));
	c.ladder = ladder;
	c.challenger = from;
	c.challenged = to;
	c.game = game;
	c.status = "open";
	c.created = created;
	return c;
}

START_TEST(store_ladders_rungs_and_challenges)
{
	char *path = dbpath("ladders.db");
	struct store *s = open_ok(path);
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");
	int64_t c = player(s, "c@x.org"), d = player(s, "d@x.org");
	int64_t g = game(s, a, b), *ids;
	struct store_ladder l, got;
	struct store_rung rs[3] = { { 0, a, 0, 10 }, { 0, b, c, 11 },
	    { 0, d, 0, 12 } }, *out;
	struct store_challenge ch, *v, one;
	int n;

	memset(&l, 0, sizeof(l));
	l.name = "kalah";
	l.kind = "mancala";
	l.options = "pits=6 seeds=3";
	l.list = "club@x.org";
	l.reach = 3;
	l.accept = 259200;
	l.open_cap = 2;
	l.cooldown = 604800;
	l.idle = 0;
	l.created = 5;
	ck_assert_int_eq(store_ladder_add(s, &l), 0);
	ck_assert_int_gt(l.id, 0);
	ck_assert_int_eq(store_ladder_add(s, &l), -1);	/* name taken */
	ck_assert_int_eq(store_ladder_find(s, "kalah", &got), 0);
	ck_assert_int_eq(got.id, l.id);
	ck_assert_str_eq(got.options, "pits=6 seeds=3");
	ck_assert_ptr_null(got.clock);
	ck_assert_str_eq(got.list, "club@x.org");
	ck_assert_int_eq(got.reach, 3);
	ck_assert_int_eq(got.accept, 259200);
	ck_assert_int_eq(got.cooldown, 604800);
	ck_assert_int_eq(got.closed, 0);
	store_ladder_free(&got);
	ck_assert_int_eq(store_ladder_find(s, "none", &got), 1);
	ck_assert_int_eq(store_ladder_ids(s, &ids, &n), 0);
	ck_assert_int_eq(n, 1);
	free(ids);

	/* rungs: written in order, positions from 1; a pair keeps both */
	ck_assert_int_eq(store_rungs_set(s, l.id, rs, 3), 0);
	ck_assert_int_eq(store_rungs(s, l.id, &out, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(out[0].position, 1);
	ck_assert_int_eq(out[0].player, a);
	ck_assert_int_eq(out[0].partner, 0);
	ck_assert_int_eq(out[1].player, b);
	ck_assert_int_eq(out[1].partner, c);
	ck_assert_int_eq(out[2].position, 3);
	ck_assert_int_eq(out[2].active, 12);
	free(out);
	/* one player on two rungs of a ladder is refused */
	rs[2].player = a;
	ck_assert_int_eq(store_rungs_set(s, l.id, rs, 3), -1);
	rs[2].player = d;
	ck_assert_int_eq(store_rungs_set(s, l.id, rs + 1, 2), 0);
	ck_assert_int_eq(store_rungs(s, l.id, &out, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(out[0].player, b);
	ck_assert_int_eq(out[0].position, 1);
	free(out);

	/* challenges: open ones, then decided since a time */
	ch = open_challenge(l.id, d, b, g, 20);
	ck_assert_int_eq(store_challenge_add(s, &ch), 0);
	ck_assert_int_eq(store_challenges(s, l.id, d, 1, 0, &v, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(v[0].game, g);
	store_challenges_free(v, n);
	ck_assert_int_eq(store_challenges(s, l.id, a, 1, 0, &v, &n), 0);
	ck_assert_int_eq(n, 0);
	store_challenges_free(v, n);
	ck_assert_int_eq(store_challenge_by_game(s, g, &one), 0);
	ck_assert_int_eq(one.challenger, d);
	ck_assert_str_eq(one.status, "open");
	ck_assert_int_eq(one.decided, 0);
	store_challenge_free(&one);
	ck_assert_int_eq(store_challenge_by_game(s, g + 100, &one), 1);
	ch.status = "won";
	ch.decided = 30;
	ck_assert_int_eq(store_challenge_update(s, &ch), 0);
	ck_assert_int_eq(store_challenges(s, l.id, b, 1, 0, &v, &n), 0);
	ck_assert_int_eq(n, 0);
	store_challenges_free(v, n);
	ck_assert_int_eq(store_challenges(s, l.id, b, 0, 30, &v, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(v[0].status, "won");
	store_challenges_free(v, n);
	ck_assert_int_eq(store_challenges(s, l.id, b, 0, 31, &v, &n), 0);
	ck_assert_int_eq(n, 0);
	store_challenges_free(v, n);

	ck_assert_int_eq(store_ladder_close(s, l.id, 40), 0);
	ck_assert_int_eq(store_ladder_load(s, l.id, &got), 0);
	ck_assert_int_eq(got.closed, 40);
	store_ladder_free(&got);
	ck_assert_int_eq(store_ladder_ids(s, &ids, &n), 0);
	ck_assert_int_eq(n, 0);
	free(ids);
	store_close(s);
	free(path);
}
END_TEST

/* The public site's changes, in the order made, as "g7 G7 n2 ...", and
 * taken. */
static char *
site_changes(struct store *s)
{
	struct store_site_change *c;
	struct buf b = { 0 };
	int i, n;

	ck_assert_int_eq(store_site_changes(s, 100, &c, &n), 0);
	for (i = 0; i < n; i++)
		buf_printf(&b, "%s%c%lld", i ? " " : "", c[i].kind,
		    (long long)c[i].id);
	if (n > 0)
		ck_assert_int_eq(store_site_changes_done(s, c[n - 1].seq), 0);
	free(c);
	return buf_steal(&b);
}

static void
site_changes_are(struct store *s, const char *want)
{
	char *got = site_changes(s);

	ck_assert_str_eq(got, want);
	free(got);
}

/* Every write the public site shows records what it changed, once per
 * thing (the latest last), and a write that changes nothing records
 * nothing. */
START_TEST(store_site_changes_follow_each_write)
{
	char *path = dbpath("site.db");
	struct store *s = open_ok(path);
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");
	int64_t c = player(s, "c@x.org");
	struct store_game g;
	struct store_player p;
	struct store_ladder l;
	struct store_rung rs[2] = { { 0, a, 0, 1 }, { 0, b, 0, 1 } };
	struct store_challenge ch;
	struct store_seek k;
	int64_t id = game(s, a, b), other = game(s, b, c);
	char *want;

	site_changes_are(s, "");
	/* a game: every update; begun or over only when the status moves */
	ck_assert_int_eq(store_game_load(s, id, &g), 0);
	ck_assert_int_eq(store_game_update(s, &g), 0);
	want = xasprintf("g%lld", (long long)id);
	site_changes_are(s, want);
	free(want);
	free(g.status);
	g.status = xstrdup("finished");
	ck_assert_int_eq(store_game_update(s, &g), 0);
	ck_assert_int_eq(store_game_update(s, &g), 0);
	want = xasprintf("G%lld g%lld", (long long)id, (long long)id);
	site_changes_are(s, want);
	free(want);
	store_game_free(&g);

	/* a player: a new name or public address, not a new language */
	ck_assert_int_eq(store_player_load(s, a, &p), 0);
	free(p.language);
	p.language = xstrdup("ru");
	ck_assert_int_eq(store_player_update(s, &p), 0);
	site_changes_are(s, "");
	free(p.name);
	p.name = xstrdup("Ann");
	ck_assert_int_eq(store_player_update(s, &p), 0);
	p.public_address = 1;
	ck_assert_int_eq(store_player_update(s, &p), 0);
	want = xasprintf("n%lld", (long long)a);
	site_changes_are(s, want);
	free(want);
	store_player_free(&p);

	/* thanks, once per pair */
	ck_assert_int_eq(store_thanks_add(s, id, a, b, 5), 0);
	ck_assert_int_eq(store_thanks_add(s, id, a, b, 6), 1);
	want = xasprintf("p%lld", (long long)b);
	site_changes_are(s, want);
	free(want);

	/* a ladder: made, its rungs, a challenge made and decided, closed */
	memset(&l, 0, sizeof(l));
	l.name = "kalah";
	l.kind = "mancala";
	l.list = "club@x.org";
	l.created = 5;
	ck_assert_int_eq(store_ladder_add(s, &l), 0);
	want = xasprintf("l%lld", (long long)l.id);
	site_changes_are(s, want);
	ck_assert_int_eq(store_rungs_set(s, l.id, rs, 0), 0);
	site_changes_are(s, "");
	ck_assert_int_eq(store_rungs_set(s, l.id, rs, 2), 0);
	site_changes_are(s, want);
	ch = open_challenge(l.id, b, a, other, 7);
	ck_assert_int_eq(store_challenge_add(s, &ch), 0);
	site_changes_are(s, want);
	ch.status = "won";
	ch.decided = 8;
	ck_assert_int_eq(store_challenge_update(s, &ch), 0);
	site_changes_are(s, want);
	ck_assert_int_eq(store_ladder_close(s, l.id, 9), 0);
	site_changes_are(s, want);
	ck_assert_int_eq(store_ladder_close(s, l.id + 100, 9), 0);
	site_changes_are(s, "");
	free(want);

	/* a seek: posted, then taken */
	memset(&k, 0, sizeof(k));
	k.kind = "mancala";
	k.nseats = 2;
	k.player[0] = c;
	k.status = "open";
	k.created = 10;
	k.expires = 20;
	ck_assert_int_eq(store_seek_add(s, &k), 0);
	k.player[1] = a;
	k.status = "filled";
	ck_assert_int_eq(store_seek_update(s, &k), 0);
	want = xasprintf("s%lld", (long long)k.id);
	site_changes_are(s, want);
	free(want);

	/* the latest change of a thing comes last, once */
	ck_assert_int_eq(store_game_load(s, other, &g), 0);
	ck_assert_int_eq(store_game_update(s, &g), 0);
	ck_assert_int_eq(store_seek_update(s, &k), 0);
	ck_assert_int_eq(store_game_update(s, &g), 0);
	want = xasprintf("s%lld g%lld", (long long)k.id, (long long)other);
	site_changes_are(s, want);
	free(want);
	store_game_free(&g);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_reports_open_then_resolved)
{
	char *path = dbpath("reports.db");
	struct store *s = open_ok(path);
	struct store_report r, *open;
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");
	int64_t g = game(s, a, b), r1, r2;
	int n;

	ck_assert_int_eq(store_reports_open(s, &open, &n), 0);
	ck_assert_int_eq(n, 0);
	store_reports_free(open, n);
	/* r2 is added later but dated earlier: oldest first. */
	ck_assert_int_eq(store_report_add(s, g, a, "rude", 200, &r1), 0);
	ck_assert_int_eq(store_report_add(s, g, b, "stalling", 100, &r2), 0);
	ck_assert_int_ne(r1, r2);
	ck_assert_int_eq(store_report_load(s, r1, &r), 0);
	ck_assert_int_eq(r.id, r1);
	ck_assert_int_eq(r.game, g);
	ck_assert_int_eq(r.reporter, a);
	ck_assert_str_eq(r.text, "rude");
	ck_assert_int_eq(r.created, 200);
	ck_assert_int_eq(r.resolved, 0);
	ck_assert_ptr_null(r.resolution);
	store_report_free(&r);
	ck_assert_int_eq(store_reports_open(s, &open, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(open[0].id, r2);
	ck_assert_str_eq(open[0].text, "stalling");
	ck_assert_int_eq(open[1].id, r1);
	store_reports_free(open, n);

	ck_assert_int_eq(store_report_resolve(s, 999, "x", 300), 1);
	ck_assert_int_eq(store_report_resolve(s, r2, "warned", 300), 0);
	ck_assert_int_eq(store_report_resolve(s, r2, "again", 400), 1);
	ck_assert_int_eq(store_report_load(s, r2, &r), 0);
	ck_assert_int_eq(r.resolved, 300);
	ck_assert_str_eq(r.resolution, "warned");
	store_report_free(&r);
	ck_assert_int_eq(store_reports_open(s, &open, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(open[0].id, r1);
	ck_assert_int_eq(open[0].resolved, 0);
	store_reports_free(open, n);
	ck_assert_int_eq(store_report_load(s, 999, &r), 1);
	ck_assert_int_eq(store_report_add(s, 999, a, "x", 1, NULL), -1);
	store_close(s);
	free(path);
}
END_TEST

/* The reads a referee that decides before it writes needs: the id the
 * next row of each series gets is the one the insert gives it (games and
 * seeks in one series), and the lookups that a write's return value
 * answered. */
START_TEST(store_reads_for_effects)
{
	char *path = dbpath("effects.db"), *cmd;
	struct store *s = open_ok(path);
	struct store_seek k = { 0 };
	struct store_ladder l = { 0 };
	struct store_challenge ch = { 0 };
	int64_t a, b, g, next, id;

	ck_assert_int_eq(store_id_next(s, STORE_SERIES_PLAYER, &next), 0);
	ck_assert_int_eq(next, 1);
	a = player(s, "a@x.org");
	ck_assert_int_eq(a, next);
	ck_assert_int_eq(store_id_next(s, STORE_SERIES_PLAYER, &next), 0);
	b = player(s, "b@x.org");
	ck_assert_int_eq(b, next);

	ck_assert_int_eq(store_id_next(s, STORE_SERIES_GAME, &next), 0);
	g = game(s, a, b);
	ck_assert_int_eq(g, next);
	ck_assert_int_eq(store_id_next(s, STORE_SERIES_GAME, &next), 0);
	k.kind = "mancala";
	k.nseats = 2;
	k.player[0] = a;
	k.status = "open";
	ck_assert_int_eq(store_seek_add(s, &k), 0);
	ck_assert_int_eq(k.id, next);
	ck_assert_int_eq(store_id_next(s, STORE_SERIES_GAME, &next), 0);
	ck_assert_int_eq(next, k.id + 1);

	ck_assert_int_eq(store_id_next(s, STORE_SERIES_REPORT, &next), 0);
	ck_assert_int_eq(store_report_add(s, g, a, "rude", 5, &id), 0);
	ck_assert_int_eq(id, next);

	ck_assert_int_eq(store_id_next(s, STORE_SERIES_LADDER, &next), 0);
	l.name = "kalah";
	l.kind = "mancala";
	l.options = "";
	ck_assert_int_eq(store_ladder_add(s, &l), 0);
	ck_assert_int_eq(l.id, next);
	ck_assert_int_eq(store_id_next(s, STORE_SERIES_CHALLENGE, &next), 0);
	ch.ladder = l.id;
	ch.challenger = a;
	ch.challenged = b;
	ch.status = "open";
	ck_assert_int_eq(store_challenge_add(s, &ch), 0);
	ck_assert_int_eq(ch.id, next);

	ck_assert_int_eq(store_thanks_get(s, g, a, b), 1);
	ck_assert_int_eq(store_thanks_add(s, g, a, b, 7), 0);
	ck_assert_int_eq(store_thanks_get(s, g, a, b), 0);
	ck_assert_int_eq(store_thanks_get(s, g, b, a), 1);

	ck_assert_int_eq(store_confirm_add(s, "k1", a, "abort #1", 100, 200),
	    0);
	ck_assert_int_eq(store_confirm_get(s, "k1", b, 150, &cmd), 1);
	ck_assert_ptr_null(cmd);
	ck_assert_int_eq(store_confirm_get(s, "k1", a, 200, &cmd), 1);
	ck_assert_int_eq(store_confirm_get(s, "k1", a, 150, &cmd), 0);
	ck_assert_str_eq(cmd, "abort #1");
	free(cmd);
	/* Read, not taken: it is still there to take, then gone. */
	ck_assert_int_eq(store_confirm_get(s, "k1", a, 150, &cmd), 0);
	free(cmd);
	ck_assert_int_eq(store_confirm_take(s, "k1", a, 150, &cmd), 0);
	free(cmd);
	ck_assert_int_eq(store_confirm_get(s, "k1", a, 150, &cmd), 1);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_confirm_cookie_once_for_its_player)
{
	char *path = dbpath("confirm.db"), *cmd;
	struct store *s = open_ok(path);
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");

	ck_assert_int_eq(store_confirm_add(s, "k1", a, "abort #3", 100, 200),
	    0);
	ck_assert_int_eq(store_confirm_add(s, "k2", a, "ban c@x.org", 100,
	    200), 0);
	ck_assert_int_eq(store_confirm_add(s, "k1", b, "x", 100, 200), -1);
	/* Another player's, unknown, expired. */
	ck_assert_int_eq(store_confirm_take(s, "k1", b, 150, &cmd), 1);
	ck_assert_ptr_null(cmd);
	ck_assert_int_eq(store_confirm_take(s, "k9", a, 150, &cmd), 1);
	ck_assert_int_eq(store_confirm_take(s, "k2", a, 200, &cmd), 1);
	ck_assert_ptr_null(cmd);
	/* Taken in a transaction that rolls back, it can be taken again. */
	ck_assert_int_eq(store_begin(s), 0);
	ck_assert_int_eq(store_confirm_take(s, "k1", a, 150, &cmd), 0);
	ck_assert_str_eq(cmd, "abort #3");
	free(cmd);
	store_rollback(s);
	ck_assert_int_eq(store_begin(s), 0);
	ck_assert_int_eq(store_confirm_take(s, "k1", a, 199, &cmd), 0);
	ck_assert_str_eq(cmd, "abort #3");
	free(cmd);
	ck_assert_int_eq(store_commit(s), 0);
	/* Once only. */
	ck_assert_int_eq(store_confirm_take(s, "k1", a, 199, &cmd), 1);
	ck_assert_ptr_null(cmd);
	/* The refused k2 was not used: still good before its expiry. */
	ck_assert_int_eq(store_confirm_take(s, "k2", a, 120, &cmd), 0);
	ck_assert_str_eq(cmd, "ban c@x.org");
	free(cmd);
	/* A later add drops the expired cookies; new ones work. */
	ck_assert_int_eq(store_confirm_add(s, "k3", b, "unban c@x.org", 300,
	    400), 0);
	ck_assert_int_eq(store_confirm_add(s, "k1", b, "reused", 300, 400),
	    0);
	ck_assert_int_eq(store_confirm_take(s, "k3", a, 350, &cmd), 1);
	ck_assert_int_eq(store_confirm_take(s, "k3", b, 350, &cmd), 0);
	ck_assert_str_eq(cmd, "unban c@x.org");
	free(cmd);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_action_counts_since)
{
	char *path = dbpath("actions.db");
	struct store *s = open_ok(path);
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");
	int n;

	ck_assert_int_eq(store_action_count(s, a, "report", 0, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(store_action_add(s, a, "report", 10), 0);
	ck_assert_int_eq(store_action_add(s, a, "report", 20), 0);
	ck_assert_int_eq(store_action_add(s, a, "report", 30), 0);
	ck_assert_int_eq(store_action_add(s, a, "invite", 20), 0);
	ck_assert_int_eq(store_action_add(s, b, "report", 20), 0);
	ck_assert_int_eq(store_action_count(s, a, "report", 0, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(store_action_count(s, a, "report", 20, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(store_action_count(s, a, "report", 31, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(store_action_count(s, a, "invite", 0, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(store_action_count(s, b, "report", 0, &n), 0);
	ck_assert_int_eq(n, 1);
	store_close(s);
	free(path);
}
END_TEST

START_TEST(store_timer_cancel_only_the_named)
{
	char *path = dbpath("cancel.db");
	struct store *s = open_ok(path);
	struct store_timer t = { 0 }, *due;
	int64_t a = player(s, "a@x.org"), b = player(s, "b@x.org");
	int64_t g1 = game(s, a, b), g2 = game(s, a, b);
	/* kind, game, player of each timer, due in this order. */
	const struct { const char *kind; int64_t game, player; } rows[] = {
		{ "deadline", g1, 0 },
		{ "deadline", g1, a },
		{ "deadline", g1, b },
		{ "deadline", g2, a },
		{ "reminder", g1, a },
		{ "deadline", 0, a },
	};
	size_t i;
	int n;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		t.kind = (char *)rows[i].kind;
		t.game = rows[i].game;
		t.player = rows[i].player;
		t.due = 100 + (int64_t)i;
		ck_assert_int_eq(store_timer_add(s, &t, NULL), 0);
	}
	/* One player's deadline in one game. */
	ck_assert_int_eq(store_timer_cancel(s, "deadline", g1, a), 0);
	ck_assert_int_eq(store_timer_due(s, 1000, 10, &due, &n), 0);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(due[0].due, 100);
	ck_assert_int_eq(due[1].due, 102);
	ck_assert_int_eq(due[2].due, 103);
	ck_assert_int_eq(due[3].due, 104);
	ck_assert_int_eq(due[4].due, 105);
	store_timers_free(due, n);
	/* Every deadline of the game, whoever's. */
	ck_assert_int_eq(store_timer_cancel(s, "deadline", g1, 0), 0);
	ck_assert_int_eq(store_timer_due(s, 1000, 10, &due, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(due[0].due, 103);
	ck_assert_str_eq(due[0].kind, "deadline");
	ck_assert_int_eq(due[0].game, g2);
	ck_assert_int_eq(due[1].due, 104);
	ck_assert_str_eq(due[1].kind, "reminder");
	ck_assert_int_eq(due[2].due, 105);
	ck_assert_int_eq(due[2].game, 0);
	store_timers_free(due, n);
	/* Game 0 names the timers without a game. */
	ck_assert_int_eq(store_timer_cancel(s, "deadline", 0, 0), 0);
	ck_assert_int_eq(store_timer_due(s, 1000, 10, &due, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(due[0].due, 103);
	ck_assert_int_eq(due[1].due, 104);
	store_timers_free(due, n);
	store_close(s);
	free(path);
}
END_TEST

static Suite *
store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");
	TCase *one = tcase_create(tu_pg() ? "postgresql" : "sqlite");

	if (tu_pg()) {
		tcase_add_test(one, pg_refuses_newer_database);
		tcase_add_test(one, pg_bad_connection_named);
		tcase_add_test(one, pg_conflict_is_temporary_and_counted);
	} else {
		/* What only a database in one file has. */
		tcase_add_test(one, store_create_is_0600_wal_and_current);
		tcase_add_test(one, store_migrates_from_every_earlier_version);
		tcase_add_test(one, store_refuses_newer_database);
	}
	tcase_add_test(tc, store_dedupe_key_unique);
	tcase_add_test(tc, store_inbound_queue_dedupe_order_and_dead_letters);
	tcase_add_test(tc, store_outbox_due_retry_sent_failed);
	tcase_add_test(tc, store_stats_count_each_figure);
	tcase_add_test(tc, store_timers_in_due_order);
	tcase_add_test(tc, store_message_note_bounces_and_replies);
	tcase_add_test(tc, store_game_referee_fields_round_trip);
	tcase_add_test(tc, store_player_find_update_vacation);
	tcase_add_test(tc, store_clock_fields_round_trip);
	tcase_add_test(tc, store_events_in_order_per_game);
	tcase_add_test(tc, store_observers_on_off);
	tcase_add_test(tc, store_thanks_once_per_pair_and_authority);
	tcase_add_test(tc, store_reads_for_effects);
	tcase_add_test(tc, store_reports_open_then_resolved);
	tcase_add_test(tc, store_site_changes_follow_each_write);
	tcase_add_test(tc, store_ratings_per_player_and_kind);
	tcase_add_test(tc, store_rating_changes_per_game);
	tcase_add_test(tc, store_ladders_rungs_and_challenges);
	tcase_add_test(tc, store_confirm_cookie_once_for_its_player);
	tcase_add_test(tc, store_action_counts_since);
	tcase_add_test(tc, store_timer_cancel_only_the_named);
	tcase_add_test(tc, play_create_move_reload_replay);
	tcase_add_test(tc, play_create_rejects_bad_players_and_options);
	tcase_add_test(tc, store_outbox_all_lists_every_row_in_id_order);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, one);
	return s;
}

int
main(void)
{
	return tu_run(store_suite());
}
