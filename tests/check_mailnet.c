/* The mail edges against real servers: a private Dovecot and Postfix from
 * tests/mailenv, started once for this program.  SMTP out (smtp.c), IMAP
 * in (imap.c) with its TLS verification, Maildir in (maildir.c), sendmail
 * through a stand-in script, backoff.  What the servers did is checked
 * independently where it can be: Postfix's log, Dovecot's files. */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backoff.h"
#include "imap.h"
#include "maildir.h"
#include "smtp.h"
#include "util.h"

static char sandbox[64];
static const char *mailenv;	/* path of the script */

static const char *
env(const char *name)
{
	const char *v = getenv(name);

	if (v == NULL) {
		fprintf(stderr, "%s not set by mailenv\n", name);
		exit(99);
	}
	return v;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
run_mailenv(const char *cmd)
{
	char *line = xasprintf("bash '%s' %s %s", mailenv, cmd, sandbox);
	int st = system(line);

	ck_assert_msg(st == 0, "%s failed", line);
	free(line);
}

/* A token that no other test run's messages contain. */
static char *
token(const char *what)
{
	static unsigned n;

	return xasprintf("%s-%ld-%u-%ld", what, (long)getpid(), ++n,
	    (long)time(NULL));
}

static char *
message(const char *from, const char *to, const char *subject)
{
	return xasprintf("From: <%s>\nTo: <%s>\nSubject: %s\n"
	    "Message-ID: <%s@test.ludus>\n\nHello.\n.leading dot line\n",
	    from, to, subject, subject);
}

static struct smtp_settings
smtp_plain(void)
{
	static char url[64];
	struct smtp_settings s = { 0 };

	snprintf(url, sizeof(url), "smtp://127.0.0.1:%s",
	    env("MAILENV_SMTP_PORT"));
	s.url = url;
	s.plain = 1;
	s.connect_timeout = 15;
	s.timeout = 20;
	return s;
}

/* Send one message by plain SMTP; asserts it was accepted. */
static void
send_one(const char *from, const char *to, const char *subject)
{
	struct smtp_settings set = smtp_plain();
	struct smtp_msg m = { 0 };
	const char *rcpt[1] = { to };
	char err[256], *data = message(from, to, subject);

	m.data = data;
	m.len = strlen(data);
	m.from = from;
	m.rcpt = rcpt;
	m.nrcpt = 1;
	ck_assert_int_eq(smtp_send_batch(&set, &m, 1, err, sizeof(err)), 1);
	ck_assert_int_eq(m.status, SMTP_SENT);
	free(data);
}

static struct imap_settings
imap_set(const char *user, int tls)
{
	static char url[64], pass[32];
	struct imap_settings s = { 0 };

	if (tls)
		snprintf(url, sizeof(url), "imaps://localhost:%s",
		    env("MAILENV_IMAPS_PORT"));
	else
		snprintf(url, sizeof(url), "imap://127.0.0.1:%s",
		    env("MAILENV_IMAP_PORT"));
	snprintf(pass, sizeof(pass), "%s%s", user,
	    env("MAILENV_PASSWORD_SUFFIX"));
	s.url = url;
	s.user = user;
	s.password = pass;
	s.ca_file = tls ? env("MAILENV_CA_FILE") : NULL;
	s.plain = !tls;
	s.timeout = 10;
	s.processed = "Processed";
	return s;
}

static struct imap *
imap_open(const struct imap_settings *set)
{
	struct imap *im = imap_new(set);
	char err[512];

	ck_assert_msg(imap_connect(im, err, sizeof(err)) == 0, "%s", err);
	return im;
}

/* The UID of the message whose text holds tok, waiting for delivery up to
 * 5 s; 0 when it never shows. */
static uint32_t
find_uid(struct imap *im, const char *tok)
{
	double end = now() + 5;
	char err[512];

	do {
		uint32_t *uids, found = 0;
		size_t n, i;

		ck_assert_msg(imap_search(im, &uids, &n, err, sizeof(err)) == 0,
		    "%s", err);
		for (i = 0; i < n && found == 0; i++) {
			char *data;
			size_t len;

			ck_assert_msg(imap_fetch(im, uids[i], &data, &len, err,
			    sizeof(err)) == 0, "%s", err);
			if (strstr(data, tok) != NULL)
				found = uids[i];
			free(data);
		}
		free(uids);
		if (found != 0)
			return found;
		usleep(50 * 1000);
	} while (now() < end);
	return 0;
}

static char *
slurp(const char *path)
{
	size_t len;
	char *s = util_read_file(path, SIZE_MAX, &len);

	ck_assert_ptr_nonnull(s);
	return s;
}

/* The path of the file in a Maildir folder (relative to the user's
 * Maildir, e.g. "" or ".Processed") whose contents hold tok; NULL if none.
 * Read straight from disk, not through IMAP. */
static char *
maildir_file_with(const char *user, const char *folder, const char *tok)
{
	static const char *const subs[] = { "new", "cur" };
	size_t i;

	for (i = 0; i < 2; i++) {
		char *dir = xasprintf("%s/%s/Maildir/%s/%s",
		    env("MAILENV_MAILDIRS"), user, folder, subs[i]);
		DIR *d = opendir(dir);
		struct dirent *de;

		while (d != NULL && (de = readdir(d)) != NULL) {
			char *path, *text;
			int hit;

			if (de->d_name[0] == '.')
				continue;
			path = xasprintf("%s/%s", dir, de->d_name);
			text = slurp(path);
			hit = strstr(text, tok) != NULL;
			free(text);
			if (hit) {
				closedir(d);
				free(dir);
				return path;
			}
			free(path);
		}
		if (d != NULL)
			closedir(d);
		free(dir);
	}
	return NULL;
}

/* Lines of Postfix's log holding s. */
static int
maillog_count(const char *s)
{
	FILE *f = fopen(env("MAILENV_MAILLOG"), "r");
	char line[2048];
	int n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, s) != NULL)
			n++;
	fclose(f);
	return n;
}

/* Wait up to 5 s for Postfix's asynchronous log to hold s. */
static int
maillog_wait(const char *s)
{
	double end = now() + 5;

	while (maillog_count(s) == 0 && now() < end)
		usleep(20 * 1000);
	return maillog_count(s);
}

/* smtpd's lines for connections closed with QUIT that sent mail: how
 * many, and (in *mails) their MAIL commands in all. */
static int
maillog_conns(int *mails)
{
	FILE *f = fopen(env("MAILENV_MAILLOG"), "r");
	char line[2048], *p;
	int n = 0;

	ck_assert_ptr_nonnull(f);
	*mails = 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, "disconnect from") != NULL &&
		    strstr(line, " quit=1") != NULL &&
		    (p = strstr(line, " mail=")) != NULL) {
			n++;
			*mails += atoi(p + 6);
		}
	fclose(f);
	return n;
}

