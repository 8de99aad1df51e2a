/* conf: ludus.yaml loading, errors, passwords, dump and documentation. */
#include "config.h"

#include <sys/stat.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "testutil.h"

#define ADDR	"referee:\n  address: referee@example.org\n"
#define TOP_LEVEL "state_dir, database, games_dir, templates_dir, " \
	"pid_file, referee, admin, postgresql, in, out, retention, limits, logging, metrics, " \
	"auth, clock, " \
	"almakleh, robots, club, ladder, site)"

static char path[512];
static char err[1024];

/* Write text to a file in the test directory; returns its path (static). */
static const char *
put(const char *name, const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tu_tmpdir(), name);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF ||
	    fclose(f) == EOF)
		ck_abort_msg("cannot write %s", path);
	return path;
}

static void
load_ok(const char *text, struct config *c)
{
	put("ok.yaml", text);
	ck_assert_msg(config_load(path, c, err, sizeof(err)) == 0,
	    "load failed: %s", err);
}

/* The file must be refused with exactly "PATH" + tail. */
static void
load_fails(const char *text, const char *tail)
{
	struct config c;
	char *want;

	put("bad.yaml", text);
	err[0] = '\0';
	ck_assert_int_eq(config_load(path, &c, err, sizeof(err)), -1);
	want = xasprintf("%s%s", path, tail);
	ck_assert_str_eq(err, want);
	free(want);
	/* A refused file leaves the defaults. */
	ck_assert_str_eq(c.referee.tag, "ludus");
	ck_assert_ptr_null(c.referee.address);
	config_free(&c);
}

/* Every problem of a file is named, each at its line, in the order of
 * the file; err holds the first. */
START_TEST(config_every_problem_is_named)
{
	struct config c;
	struct buf all = { 0 };
	const char *p;
	char *want;
	int n;

	put("bad.yaml", "referee:\n"
	    "  address: referee@example.org\n"
	    "  colour: blue\n"
	    "limits:\n"
	    "  lines: many\n"
	    "logging:\n"
	    "  level: loud\n"
	    "in:\n"
	    "  imap:\n"
	    "    url: imap://localhost/INBOX\n"
	    "  maildir:\n"
	    "    path: /tmp/m\n");
	ck_assert_int_eq(config_load_all(path, &c, err, sizeof(err), &all),
	    -1);
	want = xasprintf("%s:3: unknown setting `referee.colour`", path);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
	ck_assert_msg(strncmp(buf_str(&all), err, strlen(err)) == 0, "%s",
	    buf_str(&all));
	free(want);
	want = xasprintf("%s:5: limits.lines: ", path);
	ck_assert_msg(strstr(buf_str(&all), want) != NULL, "%s",
	    buf_str(&all));
	free(want);
	want = xasprintf("%s:7: logging.level: ", path);
	ck_assert_msg(strstr(buf_str(&all), want) != NULL, "%s",
	    buf_str(&all));
	free(want);
	want = xasprintf("%s:11: in: give imap or maildir, not both", path);
	ck_assert_msg(strstr(buf_str(&all), want) != NULL, "%s",
	    buf_str(&all));
	free(want);
	/* in.imap's user is required too: five problems, a line each. */
	want = xasprintf("%s:9: in.imap.user is required", path);
	ck_assert_msg(strstr(buf_str(&all), want) != NULL, "%s",
	    buf_str(&all));
	free(want);
	for (p = buf_str(&all), n = 0; (p = strchr(p, '\n')) != NULL; p++)
		n++;
	ck_assert_int_eq(n, 5);
	ck_assert_ptr_null(c.referee.address);
	config_free(&c);
	buf_free(&all);
}
END_TEST

