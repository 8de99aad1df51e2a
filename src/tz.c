/*
 * tz: TZif files (RFC 8536) read into a value, and the POSIX TZ rule of
 * their footer for times after the last transition they list.
 *
 * Why not setenv("TZ") and localtime_r(): TZ is one variable for the
 * whole process, tzset() reads it at unpredictable moments (localtime()
 * calls it, and so may the logging of any library), and a daemon that
 * writes to players in many zones would have to change and restore it
 * around every mail, with every other time conversion in between
 * silently done in a player's zone.  A zone read once into its own value
 * has none of that, costs one file read per mail that shows a time, and
 * is tested against the C library's own reading of the same file.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tz.h"
#include "util.h"

#define TZ_MAXFILE	(512 * 1024)
#define TZ_MAXTIMES	4096
#define TZ_MAXTYPES	256

struct tz_type {
	long	 utoff;			/* seconds east of UTC */
	int	 isdst;
	char	 abbr[TZ_ABBRLEN];
};

/* One end of a POSIX rule: a day of the year and a time of that day. */
struct tz_rule {
	/* 'J': day 1-365, Feb 29 never counted; 'D': day 0-365; 'M':
	 * Mm.w.d, day d of week w of month m. */
	int	 kind;
	int	 m, w, d;		/* Mm.w.d, or the day number in d */
	long	 time;			/* seconds after local midnight */
};

struct tz {
	int	 ntimes, ntypes;
	int64_t	*times;			/* owned: transitions, ascending */
	uint8_t	*idx;			/* owned: the type from each one */
	struct tz_type *types;		/* owned */
	/* The footer: how time is kept after the last transition. */
	int	 footer, has_dst;
	struct tz_type std, dst;
	struct tz_rule start, end;
};

const char *
tz_dir(void)
{
	const char *d = getenv("TZDIR");

	return d != NULL && *d != '\0' ? d : "/usr/share/zoneinfo";
}

void
tz_free(struct tz *z)
{
	if (z == NULL)
		return;
	free(z->times);
	free(z->idx);
	free(z->types);
	free(z);
}

static int64_t
be32(const unsigned char *p)
{
	uint32_t v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];

	return (int32_t)v;
}

static int64_t
be64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return (int64_t)v;
}

/* Days since 1970-01-01 of a civil date (the proleptic Gregorian
 * calendar; H. Hinnant's algorithm). */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int64_t
year_of_days(int64_t z)
{
	int64_t era, doe, yoe, y, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	return y + (mp >= 10);
}

static int
leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
month_days(int64_t y, int m)
{
	static const int n[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
		31 };

	return n[m - 1] + (m == 2 && leap(y));
}

static int64_t
floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* POSIX TZ strings: "MSK-3", "CET-1CEST,M3.5.0,M10.5.0/3",
 * "<+0330>-3:30". */

