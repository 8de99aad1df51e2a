/* libFuzzer harness over the whole read path of an incoming message:
 * mail_parse, the guards, bounce recipients, the `ludus parse` account, and
 * the body and HTML readers on the raw bytes.  Built and run for a short
 * fixed time by tests/fuzz-short.sh; run it longer by hand. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const lists[] = { "club.lists.example.org" };
	static const char *const banned[] = { "x@example.org", "@bad.example" };
	struct mail_limits l = { 0 };
	struct mail_guard_cfg g = { 0 };
	struct strv sv = { 0 };
	struct mail_msg m;
	struct buf b = { 0 };
	char err[256], *t;
	int lt, ct;

	l.max_lines = 200;
	l.max_commands = 20;
	l.referee = "referee@ludus.example";
	g.x_loop = "referee@ludus.example";
	g.referee = "referee@ludus.example";
	g.club_lists = lists;
	g.nclub_lists = 1;
	g.banned = banned;
	g.nbanned = 2;

	mail_parse((const char *)data, size, &l, &m, err, sizeof(err));
	mail_describe(&m, mail_guard(&m, &g), &b);
	mail_bounce_recipients(&m, &sv);
	strv_free(&sv);
	buf_free(&b);
	mail_msg_free(&m);

	mail_body_commands((const char *)data, size, 0, 0, &sv, &lt, &ct);
	strv_free(&sv);
	free(mailtext_html((const char *)data, size));
	t = xstrndup((const char *)data, size);
	free(mail_subject_command(t, "ludus"));
	free(t);
	return 0;
}
