/* libFuzzer harness over the configuration reader.  Besides not crashing
 * or leaking, every file it accepts must print (config_dump) as a file that
 * reads back to the same settings, and every refusal must name the file.
 * Built and run for a short fixed time by tests/fuzz-config.sh. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

#define NAME	"/nonexistent/ludus.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c, d;
	struct buf b1 = { 0 }, b2 = { 0 };
	char err[1024];

	if (config_load_text(NAME, (const char *)data, size, &c, err,
	    sizeof(err)) == -1) {
		if (strncmp(err, NAME, strlen(NAME)) != 0) {
			fprintf(stderr, "error without the file name: %s\n",
			    err);
			abort();
		}
		config_free(&c);
		return 0;
	}
	config_dump(&c, &b1);
	if (config_load_text(NAME, b1.s, b1.len, &d, err, sizeof(err)) == -1) {
		fprintf(stderr, "dump does not read back: %s\n%s", err, b1.s);
		abort();
	}
	config_dump(&d, &b2);
	if (strcmp(b1.s, b2.s) != 0) {
		fprintf(stderr, "dump changes on reading back:\n%s--\n%s",
		    b1.s, b2.s);
		abort();
	}
	buf_free(&b1);
	buf_free(&b2);
	config_free(&c);
	config_free(&d);
	return 0;
}
