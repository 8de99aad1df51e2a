/*
 * conf: ludus.yaml through libyaml's document API into struct config, by
 * the settings table.  The values' syntax is in confval.c, writing the
 * settings back (dump, sample, manual) in confgen.c.
 */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "addr.h"
#include "confint.h"
#include "lmtp.h"
#include "store.h"
#include "yamlwalk.h"

static const char *const v_language[] = { "en", "ru", "ar", NULL };
static const char *const v_starttls[] = { "required", "off", NULL };
static const char *const v_log_to[] = { "stderr", "syslog", NULL };
static const char *const v_level[] = { "error", "warning", "info", "debug",
	NULL };
static const char *const v_facility[] = { "daemon", "mail", "user",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6",
	"local7", NULL };
static const char *const v_timeout[] = { "forfeit", "notify", NULL };
static const char *const v_imap[] = { "imaps", "imap", NULL };
static const char *const v_smtp[] = { "smtps", "smtp", NULL };

#define O(field)	offsetof(struct config, field)

/* Every mapping a file may hold, with the text that heads it in the sample
 * and the manual. */
/* The values whose check needs more than the value's syntax (the store's
 * kinds of database, LMTP's addresses): here, so that confval.c, which the
 * command parser links, needs neither. */
int
conf_check_database(const char *s, char *msg, size_t len)
{
	if (store_is_server(s)) {
#ifdef HAVE_LIBPQ
		return 0;
#else
		util_err(msg, len, "a PostgreSQL database, but this ludus was "
		    "built without PostgreSQL support (libpq): rebuild it "
		    "with libpq-dev installed, or give a SQLite file");
		return -1;
#endif
	}
	if (strstr(s, "://") != NULL && strncmp(s, "sqlite://", 9) != 0) {
		util_err(msg, len, "`%.*s` is not a kind of database ludus "
		    "knows (a path, sqlite:///PATH or postgresql://...)",
		    (int)(strstr(s, "://") - s + 3), s);
		return -1;
	}
	return 0;
}

int
conf_check_lmtp(const char *s, char *msg, size_t len)
{
	return lmtp_where_check(s, msg, len);
}

const struct section conf_sections[] = {
	{ "referee", 0, "Who the referee is and who runs it." },
	{ "admin", 0, "What the admins' commands may do." },
	{ "", 0, "Where ludus keeps its files.  Relative paths anywhere in "
	    "the file are taken from the directory of the file." },
	{ "postgresql", S_SAMPLE_OFF, "The password of a PostgreSQL "
	    "database (database: postgresql://...)." },
	{ "in", 0, "Where mail comes from: `imap` or `maildir`, not both, "
	    "and `lmtp` beside either or alone.  With none, mail arrives "
	    "only through `ludus deliver`." },
	{ "in.imap", 0, "An IMAP mailbox, watched with IDLE when the server "
	    "offers it." },
	{ "in.imap.retry", 0, "Reconnecting after an error: the wait doubles "
	    "from min up to max." },
	{ "in.maildir", S_SAMPLE_OFF, "A local Maildir; each message is "
	    "taken from new/.  ludusd watches new/ and cur/ with inotify and "
	    "reads a message as soon as it is put there; where inotify cannot "
	    "watch (a network file system), every in.imap.poll_interval." },
	{ "out", 0, "How mail is sent: `smtp` or `sendmail`, not both.  With "
	    "neither, the sendmail program is used." },
	{ "out.smtp", 0, "An SMTP submission server." },
	{ "out.smtp.retry", 0, "Resending after a temporary failure (4xx or "
	    "network): the wait doubles from min up to max." },
	{ "out.sendmail", S_SAMPLE_OFF, "A local sendmail program, called as "
	    "`sendmail -i -t`." },
	{ "retention", 0, "How long records of finished work are kept; the "
	    "daemon deletes older ones once a day, a few hundred rows at a "
	    "time." },
	{ "limits", 0, "Caps on what one incoming message may make the "
	    "referee do." },
	{ "logging", 0, "Where the log goes." },
	{ "metrics", 0, "The figures of `ludus stats` for a monitoring "
	    "system, served by ludusd as OpenMetrics text." },
	{ "auth", 0, "Extra ways to trust a sender." },
	{ "clock", 0, "Default time controls; a game may choose its own at "
	    "`new` with clock=." },
	{ "almakleh", 0, "The Almakleh card deck." },
	{ "robots", 0, "Robot opponents (`new GAME robot`)." },
	{ "club", 0, "Mailing lists the referee takes part in." },
	{ "ladder", 0, "Club ladders: those the referee opens by itself, and "
	    "the defaults of a new one (`admin ladder create` may set each "
	    "for its ladder)." },
	{ "site", 0, "The club's public pages: every game, ladder and player "
	    "as static HTML (`ludus site` writes them once), the public view "
	    "only." },
};

/*
 * Every setting, in the order of the sample and the manual.  A default is
 * text in the setting's own syntax, parsed by the same code as the file
 * (config_defaults aborts on one that does not parse), so what the manual
 * says is what the program does.
 */
