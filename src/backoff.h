/* backoff: capped exponential waits between attempts to reach a server. */
#ifndef LUDUS_BACKOFF_H
#define LUDUS_BACKOFF_H

struct backoff {
	unsigned	 base;	/* first wait, seconds (at least 1) */
	unsigned	 cap;	/* no wait is longer */
	unsigned	 next;	/* the wait backoff_next returns next */
};

void	 backoff_init(struct backoff *, unsigned base, unsigned cap);
/* The wait before the next attempt: base, 2 base, 4 base, ... up to cap. */
unsigned backoff_next(struct backoff *);
/* After a success: the next failure waits base again. */
void	 backoff_reset(struct backoff *);

#endif