static char *
slurp(const char *file)
{
	struct buf b = { 0 };
	char chunk[4096];
	size_t n;
	FILE *f;

	if ((f = fopen(file, "rb")) == NULL)
		ck_abort_msg("%s: %s", file, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return buf_steal(&b);
}

static char *
srcfile(const char *rel)
{
	const char *src = getenv("LUDUS_SRCDIR");

	return xasprintf("%s/%s", src && *src ? src : "..", rel);
}

/* A file the build made from its .in. */
static char *
builtfile(const char *rel)
{
	const char *b = getenv("LUDUS_BUILDDIR");

	return xasprintf("%s/%s", b && *b ? b : ".", rel);
}

START_TEST(config_defaults_are_the_documented_ones)
{
	struct config c;

	config_defaults(&c);
	ck_assert_ptr_null(c.referee.address);
	ck_assert_str_eq(c.referee.tag, "ludus");
	ck_assert_int_eq(c.referee.admins.n, 0);
	ck_assert_int_eq(c.referee.plus_addressing, 0);
	ck_assert_int_eq(c.referee.language, CONFIG_LANG_EN);
	ck_assert_int_eq(c.admin.auto_accept, 0);
	/* LOCALSTATEDIR/lib/ludus of this build (tests/paths.sh builds
	 * with other directories and reads them back). */
	ck_assert_str_eq(c.state_dir, LUDUS_STATEDIR);
	ck_assert_str_eq(c.database, LUDUS_STATEDIR "/ludus.db");
	ck_assert_str_eq(c.referee.secret_file, LUDUS_STATEDIR "/secret");
	ck_assert_ptr_null(c.pid_file);
	ck_assert_int_eq(c.in, CONFIG_IN_STDIN);
	ck_assert_int_eq(c.out, CONFIG_OUT_SENDMAIL);
	ck_assert_str_eq(c.sendmail, "/usr/sbin/sendmail");
	ck_assert_int_eq(c.imap.tls_verify, 1);
	ck_assert_int_eq(c.imap.idle, 1);
	ck_assert_int_eq(c.imap.starttls, CONFIG_STARTTLS_REQUIRED);
	ck_assert_int_eq(c.imap.poll_interval_ms, 60 * 1000);
	ck_assert_int_eq(c.imap.processed.kind, CONFIG_PROCESSED_MOVE);
	ck_assert_str_eq(c.imap.processed.arg, "Processed");
	ck_assert_int_eq(c.smtp.tls_verify, 1);
	ck_assert_int_eq(c.limits.message_size, 1024 * 1024);
	ck_assert_int_eq(c.limits.commands, 20);
	ck_assert_int_eq(c.logging.to, CONFIG_LOG_STDERR);
	ck_assert_int_eq(c.logging.level, CONFIG_LOG_INFO);
	ck_assert_int_eq(c.logging.facility, CONFIG_FAC_MAIL);
	ck_assert_ptr_null(c.auth.trust_authserv_id);
	ck_assert_int_eq(c.clock.move.fischer, 0);
	ck_assert_int_eq(c.clock.move.base_ms, 24LL * 3600 * 1000);
	ck_assert_int_eq(c.clock.reminders.n, 2);
	ck_assert_int_eq(c.clock.reminders.v[0], 50);
	ck_assert_int_eq(c.clock.reminders.v[1], 10);
	ck_assert_int_eq(c.clock.timeout_action, CONFIG_TIMEOUT_FORFEIT);
	ck_assert_int_eq(c.clock.vacation_ms, 30LL * 86400 * 1000);
	ck_assert_int_eq(c.clock.invitation_ms, 7LL * 86400 * 1000);
	ck_assert_int_eq(c.almakleh.cycle_deck, 1);
	ck_assert_int_eq(c.robots.budget_ms, 1000);
	ck_assert_int_eq(c.club.lists.n, 0);
	config_free(&c);
}
END_TEST

START_TEST(config_logging_maps_to_log_and_syslog)
{
	struct config c;

	ck_assert_int_eq(CONFIG_LOG_ERROR, LOG_LEVEL_ERROR);
	ck_assert_int_eq(CONFIG_LOG_WARNING, LOG_LEVEL_WARNING);
	ck_assert_int_eq(CONFIG_LOG_INFO, LOG_LEVEL_INFO);
	ck_assert_int_eq(CONFIG_LOG_DEBUG, LOG_LEVEL_DEBUG);
	config_defaults(&c);
	ck_assert_int_eq(config_syslog_facility(&c), LOG_MAIL);
	config_free(&c);
	load_ok(ADDR "logging:\n  facility: local7\n", &c);
	ck_assert_int_eq(config_syslog_facility(&c), LOG_LOCAL7);
	config_free(&c);
	load_ok(ADDR "logging:\n  facility: daemon\n", &c);
	ck_assert_int_eq(config_syslog_facility(&c), LOG_DAEMON);
	config_free(&c);
}
END_TEST

/* database: a path or sqlite:// is a file taken from the file's
 * directory; a PostgreSQL connection string is kept as written (or
 * refused, naming the missing support, by a build without libpq); its
 * password comes from postgresql, never from the string. */
START_TEST(config_database_kinds)
{
	struct config c;
	char *want;

	load_ok(ADDR "database: sqlite://games.db\n", &c);
	want = xasprintf("%s/games.db", tu_tmpdir());
	ck_assert_msg(strstr(c.database, "/games.db") != NULL &&
	    strstr(c.database, "sqlite:") == NULL, "%s", c.database);
	free(want);
	config_free(&c);
	load_fails(ADDR "database: mysql://db/ludus\n", ":3: database: "
	    "`mysql://` is not a kind of database ludus knows (a path, "
	    "sqlite:///PATH or postgresql://...)");
#ifdef HAVE_LIBPQ
	load_ok(ADDR "database: postgresql://ludus@db1,db2/ludus?"
	    "target_session_attrs=read-write\n"
	    "postgresql:\n  password_env: LUDUS_PG_PASSWORD\n", &c);
	ck_assert_str_eq(c.database, "postgresql://ludus@db1,db2/ludus?"
	    "target_session_attrs=read-write");
	ck_assert_str_eq(c.pg_cred.password_env, "LUDUS_PG_PASSWORD");
	config_free(&c);
	load_ok(ADDR "database: host=db1,db2 dbname=ludus\n", &c);
	ck_assert_str_eq(c.database, "host=db1,db2 dbname=ludus");
	config_free(&c);
	load_fails(ADDR "postgresql:\n  password_env: X\n", ":4: postgresql: "
	    "a password, but the database is not a PostgreSQL one");
	load_fails(ADDR "database: postgresql:///ludus\npostgresql:\n"
	    "  password_env: X\n  password_file: /x\n", ":5: postgresql: "
	    "give password_file or password_env, not both");
#else
	load_fails(ADDR "database: postgresql:///ludus\n", ":3: database: a "
	    "PostgreSQL database, but this ludus was built without PostgreSQL "
	    "support (libpq): rebuild it with libpq-dev installed, or give a "
	    "SQLite file");
#endif
}
END_TEST

START_TEST(config_minimal_file_is_the_address_alone)
{
	struct config c;

	load_ok("referee:\n  address: Referee@Example.ORG\n", &c);
	/* The domain is lower-cased, the local part kept. */
	ck_assert_str_eq(c.referee.address, "Referee@example.org");
	ck_assert_int_eq(c.in, CONFIG_IN_STDIN);
	ck_assert_int_eq(c.out, CONFIG_OUT_SENDMAIL);
	ck_assert_str_eq(c.file, path);
	config_free(&c);
}
END_TEST

START_TEST(config_address_is_required)
{
	load_fails("", ": referee.address is required");
	load_fails("# only a comment\n", ": referee.address is required");
	load_fails("limits:\n  lines: 20\nreferee:\n  name: Club\n",
	    ":3: referee.address is required");
}
END_TEST

START_TEST(config_duration_syntax)
{
	static const struct { const char *text; long long ms; } good[] = {
		{ "30s", 30000 }, { "5m", 300000 }, { "24h", 86400000 },
		{ "7d", 604800000 }, { "1w", 604800000 }, { "1h30m", 5400000 },
		{ "500ms", 500 }, { "90", 90000 }, { "2D", 172800000 },
		{ "0s", 0 },
	};
	static const char *const bad[] = { "", "5x", "h", "1.5h", "-1s",
		"1h 30m", "30 s", "99999999999999999999d", "1h30", "s5" };
	struct buf b = { 0 };
	long long ms;
	size_t i;

	for (i = 0; i < nitems(good); i++) {
		ck_assert_msg(config_parse_duration(good[i].text, &ms, err,
		    sizeof(err)) == 0, "%s: %s", good[i].text, err);
		ck_assert_int_eq(ms, good[i].ms);
	}
	for (i = 0; i < nitems(bad); i++)
		ck_assert_msg(config_parse_duration(bad[i], &ms, err,
		    sizeof(err)) == -1, "%s accepted", bad[i]);
	config_parse_duration("5x", &ms, err, sizeof(err));
	ck_assert_str_eq(err, "`5x` is not a duration (a number with ms, s, "
	    "m, h, d or w, such as 90s, 5m, 24h, 1h30m, 7d)");
	config_format_duration(90000, &b);
	buf_adds(&b, " ");
	config_format_duration(86400000 + 3600000 + 1, &b);
	buf_adds(&b, " ");
	config_format_duration(0, &b);
	ck_assert_str_eq(buf_str(&b), "1m30s 1d1h1ms 0s");
	buf_free(&b);
}
END_TEST

START_TEST(config_clock_spec_per_move_or_fischer)
{
	static const char *const bad[] = { "+1d", "7d+", "30s", "400d",
		"7d+31d", "x", "1d+1d+1d" };
	struct config_clock ck;
	struct buf b = { 0 };
	size_t i;

	ck_assert_int_eq(config_parse_clock("24h", &ck, err, sizeof(err)), 0);
	ck_assert_int_eq(ck.fischer, 0);
	ck_assert_int_eq(ck.base_ms, 86400000);
	ck_assert_int_eq(config_parse_clock("7d+1d", &ck, err, sizeof(err)),
	    0);
	ck_assert_int_eq(ck.fischer, 1);
	ck_assert_int_eq(ck.base_ms, 7LL * 86400000);
	ck_assert_int_eq(ck.increment_ms, 86400000);
	config_format_clock(&ck, &b);
	ck_assert_str_eq(buf_str(&b), "7d+1d");
	ck_assert_int_eq(config_parse_clock("3d+0", &ck, err, sizeof(err)), 0);
	ck_assert_int_eq(ck.fischer, 1);
	ck_assert_int_eq(ck.increment_ms, 0);
	for (i = 0; i < nitems(bad); i++)
		ck_assert_msg(config_parse_clock(bad[i], &ck, err,
		    sizeof(err)) == -1, "%s accepted", bad[i]);
	config_parse_clock("30s", &ck, err, sizeof(err));
	ck_assert_str_eq(err, "`30s`: the time per move must be between 1m "
	    "and 365d");
	buf_free(&b);
}
END_TEST

START_TEST(config_values_of_every_type_are_converted)
{
	struct config c;

	load_ok("referee:\n"
	    "  address: ref@club.example\n"
	    "  name: Club referee\n"
	    "  tag: club-1\n"
	    "  admins: [Boss@Club.Example, second@club.example]\n"
	    "  plus_addressing: yes\n"
	    "  language: RU\n"
	    "admin:\n  auto_accept: on\n"
	    "limits:\n"
	    "  message_size: 256k\n"
	    "  lines: 10\n"
	    "  commands: 1000\n"
	    "  error_replies: 0\n"
	    "logging: {to: syslog, level: debug, facility: local3}\n"
	    "auth:\n  trust_authserv_id: mx.club.example\n"
	    "clock:\n"
	    "  move: 7d+1d\n"
	    "  reminders: [75%, 25, 5%]\n"
	    "  timeout_action: notify\n"
	    "  vacation: 0s\n"
	    "almakleh:\n  cycle_deck: off\n"
	    "robots:\n  budget: 250ms\n"
	    "club:\n  lists: [<Club.Lists.Example>, club@lists.example]\n"
	    "in:\n  imap:\n"
	    "    url: imap://127.0.0.1:1143/Ludus%20In\n"
	    "    user: ref\n"
	    "    password_env: LUDUS_TEST_PW\n"
	    "    starttls: off\n"
	    "    processed: flag $Done\n"
	    "    poll_interval: 1h30m\n"
	    "    retry: {min: 100ms, max: 1s}\n"
	    "out:\n  smtp:\n    url: smtps://[::1]\n", &c);
	ck_assert_str_eq(c.referee.name, "Club referee");
	ck_assert_str_eq(c.referee.tag, "club-1");
	ck_assert_int_eq(c.referee.admins.n, 2);
	ck_assert_str_eq(c.referee.admins.v[0], "Boss@club.example");
	ck_assert_int_eq(c.referee.plus_addressing, 1);
	ck_assert_int_eq(c.referee.language, CONFIG_LANG_RU);
	ck_assert_int_eq(c.admin.auto_accept, 1);
	ck_assert_int_eq(c.limits.message_size, 256 * 1024);
	ck_assert_int_eq(c.limits.lines, 10);
	ck_assert_int_eq(c.limits.commands, 1000);
	ck_assert_int_eq(c.limits.error_replies, 0);
	ck_assert_int_eq(c.logging.to, CONFIG_LOG_SYSLOG);
	ck_assert_int_eq(c.logging.level, CONFIG_LOG_DEBUG);
	ck_assert_int_eq(c.logging.facility, CONFIG_FAC_LOCAL3);
	ck_assert_str_eq(c.auth.trust_authserv_id, "mx.club.example");
	ck_assert_int_eq(c.clock.move.fischer, 1);
	ck_assert_int_eq(c.clock.reminders.n, 3);
	ck_assert_int_eq(c.clock.reminders.v[1], 25);
	ck_assert_int_eq(c.clock.reminders.v[2], 5);
	ck_assert_int_eq(c.clock.timeout_action, CONFIG_TIMEOUT_NOTIFY);
	ck_assert_int_eq(c.clock.vacation_ms, 0);
	ck_assert_int_eq(c.almakleh.cycle_deck, 0);
	ck_assert_int_eq(c.robots.budget_ms, 250);
	ck_assert_int_eq(c.club.lists.n, 2);
	ck_assert_str_eq(c.club.lists.v[0], "club.lists.example");
	ck_assert_str_eq(c.club.lists.v[1], "club@lists.example");
	ck_assert_int_eq(c.in, CONFIG_IN_IMAP);
	ck_assert_str_eq(c.imap.url.host, "127.0.0.1");
	ck_assert_int_eq(c.imap.url.port, 1143);
	ck_assert_int_eq(c.imap.url.tls, 0);
	ck_assert_str_eq(c.imap.url.path, "Ludus In");
	ck_assert_str_eq(c.imap.cred.user, "ref");
	ck_assert_str_eq(c.imap.cred.password_env, "LUDUS_TEST_PW");
	ck_assert_str_eq(c.imap.cred.setting, "in.imap");
	ck_assert_int_eq(c.imap.starttls, CONFIG_STARTTLS_OFF);
	ck_assert_int_eq(c.imap.processed.kind, CONFIG_PROCESSED_FLAG);
	ck_assert_str_eq(c.imap.processed.arg, "$Done");
	ck_assert_int_eq(c.imap.poll_interval_ms, 5400000);
	ck_assert_int_eq(c.imap.retry_min_ms, 100);
	ck_assert_int_eq(c.imap.retry_max_ms, 1000);
	ck_assert_int_eq(c.out, CONFIG_OUT_SMTP);
	ck_assert_str_eq(c.smtp.url.host, "::1");
	ck_assert_int_eq(c.smtp.url.port, 465);
	ck_assert_int_eq(c.smtp.url.tls, 1);
	ck_assert_ptr_null(c.smtp.url.path);
	ck_assert_ptr_null(c.smtp.cred.user);
	config_free(&c);
}
END_TEST

START_TEST(config_url_defaults_and_mailbox)
{
	struct config c;

	load_ok(ADDR "in:\n  imap:\n    url: IMAPS://mail.example.org\n"
	    "    user: u\n    password_env: X\n"
	    "out:\n  smtp:\n    url: smtp://mail.example.org:587\n", &c);
	ck_assert_str_eq(c.imap.url.host, "mail.example.org");
	ck_assert_int_eq(c.imap.url.port, 993);
	ck_assert_int_eq(c.imap.url.tls, 1);
	ck_assert_str_eq(c.imap.url.path, "INBOX");
	ck_assert_int_eq(c.smtp.url.port, 587);
	ck_assert_int_eq(c.smtp.url.tls, 0);
	config_free(&c);
}
END_TEST

/* Each bad value is named by file, line, setting and what is allowed. */
START_TEST(config_bad_values_name_file_line_and_what_is_allowed)
{
	static const struct { const char *text, *tail; } cases[] = {
		{ ADDR "limits:\n  lines: 5\n",
		  ":4: limits.lines: `5` is out of range (between 10 and "
		  "1000000)" },
		{ ADDR "limits:\n  lines: ten\n",
		  ":4: limits.lines: `ten` is not a whole number" },
		{ ADDR "limits:\n  message_size: 1G\n",
		  ":4: limits.message_size: `1G` is out of range (between 1k "
		  "and 64M)" },
		{ ADDR "limits:\n  message_size: 12x\n",
		  ":4: limits.message_size: `12x` is not a size (bytes, or a "
		  "number with k, M or G, such as 256k or 10M)" },
		{ ADDR "in:\n  imap:\n    poll_interval: 100ms\n",
		  ":5: in.imap.poll_interval: `100ms` is out of range "
		  "(between 1s and 1d)" },
		{ ADDR "robots:\n  budget: soon\n",
		  ":4: robots.budget: `soon` is not a duration (a number with "
		  "ms, s, m, h, d or w, such as 90s, 5m, 24h, 1h30m, 7d)" },
		{ "referee:\n  address: a@b.example\n  plus_addressing: maybe\n",
		  ":3: referee.plus_addressing: `maybe` is not true or false "
		  "(also: yes, no, on, off)" },
		{ "referee:\n  language: de\n  address: a@b.example\n",
		  ":2: referee.language: `de` is not one of en, ru, ar" },
		{ "referee:\n  address: nobody\n",
		  ":2: referee.address: `nobody` is not a mail address "
		  "(local@domain)" },
		{ "referee:\n  address: a..b@example.org\n",
		  ":2: referee.address: `a..b@example.org` is not a mail "
		  "address (local@domain)" },
		{ "referee:\n  address: a@-example.org\n",
		  ":2: referee.address: `a@-example.org` is not a mail "
		  "address (local@domain)" },
		{ ADDR "  admins:\n    - boss@example.org\n    - boss\n",
		  ":5: referee.admins: `boss` is not a mail address "
		  "(local@domain)" },
		{ ADDR "club:\n  lists: [\"bad list\"]\n",
		  ":4: club.lists: `bad list` is not a mail address or a "
		  "List-Id" },
		{ ADDR "  tag: lu dus\n",
		  ":3: referee.tag: `lu dus` is not a tag (1-32 letters, "
		  "digits or hyphens)" },
		{ ADDR "  name: \"two\\nlines\"\n",
		  ":3: referee.name: control characters are not allowed" },
		{ ADDR "state_dir: ''\n",
		  ":3: state_dir: may not be empty" },
		{ ADDR "clock:\n  reminders: [10%, 50%]\n",
		  ":4: clock.reminders: percentages must be listed from the "
		  "largest down" },
		{ ADDR "clock:\n  reminders: [100%]\n",
		  ":4: clock.reminders: `100%` is not a percentage from 1% to "
		  "99%" },
		{ ADDR "clock:\n  move: 7d+1x\n",
		  ":4: clock.move: `7d+1x` is not a time control (time per "
		  "move such as 24h, or reserve+increment such as 7d+1d)" },
		{ ADDR "clock:\n  timeout_action: wait\n",
		  ":4: clock.timeout_action: `wait` is not one of forfeit, "
		  "notify" },
		{ ADDR "in:\n  imap:\n    url: http://mail.example.org\n",
		  ":5: in.imap.url: `http://mail.example.org` does not start "
		  "with imaps:// or imap://" },
		{ ADDR "in:\n  imap:\n    url: imaps://u:pw@mail.example.org\n",
		  ":5: in.imap.url: the URL may not hold a user or password: "
		  "use user and password_file or password_env" },
		{ ADDR "in:\n  imap:\n    url: imaps://mail.example.org:99999\n",
		  ":5: in.imap.url: `imaps://mail.example.org:99999` is not a "
		  "URL of the form imaps://HOST[:PORT][/MAILBOX]" },
		{ ADDR "out:\n  smtp:\n    url: smtps://mail.example.org/x\n",
		  ":5: out.smtp.url: an SMTP URL has no path" },
		{ ADDR "in:\n  imap:\n    processed: delete\n",
		  ":5: in.imap.processed: `delete` is not `move FOLDER` or "
		  "`flag KEYWORD` (KEYWORD: an IMAP keyword, \\Seen, "
		  "\\Answered or \\Flagged)" },
		{ ADDR "in:\n  imap:\n    processed: flag \\Deleted\n",
		  ":5: in.imap.processed: `flag \\Deleted` is not `move "
		  "FOLDER` or `flag KEYWORD` (KEYWORD: an IMAP keyword, "
		  "\\Seen, \\Answered or \\Flagged)" },
		{ ADDR "in:\n  imap:\n    password_env: 1PW\n",
		  ":5: in.imap.password_env: `1PW` is not an environment "
		  "variable name (letters, digits and _, not starting with a "
		  "digit)" },
		{ ADDR "in:\n  maildir:\n    processed: ../x\n",
		  ":5: in.maildir.processed: `../x` is not a folder name (no "
		  "slash, no leading dot, not new, cur or tmp)" },
		{ ADDR "in:\n  maildir:\n    processed: cur\n",
		  ":5: in.maildir.processed: `cur` is not a folder name (no "
		  "slash, no leading dot, not new, cur or tmp)" },
		{ ADDR "auth:\n  trust_authserv_id: mx example\n",
		  ":4: auth.trust_authserv_id: `mx example` is not an "
		  "authserv-id (no spaces or semicolons)" },
		{ ADDR "limits: 5\n",
		  ":3: limits must be a mapping of settings (message_size, "
		  "lines, commands, error_replies, info_replies)" },
		{ ADDR "limits:\n  lines: [1, 2]\n",
		  ":4: limits.lines takes one value, not a list" },
		{ ADDR "limits:\n  lines:\n    max: 3\n",
		  ":5: limits.lines takes a value, not a mapping" },
		{ ADDR "club:\n  lists: [[a@b.example]]\n",
		  ":4: club.lists: each item must be a single value" },
		{ ADDR "limits:\n  lines: 20\n  lines: 30\n",
		  ":5: limits.lines is given twice (first at line 4)" },
		{ ADDR "referee:\n  name: again\n",
		  ":3: referee is given twice (first at line 1)" },
		{ ADDR "  name: \"Ref\\0x\"\n",
		  ":3: referee.name: a NUL character is not allowed" },
		{ ADDR "club:\n  lists: [\"a@b.example\\0x\"]\n",
		  ":4: club.lists: each item must be a single value" },
		{ ADDR "in:\n  imap:\n    timeout:\n",
		  ":5: in.imap.timeout: a value is needed" },
		{ "[1, 2]\n",
		  ":1: the file must be a mapping of settings (" TOP_LEVEL },
	};
	size_t i;

	for (i = 0; i < nitems(cases); i++)
		load_fails(cases[i].text, cases[i].tail);
}
END_TEST

START_TEST(config_unknown_keys_at_every_level)
{
	load_fails(ADDR "colour: red\n",
	    ":3: unknown setting `colour` (the top level has: " TOP_LEVEL);
	load_fails(ADDR "  adress: x@y.example\n",
	    ":3: unknown setting `referee.adress` (referee has: address, name, "
	    "tag, admins, plus_addressing, secret_file, language)");
	load_fails(ADDR "in:\n  pop3: {}\n",
	    ":4: unknown setting `in.pop3` (in has: lmtp, imap, maildir)");
	load_fails(ADDR "in:\n  imap:\n    url: imaps://h.example\n"
	    "    pasword_env: X\n",
	    ":6: unknown setting `in.imap.pasword_env` (in.imap has: url, "
	    "user, password_file, password_env, ca_file, tls_verify, "
	    "starttls, processed, idle, poll_interval, timeout, retry)");
	load_fails(ADDR "out:\n  smtp:\n    retry:\n      min: 1s\n"
	    "      mx: 2s\n",
	    ":7: unknown setting `out.smtp.retry.mx` (out.smtp.retry has: "
	    "min, max)");
	/* A dotted key is not a shortcut for nesting. */
	load_fails(ADDR "limits.lines: 20\n",
	    ":3: unknown setting `limits.lines` (the top level has: "
	    TOP_LEVEL);
}
END_TEST

START_TEST(config_in_and_out_are_one_of_each)
{
	struct config c;

	load_fails(ADDR "in:\n  imap:\n    url: imaps://h.example\n"
	    "    user: u\n    password_env: P\n"
	    "  maildir:\n    path: /tmp/md\n",
	    ":8: in: give imap or maildir, not both (the other is at line 4)");
	load_fails(ADDR "out:\n  sendmail:\n    path: /usr/bin/true\n"
	    "  smtp:\n    url: smtps://h.example\n",
	    ":6: out: give smtp or sendmail, not both (the other is at line "
	    "4)");
	/* Neither: stdin in, sendmail out.  An empty section is allowed. */
	load_ok(ADDR "in:\nout: {}\n", &c);
	ck_assert_int_eq(c.in, CONFIG_IN_STDIN);
	ck_assert_int_eq(c.out, CONFIG_OUT_SENDMAIL);
	config_free(&c);
	load_ok(ADDR "in:\n  maildir:\n    path: md\n    processed: Done\n"
	    "out:\n  sendmail:\n    path: /usr/lib/sendmail\n", &c);
	ck_assert_int_eq(c.in, CONFIG_IN_MAILDIR);
	ck_assert_str_eq(c.maildir.processed, "Done");
	ck_assert_int_eq(c.out, CONFIG_OUT_SENDMAIL);
	ck_assert_str_eq(c.sendmail, "/usr/lib/sendmail");
	config_free(&c);
}
END_TEST

START_TEST(config_sections_require_their_settings)
{
	load_fails(ADDR "in:\n  imap:\n    user: u\n",
	    ":4: in.imap.url is required");
	load_fails(ADDR "in:\n  imap:\n    url: imaps://h.example\n",
	    ":4: in.imap.user is required");
	load_fails(ADDR "in:\n  imap:\n    url: imaps://h.example\n"
	    "    user: u\n",
	    ":4: in.imap: a user needs password_file or password_env");
	load_fails(ADDR "in:\n  imap:\n    url: imaps://h.example\n"
	    "    user: u\n    password_env: P\n    password_file: /x\n",
	    ":8: in.imap: give password_file or password_env, not both");
	load_fails(ADDR "in:\n  maildir: {}\n",
	    ":4: in.maildir.path is required");
	load_fails(ADDR "out:\n  smtp: {}\n", ":4: out.smtp.url is required");
	load_fails(ADDR "out:\n  smtp:\n    url: smtps://h.example\n"
	    "    password_env: P\n",
	    ":6: out.smtp: a password needs a user");
	load_fails(ADDR "in:\n  imap:\n    url: imaps://h.example\n"
	    "    user: u\n    password_env: P\n"
	    "    retry:\n      min: 10m\n      max: 1m\n",
	    ":9: in.imap.retry.min is above retry.max");
}
END_TEST

START_TEST(config_plain_text_only_on_loopback)
{
	struct config c;

	load_fails(ADDR "in:\n  imap:\n    url: imap://mail.example.org\n"
	    "    user: u\n    password_env: P\n    starttls: off\n",
	    ":8: in.imap.starttls: off is only allowed for a server on the "
	    "loopback interface, not mail.example.org");
	load_fails(ADDR "out:\n  smtp:\n    url: smtp://relay.example.org\n"
	    "    user: u\n    password_env: P\n    starttls: off\n",
	    ":8: out.smtp.starttls: off with a user is only allowed for a "
	    "server on the loopback interface, not relay.example.org");
	/* Without AUTH there is no password to protect. */
	load_ok(ADDR "out:\n  smtp:\n    url: smtp://relay.example.org\n"
	    "    starttls: off\n", &c);
	ck_assert_int_eq(c.smtp.starttls, CONFIG_STARTTLS_OFF);
	config_free(&c);
	load_ok(ADDR "in:\n  imap:\n    url: imap://localhost:10143\n"
	    "    user: u\n    password_env: P\n    starttls: off\n", &c);
	ck_assert_int_eq(c.imap.starttls, CONFIG_STARTTLS_OFF);
	config_free(&c);
}
END_TEST

START_TEST(config_plus_addressing_needs_a_plain_address)
{
	struct config c;

	load_fails("referee:\n  address: ref+x@example.org\n"
	    "  plus_addressing: true\n",
	    ":2: referee.address may not contain + when plus_addressing is "
	    "on");
	load_ok("referee:\n  address: ref+x@example.org\n", &c);
	config_free(&c);
}
END_TEST

START_TEST(config_relative_paths_follow_the_file)
{
	struct config c;
	char *want;

	load_ok(ADDR "state_dir: state\npid_file: run/ludusd.pid\n", &c);
	want = xasprintf("%s/state", tu_tmpdir());
	ck_assert_str_eq(c.state_dir, want);
	free(want);
	/* Derived defaults follow state_dir unless given. */
	want = xasprintf("%s/state/ludus.db", tu_tmpdir());
	ck_assert_str_eq(c.database, want);
	free(want);
	want = xasprintf("%s/state/secret", tu_tmpdir());
	ck_assert_str_eq(c.referee.secret_file, want);
	free(want);
	want = xasprintf("%s/run/ludusd.pid", tu_tmpdir());
	ck_assert_str_eq(c.pid_file, want);
	free(want);
	config_free(&c);
	load_ok(ADDR "state_dir: /srv/ludus\ndatabase: /data/l.db\n", &c);
	ck_assert_str_eq(c.database, "/data/l.db");
	ck_assert_str_eq(c.referee.secret_file, "/srv/ludus/secret");
	config_free(&c);
}
END_TEST

START_TEST(config_default_path_from_environment_or_sysconfdir)
{
	setenv("LUDUS_CONFIG", "/srv/ludus.yaml", 1);
	ck_assert_str_eq(config_default_path(), "/srv/ludus.yaml");
	unsetenv("LUDUS_CONFIG");
	ck_assert_str_eq(config_default_path(),
	    LUDUS_SYSCONFDIR "/ludus/ludus.yaml");
	ck_assert_ptr_nonnull(strstr(config_default_path(), "/etc/"));
}
END_TEST

START_TEST(config_file_must_be_a_readable_file)
{
	struct config c;

	ck_assert_int_eq(config_load(tu_tmpdir(), &c, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, ": not a regular file"));
	config_free(&c);
	ck_assert_int_eq(config_load("/nonexistent/ludus.yaml", &c, err,
	    sizeof(err)), -1);
	ck_assert_str_eq(err, "/nonexistent/ludus.yaml: No such file or "
	    "directory");
	ck_assert_str_eq(c.referee.tag, "ludus");
	config_free(&c);
}
END_TEST

START_TEST(config_ca_file_must_exist)
{
	load_fails(ADDR "in:\n  imap:\n    url: imaps://h.example\n"
	    "    user: u\n    password_env: P\n"
	    "    ca_file: /nonexistent/ca.pem\n",
	    ":8: in.imap.ca_file: /nonexistent/ca.pem: No such file or "
	    "directory");
}
END_TEST

START_TEST(config_yaml_syntax_errors_name_line_and_column)
{
	/* A tab cannot indent YAML. */
	load_fails("referee:\n\taddress: a@b.example\n",
	    ":2:1: found character that cannot start any token while "
	    "scanning for the next token");
	load_fails(ADDR "limits: {lines: 20\n",
	    ":4:1: did not find expected ',' or '}' while parsing a flow "
	    "mapping");
	load_fails(ADDR "---\nlimits: {}\n",
	    ":4: only one YAML document is allowed");
	/* Reader errors carry only an offset: the line is counted. */
	load_fails(ADDR "limits:\n  lines: 2\xff\n",
	    ":4: invalid leading UTF-8 octet (byte 59 of the file)");
	load_fails(ADDR "\x01\n", ":3: control characters are not allowed "
	    "(byte 41 of the file)");
}
END_TEST

START_TEST(config_deep_nesting_and_alias_bombs_are_refused)
{
	struct buf b = { 0 };
	struct config c;
	clock_t t0;
	int i;

	/* 5000 levels under a setting that takes a value. */
	buf_adds(&b, ADDR "limits:\n  lines: ");
	for (i = 0; i < 5000; i++)
		buf_adds(&b, "{a: ");
	buf_adds(&b, "1");
	for (i = 0; i < 5000; i++)
		buf_adds(&b, "}");
	buf_adds(&b, "\n");
	load_fails(b.s, ":4: limits.lines takes a value, not a mapping");
	/* And as block mappings under an unknown key. */
	buf_reset(&b);
	buf_adds(&b, ADDR "deep:\n");
	for (i = 1; i < 200; i++)
		buf_printf(&b, "%*sk:\n", i, "");
	load_fails(b.s, ":3: unknown setting `deep` (the top level has: "
	    TOP_LEVEL);
	/* Aliases fanning out 10^9 times are never expanded. */
	buf_reset(&b);
	buf_adds(&b, ADDR "club:\n  lists: &l0 [x@y.example, x@y.example]\n"
	    "anchors:\n");
	for (i = 1; i < 10; i++)
		buf_printf(&b, "  l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, "
		    "*l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i - 1, i - 1,
		    i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	t0 = clock();
	load_fails(b.s, ":5: unknown setting `anchors` (the top level has: "
	    TOP_LEVEL);
	ck_assert_msg(clock() - t0 < 2 * CLOCKS_PER_SEC, "alias bomb expanded");
	/* An alias of a list used where a list belongs is fine. */
	load_ok("referee:\n  address: r@example.org\n"
	    "  admins: &admins [a@example.org, b@example.org]\n"
	    "club:\n  lists: *admins\n", &c);
	ck_assert_int_eq(c.club.lists.n, 2);
	config_free(&c);
	buf_free(&b);
}
END_TEST

START_TEST(config_password_file_must_be_private)
{
	struct config_cred cr = { "in.imap", "u", NULL, NULL };
	char *pw, *want;

	cr.password_file = xstrdup(put("pw", "s3cret\nsecond line\n"));
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(config_password(&cr, &pw, err, sizeof(err)), -1);
	ck_assert_ptr_null(pw);
	want = xasprintf("in.imap.password_file: %s: others may read it "
	    "(mode 0644); chmod o-rwx it", path);
	ck_assert_str_eq(err, want);
	free(want);
	ck_assert_int_eq(chmod(path, 0602), 0);
	ck_assert_int_eq(config_password(&cr, &pw, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "others may write it (mode 0602)"));
	ck_assert_int_eq(chmod(path, 0640), 0);
	ck_assert_int_eq(config_password(&cr, &pw, err, sizeof(err)), 0);
	ck_assert_str_eq(pw, "s3cret");
	config_password_free(pw);
	/* CRLF files and files without a final newline. */
	put("pw", "s3cret\r\n");
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_eq(config_password(&cr, &pw, err, sizeof(err)), 0);
	ck_assert_str_eq(pw, "s3cret");
	config_password_free(pw);
	put("pw", "last");
	ck_assert_int_eq(config_password(&cr, &pw, err, sizeof(err)), 0);
	ck_assert_str_eq(pw, "last");
	config_password_free(pw);
	put("pw", "\nsecond\n");
	ck_assert_int_eq(config_password(&cr, &pw, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "the first line is empty"));
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(config_password(&cr, &pw, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "No such file or directory"));
	free(cr.password_file);
}
END_TEST

/* systemd's LoadCredential=imap.password:/etc/ludus/imap.password: the
 * credential stands in for the file of the same name, which the service
 * itself need not be able to read. */
START_TEST(config_password_from_a_systemd_credential)
{
	struct config_cred cr = { "in.imap", "u", NULL, NULL };
	char *pw;

	put("imap.password", "from-systemd\n");
	ck_assert_int_eq(chmod(path, 0400), 0);
	cr.password_file = "/nonexistent/etc/ludus/imap.password";
	unsetenv("CREDENTIALS_DIRECTORY");
	ck_assert_int_eq(config_password(&cr, &pw, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/etc/ludus/"
	    "imap.password: No such file"));
	setenv("CREDENTIALS_DIRECTORY", tu_tmpdir(), 1);
	ck_assert_msg(config_password(&cr, &pw, err, sizeof(err)) == 0, "%s",
	    err);
	ck_assert_str_eq(pw, "from-systemd");
	config_password_free(pw);
	/* No credential of that name: the file itself, as without systemd. */
	cr.password_file = "/nonexistent/etc/ludus/smtp.password";
	ck_assert_int_eq(config_password(&cr, &pw, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/etc/ludus/"
	    "smtp.password: No such file"));
	unsetenv("CREDENTIALS_DIRECTORY");
}
END_TEST

START_TEST(config_password_from_the_environment)
{
	struct config_cred cr = { "out.smtp", "u", NULL, NULL };
	char *pw;

	cr.password_env = "LUDUS_TEST_UNSET_PW";
	unsetenv("LUDUS_TEST_UNSET_PW");
	ck_assert_int_eq(config_password(&cr, &pw, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "out.smtp.password_env: the environment "
	    "variable LUDUS_TEST_UNSET_PW is not set");
	setenv("LUDUS_TEST_UNSET_PW", "hunter2", 1);
	ck_assert_int_eq(config_password(&cr, &pw, err, sizeof(err)), 0);
	ck_assert_str_eq(pw, "hunter2");
	config_password_free(pw);
	unsetenv("LUDUS_TEST_UNSET_PW");
}
END_TEST

START_TEST(config_dump_never_shows_a_password)
{
	struct config c;
	struct buf b = { 0 };
	char *pw, *file;

	setenv("LUDUS_TEST_IMAP_PW", "Imap-Pass-4417", 1);
	file = xstrdup(put("smtp.pw", "Smtp-Pass-9923\n"));
	ck_assert_int_eq(chmod(file, 0600), 0);
	put("cfg.yaml", ADDR "in:\n  imap:\n    url: imaps://h.example\n"
	    "    user: ref\n    password_env: LUDUS_TEST_IMAP_PW\n"
	    "out:\n  smtp:\n    url: smtps://h.example\n    user: ref\n"
	    "    password_file: smtp.pw\n");
	ck_assert_msg(config_load(path, &c, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(config_check_passwords(&c, err, sizeof(err)), 0);
	ck_assert_int_eq(config_password(&c.imap.cred, &pw, err, sizeof(err)),
	    0);
	ck_assert_str_eq(pw, "Imap-Pass-4417");
	config_password_free(pw);
	ck_assert_int_eq(config_password(&c.smtp.cred, &pw, err, sizeof(err)),
	    0);
	ck_assert_str_eq(pw, "Smtp-Pass-9923");
	config_password_free(pw);
	config_dump(&c, &b);
	ck_assert_ptr_null(strstr(b.s, "Imap-Pass"));
	ck_assert_ptr_null(strstr(b.s, "Smtp-Pass"));
	/* Where the passwords come from is shown. */
	ck_assert_ptr_nonnull(strstr(b.s, "    password_env: "
	    "LUDUS_TEST_IMAP_PW\n"));
	ck_assert_ptr_nonnull(strstr(b.s, file));
	buf_free(&b);
	config_free(&c);
	/* A missing variable is found by the -n check. */
	unsetenv("LUDUS_TEST_IMAP_PW");
	put("cfg.yaml", ADDR "in:\n  imap:\n    url: imaps://h.example\n"
	    "    user: ref\n    password_env: LUDUS_TEST_IMAP_PW\n");
	ck_assert_msg(config_load(path, &c, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(config_check_passwords(&c, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "in.imap.password_env: the environment variable "
	    "LUDUS_TEST_IMAP_PW is not set");
	config_free(&c);
	free(file);
}
END_TEST

START_TEST(config_dump_reads_back_to_the_same_settings)
{
	struct config c, d;
	struct buf b1 = { 0 }, b2 = { 0 };
	char longname[200], *text;

	memset(longname, 'p', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	text = xasprintf("referee:\n  address: ref@example.org\n  name: \"Ref: #1\"\n"
	    "  admins: [a@example.org]\n"
	    "state_dir: \"/srv/ludus:\"\n"
	    /* Resolved against the directory, longer than any header. */
	    "pid_file: run/%s.pid\n"
	    "in:\n  maildir:\n    path: /var/mail/ref\n"
	    "out:\n  smtp:\n    url: smtp://relay.example.org:587\n"
	    "    user: \"null\"\n    password_file: /etc/pw\n"
	    "    retry: {min: 90s}\n"
	    "clock:\n  move: 3d+12h\n  reminders: []\n"
	    "club:\n  lists: [l.example.org]\n", longname);
	load_ok(text, &c);
	free(text);
	config_dump(&c, &b1);
	ck_assert_ptr_nonnull(strstr(b1.s, "\n      min: 1m30s\n"));
	ck_assert_ptr_nonnull(strstr(b1.s, "\n  move: 3d+12h\n"));
	ck_assert_ptr_nonnull(strstr(b1.s, "\n  name: \"Ref: #1\"\n"));
	ck_assert_ptr_nonnull(strstr(b1.s, "\n    user: \"null\"\n"));
	ck_assert_ptr_nonnull(strstr(b1.s, "\nstate_dir: \"/srv/ludus:\"\n"));
	ck_assert_ptr_nonnull(strstr(b1.s, "\n  reminders: []\n"));
	/* Only the chosen in and out sections are shown. */
	ck_assert_ptr_null(strstr(b1.s, "imap"));
	ck_assert_ptr_null(strstr(b1.s, "sendmail"));
	put("dump.yaml", b1.s);
	ck_assert_msg(config_load(path, &d, err, sizeof(err)) == 0, "%s\n%s",
	    err, b1.s);
	config_dump(&d, &b2);
	ck_assert_str_eq(b1.s, b2.s);
	ck_assert_str_eq(d.smtp.cred.user, "null");
	config_free(&c);
	config_free(&d);
	buf_free(&b1);
	buf_free(&b2);
}
END_TEST

START_TEST(config_sample_is_generated_and_loads)
{
	char *file = srcfile("contrib/ludus.yaml.sample.in"), *text, *line, *p;
	char *copy;
	struct buf gen = { 0 }, dd = { 0 }, ds = { 0 };
	struct config c, def;
	size_t k;
	int i, n;

	text = slurp(file);
	config_doc_sample(&gen);
	ck_assert_msg(strcmp(text, gen.s) == 0, "%s is not what the settings "
	    "table says: run `make config-doc`", file);
	ck_assert_msg(config_load(file, &c, err, sizeof(err)) == 0, "%s", err);
	/* One setting line (maybe commented out) per setting: `key: `
	 * after indentation and an optional #, which help lines lack. */
	for (n = 0, line = text; *line; line = strchr(line, '\n') + 1) {
		for (p = line; *p == ' '; p++)
			;
		p += *p == '#';
		k = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
		n += k > 0 && p[k] == ':' && p[k + 1] == ' ';
	}
	for (i = 0; config_setting_name(i) != NULL; i++)
		;
	ck_assert_int_eq(n, i);
	/* Its values are the defaults: every line of the defaults' dump
	 * outside the sections the sample leaves out is in the sample's. */
	config_defaults(&def);
	config_dump(&def, &dd);
	config_dump(&c, &ds);
	for (line = dd.s; *line; line = p + 1) {
		p = strchr(line, '\n');
		*p = '\0';
		if (strcmp(line, "  address: \"\"") != 0 &&
		    strcmp(line, "out:") != 0 && strcmp(line, "  sendmail:") &&
		    strcmp(line, "    path: /usr/sbin/sendmail") != 0) {
			*p = '\n';
			copy = xstrndup(line, (size_t)(p - line + 1));
			ck_assert_msg(strstr(ds.s, copy) != NULL,
			    "sample lacks `%.*s`", (int)(p - line), line);
			free(copy);
		}
		*p = '\n';
	}
	ck_assert_int_eq(c.in, CONFIG_IN_IMAP);
	ck_assert_int_eq(c.out, CONFIG_OUT_SMTP);
	config_free(&c);
	config_free(&def);
	buf_free(&gen);
	buf_free(&dd);
	buf_free(&ds);
	free(text);
	free(file);
}
END_TEST

START_TEST(config_man_page_is_generated_and_its_examples_load)
{
	char *file = srcfile("man/ludus.yaml.5.in"), *text, *begin, *end, *want;
	char *p, *q, *example;
	struct buf gen = { 0 };
	struct config c;
	const char *name;
	int i, n;

	text = slurp(file);
	begin = strstr(text, ".\\\" BEGIN SETTINGS\n");
	end = begin ? strstr(begin, ".\\\" END SETTINGS\n") : NULL;
	ck_assert_msg(end != NULL, "%s lacks the settings markers", file);
	begin += strlen(".\\\" BEGIN SETTINGS\n");
	config_doc_man(&gen);
	ck_assert_msg(strlen(gen.s) == (size_t)(end - begin) &&
	    strncmp(begin, gen.s, gen.len) == 0, "%s is not what the settings "
	    "table says: run `make config-doc`", file);
	for (i = 0; (name = config_setting_name(i)) != NULL; i++) {
		want = xasprintf(".It Ic %s ", name);
		ck_assert_msg(strstr(begin, want) != NULL && strstr(begin,
		    want) < end, "%s is not in %s", name, file);
		free(want);
	}
	ck_assert_int_ge(i, 50);
	/* The examples of the manual as built (this build's directories in
	 * place of @sysconfdir@ and the like) load. */
	free(text);
	free(file);
	file = builtfile("man/ludus.yaml.5");
	text = slurp(file);
	ck_assert_ptr_null(strstr(text, "@sysconfdir@"));
	n = 0;
	for (p = strstr(text, ".Sh EXAMPLES\n");
	    p != NULL && (p = strstr(p, ".Bd -literal -offset indent\n"));
	    p = q) {
		p += strlen(".Bd -literal -offset indent\n");
		q = strstr(p, ".Ed\n");
		ck_assert_ptr_nonnull(q);
		example = xstrndup(p, (size_t)(q - p));
		put("example.yaml", example);
		ck_assert_msg(config_load(path, &c, err, sizeof(err)) == 0,
		    "example %d: %s\n%s", n + 1, err, example);
		config_free(&c);
		free(example);
		n++;
	}
	ck_assert_int_eq(n, 3);
	buf_free(&gen);
	free(text);
	free(file);
}
END_TEST

static Suite *
config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");

	tcase_add_test(tc, config_defaults_are_the_documented_ones);
	tcase_add_test(tc, config_logging_maps_to_log_and_syslog);
	tcase_add_test(tc, config_minimal_file_is_the_address_alone);
	tcase_add_test(tc, config_address_is_required);
	tcase_add_test(tc, config_duration_syntax);
	tcase_add_test(tc, config_clock_spec_per_move_or_fischer);
	tcase_add_test(tc, config_values_of_every_type_are_converted);
	tcase_add_test(tc, config_url_defaults_and_mailbox);
	tcase_add_test(tc, config_bad_values_name_file_line_and_what_is_allowed);
	tcase_add_test(tc, config_unknown_keys_at_every_level);
	tcase_add_test(tc, config_in_and_out_are_one_of_each);
	tcase_add_test(tc, config_sections_require_their_settings);
	tcase_add_test(tc, config_plain_text_only_on_loopback);
	tcase_add_test(tc, config_plus_addressing_needs_a_plain_address);
	tcase_add_test(tc, config_relative_paths_follow_the_file);
	tcase_add_test(tc, config_default_path_from_environment_or_sysconfdir);
	tcase_add_test(tc, config_file_must_be_a_readable_file);
	tcase_add_test(tc, config_ca_file_must_exist);
	tcase_add_test(tc, config_yaml_syntax_errors_name_line_and_column);
	tcase_add_test(tc, config_deep_nesting_and_alias_bombs_are_refused);
	tcase_add_test(tc, config_password_file_must_be_private);
	tcase_add_test(tc, config_password_from_the_environment);
	tcase_add_test(tc, config_every_problem_is_named);
	tcase_add_test(tc, config_password_from_a_systemd_credential);
	tcase_add_test(tc, config_dump_never_shows_a_password);
	tcase_add_test(tc, config_dump_reads_back_to_the_same_settings);
	tcase_add_test(tc, config_database_kinds);
	tcase_add_test(tc, config_sample_is_generated_and_loads);
	tcase_add_test(tc, config_man_page_is_generated_and_its_examples_load);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(config_suite());
}
