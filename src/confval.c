/* confval: the syntax of the configuration's values (durations, clocks,
 * sizes, booleans, URLs, the checks of strings), shared with the command
 * language (clock= at `new`). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confint.h"

/* Value syntax. */

int
config_parse_duration(const char *s, long long *ms, char *err, size_t errlen)
{
	static const struct { const char *u; long long ms; } units[] = {
		{ "ms", 1 }, { "s", SEC_MS }, { "m", MIN_MS }, { "h", HOUR_MS },
		{ "d", DAY_MS }, { "w", 7 * DAY_MS },
	};
	const char *p = s;
	long long total = 0, n, mult;
	size_t i, ul;
	int any = 0;

	while (*p != '\0') {
		if (!isdigit((unsigned char)*p))
			goto bad;
		for (n = 0; isdigit((unsigned char)*p); p++) {
			if (n > (LLONG_MAX - 9) / 10)
				goto big;
			n = n * 10 + (*p - '0');
		}
		for (ul = 0; isalpha((unsigned char)p[ul]); ul++)
			;
		if (ul == 0) {
			/* A bare number is seconds, and only alone. */
			if (any || *p != '\0')
				goto bad;
			mult = SEC_MS;
		} else {
			mult = 0;
			for (i = 0; i < nitems(units); i++)
				if (strlen(units[i].u) == ul &&
				    util_strncaseeq(units[i].u, p, ul))
					mult = units[i].ms;
			if (mult == 0)
				goto bad;
			p += ul;
		}
		if (n > LLONG_MAX / mult || total > LLONG_MAX - n * mult)
			goto big;
		total += n * mult;
		any = 1;
	}
	if (!any)
		goto bad;
	*ms = total;
	return 0;
bad:
	util_err(err, errlen, "`%s` is not a duration (a number with ms, s, "
	    "m, h, d or w, such as 90s, 5m, 24h, 1h30m, 7d)", s);
	return -1;
big:
	util_err(err, errlen, "`%s` is too long a duration", s);
	return -1;
}

void
config_format_duration(long long ms, struct buf *b)
{
	static const struct { const char *u; long long ms; } units[] = {
		{ "d", DAY_MS }, { "h", HOUR_MS }, { "m", MIN_MS },
		{ "s", SEC_MS }, { "ms", 1 },
	};
	size_t i;

	if (ms == 0) {
		buf_adds(b, "0s");
		return;
	}
	for (i = 0; i < nitems(units); i++)
		if (ms >= units[i].ms) {
			buf_printf(b, "%lld%s", ms / units[i].ms, units[i].u);
			ms %= units[i].ms;
		}
}

int
config_parse_clock(const char *s, struct config_clock *c, char *err,
    size_t errlen)
{
	const char *plus = strchr(s, '+');
	char *base;
	int rc;

	memset(c, 0, sizeof(*c));
	base = plus ? xstrndup(s, (size_t)(plus - s)) : xstrdup(s);
	rc = config_parse_duration(base, &c->base_ms, err, errlen);
	free(base);
	if (rc == 0 && plus != NULL) {
		c->fischer = 1;
		rc = config_parse_duration(plus + 1, &c->increment_ms, err,
		    errlen);
	}
	if (rc == -1) {
		util_err(err, errlen, "`%s` is not a time control (time per "
		    "move such as 24h, or reserve+increment such as 7d+1d)",
		    s);
		return -1;
	}
	if (c->base_ms < MIN_MS || c->base_ms > 365 * DAY_MS) {
		util_err(err, errlen, "`%s`: the %s must be between 1m and "
		    "365d", s, c->fischer ? "reserve" : "time per move");
		return -1;
	}
	if (c->increment_ms > 30 * DAY_MS) {
		util_err(err, errlen, "`%s`: the increment must be at most 30d",
		    s);
		return -1;
	}
	return 0;
}

void
config_format_clock(const struct config_clock *c, struct buf *b)
{
	config_format_duration(c->base_ms, b);
	if (c->fischer) {
		buf_addc(b, '+');
		config_format_duration(c->increment_ms, b);
	}
}

