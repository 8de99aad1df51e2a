/* log: messages of the daemon and the tool, to stderr or syslog. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

static const char *log_ident = "ludus";
static int log_syslog;
static enum log_level log_max = LOG_LEVEL_INFO;
static int log_journal;		/* stderr is systemd's journal stream */

/* Is stderr the journal's stream?  systemd says so in $JOURNAL_STREAM
 * ("DEVICE:INODE" of the stream it connected; see systemd.exec(5)); a
 * program it started may have redirected stderr since, hence the check. */
static int
log_to_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat sb;

	if (js == NULL || sscanf(js, "%llu:%llu", &dev, &ino) != 2 ||
	    fstat(2, &sb) == -1)
		return 0;
	return (unsigned long long)sb.st_dev == dev &&
	    (unsigned long long)sb.st_ino == ino;
}

void
log_init(const char *ident, int to_syslog, int facility, enum log_level max)
{
	log_ident = ident;
	log_max = max;
	log_journal = log_to_journal();
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
	/* One line whole, whichever thread logs (smtp.c's lanes). */
	flockfile(stderr);
	if (log_journal)
		/* The journal keeps the level from the "<N>" prefix
		 * (sd-daemon(3)) and stamps the time itself. */
		fprintf(stderr, "<%d>%s: ", prio[level], name[level]);
	else {
		t = time(NULL);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ",
		    gmtime_r(&t, &tm));
		fprintf(stderr, "%s %s: %s: ", when, log_ident, name[level]);
	}
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
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

int
log_enabled(enum log_level level)
{
	return level <= log_max;
}
