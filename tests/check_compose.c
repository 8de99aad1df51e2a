/* compose: what we send parses back to what we meant. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <libetpan/libetpan.h>

#include "compose.h"
#include "testutil.h"

static struct compose_mail
sample(void)
{
	struct compose_mail m;

	memset(&m, 0, sizeof(m));
	m.from_name = "Ludus Referee";
	m.from = "referee@example.org";
	m.to = "alice@example.org";
	m.reply_to = "referee+1.abcdefgh@example.org";
	m.subject = "[ludus #1 ABCDEFGH] Манкала: your move";
	m.message_id = "ludus.1.2@example.org";
	m.in_reply_to = "ludus.1.0@example.org";
	m.references = "ludus.1.0@example.org ludus.1.1@example.org";
	m.auto_submitted = "auto-replied";
	m.x_loop = "referee@example.org";
	m.text = "Ваш ход — board:\n  | 4 | 4 |\nFrom here\n.\n-- \nludus\n";
	m.date = 1700000000;
	return m;
}

/* The decoded value of a header, via libetpan's own RFC 2047 decoder. */
static char *
header(const char *msg, const char *name)
{
	struct mailimf_fields *f = NULL;
	size_t idx = 0;
	clistiter *it;
	char *out = NULL;

	ck_assert_int_eq(mailimf_fields_parse(msg, strlen(msg), &idx, &f),
	    MAILIMF_NO_ERROR);
	for (it = clist_begin(f->fld_list); it; it = clist_next(it)) {
		struct mailimf_field *fld = clist_content(it);
		const char *fname = NULL, *raw = NULL;

		if (fld->fld_type == MAILIMF_FIELD_OPTIONAL_FIELD) {
			fname = fld->fld_data.fld_optional_field->fld_name;
			raw = fld->fld_data.fld_optional_field->fld_value;
		} else if (fld->fld_type == MAILIMF_FIELD_SUBJECT) {
			fname = "Subject";
			raw = fld->fld_data.fld_subject->sbj_value;
		}
		if (fname && strcasecmp(fname, name) == 0 && raw) {
			size_t i = 0;
			char *dec = NULL;

			ck_assert_int_eq(mailmime_encoded_phrase_parse(
			    "us-ascii", raw, strlen(raw), &i, "utf-8", &dec),
			    MAILIMF_NO_ERROR);
			out = xstrdup(dec);
			free(dec);
		}
	}
	mailimf_fields_free(f);
	return out;
}

/* The decoded body of the first text/plain part. */
static char *
body_text(const char *msg)
{
	struct mailmime *mime = NULL, *part;
	size_t idx = 0, dlen = 0, didx = 0;
	char *dec = NULL, *out;
	int enc = MAILMIME_MECHANISM_8BIT;
	clistiter *it;

	ck_assert_int_eq(mailmime_parse(msg, strlen(msg), &idx, &mime),
	    MAILIMF_NO_ERROR);
	part = mime->mm_data.mm_message.mm_msg_mime;
	while (part->mm_type == MAILMIME_MULTIPLE)
		part = clist_content(clist_begin(
		    part->mm_data.mm_multipart.mm_mp_list));
	if (part->mm_mime_fields)
		for (it = clist_begin(part->mm_mime_fields->fld_list); it;
		    it = clist_next(it)) {
			struct mailmime_field *mf = clist_content(it);

			if (mf->fld_type == MAILMIME_FIELD_TRANSFER_ENCODING)
				enc = mf->fld_data.fld_encoding->enc_type;
		}
	ck_assert_int_eq(mailmime_part_parse(
	    part->mm_data.mm_single->dt_data.dt_text.dt_data,
	    part->mm_data.mm_single->dt_data.dt_text.dt_length, &didx, enc,
	    &dec, &dlen), MAILIMF_NO_ERROR);
	out = xstrndup(dec, dlen);
	mailmime_decoded_part_free(dec);
	mailmime_free(mime);
	return out;
}

