/* Third-party mail corpora, read in place from ../shared/corpus beside the
 * source tree (or $LUDUS_CORPUS_DIR): reply texts from
 * github/email_reply_parser, bounces and auto-replies from sisimai, MIME
 * edge cases from CPython's email tests.  Exits 77 (skip) when the folder is
 * absent, as in a user's own clone. */
#include "config.h"

#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mail.h"

static char corpus[1024];

/* A small JSON reader: enough for the expectations files (objects, arrays,
 * strings with escapes, numbers, literals), strict about syntax. */
enum tj_type { TJ_NULL, TJ_BOOL, TJ_NUM, TJ_STR, TJ_ARR, TJ_OBJ };

struct tj {
	enum tj_type	 type;
	char		*str;		/* TJ_STR; also the key inside objects */
	char		*key;
	struct tj	*kids;		/* TJ_ARR, TJ_OBJ */
	int		 nkids;
	double		 num;
	int		 b;
};

struct tj_in {
	const char	*p, *end;
	int		 depth;
};

static void
tj_free(struct tj *v)
{
	int i;

	for (i = 0; i < v->nkids; i++)
		tj_free(&v->kids[i]);
	free(v->kids);
	free(v->str);
	free(v->key);
}

static void
tj_ws(struct tj_in *in)
{
	while (in->p < in->end && (*in->p == ' ' || *in->p == '\t' ||
	    *in->p == '\n' || *in->p == '\r'))
		in->p++;
}

