/* outbox: send what the referee queued. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Tell the admins that a mail was given up, unless it was itself such a
 * notice (no loop of notices about notices). */
static int
notify_admins(struct store *s, const struct config *cfg,
    const struct store_mail *row, const char *why, int64_t now)
{
	struct compose_mail c;
	struct store_mail n;
	char err[128], *text, *id, *data;
	int i, rc = 0;

	if (strncmp(row->message_id, NOTICE_PREFIX, strlen(NOTICE_PREFIX)) ==
	    0 || cfg->referee.address == NULL)
		return 0;
	text = xasprintf("The referee gave up sending a mail.\n\n"
	    "  Message-ID: <%s>\n  To: %s\n  Reason: %s\n", row->message_id,
	    row->recipients, why);
	for (i = 0; i < cfg->referee.admins.n && rc == 0; i++) {
		memset(&c, 0, sizeof(c));
		c.from_name = cfg->referee.name;
		c.from = cfg->referee.address;
		c.to = cfg->referee.admins.v[i];
		c.subject = "[ludus] undeliverable mail";
		id = xasprintf(NOTICE_PREFIX "%lld.%d%s", (long long)row->id, i,
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
			rc = store_outbox_add(s, &n, now);
			free(data);
		}
		free(id);
	}
	free(text);
	return rc;
}

static int
record(struct store *s, const struct config *cfg, struct store_mail *rows,
    struct smtp_msg *msgs, int n, int64_t now, struct outbox_stats *st)
{
	int i;

	if (store_begin(s) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		int rc;

		switch (msgs[i].status) {
		case SMTP_SENT:
			rc = store_outbox_sent(s, rows[i].id, now);
			st->sent++;
			log_info("sent <%s> to %s", rows[i].message_id,
			    rows[i].recipients);
			break;
		case SMTP_TEMPFAIL:
			rc = store_outbox_retry(s, rows[i].id,
			    outbox_next_try(cfg, rows[i].attempts, now),
			    msgs[i].reply);
			st->retry++;
			log_warn("will retry <%s> to %s: %s",
			    rows[i].message_id, rows[i].recipients,
			    msgs[i].reply);
			break;
		default:
			rc = store_outbox_failed(s, rows[i].id, msgs[i].reply);
			if (rc == 0)
				rc = notify_admins(s, cfg, &rows[i],
				    msgs[i].reply, now);
			st->failed++;
			log_err("gave up <%s> to %s: %s", rows[i].message_id,
			    rows[i].recipients, msgs[i].reply);
			break;
		}
		if (rc == -1) {
			store_rollback(s);
			return -1;
		}
	}
	return store_commit(s);
}

int
outbox_flush(struct store *s, const struct config *cfg, int64_t now,
    struct outbox_stats *st, char *err, size_t errlen)
{
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
			for (i = 0; i < n; i++)
				smtp_sendmail(cfg->sendmail, &msgs[i]);
		/* Rows given up or postponed leave the due set, so the loop
		 * ends; a batch that sent nothing stops it too, so a server
		 * that is down is not hammered. */
		if (record(s, cfg, rows, msgs, n, now, st) == -1) {
			util_err(err, errlen, "outbox: %s", store_errmsg(s));
			store_mails_free(rows, n);
			goto out;
		}
		store_mails_free(rows, n);
		if (n < OUTBOX_BATCH)
			break;
	}
	rc = 0;
out:
	if (password)
		config_password_free(password);
	return rc;
}
