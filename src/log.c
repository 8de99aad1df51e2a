/* log: messages of the daemon and the tool, to stderr or syslog. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

static const char *log_ident = "ludus";
static int log_syslog;
static enum log_level log_max = LOG_LEVEL_INFO;

void
log_init(const char *ident, int to_syslog, int facility, enum log_level max)
{
	log_ident = ident;
	log_max = max;
	if (log_syslog)
		closelog();
	log_syslog = to_syslog;
	if (to_syslog)
		openlog(ident, LOG_PID | LOG_NDELAY, facility);
}

static void
log_vemit(enum log_level level, const char *fmt, va_list ap)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO,
		LOG_DEBUG };
	static const char *const name[] = { "error", "warning", "info",
		"debug" };
	char when[32];
	struct tm tm;
	time_t t;

	if (level > log_max)
		return;
	if (log_syslog) {
		vsyslog(prio[level], fmt, ap);
		return;
	}
	t = time(NULL);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	fprintf(stderr, "%s %s: %s: ", when, log_ident, name[level]);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define LOG_FN(fn, level)			\
void						\
fn(const char *fmt, ...)			\
{						\
	va_list ap;				\
						\
	va_start(ap, fmt);			\
	log_vemit(level, fmt, ap);		\
	va_end(ap);				\
}

LOG_FN(log_err, LOG_LEVEL_ERROR)
LOG_FN(log_warn, LOG_LEVEL_WARNING)
LOG_FN(log_info, LOG_LEVEL_INFO)
LOG_FN(log_debug, LOG_LEVEL_DEBUG)