const struct setting conf_settings[] = {
	{ "referee.address", T_ADDRESS, O(referee.address), 0, 0, NULL, NULL,
	    NULL, "referee@example.org", F_REQUIRED, NULL,
	    "The referee's own mail address: players write to it and every "
	    "mail is sent from it." },
	{ "referee.name", T_STRING, O(referee.name), 0, 0, NULL,
	    "ludus referee", NULL, NULL, 0, conf_check_text,
	    "The display name in the From: of outgoing mail." },
	{ "referee.tag", T_STRING, O(referee.tag), 0, 0, NULL, "ludus", NULL,
	    NULL, 0, conf_check_tag,
	    "The word in the subject tag [TAG #ID TOKEN]: letters, digits "
	    "and hyphens." },
	{ "referee.admins", T_ADDRESS_LIST, O(referee.admins), 0, 0, NULL, "",
	    NULL, NULL, 0, NULL,
	    "Addresses allowed to give admin commands (each confirmed by a "
	    "round trip unless auth.trust_authserv_id vouches for it)." },
	{ "referee.plus_addressing", T_BOOL, O(referee.plus_addressing), 0, 0,
	    NULL, "false", NULL, NULL, 0, NULL,
	    "Put the reply token in the Reply-To address as "
	    "local+ID.TOKEN@domain.  Turn on only when the mail server "
	    "delivers such addresses to the referee's mailbox." },
	{ "referee.secret_file", T_PATH, O(referee.secret_file), 0, 0, NULL,
	    NULL, "STATE_DIR/secret", "@localstatedir@/lib/ludus/secret", 0, NULL,
	    "The server secret the reply tokens are made from; `ludus init` "
	    "creates it, mode 0600." },
	{ "referee.language", T_ENUM, O(referee.language), 0, 0, v_language,
	    "en", NULL, NULL, 0, NULL,
	    "The language of mail to a player who has not chosen one." },

	{ "admin.auto_accept", T_BOOL, O(admin.auto_accept), 0, 0, NULL,
	    "false", NULL, NULL, 0, NULL,
	    "A game an admin starts for other players (`admin new`) begins "
	    "at once, without each player's accept." },

	{ "state_dir", T_PATH, O(state_dir), 0, 0, NULL, LUDUS_STATEDIR,
	    "@localstatedir@/lib/ludus", "@localstatedir@/lib/ludus", 0, NULL,
	    "The directory of the database and the secret." },
	{ "database", T_PATH, O(database), 0, 0, NULL, NULL,
	    "STATE_DIR/ludus.db", "@localstatedir@/lib/ludus/ludus.db", 0,
	    conf_check_database,
	    "The database holding every game, player and the outbox: a "
	    "SQLite file (a path, or sqlite:///PATH), or a PostgreSQL "
	    "database (postgresql://... or a libpq connection string such as "
	    "`host=db1,db2 dbname=ludus target_session_attrs=read-write`; "
	    "give its password in postgresql, not here)." },
	{ "games_dir", T_PATH, O(games_dir), 0, 0, NULL, LUDUS_GAMES_DIR,
	    "@pkgdatadir@/games", "@pkgdatadir@/games", 0,
	    NULL, "The game definitions (NAME.yaml)." },
	{ "templates_dir", T_PATH, O(templates_dir), 0, 0, NULL,
	    LUDUS_TEMPLATES_DIR, "@pkgdatadir@/templates",
	    "@pkgdatadir@/templates", 0, NULL,
	    "The mail templates, one directory per language." },
	{ "pid_file", T_PATH, O(pid_file), 0, 0, NULL, NULL, "none",
	    "/run/ludus/ludusd.pid", F_EMPTY, NULL,
	    "Where ludusd writes its process id." },
	{ "postgresql.password_file", T_PATH, O(pg_cred.password_file), 0, 0,
	    NULL, NULL, NULL, "@sysconfdir@/ludus/postgresql.password",
	    F_EMPTY, NULL,
	    "A file whose first line is the PostgreSQL password; refused "
	    "when others may read or write it.  Under systemd a credential "
	    "of the same name is read instead, as for in.imap.  Without "
	    "this or password_env, libpq's own ways apply (~/.pgpass, a "
	    "peer or certificate login)." },
	{ "postgresql.password_env", T_STRING, O(pg_cred.password_env), 0, 0,
	    NULL, NULL, NULL, "LUDUS_PG_PASSWORD", F_EMPTY, conf_check_env,
	    "The environment variable holding the PostgreSQL password." },

	{ "in.lmtp", T_STRING, O(lmtp), 0, 0, NULL, NULL, "none",
	    "unix:/run/ludus/lmtp.sock", F_EMPTY, conf_check_lmtp,
	    "Where ludusd listens for LMTP (RFC 2033), the way a mail server "
	    "such as Postfix delivers to Dovecot: `unix:/PATH` (a Unix "
	    "socket, made mode 0660, so the mail server's user must be in "
	    "ludusd's group) or `HOST:PORT` on a loopback address "
	    "(`127.0.0.1:2424`, `[::1]:2424`).  A message is answered 250 "
	    "once it is stored in the database, to be read by the referee "
	    "in the order of arrival; recipients other than "
	    "referee.address (and its +detail forms) get 550.  Off when "
	    "unset; read when ludusd starts." },

	{ "in.imap.url", T_URL, O(imap.url), 0, 0, v_imap, NULL, NULL,
	    "imaps://mail.example.org/INBOX", F_REQUIRED, NULL,
	    "The server and mailbox: imaps://HOST[:PORT][/MAILBOX] (TLS from "
	    "the start) or imap://... (STARTTLS).  The mailbox defaults to "
	    "INBOX." },
	{ "in.imap.user", T_STRING, O(imap.cred.user), 0, 0, NULL, NULL, NULL,
	    "referee", F_REQUIRED, conf_check_text,
	    "The login name." },
	{ "in.imap.password_file", T_PATH, O(imap.cred.password_file), 0, 0,
	    NULL, NULL, NULL, "@sysconfdir@/ludus/imap.password", F_EMPTY | F_SAMPLE,
	    NULL,
	    "A file whose first line is the password; refused when others "
	    "may read or write it.  Under systemd a credential of the same "
	    "name (LoadCredential=imap.password:@sysconfdir@/ludus/imap.password) is "
	    "read instead.  Give this or password_env." },
	{ "in.imap.password_env", T_STRING, O(imap.cred.password_env), 0, 0,
	    NULL, NULL, NULL, "LUDUS_IMAP_PASSWORD", F_EMPTY,
	    conf_check_env,
	    "The environment variable holding the password." },
	{ "in.imap.ca_file", T_PATH, O(imap.ca_file), 0, 0, NULL, NULL,
	    "the system's CA certificates", "@sysconfdir@/ludus/ca.pem", F_EMPTY,
	    NULL, "CA certificates (PEM) to verify the server with." },
	{ "in.imap.tls_verify", T_BOOL, O(imap.tls_verify), 0, 0, NULL, "true",
	    NULL, NULL, 0, NULL,
	    "Verify the server's certificate chain and host name." },
	{ "in.imap.starttls", T_ENUM, O(imap.starttls), 0, 0, v_starttls,
	    "required", NULL, NULL, 0, NULL,
	    "STARTTLS for imap:// URLs.  `off` is allowed only for a server "
	    "on the loopback interface, since the password would otherwise "
	    "cross the network in clear." },
	{ "in.imap.processed", T_PROCESSED, O(imap.processed), 0, 0, NULL,
	    "move Processed", NULL, NULL, 0, NULL,
	    "What is done to a message once its effects are saved: "
	    "`move FOLDER`, or `flag KEYWORD` (a keyword such as $Ludus, or "
	    "\\Seen, \\Answered or \\Flagged) leaving it in the mailbox." },
	{ "in.imap.idle", T_BOOL, O(imap.idle), 0, 0, NULL, "true", NULL,
	    NULL, 0, NULL,
	    "Wait with IDLE when the server offers it; otherwise poll." },
	{ "in.imap.poll_interval", T_DURATION, O(imap.poll_interval_ms),
	    SEC_MS, DAY_MS, NULL, "1m", NULL, NULL, 0, NULL,
	    "How often to look for new mail without IDLE (and in a Maildir "
	    "that cannot be watched)." },
	{ "in.imap.timeout", T_DURATION, O(imap.timeout_ms), SEC_MS,
	    10 * MIN_MS, NULL, "30s", NULL, NULL, 0, NULL,
	    "How long to wait for the server before giving up on a "
	    "connection." },
	{ "in.imap.retry.min", T_DURATION, O(imap.retry_min_ms), 100,
	    HOUR_MS, NULL, "1s", NULL, NULL, 0, NULL,
	    "The first wait before reconnecting." },
	{ "in.imap.retry.max", T_DURATION, O(imap.retry_max_ms), SEC_MS,
	    DAY_MS, NULL, "5m", NULL, NULL, 0, NULL,
	    "The longest wait before reconnecting." },

	{ "in.maildir.path", T_PATH, O(maildir.path), 0, 0, NULL, NULL, NULL,
	    "/home/referee/Maildir", F_REQUIRED, NULL,
	    "The Maildir (with new/, cur/ and tmp/)." },
	{ "in.maildir.processed", T_STRING, O(maildir.processed), 0, 0, NULL,
	    "Processed", NULL, NULL, 0, conf_check_folder,
	    "The Maildir++ folder a processed message is moved to, marked "
	    "seen (Processed means PATH/.Processed); messages left in new/ "
	    "and cur/ are the ones still to read." },

	{ "out.lifetime", T_DURATION, O(lifetime_ms), HOUR_MS, 30 * DAY_MS,
	    NULL, "5d", NULL, NULL, 0, NULL,
	    "How long a mail may wait for a temporary failure (SMTP or "
	    "sendmail) to clear; then it is given up and the admins are told, "
	    "as Postfix does after maximal_queue_lifetime." },
	{ "out.smtp.url", T_URL, O(smtp.url), 0, 0, v_smtp, NULL, NULL,
	    "smtps://mail.example.org", F_REQUIRED, NULL,
	    "The server: smtps://HOST[:PORT] (TLS from the start, port 465) "
	    "or smtp://HOST[:PORT] (STARTTLS, port 25; write :587 for "
	    "submission)." },
	{ "out.smtp.user", T_STRING, O(smtp.cred.user), 0, 0, NULL, NULL,
	    NULL, "referee", F_EMPTY | F_SAMPLE, conf_check_text,
	    "The login name for SMTP AUTH; without it no AUTH is done." },
	{ "out.smtp.password_file", T_PATH, O(smtp.cred.password_file), 0, 0,
	    NULL, NULL, NULL, "@sysconfdir@/ludus/smtp.password", F_EMPTY | F_SAMPLE,
	    NULL, "As in.imap.password_file." },
	{ "out.smtp.password_env", T_STRING, O(smtp.cred.password_env), 0, 0,
	    NULL, NULL, NULL, "LUDUS_SMTP_PASSWORD", F_EMPTY,
	    conf_check_env, "As in.imap.password_env." },
	{ "out.smtp.ca_file", T_PATH, O(smtp.ca_file), 0, 0, NULL, NULL,
	    "the system's CA certificates", "@sysconfdir@/ludus/ca.pem", F_EMPTY,
	    NULL, "As in.imap.ca_file." },
	{ "out.smtp.tls_verify", T_BOOL, O(smtp.tls_verify), 0, 0, NULL,
	    "true", NULL, NULL, 0, NULL, "As in.imap.tls_verify." },
	{ "out.smtp.starttls", T_ENUM, O(smtp.starttls), 0, 0, v_starttls,
	    "required", NULL, NULL, 0, NULL,
	    "STARTTLS for smtp:// URLs.  With a user set, `off` is allowed "
	    "only for a server on the loopback interface." },
	{ "out.smtp.timeout", T_DURATION, O(smtp.timeout_ms), SEC_MS,
	    10 * MIN_MS, NULL, "30s", NULL, NULL, 0, NULL,
	    "How long to wait for the server." },
	{ "out.smtp.retry.min", T_DURATION, O(smtp.retry_min_ms), 100,
	    DAY_MS, NULL, "30s", NULL, NULL, 0, NULL,
	    "The first wait before resending." },
	{ "out.smtp.retry.max", T_DURATION, O(smtp.retry_max_ms), SEC_MS,
	    7 * DAY_MS, NULL, "1h", NULL, NULL, 0, NULL,
	    "The longest wait between attempts." },

	{ "out.sendmail.path", T_PATH, O(sendmail), 0, 0, NULL,
	    "/usr/sbin/sendmail", NULL, NULL, 0, NULL,
	    "The sendmail program." },

	{ "retention.processed", T_DURATION, O(retention.processed_ms),
	    DAY_MS, 3650LL * DAY_MS, NULL, "30d", NULL, NULL, 0, NULL,
	    "How long the key of each message read is kept, so that the same "
	    "message delivered again is recognised and not applied twice; "
	    "older keys are deleted once a day." },
	{ "retention.outbox", T_DURATION, O(retention.outbox_ms), DAY_MS,
	    3650LL * DAY_MS, NULL, "14d", NULL, NULL, 0, NULL,
	    "How long a mail that was sent or given up is kept (for `ludus "
	    "outbox --all` and the admins); older ones are deleted once a "
	    "day." },

	{ "limits.message_size", T_SIZE, O(limits.message_size), 1024,
	    64LL << 20, NULL, "1M", NULL, NULL, 0, NULL,
	    "A larger message is not read; its sender is told why." },
	{ "limits.lines", T_INT, O(limits.lines), 10, 1000000, NULL, "1000",
	    NULL, NULL, 0, NULL,
	    "Lines of body text read from one message." },
	{ "limits.commands", T_INT, O(limits.commands), 1, 1000, NULL, "20",
	    NULL, NULL, 0, NULL,
	    "Commands carried out from one message." },
	{ "limits.error_replies", T_INT, O(limits.error_replies), 0, 1000,
	    NULL, "5", NULL, NULL, 0, NULL,
	    "Error replies sent to one address per hour, the last saying "
	    "when errors are answered again; further errors are only "
	    "logged.  Mail that proves nothing of its sender (no seat "
	    "token, no trusted DMARC pass) is counted apart, by its DMARC "
	    "result.  The answers to a reply that holds remarks only (an "
	    "auto-responder's, say) are capped by this number too, per "
	    "sender and game, whatever the token: further ones are only "
	    "logged." },
	{ "limits.info_replies", T_INT, O(limits.info_replies), 1, 100000,
	    NULL, "30", NULL, NULL, 0, NULL,
	    "Answers to help, games and list (and to replies of remarks "
	    "only) sent to one address per hour, counted as error replies "
	    "are; the last says when they are answered again." },

	{ "logging.to", T_ENUM, O(logging.to), 0, 0, v_log_to, "stderr", NULL,
	    NULL, 0, NULL,
	    "Where log lines go; under systemd, stderr reaches the journal." },
	{ "logging.level", T_ENUM, O(logging.level), 0, 0, v_level, "info",
	    NULL, NULL, 0, NULL,
	    "The least important messages logged.  `debug` adds the IMAP "
	    "and SMTP conversations, a line each way (never the LOGIN or "
	    "AUTH arguments, a password, or the mails themselves, which "
	    "carry seat tokens), and the referee's decision on each line of "
	    "a message." },
	{ "logging.facility", T_ENUM, O(logging.facility), 0, 0, v_facility,
	    "mail", NULL, NULL, 0, NULL,
	    "The syslog facility." },

	{ "metrics.socket", T_PATH, O(metrics.socket), 0, 0, NULL, NULL, "none",
	    "/run/ludus/metrics.sock", F_EMPTY, NULL,
	    "A Unix socket where ludusd answers each connection with the "
	    "figures of `ludus stats` in the OpenMetrics text format, then "
	    "closes it (off when unset).  A client that sends an HTTP GET "
	    "(`curl --unix-socket PATH http://localhost/metrics`) gets an "
	    "HTTP/1.0 answer; one that sends nothing (`socat - "
	    "UNIX-CONNECT:PATH`) gets the text alone.  It is made mode 0660: "
	    "a monitoring agent reads it as a member of ludusd's group.  "
	    "Read when ludusd starts." },

	{ "auth.trust_authserv_id", T_STRING, O(auth.trust_authserv_id), 0, 0,
	    NULL, NULL, "off", "mx.example.org", F_EMPTY, conf_check_token,
	    "The authserv-id of our own mail server: a DMARC pass in the "
	    "topmost Authentication-Results header with this id "
	    "authenticates the From address.  Set it only when that server "
	    "removes such headers from incoming mail." },

	{ "clock.move", T_CLOCK, O(clock.move), 0, 0, NULL, "1d", NULL, NULL,
	    0, NULL,
	    "The time control: time per move (24h), or a reserve plus an "
	    "increment per move (7d+1d)." },
	{ "clock.reminders", T_PERCENTS, O(clock.reminders), 0, 0, NULL,
	    "50%, 10%", NULL, NULL, 0, NULL,
	    "Reminders are sent when this share of the time is left; [] for "
	    "none." },
	{ "clock.timeout_action", T_ENUM, O(clock.timeout_action), 0, 0,
	    v_timeout, "forfeit", NULL, NULL, 0, NULL,
	    "When time runs out: the late player forfeits the game, or the "
	    "admins are notified and the game waits." },
	{ "clock.vacation", T_DURATION, O(clock.vacation_ms), 0, 365 * DAY_MS,
	    NULL, "30d", NULL, NULL, 0, NULL,
	    "Vacation a player may take per year." },
	{ "clock.invitation", T_DURATION, O(clock.invitation_ms), HOUR_MS,
	    90 * DAY_MS, NULL, "7d", NULL, NULL, 0, NULL,
	    "How long an invitation stays open." },
	{ "clock.confirmation", T_DURATION, O(clock.confirmation_ms), MIN_MS,
	    30 * DAY_MS, NULL, "1d", NULL, NULL, 0, NULL,
	    "How long an admin command waits for its confirmation." },

	{ "almakleh.cycle_deck", T_BOOL, O(almakleh.cycle_deck), 0, 0, NULL,
	    "true", NULL, NULL, 0, NULL,
	    "Deal from one server-wide deck, reshuffled when it runs out, as "
	    "players do at a table; each game records its deal (deal=). Off "
	    "deals each game from a fresh shuffle." },

	{ "robots.budget", T_DURATION, O(robots.budget_ms), 10, MIN_MS, NULL,
	    "1s", NULL, NULL, 0, NULL,
	    "Thinking time of a robot per move, on one core." },

	{ "club.lists", T_LISTID_LIST, O(club.lists), 0, 0, NULL, "", NULL,
	    "club@lists.example.org", 0, NULL,
	    "Mailing lists (by address or List-Id) whose mail is read like "
	    "a player's instead of being ignored as list traffic; those "
	    "named by address get the open seeks once a week." },

	{ "ladder.create", T_LINE_LIST, O(ladder.create), 0, 0, NULL, "",
	    NULL, "[\"kalah mancala seeds=3 list=club@lists.example.org\"]",
	    0, NULL,
	    "Ladders the referee opens by itself when they do not exist "
	    "yet, each written as after `admin ladder create`: NAME GAME "
	    "[OPT=VAL...]." },
	{ "ladder.reach", T_INT, O(ladder.reach), 1, 1000, NULL, "3", NULL,
	    NULL, 0, NULL,
	    "How many places up a rung may challenge." },
	{ "ladder.accept", T_DURATION, O(ladder.accept_ms), HOUR_MS,
	    90 * DAY_MS, NULL, "3d", NULL, NULL, 0, NULL,
	    "How long the challenged have to accept; a challenge declined or "
	    "not accepted in time is a forfeit." },
	{ "ladder.open_challenges", T_INT, O(ladder.open_challenges), 1, 1000,
	    NULL, "2", NULL, NULL, 0, NULL,
	    "Open challenges a rung may have, made and received together." },
	{ "ladder.rematch", T_DURATION, O(ladder.rematch_ms), 0, 365 * DAY_MS,
	    NULL, "7d", NULL, NULL, 0, NULL,
	    "No new challenge between the same two rungs within this time "
	    "after their last was decided; 0 for none." },
	{ "ladder.idle", T_DURATION, O(ladder.idle_ms), 0, 365 * DAY_MS, NULL,
	    "28d", NULL, NULL, 0, NULL,
	    "A rung that has played nothing for this long drops one place at "
	    "the weekly round; 0 for never." },

	{ "site.dir", T_PATH, O(site.dir), 0, 0, NULL, NULL, "none",
	    "/var/www/ludus", F_EMPTY, NULL,
	    "Where ludusd keeps the public pages: it writes them all when "
	    "there is no index.html yet, then after each change rewrites the "
	    "pages it changed, each by rename, so a web server may serve the "
	    "directory as it is." },
	{ "site.url", T_STRING, O(site.url), 0, 0, NULL, NULL, "none",
	    "https://club.example.org/ludus", F_EMPTY, conf_check_site_url,
	    "The address the pages are served at (http:// or https://): "
	    "board and end mails then link to the game's page." },
};