START_TEST(smtp_batch_uses_two_connections_kept)
{
	struct smtp_settings set = smtp_plain();
	struct smtp_msg m[3];
	const char *to[3] = { "alice@ludus.test", "bob@ludus.test",
	    "carol@ludus.test" };
	char *tok[3], *data[3], err[256];
	double end;
	int before, before_mails, conns, mails, i;

	before = maillog_conns(&before_mails);
	memset(m, 0, sizeof(m));
	for (i = 0; i < 3; i++) {
		tok[i] = token("batch");
		data[i] = message("referee@ludus.test", to[i], tok[i]);
		m[i].data = data[i];
		m[i].len = strlen(data[i]);
		m[i].from = "referee@ludus.test";
		m[i].rcpt = &to[i];
		m[i].nrcpt = 1;
	}
	ck_assert_int_eq(smtp_send_batch(&set, m, 3, err, sizeof(err)), 3);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(m[i].status, SMTP_SENT);
		ck_assert_int_eq(m[i].code, 250);
	}
	/* The connections are kept: the next batch goes over them too, and
	 * they are closed (QUIT) when released. */
	ck_assert_int_eq(smtp_send_batch(&set, m, 1, err, sizeof(err)), 1);
	smtp_release();
	/* smtpd logs one line per connection with its command counts; the
	 * log is written asynchronously, so wait for it. */
	end = now() + 5;
	while ((maillog_conns(&mails), mails - before_mails < 4) &&
	    now() < end)
		usleep(20 * 1000);
	conns = maillog_conns(&mails) - before;
	ck_assert_int_eq(mails - before_mails, 4);
	/* Two messages to different players went out at once. */
	ck_assert_int_eq(conns, 2);
	for (i = 0; i < 3; i++) {
		struct imap_settings is;
		char user[16];
		struct imap *im;

		util_strlcpy(user, to[i], sizeof(user));
		*strchr(user, '@') = '\0';
		is = imap_set(user, 0);
		im = imap_open(&is);
		ck_assert_msg(find_uid(im, tok[i]) != 0, "%s not delivered",
		    tok[i]);
		imap_free(im);
		free(tok[i]);
		free(data[i]);
	}
}
END_TEST

/*
 * A stand-in SMTP server that shows what a client does at once: a process
 * per connection, each message's DATA command ("start RCPT") and its
 * answer after the data ("end RCPT SUBJECT") appended as lines to a log
 * shared by them all, in the order they happen.  A message whose subject
 * begins with "slow" is answered 400 ms late.
 */
static void
fake_log(const char *logpath, const char *what, const char *rcpt,
    const char *subject)
{
	FILE *log = fopen(logpath, "a");

	ck_assert_ptr_nonnull(log);
	fprintf(log, "%s %s %s\n", what, rcpt, subject);
	fclose(log);
}

static void
fake_smtp_conn(int fd, const char *logpath)
{
	FILE *in = fdopen(fd, "r");
	char line[1024], rcpt[256] = "", subject[256] = "";
	int data = 0;

	dprintf(fd, "220 fake ESMTP\r\n");
	while (in != NULL && fgets(line, sizeof(line), in) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (data) {
			if (strncmp(line, "Subject: ", 9) == 0)
				util_strlcpy(subject, line + 9,
				    sizeof(subject));
			if (strcmp(line, ".") != 0)
				continue;
			data = 0;
			if (strncmp(subject, "slow", 4) == 0)
				usleep(400 * 1000);
			fake_log(logpath, "end", rcpt, subject);
			dprintf(fd, "250 2.0.0 queued\r\n");
		} else if (strncmp(line, "EHLO", 4) == 0)
			dprintf(fd, "250-fake\r\n250 8BITMIME\r\n");
		else if (strncmp(line, "RCPT TO:", 8) == 0) {
			util_strlcpy(rcpt, line + 8, sizeof(rcpt));
			dprintf(fd, "250 2.1.5 ok\r\n");
		} else if (strncmp(line, "DATA", 4) == 0) {
			data = 1;
			fake_log(logpath, "start", rcpt, "-");
			dprintf(fd, "354 go ahead\r\n");
		} else if (strncmp(line, "QUIT", 4) == 0) {
			dprintf(fd, "221 bye\r\n");
			break;
		} else
			dprintf(fd, "250 ok\r\n");
	}
	_exit(0);
}

/* Start the stand-in on a loopback port; its pid. */
static pid_t
fake_smtp(const char *logpath, int *port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int lfd, fd;
	pid_t pid;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(lfd, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(lfd, 8), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	if ((pid = fork()) != 0) {
		close(lfd);
		return pid;
	}
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		if ((fd = accept(lfd, NULL, NULL)) == -1)
			continue;
		if (fork() == 0) {
			close(lfd);
			fake_smtp_conn(fd, logpath);
		}
		close(fd);
	}
}

/* Over two connections, a player's mail is still handed over in order
 * and one message at a time: a slow first mail to alice holds her later
 * ones back while bob's go on over the other connection; every message
 * gets its answer once. */