int
conf_parse_size(const char *s, long long *out)
{
	long long n = 0, mult = 1;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		if (n > (LLONG_MAX - 9) / 10)
			return -1;
		n = n * 10 + (*p - '0');
	}
	if (*p != '\0') {
		switch (*p) {
		case 'k': case 'K': mult = 1LL << 10; break;
		case 'm': case 'M': mult = 1LL << 20; break;
		case 'g': case 'G': mult = 1LL << 30; break;
		default: return -1;
		}
		if (p[1] != '\0' && !((p[1] == 'b' || p[1] == 'B') &&
		    p[2] == '\0'))
			return -1;
	}
	if (n > LLONG_MAX / mult)
		return -1;
	*out = n * mult;
	return 0;
}

void
conf_format_size(long long n, struct buf *b)
{
	if (n != 0 && n % (1LL << 30) == 0)
		buf_printf(b, "%lldG", n >> 30);
	else if (n != 0 && n % (1LL << 20) == 0)
		buf_printf(b, "%lldM", n >> 20);
	else if (n != 0 && n % (1LL << 10) == 0)
		buf_printf(b, "%lldk", n >> 10);
	else
		buf_printf(b, "%lld", n);
}

int
conf_parse_bool(const char *s, int *v)
{
	if (util_strcaseeq(s, "true") || util_strcaseeq(s, "yes") ||
	    util_strcaseeq(s, "on"))
		*v = 1;
	else if (util_strcaseeq(s, "false") || util_strcaseeq(s, "no") ||
	    util_strcaseeq(s, "off"))
		*v = 0;
	else
		return -1;
	return 0;
}

int
conf_check_tag(const char *s, char *msg, size_t len)
{
	const char *p;

	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-')
			break;
	if (*p != '\0' || p == s || p - s > 32) {
		util_err(msg, len, "`%s` is not a tag (1-32 letters, digits or "
		    "hyphens)", s);
		return -1;
	}
	return 0;
}

/* No control characters and at most max bytes. */
static int
check_plain(const char *s, size_t max, char *msg, size_t len)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f) {
			util_err(msg, len, "control characters are not allowed");
			return -1;
		}
	if ((size_t)(p - (const unsigned char *)s) > max) {
		util_err(msg, len, "longer than %zu bytes", max);
		return -1;
	}
	return 0;
}

/* Text that goes into a header or a login. */
int
conf_check_text(const char *s, char *msg, size_t len)
{
	return check_plain(s, 200, msg, len);
}

int
conf_check_path(const char *s, char *msg, size_t len)
{
	return check_plain(s, PATH_MAX - 1, msg, len);
}

int
conf_check_env(const char *s, char *msg, size_t len)
{
	const char *p;

	for (p = s; *p; p++)
		if (!(isalpha((unsigned char)*p) || *p == '_' ||
		    (p > s && isdigit((unsigned char)*p))))
			break;
	if (*p != '\0' || p == s) {
		util_err(msg, len, "`%s` is not an environment variable name "
		    "(letters, digits and _, not starting with a digit)", s);
		return -1;
	}
	return 0;
}

int
conf_check_token(const char *s, char *msg, size_t len)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p == 0x7f || *p == ';') {
			util_err(msg, len, "`%s` is not an authserv-id (no "
			    "spaces or semicolons)", s);
			return -1;
		}
	return 0;
}

int
conf_check_site_url(const char *s, char *msg, size_t len)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '"' || *p == '<' ||
		    *p == '>' || *p == '\\')
			break;
	if (*p != '\0' || (strncmp(s, "https://", 8) != 0 &&
	    strncmp(s, "http://", 7) != 0) || strlen(s) > 200) {
		util_err(msg, len, "`%s` is not an http:// or https:// URL "
		    "(ASCII, no spaces, quotes or angle brackets)", s);
		return -1;
	}
	return 0;
}

int
conf_check_folder(const char *s, char *msg, size_t len)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == '/' || *p == 0x7f)
			break;
	if (*p != '\0' || *s == '\0' || *s == '.' || strcmp(s, "new") == 0 ||
	    strcmp(s, "tmp") == 0 || strcmp(s, "cur") == 0) {
		util_err(msg, len, "`%s` is not a folder name (no slash, no "
		    "leading dot, not new, cur or tmp)", s);
		return -1;
	}
	return 0;
}

static int
keyword_ok(const char *s)
{
	const unsigned char *p;

	if (util_strcaseeq(s, "\\Seen") || util_strcaseeq(s, "\\Answered") ||
	    util_strcaseeq(s, "\\Flagged"))
		return 1;
	for (p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || strchr("(){%*\"\\]", *p))
			return 0;
	return p != (const unsigned char *)s;
}