#define NSETTINGS	((int)nitems(conf_settings))
#define NSECTIONS	((int)nitems(conf_sections))

const int conf_nsettings = NSETTINGS;
const int conf_nsections = NSECTIONS;
_Static_assert(nitems(conf_sections) <= CONF_MAX_SECTIONS,
    "CONF_MAX_SECTIONS is too small");

/* Loading context. */
struct load {
	struct config	*cfg;
	struct yw	*yw;		/* the file, its errors */
	yaml_document_t	*doc;
	char		*basedir;	/* owned; for relative paths */
	int		 set_line[NSETTINGS];	/* 0: not given */
	int		 sec_line[NSECTIONS];
	int		 nfail;		/* problems found so far */
	char		*err;		/* foreign: the first problem */
	size_t		 errlen;
	struct buf	*all;		/* foreign, may be NULL: every problem,
					 * a line each */
	char		 one[MSGLEN + 256];	/* the walker's err */
	char		 last[MSGLEN + 256];	/* the problem noted last */
};

/* Where a setting lives in the struct (read or written through the
 * type the setting's ctype implies). */
void *
conf_field(const struct config *c, const struct setting *s)
{
	return (char *)c + s->off;
}

/* The length of a path's section: 7 ("in.imap") for in.imap.url, 0 at
 * the top level. */
