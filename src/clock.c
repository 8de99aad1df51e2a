#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "util.h"

int64_t
clock_now(void)
{
#ifdef LUDUS_TEST_CLOCK
	const char *fake = getenv("LUDUS_NOW");
	long long v;

	if (fake != NULL && util_parse_int(fake, 0, INT64_MAX, &v) == 0)
		return (int64_t)v;
#endif
	return (int64_t)time(NULL);
}
