/* store: create, migrate, reopen, refuse newer, dedupe, outbox, timers;
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

static char *
dbpath(const char *name)
{
	char *p = xasprintf("%s/%s", tu_tmpdir(), name);

	unlink(p);
	return p;
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

START_TEST(store_migrates_from_every_earlier_version)
{
	struct store *s;
	char err[512], *path;
	int64_t id = 0, id2 = 0;
	int v;

	for (v = 0; v < STORE_SCHEMA_VERSION; v++) {
		path = dbpath("migrate.db");
		ck_assert_int_eq(store_open_at(path, v, &s, err, sizeof(err)),
		    0);
		ck_assert_int_eq(store_schema_version(s), v);
		/* From version 1 on there are players: one made before
		 * the migration must survive it. */
		if (v >= 1)
			ck_assert_int_eq(store_player_id(s, "a@example.org",
			    1, 1, &id), 0);
		store_close(s);
		s = open_ok(path);
		ck_assert_int_eq(store_schema_version(s), STORE_SCHEMA_VERSION);
		/* The migrated schema works. */
		ck_assert_int_eq(store_player_id(s, "a@example.org", 1, 1,
		    &id2), 0);
		if (v >= 1)
			ck_assert_int_eq(id, id2);
		id = id2;
		ck_assert_int_eq(store_bounce_add(s, "a@example.org", 5,
		    "550 no such user"), 0);
		store_close(s);
		/* Reopening keeps the data and migrates nothing. */
		s = open_ok(path);
		ck_assert_int_eq(store_player_id(s, "a@example.org", 0, 1,
		    &id2), 0);
		ck_assert_int_eq(id, id2);
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

static Suite *
store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	tcase_add_test(tc, store_create_is_0600_wal_and_current);
	tcase_add_test(tc, store_migrates_from_every_earlier_version);
	tcase_add_test(tc, store_refuses_newer_database);
	tcase_add_test(tc, store_dedupe_key_unique);
	tcase_add_test(tc, store_outbox_due_retry_sent_failed);
	tcase_add_test(tc, store_timers_in_due_order);
	tcase_add_test(tc, store_message_note_bounces_and_replies);
	tcase_add_test(tc, play_create_move_reload_replay);
	tcase_add_test(tc, play_create_rejects_bad_players_and_options);
	tcase_add_test(tc, store_outbox_all_lists_every_row_in_id_order);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(store_suite());
}