static void
tj_utf8(struct buf *b, unsigned long cp)
{
	if (cp < 0x80)
		buf_addc(b, (char)cp);
	else if (cp < 0x800) {
		buf_addc(b, (char)(0xc0 | (cp >> 6)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addc(b, (char)(0xe0 | (cp >> 12)));
		buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		buf_addc(b, (char)(0xf0 | (cp >> 18)));
		buf_addc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	}
}

static int
tj_hex4(struct tj_in *in, unsigned long *cp)
{
	char h[5];

	if (in->end - in->p < 4)
		return -1;
	memcpy(h, in->p, 4);
	h[4] = '\0';
	if (strspn(h, "0123456789abcdefABCDEF") != 4)
		return -1;
	*cp = strtoul(h, NULL, 16);
	in->p += 4;
	return 0;
}

static int
tj_string(struct tj_in *in, char **out)
{
	struct buf b = { 0 };
	unsigned long cp, lo;

	if (in->p >= in->end || *in->p != '"')
		return -1;
	in->p++;
	while (in->p < in->end && *in->p != '"') {
		if ((unsigned char)*in->p < 0x20)
			goto bad;
		if (*in->p != '\\') {
			buf_addc(&b, *in->p++);
			continue;
		}
		if (++in->p >= in->end)
			goto bad;
		switch (*in->p++) {
		case '"': buf_addc(&b, '"'); break;
		case '\\': buf_addc(&b, '\\'); break;
		case '/': buf_addc(&b, '/'); break;
		case 'b': buf_addc(&b, '\b'); break;
		case 'f': buf_addc(&b, '\f'); break;
		case 'n': buf_addc(&b, '\n'); break;
		case 'r': buf_addc(&b, '\r'); break;
		case 't': buf_addc(&b, '\t'); break;
		case 'u':
			if (tj_hex4(in, &cp) == -1)
				goto bad;
			if (cp >= 0xd800 && cp < 0xdc00 && in->end - in->p >= 6 &&
			    in->p[0] == '\\' && in->p[1] == 'u') {
				in->p += 2;
				if (tj_hex4(in, &lo) == -1)
					goto bad;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
			}
			tj_utf8(&b, cp);
			break;
		default:
			goto bad;
		}
	}
	if (in->p >= in->end)
		goto bad;
	in->p++;
	buf_adds(&b, "");
	*out = buf_steal(&b);
	return 0;
bad:
	buf_free(&b);
	return -1;
}

static int
tj_value(struct tj_in *in, struct tj *v)
{
	memset(v, 0, sizeof(*v));
	tj_ws(in);
	if (in->p >= in->end || ++in->depth > 64)
		return -1;
	if (*in->p == '{' || *in->p == '[') {
		int obj = *in->p == '{';
		char close = obj ? '}' : ']';

		v->type = obj ? TJ_OBJ : TJ_ARR;
		in->p++;
		tj_ws(in);
		if (in->p < in->end && *in->p == close) {
			in->p++;
			in->depth--;
			return 0;
		}
		for (;;) {
			struct tj kid;
			char *key = NULL;

			tj_ws(in);
			if (obj) {
				if (tj_string(in, &key) == -1)
					return -1;
				tj_ws(in);
				if (in->p >= in->end || *in->p++ != ':') {
					free(key);
					return -1;
				}
			}
			if (tj_value(in, &kid) == -1) {
				free(key);
				tj_free(&kid);
				return -1;
			}
			kid.key = key;
			v->kids = xreallocarray(v->kids, (size_t)v->nkids + 1,
			    sizeof(*v->kids));
			v->kids[v->nkids++] = kid;
			tj_ws(in);
			if (in->p < in->end && *in->p == ',') {
				in->p++;
				continue;
			}
			if (in->p < in->end && *in->p == close) {
				in->p++;
				break;
			}
			return -1;
		}
	} else if (*in->p == '"') {
		v->type = TJ_STR;
		if (tj_string(in, &v->str) == -1)
			return -1;
	} else if (in->end - in->p >= 4 && memcmp(in->p, "true", 4) == 0) {
		v->type = TJ_BOOL;
		v->b = 1;
		in->p += 4;
	} else if (in->end - in->p >= 5 && memcmp(in->p, "false", 5) == 0) {
		v->type = TJ_BOOL;
		in->p += 5;
	} else if (in->end - in->p >= 4 && memcmp(in->p, "null", 4) == 0) {
		in->p += 4;
	} else if (*in->p == '-' || isdigit((unsigned char)*in->p)) {
		char *e;

		v->type = TJ_NUM;
		v->num = strtod(in->p, &e);
		if (e == in->p || e > in->end)
			return -1;
		in->p = e;
	} else
		return -1;
	in->depth--;
	return 0;
}

static const struct tj *
tj_get(const struct tj *o, const char *key)
{
	int i;

	if (o == NULL || o->type != TJ_OBJ)
		return NULL;
	for (i = 0; i < o->nkids; i++)
		if (strcmp(o->kids[i].key, key) == 0)
			return &o->kids[i];
	return NULL;
}

static void
load_json(const char *rel, struct tj *root)
{
	char path[1200];
	struct tj_in in;
	char *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", corpus, rel);
	text = util_read_file(path, SIZE_MAX, &len);
	ck_assert_msg(text != NULL, "cannot read %s", path);
	in.p = text;
	in.end = text + len;
	in.depth = 0;
	ck_assert_msg(tj_value(&in, root) == 0, "%s: not valid JSON near byte "
	    "%ld", path, (long)(in.p - text));
	tj_ws(&in);
	ck_assert_msg(in.p == in.end, "%s: trailing bytes", path);
	free(text);
}

/* Lines trimmed, blank ones dropped, joined with '\n': the comparison
 * between the upstream visible text (which keeps paragraph breaks and
 * indentation) and our command lines (trimmed, no blanks). */
static char *
normalise(const char *s)
{
	struct buf b = { 0 };
	const char *p = s;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n), *t = util_trim(line);

		if (*t) {
			if (b.len)
				buf_addc(&b, '\n');
			buf_adds(&b, t);
		}
		free(line);
		p += n;
		if (*p)
			p++;
	}
	buf_adds(&b, "");
	return buf_steal(&b);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The command lines of a bare body, as the referee would read them. */
static char *
body_commands(const char *body, size_t len)
{
	struct strv sv = { 0 };
	struct buf b = { 0 };
	int lt, ct, i;

	mail_body_commands(body, len, 0, 0, &sv, &lt, &ct);
	for (i = 0; i < sv.n; i++)
		buf_printf(&b, "%s%s", i ? "\n" : "", sv.v[i]);
	buf_adds(&b, "");
	strv_free(&sv);
	return buf_steal(&b);
}

START_TEST(mail_reply_parser_visible_texts)
{
	struct tj root;
	const struct tj *fx;
	int i, total = 0, match = 0;

	load_json("github-email_reply_parser/expectations.json", &root);
	fx = tj_get(&root, "fixtures");
	ck_assert_ptr_nonnull(fx);
	for (i = 0; i < fx->nkids; i++) {
		const struct tj *f = &fx->kids[i];
		const struct tj *want = tj_get(f, "expected_visible_text");
		char path[1200], *body, *got, *w;
		size_t len;

		/* email_1_1 has only a derived text (marked as such); it is
		 * checked as well. */
		if (want == NULL)
			want = tj_get(f, "derived_visible_text");
		if (want == NULL || want->type != TJ_STR)
			continue;
		snprintf(path, sizeof(path), "%s/github-email_reply_parser/%s",
		    corpus, f->key);
		body = util_read_file(path, SIZE_MAX, &len);
		ck_assert_msg(body != NULL, "cannot read %s", path);
		got = body_commands(body, len);
		w = normalise(want->str);
		total++;
		if (strcmp(got, w) == 0)
			match++;
		else
			fprintf(stderr, "--- %s: expected\n%s\n+++ got\n%s\n",
			    f->key, w, got);
		free(body);
		free(got);
		free(w);
	}
	tj_free(&root);
	fprintf(stderr, "email_reply_parser: %d of %d visible texts match\n",
	    match, total);
	ck_assert_int_ge(total, 9);
	ck_assert_msg(match == total, "%d of %d visible texts differ",
	    total - match, total);
}
END_TEST

/* Fixtures whose upstream tests assert structure rather than the visible
 * text: what their fragment assertions say the sender wrote must be read,
 * and what they put in a quoted or signature fragment below the reply must
 * not (transcribed from the fragment_regex and fragment_flags entries of
 * expectations.json; "want" lines are exact command lines). */
static const struct {
	const char	*file;
	const char	*want[3];
	const char	*not[3];
} reply_facts[] = {
	{ "correct_sig.txt", { "this is an email with a correct -- "
	    "signature." }, { "rick" } },
	{ "email_1_2.txt", { "Hi,", "You can list the keys for the bucket "
	    "and call delete for each. Or if you" }, { "Hi folks",
	    "riak-users mailing list" } },
	{ "email_1_3.txt", { "Oh thanks.", "Having the function would be "
	    "great." }, { "-Abhishek Kona", "Hi," } },
	{ "email_1_4.txt", { "Awesome! I haven't had another problem with "
	    "it." }, { "Loader" } },
	{ "email_1_6.txt", { "I get proper rendering as well." },
	    { "Was this" } },
	{ "email_1_7.txt", { ":+1:" }, { "Steps 0-2" } },
	{ "email_1_8.txt", { "I will reply under this one", "and under "
	    "this." }, { "okay?", "inline", "Hey there, this is my "
	    "signature" } },
	{ "email_one_is_not_on.txt", { "One outstanding question I had:" },
	    { "On Oct 1, 2012" } },
	{ "greedy_on.txt", { "On your remote host you can run:" },
	    { "On 9 Jan 2014", "I am having an odd issue" } },
	{ "email_sig_delimiter_in_middle_of_line.txt", { "And here is a fix "
	    "-- this is not a signature.", "kthxbai" }, { NULL } },
	{ "email_1_5.txt", { "One: Here's what I've got.", "for a while." },
	    { NULL } },
};

static int
has_line(const struct strv *sv, const char *line)
{
	int i;

	for (i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], line) == 0)
			return 1;
	return 0;
}

