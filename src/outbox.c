/* outbox: send what the referee queued. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compose.h"
#include "log.h"
#include "outbox.h"
#include "smtp.h"

#define OUTBOX_BATCH	50
#define NOTICE_PREFIX	"ludus.notice."

int64_t
outbox_next_try(const struct config *cfg, int attempts, int64_t now)
{
	long long min = cfg->smtp.retry_min_ms / 1000, max =
	    cfg->smtp.retry_max_ms / 1000, wait;
	int i;

	if (min < 1)
		min = 1;
	if (max < min)
		max = min;
	for (wait = min, i = 0; i < attempts && wait < max; i++)
		wait *= 2;
	return now + (wait > max ? max : wait);
}

/* Split "a@x,b@y" into a vector of pointers into s (modified). */
static int
split_rcpts(char *s, const char **v, int max)
{
	char *tok, *p = s;
	int n = 0;

	while (n < max && (tok = strtok_r(p, ",", &p)) != NULL)
		v[n++] = tok;
	return n;
}

int
outbox_notice(struct store *s, const struct config *cfg, const char *key,
    const char *subject, const char *text, int64_t now)
{
	struct compose_mail c;
	struct store_mail n;
	char err[128], *id, *data;
	int i, rc = 0;

	if (cfg->referee.address == NULL)
		return 0;
	for (i = 0; i < cfg->referee.admins.n && rc != -1; i++) {
		memset(&c, 0, sizeof(c));
		c.from_name = cfg->referee.name;
		c.from = cfg->referee.address;
		c.to = cfg->referee.admins.v[i];
		c.subject = subject;
		id = xasprintf(NOTICE_PREFIX "%s.%d%s", key, i,
		    strrchr(cfg->referee.address, '@'));
		c.message_id = id;
		c.auto_submitted = "auto-generated";
		c.x_loop = cfg->referee.address;
		c.text = text;
		c.date = (time_t)now;
		if ((data = compose_message(&c, err, sizeof(err))) != NULL) {
			memset(&n, 0, sizeof(n));
			n.message_id = id;
			n.envelope_from = cfg->referee.address;
			n.recipients = cfg->referee.admins.v[i];
			n.data = data;
			rc = store_outbox_add_once(s, &n, now);
			free(data);
		}
		free(id);
	}
	return rc == -1 ? -1 : 0;
}

/* Tell the admins that a mail was given up, unless it was itself such a
 * notice (no loop of notices about notices). */
static int
notify_admins(struct store *s, const struct config *cfg,
    const struct store_mail *row, const char *why, int64_t now)
{
	char *text, *key;
	int rc;

	if (strncmp(row->message_id, NOTICE_PREFIX, strlen(NOTICE_PREFIX)) ==
	    0)
		return 0;
	text = xasprintf("The referee gave up sending a mail.\n\n"
	    "  Message-ID: <%s>\n  To: %s\n  Reason: %s\n", row->message_id,
	    row->recipients, why);
	key = xasprintf("%lld", (long long)row->id);
	rc = outbox_notice(s, cfg, key, "[ludus] undeliverable mail", text,
	    now);
	free(key);
	free(text);
	return rc;
}

