/* intake: one incoming message from raw bytes to committed effects. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "intake.h"
#include "log.h"

char *
intake_key(const char *message_id, const char *from, const char *raw,
    size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen;
	char hex[2 * 32 + 1];

	/* The sender is part of the key: a stranger who reuses someone's
	 * Message-ID cannot make the referee skip that person's mail. */
	if (message_id != NULL && *message_id != '\0' &&
	    strlen(message_id) < 900)
		return xasprintf("<%s> %s", message_id, from ? from : "");
	EVP_Digest(raw, len, md, &mdlen, EVP_sha256(), NULL);
	util_hex(md, 32, hex);
	return xasprintf("sha256:%s", hex);
}

/* The head of the message's log line: its Message-ID and sender once
 * (the dedupe key holds both), or the key when there is no Message-ID. */
static char *
who(const char *key, const struct mail_msg *m)
{
	if (m->message_id != NULL && *m->message_id != '\0' &&
	    strncmp(key, "sha256:", 7) != 0)
		return xasprintf("<%s> from %s", m->message_id, m->from ?
		    m->from : "?");
	return xasprintf("%s from %s", key, m->from ? m->from : "?");
}

static void
guard_cfg(const struct config *cfg, struct mail_guard_cfg *g)
{
	memset(g, 0, sizeof(*g));
	g->x_loop = cfg->referee.address;
	g->referee = cfg->referee.address;
	g->club_lists = (const char *const *)cfg->club.lists.v;
	g->nclub_lists = cfg->club.lists.n;
}

static char *
commands_text(const struct mail_msg *m)
{
	struct buf b = { 0 };
	int i;

	for (i = 0; i < m->commands.n; i++)
		buf_printf(&b, "%s\n", m->commands.v[i]);
	return buf_steal(&b);
}

/* A bounce counts against the addresses it reports. */
static int
record_bounce(struct referee *r, const struct mail_msg *m, const char *why,
    int64_t now)
{
	struct strv rcpts = { 0 };
	int i, rc = 0;

	mail_bounce_recipients(m, &rcpts);
	for (i = 0; i < rcpts.n && rc == 0; i++)
		if (store_bounce_add(r->store, rcpts.v[i], now, why) == -1)
			rc = -1;
	strv_free(&rcpts);
	return rc;
}

static void
limits_cfg(const struct config *cfg, struct mail_limits *lim)
{
	memset(lim, 0, sizeof(*lim));
	lim->max_bytes = (size_t)cfg->limits.message_size;
	lim->max_lines = (int)cfg->limits.lines;
	lim->max_commands = (int)cfg->limits.commands;
	lim->tag = cfg->referee.tag;
	lim->referee = cfg->referee.address;
}

void
intake_route(const struct config *cfg, const char *raw, size_t len,
    char **key, char **route)
{
	struct mail_limits lim;
	struct mail_msg m;
	char perr[256];

	limits_cfg(cfg, &lim);
	memset(&m, 0, sizeof(m));
	/* A message that does not parse still has a key and a route (what
	 * was read of it); the referee answers it when its turn comes. */
	(void)mail_parse(raw, len, &lim, &m, perr, sizeof(perr));
	*key = intake_key(m.message_id, m.from, raw, len);
	if (m.tag_game != 0)
		*route = xasprintf("game #%lld", (long long)m.tag_game);
	else
		*route = xstrdup(m.from != NULL ? m.from : *key);
	mail_msg_free(&m);
}