static int
has_text(const struct strv *sv, const char *text)
{
	int i;

	for (i = 0; i < sv->n; i++)
		if (strstr(sv->v[i], text) != NULL)
			return 1;
	return 0;
}

START_TEST(mail_reply_parser_structure)
{
	size_t i, k;

	for (i = 0; i < nitems(reply_facts); i++) {
		struct strv sv = { 0 };
		char path[1200], *body;
		size_t len;
		int lt, ct;

		snprintf(path, sizeof(path), "%s/github-email_reply_parser/"
		    "emails/%s", corpus, reply_facts[i].file);
		body = util_read_file(path, SIZE_MAX, &len);
		ck_assert_msg(body != NULL, "cannot read %s", path);
		mail_body_commands(body, len, 0, 0, &sv, &lt, &ct);
		for (k = 0; k < 3 && reply_facts[i].want[k]; k++)
			ck_assert_msg(has_line(&sv, reply_facts[i].want[k]),
			    "%s: no line '%s'", reply_facts[i].file,
			    reply_facts[i].want[k]);
		for (k = 0; k < 3 && reply_facts[i].not[k]; k++)
			ck_assert_msg(!has_text(&sv, reply_facts[i].not[k]),
			    "%s: '%s' was read", reply_facts[i].file,
			    reply_facts[i].not[k]);
		strv_free(&sv);
		free(body);
	}
}
END_TEST

