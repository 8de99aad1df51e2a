/*
 * conf: the configuration file ludus.yaml, read once into struct config.
 *
 * (The file is conf.h, not config.h: every source includes autoconf's
 * "config.h", and a quoted include looks in the includer's own directory
 * first, so a src/config.h would shadow it.)
 *
 * Every setting is one row of a table in conf.c: dotted path, type, range,
 * default and help.  The same table fills the defaults, checks a file,
 * prints the effective configuration, and writes the settings part of
 * ludus.yaml(5) and contrib/ludus.yaml.sample, so the three cannot drift.
 *
 * Durations are kept in milliseconds (fields end in _ms), sizes in bytes.
 * Strings are owned by the struct (config_free); a string setting that is
 * not set is NULL, never "".
 */
#ifndef LUDUS_CONF_H
#define LUDUS_CONF_H

#include <stddef.h>

#include "util.h"

#define CONFIG_MAX_REMINDERS	8

/* A list of strings; v[0..n-1] owned. */
struct config_list {
	char	**v;
	int	 n;
};

/* imap://, imaps://, smtp:// or smtps:// URL, taken apart. */
struct config_url {
	char	*text;		/* owned: as written, NULL when unset */
	char	*host;		/* owned: no brackets around IPv6 */
	int	 port;		/* the scheme's port when none is written */
	int	 tls;		/* 1: TLS from the first byte (imaps, smtps) */
	char	*path;		/* owned: IMAP mailbox, %XX decoded; NULL if none */
};

/* Where a password comes from; the password itself never enters this
 * struct.  Exactly one of password_file and password_env is set when user
 * is. */
struct config_cred {
	const char *setting;	/* static: "in.imap" or "out.smtp", for messages */
	char	*user;
	char	*password_file;
	char	*password_env;
};

/* A time control: per move (`24h`), or a Fischer reserve plus an increment
 * per move (`7d+1d`). */
struct config_clock {
	int		fischer;
	long long	base_ms;	/* time per move, or the reserve */
	long long	increment_ms;	/* Fischer only */
};

struct config_percents {
	int	n;
	int	v[CONFIG_MAX_REMINDERS];	/* strictly decreasing, 1..99 */
};

enum config_processed_kind { CONFIG_PROCESSED_MOVE, CONFIG_PROCESSED_FLAG };
struct config_processed {
	enum config_processed_kind kind;
	char	*arg;			/* owned: folder or flag keyword */
};

/* Enum settings keep the index of the value in the table's list. */
enum config_language	{ CONFIG_LANG_EN, CONFIG_LANG_RU, CONFIG_LANG_AR };
enum config_starttls	{ CONFIG_STARTTLS_REQUIRED, CONFIG_STARTTLS_OFF };
enum config_log_to	{ CONFIG_LOG_STDERR, CONFIG_LOG_SYSLOG };
enum config_log_level	{ CONFIG_LOG_ERROR, CONFIG_LOG_WARNING, CONFIG_LOG_INFO,
			  CONFIG_LOG_DEBUG };
enum config_facility	{ CONFIG_FAC_DAEMON, CONFIG_FAC_MAIL, CONFIG_FAC_USER,
			  CONFIG_FAC_LOCAL0, CONFIG_FAC_LOCAL1, CONFIG_FAC_LOCAL2,
			  CONFIG_FAC_LOCAL3, CONFIG_FAC_LOCAL4, CONFIG_FAC_LOCAL5,
			  CONFIG_FAC_LOCAL6, CONFIG_FAC_LOCAL7 };
enum config_timeout	{ CONFIG_TIMEOUT_FORFEIT, CONFIG_TIMEOUT_NOTIFY };

enum config_in		{ CONFIG_IN_STDIN, CONFIG_IN_IMAP, CONFIG_IN_MAILDIR };
enum config_out		{ CONFIG_OUT_SENDMAIL, CONFIG_OUT_SMTP };

struct config_referee {
	char	*address;	/* domain lower-cased */
	char	*name;
	char	*tag;
	struct config_list admins;
	int	 plus_addressing;
	char	*secret_file;
	int	 language;	/* enum config_language */
};

struct config_imap {
	struct config_url url;
	struct config_cred cred;
	char	*ca_file;
	int	 tls_verify;
	int	 starttls;	/* enum config_starttls; imap:// only */
	struct config_processed processed;
	int	 idle;
	long long poll_interval_ms;
	long long timeout_ms;
	long long retry_min_ms;
	long long retry_max_ms;
};

struct config_maildir {
	char	*path;
	char	*processed;	/* "cur", or a Maildir++ folder name */
};

struct config_smtp {
	struct config_url url;
	struct config_cred cred;	/* user NULL: no AUTH */
	char	*ca_file;
	int	 tls_verify;
	int	 starttls;
	long long timeout_ms;
	long long retry_min_ms;
	long long retry_max_ms;
};

struct config {
	char	*file;			/* the file read; NULL for defaults */
	/* Per setting of the table, in its order: 1 where the file gives it
	 * (owned; NULL for defaults). */
	unsigned char *given;
	struct config_referee referee;
	struct {
		int	auto_accept;
	} admin;
	char	*state_dir;
	char	*database;		/* default: state_dir/ludus.db; or a
					 * PostgreSQL connection string */
	struct config_cred pg_cred;	/* its password; no user (the
					 * connection string names it) */
	char	*games_dir;
	char	*templates_dir;
	char	*pid_file;		/* NULL: none */