START_TEST(compose_headers_and_body_round_trip)
{
	struct compose_mail m = sample();
	char err[128], *msg = compose_message(&m, err, sizeof(err)), *v, *b;
	char *crlf;

	ck_assert_ptr_nonnull(msg);
	/* The tag stays readable ASCII; only the Russian word is encoded. */
	ck_assert_ptr_nonnull(strstr(msg, "Subject: [ludus #1 ABCDEFGH] =?UTF-8?B?"));
	v = header(msg, "Subject");
	ck_assert_str_eq(v, m.subject);
	free(v);
	v = header(msg, "Auto-Submitted");
	ck_assert_str_eq(v, "auto-replied");
	free(v);
	ck_assert_ptr_nonnull(strstr(msg, "Message-ID: <ludus.1.2@example.org>\r\n"));
	ck_assert_ptr_nonnull(strstr(msg, "In-Reply-To: <ludus.1.0@example.org>\r\n"));
	ck_assert_ptr_nonnull(strstr(msg, "References: <ludus.1.0@example.org> "
	    "<ludus.1.1@example.org>\r\n"));
	ck_assert_ptr_nonnull(strstr(msg, "Reply-To: referee+1.abcdefgh@example.org\r\n"));
	ck_assert_ptr_nonnull(strstr(msg, "Content-Type: text/plain; charset=\"UTF-8\""));
	/* Every line ends in CRLF and none is longer than 998. */
	for (crlf = msg; (crlf = strchr(crlf, '\n')) != NULL; crlf++)
		ck_assert_int_eq(crlf[-1], '\r');
	b = body_text(msg);
	/* The text exactly, line ends as CRLF. */
	ck_assert_str_eq(b, "Ваш ход — board:\r\n  | 4 | 4 |\r\nFrom here\r\n"
	    ".\r\n-- \r\nludus\r\n");
	free(b);
	free(msg);
}
END_TEST

START_TEST(compose_is_a_function_of_its_input)
{
	struct compose_mail m = sample();
	char err[128], *a, *b;

	m.html = "<pre>| 4 | 4 |</pre>";
	a = compose_message(&m, err, sizeof(err));
	b = compose_message(&m, err, sizeof(err));
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_nonnull(strstr(a, "multipart/alternative"));
	ck_assert_ptr_nonnull(strstr(a, "Content-Type: text/html"));
	/* Exactly one boundary parameter. */
	ck_assert_ptr_null(strstr(strstr(a, "boundary=") + 1, "boundary="));
	free(a);
	free(b);
}
END_TEST

START_TEST(compose_header_injection_is_impossible)
{
	struct compose_mail m = sample();
	char err[128], *msg, *v;

	m.subject = "hi\r\nBcc: victim@example.org";
	m.from_name = "Eve\r\nBcc: victim@example.org";
	msg = compose_message(&m, err, sizeof(err));
	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_null(strstr(msg, "\r\nBcc:"));
	v = header(msg, "Subject");
	ck_assert_str_eq(v, "hi\r\nBcc: victim@example.org");
	free(v);
	free(msg);

	m = sample();
	m.to = "a@example.org>\r\nBcc: <victim@example.org";
	ck_assert_ptr_null(compose_message(&m, err, sizeof(err)));
	ck_assert_str_eq(err, "unusable address");
	m = sample();
	m.message_id = "no-at-sign";
	ck_assert_ptr_null(compose_message(&m, err, sizeof(err)));
}
END_TEST

START_TEST(compose_long_words_split_on_characters)
{
	char *w = compose_header_words("Шахматы-и-манкала-и-алькерке-"
	    "и-алуэтт-и-злоба-в-одном-слове"), *p, *dec = NULL;
	size_t i = 0;

	/* Each encoded word at most 75 characters. */
	for (p = w; *p; ) {
		size_t len = strcspn(p, " ");

		ck_assert_uint_le(len, 75);
		p += len;
		while (*p == ' ')
			p++;
	}
	ck_assert_int_eq(mailmime_encoded_phrase_parse("us-ascii", w,
	    strlen(w), &i, "utf-8", &dec), MAILIMF_NO_ERROR);
	ck_assert_str_eq(dec, "Шахматы-и-манкала-и-алькерке-и-алуэтт-и-"
	    "злоба-в-одном-слове");
	free(dec);
	free(w);
	w = compose_header_words("plain ascii");
	ck_assert_str_eq(w, "plain ascii");
	free(w);
}
END_TEST


/* Decode quoted-printable with libetpan's own decoder. */
static char *
qp_decode(const char *qp)
{
	size_t idx = 0, dlen = 0;
	char *dec = NULL, *out;

	ck_assert_int_eq(mailmime_part_parse(qp, strlen(qp), &idx,
	    MAILMIME_MECHANISM_QUOTED_PRINTABLE, &dec, &dlen),
	    MAILIMF_NO_ERROR);
	out = xstrndup(dec, dlen);
	mailmime_decoded_part_free(dec);
	return out;
}