/* Every fixture is read, each in under a second (two are upstream speed
 * traps: a 767 kB quote and a pathological body). */
START_TEST(mail_reply_parser_all_fast)
{
	char dir[1100], path[1400];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/github-email_reply_parser/emails",
	    corpus);
	ck_assert_ptr_nonnull(d = opendir(dir));
	while ((de = readdir(d)) != NULL) {
		char *body, *got;
		size_t len;
		double t0;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		body = util_read_file(path, SIZE_MAX, &len);
		ck_assert_ptr_nonnull(body);
		t0 = now_s();
		got = body_commands(body, len);
		ck_assert_msg(now_s() - t0 < 1.0, "%s took %.2f s", de->d_name,
		    now_s() - t0);
		free(got);
		free(body);
		n++;
	}
	closedir(d);
	ck_assert_int_eq(n, 22);
}
END_TEST

static struct mail_guard_cfg
guard_cfg(void)
{
	struct mail_guard_cfg g = { 0 };

	g.x_loop = "referee@ludus.example";
	g.referee = "referee@ludus.example";
	return g;
}

START_TEST(mail_sisimai_never_answered)
{
	struct mail_limits l = { 0 };
	struct mail_guard_cfg g = guard_cfg();
	struct tj root;
	const struct tj *files;
	int i, dropped = 0, kept = 0, nnot = 0, wrong = 0;

	load_json("sisimai-set-of-emails/expectations.json", &root);
	files = tj_get(&root, "files");
	ck_assert_ptr_nonnull(files);
	for (i = 0; i < files->nkids; i++) {
		const struct tj *kind = tj_get(&files->kids[i], "kind");
		char path[1200], err[256], *raw;
		struct mail_msg m;
		const char *why;
		size_t len;
		int notb;

		ck_assert_msg(kind != NULL && kind->type == TJ_STR, "%s: kind",
		    files->kids[i].key);
		notb = strcmp(kind->str, "not-a-bounce") == 0;
		snprintf(path, sizeof(path), "%s/sisimai-set-of-emails/%s",
		    corpus, files->kids[i].key);
		raw = util_read_file(path, SIZE_MAX, &len);
		ck_assert_msg(raw != NULL, "cannot read %s", path);
		mail_parse(raw, len, &l, &m, err, sizeof(err));
		why = mail_guard(&m, &g);
		if (notb) {
			nnot++;
			if (why != NULL) {
				fprintf(stderr, "%s (not a bounce) dropped: "
				    "%s\n", files->kids[i].key, why);
				wrong++;
			} else
				kept++;
		} else if (why == NULL) {
			fprintf(stderr, "%s (%s) would be answered\n",
			    files->kids[i].key, kind->str);
			wrong++;
		} else
			dropped++;
		mail_msg_free(&m);
		free(raw);
	}
	tj_free(&root);
	fprintf(stderr, "sisimai: %d bounces/auto-replies/reports dropped, %d "
	    "ordinary mails answered, %d wrong\n", dropped, kept, wrong);
	ck_assert_int_eq(nnot, 2);
	ck_assert_int_eq(dropped + kept, 67);
	ck_assert_int_eq(wrong, 0);
}
END_TEST

/* The failed recipients of every sisimai bounce, as `ludus parse` prints
 * them ("failed:" lines).  sisimai's records give one entry per reported
 * recipient but not the address; the addresses here were read off each
 * message, and their number is checked against the records.  "delayed"
 * counts the records of recipients whose DSN block says Action: delayed:
 * sisimai reports them, the referee does not count them as failed. */