START_TEST(smtp_batch_keeps_each_recipients_order)
{
	struct smtp_settings set = { 0 };
	struct smtp_msg m[8];
	const char *alice = "alice@ludus.test", *bob = "bob@ludus.test";
	char logpath[] = "/tmp/ludus-fake-smtp.XXXXXX", url[64], line[512];
	char *data[8], subject[64], who[64], what[16], want[64];
	int port, fd, i, ends = 0, open_alice = 0, open_bob = 0, *open;
	int alice_seen = 0, bob_seen = 0, *seen, slow_open = 0, meanwhile = 0;
	pid_t pid;
	FILE *f;

	fd = mkstemp(logpath);
	ck_assert_int_ge(fd, 0);
	close(fd);
	pid = fake_smtp(logpath, &port);
	snprintf(url, sizeof(url), "smtp://127.0.0.1:%d", port);
	set.url = url;
	set.plain = 1;
	set.connect_timeout = 15;
	set.timeout = 20;
	memset(m, 0, sizeof(m));
	for (i = 0; i < 8; i++) {
		snprintf(subject, sizeof(subject), "%s-%d", i == 0 ? "slow" :
		    "quick", i);
		data[i] = message("referee@ludus.test", i % 2 ? bob : alice,
		    subject);
		m[i].data = data[i];
		m[i].len = strlen(data[i]);
		m[i].from = "referee@ludus.test";
		m[i].rcpt = i % 2 ? &bob : &alice;
		m[i].nrcpt = 1;
	}
	ck_assert_int_eq(smtp_send_batch(&set, m, 8, line, sizeof(line)), 8);
	smtp_release();
	/* SIGKILL: the stand-in inherited this process's SIGTERM handler. */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	f = fopen(logpath, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		ck_assert_int_eq(sscanf(line, "%15s %63s %63s", what, who,
		    subject), 3);
		open = strstr(who, "alice") ? &open_alice : &open_bob;
		seen = strstr(who, "alice") ? &alice_seen : &bob_seen;
		if (strcmp(what, "start") == 0) {
			/* Never a second message to a player on its way. */
			ck_assert_msg(*open == 0, "two messages to %s at once",
			    who);
			*open = 1;
			if (seen == &alice_seen && alice_seen == 0)
				slow_open = 1;
			continue;
		}
		ck_assert_int_eq(*open, 1);
		*open = 0;
		/* Each player's messages in the batch's order. */
		snprintf(want, sizeof(want), "%s-%d", seen == &alice_seen &&
		    *seen == 0 ? "slow" : "quick", 2 * *seen + (seen ==
		    &bob_seen));
		ck_assert_str_eq(subject, want);
		(*seen)++;
		if (seen == &alice_seen && alice_seen == 1)
			slow_open = 0;
		else if (seen == &bob_seen && slow_open)
			meanwhile++;
		ends++;
	}
	fclose(f);
	unlink(logpath);
	ck_assert_int_eq(ends, 8);
	/* bob's mail did not wait for alice's slow one. */
	ck_assert_msg(meanwhile > 0, "one connection at a time");
	for (i = 0; i < 8; i++)
		free(data[i]);
}
END_TEST

START_TEST(smtp_unknown_user_is_permanent_and_the_batch_goes_on)
{
	struct smtp_settings set = smtp_plain();
	struct smtp_msg m[2];
	const char *bad = "nobody@ludus.test", *good = "dave@ludus.test";
	char *t = token("after5xx"), *d0, *d1, err[256];

	memset(m, 0, sizeof(m));
	d0 = message("referee@ludus.test", bad, "x");
	d1 = message("referee@ludus.test", good, t);
	m[0].data = d0;
	m[0].len = strlen(d0);
	m[0].from = "referee@ludus.test";
	m[0].rcpt = &bad;
	m[0].nrcpt = 1;
	m[1] = m[0];
	m[1].data = d1;
	m[1].len = strlen(d1);
	m[1].rcpt = &good;
	ck_assert_int_eq(smtp_send_batch(&set, m, 2, err, sizeof(err)), 1);
	ck_assert_int_eq(m[0].status, SMTP_PERMFAIL);
	ck_assert_int_eq(m[0].code, 550);
	ck_assert_msg(strstr(m[0].reply, "User unknown") != NULL, "%s",
	    m[0].reply);
	ck_assert_int_eq(m[1].status, SMTP_SENT);
	free(d0);
	free(d1);
	free(t);
}
END_TEST

START_TEST(smtp_to_stopped_postfix_is_temporary)
{
	struct smtp_settings set = smtp_plain();
	struct smtp_msg m[3];
	const char *to = "alice@ludus.test";
	char *d = message("referee@ludus.test", to, "down"), err[256];
	int i;

	run_mailenv("stop-smtp");
	memset(m, 0, sizeof(m));
	for (i = 0; i < 3; i++) {
		m[i].data = d;
		m[i].len = strlen(d);
		m[i].from = "referee@ludus.test";
		m[i].rcpt = &to;
		m[i].nrcpt = 1;
	}
	i = smtp_send_batch(&set, m, 3, err, sizeof(err));
	ck_assert_int_eq(i, 0);
	ck_assert_int_eq(m[0].status, SMTP_TEMPFAIL);
	ck_assert_int_eq(m[0].code, 0);
	ck_assert_int_eq(m[0].untrusted, 0);
	ck_assert_msg(strstr(m[0].reply, "connect") != NULL, "%s", m[0].reply);
	for (i = 1; i < 3; i++) {
		char *want = xasprintf("not tried: %s", m[0].reply);

		ck_assert_int_eq(m[i].status, SMTP_TEMPFAIL);
		ck_assert_str_eq(m[i].reply, want);
		free(want);
	}
	free(d);
}
END_TEST

