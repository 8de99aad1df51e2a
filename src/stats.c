/* stats: the figures an operator watches, as text. */
#include "config.h"

#include <time.h>

#include "stats.h"

static void
stamp(int64_t t, char *out, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&tt, &tm));
}

void
stats_text(const struct store_stats *st, int64_t now, struct buf *b)
{
	char when[32];
	int i;

	for (i = 0; i < STORE_NOUTCOMES; i++)
		buf_printf(b, "messages %s: %lld\n", store_outcomes[i],
		    (long long)st->messages[i]);
	buf_printf(b, "queue: %lld\n", (long long)st->queue);
	buf_printf(b, "queue oldest age: %lld s\n", st->queue ?
	    (long long)(now - st->queue_oldest) : 0LL);
	buf_printf(b, "send failures: %lld\n", (long long)st->send_failures);
	buf_printf(b, "given up: %lld\n", (long long)st->given_up);
	buf_printf(b, "store retries: %lld\n", (long long)st->retries);
	buf_printf(b, "robot backlog: %lld\n", (long long)st->robot_backlog);
	buf_printf(b, "games active: %lld\n", (long long)st->games_active);
	buf_printf(b, "inbound waiting: %lld\n", (long long)st->inbound);
	buf_printf(b, "inbound set aside: %lld\n",
	    (long long)st->inbound_dead);
	if (st->imap_contact == 0)
		buf_printf(b, "last IMAP contact: never\n");
	else {
		stamp(st->imap_contact, when, sizeof(when));
		buf_printf(b, "last IMAP contact: %s (%lld s ago)\n", when,
		    (long long)(now - st->imap_contact));
	}
}

/* One metric family of one sample, as OpenMetrics writes it. */
static void
family(struct buf *b, const char *name, const char *type, const char *help,
    long long v)
{
	buf_printf(b, "# TYPE %s %s\n# HELP %s %s\n%s%s %lld\n", name, type,
	    name, help, name, *type == 'c' ? "_total" : "", v);
}

void
stats_openmetrics(const struct store_stats *st, int64_t now, struct buf *b)
{
	int i;

	buf_printf(b, "# TYPE ludus_messages counter\n"
	    "# HELP ludus_messages Incoming messages taken, by outcome.\n");
	for (i = 0; i < STORE_NOUTCOMES; i++)
		buf_printf(b, "ludus_messages_total{outcome=\"%s\"} %lld\n",
		    store_outcomes[i], (long long)st->messages[i]);
	family(b, "ludus_queue_depth", "gauge", "Mails waiting to be sent.",
	    st->queue);
	family(b, "ludus_queue_oldest_age_seconds", "gauge", "Age of the "
	    "oldest mail waiting to be sent (0 when none).", st->queue ?
	    (long long)(now - st->queue_oldest) : 0LL);
	family(b, "ludus_send_failures", "counter", "Failed attempts to send "
	    "a mail.", st->send_failures);
	family(b, "ludus_store_retries", "counter", "Transactions undone for "
	    "a conflict with another writer and tried again.", st->retries);
	family(b, "ludus_outbox_given_up", "gauge", "Mails given up and still "
	    "in the outbox.", st->given_up);
	family(b, "ludus_robot_backlog", "gauge", "Robot moves waited for.",
	    st->robot_backlog);
	family(b, "ludus_games_active", "gauge", "Games being played.",
	    st->games_active);
	family(b, "ludus_inbound_depth", "gauge", "Mails received by LMTP "
	    "waiting for the referee.", st->inbound);
	family(b, "ludus_inbound_dead", "gauge", "Mails received by LMTP and "
	    "set aside after repeated temporary failures.", st->inbound_dead);
	family(b, "ludus_imap_last_contact_timestamp_seconds", "gauge",
	    "When the IMAP server last answered (0: never).",
	    st->imap_contact);
	buf_printf(b, "# EOF\n");
}