enum intake_status
intake_message(struct referee *r, const char *raw, size_t len, int64_t now,
    char **outcome)
{
	const struct config *cfg = r->cfg;
	struct mail_limits lim;
	struct mail_guard_cfg gc;
	struct mail_msg m;
	struct referee_outcome said = { NULL, NULL, 0 };
	const char *guard, *kind;
	char perr[256], *key, *head, *cmds, *what = NULL, *game,
	    **banned = NULL, counter[32];
	int parsed, seen, nbanned = 0, rc, quarantine = 0;

	*outcome = NULL;
	limits_cfg(cfg, &lim);
	memset(&m, 0, sizeof(m));
	parsed = mail_parse(raw, len, &lim, &m, perr, sizeof(perr)) == 0;
	key = intake_key(m.message_id, m.from, raw, len);
	head = who(key, &m);
	referee_robot_free(referee_robot_take(r));
	if (r->hold != NULL && m.from != NULL && r->hold(r->hold_arg,
	    m.from)) {
		*outcome = xasprintf("%s: waits behind the sender's "
		    "message that waits for a robot", head);
		free(head);
		free(key);
		mail_msg_free(&m);
		return INTAKE_WAIT;
	}
	if (store_begin(r->store) == -1)
		goto tempfail;
	/* The ban list is read inside the transaction, so a ban committed
	 * before this message counts for it. */
	if (store_banned(r->store, &banned, &nbanned) == -1)
		goto rollback;
	guard_cfg(cfg, &gc);
	gc.banned = (const char *const *)banned;
	gc.nbanned = nbanned;
	guard = mail_guard(&m, &gc);

	if ((seen = store_message_seen(r->store, key, now, "received")) == -1)
		goto rollback;
	if (seen) {
		/* Counted, and nothing else written. */
		if (store_counter_add(r->store, "messages.duplicate", 1) ==
		    -1 || store_commit(r->store) == -1)
			store_rollback(r->store);
		*outcome = xasprintf("%s: seen before, not applied again",
		    head);
		goto done;
	}
	kind = "dropped";
	if (guard != NULL) {
		what = xasprintf("dropped (%s)", guard);
		if (strncmp(guard, "bounce", 6) == 0 &&
		    record_bounce(r, &m, guard, now) == -1)
			goto rollback;
	} else if (m.from == NULL)
		what = xstrdup("dropped (no sender address)");
	else if ((rc = referee_handle(r, &m, key, parsed ? NULL : perr, now,
	    &said)) == REFEREE_BROKEN) {
		/* Undo all the message did; keep only the record that it
		 * came, what it asked and why it was set aside. */
		store_rollback(r->store);
		referee_robot_free(referee_robot_take(r));
		what = xasprintf("quarantined: %s", said.text ? said.text :
		    "?");
		kind = "quarantined";
		quarantine = 1;
		if (store_begin(r->store) == -1 ||
		    store_message_seen(r->store, key, now, "received") == -1)
			goto rollback;
	} else if (rc == -1)
		goto rollback;
	else {
		what = said.text;
		said.text = NULL;
		kind = said.kind;
	}
	cmds = commands_text(&m);
	snprintf(counter, sizeof(counter), "messages.%s", kind);
	if (store_message_note(r->store, key, m.from, cmds, what) == -1 ||
	    store_counter_add(r->store, counter, 1) == -1) {
		free(cmds);
		goto rollback;
	}
	free(cmds);
	if (store_commit(r->store) == -1)
		goto rollback;
	/* One line a message: who sent it, the game, what came of it. */
	game = said.game != 0 ? xasprintf("game #%lld", (long long)said.game) :
	    xstrdup("no game");
	*outcome = xasprintf("%s, %s: %s", head, game, what ? what : "done");
	free(game);
done:
	store_strings_free(banned, nbanned);
	free(said.text);
	free(what);
	free(head);
	free(key);
	mail_msg_free(&m);
	return quarantine ? INTAKE_QUARANTINE : INTAKE_DONE;
rollback:
	store_rollback(r->store);
	if (r->robot_want != NULL) {
		*outcome = xasprintf("%s, game #%lld: waits for its robot",
		    head, (long long)referee_robot_game(r->robot_want));
		store_strings_free(banned, nbanned);
		free(said.text);
		free(what);
		free(head);
		free(key);
		mail_msg_free(&m);
		return INTAKE_ROBOT;
	}
tempfail:
	/* A failure that is not the store's (a template that cannot be
	 * read) was logged where it happened. */
	*outcome = *store_errmsg(r->store) != '\0' ?
	    xasprintf("%s: store failed, will retry: %s", head,
	    store_errmsg(r->store)) :
	    xasprintf("%s: not applied, will retry (the error above)", head);
	store_strings_free(banned, nbanned);
	free(said.text);
	free(what);
	free(head);
	free(key);
	mail_msg_free(&m);
	return INTAKE_TEMPFAIL;
}