START_TEST(smtp_starttls_verifies_the_server)
{
	struct smtp_settings set = { 0 };
	struct smtp_msg m = { 0 };
	const char *to = "carol@ludus.test";
	char url[64], err[256], *t = token("starttls"), *d;

	snprintf(url, sizeof(url), "smtp://localhost:%s",
	    env("MAILENV_SMTP_PORT"));
	set.url = url;
	set.connect_timeout = 15;
	set.timeout = 20;
	d = message("referee@ludus.test", to, t);
	m.data = d;
	m.len = strlen(d);
	m.from = "referee@ludus.test";
	m.rcpt = &to;
	m.nrcpt = 1;
	/* Not trusted by the system store: refused, and worth a retry. */
	ck_assert_int_eq(smtp_send_batch(&set, &m, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(m.status, SMTP_TEMPFAIL);
	ck_assert_msg(strstr(m.reply, "certificate") != NULL, "%s", m.reply);
	ck_assert_int_eq(m.untrusted, 1);
	set.ca_file = env("MAILENV_CA_FILE");
	/* Trusted, but not for the name 127.0.0.1. */
	snprintf(url, sizeof(url), "smtp://127.0.0.1:%s",
	    env("MAILENV_SMTP_PORT"));
	ck_assert_int_eq(smtp_send_batch(&set, &m, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(m.status, SMTP_TEMPFAIL);
	ck_assert_int_eq(m.untrusted, 1);
	snprintf(url, sizeof(url), "smtp://localhost:%s",
	    env("MAILENV_SMTP_PORT"));
	ck_assert_int_eq(smtp_send_batch(&set, &m, 1, err, sizeof(err)), 1);
	ck_assert_msg(m.status == SMTP_SENT, "%s", m.reply);
	ck_assert_int_eq(m.untrusted, 0);
	/* Postfix logs the TLS session it set up. */
	ck_assert_int_ge(maillog_wait("TLS connection established from"), 1);
	free(d);
	free(t);
}
END_TEST

START_TEST(smtps_with_auth)
{
	struct smtp_settings set = { 0 };
	struct smtp_msg m[2];
	const char *to = "carol@ludus.test";
	char url[64], err[256], *t = token("smtps"), *d;
	struct imap_settings is;
	struct imap *im;

	snprintf(url, sizeof(url), "smtps://localhost:%s",
	    env("MAILENV_SMTPS_PORT"));
	set.url = url;
	set.user = "alice";
	set.password = "wrong";
	set.ca_file = env("MAILENV_CA_FILE");
	set.connect_timeout = 15;
	set.timeout = 20;
	d = message("alice@ludus.test", to, t);
	memset(m, 0, sizeof(m));
	m[0].data = d;
	m[0].len = strlen(d);
	m[0].from = "alice@ludus.test";
	m[0].rcpt = &to;
	m[0].nrcpt = 1;
	m[1] = m[0];
	/* A refused login is no verdict on the messages: retry them later,
	 * and don't try the rest on this connection. */
	ck_assert_int_eq(smtp_send_batch(&set, m, 2, err, sizeof(err)), 0);
	ck_assert_int_eq(m[0].status, SMTP_TEMPFAIL);
	ck_assert_msg(strstr(m[0].reply, "535") != NULL, "%s", m[0].reply);
	ck_assert_int_eq(m[1].status, SMTP_TEMPFAIL);
	ck_assert_msg(strstr(m[1].reply, "not tried") != NULL, "%s",
	    m[1].reply);

	set.password = "alice-pw";
	ck_assert_int_eq(smtp_send_batch(&set, m, 1, err, sizeof(err)), 1);
	ck_assert_msg(m[0].status == SMTP_SENT, "%s", m[0].reply);
	ck_assert_int_ge(maillog_wait("sasl_method=PLAIN, sasl_username=alice"),
	    1);
	is = imap_set("carol", 0);
	im = imap_open(&is);
	ck_assert_uint_ne(find_uid(im, t), 0);
	imap_free(im);
	free(d);
	free(t);
}
END_TEST

START_TEST(smtp_plain_only_to_loopback)
{
	struct smtp_settings set = { 0 };
	struct smtp_msg m = { 0 };
	char err[256];

	set.url = "smtp://mail.example.org:25";
	set.plain = 1;
	ck_assert_int_eq(smtp_send_batch(&set, &m, 1, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "loopback") != NULL, "%s", err);
	set.url = "http://127.0.0.1/";
	ck_assert_int_eq(smtp_send_batch(&set, &m, 1, err, sizeof(err)), -1);
}
END_TEST

/* Many messages in one UID FETCH (a UID that is not there comes back
 * empty), and moved to Processed in one UID MOVE. */
START_TEST(imap_fetch_and_move_in_batches)
{
	struct imap_settings set = imap_set("carol", 0);
	struct imap *im;
	struct imap_msg *msgs;
	char *t[3], *path, err[512];
	uint32_t uid[4], *uids;
	size_t n, i, j;

	for (i = 0; i < 3; i++) {
		t[i] = token("batchfetch");
		send_one("bob@ludus.test", "carol@ludus.test", t[i]);
	}
	im = imap_open(&set);
	for (i = 0; i < 3; i++) {
		uid[i] = find_uid(im, t[i]);
		ck_assert_msg(uid[i] != 0, "%s not delivered", t[i]);
	}
	/* One past the last: no such message. */
	uid[3] = uid[2] + 1000;
	ck_assert_msg(imap_fetch_many(im, uid, 4, &msgs, err, sizeof(err)) ==
	    0, "%s", err);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(msgs[i].uid, uid[i]);
		ck_assert_ptr_nonnull(msgs[i].data);
		ck_assert_uint_eq(strlen(msgs[i].data), msgs[i].len);
		ck_assert_ptr_nonnull(strstr(msgs[i].data, t[i]));
	}
	ck_assert_ptr_null(msgs[3].data);
	imap_msgs_free(msgs, 4);
	ck_assert_msg(imap_done_many(im, uid, 3, err, sizeof(err)) == 0, "%s",
	    err);
	ck_assert_int_eq(imap_search(im, &uids, &n, err, sizeof(err)), 0);
	for (j = 0; j < n; j++)
		for (i = 0; i < 3; i++)
			ck_assert_uint_ne(uids[j], uid[i]);
	free(uids);
	for (i = 0; i < 3; i++) {
		ck_assert_ptr_null(maildir_file_with("carol", "", t[i]));
		path = maildir_file_with("carol", ".Processed", t[i]);
		ck_assert_msg(path != NULL, "%s not in .Processed", t[i]);
		free(path);
		free(t[i]);
	}
	imap_free(im);
}
END_TEST

START_TEST(imap_fetch_peeks_and_move_files_it)
{
	struct imap_settings set = imap_set("alice", 0);
	struct imap *im;
	char *t = token("peek"), *path, *data, *uidlist, line[128], err[512];
	unsigned long v = 0;
	uint32_t uid, *uids;
	size_t len, n, i;
	FILE *f;

	send_one("bob@ludus.test", "alice@ludus.test", t);
	im = imap_open(&set);
	uid = find_uid(im, t);
	ck_assert_msg(uid != 0, "not delivered");
	/* UIDVALIDITY as Dovecot keeps it on disk. */
	uidlist = xasprintf("%s/alice/Maildir/dovecot-uidlist",
	    env("MAILENV_MAILDIRS"));
	f = fopen(uidlist, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	ck_assert_int_eq(sscanf(line, "3 V%lu", &v), 1);
	ck_assert_uint_eq(imap_uidvalidity(im), v);
	ck_assert_uint_ne(v, 0);

	ck_assert_int_eq(imap_fetch(im, uid, &data, &len, err, sizeof(err)), 0);
	ck_assert_uint_eq(strlen(data), len);
	/* Dot-stuffed on the wire by libcurl, unstuffed by Postfix. */
	ck_assert_ptr_nonnull(strstr(data, "\r\n.leading dot line\r\n"));
	ck_assert_ptr_null(strstr(data, "..leading"));
	free(data);
	/* Fetched twice, and still not \Seen: no S in the file's flags. */
	ck_assert_int_eq(imap_fetch(im, uid, &data, &len, err, sizeof(err)), 0);
	free(data);
	path = maildir_file_with("alice", "", t);
	ck_assert_ptr_nonnull(path);
	ck_assert_msg(strstr(path, ":2,") == NULL ||
	    strchr(strstr(path, ":2,"), 'S') == NULL, "%s is seen", path);
	free(path);

	ck_assert_msg(imap_done(im, uid, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(imap_search(im, &uids, &n, err, sizeof(err)), 0);
	for (i = 0; i < n; i++)
		ck_assert_uint_ne(uids[i], uid);
	free(uids);
	ck_assert_int_eq(imap_fetch(im, uid, &data, &len, err, sizeof(err)),
	    -1);
	ck_assert_ptr_null(maildir_file_with("alice", "", t));
	path = maildir_file_with("alice", ".Processed", t);
	ck_assert_msg(path != NULL, "not in .Processed");
	free(path);
	imap_free(im);
	free(uidlist);
	free(t);
}
END_TEST

/* Lines of Dovecot's log holding both a and b, waiting up to 5 s for
 * at least one. */
static int
dovecot_log_wait(const char *a, const char *b)
{
	char *path = xasprintf("%s/dc/log", env("MAILENV_DIR"));
	double end = now() + 5;
	int n;

	do {
		FILE *f = fopen(path, "r");
		char line[4096];

		n = 0;
		ck_assert_ptr_nonnull(f);
		while (fgets(line, sizeof(line), f) != NULL)
			if (strstr(line, a) != NULL && strstr(line, b) != NULL)
				n++;
		fclose(f);
		if (n == 0)
			usleep(20 * 1000);
	} while (n == 0 && now() < end);
	free(path);
	return n;
}

START_TEST(imap_without_move_copies_and_expunges)
{
	struct imap_settings set = imap_set("dave", 0);
	struct imap *im;
	char url[64], *t = token("nomove"), *path, err[512];
	uint32_t uid, *uids;
	size_t n, i;

	/* The same Dovecot, offering neither MOVE nor UIDPLUS there. */
	snprintf(url, sizeof(url), "imap://%s:%s",
	    env("MAILENV_OLD_IMAP_HOST"), env("MAILENV_IMAP_PORT"));
	set.url = url;
	set.processed = "Old";
	send_one("bob@ludus.test", "dave@ludus.test", t);
	im = imap_open(&set);
	uid = find_uid(im, t);
	ck_assert_uint_ne(uid, 0);
	ck_assert_msg(imap_done(im, uid, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(imap_search(im, &uids, &n, err, sizeof(err)), 0);
	for (i = 0; i < n; i++)
		ck_assert_uint_ne(uids[i], uid);
	free(uids);
	imap_free(im);
	ck_assert_ptr_null(maildir_file_with("dave", "", t));
	path = maildir_file_with("dave", ".Old", t);
	ck_assert_ptr_nonnull(path);
	free(path);
	/* Dovecot counts what the session did when it logs out: a message
	 * flagged \Deleted and expunged, which MOVE would not flag. */
	ck_assert_int_ge(dovecot_log_wait("imap(dave)", "deleted=1 expunged=1"),
	    1);
	free(t);
}
END_TEST

START_TEST(imap_flag_mode_keeps_the_message)
{
	struct imap_settings set = imap_set("carol", 0);
	struct imap *im;
	char *t = token("flag"), *path, err[512];
	uint32_t uid, *uids;
	size_t n, i;

	set.processed = NULL;
	set.flag = "$Done";
	send_one("bob@ludus.test", "carol@ludus.test", t);
	im = imap_open(&set);
	uid = find_uid(im, t);
	ck_assert_uint_ne(uid, 0);
	ck_assert_msg(imap_done(im, uid, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(imap_search(im, &uids, &n, err, sizeof(err)), 0);
	for (i = 0; i < n; i++)
		ck_assert_uint_ne(uids[i], uid);
	free(uids);
	/* Still in the INBOX. */
	path = maildir_file_with("carol", "", t);
	ck_assert_ptr_nonnull(path);
	free(path);
	imap_free(im);
	free(t);
}
END_TEST

START_TEST(imap_plus_address_lands_in_inbox)
{
	struct imap_settings set = imap_set("referee", 0);
	struct imap *im;
	char *t = token("plus"), *dir;
	struct stat st;

	send_one("alice@ludus.test", "referee+mancala-7@ludus.test", t);
	im = imap_open(&set);
	ck_assert_msg(find_uid(im, t) != 0, "plus-addressed mail not in INBOX");
	dir = xasprintf("%s/referee/Maildir/.mancala-7",
	    env("MAILENV_MAILDIRS"));
	ck_assert_int_eq(stat(dir, &st), -1);
	free(dir);
	imap_free(im);
	free(t);
}
END_TEST

/* Over IMAPS, as a deployment would run it: the wake-up has to come
 * through the TLS layer. */
START_TEST(imap_idle_wakes_within_two_seconds)
{
	struct imap_settings set = imap_set("dave", 1);
	struct imap *im;
	double sent_at, woke_at;
	char *t = token("idle"), err[512];
	int r, pfd[2];
	pid_t pid;

	im = imap_open(&set);
	ck_assert(imap_has_idle(im));
	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		double at;

		usleep(300 * 1000);
		at = now();
		send_one("alice@ludus.test", "dave@ludus.test", t);
		if (write(pfd[1], &at, sizeof(at)) != sizeof(at))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	r = imap_idle(im, 10000, -1, err, sizeof(err));
	woke_at = now();
	ck_assert_msg(r == 1, "idle: %d %s", r, err);
	ck_assert_int_eq(read(pfd[0], &sent_at, sizeof(sent_at)),
	    sizeof(sent_at));
	close(pfd[0]);
	waitpid(pid, &r, 0);
	ck_assert_msg(woke_at - sent_at < 2.0, "woke %.3f s after sending",
	    woke_at - sent_at);
	fprintf(stderr, "IDLE woke %.3f s after the SMTP submission\n",
	    woke_at - sent_at);
	ck_assert_uint_ne(find_uid(im, t), 0);
	imap_free(im);
	free(t);
}
END_TEST

/* Mail that arrives while a round of FETCH and MOVE runs is announced in
 * the answers to those commands; the IDLE that follows the round must not
 * wait for a second announcement that never comes. */
START_TEST(imap_idle_reports_mail_announced_during_a_round)
{
	struct imap_settings set = imap_set("carol", 0);
	struct imap *im = imap_open(&set);
	char *ta = token("round"), *tb = token("midround"), *path = NULL;
	char err[512] = "", *data;
	size_t len;
	uint32_t ua;
	double end, t0;
	int r;

	send_one("alice@ludus.test", "carol@ludus.test", ta);
	ua = find_uid(im, ta);
	ck_assert_uint_ne(ua, 0);
	send_one("alice@ludus.test", "carol@ludus.test", tb);
	end = now() + 5;
	while ((path = maildir_file_with("carol", "", tb)) == NULL &&
	    now() < end)
		usleep(20 * 1000);
	ck_assert_msg(path != NULL, "second message not delivered");
	free(path);
	ck_assert_msg(imap_fetch(im, ua, &data, &len, err, sizeof(err)) == 0,
	    "%s", err);
	free(data);
	ck_assert_msg(imap_done(im, ua, err, sizeof(err)) == 0, "%s", err);
	t0 = now();
	r = imap_idle(im, 3000, -1, err, sizeof(err));
	ck_assert_msg(r == 1, "idle: %d %s", r, err);
	ck_assert_msg(now() - t0 < 1.0, "idle waited %.3f s", now() - t0);
	ck_assert_uint_ne(find_uid(im, tb), 0);
	/* Once searched, nothing is news any more. */
	ck_assert_int_eq(imap_idle(im, 300, -1, err, sizeof(err)), 0);
	imap_free(im);
	free(ta);
	free(tb);
}
END_TEST

START_TEST(imap_idle_times_out_and_wakes_on_the_fd)
{
	struct imap_settings set = imap_set("bob", 0);
	struct imap *im = imap_open(&set);
	char err[512];
	double t0;
	int pfd[2];

	t0 = now();
	ck_assert_int_eq(imap_idle(im, 300, -1, err, sizeof(err)), 0);
	ck_assert(now() - t0 >= 0.29);
	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert_int_eq(write(pfd[1], "x", 1), 1);
	t0 = now();
	ck_assert_int_eq(imap_idle(im, 5000, pfd[0], err, sizeof(err)), 0);
	ck_assert(now() - t0 < 1.0);
	/* The session is still usable afterwards. */
	ck_assert_int_eq(imap_idle(im, 10, -1, err, sizeof(err)), 0);
	close(pfd[0]);
	close(pfd[1]);
	imap_free(im);
}
END_TEST

START_TEST(imap_self_signed_refused_unless_its_ca_is_configured)
{
	struct imap_settings set = imap_set("alice", 1);
	struct imap *im;
	char err[512];

	set.ca_file = NULL;	/* the default: system trust store */
	im = imap_new(&set);
	ck_assert_int_eq(imap_connect(im, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "certificate") != NULL, "%s", err);
	ck_assert(!imap_connected(im));
	ck_assert(imap_untrusted(im));
	set.ca_file = env("MAILENV_CA_FILE");
	ck_assert_msg(imap_connect(im, err, sizeof(err)) == 0, "%s", err);
	ck_assert(!imap_untrusted(im));
	ck_assert_uint_ne(imap_uidvalidity(im), 0);
	imap_free(im);
}
END_TEST

START_TEST(imap_starttls_verified_too)
{
	struct imap_settings set = imap_set("alice", 1);
	struct imap *im;
	char url[64], err[512];

	snprintf(url, sizeof(url), "imap://localhost:%s",
	    env("MAILENV_IMAP_PORT"));
	set.url = url;
	set.ca_file = NULL;
	im = imap_new(&set);
	ck_assert_int_eq(imap_connect(im, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "certificate") != NULL, "%s", err);
	set.ca_file = env("MAILENV_CA_FILE");
	ck_assert_msg(imap_connect(im, err, sizeof(err)) == 0, "%s", err);
	imap_free(im);
}
END_TEST

START_TEST(imap_host_name_mismatch_refused)
{
	struct imap_settings set = imap_set("alice", 1);
	struct imap *im;
	char url[64], err[512];

	/* The certificate names "localhost" only; 127.0.0.1 is the same
	 * server under a name the certificate does not carry. */
	snprintf(url, sizeof(url), "imaps://127.0.0.1:%s",
	    env("MAILENV_IMAPS_PORT"));
	set.url = url;
	im = imap_new(&set);
	ck_assert_int_eq(imap_connect(im, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "mismatch") != NULL, "%s", err);
	/* Turning verification off is possible, and only explicitly. */
	set.no_verify = 1;
	ck_assert_msg(imap_connect(im, err, sizeof(err)) == 0, "%s", err);
	imap_free(im);
}
END_TEST

START_TEST(imap_errors_are_returned)
{
	struct imap_settings set = imap_set("alice", 0);
	struct imap *im;
	char url[64], err[512];

	set.password = "wrong";
	im = imap_new(&set);
	ck_assert_int_eq(imap_connect(im, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "LOGIN") != NULL, "%s", err);
	imap_free(im);

	set = imap_set("alice", 0);
	set.mailbox = "NoSuchBox";
	im = imap_new(&set);
	ck_assert_int_eq(imap_connect(im, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "SELECT") != NULL, "%s", err);
	imap_free(im);

	set = imap_set("alice", 0);
	snprintf(url, sizeof(url), "imap://127.0.0.1:%s",
	    env("MAILENV_SMTP_PORT"));
	set.url = url;
	set.timeout = 2;
	im = imap_new(&set);
	ck_assert_int_eq(imap_connect(im, err, sizeof(err)), -1);
	imap_free(im);

	set = imap_set("alice", 0);
	set.url = "imap://mail.example.org";
	im = imap_new(&set);
	ck_assert_int_eq(imap_connect(im, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "loopback") != NULL, "%s", err);
	set.url = "pop3://127.0.0.1";
	ck_assert_int_eq(imap_connect(im, err, sizeof(err)), -1);
	set.url = "imap://127.0.0.1:99999";
	ck_assert_int_eq(imap_connect(im, err, sizeof(err)), -1);
	imap_free(im);
}
END_TEST

START_TEST(imap_reconnects_after_dovecot_restart)
{
	struct imap_settings set = imap_set("bob", 0);
	struct imap *im = imap_open(&set);
	uint32_t *uids;
	size_t n;
	char err[512], *cmd;
	int during_idle, during_search, during_connect, st;
	double t0;
	pid_t pid;

	/* Dovecot goes away while we sit in IDLE. */
	cmd = xasprintf("bash '%s' stop-imap %s", mailenv, sandbox);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		usleep(300 * 1000);
		_exit(system(cmd) == 0 ? 0 : 1);
	}
	t0 = now();
	during_idle = imap_idle(im, 20000, -1, err, sizeof(err));
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	during_search = imap_search(im, &uids, &n, err, sizeof(err));
	during_connect = imap_connect(im, err, sizeof(err));
	run_mailenv("start-imap");
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* Dovecot says BYE before it closes: IDLE ends on it either as
	 * news (the BYE read while idling) or as the connection lost
	 * (DONE unanswered), as the two race; the next command fails. */
	ck_assert_msg(during_idle == -1 || during_idle == 1, "IDLE: %d",
	    during_idle);
	ck_assert_msg(now() - t0 < 15, "IDLE noticed after %.1f s", now() - t0);
	ck_assert_int_eq(during_search, -1);
	ck_assert_int_eq(during_connect, -1);
	ck_assert_msg(imap_connect(im, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(imap_search(im, &uids, &n, err, sizeof(err)), 0);
	free(uids);
	imap_free(im);
	free(cmd);
}
END_TEST

START_TEST(maildir_lists_reads_and_files_delivered_mail)
{
	char *t = token("maildir"), *dir, **names, *data, err[512];
	size_t n, i, len, found = (size_t)-1;
	double end = now() + 5;

	send_one("carol@ludus.test", "bob@ludus.test", t);
	dir = xasprintf("%s/bob/Maildir", env("MAILENV_MAILDIRS"));
	do {
		ck_assert_msg(maildir_list(dir, &names, &n, err,
		    sizeof(err)) == 0, "%s", err);
		for (i = 0; i < n && found == (size_t)-1; i++) {
			ck_assert_int_eq(maildir_read(dir, names[i], 0, &data,
			    &len, err, sizeof(err)), 0);
			if (strstr(data, t) != NULL)
				found = i;
			free(data);
		}
		if (found == (size_t)-1) {
			maildir_names_free(names, n);
			usleep(50 * 1000);
		}
	} while (found == (size_t)-1 && now() < end);
	ck_assert_msg(found != (size_t)-1, "not delivered");
	ck_assert_int_eq(maildir_read(dir, names[found], 10, &data, &len, err,
	    sizeof(err)), -1);
	ck_assert_msg(maildir_done(dir, names[found], "Processed", err,
	    sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(maildir_done(dir, names[found], "Processed", err,
	    sizeof(err)), -1);
	maildir_names_free(names, n);
	ck_assert_ptr_null(maildir_file_with("bob", "", t));
	data = maildir_file_with("bob", ".Processed", t);
	ck_assert_ptr_nonnull(data);
	ck_assert_ptr_nonnull(strstr(data, "/cur/"));
	ck_assert_ptr_nonnull(strstr(data, ":2,S"));
	free(data);
	free(dir);
	free(t);
}
END_TEST

static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(maildir_order_flags_and_names)
{
	char dir[] = "/tmp/ludus-md.XXXXXX", *p, **names, *data, err[512];
	size_t n, len;
	const char *subs[] = { "new", "cur", "tmp" };
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (i = 0; i < 3; i++) {
		p = xasprintf("%s/%s", dir, subs[i]);
		ck_assert_int_eq(mkdir(p, 0700), 0);
		free(p);
	}
	p = xasprintf("%s/new/300.c.host", dir); put(p, "third"); free(p);
	p = xasprintf("%s/cur/100.a.host:2,F", dir); put(p, "first"); free(p);
	p = xasprintf("%s/cur/200.b.host:2,ST", dir); put(p, "trash"); free(p);
	p = xasprintf("%s/new/250.d.host", dir); put(p, "second"); free(p);
	p = xasprintf("%s/tmp/50.e.host", dir); put(p, "partial"); free(p);
	ck_assert_int_eq(maildir_list(dir, &names, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(names[0], "cur/100.a.host:2,F");
	ck_assert_str_eq(names[1], "new/250.d.host");
	ck_assert_str_eq(names[2], "new/300.c.host");
	ck_assert_int_eq(maildir_read(dir, names[0], 0, &data, &len, err,
	    sizeof(err)), 0);
	ck_assert_str_eq(data, "first");
	free(data);
	ck_assert_int_eq(maildir_done(dir, names[0], "Done", err,
	    sizeof(err)), 0);
	p = xasprintf("%s/.Done/cur/100.a.host:2,FS", dir);
	ck_assert_int_eq(access(p, R_OK), 0);
	free(p);
	p = xasprintf("%s/.Done/maildirfolder", dir);
	ck_assert_int_eq(access(p, F_OK), 0);
	free(p);
	maildir_names_free(names, n);
	ck_assert_int_eq(maildir_list(dir, &names, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 2);
	maildir_names_free(names, n);
	ck_assert_int_eq(maildir_read(dir, "new/../../etc/passwd", 0, &data,
	    &len, err, sizeof(err)), -1);
	ck_assert_int_eq(maildir_read(dir, "tmp/50.e.host", 0, &data, &len,
	    err, sizeof(err)), -1);
	ck_assert_int_eq(maildir_done(dir, "new/250.d.host", "../x", err,
	    sizeof(err)), -1);
	p = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(p), 0);
	free(p);
	ck_assert_int_eq(maildir_list(dir, &names, &n, err, sizeof(err)), -1);
}
END_TEST

/* A stand-in sendmail: records its arguments and input, says something on
 * stderr and exits with the status in $FAKE_SENDMAIL_EXIT. */
static char *
fake_sendmail(const char *dir)
{
	char *path = xasprintf("%s/sendmail", dir);

	put(path, "#!/bin/sh\n"
	    "d=$(dirname \"$0\")\n"
	    "printf '%s\\n' \"$@\" >\"$d/args\"\n"
	    "cat >\"$d/input\"\n"
	    "echo \"fake: status $FAKE_SENDMAIL_EXIT\" >&2\n"
	    "exit $FAKE_SENDMAIL_EXIT\n");
	ck_assert_int_eq(chmod(path, 0755), 0);
	return path;
}

START_TEST(sendmail_exit_status_classifies)
{
	char dir[] = "/tmp/ludus-sm.XXXXXX", *sm, *got, *p;
	const char *rcpt[2] = { "alice@ludus.test", "-oi@evil" };
	const char *msg = "From: a@b\nSubject: s\n\nbody\n.\nmore\n";
	struct smtp_msg m = { 0 };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	sm = fake_sendmail(dir);
	m.data = msg;
	m.len = strlen(msg);
	m.from = "referee@ludus.test";
	m.rcpt = rcpt;
	m.nrcpt = 2;

	setenv("FAKE_SENDMAIL_EXIT", "0", 1);
	ck_assert_int_eq(smtp_sendmail(sm, &m), 0);
	ck_assert_int_eq(m.status, SMTP_SENT);
	p = xasprintf("%s/input", dir);
	got = slurp(p);
	ck_assert_str_eq(got, msg);
	free(got);
	free(p);
	p = xasprintf("%s/args", dir);
	got = slurp(p);
	/* Recipients after "--", so one starting with '-' is no option. */
	ck_assert_str_eq(got, "-i\n-f\nreferee@ludus.test\n--\n"
	    "alice@ludus.test\n-oi@evil\n");
	free(got);

	m.nrcpt = 0;
	m.from = "";
	m.data = "Subject: crlf\r\n\r\nbody\r\nbare\rcr\r\n";
	m.len = strlen(m.data);
	ck_assert_int_eq(smtp_sendmail(sm, &m), 0);
	got = slurp(p);
	ck_assert_str_eq(got, "-t\n-i\n-f\n<>\n");
	free(got);
	free(p);
	p = xasprintf("%s/input", dir);
	got = slurp(p);
	ck_assert_str_eq(got, "Subject: crlf\n\nbody\nbare\rcr\n");
	free(got);
	free(p);

	setenv("FAKE_SENDMAIL_EXIT", "75", 1);
	ck_assert_int_eq(smtp_sendmail(sm, &m), -1);
	ck_assert_int_eq(m.status, SMTP_TEMPFAIL);
	ck_assert_int_eq(m.code, 75);
	ck_assert_str_eq(m.reply, "fake: status 75");

	setenv("FAKE_SENDMAIL_EXIT", "67", 1);
	ck_assert_int_eq(smtp_sendmail(sm, &m), -1);
	ck_assert_int_eq(m.status, SMTP_PERMFAIL);
	ck_assert_str_eq(m.reply, "fake: status 67");

	p = xasprintf("%s/missing", dir);
	ck_assert_int_eq(smtp_sendmail(p, &m), -1);
	ck_assert_int_eq(m.status, SMTP_TEMPFAIL);
	ck_assert_ptr_nonnull(strstr(m.reply, "cannot run"));
	free(p);

	/* A sendmail that exits without reading a large message: no
	 * SIGPIPE kills us, and the status still counts. */
	put(sm, "#!/bin/sh\nexit 75\n");
	{
		char *big = xmalloc(1 << 20);

		memset(big, 'x', 1 << 20);
		m.data = big;
		m.len = 1 << 20;
		ck_assert_int_eq(smtp_sendmail(sm, &m), -1);
		ck_assert_int_eq(m.status, SMTP_TEMPFAIL);
		free(big);
	}
	p = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(p), 0);
	free(p);
	free(sm);
}
END_TEST

START_TEST(backoff_doubles_up_to_the_cap)
{
	struct backoff b;

	backoff_init(&b, 2, 60);
	ck_assert_uint_eq(backoff_next(&b), 2);
	ck_assert_uint_eq(backoff_next(&b), 4);
	ck_assert_uint_eq(backoff_next(&b), 8);
	ck_assert_uint_eq(backoff_next(&b), 16);
	ck_assert_uint_eq(backoff_next(&b), 32);
	ck_assert_uint_eq(backoff_next(&b), 60);
	ck_assert_uint_eq(backoff_next(&b), 60);
	backoff_reset(&b);
	ck_assert_uint_eq(backoff_next(&b), 2);
	backoff_init(&b, 0, 0);
	ck_assert_uint_eq(backoff_next(&b), 1);
	ck_assert_uint_eq(backoff_next(&b), 1);
	backoff_init(&b, 1, 3000000000u);
	for (int i = 0; i < 40; i++)
		ck_assert_uint_le(backoff_next(&b), 3000000000u);
	ck_assert_uint_eq(backoff_next(&b), 3000000000u);
}
END_TEST

static Suite *
mailnet_suite(void)
{
	Suite *s = suite_create("mailnet");
	TCase *tc = tcase_create("mailnet");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, smtp_batch_uses_two_connections_kept);
	tcase_add_test(tc, smtp_batch_keeps_each_recipients_order);
	tcase_add_test(tc, smtp_unknown_user_is_permanent_and_the_batch_goes_on);
	tcase_add_test(tc, smtp_starttls_verifies_the_server);
	tcase_add_test(tc, smtps_with_auth);
	tcase_add_test(tc, smtp_plain_only_to_loopback);
	tcase_add_test(tc, imap_fetch_peeks_and_move_files_it);
	tcase_add_test(tc, imap_fetch_and_move_in_batches);
	tcase_add_test(tc, imap_without_move_copies_and_expunges);
	tcase_add_test(tc, imap_flag_mode_keeps_the_message);
	tcase_add_test(tc, imap_plus_address_lands_in_inbox);
	tcase_add_test(tc, imap_idle_wakes_within_two_seconds);
	tcase_add_test(tc, imap_idle_times_out_and_wakes_on_the_fd);
	tcase_add_test(tc, imap_idle_reports_mail_announced_during_a_round);
	tcase_add_test(tc, imap_self_signed_refused_unless_its_ca_is_configured);
	tcase_add_test(tc, imap_starttls_verified_too);
	tcase_add_test(tc, imap_host_name_mismatch_refused);
	tcase_add_test(tc, imap_errors_are_returned);
	tcase_add_test(tc, imap_reconnects_after_dovecot_restart);
	tcase_add_test(tc, maildir_lists_reads_and_files_delivered_mail);
	tcase_add_test(tc, maildir_order_flags_and_names);
	tcase_add_test(tc, sendmail_exit_status_classifies);
	tcase_add_test(tc, backoff_doubles_up_to_the_cap);
	/* Last: it leaves Postfix stopped (restarting costs seconds). */
	tcase_add_test(tc, smtp_to_stopped_postfix_is_temporary);
	suite_add_tcase(s, tc);
	return s;
}

/* Start the sandbox and put its variables into our environment. */
static void
sandbox_start(void)
{
	const char *src = getenv("LUDUS_SRCDIR");
	char line[512], *cmd, *eq, *v;
	double t0 = now();
	FILE *p;
	int st;

	mailenv = xasprintf("%s/tests/mailenv/mailenv", src ? src : ".");
	util_strlcpy(sandbox, "/tmp/lm.XXXXXX", sizeof(sandbox));
	if (mkdtemp(sandbox) == NULL) {
		perror("mkdtemp");
		exit(99);
	}
	/* Should we die without stopping it, the sandbox stops itself. */
	snprintf(line, sizeof(line), "%ld", (long)getpid());
	setenv("MAILENV_WATCH_PID", line, 1);
	cmd = xasprintf("bash '%s' start %s", mailenv, sandbox);
	p = popen(cmd, "r");
	if (p == NULL) {
		perror("popen");
		exit(99);
	}
	while (fgets(line, sizeof(line), p) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((eq = strchr(line, '=')) == NULL)
			continue;
		*eq = '\0';
		v = eq + 1;
		if (*v == '\'' && v[strlen(v) - 1] == '\'') {
			v[strlen(v) - 1] = '\0';
			v++;
		}
		setenv(line, v, 1);
	}
	st = pclose(p);
	free(cmd);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		int code = WIFEXITED(st) ? WEXITSTATUS(st) : 99;

		fprintf(stderr, "mailenv start failed (%d)\n", code);
		rmdir(sandbox);
		exit(code == 77 ? 77 : 99);
	}
	fprintf(stderr, "sandbox %s started in %.2f s\n", sandbox, now() - t0);
}

static void
sandbox_stop(void)
{
	char *cmd = xasprintf("bash '%s' stop %s", mailenv, sandbox);

	if (system(cmd) != 0)
		fprintf(stderr, "mailenv stop %s failed\n", sandbox);
	free(cmd);
}

int
main(void)
{
	SRunner *sr;
	int failed;

	sandbox_start();
	sr = srunner_create(mailnet_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (failed > 0)
		setenv("MAILENV_KEEP", "1", 1);
	sandbox_stop();
	if (failed > 0)
		fprintf(stderr, "sandbox kept in %s\n", sandbox);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