size_t
conf_parent_len(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot ? (size_t)(dot - path) : 0;
}

const char *
conf_leaf(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot ? dot + 1 : path;
}

int
conf_section_index(const char *path, size_t len)
{
	int i;

	for (i = 0; i < NSECTIONS; i++)
		if (strlen(conf_sections[i].path) == len &&
		    strncmp(conf_sections[i].path, path, len) == 0)
			return i;
	return -1;
}

static int
setting_index(const char *path)
{
	int i;

	for (i = 0; i < NSETTINGS; i++)
		if (strcmp(conf_settings[i].path, path) == 0)
			return i;
	return -1;
}

static void
list_free(struct config_list *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void
list_add(struct config_list *l, const char *s)
{
	l->v = xreallocarray(l->v, (size_t)l->n + 1, sizeof(*l->v));
	l->v[l->n++] = xstrdup(s);
}

void
conf_range_text(const struct setting *s, struct buf *b)
{
	switch (s->type) {
	case T_DURATION:
		config_format_duration(s->min, b);
		buf_adds(b, " and ");
		config_format_duration(s->max, b);
		break;
	case T_SIZE:
		conf_format_size(s->min, b);
		buf_adds(b, " and ");
		conf_format_size(s->max, b);
		break;
	default:
		buf_printf(b, "%lld and %lld", s->min, s->max);
		break;
	}
}

/*
 * Set one setting from its value: items[0] for a scalar, all of them for
 * a list.  basedir resolves relative paths (NULL: none).  -1 with msg,
 * and the index of the list item at fault in *bad_item (else -1).
 */
static int
set_value(struct config *c, const struct setting *s, char *const *items,
    int nitems, const char *basedir, int *bad_item, char *msg, size_t len)
{
	void *f = conf_field(c, s);
	const char *v = nitems > 0 ? items[0] : "";
	struct config_percents pc;
	struct buf b = { 0 };
	long long n;
	char *copy;
	int i, k;

	*bad_item = -1;
	switch (s->type) {
	case T_ADDRESS_LIST:
	case T_LISTID_LIST:
		list_free(f);
		for (i = 0; i < nitems; i++) {
			copy = xstrdup(items[i]);
			if (s->type == T_LISTID_LIST && copy[0] == '<' &&
			    copy[strlen(copy) - 1] == '>') {
				memmove(copy, copy + 1, strlen(copy));
				copy[strlen(copy) - 1] = '\0';
			}
			if (!addr_check(copy) && (s->type == T_ADDRESS_LIST ||
			    !addr_domain_check(copy))) {
				util_err(msg, len, "`%s` is not a mail "
				    "address%s", items[i],
				    s->type == T_LISTID_LIST ?
				    " or a List-Id" : " (local@domain)");
				free(copy);
				*bad_item = i;
				return -1;
			}
			if (s->type == T_LISTID_LIST)
				util_lower(copy);
			list_add(f, copy);
			free(copy);
		}
		return 0;
	case T_LINE_LIST:
		list_free(f);
		for (i = 0; i < nitems; i++) {
			if (conf_check_text(items[i], msg, len) == -1 ||
			    items[i][0] == '\0') {
				if (items[i][0] == '\0')
					util_err(msg, len, "an empty line");
				*bad_item = i;
				return -1;
			}
			list_add(f, items[i]);
		}
		return 0;
	case T_PERCENTS:
		memset(&pc, 0, sizeof(pc));
		if (nitems > CONFIG_MAX_REMINDERS) {
			util_err(msg, len, "at most %d reminders",
			    CONFIG_MAX_REMINDERS);
			return -1;
		}
		for (i = 0; i < nitems; i++) {
			copy = xstrdup(items[i]);
			if (copy[0] != '\0' && copy[strlen(copy) - 1] == '%')
				copy[strlen(copy) - 1] = '\0';
			k = util_parse_int(copy, 1, 99, &n);
			free(copy);
			if (k == -1) {
				util_err(msg, len, "`%s` is not a percentage "
				    "from 1%% to 99%%", items[i]);
				*bad_item = i;
				return -1;
			}
			if (i > 0 && n >= pc.v[i - 1]) {
				util_err(msg, len, "percentages must be "
				    "listed from the largest down");
				*bad_item = i;
				return -1;
			}
			pc.v[pc.n++] = (int)n;
		}
		*(struct config_percents *)f = pc;
		return 0;
	default:
		break;
	}

	if (*v == '\0' && s->type != T_STRING && s->type != T_PATH) {
		util_err(msg, len, "a value is needed");
		return -1;
	}
	switch (s->type) {
	case T_STRING:
	case T_PATH:
	case T_ADDRESS:
		if (*v == '\0') {
			if (!(s->flags & F_EMPTY)) {
				util_err(msg, len, "may not be empty");
				return -1;
			}
			free(*(char **)f);
			*(char **)f = NULL;
			return 0;
		}
		if (s->check != NULL && s->check(v, msg, len) == -1)
			return -1;
		/* A database's name: sqlite:// before a path; a
		 * PostgreSQL connection string is not a path. */
		if (s->check == conf_check_database &&
		    strncmp(v, "sqlite://", 9) == 0)
			v += 9;
		if (s->check == conf_check_database && conf_is_pg(v)) {
			free(*(char **)f);
			*(char **)f = xstrdup(v);
			return 0;
		}
		if (s->type == T_PATH && v[0] != '/' && basedir != NULL)
			copy = xasprintf("%s/%s", basedir, v);
		else
			copy = xstrdup(v);
		if (s->type == T_PATH &&
		    conf_check_path(copy, msg, len) == -1) {
			free(copy);
			return -1;
		}
		if (s->type == T_ADDRESS && !addr_check(copy)) {
			util_err(msg, len, "`%s` is not a mail address "
			    "(local@domain)", v);
			free(copy);
			return -1;
		}
		free(*(char **)f);
		*(char **)f = copy;
		return 0;
	case T_INT:
	case T_SIZE:
	case T_DURATION:
		if (s->type == T_INT && util_parse_int(v, LLONG_MIN, LLONG_MAX,
		    &n) == -1) {
			util_err(msg, len, "`%s` is not a whole number", v);
			return -1;
		}
		if (s->type == T_SIZE && conf_parse_size(v, &n) == -1) {
			util_err(msg, len, "`%s` is not a size (bytes, or a "
			    "number with k, M or G, such as 256k or 10M)", v);
			return -1;
		}
		if (s->type == T_DURATION &&
		    config_parse_duration(v, &n, msg, len) == -1)
			return -1;
		if (n < s->min || n > s->max) {
			conf_range_text(s, &b);
			util_err(msg, len, "`%s` is out of range (between %s)",
			    v, buf_str(&b));
			buf_free(&b);
			return -1;
		}
		*(long long *)f = n;
		return 0;
	case T_BOOL:
		if (conf_parse_bool(v, &k) == -1) {
			util_err(msg, len, "`%s` is not true or false (also: "
			    "yes, no, on, off)", v);
			return -1;
		}
		*(int *)f = k;
		return 0;
	case T_ENUM:
		for (k = 0; s->values[k] != NULL; k++)
			if (util_strcaseeq(s->values[k], v)) {
				*(int *)f = k;
				return 0;
			}
		for (k = 0; s->values[k] != NULL; k++)
			buf_printf(&b, "%s%s", k ? ", " : "", s->values[k]);
		util_err(msg, len, "`%s` is not one of %s", v, buf_str(&b));
		buf_free(&b);
		return -1;
	case T_URL:
		return conf_parse_url(v, s->values, f, msg, len);
	case T_CLOCK:
		return config_parse_clock(v, f, msg, len);
	case T_PROCESSED:
		return conf_parse_processed(v, f, msg, len);
	default:
		break;
	}
	fatal("config: setting %s has no parser", s->path);
}

/* Defaults. */

int
config_syslog_facility(const struct config *c)
{
	static const int fac[] = { LOG_DAEMON, LOG_MAIL, LOG_USER, LOG_LOCAL0,
		LOG_LOCAL1, LOG_LOCAL2, LOG_LOCAL3, LOG_LOCAL4, LOG_LOCAL5,
		LOG_LOCAL6, LOG_LOCAL7 };

	return fac[c->logging.facility];
}

const char *
config_default_path(void)
{
	const char *env = getenv("LUDUS_CONFIG");

	return env != NULL && *env != '\0' ? env :
	    LUDUS_SYSCONFDIR "/ludus/ludus.yaml";
}

static void
derive_defaults(struct config *c, int database_given, int secret_given)
{
	if (!database_given) {
		free(c->database);
		c->database = xasprintf("%s/ludus.db", c->state_dir);
	}
	if (!secret_given) {
		free(c->referee.secret_file);
		c->referee.secret_file = xasprintf("%s/secret", c->state_dir);
	}
}

/* Split "a, b" (the text form of a list default). */
static int
split_list(const char *text, char ***items)
{
	char *copy = xstrdup(text), *p, *tok;
	int n = 0;

	*items = NULL;
	for (p = copy; (tok = strtok_r(p, ",", &p)) != NULL;) {
		tok = util_trim(tok);
		if (*tok == '\0')
			continue;
		*items = xreallocarray(*items, (size_t)n + 1, sizeof(char *));
		(*items)[n++] = xstrdup(tok);
	}
	free(copy);
	return n;
}

static void
free_items(char **items, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

static int
is_list(const struct setting *s)
{
	return s->type == T_ADDRESS_LIST || s->type == T_LISTID_LIST ||
	    s->type == T_PERCENTS || s->type == T_LINE_LIST;
}

int
conf_set_text(struct config *c, const struct setting *s, const char *text,
    char *msg, size_t len)
{
	char **items, *one[1];
	int n, rc, bad;

	if (is_list(s)) {
		n = split_list(text, &items);
		rc = set_value(c, s, items, n, NULL, &bad, msg, len);
		free_items(items, n);
		return rc;
	}
	one[0] = (char *)text;
	return set_value(c, s, one, 1, NULL, &bad, msg, len);
}

void
config_defaults(struct config *c)
{
	char msg[MSGLEN];
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < NSETTINGS; i++)
		if (conf_section_index(conf_settings[i].path,
		    conf_parent_len(conf_settings[i].path)) < 0)
			fatal("config: %s has no section",
			    conf_settings[i].path);
	for (i = 0; i < NSETTINGS; i++)
		if (conf_settings[i].def != NULL &&
		    conf_set_text(c, &conf_settings[i], conf_settings[i].def,
		    msg, sizeof(msg)) == -1)
			fatal("config: default of %s: %s",
			    conf_settings[i].path, msg);
	c->imap.cred.setting = "in.imap";
	c->smtp.cred.setting = "out.smtp";
	c->pg_cred.setting = "postgresql";
	c->in = CONFIG_IN_STDIN;
	c->out = CONFIG_OUT_SENDMAIL;
	derive_defaults(c, 0, 0);
}

void
config_free(struct config *c)
{
	int i;
	void *f;

	for (i = 0; i < NSETTINGS; i++) {
		f = conf_field(c, &conf_settings[i]);
		switch (conf_settings[i].type) {
		case T_STRING:
		case T_PATH:
		case T_ADDRESS:
			free(*(char **)f);
			break;
		case T_ADDRESS_LIST:
		case T_LISTID_LIST:
		case T_LINE_LIST:
			list_free(f);
			break;
		case T_URL:
			free(((struct config_url *)f)->text);
			free(((struct config_url *)f)->host);
			free(((struct config_url *)f)->path);
			break;
		case T_PROCESSED:
			free(((struct config_processed *)f)->arg);
			break;
		default:
			break;
		}
	}
	free(c->file);
	free(c->given);
	memset(c, 0, sizeof(*c));
}

/* Loading. */

/* A problem in "FILE:LINE: what" form: err keeps the first, l->all gets
 * each, as the walk goes on after a problem so that one run names them
 * all. */
static void
note(struct load *l, const char *one)
{
	/* Two checks may find the same (a user required by the table and
	 * by the credentials' check): named once. */
	if (l->nfail > 0 && strcmp(one, l->last) == 0)
		return;
	snprintf(l->last, sizeof(l->last), "%s", one);
	if (l->nfail++ == 0)
		util_err(l->err, l->errlen, "%s", one);
	if (l->all != NULL)
		buf_printf(l->all, "%s\n", one);
}

static int fail(struct load *, int line, const char *, ...) PRINTFLIKE(3, 4);

static int
fail(struct load *l, int line, const char *fmt, ...)
{
	char msg[MSGLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	yw_fail_line(l->yw, line, "%s", msg);
	note(l, l->yw->err);
	return -1;
}

/* A null value (`key:` with nothing after it) as YAML writes it. */
static int
is_null(const yaml_node_t *n)
{
	const char *s = yw_scalar(n);

	return s != NULL && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (*s == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0);
}

/* The names one level below a section, for "unknown setting" messages. */
static void
children(const char *sec, struct buf *b)
{
	size_t len = strlen(sec), plen;
	const char *p;
	int i;

	for (i = 0; i < NSETTINGS + NSECTIONS; i++) {
		p = i < NSETTINGS ? conf_settings[i].path :
		    conf_sections[i - NSETTINGS].path;
		plen = conf_parent_len(p);
		if (*p == '\0' || plen != len || strncmp(p, sec, len) != 0)
			continue;
		buf_printf(b, "%s%s", b->len ? ", " : "", conf_leaf(p));
	}
}

static int
load_setting(struct load *l, int idx, yaml_node_t *key, yaml_node_t *v)
{
	const struct setting *s = &conf_settings[idx];
	yaml_node_item_t *it;
	yaml_node_t *item;
	char msg[MSGLEN], **items = NULL;
	int n = 0, rc, bad, *lines = NULL;

	if (l->set_line[idx] != 0)
		return fail(l, yw_line(key), "%s is given twice (first at "
		    "line %d)", s->path, l->set_line[idx]);
	l->set_line[idx] = yw_line(key);
	if (v->type == YAML_MAPPING_NODE)
		return fail(l, yw_line(v), "%s takes a value, not a mapping",
		    s->path);
	if (v->type == YAML_SCALAR_NODE && yw_scalar(v) == NULL)
		return fail(l, yw_line(v), "%s: a NUL character is not "
		    "allowed", s->path);
	if (v->type == YAML_SEQUENCE_NODE) {
		if (!is_list(s))
			return fail(l, yw_line(v), "%s takes one value, not a "
			    "list", s->path);
		for (it = v->data.sequence.items.start;
		    it < v->data.sequence.items.top; it++) {
			item = yaml_document_get_node(l->doc, *it);
			if (yw_scalar(item) == NULL) {
				free_items(items, n);
				free(lines);
				return fail(l, yw_line(item ? item : v),
				    "%s: each item must be a single value",
				    s->path);
			}
			items = xreallocarray(items, (size_t)n + 1,
			    sizeof(char *));
			lines = xreallocarray(lines, (size_t)n + 1,
			    sizeof(int));
			lines[n] = yw_line(item);
			items[n++] = xstrdup(yw_scalar(item));
		}
	} else if (!(is_list(s) && is_null(v))) {
		items = xmalloc(sizeof(char *));
		items[n++] = xstrdup(is_null(v) ? "" : yw_scalar(v));
	}
	rc = set_value(l->cfg, s, items, n, l->basedir, &bad, msg,
	    sizeof(msg));
	if (rc == -1)
		fail(l, bad >= 0 && lines != NULL ? lines[bad] : yw_line(v),
		    "%s: %s", s->path, msg);
	free_items(items, n);
	free(lines);
	return rc;
}

static int
load_section(struct load *l, const char *sec, yaml_node_t *n)
{
	yaml_node_pair_t *p;
	yaml_node_t *k, *v;
	struct buf full = { 0 }, names = { 0 };
	const char *key;
	int i, rc = 0;

	if (n == NULL || is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE) {
		children(sec, &names);
		rc = fail(l, yw_line(n), "%s must be a mapping of settings "
		    "(%s)", *sec ? sec : "the file", buf_str(&names));
		buf_free(&names);
		return rc;
	}
	/* Past a problem the walk goes on, so that every one is named. */
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
		k = yaml_document_get_node(l->doc, p->key);
		v = yaml_document_get_node(l->doc, p->value);
		if (k == NULL || v == NULL || (key = yw_scalar(k)) == NULL) {
			rc = fail(l, yw_line(k ? k : n), "a setting name "
			    "must be a plain word");
			continue;
		}
		buf_reset(&full);
		buf_printf(&full, "%s%s%s", sec, *sec ? "." : "", key);
		if (*key != '\0' && strchr(key, '.') == NULL &&
		    (i = conf_section_index(full.s, full.len)) >= 0) {
			if (l->sec_line[i] != 0)
				rc = fail(l, yw_line(k), "%s is given twice "
				    "(first at line %d)", full.s,
				    l->sec_line[i]);
			else {
				l->sec_line[i] = yw_line(k);
				if (load_section(l, full.s, v) == -1)
					rc = -1;
			}
		} else if (*key != '\0' && strchr(key, '.') == NULL &&
		    (i = setting_index(full.s)) >= 0) {
			if (load_setting(l, i, k, v) == -1)
				rc = -1;
		} else {
			buf_reset(&names);
			children(sec, &names);
			rc = fail(l, yw_line(k), "unknown setting `%s` (%s "
			    "has: %s)", full.s, *sec ? sec : "the top level",
			    buf_str(&names));
		}
	}
	buf_free(&full);
	buf_free(&names);
	return rc;
}

static int
given(struct load *l, const char *path)
{
	int i = setting_index(path);

	if (i < 0)
		fatal("config: no setting %s", path);
	return l->set_line[i];
}

static int
sec_given(struct load *l, const char *path)
{
	int i = conf_section_index(path, strlen(path));

	if (i < 0)
		fatal("config: no section %s", path);
	return l->sec_line[i];
}

static int
loopback(const char *host)
{
	return util_strcaseeq(host, "localhost") || strcmp(host, "::1") == 0 ||
	    strncmp(host, "127.", 4) == 0;
}

static int
check_cred(struct load *l, const struct config_cred *cr, int user_required)
{
	char path[64];
	int line_file, line_env;

	snprintf(path, sizeof(path), "%s.password_file", cr->setting);
	line_file = given(l, path);
	snprintf(path, sizeof(path), "%s.password_env", cr->setting);
	line_env = given(l, path);
	if (cr->password_file != NULL && cr->password_env != NULL)
		return fail(l, line_env > line_file ? line_env : line_file,
		    "%s: give password_file or password_env, not both",
		    cr->setting);
	if (cr->user == NULL && user_required)
		return fail(l, sec_given(l, cr->setting), "%s.user is required",
		    cr->setting);
	if (cr->user != NULL && cr->password_file == NULL &&
	    cr->password_env == NULL)
		return fail(l, sec_given(l, cr->setting), "%s: a user needs "
		    "password_file or password_env", cr->setting);
	if (cr->user == NULL && (cr->password_file || cr->password_env))
		return fail(l, line_file ? line_file : line_env, "%s: a "
		    "password needs a user", cr->setting);
	return 0;
}

/* A file the daemon will need later, checked now so that -n finds it. */
static int
readable(struct load *l, const char *setting, const char *file)
{
	if (file != NULL && access(file, R_OK) == -1)
		return fail(l, given(l, setting), "%s: %s: %s", setting, file,
		    strerror(errno));
	return 0;
}

/* Checks across settings, once the whole file is read. */
static int
finish(struct load *l)
{
	struct config *c = l->cfg;
	int i, in_imap, in_maildir, out_smtp, out_sendmail, rc = 0;

	in_imap = sec_given(l, "in.imap");
	in_maildir = sec_given(l, "in.maildir");
	if (in_imap && in_maildir)
		rc = fail(l, in_imap > in_maildir ? in_imap : in_maildir,
		    "in: give imap or maildir, not both (the other is at line "
		    "%d)", in_imap > in_maildir ? in_maildir : in_imap);
	c->in = in_imap ? CONFIG_IN_IMAP : in_maildir ? CONFIG_IN_MAILDIR :
	    CONFIG_IN_STDIN;
	out_smtp = sec_given(l, "out.smtp");
	out_sendmail = sec_given(l, "out.sendmail");
	if (out_smtp && out_sendmail)
		rc = fail(l, out_smtp > out_sendmail ? out_smtp :
		    out_sendmail, "out: give smtp or sendmail, not both (the "
		    "other is at line %d)", out_smtp > out_sendmail ?
		    out_sendmail : out_smtp);
	c->out = out_smtp ? CONFIG_OUT_SMTP : CONFIG_OUT_SENDMAIL;

	for (i = 0; i < NSETTINGS; i++) {
		size_t plen = conf_parent_len(conf_settings[i].path);
		int sec = conf_section_index(conf_settings[i].path, plen);

		if (!(conf_settings[i].flags & F_REQUIRED) || l->set_line[i])
			continue;
		/* Below in and out, sections are alternatives: what they
		 * require is required only when they are given. */
		if (strchr(conf_settings[i].path, '.') !=
		    strrchr(conf_settings[i].path, '.') &&
		    l->sec_line[sec] == 0)
			continue;
		rc = fail(l, l->sec_line[sec], "%s is required",
		    conf_settings[i].path);
	}

	if (c->referee.plus_addressing && c->referee.address != NULL &&
	    strchr(c->referee.address, '+') != NULL &&
	    strchr(c->referee.address, '+') < strrchr(c->referee.address, '@'))
		rc = fail(l, given(l, "referee.address"), "referee.address "
		    "may not contain + when plus_addressing is on");

	if (c->in == CONFIG_IN_IMAP) {
		if (check_cred(l, &c->imap.cred, 1) == -1)
			rc = -1;
		if (!c->imap.url.tls && c->imap.starttls == CONFIG_STARTTLS_OFF &&
		    c->imap.url.host != NULL && !loopback(c->imap.url.host))
			rc = fail(l, given(l, "in.imap.starttls"),
			    "in.imap.starttls: off is only allowed for a "
			    "server on the loopback interface, not %s",
			    c->imap.url.host);
		if (c->imap.retry_min_ms > c->imap.retry_max_ms)
			rc = fail(l, given(l, "in.imap.retry.min"),
			    "in.imap.retry.min is above retry.max");
		if (readable(l, "in.imap.ca_file", c->imap.ca_file) == -1)
			rc = -1;
	}
	if (c->out == CONFIG_OUT_SMTP) {
		if (check_cred(l, &c->smtp.cred, 0) == -1)
			rc = -1;
		if (!c->smtp.url.tls && c->smtp.starttls == CONFIG_STARTTLS_OFF &&
		    c->smtp.cred.user != NULL && c->smtp.url.host != NULL &&
		    !loopback(c->smtp.url.host))
			rc = fail(l, given(l, "out.smtp.starttls"),
			    "out.smtp.starttls: off with a user is only "
			    "allowed for a server on the loopback interface, "
			    "not %s", c->smtp.url.host);
		if (c->smtp.retry_min_ms > c->smtp.retry_max_ms)
			rc = fail(l, given(l, "out.smtp.retry.min"),
			    "out.smtp.retry.min is above retry.max");
		if (readable(l, "out.smtp.ca_file", c->smtp.ca_file) == -1)
			rc = -1;
	}
	if (c->pg_cred.password_file != NULL && c->pg_cred.password_env != NULL)
		rc = fail(l, given(l, "postgresql.password_env"), "postgresql: "
		    "give password_file or password_env, not both");
	if ((c->pg_cred.password_file != NULL ||
	    c->pg_cred.password_env != NULL) && !conf_is_pg(c->database))
		rc = fail(l, given(l, "postgresql.password_file") ?
		    given(l, "postgresql.password_file") :
		    given(l, "postgresql.password_env"), "postgresql: a "
		    "password, but the database is not a PostgreSQL one");
	derive_defaults(c, given(l, "database") != 0,
	    given(l, "referee.secret_file") != 0);
	return rc;
}

/* The directory relative paths are taken from: absolute when it exists,
 * so that they survive a chdir. */
static char *
base_dir(const char *name)
{
	const char *slash = strrchr(name, '/');
	char *dir, *real;

	dir = slash ? xstrndup(name, slash == name ? 1 :
	    (size_t)(slash - name)) : xstrdup(".");
	if ((real = realpath(dir, NULL)) == NULL)
		return dir;
	free(dir);
	dir = xstrdup(real);
	free(real);
	return dir;
}

/* config_load_text, with every problem appended to all (when not NULL),
 * a line each. */
static int
load_text(const char *name, const char *text, size_t len, struct config *c,
    char *err, size_t errlen, struct buf *all)
{
	struct yw w;
	struct load l;
	int rc;

	config_defaults(c);
	memset(&l, 0, sizeof(l));
	l.cfg = c;
	l.yw = &w;
	l.err = err;
	l.errlen = errlen;
	l.all = all;
	l.basedir = base_dir(name);
	/* No depth cap: the walk goes only into the table's sections, and
	 * refuses anything deeper at the first key out of place.  The
	 * walker writes each problem into l.one, note() passes it on. */
	if ((rc = yw_load(&w, name, text, len, NULL, YW_COLUMN, 0, l.one,
	    sizeof(l.one))) == -1)
		note(&l, l.one);
	else {
		l.doc = w.doc;
		rc = load_section(&l, "", yaml_document_get_root_node(w.doc));
		if (yaml_document_get_root_node(w.doc) != NULL &&
		    yw_only_one(&w) == -1) {
			note(&l, l.one);
			rc = -1;
		}
		/* The checks across settings run after a setting's problem
		 * as well: each finds its own. */
		if (finish(&l) == -1)
			rc = -1;
	}
	yw_free(&w);
	free(l.basedir);
	if (rc == -1) {
		config_free(c);
		config_defaults(c);
		return -1;
	}
	c->file = xstrdup(name);
	c->given = xcalloc(NSETTINGS, 1);
	for (rc = 0; rc < NSETTINGS; rc++)
		c->given[rc] = l.set_line[rc] != 0;
	return 0;
}

int
config_load_text(const char *name, const char *text, size_t len,
    struct config *c, char *err, size_t errlen)
{
	return load_text(name, text, len, c, err, errlen, NULL);
}

int
config_load_all(const char *path, struct config *c, char *err,
    size_t errlen, struct buf *all)
{
	struct stat st;
	char *text;
	size_t got = 0;
	ssize_t n;
	int fd, rc;

	config_defaults(c);
	if (all != NULL)
		buf_reset(all);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		util_err(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (st.st_size > CONFIG_MAX_SIZE) {
		util_err(err, errlen, "%s: larger than %d bytes", path,
		    CONFIG_MAX_SIZE);
		close(fd);
		return -1;
	}
	text = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size &&
	    (n = read(fd, text + got, (size_t)st.st_size - got)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			util_err(err, errlen, "%s: %s", path, strerror(errno));
			close(fd);
			free(text);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	config_free(c);
	rc = load_text(path, text, got, c, err, errlen, all);
	free(text);
	return rc;
}

int
config_load(const char *path, struct config *c, char *err, size_t errlen)
{
	return config_load_all(path, c, err, errlen, NULL);
}

/* Passwords. */

int
config_password(const struct config_cred *cr, char **out, char *err,
    size_t errlen)
{
	struct stat st;
	char *pw, *nl, path[4096];
	const char *env;
	ssize_t n;
	size_t got = 0;
	int fd;

	*out = NULL;
	if (cr->password_env != NULL) {
		env = getenv(cr->password_env);
		if (env == NULL || *env == '\0') {
			util_err(err, errlen, "%s.password_env: the environment "
			    "variable %s is not set", cr->setting,
			    cr->password_env);
			return -1;
		}
		*out = xstrdup(env);
		return 0;
	}
	if (cr->password_file == NULL) {
		util_err(err, errlen, "%s: no password_file or password_env",
		    cr->setting);
		return -1;
	}
	util_strlcpy(path, cr->password_file, sizeof(path));
	/* Under systemd, LoadCredential=NAME:PATH hands the file to the
	 * service as $CREDENTIALS_DIRECTORY/NAME: a credential named like
	 * the file is used instead of the file itself. */
	if ((env = getenv("CREDENTIALS_DIRECTORY")) != NULL && *env != '\0') {
		const char *base = strrchr(cr->password_file, '/');
		char *cred = xasprintf("%s/%s", env, base ? base + 1 :
		    cr->password_file);

		if (access(cred, F_OK) == 0)
			util_strlcpy(path, cred, sizeof(path));
		free(cred);
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		util_err(err, errlen, "%s.password_file: %s: %s", cr->setting,
		    path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		util_err(err, errlen, "%s.password_file: %s: not a regular "
		    "file", cr->setting, path);
		close(fd);
		return -1;
	}
	/* Group access is allowed: a `ludus` group may share the file
	 * with the admins who edit it. */
	if (st.st_mode & (S_IROTH | S_IWOTH)) {
		util_err(err, errlen, "%s.password_file: %s: others may %s it "
		    "(mode %04o); chmod o-rwx it", cr->setting,
		    path, st.st_mode & S_IROTH ? "read" : "write",
		    (unsigned)(st.st_mode & 07777));
		close(fd);
		return -1;
	}
	pw = xmalloc(PASSWORD_MAX + 1);
	while (got < PASSWORD_MAX &&
	    (n = read(fd, pw + got, PASSWORD_MAX - got)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			util_err(err, errlen, "%s.password_file: %s: %s",
			    cr->setting, path, strerror(errno));
			close(fd);
			config_password_free(pw);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	pw[got] = '\0';
	if ((nl = strpbrk(pw, "\r\n")) != NULL)
		*nl = '\0';
	else if (got == PASSWORD_MAX) {
		util_err(err, errlen, "%s.password_file: %s: longer than %d "
		    "bytes", cr->setting, path, PASSWORD_MAX);
		config_password_free(pw);
		return -1;
	}
	if (pw[0] == '\0') {
		util_err(err, errlen, "%s.password_file: %s: the first line is "
		    "empty", cr->setting, path);
		config_password_free(pw);
		return -1;
	}
	*out = pw;
	return 0;
}

int
config_db_password(const struct config *c, char **out, char *err,
    size_t errlen)
{
	*out = NULL;
	if (c->pg_cred.password_file == NULL && c->pg_cred.password_env == NULL)
		return 0;
	return config_password(&c->pg_cred, out, err, errlen);
}

void
config_password_free(char *pw)
{
	if (pw == NULL)
		return;
	explicit_bzero(pw, strlen(pw));
	free(pw);
}

int
config_check_passwords(const struct config *c, char *err, size_t errlen)
{
	char *pw;

	if (c->in == CONFIG_IN_IMAP) {
		if (config_password(&c->imap.cred, &pw, err, errlen) == -1)
			return -1;
		config_password_free(pw);
	}
	if (c->out == CONFIG_OUT_SMTP && c->smtp.cred.user != NULL) {
		if (config_password(&c->smtp.cred, &pw, err, errlen) == -1)
			return -1;
		config_password_free(pw);
	}
	if (config_db_password(c, &pw, err, errlen) == -1)
		return -1;
	config_password_free(pw);
	return 0;
}

const char *
config_setting_name(int i)
{
	return i >= 0 && i < NSETTINGS ? conf_settings[i].path : NULL;
}
