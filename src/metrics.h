/*
 * metrics: ludusd's OpenMetrics endpoint (metrics.socket).  A thread of
 * its own accepts on a Unix socket and answers each connection with the
 * figures of `ludus stats` read through a database connection of its
 * own, so a scrape never waits for the mail loop nor holds it up.
 */
#ifndef LUDUS_METRICS_H
#define LUDUS_METRICS_H

#include <stddef.h>

struct metrics;

/* Listen at path (a stale socket there is replaced; any other file is
 * refused) and serve from the database at dbpath.  NULL with err. */
struct metrics *metrics_start(const char *path, const char *dbpath,
	    char *err, size_t errlen);
/* Stop serving, remove the socket, free. */
void	metrics_stop(struct metrics *);

#endif