static const char *
posix_name(const char *p, char *out, size_t len)
{
	size_t n = 0;

	if (*p == '<') {
		for (p++; *p != '\0' && *p != '>'; p++)
			if (n + 1 < len)
				out[n++] = *p;
		if (*p != '>')
			return NULL;
		p++;
	} else
		for (; (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z');
		    p++)
			if (n + 1 < len)
				out[n++] = *p;
	out[n] = '\0';
	return n >= 3 ? p : NULL;
}

/* [+-]hh[:mm[:ss]], hours up to 167 (RFC 8536's extension). */
static const char *
posix_time(const char *p, long *secs)
{
	long sign = 1, h = 0, m = 0, s = 0;
	int digits = 0;

	if (*p == '+' || *p == '-')
		sign = *p++ == '-' ? -1 : 1;
	for (; *p >= '0' && *p <= '9' && digits < 3; p++, digits++)
		h = h * 10 + (*p - '0');
	if (digits == 0 || h > 167)
		return NULL;
	if (*p == ':') {
		if (p[1] < '0' || p[1] > '5' || p[2] < '0' || p[2] > '9')
			return NULL;
		m = (p[1] - '0') * 10 + (p[2] - '0');
		p += 3;
		if (*p == ':') {
			if (p[1] < '0' || p[1] > '5' || p[2] < '0' ||
			    p[2] > '9')
				return NULL;
			s = (p[1] - '0') * 10 + (p[2] - '0');
			p += 3;
		}
	}
	*secs = sign * (h * 3600 + m * 60 + s);
	return p;
}

static const char *
posix_number(const char *p, int min, int max, int *out)
{
	int v = 0, digits = 0;

	for (; *p >= '0' && *p <= '9' && digits < 4; p++, digits++)
		v = v * 10 + (*p - '0');
	if (digits == 0 || v < min || v > max)
		return NULL;
	*out = v;
	return p;
}

static const char *
posix_rule(const char *p, struct tz_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->time = 2 * 3600;
	if (*p == 'J') {
		r->kind = 'J';
		p = posix_number(p + 1, 1, 365, &r->d);
	} else if (*p == 'M') {
		r->kind = 'M';
		if ((p = posix_number(p + 1, 1, 12, &r->m)) == NULL ||
		    *p != '.' ||
		    (p = posix_number(p + 1, 1, 5, &r->w)) == NULL ||
		    *p != '.')
			return NULL;
		p = posix_number(p + 1, 0, 6, &r->d);
	} else {
		r->kind = 'D';
		p = posix_number(p, 0, 365, &r->d);
	}
	if (p != NULL && *p == '/')
		p = posix_time(p + 1, &r->time);
	return p;
}

static int
posix_parse(struct tz *z, const char *s)
{
	const char *p = s;
	long off;

	if ((p = posix_name(p, z->std.abbr, sizeof(z->std.abbr))) == NULL ||
	    (p = posix_time(p, &off)) == NULL)
		return -1;
	z->std.utoff = -off;	/* POSIX counts west of UTC */
	if (*p == '\0') {
		z->footer = 1;
		return 0;
	}
	if ((p = posix_name(p, z->dst.abbr, sizeof(z->dst.abbr))) == NULL)
		return -1;
	z->dst.isdst = 1;
	z->dst.utoff = z->std.utoff + 3600;
	if (*p != '\0' && *p != ',') {
		if ((p = posix_time(p, &off)) == NULL)
			return -1;
		z->dst.utoff = -off;
	}
	if (*p == '\0') {
		/* No rule: POSIX leaves it to the implementation; the
		 * C libraries take the United States' rules. */
		p = ",M3.2.0,M11.1.0";
	}
	if (*p != ',' || (p = posix_rule(p + 1, &z->start)) == NULL ||
	    *p != ',' || (p = posix_rule(p + 1, &z->end)) == NULL ||
	    *p != '\0')
		return -1;
	z->has_dst = 1;
	z->footer = 1;
	return 0;
}

/* The day (since the epoch) a rule names in year y. */
static int64_t
rule_day(const struct tz_rule *r, int64_t y)
{
	int64_t first = days_from_civil(y, 1, 1);
	int dow, dd;

	switch (r->kind) {
	case 'J':
		return first + r->d - 1 + (leap(y) && r->d >= 60);
	case 'D':
		return first + r->d;
	default:
		first = days_from_civil(y, r->m, 1);
		dow = (int)(((first % 7) + 7 + 4) % 7);	/* 1970-01-01: Thu */
		dd = (r->d - dow + 7) % 7 + 7 * (r->w - 1);
		while (dd >= month_days(y, r->m))
			dd -= 7;
		return first + dd;
	}
}

static const struct tz_type *
footer_type(const struct tz *z, int64_t t)
{
	int64_t y, start, end;

	if (!z->has_dst)
		return &z->std;
	y = year_of_days(floor_div(t + z->std.utoff, 86400));
	start = rule_day(&z->start, y) * 86400 + z->start.time -
	    z->std.utoff;
	end = rule_day(&z->end, y) * 86400 + z->end.time - z->dst.utoff;
	if (start < end)
		return t >= start && t < end ? &z->dst : &z->std;
	return t >= end && t < start ? &z->std : &z->dst;
}

/* One data block of version 1 (4-byte times) or 2+ (8-byte times) at
 * p[0..len); fills z and returns the bytes it took, or -1. */
static long
read_block(struct tz *z, const unsigned char *p, size_t len, int tsize)
{
	int64_t isut, isstd, nleap, ntimes, ntypes, nchars;
	size_t need, o;
	const unsigned char *chars;
	int i;

	if (len < 44 || memcmp(p, "TZif", 4) != 0)
		return -1;
	isut = be32(p + 20);
	isstd = be32(p + 24);
	nleap = be32(p + 28);
	ntimes = be32(p + 32);
	ntypes = be32(p + 36);
	nchars = be32(p + 40);
	if (isut < 0 || isstd < 0 || nleap < 0 || ntimes < 0 ||
	    ntimes > TZ_MAXTIMES || ntypes < 1 || ntypes > TZ_MAXTYPES ||
	    nchars < 1 || nchars > 1024 || nleap > 1000 || isut > ntypes ||
	    isstd > ntypes)
		return -1;
	need = 44 + (size_t)ntimes * (size_t)(tsize + 1) +
	    (size_t)ntypes * 6 + (size_t)nchars +
	    (size_t)nleap * (size_t)(tsize + 4) + (size_t)isstd +
	    (size_t)isut;
	if (need > len)
		return -1;
	free(z->times);
	free(z->idx);
	free(z->types);
	z->ntimes = (int)ntimes;
	z->ntypes = (int)ntypes;
	z->times = xcalloc((size_t)ntimes + 1, sizeof(*z->times));
	z->idx = xcalloc((size_t)ntimes + 1, 1);
	z->types = xcalloc((size_t)ntypes, sizeof(*z->types));
	o = 44;
	for (i = 0; i < ntimes; i++, o += (size_t)tsize) {
		z->times[i] = tsize == 8 ? be64(p + o) : be32(p + o);
		if (i > 0 && z->times[i] <= z->times[i - 1])
			return -1;
	}
	for (i = 0; i < ntimes; i++, o++) {
		z->idx[i] = p[o];
		if (z->idx[i] >= ntypes)
			return -1;
	}
	chars = p + o + (size_t)ntypes * 6;
	for (i = 0; i < ntypes; i++, o += 6) {
		int ai = p[o + 5];

		z->types[i].utoff = (long)be32(p + o);
		z->types[i].isdst = p[o + 4] != 0;
		if (ai >= nchars || z->types[i].utoff < -26 * 3600 ||
		    z->types[i].utoff > 26 * 3600)
			return -1;
		snprintf(z->types[i].abbr, sizeof(z->types[i].abbr), "%.*s",
		    (int)strnlen((const char *)chars + ai, (size_t)(nchars -
		    ai)), (const char *)chars + ai);
	}
	return (long)need;
}

int
tz_load(const char *name, struct tz **out, char *err, size_t errlen)
{
	struct tz *z;
	unsigned char *data = NULL;
	size_t len = 0, n;
	long used;
	char path[1024];
	const char *c;
	FILE *f;

	*out = NULL;
	if (*name == '\0' || strlen(name) >= TZ_NAMELEN || *name == '/' ||
	    *name == '-' || strncmp(name, "right/", 6) == 0) {
		util_err(err, errlen, "`%s` is not a time zone name", name);
		return -1;
	}
	for (c = name; *c != '\0'; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
		    (*c >= '0' && *c <= '9') || *c == '/' || *c == '_' ||
		    *c == '-' || *c == '+') || (*c == '/' && c[1] == '/')) {
			util_err(err, errlen, "`%s` is not a time zone name",
			    name);
			return -1;
		}
	snprintf(path, sizeof(path), "%s/%s", tz_dir(), name);
	if ((f = fopen(path, "rb")) == NULL) {
		util_err(err, errlen, "there is no time zone `%s` (names are "
		    "like Europe/Moscow or America/New_York)", name);
		return -1;
	}
	data = xmalloc(TZ_MAXFILE);
	while (len < TZ_MAXFILE && (n = fread(data + len, 1, TZ_MAXFILE - len,
	    f)) > 0)
		len += n;
	fclose(f);
	z = xcalloc(1, sizeof(*z));
	if ((used = read_block(z, data, len, 4)) == -1)
		goto bad;
	if (data[4] >= '2') {
		/* Version 2 and later: the 64-bit block and the footer. */
		const unsigned char *p = data + used, *nl;
		long used2;

		if ((used2 = read_block(z, p, len - (size_t)used, 8)) == -1)
			goto bad;
		p += used2;
		if (p >= data + len || *p != '\n' || (nl = memchr(p + 1, '\n',
		    (size_t)(data + len - p - 1))) == NULL)
			goto bad;
		if (nl > p + 1) {
			char tzs[128];

			if ((size_t)(nl - p - 1) >= sizeof(tzs))
				goto bad;
			memcpy(tzs, p + 1, (size_t)(nl - p - 1));
			tzs[nl - p - 1] = '\0';
			if (posix_parse(z, tzs) == -1)
				goto bad;
		}
	}
	free(data);
	*out = z;
	return 0;
bad:
	free(data);
	tz_free(z);
	util_err(err, errlen, "`%s` is not a time zone the system can read",
	    name);
	return -1;
}

