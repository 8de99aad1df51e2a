/* backoff: doubling waits with a ceiling. */
#include "config.h"

#include "backoff.h"

void
backoff_init(struct backoff *b, unsigned base, unsigned cap)
{
	b->base = base > 0 ? base : 1;
	b->cap = cap >= b->base ? cap : b->base;
	b->next = b->base;
}

unsigned
backoff_next(struct backoff *b)
{
	unsigned w = b->next;

	b->next = b->next > b->cap / 2 ? b->cap : b->next * 2;
	return w;
}

void
backoff_reset(struct backoff *b)
{
	b->next = b->base;
}
