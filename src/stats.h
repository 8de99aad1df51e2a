/*
 * stats: the figures an operator watches (`ludus stats`, ludusd's
 * OpenMetrics endpoint), written from store_stats() as text.
 */
#ifndef LUDUS_STATS_H
#define LUDUS_STATS_H

#include <stdint.h>

#include "store.h"
#include "util.h"

/* "name: value" lines for a person (now for the ages), appended to b. */
void	stats_text(const struct store_stats *, int64_t now, struct buf *b);
/* The same figures in the OpenMetrics text format, "# EOF" last. */
void	stats_openmetrics(const struct store_stats *, int64_t now,
	    struct buf *b);

#endif