long
tz_local(const struct tz *z, int64_t t, struct tm *tm, char *abbr,
    size_t abbrlen)
{
	const struct tz_type *ty;
	time_t lt;
	int lo, hi, mid;

	if (z->footer && (z->ntimes == 0 || t >= z->times[z->ntimes - 1]))
		ty = footer_type(z, t);
	else if (z->ntimes == 0 || t < z->times[0])
		ty = &z->types[0];	/* RFC 8536: before the first */
	else {
		lo = 0;
		hi = z->ntimes - 1;
		while (lo < hi) {	/* the last transition <= t */
			mid = (lo + hi + 1) / 2;
			if (z->times[mid] <= t)
				lo = mid;
			else
				hi = mid - 1;
		}
		ty = &z->types[z->idx[lo]];
	}
	lt = (time_t)(t + ty->utoff);
	gmtime_r(&lt, tm);
	tm->tm_isdst = ty->isdst;
	if (abbr != NULL)
		util_strlcpy(abbr, ty->abbr, abbrlen);
	return ty->utoff;
}

void
tz_format(const struct tz *z, int64_t t, char *out, size_t len)
{
	char abbr[TZ_ABBRLEN], when[32];
	struct tm tm;

	tz_local(z, t, &tm, abbr, sizeof(abbr));
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	snprintf(out, len, "%s %s", when, abbr);
}