START_TEST(compose_qp_round_trips_tricky_text)
{
	static const char *const cases[] = {
		"-- \r\nludus\r\n",
		"trailing spaces   \r\ntab\t\r\nboth \t \r\n",
		"no line end at all ",
		"a=b ==3D =\r\n=\r\n",
		".\r\n.dot start\r\n..\r\nFrom here\r\nFrom\r\n",
		"Ваш ход — доска: Монсеньор 3co ♠\r\n",
		"x\r\n\r\n\r\n",
		"",
	};
	struct buf b = { 0 };
	char *qp, *dec, *line;
	size_t i, j, len;

	/* Long lines of every kind, each character landing on every column
	 * of a soft break once. */
	for (i = 0; i < 80; i++)
		buf_addc(&b, 'a');
	buf_adds(&b, "\r\n");
	for (j = 0; j < 4; j++) {
		for (i = 0; i < 70 + j; i++)
			buf_addc(&b, 'b');
		buf_adds(&b, "= . From é\t ");
		for (i = 0; i < 100; i++)
			buf_adds(&b, i % 3 ? "ж" : " ");
		buf_adds(&b, "  \r\n");
	}
	for (i = 0; i <= nitems(cases); i++) {
		const char *in = i < nitems(cases) ? cases[i] : buf_str(&b);

		qp = compose_qp(in);
		/* Short lines, only ASCII, no trailing blank, no bare dot or
		 * From at a line start. */
		for (line = qp; *line; line += len + (line[len] ? 2 : 0)) {
			len = strcspn(line, "\r");
			ck_assert_uint_le(len, 76);
			if (line[len])
				ck_assert_int_eq(line[len + 1], '\n');
			if (len > 0)
				ck_assert(line[len - 1] != ' ' &&
				    line[len - 1] != '\t');
			ck_assert(line[0] != '.' && strncmp(line, "From ",
			    5) != 0);
		}
		for (line = qp; *line; line++)
			ck_assert((unsigned char)*line < 0x80);
		dec = qp_decode(qp);
		ck_assert_str_eq(dec, in);
		free(dec);
		free(qp);
	}
	buf_free(&b);
	/* The signature separator keeps its one space. */
	qp = compose_qp("-- \r\n");
	ck_assert_str_eq(qp, "--=20\r\n");
	free(qp);
}
END_TEST

START_TEST(compose_ascii_is_7bit_utf8_is_qp)
{
	struct compose_mail m = sample();
	char err[128], *msg, *b;

	m.text = "Your move.\n-- \nludus\n";
	m.html = "<p>Your move.</p>\n";
	msg = compose_message(&m, err, sizeof(err));
	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_null(strstr(msg, "base64"));
	ck_assert_ptr_nonnull(strstr(msg, "Content-Transfer-Encoding: 7bit"));
	ck_assert_ptr_null(strstr(msg, "quoted-printable"));
	ck_assert_ptr_nonnull(strstr(msg, "\r\n-- \r\nludus\r\n"));
	b = body_text(msg);
	ck_assert_str_eq(b, "Your move.\r\n-- \r\nludus\r\n");
	free(b);
	free(msg);

	m = sample();
	msg = compose_message(&m, err, sizeof(err));
	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_null(strstr(msg, "base64"));
	ck_assert_ptr_nonnull(strstr(msg,
	    "Content-Transfer-Encoding: quoted-printable"));
	ck_assert_ptr_nonnull(strstr(msg, "\r\n--=20\r\n"));
	b = body_text(msg);
	ck_assert_str_eq(b, "Ваш ход — board:\r\n  | 4 | 4 |\r\nFrom here\r\n"
	    ".\r\n-- \r\nludus\r\n");
	free(b);
	free(msg);
}
END_TEST

static Suite *
compose_suite(void)
{
	Suite *s = suite_create("compose");
	TCase *tc = tcase_create("compose");

	tcase_add_test(tc, compose_headers_and_body_round_trip);
	tcase_add_test(tc, compose_is_a_function_of_its_input);
	tcase_add_test(tc, compose_header_injection_is_impossible);
	tcase_add_test(tc, compose_long_words_split_on_characters);
	tcase_add_test(tc, compose_qp_round_trips_tricky_text);
	tcase_add_test(tc, compose_ascii_is_7bit_utf8_is_qp);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(compose_suite());
}