int
outbox_untrusted(struct store *s, const struct config *cfg, const char *what,
    const char *server, const char *why, int64_t now)
{
	char day[16], *key, *text, *p;
	time_t t = (time_t)now;
	struct tm tm;
	int rc;

	log_err("%s: the certificate of %s is not trusted: %s", what, server,
	    why);
	gmtime_r(&t, &tm);
	strftime(day, sizeof(day), "%Y%m%d", &tm);
	/* Once per server and day: the notice's Message-ID says which. */
	key = xasprintf("tls.%s.%s.%s", what, server, day);
	for (p = key; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-')
			*p = '-';
	text = xasprintf("The referee does not trust the TLS certificate of "
	    "its %s server\n%s, so it cannot %s mail there until that is "
	    "fixed.\n\n  Reason: %s\n\nThis notice is sent at most once a "
	    "day per server.\n", what, server, strcmp(what, "imap") == 0 ?
	    "read" : "send", why);
	rc = outbox_notice(s, cfg, key, "[ludus] TLS certificate not trusted",
	    text, now);
	free(key);
	free(text);
	return rc;
}

/* Record what became of one row in a transaction of its own, so a crash
 * after a server took a mail resends at most that mail. */
static int
record(struct store *s, const struct config *cfg,
    const struct store_mail *row, const struct smtp_msg *msg, int64_t now,
    struct outbox_stats *st)
{
	enum smtp_status status = msg->status;
	char why[SMTP_REPLYLEN + 64];
	int rc;

	util_strlcpy(why, msg->reply, sizeof(why));
	/* A temporary failure that outlived the queue's lifetime is final. */
	if (status == SMTP_TEMPFAIL && now - row->created >= cfg->lifetime_ms /
	    1000) {
		status = SMTP_PERMFAIL;
		util_err(why, sizeof(why), "still not delivered after %lld "
		    "h: %s", (long long)((now - row->created) / 3600),
		    msg->reply);
	}
	if (store_begin(s) == -1)
		return -1;
	switch (status) {
	case SMTP_SENT:
		rc = store_outbox_sent(s, row->id, now);
		break;
	case SMTP_TEMPFAIL:
		rc = store_outbox_retry(s, row->id,
		    outbox_next_try(cfg, row->attempts, now), why);
		break;
	default:
		rc = store_outbox_failed(s, row->id, why);
		if (rc == 0)
			rc = notify_admins(s, cfg, row, why, now);
		break;
	}
	if (rc == -1 || store_commit(s) == -1) {
		store_rollback(s);
		return -1;
	}
	switch (status) {
	case SMTP_SENT:
		st->sent++;
		log_info("sent <%s> to %s", row->message_id, row->recipients);
		break;
	case SMTP_TEMPFAIL:
		st->retry++;
		log_warn("will retry <%s> to %s: %s", row->message_id,
		    row->recipients, why);
		break;
	default:
		st->failed++;
		log_err("gave up <%s> to %s: %s", row->message_id,
		    row->recipients, why);
		break;
	}
	return 0;
}

void
outbox_unmarked_free(struct outbox_unmarked *u)
{
	free(u->id);
	memset(u, 0, sizeof(*u));
}

/* Mark the rows that were sent while the store failed; 0 when none is
 * left unmarked. */
static int
mark_unmarked(struct store *s, struct outbox_unmarked *u, int64_t now)
{
	size_t i;

	if (u->n == 0)
		return 0;
	if (store_begin(s) == -1)
		return -1;
	for (i = 0; i < u->n; i++)
		if (store_outbox_sent(s, u->id[i], now) == -1) {
			store_rollback(s);
			return -1;
		}
	if (store_commit(s) == -1) {
		store_rollback(s);
		return -1;
	}
	log_info("outbox: marked %zu mail%s sent while the store failed",
	    u->n, u->n == 1 ? "" : "s");
	u->n = 0;
	return 0;
}

/* One batch being sent: what the per-message callback needs. */
struct flushing {
	struct store	*s;
	const struct config *cfg;
	struct store_mail *rows;
	struct smtp_msg	*msgs;
	int64_t		 now;
	struct outbox_stats *st;
	struct outbox_unmarked *unmarked;
	int		 store_failed;
	int		 told;		/* the admins know of a bad certificate */
};

/* A message has its status: record it, or, when the store fails,
 * remember a sent one and stop the batch. */
static int
flushed_one(void *arg, size_t i)
{
	struct flushing *f = arg;
	struct outbox_unmarked *u = f->unmarked;
	const struct smtp_msg *m = &f->msgs[i];

	if (m->status == SMTP_TEMPFAIL && m->code == 0)
		f->st->unreachable++;
	if (m->untrusted && !f->told) {
		f->told = 1;
		f->st->untrusted++;
		if (store_begin(f->s) == -1 || outbox_untrusted(f->s, f->cfg,
		    "smtp", f->cfg->smtp.url.text, m->reply, f->now) == -1 ||
		    store_commit(f->s) == -1) {
			store_rollback(f->s);
			f->store_failed = 1;
			return 1;
		}
	}
	if (record(f->s, f->cfg, &f->rows[i], &f->msgs[i], f->now,
	    f->st) == 0)
		return 0;
	f->store_failed = 1;
	if (f->msgs[i].status == SMTP_SENT) {
		if (u->n == u->cap) {
			u->cap = u->cap ? u->cap * 2 : 16;
			u->id = xreallocarray(u->id, u->cap, sizeof(*u->id));
		}
		u->id[u->n++] = f->rows[i].id;
		log_err("sent <%s> to %s, but the store failed to mark it "
		    "(%s): it is not sent again", f->rows[i].message_id,
		    f->rows[i].recipients, store_errmsg(f->s));
	}
	return 1;
}

int
outbox_flush(struct store *s, const struct config *cfg,
    struct outbox_unmarked *unmarked, int64_t now, struct outbox_stats *st,
    char *err, size_t errlen)
{
	struct flushing f;
	struct smtp_settings ss;
	struct smtp_msg msgs[OUTBOX_BATCH];
	const char *rcpt[OUTBOX_BATCH][16];
	struct store_mail *rows;
	char *password = NULL;
	int n, i, rc = -1;

	memset(st, 0, sizeof(*st));
	memset(&ss, 0, sizeof(ss));
	if (cfg->out == CONFIG_OUT_SMTP) {
		ss.url = cfg->smtp.url.text;
		ss.user = cfg->smtp.cred.user;
		ss.ca_file = cfg->smtp.ca_file;
		ss.no_verify = !cfg->smtp.tls_verify;
		ss.plain = cfg->smtp.starttls == CONFIG_STARTTLS_OFF &&
		    !cfg->smtp.url.tls;
		ss.connect_timeout = (long)(cfg->smtp.timeout_ms / 1000);
		ss.timeout = (long)(cfg->smtp.timeout_ms / 1000);
	}
	if (mark_unmarked(s, unmarked, now) == -1) {
		util_err(err, errlen, "outbox: %zu sent mail%s still unmarked: "
		    "%s", unmarked->n, unmarked->n == 1 ? "" : "s",
		    store_errmsg(s));
		return -1;
	}
	memset(&f, 0, sizeof(f));
	f.s = s;
	f.cfg = cfg;
	f.msgs = msgs;
	f.now = now;
	f.st = st;
	f.unmarked = unmarked;
	ss.done = flushed_one;
	ss.done_arg = &f;
	for (;;) {
		if (store_outbox_due(s, now, OUTBOX_BATCH, &rows, &n) == -1) {
			util_err(err, errlen, "outbox: %s", store_errmsg(s));
			goto out;
		}
		if (n == 0) {
			store_mails_free(rows, n);
			break;
		}
		memset(msgs, 0, sizeof(msgs));
		f.rows = rows;
		for (i = 0; i < n; i++) {
			msgs[i].data = rows[i].data;
			msgs[i].len = strlen(rows[i].data);
			msgs[i].from = rows[i].envelope_from;
			msgs[i].rcpt = rcpt[i];
			msgs[i].nrcpt = (size_t)split_rcpts(rows[i].recipients,
			    rcpt[i], (int)nitems(rcpt[i]));
		}
		if (cfg->out == CONFIG_OUT_SMTP) {
			if (ss.user != NULL && password == NULL &&
			    config_password(&cfg->smtp.cred, &password, err,
			    errlen) == -1) {
				store_mails_free(rows, n);
				goto out;
			}
			ss.password = password;
			if (smtp_send_batch(&ss, msgs, (size_t)n, err,
			    errlen) == -1) {
				store_mails_free(rows, n);
				goto out;
			}
		} else
			for (i = 0; i < n && !f.store_failed; i++) {
				smtp_sendmail(cfg->sendmail, &msgs[i]);
				flushed_one(&f, (size_t)i);
			}
		store_mails_free(rows, n);
		/* A store that cannot record what was sent stops the flush:
		 * the caller waits before the next (no storm of resends). */
		if (f.store_failed) {
			util_err(err, errlen, "outbox: %s", store_errmsg(s));
			goto out;
		}
		/* Rows given up or postponed leave the due set, so the loop
		 * ends; a short batch ends it too. */
		if (n < OUTBOX_BATCH)
			break;
	}
	rc = 0;
out:
	if (password)
		config_password_free(password);
	return rc;
}
