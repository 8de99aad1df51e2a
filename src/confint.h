/*
 * confint: what the three parts of the configuration share: conf.c (the
 * settings table and reading ludus.yaml into struct config), confval.c
 * (the syntax of the values: durations, clocks, sizes, URLs, ...) and
 * confgen.c (writing settings back: `ludus config`'s dump, the sample
 * and the manual's settings).  Nothing else includes it; conf.h is the
 * interface.
 */
#ifndef LUDUS_CONFINT_H
#define LUDUS_CONFINT_H

#include <stddef.h>

#include "conf.h"
#include "store.h"

#define MSGLEN		512
#define PASSWORD_MAX	4096
#define CONFIG_MAX_SIZE	(1 << 20)	/* far above any real file */
#define SEC_MS		1000LL
#define MIN_MS		(60 * SEC_MS)
#define HOUR_MS		(60 * MIN_MS)
#define DAY_MS		(24 * HOUR_MS)

enum ctype {
	T_STRING, T_INT, T_SIZE, T_BOOL, T_DURATION, T_ENUM, T_ADDRESS,
	T_ADDRESS_LIST, T_LISTID_LIST, T_PATH, T_URL, T_CLOCK, T_PERCENTS,
	T_PROCESSED, T_LINE_LIST
};

#define F_REQUIRED	0x01	/* must be given when its section is */
#define F_EMPTY		0x02	/* "" means unset */
#define F_SAMPLE	0x04	/* the sample shows the example, not commented */

struct setting {
	const char	*path;
	enum ctype	 type;
	size_t		 off;
	long long	 min, max;
	const char *const *values;	/* T_ENUM values; T_URL schemes */
	const char	*def;		/* NULL: unset by default */
	const char	*defdoc;	/* a default that depends on the build or
					 * on another setting, in words */
	const char	*example;
	int		 flags;
	int		(*check)(const char *, char *, size_t);
	const char	*help;
};

#define S_SAMPLE_OFF	0x01	/* commented out in the sample */

struct section {
	const char	*path;
	int		 flags;
	const char	*help;
};

/* conf.c: the table, in the order of the sample and the manual. */
#define CONF_MAX_SECTIONS	64	/* conf_nsections is at most this */
extern const struct section conf_sections[];
extern const int conf_nsections;
extern const struct setting conf_settings[];
extern const int conf_nsettings;
void	*conf_field(const struct config *c, const struct setting *s);
const char	*conf_leaf(const char *path);
size_t	conf_parent_len(const char *path);
void	conf_range_text(const struct setting *s, struct buf *b);
int	conf_section_index(const char *path, size_t len);
int	conf_set_text(struct config *c, const struct setting *s,
    const char *text, char *msg, size_t len);

/* confval.c: the syntax of values.  The checks (a setting's check in the
 * table) return 0, or -1 with msg filled. */
int	conf_check_env(const char *s, char *msg, size_t len);
/* database: a PostgreSQL one only in a build with libpq; no other kind. */
int	conf_check_database(const char *s, char *msg, size_t len);
#define conf_is_pg(s)	store_is_server(s)
int	conf_check_folder(const char *s, char *msg, size_t len);
int	conf_check_lmtp(const char *s, char *msg, size_t len);
int	conf_check_path(const char *s, char *msg, size_t len);
int	conf_check_site_url(const char *s, char *msg, size_t len);
int	conf_check_tag(const char *s, char *msg, size_t len);
int	conf_check_text(const char *s, char *msg, size_t len);
int	conf_check_token(const char *s, char *msg, size_t len);
void	conf_format_size(long long n, struct buf *b);
int	conf_parse_bool(const char *s, int *v);
int	conf_parse_processed(const char *s, struct config_processed *pr,
    char *msg, size_t len);
int	conf_parse_size(const char *s, long long *out);
int	conf_parse_url(const char *s, const char *const *schemes,
    struct config_url *u, char *msg, size_t len);

#endif
