/* log: messages of the daemon and the tool, to stderr or syslog. */
#ifndef LUDUS_LOG_H
#define LUDUS_LOG_H

#include "util.h"

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARNING, LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG };

/* to_syslog: 0 stderr, 1 syslog with the given facility (LOG_MAIL, ...). */
void	log_init(const char *ident, int to_syslog, int facility,
	    enum log_level);
void	log_err(const char *, ...) PRINTFLIKE(1, 2);
void	log_warn(const char *, ...) PRINTFLIKE(1, 2);
void	log_info(const char *, ...) PRINTFLIKE(1, 2);
void	log_debug(const char *, ...) PRINTFLIKE(1, 2);
/* Would a message at this level be written?  (For traces that cost
 * something to prepare: the mail conversations at debug.) */
int	log_enabled(enum log_level);

#endif