	enum config_in in;
	char	*lmtp;			/* in.lmtp, NULL: none */
	struct config_imap imap;
	struct config_maildir maildir;

	enum config_out out;
	struct config_smtp smtp;
	char	*sendmail;
	long long lifetime_ms;		/* a mail waits at most this long */

	struct {
		long long processed_ms;	/* message keys kept for dedupe */
		long long outbox_ms;	/* sent and given-up mail kept */
	} retention;
	struct {
		long long message_size;
		long long lines;
		long long commands;
		long long error_replies;	/* per sender per hour */
		long long info_replies;		/* help, games, list: the same */
	} limits;
	struct {
		int	to;		/* enum config_log_to */
		int	level;		/* enum config_log_level */
		int	facility;	/* enum config_facility */
	} logging;
	struct {
		char	*socket;	/* NULL: no metrics endpoint */
	} metrics;
	struct {
		char	*trust_authserv_id;	/* NULL: off */
	} auth;
	struct {
		struct config_clock move;
		struct config_percents reminders;
		int	 timeout_action;	/* enum config_timeout */
		long long vacation_ms;		/* allowance per year */
		long long invitation_ms;
		long long confirmation_ms;
	} clock;
	struct {
		int	cycle_deck;
	} almakleh;
	struct {
		long long budget_ms;
	} robots;
	struct {
		struct config_list lists;	/* addresses and List-Ids */
	} club;
	struct {			/* defaults of `admin ladder create` */
		struct config_list create;	/* ladders to open: lines
						 * as after the command */
		long long reach;
		long long accept_ms;
		long long open_challenges;
		long long rematch_ms;		/* 0: none */
		long long idle_ms;		/* 0: never */
	} ladder;
	struct {
		char	*dir;		/* NULL: no pages kept */
		char	*url;		/* NULL: mails link to none */
	} site;
};

/* logging.facility as syslog(3) wants it (LOG_MAIL, ...).  logging.level
 * lists its values in log.h's order: it converts to enum log_level as is. */
int	config_syslog_facility(const struct config *);

/* The file read when none is given: $LUDUS_CONFIG, else
 * SYSCONFDIR/ludus/ludus.yaml.  Don't free. */
const char *config_default_path(void);

/* The built-in defaults (nothing required is set). */
void	config_defaults(struct config *);
/*
 * Defaults, then the file.  -1 with "file:line: setting: why" in err, and
 * then *c holds the defaults alone.  *c need not be initialised and is not
 * freed first; either way it must be config_free'd afterwards.  (To reload,
 * load into a second struct and swap on success.)  Relative paths in the
 * file are taken from the file's directory.
 */
int	config_load(const char *path, struct config *, char *err, size_t errlen);
/* The same, and when all is not NULL every problem of the file's text is
 * appended to it, "file:line: setting: why" a line each (err still holds
 * the first; all stays empty when the file cannot be read at all). */
int	config_load_all(const char *path, struct config *, char *err,
	    size_t errlen, struct buf *all);
/* The same from text in memory; name stands for the file in messages and
 * for relative paths. */
int	config_load_text(const char *name, const char *text, size_t len,
	    struct config *, char *err, size_t errlen);
void	config_free(struct config *);

/* The effective settings as YAML that config_load reads back.  Passwords
 * are never in struct config; only where they come from is printed. */
void	config_dump(const struct config *, struct buf *);
/* The same for the settings the file gives (as `postconf -n`). */
void	config_dump_given(const struct config *, struct buf *);
/* "KEY: VALUE" for the setting KEY, or for each setting in the section
 * KEY; -1 when there is no such setting or section. */
int	config_dump_key(const struct config *, const char *key, struct buf *);

/* The password of a credential, read now from its file or environment
 * variable.  *out is owned: release it with config_password_free, which
 * wipes it.  A file readable or writable by others is refused. */
int	config_password(const struct config_cred *, char **out, char *err,
	    size_t errlen);
void	config_password_free(char *);
/* The PostgreSQL password in *out (owned, NULL when none is configured),
 * for the caller to hand to the store (store_set_password), then free with
 * config_password_free.  0, or -1 with err. */
int	config_db_password(const struct config *, char **out, char *err,
	    size_t errlen);
/* Read every configured password once and discard it (for `ludusd -n`). */
int	config_check_passwords(const struct config *, char *err, size_t errlen);

/* Value parsers shared with the command language (clock= at `new`). */
int	config_parse_duration(const char *, long long *ms, char *err,
	    size_t errlen);
int	config_parse_clock(const char *, struct config_clock *, char *err,
	    size_t errlen);
/* "1d", "1h30m", "7d+1d": what the parsers read back. */
void	config_format_duration(long long ms, struct buf *);
void	config_format_clock(const struct config_clock *, struct buf *);

/* The dotted name of the i-th setting, NULL past the last. */
const char *config_setting_name(int);

/* Documentation from the table: the settings part of ludus.yaml(5) (mdoc)
 * and the whole sample file. */
void	config_doc_man(struct buf *);
void	config_doc_sample(struct buf *);

#endif