int
conf_parse_processed(const char *s, struct config_processed *pr, char *msg,
    size_t len)
{
	const char *arg;
	const unsigned char *p;

	if (strncmp(s, "move ", 5) == 0) {
		arg = s + 5;
		for (p = (const unsigned char *)arg; *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				break;
		if (*arg == '\0' || *p != '\0')
			goto bad;
		pr->kind = CONFIG_PROCESSED_MOVE;
	} else if (strncmp(s, "flag ", 5) == 0) {
		arg = s + 5;
		if (!keyword_ok(arg))
			goto bad;
		pr->kind = CONFIG_PROCESSED_FLAG;
	} else
		goto bad;
	free(pr->arg);
	pr->arg = xstrdup(arg);
	return 0;
bad:
	util_err(msg, len, "`%s` is not `move FOLDER` or `flag KEYWORD` "
	    "(KEYWORD: an IMAP keyword, \\Seen, \\Answered or \\Flagged)", s);
	return -1;
}

static int
hexdigit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int
conf_parse_url(const char *s, const char *const *schemes, struct config_url *u,
    char *msg, size_t len)
{
	static const struct { const char *scheme; int port, tls; } ports[] = {
		{ "imaps", 993, 1 }, { "imap", 143, 0 },
		{ "smtps", 465, 1 }, { "smtp", 25, 0 },
	};
	const char *p, *host, *hend, *rest;
	struct buf path = { 0 };
	long long port;
	size_t i, slen = 0;
	int k, hi, lo;
	char *portstr;

	for (k = 0; schemes[k] != NULL; k++) {
		slen = strlen(schemes[k]);
		if (util_strncaseeq(s, schemes[k], slen) &&
		    strncmp(s + slen, "://", 3) == 0)
			break;
	}
	if (schemes[k] == NULL) {
		util_err(msg, len, "`%s` does not start with %s:// or %s://",
		    s, schemes[0], schemes[1]);
		return -1;
	}
	host = s + slen + 3;
	for (p = host; *p && *p != '/'; p++)
		if (*p == '@') {
			util_err(msg, len, "the URL may not hold a user or "
			    "password: use user and password_file or "
			    "password_env");
			return -1;
		}
	if (*host == '[') {
		if ((hend = strchr(host, ']')) == NULL)
			goto bad;
		host++;
		rest = hend + 1;
	} else {
		for (hend = host; *hend && *hend != ':' && *hend != '/'; hend++)
			;
		rest = hend;
	}
	if (hend == host)
		goto bad;
	for (p = host; p < hend; p++)
		if (!(isalnum((unsigned char)*p) || strchr(".-:", *p)))
			goto bad;
	for (i = 0; i < nitems(ports); i++)
		if (strcmp(ports[i].scheme, schemes[k]) == 0)
			break;
	port = ports[i].port;
	if (*rest == ':') {
		for (p = ++rest; isdigit((unsigned char)*p); p++)
			;
		portstr = xstrndup(rest, (size_t)(p - rest));
		k = util_parse_int(portstr, 1, 65535, &port);
		free(portstr);
		if (k == -1)
			goto bad;
		rest = p;
	}
	if (*rest != '\0' && *rest != '/')
		goto bad;
	if (*rest == '/')
		for (p = rest + 1; *p; p++) {
			if (*p == '?' || *p == '#' || (unsigned char)*p < 0x20)
				goto bad;
			if (*p == '%') {
				if ((hi = hexdigit(p[1])) < 0 ||
				    (lo = hexdigit(p[2])) < 0 || hi + lo == 0)
					goto bad;
				buf_addc(&path, (char)(hi * 16 + lo));
				p += 2;
			} else
				buf_addc(&path, *p);
		}
	if (path.len > 0 && ports[i].scheme[0] == 's') {
		buf_free(&path);
		util_err(msg, len, "an SMTP URL has no path");
		return -1;
	}
	free(u->text);
	free(u->host);
	free(u->path);
	u->text = xstrdup(s);
	u->host = xstrndup(host, (size_t)(hend - host));
	u->port = (int)port;
	u->tls = ports[i].tls;
	u->path = path.len ? buf_steal(&path) :
	    ports[i].scheme[0] == 'i' ? xstrdup("INBOX") : NULL;
	buf_free(&path);
	return 0;
bad:
	buf_free(&path);
	util_err(msg, len, "`%s` is not a URL of the form %s://HOST[:PORT]%s",
	    s, schemes[0], schemes[0][0] == 'i' ? "[/MAILBOX]" : "");
	return -1;
}