static const struct {
	const char	*file;		/* under maildir/ */
	int		 delayed;
	const char	*rcpt[3];
} bounce_rcpts[] = {
	{ "bsd/lhost-mailru-01.eml", 0, { "kijitora@example.jp" } },
	{ "bsd/lhost-mailru-03.eml", 0,
	    { "mikeneko@example.jp", "sabineko@example.jp" } },
	{ "bsd/lhost-mailru-05.eml", 0, { "neko@libsisimai.org" } },
	{ "bsd/lhost-mailru-07.eml", 0,
	    { "otsu-sakaba-hunter-neko-nyaaaaaaan@ezweb.ne.jp" } },
	{ "bsd/lhost-mailru-10.eml", 0, { "neko@sijo.example.jp" } },
	{ "bsd/lhost-yandex-01.eml", 0, { "kijitora@example.jp" } },
	{ "bsd/lhost-yandex-02.eml", 0,
	    { "mikeneko@example.jp", "sabineko@example.jp" } },
	{ "bsd/lhost-yandex-03.eml", 0, { "kijitora@6jo.example.jp" } },
	{ "bsd/rhost-iua-01.eml", 0, { "neko@email.example.ua" } },
	{ "bsd/lhost-sendmail-41.eml", 0,
	    { "this-local-part-does-not-exist@yahoo.com" } },
	{ "bsd/rhost-yahooinc-03.eml", 0,
	    { "this-local-part-does-not-exist@yahoo.com" } },
	{ "bsd/rfc3464-01.eml", 0, { "userunknown@bouncehammer.jp" } },
	{ "bsd/rfc3464-07.eml", 1, { NULL } },
	{ "bsd/rfc3464-35.eml", 1,
	    { "kijitora@nyaan.example.com", "mikeneko@neko.example.or.jp" } },
	{ "bsd/lhost-postfix-01.eml", 0, { "kijitora@example.org" } },
	{ "bsd/lhost-postfix-02.eml", 0,
	    { "filtered@example.co.jp", "userunknown@example.co.jp" } },
	{ "bsd/lhost-postfix-03.eml", 0, { "kijitora@example.net" } },
	{ "bsd/lhost-postfix-17.eml", 0, { "kijitora@example.org" } },
	{ "bsd/lhost-postfix-40.eml", 0, { "kijitora@example.com" } },
	{ "bsd/lhost-exim-01.eml", 0, { "kijitora@example.ed.jp" } },
	{ "bsd/lhost-exim-02.eml", 0,
	    { "kijitora@example.jp", "sabatora@example.jp" } },
	{ "bsd/lhost-exim-03.eml", 0, { "kijitora@example.jp" } },
	{ "bsd/lhost-exim-30.eml", 0, { "kijitora@exmaple.ch" } },
	{ "bsd/lhost-sendmail-01.eml", 0, { "userunknown@bouncehammer.jp" } },
	{ "bsd/lhost-sendmail-02.eml", 0,
	    { "userunknown@example.org", "filtered@example.com" } },
	{ "bsd/lhost-sendmail-03.eml", 0, { "bounce0@example.org" } },
	{ "bsd/lhost-qmail-01.eml", 0, { "kijitora@example.ne.jp" } },
	{ "bsd/lhost-qmail-17.eml", 0,
	    { "userunknown@libsisimai.net", "mailboxfull@libsisimai.net" } },
	{ "bsd/lhost-qmail-25.eml", 0,
	    { "mailboxfull@libsisimai.net", "userunknown@libsisimai.net" } },
	{ "bsd/lhost-gmail-01.eml", 0, { "userunknown@example.jp" } },
	{ "bsd/lhost-gmail-04.eml", 0, { "kijitora@example.com" } },
	{ "bsd/lhost-gmail-03.eml", 0, { "kijitora@example.co.jp" } },
	{ "bsd/lhost-outlook-01.eml", 0, { "kijitora@example.jp" } },
	{ "bsd/lhost-outlook-02.eml", 0, { "kijitora@example.jp" } },
	{ "bsd/lhost-exchange2003-01.eml", 0, { "kijitora@example.jp" } },
	{ "bsd/lhost-exchange2007-01.eml", 0, { "mikeneko@example.co.jp" } },
	{ "bsd/lhost-exchange2007-02.eml", 0, { "kijitora@example.edu" } },
	{ "bsd/lhost-yahoo-01.eml", 0, { "kijitora@example.org" } },
	{ "bsd/lhost-yahoo-02.eml", 0, { "kijitora@example.ed.jp" } },
	{ "bsd/lhost-amazonses-01.eml", 0, { "shironeko@example.co.jp" } },
	{ "bsd/lhost-amazonses-02.eml", 0,
	    { "this-local-part-does-not-exist-on-the-server@docomo.ne.jp" } },
	{ "bsd/lhost-googlegroups-01.eml", 0,
	    { "libsisimai@googlegroups.com" } },
	{ "bsd/lhost-opensmtpd-01.eml", 0,
	    { "apdugoaidugoaidugoaeiudggadi@gmail.com" } },
	{ "bsd/lhost-opensmtpd-02.eml", 0,
	    { "mailboxfull@example.jp", "userunknown@example.jp" } },
	{ "bsd/lhost-courier-01.eml", 0, { "kijitora@example.co.jp" } },
	{ "bsd/lhost-domino-01.eml", 0, { "kijitora@example.jp" } },
	{ "bsd/lhost-notes-01.eml", 0, { "kijitora@u1.example.co.jp" } },
	{ "bsd/rhost-google-01.eml", 0, { "shironeko@example.ne.jp" } },
	{ "bsd/rhost-microsoft-01.eml", 0, { "kijitora@example.com" } },
	{ "bsd/rhost-franceptt-01.eml", 0,
	    { "pseudo-local-part-kijitora-nyaaan@orange.fr" } },
	{ "bsd/lhost-gmx-01.eml", 0, { "shironeko@example.jp" } },
	{ "bsd/lhost-ezweb-01.eml", 0,
	    { "this-message-rejected-by-the-domain-filter@ezweb.ne.jp" } },
	{ "bsd/lhost-kddi-01.eml", 0, { "kijitora@ezweb.ne.jp" } },
	{ "dos/lhost-postfix-01.eml", 0, { "kijitora@example.org" } },
	{ "mac/lhost-exim-01.eml", 0, { "kijitora@example.ed.jp" } },
	{ "mac/lhost-gmail-01.eml", 0, { "userunknown@example.jp" } },
};

