/*
 * referee: what the referee does with one message it may answer.
 *
 * Until the command language is in place the referee answers every
 * message it may answer with what it read: the command lines, one per
 * line, exactly as `ludus parse` shows them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "compose.h"
#include "referee.h"

char *
referee_message_id(const struct config *cfg, const char *key, int n)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen;
	const char *domain = strrchr(cfg->referee.address, '@');
	char hex[2 * 12 + 1];

	EVP_Digest(key, strlen(key), md, &mdlen, EVP_sha256(), NULL);
	util_hex(md, 12, hex);
	return xasprintf("ludus.%s.%d%s", hex, n, domain ? domain : "@ludus");
}

int
referee_queue(struct referee *r, const struct referee_mail *m,
    const char *message_id, int64_t now)
{
	struct compose_mail c;
	struct store_mail row;
	char err[128], *data;
	int rc;

	memset(&c, 0, sizeof(c));
	c.from_name = r->cfg->referee.name;
	c.from = r->cfg->referee.address;
	c.to = m->to;
	c.subject = m->subject;
	c.message_id = message_id;
	c.in_reply_to = m->in_reply_to;
	c.references = m->references;
	c.auto_submitted = m->auto_submitted;
	c.x_loop = r->cfg->referee.address;
	c.text = m->text;
	c.date = (time_t)now;
	if ((data = compose_message(&c, err, sizeof(err))) == NULL)
		/* An address we cannot write to: nothing to queue. */
		return 0;
	memset(&row, 0, sizeof(row));
	row.message_id = (char *)message_id;
	row.envelope_from = r->cfg->referee.address;
	row.recipients = (char *)m->to;
	row.data = data;
	row.game = m->game;
	rc = store_outbox_add(r->store, &row, now);
	free(data);
	return rc;
}

/* "Re: SUBJECT" unless it already starts so. */
static char *
reply_subject(const struct mail_msg *m)
{
	const char *s = m->subject ? m->subject : "";

	if (util_strncaseeq(s, "re:", 3))
		return xstrdup(s);
	return xasprintf("Re: %s", *s ? s : "your message");
}

/* An id we can put in In-Reply-To and References as it is. */
static int
usable_id(const char *id)
{
	return id != NULL && *id != '\0' && strchr(id, '@') != NULL &&
	    strpbrk(id, "<> \t\r\n\"") == NULL && strlen(id) < 250;
}

static char *
reply_references(const struct mail_msg *m)
{
	struct buf b = { 0 };
	int i;

	/* Keep the thread: the last few references and the message itself. */
	for (i = m->references.n > 8 ? m->references.n - 8 : 0;
	    i < m->references.n; i++)
		if (usable_id(m->references.v[i]))
			buf_printf(&b, "%s%s", b.len ? " " : "",
			    m->references.v[i]);
	if (usable_id(m->message_id))
		buf_printf(&b, "%s%s", b.len ? " " : "", m->message_id);
	return b.len ? buf_steal(&b) : NULL;
}

/* May an error reply go to this sender now?  Counts the reply when so. */
static int
error_reply_allowed(struct referee *r, const char *sender, int64_t now,
    int *allowed)
{
	int n;

	*allowed = 0;
	if (store_reply_count(r->store, sender, now - 3600, &n) == -1)
		return -1;
	if (n >= r->cfg->limits.error_replies)
		return 0;
	*allowed = 1;
	return store_reply_add(r->store, sender, now);
}

int
referee_handle(struct referee *r, const struct mail_msg *m, const char *key,
    const char *parse_error, int64_t now, char **outcome)
{
	struct referee_mail out;
	struct buf text = { 0 };
	char *subject, *refs, *id;
	int i, allowed, rc;

	*outcome = NULL;
	if (m->from == NULL) {
		*outcome = xstrdup("ignored: no sender address");
		return 0;
	}
	if (parse_error) {
		if (error_reply_allowed(r, m->from, now, &allowed) == -1)
			return -1;
		if (!allowed) {
			*outcome = xstrdup("unreadable; error reply "
			    "rate-limited");
			return 0;
		}
		buf_printf(&text, "Your message could not be read: %s\n\n"
		    "Write your commands as plain text, one per line.\n",
		    parse_error);
	} else {
		buf_printf(&text, "The referee read %d command line%s from your "
		    "message:\n\n", m->commands.n, m->commands.n == 1 ? "" : "s");
		for (i = 0; i < m->commands.n; i++)
			buf_printf(&text, "  %s\n", m->commands.v[i]);
		if (m->commands.n == 0)
			buf_adds(&text, "  (none)\n");
		buf_adds(&text, "\nThis referee records what it reads; it does "
		    "not run commands yet.\n");
	}
	subject = reply_subject(m);
	refs = reply_references(m);
	id = referee_message_id(r->cfg, key, 1);
	memset(&out, 0, sizeof(out));
	out.to = m->reply_to ? m->reply_to : m->from;
	out.subject = subject;
	out.text = buf_str(&text);
	out.in_reply_to = usable_id(m->message_id) ? m->message_id : NULL;
	out.references = refs;
	out.auto_submitted = "auto-replied";
	rc = referee_queue(r, &out, id, now);
	if (rc == 0)
		*outcome = xstrdup(parse_error ? "unreadable; error reply queued"
		    : "read; reply queued");
	free(id);
	free(refs);
	free(subject);
	buf_free(&text);
	return rc;
}
