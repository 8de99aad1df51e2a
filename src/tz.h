/*
 * tz: local time in a named zone of the system's time zone database
 * (IANA names, "Europe/Moscow"), read from its TZif files.
 *
 * The zone is read into a value of its own instead of going through the
 * process-wide TZ variable and tzset(): a daemon that mails players in
 * many zones must not change what localtime() means for everyone else in
 * the process, nor depend on the order of setenv and tzset calls.
 */
#ifndef LUDUS_TZ_H
#define LUDUS_TZ_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define TZ_NAMELEN	64	/* longest zone name accepted, with NUL */
#define TZ_ABBRLEN	16	/* longest abbreviation kept, with NUL */

struct tz;	/* opaque */

/* The directory the zones come from: $TZDIR, else /usr/share/zoneinfo. */
const char *tz_dir(void);
/* Read the zone called name (owned by the caller, tz_free).  -1 with a
 * message when the name is not one of the database's zones. */
int	tz_load(const char *name, struct tz **out, char *err, size_t errlen);
void	tz_free(struct tz *);
/* The local time at t: the broken-down time in *tm (tm_isdst set) and
 * the zone's abbreviation then ("MSK", "CEST", "+04"); returns the
 * offset from UTC in seconds, east positive. */
long	tz_local(const struct tz *, int64_t t, struct tm *tm, char *abbr,
	    size_t abbrlen);
/* "2026-12-02 21:00 MSK": t as a reader in the zone writes it. */
void	tz_format(const struct tz *, int64_t t, char *out, size_t len);

#endif