/* The "failed:" lines of a description, in order. */
static void
described_failed(const char *desc, struct strv *out)
{
	const char *p = desc, *end = strstr(desc, "== commands ==\n");

	while (p != NULL && *p && (end == NULL || p < end)) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);

		if (n > 7 && strncmp(p, "failed:", 7) == 0) {
			char *v = xstrndup(p + 7, n - 7);

			strv_add(out, util_trim(v));
			free(v);
		}
		p = eol ? eol + 1 : NULL;
	}
}

START_TEST(mail_sisimai_bounce_recipients)
{
	struct mail_limits l = { 0 };
	struct mail_guard_cfg g = guard_cfg();
	struct tj root;
	const struct tj *files;
	int i, bounces = 0, checked = 0, bad = 0;
	size_t t;

	load_json("sisimai-set-of-emails/expectations.json", &root);
	files = tj_get(&root, "files");
	for (i = 0; i < files->nkids; i++) {
		const struct tj *kind = tj_get(&files->kids[i], "kind");
		const struct tj *records = tj_get(&files->kids[i], "records");
		const char *key = files->kids[i].key, *why;
		char path[1200], err[256], *raw;
		struct strv got = { 0 };
		struct buf b = { 0 };
		struct mail_msg m;
		size_t len;
		int j, k, want;

		if (strcmp(kind->str, "bounce") != 0)
			continue;
		bounces++;
		ck_assert_ptr_nonnull(records);
		for (t = 0; t < nitems(bounce_rcpts); t++)
			if (strncmp(key, "maildir/", 8) == 0 && strcmp(key + 8,
			    bounce_rcpts[t].file) == 0)
				break;
		ck_assert_msg(t < nitems(bounce_rcpts), "%s: not in the table "
		    "of failed recipients", key);
		snprintf(path, sizeof(path), "%s/sisimai-set-of-emails/%s",
		    corpus, key);
		raw = util_read_file(path, SIZE_MAX, &len);
		ck_assert_ptr_nonnull(raw);
		mail_parse(raw, len, &l, &m, err, sizeof(err));
		why = mail_guard(&m, &g);
		ck_assert_msg(why != NULL && strncmp(why, "bounce:", 7) == 0,
		    "%s: not read as a bounce (%s)", key,
		    why ? why : "answered");
		mail_describe(&m, why, &b);
		described_failed(buf_str(&b), &got);
		for (want = 0; want < 3 && bounce_rcpts[t].rcpt[want]; want++)
			;
		ck_assert_msg(want + bounce_rcpts[t].delayed == records->nkids,
		    "%s: %d recipients in the table, %d records", key,
		    want + bounce_rcpts[t].delayed, records->nkids);
		/* None found is said as such. */
		k = want == 0 ? got.n == 1 && strcmp(got.v[0],
		    "(none found)") == 0 : got.n == want;
		for (j = 0; k && j < want; j++)
			k = strcmp(got.v[j], bounce_rcpts[t].rcpt[j]) == 0;
		if (!k) {
			fprintf(stderr, "%s: failed recipients differ:\n%s",
			    key, buf_str(&b));
			bad++;
		}
		checked++;
		strv_free(&got);
		buf_free(&b);
		mail_msg_free(&m);
		free(raw);
	}
	tj_free(&root);
	fprintf(stderr, "sisimai: failed recipients checked in %d of %d "
	    "bounces, %d differ\n", checked, bounces, bad);
	ck_assert_int_eq(bounces, (int)nitems(bounce_rcpts));
	ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(mail_cpython_parses_without_crash)
{
	struct mail_limits l = { 0 };
	struct mail_guard_cfg g = guard_cfg();
	char dir[1100], path[1400];
	struct dirent *de;
	DIR *d;
	int n = 0, ok = 0;

	snprintf(dir, sizeof(dir), "%s/cpython-test_email/data", corpus);
	ck_assert_ptr_nonnull(d = opendir(dir));
	while ((de = readdir(d)) != NULL) {
		struct strv r = { 0 };
		struct mail_msg m;
		struct buf b = { 0 };
		char err[256], *raw;
		size_t len;

		if (strncmp(de->d_name, "msg_", 4) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		raw = util_read_file(path, SIZE_MAX, &len);
		ck_assert_ptr_nonnull(raw);
		if (mail_parse(raw, len, &l, &m, err, sizeof(err)) == 0)
			ok++;
		mail_describe(&m, mail_guard(&m, &g), &b);
		ck_assert_ptr_nonnull(strstr(buf_str(&b), "== commands ==\n"));
		mail_bounce_recipients(&m, &r);
		strv_free(&r);
		buf_free(&b);
		mail_msg_free(&m);
		free(raw);
		n++;
	}
	closedir(d);
	fprintf(stderr, "cpython: %d files, %d with a text part\n", n, ok);
	ck_assert_int_eq(n, 48);
}
END_TEST

/* msg_16 is a DSN: the guard names it and its failed recipient is found;
 * msg_08 declares KOI8-R and ISO-8859-x parts after a us-ascii one. */
START_TEST(mail_cpython_known_facts)
{
	struct mail_limits l = { 0 };
	struct mail_guard_cfg g = guard_cfg();
	struct strv r = { 0 };
	struct mail_msg m;
	char path[1200], err[256], *raw;
	size_t len;

	snprintf(path, sizeof(path), "%s/cpython-test_email/data/msg_16.txt",
	    corpus);
	raw = util_read_file(path, SIZE_MAX, &len);
	ck_assert_ptr_nonnull(raw);
	ck_assert_int_eq(mail_parse(raw, len, &l, &m, err, sizeof(err)), 0);
	ck_assert_str_eq(m.content_type, "multipart/report");
	ck_assert_ptr_nonnull(mail_guard(&m, &g));
	ck_assert_int_ge(mail_bounce_recipients(&m, &r), 1);
	strv_free(&r);
	mail_msg_free(&m);
	free(raw);
}
END_TEST

int
main(void)
{
	const char *env = getenv("LUDUS_CORPUS_DIR"), *src;
	struct stat st;
	Suite *s;
	TCase *tc;
	SRunner *sr;
	int failed;

	if (env != NULL && *env)
		util_strlcpy(corpus, env, sizeof(corpus));
	else {
		src = getenv("LUDUS_SRCDIR");
		snprintf(corpus, sizeof(corpus), "%s/../shared/corpus",
		    src ? src : "..");
	}
	if (stat(corpus, &st) == -1 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "no mail corpora at %s: skipped\n", corpus);
		return 77;
	}
	s = suite_create("mailcorpus");
	tc = tcase_create("corpora");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, mail_reply_parser_visible_texts);
	tcase_add_test(tc, mail_reply_parser_structure);
	tcase_add_test(tc, mail_reply_parser_all_fast);
	tcase_add_test(tc, mail_sisimai_never_answered);
	tcase_add_test(tc, mail_sisimai_bounce_recipients);
	tcase_add_test(tc, mail_cpython_parses_without_crash);
	tcase_add_test(tc, mail_cpython_known_facts);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
