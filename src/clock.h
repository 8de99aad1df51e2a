/* clock: the one source of the current time.  Test builds (configure
 * --enable-test-clock) read it from $LUDUS_NOW when set, so reminders and
 * timeouts are tested without sleeping. */
#ifndef LUDUS_CLOCK_H
#define LUDUS_CLOCK_H

#include <stdint.h>

int64_t	clock_now(void);

#endif
